package doccheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const architecturePath = "../../../docs/architecture.md"

// TestArchitectureCoversEveryPackage keeps docs/architecture.md in step with
// the mock server: it names every internal package of the mock, its
// contents link every section, every #fragment names a heading, and the
// README links it.
func TestArchitectureCoversEveryPackage(t *testing.T) {
	src, err := os.ReadFile(architecturePath)
	if err != nil {
		t.Fatal(err)
	}
	doc := parseMarkdown(string(src))
	dirs, err := os.ReadDir(filepath.Join("..", "..", "..", "mockserver", "internal"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !strings.Contains(doc.text, "internal/"+d.Name()) && !strings.Contains(doc.text, "`"+d.Name()+"`") {
			t.Errorf("%s does not describe mockserver/internal/%s", architecturePath, d.Name())
		}
	}
	checkContentsAndLinks(t, doc, architecturePath)
	readme, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "(docs/architecture.md)") {
		t.Error("README.md does not link docs/architecture.md")
	}
}
