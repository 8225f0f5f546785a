package mockserver

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/internal/harness/conformance"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// rawResp is a response read by rawDo.
type rawResp struct {
	status int
	header http.Header
	body   []byte
	json   map[string]any
}

// code is the error code of an error response ("" if none).
func (r rawResp) code() string {
	e, _ := r.json["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

// message is the error message of an error response.
func (r rawResp) message() string {
	e, _ := r.json["error"].(map[string]any)
	m, _ := e["message"].(string)
	return m
}

// rawDo sends one request with the given headers (name, value pairs) and
// reads the whole response; a response that is a JSON object is decoded. The
// exchange is checked against the OpenAPI document (internal/harness/conformance):
// bad input may be sent, but the response must be one the document allows. A
// body is sent as application/json unless header says otherwise.
func rawDo(t testing.TB, method, url, body string, header ...string) rawResp {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	c := checkedClient(t)
	if strings.Contains(url, "/_test/") {
		c = http.DefaultClient // routes the test added (withRoutes): not the API
	}
	return sendRaw(t, c, req)
}

// sendRaw sends req with c and reads the whole response; a response that is a
// JSON object is decoded.
func sendRaw(t testing.TB, c *http.Client, req *http.Request) rawResp {
	t.Helper()
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	r := rawResp{status: resp.StatusCode, header: resp.Header, body: data}
	_ = json.Unmarshal(data, &r.json)
	return r
}

// localRequest is httptest.NewRequest as a client on loopback sends it
// (Host 127.0.0.1, a JSON body), so that the admin API serves it too.
func localRequest(method, target string, body io.Reader) *http.Request {
	req := httptest.NewRequest(method, target, body)
	req.Host = "127.0.0.1"
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req
}

// checkedClient is an HTTP client whose exchanges with the API are checked
// against the OpenAPI document (internal/harness/conformance).
func checkedClient(t testing.TB) *http.Client {
	return &http.Client{Transport: conformance.Transport(t, nil)}
}

// bearer is the Authorization header pair of a key.
func bearer(key string) []string { return []string{"Authorization", "Bearer " + key} }

// startWithAccount starts a server and provisions an account with every scope.
func startWithAccount(t testing.TB, opts ...Option) (*TestServer, *Account) {
	t.Helper()
	srv := Start(t, opts...)
	acct, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	return srv, acct
}

// keyRecord returns the store's record of a key value.
func (s *Server) keyRecord(key string) *store.APIKey {
	tx := s.platform.ReadTx()
	defer tx.End()
	return tx.KeysByHash[httpapi.HashKey(key)]
}
