// Package doccheck holds a test that every package of the module has a
// package comment and every exported identifier a doc comment, so go doc and
// pkg.go.dev show documentation for all of it.
package doccheck

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func TestEveryExportedIdentifierIsDocumented(t *testing.T) {
	root := filepath.Join("..", "..", "..")
	dirs := map[string]bool{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != root {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go") {
			dirs[filepath.Dir(path)] = true
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for dir := range dirs {
		missing = append(missing, undocumented(t, dir)...)
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("%d undocumented:\n%s", len(missing), strings.Join(missing, "\n"))
	}
}

func undocumented(t *testing.T, dir string) []string {
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		t.Fatalf("parsing %s: %v", dir, err)
	}
	var out []string
	for name, pkg := range pkgs {
		hasDoc := false
		for _, f := range pkg.Files {
			if f.Doc != nil {
				hasDoc = true
			}
		}
		if !hasDoc {
			out = append(out, dir+": package "+name+" has no package comment")
		}
		if name == "main" {
			continue
		}
		for file, f := range pkg.Files {
			for _, decl := range f.Decls {
				out = append(out, undocumentedDecl(fset, file, decl)...)
			}
		}
	}
	return out
}

func undocumentedDecl(fset *token.FileSet, file string, decl ast.Decl) []string {
	at := func(n ast.Node, what string) string {
		return fset.Position(n.Pos()).String() + ": " + what
	}
	var out []string
	switch d := decl.(type) {
	case *ast.FuncDecl:
		if !d.Name.IsExported() || d.Doc != nil {
			return nil
		}
		if d.Recv != nil && !exportedReceiver(d.Recv) {
			return nil
		}
		out = append(out, at(d, "func "+d.Name.Name))
	case *ast.GenDecl:
		for _, spec := range d.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				if s.Name.IsExported() && s.Doc == nil && d.Doc == nil {
					out = append(out, at(s, "type "+s.Name.Name))
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					// A documented group (const block with a comment) covers its members.
					if n.IsExported() && s.Doc == nil && d.Doc == nil && s.Comment == nil {
						out = append(out, at(n, "value "+n.Name))
					}
				}
			}
		}
	}
	return out
}

func exportedReceiver(fl *ast.FieldList) bool {
	if len(fl.List) == 0 {
		return false
	}
	typ := fl.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if idx, ok := typ.(*ast.IndexExpr); ok {
		typ = idx.X
	}
	if idx, ok := typ.(*ast.IndexListExpr); ok {
		typ = idx.X
	}
	id, ok := typ.(*ast.Ident)
	return ok && id.IsExported()
}
