package mockserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
)

func TestUnknownPathsAre404AndWrongMethods405WithAllow(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	for _, path := range []string{"/api/v1/nothing", "/api/v2/agents", "/elsewhere", "/api/v1/agents/"} {
		r := rawDo(t, http.MethodGet, srv.HTTP.URL+path, "", bearer(acct.APIKey)...)
		assert.Equal(t, http.StatusNotFound, r.status, path)
		assert.Equal(t, "not_found", r.code(), path)
		assert.Contains(t, r.message(), path)
		assert.NotEmpty(t, r.header.Get("X-Request-Id"), "every answer has a request id")
		assert.Equal(t, "application/json", r.header.Get("Content-Type"))
	}

	r := rawDo(t, http.MethodDelete, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...)
	assert.Equal(t, http.StatusMethodNotAllowed, r.status)
	assert.Equal(t, "method_not_allowed", r.code())
	assert.Equal(t, "GET, PATCH, POST", r.header.Get("Allow"))
	assert.Contains(t, r.message(), "DELETE")

	r = rawDo(t, http.MethodPut, srv.AdminURL+"/clock", "")
	assert.Equal(t, http.StatusMethodNotAllowed, r.status)
	assert.Equal(t, "GET", r.header.Get("Allow"))

	// Routing comes before authentication: no key needed to learn a path is wrong.
	r = rawDo(t, http.MethodGet, srv.URL+"/v1/nothing", "")
	assert.Equal(t, http.StatusNotFound, r.status)
}

func TestBodiesOverTheLimitAre413(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	big := `{"name":"` + strings.Repeat("x", DefaultMaxBodyBytes) + `"}`
	r := rawDo(t, http.MethodPost, srv.URL+"/v1/agents", big, bearer(acct.APIKey)...)
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.status)
	assert.Equal(t, "payload_too_large", r.code())
	assert.Contains(t, r.message(), "1048576")

	// Exactly at the limit the body is read (and fails validation instead).
	atLimit := `{"name":"` + strings.Repeat("x", DefaultMaxBodyBytes-11) + `"}`
	require.Len(t, atLimit, DefaultMaxBodyBytes)
	r = rawDo(t, http.MethodPost, srv.URL+"/v1/agents", atLimit, bearer(acct.APIKey)...)
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Equal(t, "invalid_request", r.code())

	small := Start(t, WithMaxBodyBytes(10))
	r = rawDo(t, http.MethodPost, small.URL+"/v1/agents", `{"name":"abcdef"}`)
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.status, "the limit is checked before authentication")
}

// sendHead opens a connection to srv, sends a request's head and the start
// of its body, and returns the response read while the rest of the body is
// still to come (the server must respond without waiting for it), and
// whether the server closes the connection after it.
func sendHead(t *testing.T, srv *TestServer, head, body string) (rawResp, bool) {
	t.Helper()
	conn, err := net.Dial("tcp", srv.HTTP.Listener.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	// A failsafe, not a timing: a server that waits for the rest of the
	// body never responds.
	require.NoError(t, conn.SetDeadline(time.Now().Add(time.Minute)))
	_, err = io.WriteString(conn, head+"\r\n"+body)
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err, "no response while the body is still being sent")
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	r := rawResp{status: resp.StatusCode, header: resp.Header, body: data}
	_ = json.Unmarshal(data, &r.json)
	return r, resp.Close
}

// A body whose Content-Length is over its route's bound is refused with 413
// before any of it is read (a restore declaring 300 MiB among them), and a
// chunked body is read no further than the bound: each gets its response
// while the client is still sending, and nothing changes.
func TestBodiesOverTheBoundAreRefusedBeforeTheyAreRead(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithMaxBodyBytes(1024))
	acct, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	host := srv.HTTP.Listener.Addr().String()
	post := func(path string, header ...string) string {
		return "POST " + path + " HTTP/1.1\r\nHost: " + host + "\r\nContent-Type: application/json\r\nAuthorization: Bearer " + acct.APIKey + "\r\n" +
			strings.Join(header, "\r\n") + "\r\n"
	}

	r, closed := sendHead(t, srv, post("/_mock/snapshot", "Content-Length: 314572800"), `{"format":"voiceagent-mock-snapshot",`)
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.status, "%s", r.body)
	assert.Equal(t, "payload_too_large", r.code())
	assert.Contains(t, r.message(), strconv.Itoa(httpapi.SnapshotMaxBytes))
	assert.True(t, closed, "the rest of the body is never read")

	r, closed = sendHead(t, srv, post("/api/v1/agents", "Content-Length: 1025"), `{"name":"`)
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.status, "%s", r.body)
	assert.Contains(t, r.message(), "1024")
	assert.True(t, closed)
	declared := srv.Requests(func(e *JournalEntry) bool { return e.Method == http.MethodPost && e.Path == "/api/v1/agents" })
	require.Len(t, declared, 1)
	assert.Zero(t, declared[0].Request.BodyBytes, "none of the body was read")

	chunk := `{"name":"` + strings.Repeat("x", 1100) + `"}`
	r, closed = sendHead(t, srv, post("/api/v1/agents", "Transfer-Encoding: chunked"), fmt.Sprintf("%x\r\n%s\r\n", len(chunk), chunk))
	assert.Equal(t, http.StatusRequestEntityTooLarge, r.status, "%s", r.body)
	assert.True(t, closed)

	agents, err := acct.Client().Agents.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Len(t, agents, 1, "only the account's own agent")
	tenants := rawDo(t, http.MethodGet, srv.AdminURL+"/tenants", "")
	assert.Len(t, tenants.json["tenants"], 1, "nothing was restored")
}

func TestInvalidJSONIs400InvalidRequest(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	for _, body := range []string{`{"name":`, `not json`, `[1,2`, ``, `   `} {
		r := rawDo(t, http.MethodPost, srv.URL+"/v1/agents", body, bearer(acct.APIKey)...)
		assert.Equal(t, http.StatusBadRequest, r.status, "%q", body)
		assert.Equal(t, "invalid_request", r.code(), "%q", body)
	}
	r := rawDo(t, http.MethodPatch, srv.URL+"/v1/agents", `{"id": 5}`, bearer(acct.APIKey)...)
	assert.Equal(t, "invalid_request", r.code())
	details, _ := r.json["error"].(map[string]any)["details"].([]any)
	require.NotEmpty(t, details)
	assert.Equal(t, "/id", details[0].(map[string]any)["path"])
}

func TestEveryAuthenticationFailureIs401(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	url := srv.URL + "/v1/agents"
	unknown := httpapi.KeyPrefix + strings.Repeat("A", httpapi.KeyRandomLen)
	for name, header := range map[string][]string{
		"missing":          nil,
		"empty":            {"Authorization", ""},
		"basic scheme":     {"Authorization", "Basic dXNlcjpwYXNz"},
		"no scheme":        {"Authorization", acct.APIKey},
		"scheme only":      {"Authorization", "Bearer"},
		"wrong prefix":     {"Authorization", "Bearer sk_live_" + acct.APIKey[len(httpapi.KeyPrefix):]},
		"unknown key":      {"Authorization", "Bearer " + unknown},
		"truncated key":    {"Authorization", "Bearer " + acct.APIKey[:30]},
		"session cookie":   {"Cookie", httpapi.SessionCookie + "=" + acct.Session},
		"key in the query": nil,
	} {
		u := url
		if name == "key in the query" {
			u += "?api_key=" + acct.APIKey
		}
		r := rawDo(t, http.MethodGet, u, "", header...)
		assert.Equal(t, http.StatusUnauthorized, r.status, name)
		assert.Equal(t, "unauthorized", r.code(), name)
		assert.NotContains(t, string(r.body), acct.APIKey[len(httpapi.KeyPrefix):], name)
	}

	// The scheme is case-insensitive.
	r := rawDo(t, http.MethodGet, url, "", "Authorization", "bearer "+acct.APIKey)
	assert.Equal(t, http.StatusOK, r.status)

	// Revoked: the key stops working at once.
	k := srv.keyRecord(acct.APIKey)
	require.NotNil(t, k)
	tx := srv.platform.WriteTx()
	k.Active = false
	tx.End()
	r = rawDo(t, http.MethodGet, url, "", bearer(acct.APIKey)...)
	assert.Equal(t, http.StatusUnauthorized, r.status)
	assert.Contains(t, r.message(), "revoked")
	tx = srv.platform.WriteTx()
	k.Active = true
	exp := srv.Now().Add(time.Hour)
	k.ExpiresAt = &exp
	tx.End()

	// Expired: valid until the simulated clock reaches expires_at.
	r = rawDo(t, http.MethodGet, url, "", bearer(acct.APIKey)...)
	assert.Equal(t, http.StatusOK, r.status)
	srv.Advance(time.Hour)
	r = rawDo(t, http.MethodGet, url, "", bearer(acct.APIKey)...)
	assert.Equal(t, http.StatusUnauthorized, r.status)
	assert.Contains(t, r.message(), "expired")
}

func TestKeyUseIsStamped(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	k := srv.keyRecord(acct.APIKey)
	assert.Zero(t, k.LastUsed.Load())
	at := srv.Advance(time.Minute)
	require.Equal(t, http.StatusOK, rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(acct.APIKey)...).status)
	assert.Equal(t, at.UnixNano(), k.LastUsed.Load())
}

func TestScopeRequirements(t *testing.T) {
	t.Parallel()
	keyWith := func(scopes ...string) *domain.Actor {
		return &domain.Actor{KeyID: "key", Scopes: scopes}
	}
	req := httpapi.AllOf(httpapi.Scope("workspaces:write"), httpapi.AnyOf(httpapi.Scope("agents:write"), httpapi.AllOf(httpapi.Scope("evals:write"), httpapi.Scope("sms:write"))))
	assert.Equal(t, "workspaces:write and (agents:write or evals:write and sms:write)", req.String())
	for _, tc := range []struct {
		scopes []string
		met    bool
	}{
		{[]string{"workspaces:write", "agents:write"}, true},
		{[]string{"workspaces:write", "evals:write", "sms:write"}, true},
		{[]string{"workspaces:write", "evals:write"}, false},
		{[]string{"agents:write", "evals:write", "sms:write"}, false},
		{[]string{"workspaces:write"}, false},
		{nil, false},
		{[]string{"*"}, true},
	} {
		assert.Equal(t, tc.met, req.Met(keyWith(tc.scopes...)), "%v", tc.scopes)
	}
	session := &domain.Actor{SessionID: "session"}
	assert.True(t, req.Met(session), "sessions act as their user with every scope")
	assert.True(t, httpapi.AllOf().Met(keyWith()), "an empty allOf is met")
	assert.False(t, httpapi.AnyOf().Met(keyWith("*")), "an empty anyOf is not")
	assert.True(t, httpapi.Scope("calls:read").Met(keyWith("calls:read")))
	assert.False(t, httpapi.Scope("calls:read").Met(keyWith("calls:write")))
}

func TestMissingScopeIs403NamingTheScope(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	acct, err := srv.NewAccount(AccountOptions{Scopes: []voiceagent.Scope{"numbers:read"}})
	require.NoError(t, err)
	r := rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...)
	assert.Equal(t, http.StatusForbidden, r.status)
	assert.Equal(t, "forbidden", r.code())
	assert.Contains(t, r.message(), "agents:read")
	assert.Equal(t, http.StatusOK, rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(acct.APIKey)...).status)
}

// testRoutes are routes only this package's tests install (withRoutes).
func panicRoutes(calls *atomic.Int32) Option {
	boom := func(rc *httpapi.Ctx) (any, error) {
		calls.Add(1)
		panic("boom")
	}
	return withRoutes(
		&httpapi.Route{Method: http.MethodGet, Path: "/api/v1/_test/panic", Handle: boom},
		&httpapi.Route{Method: http.MethodPost, Path: "/api/v1/_test/panic", Handle: boom},
	)
}

func TestAHandlerPanicIs500AndTheServerKeepsServing(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv, acct := startWithAccount(t, panicRoutes(&calls))
	r := rawDo(t, http.MethodGet, srv.URL+"/v1/_test/panic", "", bearer(acct.APIKey)...)
	assert.Equal(t, http.StatusInternalServerError, r.status)
	assert.Equal(t, "internal_error", r.code())
	assert.NotContains(t, string(r.body), "boom", "the panic stays in the server's log")
	assert.NotEmpty(t, r.header.Get("X-Request-Id"))

	// The state lock was released: reads and writes still work.
	assert.Equal(t, http.StatusOK, rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...).status)
	body := `{"business_id":"` + acct.BusinessID + `","name":"a","system_prompt":"b"}`
	assert.Equal(t, http.StatusCreated, rawDo(t, http.MethodPost, srv.URL+"/v1/agents", body, bearer(acct.APIKey)...).status)

	journal := srv.Requests(func(e *JournalEntry) bool { return e.Path == "/api/v1/_test/panic" })
	require.Len(t, journal, 1)
	assert.Equal(t, http.StatusInternalServerError, journal[0].Status)
}

func TestAPanicWithAnIdempotencyKeyDoesNotPoisonTheKey(t *testing.T) {
	t.Parallel()
	var calls atomic.Int32
	srv, acct := startWithAccount(t, panicRoutes(&calls))
	hdr := append(bearer(acct.APIKey), "Idempotency-Key", "k1")
	r := rawDo(t, http.MethodPost, srv.URL+"/v1/_test/panic", `{}`, hdr...)
	assert.Equal(t, http.StatusInternalServerError, r.status)

	// A retry with the same key gets the recorded response instead of waiting
	// for one that never comes.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/_test/panic", strings.NewReader(`{}`))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+acct.APIKey)
	req.Header.Set("Idempotency-Key", "k1")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusInternalServerError, resp.StatusCode)
	assert.Equal(t, "true", resp.Header.Get(httpapi.HeaderIdempotentReplayed))
	assert.Equal(t, int32(1), calls.Load(), "the handler ran once")
}

func TestIDSeedMakesIDsAndKeysRepeatable(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 6, 5, 9, 0, 0, 0, time.UTC)
	run := func(seed uint64) (*Account, *Account, string) {
		srv := Start(t, WithIDSeed(seed), WithStartTime(start))
		a, err := srv.NewAccount(AccountOptions{})
		require.NoError(t, err)
		b, err := srv.NewAccount(AccountOptions{BusinessName: "Second"})
		require.NoError(t, err)
		r := rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(a.APIKey)...)
		require.Equal(t, http.StatusOK, r.status)
		return a, b, r.header.Get("X-Request-Id")
	}
	a1, b1, req1 := run(42)
	a2, b2, req2 := run(42)
	fields := func(a *Account) Account { c := *a; c.srv = nil; return c } // the servers differ
	assert.Equal(t, fields(a1), fields(a2))
	assert.Equal(t, fields(b1), fields(b2))
	assert.Equal(t, req1, req2, "request ids too")
	assert.NotEqual(t, a1.APIKey, b1.APIKey)
	assert.Regexp(t, `^voiceagent_live_[0-9A-Za-z]{40}$`, a1.APIKey)

	a3, _, _ := run(43)
	assert.NotEqual(t, a1.APIKey, a3.APIKey)
	assert.NotEqual(t, a1.BusinessID, a3.BusinessID)

	// Without a seed, two servers differ.
	u1, err := New().NewAccount(AccountOptions{})
	require.NoError(t, err)
	u2, err := New().NewAccount(AccountOptions{})
	require.NoError(t, err)
	assert.NotEqual(t, u1.APIKey, u2.APIKey)
}
