package mockserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
)

// journalPage decodes GET /_mock/requests with its count and latest seq.
func journalPage(t *testing.T, r rawResp) JournalPageForTest {
	t.Helper()
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	var out JournalPageForTest
	require.NoError(t, json.Unmarshal(r.body, &out))
	return out
}

// JournalPageForTest is the response of GET /_mock/requests.
type JournalPageForTest = httpapi.JournalPage

func TestTheJournalKeepsHeadersBodiesAndTheTenant(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	body := `{"agent_id":"` + acct.AgentID + `","to":"+15551230001"}`
	r := rawDo(t, http.MethodPost, srv.URL+"/v1/calls", body, append(bearer(acct.APIKey), "Idempotency-Key", "journal-1")...)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)

	entries := srv.Requests(RequestFilter{Path: "/v1/calls"}.Match)
	require.Len(t, entries, 1)
	e := entries[0]
	assert.Equal(t, acct.BusinessID, e.BusinessID, "the request's tenant")
	assert.Equal(t, body, e.Request.Body, "the request body as sent")
	assert.Equal(t, len(body), e.Request.BodyBytes)
	assert.False(t, e.Request.Truncated)
	assert.Equal(t, "journal-1", e.Request.Header.Get("Idempotency-Key"))
	assert.Equal(t, "application/json", e.Request.Header.Get("Content-Type"))
	assert.Equal(t, acct.APIKey[:20]+"[redacted]", strings.TrimPrefix(e.Request.Header.Get("Authorization"), "Bearer "), "the key's shown prefix only")
	assert.Equal(t, string(r.body), e.Response.Body, "the answer as sent")
	assert.Equal(t, r.header.Get("X-Request-Id"), e.Response.Header.Get("X-Request-Id"))
	assert.Equal(t, e.RequestID, e.Response.Header.Get("X-Request-Id"))
	assert.Equal(t, "application/json", e.Response.Header.Get("Content-Type"))
	assert.NotEmpty(t, e.Response.Header.Get("RateLimit-Limit"), "the answer's own headers")

	// Without credentials there is no tenant; a response made up by a fault is journaled as sent.
	rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "")
	none := srv.Requests(RequestFilter{Path: "/v1/numbers"}.Match)
	require.Len(t, none, 1)
	assert.Empty(t, none[0].BusinessID)
	assert.Contains(t, none[0].Response.Body, `"unauthorized"`)
	assert.Empty(t, none[0].Request.Body)
	assert.Zero(t, none[0].Request.BodyBytes)

	// The same over HTTP: nested request and response objects.
	page := journalPage(t, rawDo(t, http.MethodGet, srv.AdminURL+"/requests?path=/v1/calls", ""))
	require.Len(t, page.Requests, 1)
	assert.Equal(t, body, page.Requests[0].Request.Body)
	raw := rawDo(t, http.MethodGet, srv.AdminURL+"/requests?path=/v1/calls", "")
	first := raw.json["requests"].([]any)[0].(map[string]any)
	assert.Equal(t, acct.BusinessID, first["business_id"])
	assert.Equal(t, []any{"journal-1"}, first["request"].(map[string]any)["headers"].(map[string]any)["Idempotency-Key"])
}

func TestTheJournalCapsBodies(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	// A 40 KB body of two-byte characters: cut at 16 KiB, on a character boundary.
	long := `{"agent_id":"` + acct.AgentID + `","to":"+15551230001","context":"` + strings.Repeat("é", 20_000) + `"}`
	rawDo(t, http.MethodPost, srv.URL+"/v1/calls", long, bearer(acct.APIKey)...)
	e := srv.Requests(RequestFilter{Method: "POST"}.Match)
	require.Len(t, e, 1)
	assert.True(t, e[0].Request.Truncated, "marked truncated")
	assert.Equal(t, len(long), e[0].Request.BodyBytes, "the whole body's length")
	assert.LessOrEqual(t, len(e[0].Request.Body), JournalBodyCap)
	assert.Greater(t, len(e[0].Request.Body), JournalBodyCap-2)
	assert.True(t, utf8.ValidString(e[0].Request.Body), "cut at a character boundary")
	assert.True(t, strings.HasPrefix(long, e[0].Request.Body))

	// A long response (the OpenAPI document) is capped too.
	r := rawDo(t, http.MethodGet, srv.URL+"/openapi.yaml", "")
	require.Equal(t, http.StatusOK, r.status)
	doc := srv.Requests(RequestFilter{Path: "/openapi.yaml"}.Match)
	require.Len(t, doc, 1)
	assert.True(t, doc[0].Response.Truncated)
	assert.Equal(t, len(r.body), doc[0].Response.BodyBytes)
	assert.Equal(t, string(r.body[:JournalBodyCap]), doc[0].Response.Body)
	assert.Equal(t, "application/yaml", doc[0].Response.Header.Get("Content-Type"))

	// Over HTTP, the marker is "truncated": true.
	raw := rawDo(t, http.MethodGet, srv.AdminURL+"/requests?path=/openapi.yaml", "")
	resp := raw.json["requests"].([]any)[0].(map[string]any)["response"].(map[string]any)
	assert.Equal(t, true, resp["truncated"])
	assert.NotContains(t, raw.json["requests"].([]any)[0].(map[string]any)["request"], "truncated", "absent when whole")
}

func TestTheJournalRedactsSecrets(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	secretsSeen := []string{acct.APIKey, acct.Session}

	// A signup: the emailed code in the verify body, the key, the magic link and the replay token in the response.
	req := rawDo(t, http.MethodPost, srv.URL+"/v1/signup", `{"business_name":"Journal Co","email":"journal@example.com"}`)
	require.Equal(t, http.StatusOK, req.status, "%s", req.body)
	otp := srv.Outbox("journal@example.com")
	require.NotEmpty(t, otp)
	code := otp[len(otp)-1].OTPCode
	verify := rawDo(t, http.MethodPost, srv.URL+"/v1/signup",
		fmt.Sprintf(`{"business_name":"Journal Co","email":"journal@example.com","challenge_id":%q,"otp_code":%q}`, req.json["challenge_id"], code))
	require.Equal(t, http.StatusCreated, verify.status, "%s", verify.body)
	magic, err := url.Parse(verify.json["dashboard_magic_link"].(string))
	require.NoError(t, err)
	token := magic.Query().Get("token")
	secretsSeen = append(secretsSeen, verify.json["api_key"].(string), token, verify.json["replay_token"].(string))

	// The magic link: the token in the query, the session in Set-Cookie.
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noRedirect.Get(srv.URL + "/auth/magic?token=" + token)
	require.NoError(t, err)
	resp.Body.Close()
	cookies := resp.Cookies()
	require.NotEmpty(t, cookies)
	secretsSeen = append(secretsSeen, cookies[0].Value)

	// A subscription: custom header values in the body, the signing secret in the response.
	sub := rawDo(t, http.MethodPost, srv.URL+"/v1/webhooks",
		`{"business_id":"`+acct.BusinessID+`","webhook_url":"https://hooks.example.com/x","events":["lead.created"],"custom_headers":{"X-Crm-Token":"crm-secret-value"}}`,
		bearer(acct.APIKey)...)
	require.Equal(t, http.StatusCreated, sub.status, "%s", sub.body)
	secretsSeen = append(secretsSeen, sub.json["secret"].(string), "crm-secret-value")

	// A session cookie and an X-PAYMENT header.
	rawDo(t, http.MethodGet, srv.URL+"/v1/keys", "", "Cookie", httpapi.SessionCookie+"="+acct.Session)
	rawDo(t, http.MethodPost, srv.URL+"/v1/signup", `{"business_name":"Pay Co","email":"pay@example.com","activation_mode":"payment"}`, "X-PAYMENT", "payment-proof-123")
	secretsSeen = append(secretsSeen, "payment-proof-123")

	all, err := json.Marshal(srv.Requests(nil))
	require.NoError(t, err)
	over := rawDo(t, http.MethodGet, srv.AdminURL+"/requests?limit=1000", "")
	for _, s := range secretsSeen {
		require.NotEmpty(t, s)
		assert.NotContains(t, string(all), s, "the journal never keeps %q", s)
		assert.NotContains(t, string(over.body), s, "GET /_mock/requests never shows %q", s)
	}
	assert.NotContains(t, string(all), `"otp_code":"`+code+`"`)

	// What is kept instead says what was there.
	byPath := func(method, path string) JournalEntry {
		e := srv.Requests(RequestFilter{Method: method, Path: path}.Match)
		require.NotEmpty(t, e, path)
		return e[len(e)-1]
	}
	v := byPath("POST", "/v1/signup")
	assert.Equal(t, "[redacted]", v.Request.Header.Get("X-Payment"))
	signups := srv.Requests(func(e *JournalEntry) bool {
		return RequestFilter{Path: "/v1/signup", Status: http.StatusCreated}.Match(e) && strings.Contains(e.Request.Body, "Journal Co")
	})
	require.Len(t, signups, 1)
	assert.Contains(t, signups[0].Request.Body, `"otp_code":"[redacted]"`)
	assert.Contains(t, signups[0].Request.Body, `"business_name":"Journal Co"`, "the rest of the body is kept")
	assert.Contains(t, signups[0].Response.Body, verify.json["api_key"].(string)[:20]+"[redacted]")
	assert.Contains(t, signups[0].Response.Body, "token=REDACTED")
	m := byPath("GET", "/auth/magic")
	assert.Contains(t, m.Query, "token=REDACTED")
	assert.Contains(t, m.Response.Body, `"session":"[redacted]"`)
	assert.Contains(t, m.Response.Header.Get("Set-Cookie"), httpapi.SessionCookie+"=[redacted]")
	assert.Contains(t, m.Response.Header.Get("Set-Cookie"), "Path=/", "cookie attributes are kept")
	w := byPath("POST", "/v1/webhooks")
	assert.Contains(t, w.Request.Body, `"custom_headers":{"X-Crm-Token":"[redacted]"}`, "header names are kept")
	assert.Contains(t, w.Response.Body, `"secret":"[redacted]"`)
	k := byPath("GET", "/v1/keys")
	assert.Equal(t, httpapi.SessionCookie+"=[redacted]", k.Request.Header.Get("Cookie"))
}

func TestTheJournalFilters(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	other, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...)                                 // 1
	rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(acct.APIKey)...)                                // 2
	rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(other.APIKey)...)                               // 3
	rawDo(t, http.MethodPost, srv.URL+"/v1/agents", `{}`, bearer(acct.APIKey)...)                              // 4: 400
	rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "")                                                        // 5: 401
	rawDo(t, http.MethodGet, srv.URL+"/v1/voices", "", bearer(other.APIKey)...)                                // 6
	rawDo(t, http.MethodGet, srv.URL+"/v1/numbers?business_id="+other.BusinessID, "", bearer(other.APIKey)...) // 7
	list := func(query string) ([]int64, int) {
		t.Helper()
		p := journalPage(t, rawDo(t, http.MethodGet, srv.AdminURL+"/requests?"+query, ""))
		seqs := []int64{}
		for _, e := range p.Requests {
			seqs = append(seqs, e.Seq)
		}
		assert.Equal(t, int64(7), p.LatestSeq, query)
		return seqs, p.Count
	}
	cases := []struct {
		query string
		seqs  []int64
	}{
		{"", []int64{1, 2, 3, 4, 5, 6, 7}},
		{"path=/v1/numbers", []int64{2, 3, 5, 7}},
		{"path=/api/v1/numbers", []int64{2, 3, 5, 7}},
		{"path=/v1/*", []int64{1, 2, 3, 4, 5, 6, 7}},
		{"path=/api/v1/a*", []int64{1, 4}},
		{"method=post", []int64{4}},
		{"method=GET&path=/v1/agents", []int64{1}},
		{"status=401", []int64{5}},
		{"status=400", []int64{4}},
		{"business_id=" + other.BusinessID, []int64{3, 6, 7}},
		{"business_id=" + acct.BusinessID + "&status=200", []int64{1, 2}},
		{"after=3", []int64{4, 5, 6, 7}},
		{"after=3&limit=2", []int64{4, 5}},
		{"limit=2", []int64{6, 7}},
		{"limit=0", []int64{}},
		{"after=7", []int64{}},
		{"path=/v1/numbers&limit=1", []int64{7}},
	}
	for _, c := range cases {
		seqs, _ := list(c.query)
		assert.Equal(t, c.seqs, seqs, c.query)
	}
	// count says how many match, however many are listed: for assertions.
	for query, want := range map[string]int{
		"path=/v1/numbers&limit=1": 4, "limit=0": 7, "after=3&limit=2": 4, "status=201": 0,
		"business_id=" + other.BusinessID: 3,
	} {
		_, count := list(query)
		assert.Equal(t, want, count, query)
	}

	// The Go filter is the same.
	assert.Len(t, srv.Requests(RequestFilter{Path: "/v1/numbers"}.Match), 4)
	assert.Len(t, srv.Requests(RequestFilter{Path: "/api/v1/numbers", BusinessID: other.BusinessID, After: 3}.Match), 1)
	assert.Len(t, srv.Requests(RequestFilter{Method: "get", Status: 200}.Match), 5)
	assert.Equal(t, int64(7), srv.LatestRequestSeq())
}

func TestTheJournalRefusesUnknownAndBadFilters(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	r := rawDo(t, http.MethodGet, srv.AdminURL+"/requests?paht=/v1/calls&method=GET&color=red", "")
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Equal(t, "bad_request", r.code())
	assert.Contains(t, r.message(), "color, paht", "names every unknown parameter")
	assert.Contains(t, r.message(), "path", "and what the route takes")

	for _, q := range []string{"status=abc", "status=99", "status=600", "after=-1", "after=x", "limit=-1", "limit=many", "business_id=nope", "wait=soon"} {
		r := rawDo(t, http.MethodGet, srv.AdminURL+"/requests?"+q, "")
		assert.Equal(t, http.StatusBadRequest, r.status, q)
		assert.Equal(t, "invalid_request", r.code(), q)
	}
	// A well-formed id of no business is not an empty match: it is a
	// mistake, as on the outbox and the deliveries.
	r = rawDo(t, http.MethodGet, srv.AdminURL+"/requests?business_id=00000000-0000-4000-8000-000000000000", "")
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.Equal(t, "not_found", r.code())
}

func TestTheJournalWaitsForNewEntriesOnly(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(acct.APIKey)...) // seq 1

	// An old match does not end the wait: without after, only entries after the call count.
	start := time.Now()
	p := journalPage(t, rawDo(t, http.MethodGet, srv.AdminURL+"/requests?path=/v1/numbers&wait=50ms", ""))
	assert.Empty(t, p.Requests, "the old request is not new")
	assert.Zero(t, p.Count)
	assert.GreaterOrEqual(t, time.Since(start), 50*time.Millisecond, "it waited")

	// A new match ends it, and the response lists only what is new. The
	// poll starts at some point after the goroutine does: keep making
	// requests until it responds.
	got := make(chan rawResp, 1)
	go func() {
		got <- rawDo(t, http.MethodGet, srv.AdminURL+"/requests?path=/v1/numbers&wait=30s", "")
	}()
	var resp rawResp
	for resp.status == 0 {
		rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...)
		rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(acct.APIKey)...)
		select {
		case resp = <-got:
		case <-time.After(10 * time.Millisecond):
		}
	}
	got <- resp
	p = journalPage(t, <-got)
	require.NotEmpty(t, p.Requests)
	for _, e := range p.Requests {
		assert.Greater(t, e.Seq, int64(1), "only new entries")
		assert.Equal(t, "/api/v1/numbers", e.Path)
	}

	// With after, an entry already there after it responds at once.
	start = time.Now()
	p = journalPage(t, rawDo(t, http.MethodGet, srv.AdminURL+"/requests?path=/v1/numbers&after=0&wait=30s", ""))
	assert.Less(t, time.Since(start), 20*time.Second, "answered at once")
	assert.Equal(t, int64(1), p.Requests[0].Seq, "the list starts after after")

	// The Go helpers: LatestRequestSeq, then wait for what comes after it.
	seq := srv.LatestRequestSeq()
	short, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	assert.Empty(t, srv.WaitRequests(short, RequestFilter{Path: "/v1/numbers", After: seq}.Match), "old entries do not count")
	ctx, cancel2 := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel2()
	done := make(chan []JournalEntry, 1)
	go func() { done <- srv.WaitRequests(ctx, RequestFilter{Path: "/v1/voices", After: seq}.Match) }()
	rawDo(t, http.MethodGet, srv.URL+"/v1/voices", "", bearer(acct.APIKey)...)
	fresh := <-done
	require.Len(t, fresh, 1)
	assert.Equal(t, seq+1, fresh[0].Seq)
}
