package store

import (
	"encoding/json"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestCachedRecordsChangeOnlyThroughUpdate reads every package of the mock
// server (its source, type-checked) and finds each change of a record
// whose encoding the store keeps (a Cached record: a lead, a call, an
// agent): an assignment to a field (or to an element of a map or slice
// field, or through a pointer field), an increment, a field's address
// taken, delete or clear on a field. Each must be
//
//   - in the change function given to Table.Update, on its parameter; or
//   - on a record the same function made (a composite literal or new),
//     before or right after inserting it: nothing reads it meanwhile; or
//   - on a parameter of a function whose every call passes such a record
//     (a helper that fills a new record and is called in Update's change
//     function too).
//
// Anything else could leave a kept encoding stale: the table would serve
// the record as it was. (The check follows direct calls; a record handed
// to a function through a func value or an interface is not followed:
// such a function must change its record through Update itself.)
func TestCachedRecordsChangeOnlyThroughUpdate(t *testing.T) {
	pkgs := loadMockPackages(t)
	c := &mutationCheck{pkgs: pkgs, mutates: map[string]map[int]bool{}}
	// Summaries first (which functions change which parameters), to a
	// fixed point; then the findings.
	for {
		c.changed = false
		c.run(false)
		if !c.changed {
			break
		}
	}
	c.run(true)
	sort.Strings(c.findings)
	for _, f := range c.findings {
		t.Error(f)
	}
	if len(c.findings) > 0 {
		t.Logf("%d changes of cached records outside Table.Update: make them in Update's change function", len(c.findings))
	}
	// The check sees the changes it must see: the store's own tests of it.
	assert := func(cond bool, msg string) {
		if !cond {
			t.Error(msg)
		}
	}
	assert(c.sites > 50, fmt.Sprintf("the check saw %d changes of cached records: it does not see them", c.sites))
}

// TestMutationCheckFindsEveryKindOfChange runs the check on a package
// written for it: each change outside Update is found, and the allowed
// ones are not.
func TestMutationCheckFindsEveryKindOfChange(t *testing.T) {
	src := `package x

import (
	"encoding/json"
	"maps"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

func bad(st *store.Store, l *store.Lead, c *store.Call, a *store.Agent) {
	got, _ := st.Leads.Get("x")
	got.Status = "lost"               // BAD 1: a stored record
	got.Score++                       // BAD 2
	p := &got.Name                    // BAD 3
	_ = p
	a.Metadata["k"] = 1               // BAD via helper's caller (param)
	delete(a.Metadata, "k")           // param too
	st.Calls.Update(c, func(c *store.Call) {
		c.Status = "completed"          // fine: Update's parameter
		go func() { c.Status = "x" }()  // BAD 4: runs later
	})
	st.Calls.Update(c, func(x *store.Call) { c.Summary = "s" }) // BAD 5: not the parameter
	fresh := &store.Lead{}
	fresh.Status = "new"              // fine: made here
	st.Leads.Insert(fresh, "b", fresh.CreatedAt)
	fresh.UpdatedAt = fresh.CreatedAt // fine
	helper(fresh)                     // fine: a new record
	st.Leads.Update(got, func(l *store.Lead) { helper(l) }) // fine
	helper(got)                       // BAD 6: helper changes it
	*got.Email = "e"                  // BAD 7: through a pointer field
	ag, _ := st.Agents.Get("a")
	maps.Copy(ag.Metadata, map[string]any{}) // BAD 10: a map field, in place
	maps.DeleteFunc(ag.VendorConfig, nil)    // BAD 11
	_ = json.Unmarshal(nil, got.Name)        // BAD 12: through a pointer field
	_ = maps.Clone(ag.Metadata)              // fine: reads
	st.Agents.Update(ag, func(a *store.Agent) { maps.Copy(a.Metadata, map[string]any{}) }) // fine
}

func helper(l *store.Lead) { l.Notes = nil }

func caller(st *store.Store) {
	a, _ := st.Agents.Get("a")
	bad(st, nil, nil, a)              // BAD 8: bad changes its agent
	later(helper)                     // BAD 9: helper as a value
}

func later(func(*store.Lead)) {}
`
	dir := t.TempDir()
	f := filepath.Join(dir, "x.go")
	if err := os.WriteFile(f, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, f, nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	exports := goListExports(t)
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) { return os.Open(exports[path]) })
	pkg := checkPackage(t, fset, imp, "x", []*ast.File{file})
	c := &mutationCheck{pkgs: []*checkedPackage{pkg}, mutates: map[string]map[int]bool{}}
	for {
		c.changed = false
		c.run(false)
		if !c.changed {
			break
		}
	}
	c.run(true)
	var lines []int
	for _, f := range c.findings {
		var line int
		_, _ = fmt.Sscanf(f[strings.Index(f, ":")+1:], "%d", &line)
		lines = append(lines, line)
	}
	var want []int
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, "// BAD ") && !strings.Contains(l, "via helper") {
			want = append(want, i+1)
		}
	}
	sort.Ints(lines)
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Errorf("findings on lines %v, want %v:\n%s", lines, want, strings.Join(c.findings, "\n"))
	}
}

// checkedPackage is a type-checked package.
type checkedPackage struct {
	fset  *token.FileSet
	files []*ast.File
	info  *types.Info
}

// goListExports returns the export data files of the mock server's
// packages and their dependencies, by import path (go list -export).
func goListExports(t *testing.T) map[string]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Export", "github.com/voiceagent/voiceagent-go/mockserver/...")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := map[string]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct{ ImportPath, Export string }
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
	}
	return exports
}

// loadMockPackages type-checks the non-test source of every package of
// the mock server.
func loadMockPackages(t *testing.T) []*checkedPackage {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Dir,GoFiles", "github.com/voiceagent/voiceagent-go/mockserver/...")
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	exports := goListExports(t)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) { return os.Open(exports[path]) })
	var pkgs []*checkedPackage
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p struct {
			ImportPath, Dir string
			GoFiles         []string
		}
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		var files []*ast.File
		for _, name := range p.GoFiles {
			f, err := parser.ParseFile(fset, filepath.Join(p.Dir, name), nil, parser.ParseComments)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, f)
		}
		pkgs = append(pkgs, checkPackage(t, fset, imp, p.ImportPath, files))
	}
	if len(pkgs) < 10 {
		t.Fatalf("found %d packages of the mock server", len(pkgs))
	}
	return pkgs
}

func checkPackage(t *testing.T, fset *token.FileSet, imp types.Importer, path string, files []*ast.File) *checkedPackage {
	t.Helper()
	info := &types.Info{
		Types:      map[ast.Expr]types.TypeAndValue{},
		Defs:       map[*ast.Ident]types.Object{},
		Uses:       map[*ast.Ident]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{},
	}
	conf := types.Config{Importer: imp}
	if _, err := conf.Check(path, fset, files, info); err != nil {
		t.Fatalf("type-checking %s: %v", path, err)
	}
	return &checkedPackage{fset: fset, files: files, info: info}
}

const storePath = "github.com/voiceagent/voiceagent-go/mockserver/internal/store"

// mutationCheck finds the changes of cached records.
type mutationCheck struct {
	pkgs []*checkedPackage
	// mutates: function (types.Func.FullName) -> the parameters (index;
	// -1 the receiver) whose cached record it changes.
	mutates  map[string]map[int]bool
	changed  bool
	report   bool
	findings []string
	sites    int
}

// frame is a function being walked: a declaration or a literal.
type frame struct {
	node   ast.Node // *ast.FuncDecl or *ast.FuncLit
	fn     *types.Func
	params []*types.Var // receiver first when a method
	recv   bool
	// update is set on the change function of a Table.Update call: its
	// record parameter.
	update *types.Var
}

func (c *mutationCheck) run(report bool) {
	c.report = report
	c.sites = 0
	for _, p := range c.pkgs {
		for _, f := range p.files {
			for _, d := range f.Decls {
				fd, ok := d.(*ast.FuncDecl)
				if !ok || fd.Body == nil {
					continue
				}
				fn, _ := p.info.Defs[fd.Name].(*types.Func)
				fr := &frame{node: fd, fn: fn}
				if fd.Recv != nil {
					fr.recv = true
					for _, fld := range fd.Recv.List {
						for _, n := range fld.Names {
							fr.params = append(fr.params, p.info.Defs[n].(*types.Var))
						}
						if len(fld.Names) == 0 {
							fr.params = append(fr.params, nil)
						}
					}
				}
				fr.params = append(fr.params, paramVars(p.info, fd.Type)...)
				c.walk(p, fd.Body, []*frame{fr})
			}
		}
	}
}

func paramVars(info *types.Info, ft *ast.FuncType) []*types.Var {
	var out []*types.Var
	for _, fld := range ft.Params.List {
		for _, n := range fld.Names {
			v, _ := info.Defs[n].(*types.Var)
			out = append(out, v)
		}
		if len(fld.Names) == 0 {
			out = append(out, nil)
		}
	}
	return out
}

// walk visits a function body; frames are the enclosing functions,
// innermost last.
func (c *mutationCheck) walk(p *checkedPackage, body ast.Node, frames []*frame) {
	called := map[ast.Node]bool{} // the functions of calls, and selectors' names
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			called[n.Sel] = true
			if fn, _ := callee(p.info, &ast.CallExpr{Fun: n}); fn != nil && !called[n] {
				c.funcValue(p, n, fn)
			}
		case *ast.Ident:
			if fn, _ := p.info.Uses[n].(*types.Func); fn != nil && !called[n] {
				c.funcValue(p, n, fn)
			}
		case *ast.FuncLit:
			fr := &frame{node: n, params: paramVars(p.info, n.Type)}
			fr.update = c.updateParam(p, n, body)
			c.walk(p, n.Body, append(frames[:len(frames):len(frames)], fr))
			return false
		case *ast.AssignStmt:
			if n.Tok != token.DEFINE {
				for _, e := range n.Lhs {
					c.write(p, e, frames)
				}
			}
		case *ast.IncDecStmt:
			c.write(p, n.X, frames)
		case *ast.UnaryExpr:
			if n.Op == token.AND {
				c.write(p, n.X, frames)
			}
		case *ast.CallExpr:
			called[ast.Unparen(n.Fun)] = true
			c.call(p, n, frames)
		}
		return true
	})
}

// funcValue reports a function that changes a record it is given used as
// a value (a method value passed to the scheduler): its calls cannot be
// followed, so it must change its record through Update itself.
func (c *mutationCheck) funcValue(p *checkedPackage, at ast.Node, fn *types.Func) {
	if len(c.mutates[fn.FullName()]) == 0 || !c.report {
		return
	}
	pos := p.fset.Position(at.Pos())
	c.findings = append(c.findings, fmt.Sprintf("%s:%d: uses %s, which changes a record it is given outside Table.Update, as a value",
		pos.Filename, pos.Line, fn.Name()))
}

// updateParam returns lit's record parameter when lit is the change
// function of a Table.Update call within body.
func (c *mutationCheck) updateParam(p *checkedPackage, lit *ast.FuncLit, body ast.Node) *types.Var {
	var param *types.Var
	ast.Inspect(body, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 2 || call.Args[1] != lit {
			return param == nil
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || sel.Sel.Name != "Update" {
			return true
		}
		s := p.info.Selections[sel]
		if s == nil || !isStoreType(s.Recv(), "Table") {
			return true
		}
		if ps := paramVars(p.info, lit.Type); len(ps) == 1 {
			param = ps[0]
		}
		return false
	})
	return param
}

// isStoreType reports whether t (or what it points to) is the store's
// named type name.
func isStoreType(t types.Type, name string) bool {
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	n, ok := t.(*types.Named)
	return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == storePath && n.Obj().Name() == name
}

// isCached reports whether t (or what it points to) is a store record
// type that embeds encodable.
func isCached(t types.Type) bool {
	if ptr, ok := t.(*types.Pointer); ok {
		t = ptr.Elem()
	}
	n, ok := t.(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != storePath {
		return false
	}
	st, ok := n.Underlying().(*types.Struct)
	if !ok {
		return false
	}
	for i := range st.NumFields() {
		if f := st.Field(i); f.Embedded() && f.Name() == "encodable" {
			return true
		}
	}
	return false
}

// recordOf returns the cached record whose field e writes (through
// selectors, index expressions and dereferences), or nil.
func recordOf(info *types.Info, e ast.Expr) ast.Expr {
	var rec ast.Expr
	for {
		switch x := e.(type) {
		case *ast.ParenExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.StarExpr:
			e = x.X
		case *ast.SelectorExpr:
			if s := info.Selections[x]; s != nil && s.Kind() == types.FieldVal && isCached(s.Recv()) {
				rec = x.X
			}
			e = x.X
		default:
			return rec
		}
	}
}

// write checks a write to e.
func (c *mutationCheck) write(p *checkedPackage, e ast.Expr, frames []*frame) {
	if rec := recordOf(p.info, e); rec != nil {
		c.sites++
		c.changes(p, e, rec, frames, "changes")
	}
}

// call checks delete and clear on a field, and calls of functions that
// change a record they are given.
func (c *mutationCheck) call(p *checkedPackage, call *ast.CallExpr, frames []*frame) {
	if id, ok := call.Fun.(*ast.Ident); ok && len(call.Args) > 0 {
		if b, ok := p.info.Uses[id].(*types.Builtin); ok && (b.Name() == "delete" || b.Name() == "clear" || b.Name() == "copy") {
			c.write(p, call.Args[0], frames)
			return
		}
	}
	fn, recvExpr := callee(p.info, call)
	if fn == nil {
		return
	}
	if fn.Pkg() != nil {
		if idx, ok := stdMutators[fn.Pkg().Path()+"."+fn.Name()]; ok && idx < len(call.Args) {
			c.write(p, call.Args[idx], frames)
			return
		}
	}
	for idx := range c.mutates[fn.FullName()] {
		var arg ast.Expr
		switch {
		case idx == -1:
			arg = recvExpr
		case idx < len(call.Args):
			arg = call.Args[idx]
		}
		if arg == nil {
			continue
		}
		c.sites++
		c.changes(p, call, ast.Unparen(arg), frames, "passes to "+fn.Name()+", which changes")
	}
}

// stdMutators are the standard library's functions that change what an
// argument holds (the index of the argument), a map, slice or pointer
// field of a record when it is one.
var stdMutators = map[string]int{
	"maps.Copy": 0, "maps.DeleteFunc": 0,
	"slices.Sort": 0, "slices.SortFunc": 0, "slices.SortStableFunc": 0, "slices.Reverse": 0,
	"sort.Strings": 0, "sort.Ints": 0, "sort.Slice": 0, "sort.SliceStable": 0, "sort.Sort": 0, "sort.Stable": 0,
	"encoding/json.Unmarshal": 1,
}

// callee is the function a call calls statically, and the receiver
// expression of a method call.
func callee(info *types.Info, call *ast.CallExpr) (*types.Func, ast.Expr) {
	switch f := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		fn, _ := info.Uses[f].(*types.Func)
		return fn, nil
	case *ast.SelectorExpr:
		if s := info.Selections[f]; s != nil {
			if s.Kind() == types.MethodVal {
				fn, _ := s.Obj().(*types.Func)
				return fn, f.X
			}
			return nil, nil
		}
		fn, _ := info.Uses[f.Sel].(*types.Func) // a package's function
		return fn, nil
	}
	return nil, nil
}

// changes judges a change of the cached record rec at node at.
func (c *mutationCheck) changes(p *checkedPackage, at ast.Node, rec ast.Expr, frames []*frame, what string) {
	inner := frames[len(frames)-1]
	id, ok := ast.Unparen(rec).(*ast.Ident)
	var v *types.Var
	if ok {
		v, _ = p.info.Uses[id].(*types.Var)
	}
	switch {
	case v == nil:
	case inner.update != nil && v == inner.update:
		return // Update's change function, on its record
	case c.fresh(p, v, inner):
		return // a record this function made
	default:
		if _, isDecl := inner.node.(*ast.FuncDecl); isDecl && inner.fn != nil {
			for i, param := range inner.params {
				if param == v {
					idx := i
					if inner.recv {
						idx--
					}
					c.mark(inner.fn, idx)
					return // the callers answer for it
				}
			}
		}
	}
	if c.report {
		pos := p.fset.Position(at.Pos())
		c.findings = append(c.findings, fmt.Sprintf("%s:%d: %s %s outside Table.Update", pos.Filename, pos.Line, what, types.ExprString(rec)))
	}
}

func (c *mutationCheck) mark(fn *types.Func, idx int) {
	m := c.mutates[fn.FullName()]
	if m == nil {
		m = map[int]bool{}
		c.mutates[fn.FullName()] = m
	}
	if !m[idx] {
		m[idx] = true
		c.changed = true
	}
}

// fresh reports whether v is a variable of the function fr that only
// ever holds records fr made (&store.T{...}, store.T{...}, new).
func (c *mutationCheck) fresh(p *checkedPackage, v *types.Var, fr *frame) bool {
	body := fr.node
	if v.Pos() < body.Pos() || v.Pos() >= body.End() {
		return false
	}
	made := func(e ast.Expr) bool {
		e = ast.Unparen(e)
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
			e = u.X
		}
		switch x := e.(type) {
		case *ast.CompositeLit:
			return true
		case *ast.CallExpr:
			if id, ok := x.Fun.(*ast.Ident); ok {
				b, ok := p.info.Uses[id].(*types.Builtin)
				return ok && b.Name() == "new"
			}
		}
		return false
	}
	ok, seen := true, false
	ast.Inspect(body, func(n ast.Node) bool {
		if lit, isLit := n.(*ast.FuncLit); isLit && lit != body {
			// Assignments in nested functions count too.
			_ = lit
		}
		switch n := n.(type) {
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				id, isID := l.(*ast.Ident)
				if !isID {
					continue
				}
				obj := p.info.Defs[id]
				if obj == nil {
					obj = p.info.Uses[id]
				}
				if obj != v {
					continue
				}
				seen = true
				if len(n.Rhs) != len(n.Lhs) || !made(n.Rhs[i]) {
					ok = false
				}
			}
		case *ast.ValueSpec:
			for i, name := range n.Names {
				if p.info.Defs[name] != v {
					continue
				}
				seen = true
				if i >= len(n.Values) || !made(n.Values[i]) {
					ok = false
				}
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{n.Key, n.Value} {
				if id, isID := e.(*ast.Ident); isID && (p.info.Defs[id] == v || p.info.Uses[id] == v) {
					ok = false
				}
			}
		}
		return ok
	})
	// The variable must be declared in fr itself, not in a function
	// nested in it.
	declaredHere := true
	ast.Inspect(body, func(n ast.Node) bool {
		if lit, isLit := n.(*ast.FuncLit); isLit && n != body && v.Pos() >= lit.Pos() && v.Pos() < lit.End() {
			declaredHere = false
		}
		return declaredHere
	})
	return ok && seen && declaredHere
}
