// Package exampletest runs the example commands (examples/...) in their
// tests: in-process against the mock server, or against a service given by
// VOICEAGENT_BASE_URL and VOICEAGENT_API_KEY, and checks what they print.
package exampletest

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// RunFunc is an example's run function.
type RunFunc func(ctx context.Context, out io.Writer) error

// UseMock clears VOICEAGENT_BASE_URL and VOICEAGENT_API_KEY for the test,
// so the example starts its own in-process mock server.
func UseMock(t *testing.T) {
	t.Setenv("VOICEAGENT_BASE_URL", "")
	t.Setenv("VOICEAGENT_API_KEY", "")
}

// UseService points the example at a service (baseURL, key) for the test.
func UseService(t *testing.T, baseURL, key string) {
	t.Setenv("VOICEAGENT_BASE_URL", baseURL)
	t.Setenv("VOICEAGENT_API_KEY", key)
}

// Output runs the example to completion and returns what it printed; an
// error fails the test, with the output.
func Output(t *testing.T, ctx context.Context, run RunFunc) string {
	t.Helper()
	var out bytes.Buffer
	require.NoError(t, run(ctx, &out), "output:\n%s", out.String())
	return out.String()
}

// T is what AssertSteps needs of a *testing.T.
type T interface {
	Helper()
	Errorf(format string, args ...any)
}

// AssertSteps checks that the steps appear in out, in this order, and
// reports the first one missing (or out of order) with the whole output.
func AssertSteps(t T, out string, steps ...string) {
	t.Helper()
	rest := out
	for _, step := range steps {
		i := strings.Index(rest, step)
		if i < 0 {
			t.Errorf("missing (or out of order): %q\nin:\n%s", step, out)
			return
		}
		rest = rest[i+len(step):]
	}
}

// AssertRejectsUnknownKey runs the example against the service at baseURL
// with a well-formed key the service does not know, and checks that it
// stops with the service's 401 unauthorized error.
func AssertRejectsUnknownKey(t *testing.T, ctx context.Context, baseURL string, run RunFunc) {
	t.Helper()
	UseService(t, baseURL, "voiceagent_live_0000000000000000000000000000000000000000")
	err := run(ctx, io.Discard)
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	require.Equal(t, voiceagent.CodeUnauthorized, apiErr.Code)
}
