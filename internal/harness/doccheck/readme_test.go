package doccheck

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// tableRow is a row of one of the README's endpoint tables.
type tableRow struct {
	line         int
	method, path string
	third        string // the scope (API table) or what the route does (admin table)
	refs         string // the SDK (or Go helper) column
}

func (r tableRow) String() string {
	return fmt.Sprintf("README.md:%d: %s %s", r.line, r.method, r.path)
}

var (
	rowPath  = regexp.MustCompile("^`(/[^`]*)`$")
	codeSpan = regexp.MustCompile("`([^`]+)`")
)

// readmeRows reads the rows of the README's tables whose second column is
// a path in backticks.
func readmeRows(t *testing.T) (readme string, rows []tableRow) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| ") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), " | ")
		if len(cells) != 4 {
			continue
		}
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		m := rowPath.FindStringSubmatch(cells[1])
		if m == nil {
			continue
		}
		rows = append(rows, tableRow{line: i + 1, method: cells[0], path: m[1], third: cells[2], refs: cells[3]})
	}
	return string(b), rows
}

// references expands an SDK cell: `c.Calls.List`, `.All` names
// c.Calls.List and c.Calls.All.
func references(cell string) ([]string, error) {
	var out []string
	prefix := ""
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		ref := m[1]
		switch {
		case strings.HasPrefix(ref, "."):
			if prefix == "" {
				return nil, fmt.Errorf("%q continues no entry", ref)
			}
			ref = prefix + ref
		case strings.Contains(ref, "."):
			prefix = ref[:strings.LastIndex(ref, ".")]
		default:
			return nil, fmt.Errorf("%q is not a method reference", ref)
		}
		out = append(out, ref)
	}
	return out, nil
}

// resolve follows a reference such as c.Agency.Offers.Save from the type of
// its root (the client or the server) and reports whether it names a method.
func resolve(root reflect.Type, ref string) bool {
	parts := strings.Split(ref, ".")[1:]
	t := root
	for i, name := range parts {
		if i == len(parts)-1 {
			_, ok := t.MethodByName(name)
			return ok
		}
		st := t
		if st.Kind() == reflect.Pointer {
			st = st.Elem()
		}
		if st.Kind() != reflect.Struct {
			return false
		}
		f, ok := st.FieldByName(name)
		if !ok || !f.IsExported() {
			return false
		}
		t = f.Type
	}
	return false
}

// serviceMethods lists every method of the client's services, as
// references (c.Calls.Create, c.Agency.Offers.Save, ...).
func serviceMethods() []string {
	var out []string
	var walk func(prefix string, t reflect.Type)
	walk = func(prefix string, t reflect.Type) {
		for i := range t.NumMethod() {
			out = append(out, prefix+"."+t.Method(i).Name)
		}
		st := t.Elem()
		for i := range st.NumField() {
			f := st.Field(i)
			if f.IsExported() && f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct {
				walk(prefix+"."+f.Name, f.Type)
			}
		}
	}
	ct := reflect.TypeOf(&client.Client{})
	st := ct.Elem()
	for i := range st.NumField() {
		f := st.Field(i)
		if f.IsExported() && f.Type.Kind() == reflect.Pointer {
			walk("c."+f.Name, f.Type)
		}
	}
	return out
}

// scopeCell is what the README's scope column says of a route.
func scopeCell(r mockserver.Route) string {
	switch {
	case r.Auth == "none":
		return "none"
	case r.Auth == "session":
		return "session"
	case r.Scope == "":
		return "any key"
	default:
		return r.Scope
	}
}

const apiPrefix, adminPrefix = "/api", "/_mock/"

// TestREADMEEndpointTablesMatchTheServer checks the README's endpoint
// tables against the mock server's route table and the SDK: every route
// has a row with its scope (and no row names a route twice); every SDK
// reference resolves to a method, and every method of every service
// appears; rows of routes that are not served are marked pending, and
// pending rows of routes that are served must be filled in.
func TestREADMEEndpointTablesMatchTheServer(t *testing.T) {
	srv := mockserver.New()
	defer srv.Close()
	_, rows := readmeRows(t)
	byKey := map[string]tableRow{}
	for _, r := range rows {
		k := r.method + " " + r.path
		if prev, dup := byKey[k]; dup {
			t.Errorf("%s: again (first at line %d)", r, prev.line)
		}
		byKey[k] = r
	}

	served := map[string]bool{}
	for _, rt := range srv.Routes() {
		path := rt.Path
		if strings.HasPrefix(path, apiPrefix+"/") {
			path = strings.TrimPrefix(path, apiPrefix)
		} else if !strings.HasPrefix(path, adminPrefix) && !slices.Contains([]string{"/", apiPrefix, strings.TrimSuffix(adminPrefix, "/")}, path) {
			t.Errorf("route %s %s is neither under /api nor /_mock, nor an index", rt.Method, rt.Path)
			continue
		}
		k := rt.Method + " " + path
		served[k] = true
		row, ok := byKey[k]
		if !ok {
			t.Errorf("README.md has no row for %s (auth %s, scope %q): add one to its endpoint tables", k, rt.Auth, rt.Scope)
			continue
		}
		if strings.Contains(row.refs, "pending") {
			t.Errorf("%s: the route is served now: fill in its SDK method and scope", row)
			continue
		}
		if rt.Auth != "admin" && row.third != scopeCell(rt) {
			t.Errorf("%s: scope %q, the server requires %q", row, row.third, scopeCell(rt))
		}
	}

	clientType := reflect.TypeOf(&client.Client{})
	serverType := reflect.TypeOf(&mockserver.Server{})
	accountType := reflect.TypeOf(&mockserver.Account{})
	mentioned := map[string]bool{}
	for _, r := range rows {
		if !served[r.method+" "+r.path] && !strings.Contains(r.refs, "pending") {
			t.Errorf("%s: the mock server does not serve it: mark it *pending* or remove it", r)
		}
		refs, err := references(r.refs)
		if err != nil {
			t.Errorf("%s: %v", r, err)
			continue
		}
		for _, ref := range refs {
			mentioned[ref] = true
			root, ok := map[string]reflect.Type{"c": clientType, "srv": serverType, "acct": accountType}[strings.Split(ref, ".")[0]]
			if !ok || !resolve(root, ref) {
				t.Errorf("%s: %s names no method (c. is a *client.Client, srv. a *mockserver.Server, acct. a *mockserver.Account)", r, ref)
			}
		}
	}
	for _, m := range serviceMethods() {
		if !mentioned[m] {
			t.Errorf("README.md's endpoint table does not mention %s: add it to the row of its endpoint", m)
		}
	}
}

// TestREADMEStartsWithTheTwoSetupCommands keeps the first thing a new user
// reads runnable: the two commands, in the first code block, and every
// example program (a folder of examples with a main.go) listed.
func TestREADMEStartsWithTheTwoSetupCommands(t *testing.T) {
	readme, _ := readmeRows(t)
	start := strings.Index(readme, "```sh\n")
	if start < 0 {
		t.Fatal("README.md has no sh code block")
	}
	block := readme[start:]
	block = block[:strings.Index(block[6:], "```")+6]
	for _, cmd := range []string{"go run ./examples/quickstart", "go test -race ./..."} {
		if !strings.Contains(block, "\n"+cmd+" ") && !strings.Contains(block, "\n"+cmd+"\n") {
			t.Errorf("the first code block of README.md lacks %q:\n%s", cmd, block)
		}
	}
	entries, err := os.ReadDir(filepath.Join("..", "..", "..", "examples"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		// Go programs only: the Python, Node and compose recipes beside
		// them are not run with go run.
		if _, err := os.Stat(filepath.Join("..", "..", "..", "examples", e.Name(), "main.go")); err != nil {
			continue
		}
		if e.IsDir() && !strings.Contains(readme, "go run ./examples/"+e.Name()) {
			t.Errorf("README.md does not list examples/%s", e.Name())
		}
	}
	if !slices.ContainsFunc(entries, func(e os.DirEntry) bool { return e.Name() == "quickstart" }) {
		t.Error("examples/quickstart is missing")
	}
}
