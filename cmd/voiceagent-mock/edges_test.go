package main

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The edges new users and third-party tools hit (issue 31), through raw
// HTTP against the built binary, as a Python or Node suite meets them:
// invalid values refused, the index at the first URLs, the journal's JSON
// bodies, the admin document, and twenty accounts by signup on one
// shared server with its rate limits on.
func TestTheBinaryAnswersTheFirstThingsNewUsersTry(t *testing.T) {
	bin, err := buildBinary()
	require.NoError(t, err)
	base, admin := startBinary(t, bin, "-addr", "127.0.0.1:0", "-seed", "none")
	root := strings.TrimSuffix(base, "/api")

	status, acct := httpJSON(t, http.MethodPost, admin+"/accounts", "{}")
	require.Equal(t, http.StatusCreated, status, acct)
	biz, agent := acct["business_id"].(string), acct["agent_id"].(string)
	auth := []string{"Authorization", "Bearer " + acct["api_key"].(string)}

	// max_duration: whole seconds from 1 to 3600; 120 caps the agent's calls.
	for _, bad := range []string{"1e20", "-5", "90.5"} {
		status, out := httpJSON(t, http.MethodPatch, base+"/v1/agents", fmt.Sprintf(`{"id":%q,"max_duration":%s}`, agent, bad), auth...)
		assert.Equal(t, http.StatusBadRequest, status, "max_duration %s: %v", bad, out)
	}
	status, out := httpJSON(t, http.MethodPatch, base+"/v1/agents", fmt.Sprintf(`{"id":%q,"name":"Capped","max_duration":120}`, agent), auth...)
	require.Equal(t, http.StatusOK, status, out)
	var callIDs []string
	for n := range 4 {
		status, call := httpJSON(t, http.MethodPost, base+"/v1/calls", fmt.Sprintf(`{"agent_id":%q,"to":"+1555123%04d"}`, agent, 60+n), auth...)
		require.Equal(t, http.StatusCreated, status, call)
		callIDs = append(callIDs, call["id"].(string))
	}
	status, out = httpJSON(t, http.MethodPost, admin+"/clock/advance", fmt.Sprintf(`{"seconds":3600,"business_id":%q}`, biz))
	require.Equal(t, http.StatusOK, status, out)
	for _, id := range callIDs {
		status, call := httpJSON(t, http.MethodGet, base+"/v1/calls?id="+id, "", auth...)
		require.Equal(t, http.StatusOK, status, call)
		assert.EqualValues(t, 120, call["max_duration"])
		assert.LessOrEqual(t, call["duration"].(float64), 120.0)
	}

	// An empty filter value is refused.
	status, out = httpJSON(t, http.MethodGet, base+"/v1/leads?phone=", "", auth...)
	assert.Equal(t, http.StatusBadRequest, status, out)

	// The first URLs: the index for a program, the dashboard for a browser.
	for _, path := range []string{"/", "/api", "/_mock"} {
		status, index := httpJSON(t, http.MethodGet, root+path, "")
		require.Equal(t, http.StatusOK, status, "%s: %v", path, index)
		assert.Equal(t, base+"/openapi.yaml", index["openapi"], path)
		assert.Equal(t, admin+"/ui", index["dashboard"], path)
		req, err := http.NewRequest(http.MethodGet, root+path, nil)
		require.NoError(t, err)
		req.Header.Set("Accept", "text/html")
		resp, err := http.DefaultTransport.RoundTrip(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusFound, resp.StatusCode, path)
		assert.Equal(t, "/_mock/ui", resp.Header.Get("Location"), path)
	}
	resp, err := http.Get(root + "/favicon.ico")
	require.NoError(t, err)
	resp.Body.Close()

	// The journal: no favicon, and JSON bodies read into.
	status, journal := httpJSON(t, http.MethodGet, admin+"/requests?path=/v1/agents&method=PATCH", "")
	require.Equal(t, http.StatusOK, status, journal)
	var names []any
	for _, e := range journal["requests"].([]any) {
		if body, ok := e.(map[string]any)["request"].(map[string]any)["body"].(map[string]any); ok {
			names = append(names, body["name"])
		}
	}
	assert.Contains(t, names, "Capped", "request.body.name")
	status, journal = httpJSON(t, http.MethodGet, admin+"/requests?limit=1000", "")
	require.Equal(t, http.StatusOK, status, journal)
	for _, e := range journal["requests"].([]any) {
		assert.True(t, strings.HasPrefix(e.(map[string]any)["path"].(string), "/api"), "only /api requests are journaled: %v", e.(map[string]any)["path"])
	}

	// The admin document names every delivery kind and filter.
	resp, err = http.Get(admin + "/openapi.yaml")
	require.NoError(t, err)
	doc, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	for _, want := range []string{"approval_callback", "approval_request_id", "getIndex"} {
		assert.Contains(t, string(doc), want)
	}
	status, out = httpJSON(t, http.MethodGet, admin+"/deliveries?limit=5", "")
	assert.Equal(t, http.StatusBadRequest, status, "an unknown delivery filter is refused: %v", out)

	// Twenty accounts by signup, from one IP, with the rate limits on: the
	// suite clears its address's count between signups.
	for n := range 20 {
		status, out := httpJSON(t, http.MethodDelete, admin+"/rate-limits?client_ip=127.0.0.1", "")
		require.Equal(t, http.StatusOK, status, out)
		email := fmt.Sprintf("suite-%02d@blackbox.example", n)
		fields := fmt.Sprintf(`"business_name":"Suite %d","email":%q`, n, email)
		status, ch := httpJSON(t, http.MethodPost, base+"/v1/signup", "{"+fields+"}")
		require.Equal(t, http.StatusOK, status, "signup %d: %v", n, ch)
		status, box := httpJSON(t, http.MethodGet, admin+"/outbox?to="+email, "")
		require.Equal(t, http.StatusOK, status, box)
		msgs := box["messages"].([]any)
		require.NotEmpty(t, msgs)
		code := msgs[len(msgs)-1].(map[string]any)["otp_code"].(string)
		status, made := httpJSON(t, http.MethodPost, base+"/v1/signup",
			fmt.Sprintf(`{%s,"challenge_id":%q,"otp_code":%q}`, fields, ch["challenge_id"], code))
		require.Equal(t, http.StatusCreated, status, "verify %d: %v", n, made)
	}
}
