package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var goBlock = regexp.MustCompile("(?s)```go\n(.*?)```")

// normLine is a line of Go as the snippet check compares it: trimmed, with
// runs of blanks made one (gofmt aligns comments differently in a snippet
// and in a function).
func normLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// testFuncBodies returns the body lines (normalized) of every function in
// the module's _test.go files, by "file:function".
func testFuncBodies(t *testing.T, root string) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || strings.HasPrefix(d.Name(), ".")) && path != root {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		f, err := parser.ParseFile(fset, path, src, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			body := string(src[fset.Position(fn.Body.Lbrace).Offset:fset.Position(fn.Body.Rbrace).Offset])
			var lines []string
			for _, l := range strings.Split(body, "\n") {
				if l = normLine(l); l != "" {
					lines = append(lines, l)
				}
			}
			out[path+":"+fn.Name.Name] = lines
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// containsInOrder reports whether want's lines appear in have in order
// (other lines may come between them).
func containsInOrder(have, want []string) bool {
	i := 0
	for _, l := range have {
		if i < len(want) && l == want[i] {
			i++
		}
	}
	return i == len(want)
}

// TestREADMEGoSnippetsAreCompiledTests holds every Go snippet of the README
// to a test or Example function that contains its lines in order, so a
// snippet cannot rot: change the function and the snippet together. A
// line "..." in a snippet stands for code it leaves out.
func TestREADMEGoSnippetsAreCompiledTests(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	bodies := testFuncBodies(t, root)
	blocks := goBlock.FindAllStringSubmatch(string(readme), -1)
	if len(blocks) < 5 {
		t.Fatalf("found %d Go snippets in the README; expected at least 5", len(blocks))
	}
	for _, b := range blocks {
		var want []string
		for _, l := range strings.Split(b[1], "\n") {
			if l = normLine(l); l != "" && l != "..." && !strings.HasPrefix(l, "// ...") {
				want = append(want, l)
			}
		}
		found := ""
		for name, have := range bodies {
			if containsInOrder(have, want) {
				found = name
				break
			}
		}
		if found == "" {
			t.Errorf("no test or Example function contains the README snippet (its lines in order):\n%s", b[1])
		}
	}
}

func TestContainsInOrderNeedsEveryLineInOrder(t *testing.T) {
	have := []string{"a", "x", "b", "c"}
	if !containsInOrder(have, []string{"a", "b", "c"}) || containsInOrder(have, []string{"b", "a"}) || containsInOrder(have, []string{"a", "d"}) {
		t.Fatal("containsInOrder")
	}
}
