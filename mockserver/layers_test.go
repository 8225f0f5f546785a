package mockserver

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
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
