// Package internal holds, in its subdirectories, the definitions the SDK
// and the mock server share (wire, canonical, idstyle) and, under harness/,
// the packages that drive the SDK and the mock from above. This test-only
// package keeps the module's dependencies pointing one way (see
// docs/architecture.md, "The module's layers").
package internal

import (
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const module = "github.com/voiceagent/voiceagent-go"

// part names where a package of the module sits, from the bottom up.
type part int

const (
	definition part = iota // internal/... outside internal/harness: shared by the SDK and the mock
	sdk                    // the root package, the resource packages and client
	mock                   // mockserver/...
	command                // cmd/... and examples/...
	harness                // internal/harness/...
)

var partNames = map[part]string{definition: "a definition", sdk: "the SDK", mock: "the mock server", command: "a command", harness: "a harness"}

// partOf returns the part of the package in dir (relative to the module
// root, slash-separated; "." for the root package).
func partOf(dir string) part {
	switch {
	case dir == "internal/harness" || strings.HasPrefix(dir, "internal/harness/"):
		return harness
	case strings.HasPrefix(dir, "internal/"):
		return definition
	case dir == "mockserver" || strings.HasPrefix(dir, "mockserver/"):
		return mock
	case strings.HasPrefix(dir, "cmd/") || strings.HasPrefix(dir, "examples/"):
		return command
	}
	return sdk
}

// allowedUp are the imports of a harness from below that stay: commands
// that drive the mock are harnesses of a kind (see docs/architecture.md).
var allowedUp = map[string]string{
	"cmd/voiceagent-load": "internal/harness/loadgen",
	"examples/":           "internal/harness/examplekit",
}

// TestDependenciesPointOneWay checks every import between the module's
// packages, outside tests: a definition imports only the root package and
// other definitions; the SDK no mock, command or harness; the mock no
// command or harness; a command a harness only where allowedUp says. Tests
// may import anything: they are the top.
func TestDependenciesPointOneWay(t *testing.T) {
	root := ".."
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && (strings.HasPrefix(name, ".") || name == "testdata") {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir // a module of its own
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		rel, err := filepath.Rel(root, filepath.Dir(path))
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(rel)
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if p != module && !strings.HasPrefix(p, module+"/") {
				continue
			}
			dep := strings.TrimPrefix(strings.TrimPrefix(p, module), "/")
			if dep == "" {
				dep = "."
			}
			checked++
			if why := refused(dir, dep); why != "" {
				t.Errorf("%s imports %s: %s", filepath.ToSlash(path), dep, why)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 300 {
		t.Errorf("only %d imports between the module's packages checked: is the walk wrong?", checked)
	}
}

// refused says why the package in dir may not import dep, or "" when it
// may.
func refused(dir, dep string) string {
	from, to := partOf(dir), partOf(dep)
	if from == definition {
		if to == definition || dep == "." {
			return ""
		}
		return "a definition imports only the root package and other definitions"
	}
	if to == harness && from != harness {
		for prefix, allowed := range allowedUp {
			if (dir == prefix || strings.HasPrefix(dir, prefix)) && dep == allowed {
				return ""
			}
		}
		return partNames[from] + " does not import a harness"
	}
	if to > from && to != definition {
		return partNames[from] + " does not import " + partNames[to]
	}
	return ""
}

// TestRefused checks the rules on imports known to be right and wrong.
func TestRefused(t *testing.T) {
	for _, tc := range []struct {
		dir, dep string
		ok       bool
	}{
		{".", "internal/wire", true},
		{"agency", "internal/canonical", true},
		{"catalog", "internal/idstyle", true},
		{"internal/idstyle", ".", true},
		{"mockserver/internal/telephony", "calls", true},
		{"mockserver", "client", true},
		{"mockserver/internal/store", "webhooks", true},
		{"cmd/voiceagent-load", "internal/harness/loadgen", true},
		{"examples/quickstart", "internal/harness/examplekit", true},
		{"internal/harness/testenv", "mockserver", true},
		{"internal/wire", "calls", false},
		{"internal/canonical", "mockserver", false},
		{"calls", "mockserver", false},
		{".", "internal/harness/conformance", false},
		{"mockserver", "internal/harness/conformance", false},
		{"mockserver", "cmd/voiceagent-mock", false},
		{"cmd/voiceagent-mock", "internal/harness/testenv", false},
		{"examples/quickstart", "internal/harness/testenv", false},
	} {
		if got := refused(tc.dir, tc.dep) == ""; got != tc.ok {
			t.Errorf("%s importing %s allowed = %v, want %v", tc.dir, tc.dep, got, tc.ok)
		}
	}
}
