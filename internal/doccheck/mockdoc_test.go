package doccheck

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/voiceagent/voiceagent-go/mockserver"
)

// mockGuide returns the mock server's package documentation, as go doc and
// pkg.go.dev assemble it from the package comments of its files.
func mockGuide(t *testing.T) string {
	t.Helper()
	fset := token.NewFileSet()
	dir := filepath.Join("..", "..", "mockserver")
	pkgs, err := parser.ParseDir(fset, dir, func(fi os.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	pkg, ok := pkgs["mockserver"]
	if !ok {
		t.Fatal("no package mockserver")
	}
	files := make([]*ast.File, 0, len(pkg.Files))
	for _, f := range pkg.Files {
		files = append(files, f)
	}
	p, err := doc.NewFromFiles(fset, files, "github.com/voiceagent/voiceagent-go/mockserver")
	if err != nil {
		t.Fatal(err)
	}
	return p.Doc
}

// TestMockGuideCoversEveryRouteAndMagicValue keeps the mock server's user
// guide complete: every route it serves is described, the magic values of
// the design are listed, and no heading appears twice (pkg.go.dev links
// headings by their text).
func TestMockGuideCoversEveryRouteAndMagicValue(t *testing.T) {
	guide := mockGuide(t)
	srv := mockserver.New()
	defer srv.Close()
	for _, r := range srv.Routes() {
		path := strings.TrimPrefix(r.Path, apiPrefix)
		if !strings.Contains(guide, path) {
			t.Errorf("the mockserver package documentation does not describe %s %s", r.Method, r.Path)
		}
	}
	magic := guide[strings.Index(guide, "\n# Magic values\n"):]
	magic = magic[:strings.Index(magic[1:], "\n# ")+1]
	for _, v := range []string{
		"+15005550001", "+15005550002", "+15005550003", "+15005550010", "+15005550011",
		"+15005550012", "+15005550013", "@provisioning-fails.example", "X-PAYMENT",
		"no_answer", "busy", "call_failed", "number_on_dnc", "number_opted_out", "sms_send_failed",
		"tcpa_violation", "provisioning_failed", "payment_required",
	} {
		if !strings.Contains(magic, v) {
			t.Errorf("the Magic values section lacks %s:\n%s", v, magic)
		}
	}
	seen := map[string]bool{}
	for _, line := range strings.Split(guide, "\n") {
		if h, ok := strings.CutPrefix(line, "# "); ok {
			if seen[h] {
				t.Errorf("heading %q appears twice", h)
			}
			seen[h] = true
		}
	}
	for _, h := range []string{"Magic values", "Admin API", "Limits and retention", "Events emitted", "Call states"} {
		if !seen[h] {
			t.Errorf("no section %q", h)
		}
	}
}
