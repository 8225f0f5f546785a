package gentest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// goCommand returns the go command that runs this test.
func goCommand(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no go command on PATH or in GOROOT: %v", err)
	}
	return p
}

// TestOapiCodegenClient generates the Go types and client with oapi-codegen (the version
// testdata/oapi-codegen/go.mod pins) from the served document, builds them with the scenario
// program, and runs the scenario against the mock, the two union request bodies (signup,
// communication-runs/validate) included.
func TestOapiCodegenClient(t *testing.T) {
	generatorTest(t)
	start := time.Now()
	dir := copyDir(t, "oapi-codegen")
	goCmd := goCommand(t)
	// The module of its own, pinned by its go.mod and go.sum: nothing here may rewrite them.
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	// The generator and the client's runtime come from the module proxy (or the module cache).
	dl := exec.Command(goCmd, "mod", "download")
	dl.Dir, dl.Env = dir, env
	if out, err := dl.CombinedOutput(); err != nil {
		missingTool(t, fmt.Sprintf("oapi-codegen and its runtime could not be downloaded (go mod download: %v: %s): "+
			"they come from the Go module proxy (GOPROXY) or the module cache; with the proxy reachable, run "+
			"go mod download in internal/harness/gentest/testdata/oapi-codegen and the test again", err, bytes.TrimSpace(out)))
	}

	s := newScenario(t)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "openapi.yaml"), s.doc, 0o644))
	env = append(s.env(), "GOWORK=off", "GOFLAGS=-mod=readonly")
	run(t, dir, env, goCmd, "tool", "oapi-codegen", "-config", "oapi-codegen.yaml", "openapi.yaml")
	gen, err := os.ReadFile(filepath.Join(dir, "voiceagent", "voiceagent.gen.go"))
	require.NoError(t, err)
	require.Contains(t, string(gen), "func NewClientWithResponses(", "oapi-codegen wrote a client")

	run(t, dir, env, goCmd, "build", "-o", "scenario", ".")
	out := run(t, dir, env, filepath.Join(dir, "scenario"))
	s.checkResult(t, out)
	s.checkUnionBodies(t, out)
	t.Logf("oapi-codegen: generate, build and run in %s", time.Since(start).Round(100*time.Millisecond))
}
