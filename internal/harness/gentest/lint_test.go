package gentest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The warnings the linters may report, each with its reason (the README's section on the
// OpenAPI document says the same). Every other warning, and any error, fails the test.
const (
	// Spectral: an operation's security requirement lists the scopes a key needs as roles of
	// the bearerAuth scheme, which OpenAPI 3.1 allows for every scheme type; the rule accepts
	// only the scopes of an oauth2 flow.
	spectralRoles = "oas3-operation-security-defined"
	// Redocly: a required list inside not, if or then names properties that the enclosing
	// schema declares; the rule looks only at the subschema's own properties.
	redoclyRequired = "no-required-schema-properties-undefined"
	// Redocly: the signup body is a oneOf of three shapes that never overlap (the request step
	// allows activation_mode otp only, payment mode requires payment), but the rule wants a
	// property that every shape requires.
	redoclyOneOf = "no-illogical-composition-keywords"
)

// TestLintServedDocument lints the served document with Spectral (the oas ruleset) and
// Redocly (its recommended rules), at the versions testdata/lint/package-lock.json pins: no
// errors, and no warnings but the ones explained above.
func TestLintServedDocument(t *testing.T) {
	generatorTest(t)
	_, npm := nodeTools(t)
	start := time.Now()
	s := newScenario(t)
	dir := copyDir(t, "lint")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "openapi.yaml"), s.doc, 0o644))
	npmInstall(t, npm, dir)
	bin := filepath.Join(dir, "node_modules", ".bin")

	// Spectral exits 1 on warnings with --fail-severity warn; errors are what fail here.
	out := run(t, dir, os.Environ(), filepath.Join(bin, "spectral"), "lint", "openapi.yaml",
		"--ruleset", ".spectral.yaml", "--format", "json", "--fail-severity", "error", "--quiet")
	var spectral []struct {
		Code     string   `json:"code"`
		Message  string   `json:"message"`
		Path     []string `json:"path"`
		Severity int      `json:"severity"` // 0 error, 1 warning, 2 info, 3 hint
	}
	require.NoError(t, json.Unmarshal(out, &spectral), "spectral printed: %s", out)
	roles := 0
	for _, p := range spectral {
		where := strings.Join(p.Path, ".")
		if p.Code == spectralRoles && p.Severity == 1 && strings.Contains(where, ".security.") && strings.Contains(where, ".bearerAuth.") {
			roles++
			continue
		}
		t.Errorf("spectral %s (severity %d) at %s: %s", p.Code, p.Severity, where, p.Message)
	}
	assert.Positive(t, roles, "the scopes are the bearer scheme's roles (if the rule learns OpenAPI 3.1, drop the exception)")

	cmd := filepath.Join(bin, "redocly")
	env := append(os.Environ(), "REDOCLY_TELEMETRY=off", "REDOCLY_SUPPRESS_UPDATE_NOTICE=true")
	out = runAllowFail(t, dir, env, cmd, "lint", "openapi.yaml", "--format", "json")
	var redocly struct {
		Totals struct {
			Errors, Warnings int
		} `json:"totals"`
		Problems []struct {
			RuleID   string `json:"ruleId"`
			Severity string `json:"severity"`
			Message  string `json:"message"`
			Location []struct {
				Pointer string `json:"pointer"`
			} `json:"location"`
		} `json:"problems"`
	}
	require.NoError(t, json.Unmarshal(out, &redocly), "redocly printed: %s", out)
	assert.Zero(t, redocly.Totals.Errors, "redocly errors")
	for _, p := range redocly.Problems {
		at := ""
		if len(p.Location) > 0 {
			at = p.Location[0].Pointer
		}
		switch {
		case p.Severity == "warn" && p.RuleID == redoclyRequired &&
			(strings.Contains(at, "/not/required/") || strings.Contains(at, "/then/required/")):
		case p.Severity == "warn" && p.RuleID == redoclyOneOf && strings.HasPrefix(at, "#/components/schemas/SignupRequest/"):
		default:
			t.Errorf("redocly %s (%s) at %s: %s", p.RuleID, p.Severity, at, p.Message)
		}
	}
	t.Logf("lint: install, Spectral and Redocly in %s (%d and %d warnings, all explained)",
		time.Since(start).Round(100*time.Millisecond), len(spectral), redocly.Totals.Warnings)
}

// runAllowFail is run for a linter whose exit status only repeats what its report says.
func runAllowFail(t *testing.T, dir string, env []string, name string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil && len(out) == 0 {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, stderr)
	}
	return out
}
