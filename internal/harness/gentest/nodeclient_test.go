package gentest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestNodeClientDeclarations compiles a program written against the Node.js client's
// TypeScript declarations (clients/node/voiceagent-mock.d.mts, beside the client) with the
// pinned tsc in strict mode (testdata/nodeclient), resolving the client's .mjs as Node.js
// does. The client's own
// tests (node --test in clients/node) check that every method is declared.
func TestNodeClientDeclarations(t *testing.T) {
	generatorTest(t)
	_, npm := nodeTools(t)
	dir := copyDir(t, "typescript")
	npmInstall(t, npm, dir)
	client := filepath.Join(dir, "client")
	require.NoError(t, os.MkdirAll(client, 0o755))
	for _, f := range []string{"voiceagent-mock.mjs", "voiceagent-mock.d.mts"} {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "clients", "node", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(client, f), b, 0o644))
	}
	for _, f := range []string{"use.mts", "tsconfig.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", "nodeclient", f))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(client, f), b, 0o644))
	}
	run(t, client, os.Environ(), filepath.Join(dir, "node_modules", ".bin", "tsc"), "-p", ".")
}
