package mockserver

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// layers are the mock server's internal packages from the bottom up (see
// docs/architecture.md): a package may import only packages before it.
var layers = []string{
	"val", "domain", "clock", "watch", "ring", "jsonview", "store", "platform", "httpapi",
	"hooks", "telephony", "catalog", "identity", "runs", "governance",
	"agency", "sdr", "analytics", "fixtures", "dashboard",
}

// TestDependenciesPointDown keeps the layers apart: no internal package of
// the mock server imports one above it, and every internal package has its
// place in the list.
func TestDependenciesPointDown(t *testing.T) {
	const prefix = "github.com/voiceagent/voiceagent-go/mockserver/internal/"
	dirs, err := os.ReadDir("internal")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		rank := slices.Index(layers, d.Name())
		if rank < 0 {
			t.Errorf("internal/%s is not in the list of layers: give it its place (and in docs/architecture.md)", d.Name())
			continue
		}
		files, _ := filepath.Glob(filepath.Join("internal", d.Name(), "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range file.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				dep, ok := strings.CutPrefix(path, prefix)
				if !ok {
					continue
				}
				if slices.Index(layers, dep) >= rank {
					t.Errorf("%s imports internal/%s, which is not below internal/%s", f, dep, d.Name())
				}
			}
		}
	}
}

// TestDomainsSpeakTheirOwnLanguage keeps HTTP in the pipeline: outside
// internal/httpapi, no function that takes a *platform.Tx (an operation,
// or a helper of one) returns an *httpapi.Error or takes an
// *httpapi.Principal, no code names either type (an operation returns a
// *domain.Error and takes a *domain.Actor), and no code builds an
// httpapi.Ctx (a domain calls another's operation, never its handler).
func TestDomainsSpeakTheirOwnLanguage(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("internal", "*", "*.go"))
	require.NoError(t, err)
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") || filepath.Base(filepath.Dir(f)) == "httpapi" {
			continue
		}
		fset := token.NewFileSet()
		file, err := parser.ParseFile(fset, f, nil, 0)
		require.NoError(t, err)
		checked++
		for _, problem := range httpInDomain(file) {
			t.Errorf("%s: %s", fset.Position(problem.pos), problem.what)
		}
	}
	require.NotZero(t, checked)
}

// httpProblem is a place where a domain's code speaks HTTP.
type httpProblem struct {
	pos  token.Pos
	what string
}

// httpInDomain returns the places in file (a file of an internal package
// other than httpapi) that TestDomainsSpeakTheirOwnLanguage refuses.
func httpInDomain(file *ast.File) []httpProblem {
	const pkgPath = "github.com/voiceagent/voiceagent-go/mockserver/internal/"
	httpapi, platform := "", ""
	for _, imp := range file.Imports {
		path, _ := strconv.Unquote(imp.Path.Value)
		name := filepath.Base(path)
		if imp.Name != nil {
			name = imp.Name.Name
		}
		switch path {
		case pkgPath + "httpapi":
			httpapi = name
		case pkgPath + "platform":
			platform = name
		}
	}
	if httpapi == "" {
		return nil
	}
	// names reports whether n names pkg.sel.
	names := func(n ast.Node, pkg string, sels ...string) bool {
		found := false
		ast.Inspect(n, func(n ast.Node) bool {
			if s, ok := n.(*ast.SelectorExpr); ok {
				if id, ok := s.X.(*ast.Ident); ok && id.Name == pkg && slices.Contains(sels, s.Sel.Name) {
					found = true
				}
			}
			return !found
		})
		return found
	}
	var out []httpProblem
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncDecl:
			if platform != "" && names(n.Type.Params, platform, "Tx") {
				if n.Type.Results != nil && names(n.Type.Results, httpapi, "Error") {
					out = append(out, httpProblem{n.Pos(), n.Name.Name + " takes a *platform.Tx and returns an *httpapi.Error: return a *domain.Error"})
				}
				if names(n.Type.Params, httpapi, "Principal") {
					out = append(out, httpProblem{n.Pos(), n.Name.Name + " takes a *platform.Tx and an *httpapi.Principal: take a *domain.Actor"})
				}
			}
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && id.Name == httpapi && (n.Sel.Name == "Error" || n.Sel.Name == "Principal") {
				out = append(out, httpProblem{n.Pos(), "names httpapi." + n.Sel.Name + ": the domains use domain.Error and domain.Actor"})
			}
		case *ast.CompositeLit:
			if n.Type != nil && names(n.Type, httpapi, "Ctx") {
				out = append(out, httpProblem{n.Pos(), "builds an httpapi.Ctx: call the operation, not a handler"})
			}
		case *ast.CallExpr:
			if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "new" && len(n.Args) == 1 && names(n.Args[0], httpapi, "Ctx") {
				out = append(out, httpProblem{n.Pos(), "builds an httpapi.Ctx: call the operation, not a handler"})
			}
		}
		return true
	})
	return out
}

// httpInDomain finds each kind of place it refuses, under any import name.
func TestHTTPInDomainFindsEachKind(t *testing.T) {
	const src = `package x

import (
	api "github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
)

func op(tx *platform.Tx, who *api.Principal) *api.Error { return nil }

func handler() { _ = &api.Ctx{}; _ = new(api.Ctx) }

func fine(tx *platform.Tx, rc *api.Ctx) error { return nil }
`
	file, err := parser.ParseFile(token.NewFileSet(), "x.go", src, 0)
	require.NoError(t, err)
	var got []string
	for _, p := range httpInDomain(file) {
		got = append(got, p.what)
	}
	assert.ElementsMatch(t, []string{
		"op takes a *platform.Tx and returns an *httpapi.Error: return a *domain.Error",
		"op takes a *platform.Tx and an *httpapi.Principal: take a *domain.Actor",
		"names httpapi.Principal: the domains use domain.Error and domain.Actor",
		"names httpapi.Error: the domains use domain.Error and domain.Actor",
		"builds an httpapi.Ctx: call the operation, not a handler",
		"builds an httpapi.Ctx: call the operation, not a handler",
	}, got)
}
