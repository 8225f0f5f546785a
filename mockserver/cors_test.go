package mockserver

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// corsDo sends a request with an Origin (and headers: name, value pairs)
// outside the conformance check: preflights and CORS headers are the mock
// server's, not the API's.
func corsDo(t *testing.T, method, url, origin string, header ...string) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	require.NoError(t, err)
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp
}

func preflight(t *testing.T, url, origin, method, headers string) *http.Response {
	t.Helper()
	return corsDo(t, http.MethodOptions, url, origin,
		"Access-Control-Request-Method", method, "Access-Control-Request-Headers", headers)
}

func TestCORSAnswersTheAPIsPreflightsAndNeverAllowsCredentials(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t, WithCORS("https://editor.swagger.io", "HTTP://LOCALHOST:3000/"))
	const origin = "https://editor.swagger.io"

	// The preflight of a POST an API explorer sends with a key and an
	// idempotency key.
	resp := preflight(t, srv.URL+"/v1/calls", origin, "POST", "authorization, content-type, idempotency-key")
	require.Equal(t, http.StatusNoContent, resp.StatusCode)
	h := resp.Header
	assert.Equal(t, origin, h.Get("Access-Control-Allow-Origin"))
	for _, m := range []string{"GET", "POST", "PATCH", "PUT", "DELETE"} {
		assert.Contains(t, h.Get("Access-Control-Allow-Methods"), m)
	}
	for _, name := range []string{"Authorization", "Content-Type", "Idempotency-Key", "X-Voiceagent-Retry-Count"} {
		assert.Contains(t, h.Get("Access-Control-Allow-Headers"), name)
	}
	assert.NotEmpty(t, h.Get("Access-Control-Max-Age"))
	assert.Empty(t, h.Get("Access-Control-Allow-Credentials"), "credentials are never allowed")
	assert.Contains(t, h.Values("Vary"), "Origin")
	assert.Empty(t, srv.Requests(nil), "a preflight is not an API request: not journaled")

	// The request itself: the origin may read the response and its headers.
	resp = corsDo(t, http.MethodGet, srv.URL+"/v1/agents", origin, "Authorization", "Bearer "+acct.APIKey)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Equal(t, origin, resp.Header.Get("Access-Control-Allow-Origin"))
	expose := resp.Header.Get("Access-Control-Expose-Headers")
	for _, name := range []string{"X-Request-Id", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset", "Retry-After", "Idempotent-Replayed"} {
		assert.Contains(t, expose, name)
	}
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Credentials"))
	// Errors too, so a page can show them: a 401 and an unknown path.
	assert.Equal(t, origin, corsDo(t, http.MethodGet, srv.URL+"/v1/agents", origin).Header.Get("Access-Control-Allow-Origin"))
	assert.Equal(t, origin, corsDo(t, http.MethodGet, srv.URL+"/v1/nope", origin).Header.Get("Access-Control-Allow-Origin"))
	// The public document an explorer loads.
	assert.Equal(t, origin, corsDo(t, http.MethodGet, srv.URL+"/openapi.yaml", origin).Header.Get("Access-Control-Allow-Origin"))

	// The second origin, given in another case and with a slash, matches
	// what browsers send.
	resp = preflight(t, srv.URL+"/v1/agents", "http://localhost:3000", "GET", "authorization")
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	assert.Equal(t, "http://localhost:3000", resp.Header.Get("Access-Control-Allow-Origin"))

	// Another origin: its preflight is refused, saying how to allow it, and
	// its requests carry no CORS header (the browser keeps the response from
	// the page).
	resp = preflight(t, srv.URL+"/v1/calls", "https://evil.example", "POST", "authorization")
	assert.Equal(t, http.StatusForbidden, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
	resp = corsDo(t, http.MethodGet, srv.URL+"/v1/agents", "https://evil.example", "Authorization", "Bearer "+acct.APIKey)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
	assert.Empty(t, resp.Header.Get("Access-Control-Expose-Headers"))

	// The admin API stays same-origin: no CORS header, no preflight.
	resp = preflight(t, srv.AdminURL+"/reset", origin, "POST", "content-type")
	assert.NotEqual(t, http.StatusNoContent, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
	resp = corsDo(t, http.MethodGet, srv.AdminURL+"/clock", origin)
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
}

func TestCORSAnyOriginAndOff(t *testing.T) {
	t.Parallel()
	any := Start(t, WithCORS("*"))
	resp := preflight(t, any.URL+"/v1/agents", "https://anywhere.example", "GET", "authorization")
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	assert.Equal(t, "*", resp.Header.Get("Access-Control-Allow-Origin"))
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Credentials"))
	assert.Equal(t, "*", corsDo(t, http.MethodGet, any.URL+"/v1/agents", "null").Header.Get("Access-Control-Allow-Origin"))

	// Off by default: no CORS header, and OPTIONS is a method the API does
	// not have.
	off := Start(t)
	resp = preflight(t, off.URL+"/v1/agents", "https://editor.swagger.io", "GET", "authorization")
	assert.Equal(t, http.StatusMethodNotAllowed, resp.StatusCode)
	assert.Empty(t, resp.Header.Get("Access-Control-Allow-Origin"))
	assert.Empty(t, corsDo(t, http.MethodGet, off.URL+"/v1/agents", "https://editor.swagger.io").Header.Get("Access-Control-Allow-Origin"))
}

func TestWithCORSRefusesWhatIsNotAnOrigin(t *testing.T) {
	t.Parallel()
	for _, o := range []string{"example.com", "https://example.com/path", "ftp://example.com", "https://user@example.com", "https://example.com?x=1", ""} {
		err := CheckOptions(WithCORS(o))
		if assert.Error(t, err, o) {
			assert.Contains(t, err.Error(), "WithCORS", o)
			assert.Contains(t, err.Error(), "origin", o)
		}
		assert.Panics(t, func() { New(WithCORS(o)) }, o)
	}
	for in, want := range map[string]string{
		"https://Editor.Swagger.io":  "https://editor.swagger.io",
		"https://example.com:443/":   "https://example.com",
		"http://localhost:80":        "http://localhost",
		"http://127.0.0.1:8081":      "http://127.0.0.1:8081",
		" * ":                        "*",
		"http://[::1]:3000":          "http://[::1]:3000",
		"https://[2001:DB8::1]:8443": "https://[2001:db8::1]:8443",
	} {
		assert.NoError(t, CheckOptions(WithCORS(in)), in)
		o, err := applyOptions([]Option{WithCORS(in)})
		require.NoError(t, err)
		assert.Equal(t, []string{want}, o.CORSOrigins, in)
	}
	assert.NoError(t, CheckOptions())
	assert.True(t, strings.Contains(CheckOptions(WithWebhookCA(nil)).Error(), "nil certificate"))
}
