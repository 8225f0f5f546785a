package main

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStandaloneServesTheDashboardAndTheJournal checks the binary's own
// surface: the startup output names the dashboard, which the binary serves
// from its embedded files, and the journal counts a request for a black-box
// assertion.
func TestStandaloneServesTheDashboardAndTheJournal(t *testing.T) {
	s := startRun(t, nil, "-seed", "none")
	addr := s.addr
	assert.Contains(t, s.out.String(), "dashboard: http://"+addr+"/_mock/ui\n")

	get := func(path string) (*http.Response, []byte) {
		t.Helper()
		resp, err := http.Get("http://" + addr + path)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp, body
	}
	for path, contentType := range map[string]string{
		"/_mock/ui": "text/html; charset=utf-8", "/_mock/ui/app.js": "text/javascript; charset=utf-8", "/_mock/ui/app.css": "text/css; charset=utf-8",
	} {
		resp, body := get(path)
		assert.Equal(t, http.StatusOK, resp.StatusCode, path)
		assert.Equal(t, contentType, resp.Header.Get("Content-Type"), path)
		assert.NotEmpty(t, body, path)
	}

	get("/api/v1/agents") // 401: no key, journaled all the same
	get("/api/v1/agents")
	resp, body := get("/_mock/requests?method=GET&path=/v1/agents&status=401&limit=0")
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
	var page struct {
		Requests  []json.RawMessage `json:"requests"`
		Count     int               `json:"count"`
		LatestSeq int64             `json:"latest_seq"`
	}
	require.NoError(t, json.Unmarshal(body, &page))
	assert.Equal(t, 2, page.Count)
	assert.Empty(t, page.Requests)
	assert.Equal(t, int64(2), page.LatestSeq)

	resp, body = get("/_mock/requests?stauts=401")
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "a misspelt filter never passes: %s", body)
	assert.Equal(t, 0, s.stop())
}
