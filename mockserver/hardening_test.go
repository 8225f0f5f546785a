package mockserver

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
)

// hostDo sends one request as a browser or a script might, with its own
// Host and Content-Type (contentType "" sends none), and reads the response.
// It is not checked against the OpenAPI document: it probes the admin API.
func hostDo(t testing.TB, method, url, host, contentType, body string, header ...string) rawResp {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	require.NoError(t, err)
	if host != "" {
		req.Host = host
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	return sendRaw(t, http.DefaultClient, req)
}

// TestTheAdminAPIRefusesDNSRebinding: a page on evil.example whose name
// now resolves to 127.0.0.1 sends Host: evil.example; the admin API
// refuses every route to it (reads of codes included, unknown paths too)
// with 403 in the error format, while loopback names pass.
func TestTheAdminAPIRefusesDNSRebinding(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	_, port, err := net.SplitHostPort(strings.TrimPrefix(srv.HTTP.URL, "http://"))
	require.NoError(t, err)
	for _, probe := range []struct{ method, path, body string }{
		{http.MethodGet, "/outbox", ""},
		{http.MethodGet, "/requests", ""},
		{http.MethodPost, "/reset", ""},
		{http.MethodPost, "/accounts", `{}`},
		{http.MethodGet, "/nothing", ""},
		{http.MethodGet, "", ""},
	} {
		for _, host := range []string{"evil.example", "evil.example:" + port, "127.0.0.1.evil.example", "localhost.evil.example"} {
			ct := ""
			if probe.body != "" {
				ct = "application/json"
			}
			r := hostDo(t, probe.method, srv.AdminURL+probe.path, host, ct, probe.body)
			assert.Equal(t, http.StatusForbidden, r.status, "%s %s Host %s", probe.method, probe.path, host)
			assert.Equal(t, "forbidden", r.code(), "%s", r.body)
			assert.Contains(t, r.message(), "DNS rebinding")
		}
	}
	// Nothing happened: the account is still there (no reset ran).
	assert.Equal(t, http.StatusOK, rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...).status)
	for _, host := range []string{"127.0.0.1:" + port, "localhost:" + port, "LOCALHOST", "app.localhost:" + port, "[::1]:" + port, "127.0.0.2"} {
		assert.Equal(t, http.StatusOK, hostDo(t, http.MethodGet, srv.AdminURL+"/clock", host, "", "").status, host)
	}
	// The API under /api keeps its own rules: any Host, bearer keys.
	assert.Equal(t, http.StatusOK, hostDo(t, http.MethodGet, srv.URL+"/v1/agents", "evil.example", "", "", bearer(acct.APIKey)...).status)
}

// TestTheAdminAPIRefusesCrossOriginRequests: a web page posting text/plain
// to /_mock/faults (a "simple" request, sent without a preflight) is
// refused and adds nothing; a foreign Origin is refused on reads too; the
// dashboard's own origin passes.
func TestTheAdminAPIRefusesCrossOriginRequests(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	host := strings.TrimPrefix(srv.HTTP.URL, "http://")
	rule := `{"path": "/v1/agents", "status": 500}`

	r := hostDo(t, http.MethodPost, srv.AdminURL+"/faults", "", "text/plain", rule, "Origin", "https://evil.example")
	assert.Equal(t, http.StatusForbidden, r.status, "%s", r.body)
	assert.Equal(t, "forbidden", r.code())
	assert.Contains(t, r.message(), "cross-origin")
	for _, origin := range []string{"https://evil.example", "http://localhost:3000", "null", "http://" + host + ".evil.example"} {
		r = hostDo(t, http.MethodPost, srv.AdminURL+"/faults", "", "application/json", rule, "Origin", origin)
		assert.Equal(t, http.StatusForbidden, r.status, origin)
		r = hostDo(t, http.MethodGet, srv.AdminURL+"/outbox", "", "", "", "Origin", origin)
		assert.Equal(t, http.StatusForbidden, r.status, origin)
	}
	r = hostDo(t, http.MethodPost, srv.AdminURL+"/reset", "", "", "", "Sec-Fetch-Site", "cross-site")
	assert.Equal(t, http.StatusForbidden, r.status, "a browser's cross-site request without Origin")
	assert.Empty(t, srv.Faults(), "no refused request added a rule")

	// The same origin (the dashboard the server serves) passes.
	r = hostDo(t, http.MethodPost, srv.AdminURL+"/faults", "", "application/json", rule, "Origin", "http://"+host, "Sec-Fetch-Site", "same-origin")
	assert.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	assert.Len(t, srv.Faults(), 1)
}

// TestTheAdminAPITakesJSONBodiesOnly: a body or a Content-Type that is not
// JSON is 415, even from loopback without an Origin (curl, scripts); JSON
// with parameters, +json types and body-less requests pass.
func TestTheAdminAPITakesJSONBodiesOnly(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	rule := `{"path": "/v1/agents", "status": 500}`
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "", "json", "application/jsonx"} {
		r := hostDo(t, http.MethodPost, srv.AdminURL+"/faults", "", ct, rule)
		assert.Equal(t, http.StatusUnsupportedMediaType, r.status, "Content-Type %q", ct)
		assert.Equal(t, "invalid_request", r.code(), "%s", r.body)
	}
	r := hostDo(t, http.MethodPost, srv.AdminURL+"/reset", "", "text/plain", "")
	assert.Equal(t, http.StatusUnsupportedMediaType, r.status, "a text/plain content type without a body")
	assert.Empty(t, srv.Faults())

	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON", "application/merge-patch+json"} {
		r = hostDo(t, http.MethodPost, srv.AdminURL+"/faults", "", ct, rule)
		assert.Equal(t, http.StatusCreated, r.status, "Content-Type %q: %s", ct, r.body)
	}
	assert.Equal(t, http.StatusOK, hostDo(t, http.MethodPost, srv.AdminURL+"/reset", "", "", "").status, "no body, no type")
	assert.Equal(t, http.StatusOK, hostDo(t, http.MethodDelete, srv.AdminURL+"/faults", "", "", "").status)
}

// TestTheAdminTokenGuardsTheAdminAPI: with WithAdminToken every admin
// route needs the token (as a bearer token, or as the password of Basic
// auth, which a browser asks for after the 401's challenge); with it, any
// Host name is served (a page cannot know the token), and a foreign
// Origin is still refused. The API's bearer keys are no admin token.
func TestTheAdminTokenGuardsTheAdminAPI(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t, WithAdminToken("s3cret-admin"))
	for _, hdr := range [][]string{nil, {"Authorization", "Bearer wrong"}, bearer(acct.APIKey), {"Authorization", "Basic " + basic("admin", "wrong")}, {"Authorization", "s3cret-admin"}} {
		r := hostDo(t, http.MethodGet, srv.AdminURL+"/outbox", "", "", "", hdr...)
		assert.Equal(t, http.StatusUnauthorized, r.status, "%v", hdr)
		assert.Equal(t, "unauthorized", r.code())
		assert.Contains(t, r.header.Get("WWW-Authenticate"), "Basic")
		assert.NotContains(t, string(r.body), "s3cret-admin")
	}
	assert.Equal(t, http.StatusUnauthorized, hostDo(t, http.MethodPost, srv.AdminURL+"/reset", "", "", "").status)
	assert.Equal(t, http.StatusOK, rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...).status, "no reset ran")

	for _, hdr := range [][]string{{"Authorization", "Bearer s3cret-admin"}, {"Authorization", "bearer s3cret-admin"}, {"Authorization", "Basic " + basic("", "s3cret-admin")}} {
		assert.Equal(t, http.StatusOK, hostDo(t, http.MethodGet, srv.AdminURL+"/outbox", "", "", "", hdr...).status, "%v", hdr)
		assert.Equal(t, http.StatusOK, hostDo(t, http.MethodGet, srv.AdminURL+"/outbox", "mock.internal:8080", "", "", hdr...).status, "any Host with the token")
	}
	r := hostDo(t, http.MethodGet, srv.AdminURL+"/outbox", "", "", "", "Authorization", "Bearer s3cret-admin", "Origin", "https://evil.example")
	assert.Equal(t, http.StatusForbidden, r.status)
}

func basic(user, pass string) string {
	req, _ := http.NewRequest(http.MethodGet, "http://x", nil)
	req.SetBasicAuth(user, pass)
	return strings.TrimPrefix(req.Header.Get("Authorization"), "Basic ")
}

// TestWithAdminHostsAddsHostNames: a trusted name (a container's service
// name) can be allowed without a token.
func TestWithAdminHostsAddsHostNames(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithAdminHosts("mock", "mock.test:9000"))
	assert.Equal(t, http.StatusOK, hostDo(t, http.MethodGet, srv.AdminURL+"/clock", "mock:8080", "", "").status)
	assert.Equal(t, http.StatusOK, hostDo(t, http.MethodGet, srv.AdminURL+"/clock", "MOCK", "", "").status)
	assert.Equal(t, http.StatusOK, hostDo(t, http.MethodGet, srv.AdminURL+"/clock", "mock.test:9000", "", "").status)
	assert.Equal(t, http.StatusForbidden, hostDo(t, http.MethodGet, srv.AdminURL+"/clock", "mock.test:9001", "", "").status)
	assert.Equal(t, http.StatusForbidden, hostDo(t, http.MethodGet, srv.AdminURL+"/clock", "evil.example", "", "").status)
}

// TestTheJournalCutsLongPathsAndQueries: the flood of the issue (an
// unauthenticated GET of an unknown path with a huge query) is journaled
// with its path and query cut to MaxJournalField bytes and a marker, and
// the journal stays within its byte budget however many come.
func TestTheJournalCutsLongPathsAndQueries(t *testing.T) {
	t.Parallel()
	const budget = 128 << 10
	srv := Start(t, WithJournalBytes(budget))
	query := "x=" + strings.Repeat("q", 200_000)
	path := "/api/" + strings.Repeat("p", 50_000)
	for range 60 {
		r := hostDo(t, http.MethodGet, srv.HTTP.URL+path+"?"+query, "", "", "")
		require.Equal(t, http.StatusNotFound, r.status)
	}
	entries, bytes := srv.httpapi.Journal.Usage()
	assert.LessOrEqual(t, bytes, int64(budget))
	assert.Less(t, entries, 60, "the oldest went to keep the budget")
	journal := journalOf(t, hostDo(t, http.MethodGet, srv.AdminURL+"/requests", "", "", ""))
	require.Len(t, journal, entries)
	for _, e := range journal {
		assert.LessOrEqual(t, len(e.Query), httpapi.MaxJournalField+32)
		assert.True(t, strings.HasPrefix(e.Query, "x=qqq"), e.Query[:10])
		assert.True(t, strings.HasSuffix(e.Query, fmt.Sprintf("…[%d bytes cut]", len(query)-httpapi.MaxJournalField)), e.Query[len(e.Query)-30:])
		assert.LessOrEqual(t, len(e.Path), httpapi.MaxJournalField+32)
		assert.True(t, strings.HasPrefix(e.Path, "/api/ppp"))
		assert.Contains(t, e.Path, "bytes cut]")
	}
	assert.Equal(t, int64(60), journal[len(journal)-1].Seq, "sequence numbers go on")

	// A method of any length is cut too.
	r := hostDo(t, strings.Repeat("M", 10_000), srv.URL+"/v1/agents", "", "", "")
	assert.Equal(t, http.StatusMethodNotAllowed, r.status)
	last := srv.Requests(nil)
	assert.LessOrEqual(t, len(last[len(last)-1].Method), httpapi.MaxJournalField+32)
}

// TestEveryJournalEntryCountsItsBytes: the budget counts every string an
// entry keeps, so small entries fill it slower than big ones; the count
// bound (WithJournalSize) still holds.
func TestEveryJournalEntryCountsItsBytes(t *testing.T) {
	t.Parallel()
	e := JournalEntry{RequestID: "r", Method: "GET", Path: "/api/v1/leads", Query: "limit=5"}
	small := e.Bytes()
	e.Query = strings.Repeat("x", 1000)
	assert.Equal(t, small+1000-int64(len("limit=5")), e.Bytes())
	e.Response.Body = strings.Repeat("b", 500)
	e.Request.Header = http.Header{"X-Test": {"v"}}
	assert.Greater(t, e.Bytes(), small+1000-int64(len("limit=5"))+500, "bodies and headers count")

	// The same request journaled again costs the same: the budget of 10
	// keeps about 10.
	probe, probeAcct := startWithAccount(t)
	rawDo(t, http.MethodGet, probe.URL+"/v1/agents", "", bearer(probeAcct.APIKey)...)
	one := probe.Requests(nil)
	require.Len(t, one, 1)
	cost := one[0].Bytes()
	srv, acct := startWithAccount(t, WithJournalSize(1000), WithJournalBytes(10*cost+cost/2))
	for range 20 {
		rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...)
	}
	n, b := srv.httpapi.Journal.Usage()
	assert.LessOrEqual(t, b, 10*cost+cost/2)
	assert.GreaterOrEqual(t, n, 5)
	assert.Less(t, n, 20)
}

// TestRedactionMatchesNamesAfterPercentDecoding: ?%74oken= signs in as
// ?token= does, so its value is redacted as well, in the journal and in
// the log line; other parameters stay as sent.
func TestRedactionMatchesNamesAfterPercentDecoding(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	srv := Start(t, WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	const secret = "0123456789abcdef0123456789abcdef"
	for _, q := range []string{"%74oken=" + secret, "TOKEN=" + secret, "to%6Ben=" + secret + "&x=1", "a=b&%74%6F%6B%65%6E=" + secret, "access%5Ftoken=" + secret} {
		hostDo(t, http.MethodGet, srv.URL+"/auth/magic?"+q, "", "", "")
	}
	for _, e := range srv.Requests(nil) {
		assert.NotContains(t, e.Query, secret)
		assert.Contains(t, e.Query, "=REDACTED", e.Query)
	}
	assert.NotContains(t, logs.String(), secret)
	assert.Equal(t, "a=b&%74%6F%6B%65%6E=REDACTED", httpapi.RedactQuery("a=b&%74%6F%6B%65%6E="+secret))
	assert.Equal(t, "to%6Ben=REDACTED&x=1", httpapi.RedactQuery("to%6Ben="+secret+"&x=1"))
	assert.Equal(t, "limit=5&status=new", httpapi.RedactQuery("limit=5&status=new"), "the query as sent otherwise")
	assert.Equal(t, "%2574oken=x", httpapi.RedactQuery("%2574oken=x"), "decoded once, as the server reads it: %74oken is not token")
	assert.Equal(t, "", httpapi.RedactQuery(""))
}

// TestCredentialsAreRedactedByTheirNames: a header or a query parameter
// named as a credential (X-Api-Key, X-Auth-Token, ?api_key=) keeps no
// value in the journal or the -v log, whatever the value looks like.
func TestCredentialsAreRedactedByTheirNames(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	srv := Start(t, WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	const secret = "sk_live_0ther_s3rvice_credential"
	r := hostDo(t, http.MethodGet, srv.URL+"/v1/agents?api_key="+secret+"&client-secret="+secret+"&page=2", "", "", "",
		"X-Api-Key", secret, "X-Auth-Token", secret, "Idempotency-Key", "kept-1")
	require.Equal(t, http.StatusUnauthorized, r.status)
	e := srv.Requests(nil)
	require.Len(t, e, 1)
	assert.Equal(t, "api_key=REDACTED&client-secret=REDACTED&page=2", e[0].Query)
	assert.Equal(t, "[redacted]", e[0].Request.Header.Get("X-Api-Key"))
	assert.Equal(t, "[redacted]", e[0].Request.Header.Get("X-Auth-Token"))
	assert.Equal(t, "kept-1", e[0].Request.Header.Get("Idempotency-Key"), "an idempotency key names a request: kept")
	raw, err := json.Marshal(e)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), secret)
	assert.NotContains(t, logs.String(), secret)
}

// TestTheLogWritesOneCappedLinePerRequest: -v (WithLogger at debug) writes
// one line per request, however long its path and query, and whatever
// they hold (newlines included).
func TestTheLogWritesOneCappedLinePerRequest(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	srv := Start(t, WithLogger(slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	for range 5 {
		hostDo(t, http.MethodGet, srv.URL+"/nope%0Aforged=line/"+strings.Repeat("p", 100_000)+"?x="+strings.Repeat("q", 500_000)+"%0Amsg=forged", "", "", "")
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	require.Len(t, lines, 5, "one line a request")
	for _, l := range lines {
		assert.Less(t, len(l), 4*httpapi.MaxJournalField+1024)
		assert.Contains(t, l, "status=404")
		assert.Contains(t, l, "bytes cut]")
	}
}

// TestTheUsageLogKeepsTheNewestEntriesPerUserAndPerTenant: a busy user
// keeps its newest entries and pushes out no other tenant's; a tenant
// keeps its newest within its own bound.
func TestTheUsageLogKeepsTheNewestEntriesPerUserAndPerTenant(t *testing.T) {
	t.Parallel()
	srv, busy := startWithAccount(t, WithUsageLogSize(4, 6), WithRateLimits(false))
	quiet, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(quiet.APIKey)...)
	for range 10 {
		rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(busy.APIKey)...)
	}
	busyItems, _ := usageOf(t, srv, busy.APIKey, "?limit=500")
	// The usage read itself is logged after it responds.
	assert.Len(t, busyItems, 4, "the newest 4 of the busy user")
	for range 20 {
		rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(busy.APIKey)...)
	}
	quietItems, _ := usageOf(t, srv, quiet.APIKey, "?limit=500")
	require.Len(t, quietItems, 1, "the quiet tenant's entry stayed, however busy the other")
	assert.Equal(t, "/v1/numbers", quietItems[0].Endpoint)

	// Past its tenant's bound, a user's oldest go.
	perTenant, acct := startWithAccount(t, WithUsageLogSize(10, 3), WithRateLimits(false))
	for range 6 {
		rawDo(t, http.MethodGet, perTenant.URL+"/v1/agents", "", bearer(acct.APIKey)...)
	}
	items, _ := usageOf(t, perTenant, acct.APIKey, "?limit=500")
	assert.Len(t, items, 3, "the newest 3 of the tenant")
}

// TestTheEventLogKeepsTheNewestEventsPerBusinessAndPerTenant: GET
// /v1/events shows a business's newest events up to the per-business
// bound, and a tenant's up to the per-tenant bound; another tenant's
// events push out none of them; past the byte budget, the oldest go;
// replay by id of a dropped event is 404.
func TestTheEventLogKeepsTheNewestEventsPerBusinessAndPerTenant(t *testing.T) {
	t.Parallel()
	srv, a := startWithAccount(t, WithEventLogSize(3, 5))
	b, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	events := func(srv *TestServer, acct *Account) []string {
		r := rawDo(t, http.MethodGet, srv.URL+"/v1/events?limit=100", "", bearer(acct.APIKey)...)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		var page struct {
			Events []struct {
				ID   string         `json:"id"`
				Data map[string]any `json:"data"`
			} `json:"events"`
		}
		require.NoError(t, json.Unmarshal(r.body, &page))
		var out []string
		for _, ev := range page.Events {
			out = append(out, fmt.Sprint(ev.Data["n"]))
		}
		return out
	}
	emit := func(srv *TestServer, acct *Account, n int) string {
		id, err := srv.EmitEvent(acct.BusinessID, "lead.created", map[string]any{"n": n})
		require.NoError(t, err)
		return id
	}
	first := emit(srv, a, 1)
	for n := 2; n <= 5; n++ {
		emit(srv, a, n)
	}
	assert.Equal(t, []string{"5", "4", "3"}, events(srv, a), "the newest 3 of the business")
	for n := 1; n <= 50; n++ {
		emit(srv, b, n)
	}
	assert.Equal(t, []string{"50", "49", "48"}, events(srv, b))
	assert.Equal(t, []string{"5", "4", "3"}, events(srv, a), "another tenant's events push out none of a's")

	perTenant, c := startWithAccount(t, WithEventLogSize(10, 2))
	for n := 1; n <= 4; n++ {
		emit(perTenant, c, n)
	}
	assert.Equal(t, []string{"4", "3"}, events(perTenant, c), "the newest 2 of the tenant")

	r := rawDo(t, http.MethodPost, srv.URL+"/v1/events/replay", `{"event_ids":["`+first+`"]}`, bearer(a.APIKey)...)
	assert.Equal(t, http.StatusNotFound, r.status, "%s", r.body)

	small := Start(t, WithEventLogBytes(4096))
	d, err := small.NewAccount(AccountOptions{})
	require.NoError(t, err)
	for n := range 20 {
		_, err := small.EmitEvent(d.BusinessID, "lead.created", map[string]any{"n": n, "pad": strings.Repeat("x", 500)})
		require.NoError(t, err)
	}
	tx := small.platform.ReadTx()
	kept, bytes := tx.Events.Len(), tx.Events.RetainedBytes()
	tx.End()
	assert.LessOrEqual(t, bytes, int64(4096))
	assert.Less(t, kept, 20)
	assert.Positive(t, kept)
}

// TestTheDeliveryLogIsBoundedInBytes: deliveries count their body and
// attempts; the oldest go past the budget.
func TestTheDeliveryLogIsBoundedInBytes(t *testing.T) {
	t.Parallel()
	receiver := newRecordingReceiver(t)
	srv, acct := startWithAccount(t, WithDeliveryLogBytes(16<<10))
	r := rawDo(t, http.MethodPost, srv.URL+"/v1/webhooks", `{"business_id":"`+acct.BusinessID+`","webhook_url":"`+receiver.URL+`","events":["lead.created"]}`, bearer(acct.APIKey)...)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	for n := range 40 {
		_, err := srv.EmitEvent(acct.BusinessID, "lead.created", map[string]any{"n": n, "pad": strings.Repeat("x", 1000)})
		require.NoError(t, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	receiver.waitFor(ctx, t, 40)
	// The receiver has every request; each delivery records its attempt
	// once it has a response, which may drop the oldest again: read the log once
	// every kept delivery has its response.
	var n int
	var bytes int64
	require.Eventually(t, func() bool {
		kept := srv.Deliveries(DeliveryFilter{})
		tx := srv.platform.ReadTx()
		n, bytes = tx.Deliveries.Usage()
		tx.End()
		for _, d := range kept {
			if d.Status != "succeeded" {
				return false
			}
		}
		return len(kept) == n
	}, 10*time.Second, 10*time.Millisecond)
	assert.LessOrEqual(t, bytes, int64(16<<10))
	assert.Less(t, n, 40)
}

// recordingReceiver counts the webhook deliveries it receives.
type recordingReceiver struct {
	URL string
	n   atomic.Int32
	mu  sync.Mutex
	ch  chan struct{}
}

func newRecordingReceiver(t *testing.T) *recordingReceiver {
	rr := &recordingReceiver{ch: make(chan struct{}, 1000)}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		rr.n.Add(1)
		rr.ch <- struct{}{}
	}), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })
	rr.URL = "http://" + ln.Addr().String() + "/hook"
	return rr
}

func (rr *recordingReceiver) waitFor(ctx context.Context, t *testing.T, n int32) {
	for rr.n.Load() < n {
		select {
		case <-rr.ch:
		case <-ctx.Done():
			t.Fatalf("the receiver got %d deliveries, want %d", rr.n.Load(), n)
		}
	}
}

// TestTransientDependencyFailuresAreNotRemembered: a dependency fault that
// fired once (the voice provider, the SMS carrier) and the magic failing
// numbers respond 5xx without changing anything; a retry with the same
// Idempotency-Key runs again instead of replaying the failure (see docs/mockserver.md,
// section Idempotency). A 4xx is remembered.
func TestTransientDependencyFailuresAreNotRemembered(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t, WithRateLimits(false), WithStartTime(time.Date(2026, 3, 10, 19, 0, 0, 0, time.UTC)))
	require.NoError(t, srv.SetConsent(acct.BusinessID, "+15551230077", ConsentOptedIn))
	call := `{"agent_id":"` + acct.AgentID + `","to":"+15551230077"}`
	text := `{"from_agent_id":"` + acct.AgentID + `","to":"+15551230077","message":"Hello"}`
	for _, tc := range []struct {
		name, path, body string
		target           FaultTarget
		code             string
		status           int
	}{
		{"voice provider", "/v1/calls", call, FaultTargetVoiceProvider, "vendor_error", http.StatusCreated},
		{"sms carrier", "/v1/sms/send", text, FaultTargetSMSProvider, "sms_send_failed", http.StatusOK},
	} {
		srv.AddFault(FaultRule{Path: tc.path, Target: tc.target, Status: 500, Times: 1})
		hdr := append(bearer(acct.APIKey), "Idempotency-Key", "transient-"+tc.name)
		r := rawDo(t, http.MethodPost, srv.URL+tc.path, tc.body, hdr...)
		require.GreaterOrEqual(t, r.status, 500, "%s: %s", tc.name, r.body)
		assert.Equal(t, tc.code, r.code(), tc.name)
		r = rawDo(t, http.MethodPost, srv.URL+tc.path, tc.body, hdr...)
		assert.Equal(t, tc.status, r.status, "%s: the retry ran: %s", tc.name, r.body)
		assert.Empty(t, r.header.Get(httpapi.HeaderIdempotentReplayed), tc.name)
		again := rawDo(t, http.MethodPost, srv.URL+tc.path, tc.body, hdr...)
		assert.Equal(t, "true", again.header.Get(httpapi.HeaderIdempotentReplayed), "%s: the success is remembered", tc.name)
		assert.Equal(t, string(r.body), string(again.body))
	}
	// The magic failing call number: nothing is stored, each retry runs.
	magic := append(bearer(acct.APIKey), "Idempotency-Key", "magic")
	for range 2 {
		r := rawDo(t, http.MethodPost, srv.URL+"/v1/calls", `{"agent_id":"`+acct.AgentID+`","to":"+15005550003"}`, magic...)
		assert.Equal(t, "call_failed", r.code())
		assert.Empty(t, r.header.Get(httpapi.HeaderIdempotentReplayed))
	}
	// A 4xx failed for good: replayed.
	bad := append(bearer(acct.APIKey), "Idempotency-Key", "bad")
	unknown := `{"agent_id":"00000000-0000-4000-8000-000000000000","to":"+15551230077"}`
	first := rawDo(t, http.MethodPost, srv.URL+"/v1/calls", unknown, bad...)
	assert.Equal(t, http.StatusNotFound, first.status, "%s", first.body)
	r := rawDo(t, http.MethodPost, srv.URL+"/v1/calls", unknown, bad...)
	assert.Equal(t, "true", r.header.Get(httpapi.HeaderIdempotentReplayed), "%d %s", r.status, r.body)
}

// TestIdempotencyRecordsExpireInRealTimeAndAreBounded: on a clock nobody
// advances (the standalone binary's), records still go after 24 hours of
// real time; and past a tenant's record bound the tenant's oldest go
// first, another tenant's staying.
func TestIdempotencyRecordsExpireInRealTimeAndAreBounded(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	srv, acct := startWithAccount(t, countRoute(&runs), WithIdempotencyLimit(3, 0))
	other, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	var wall atomic.Int64
	wall.Store(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC).UnixNano())
	srv.httpapi.Idem.SetWallClock(func() time.Time { return time.Unix(0, wall.Load()) })
	postAs := func(acct *Account, key string) rawResp {
		return rawDo(t, http.MethodPost, srv.URL+"/v1/_test/count", `{}`, append(bearer(acct.APIKey), "Idempotency-Key", key)...)
	}
	post := func(key string) rawResp { return postAs(acct, key) }
	post("a")
	wall.Add(int64(24*time.Hour - time.Second))
	assert.Equal(t, "true", post("a").header.Get(httpapi.HeaderIdempotentReplayed), "within 24 hours of real time")
	wall.Add(int64(time.Second))
	assert.Empty(t, post("a").header.Get(httpapi.HeaderIdempotentReplayed), "24 hours of real time later the key is forgotten")
	assert.Equal(t, int32(2), runs.Load())

	postAs(other, "mine")
	for _, k := range []string{"b", "c", "d"} {
		post(k)
	}
	u := srv.LogUsage()
	assert.Equal(t, 4, u.IdempotencyRecords, "3 of the tenant, 1 of the other")
	assert.Positive(t, u.IdempotencyBytes)
	assert.Equal(t, "true", post("d").header.Get(httpapi.HeaderIdempotentReplayed), "the newest stay")
	assert.Empty(t, post("a").header.Get(httpapi.HeaderIdempotentReplayed), "the oldest went")
	assert.Equal(t, "true", postAs(other, "mine").header.Get(httpapi.HeaderIdempotentReplayed), "the other tenant's record stays")

	byBytes, acct2 := startWithAccount(t, countRoute(&runs), WithIdempotencyLimit(0, 2048))
	for i := range 20 {
		rawDo(t, http.MethodPost, byBytes.URL+"/v1/_test/count", `{}`, append(bearer(acct2.APIKey), "Idempotency-Key", fmt.Sprint("k", i))...)
	}
	u = byBytes.LogUsage()
	assert.LessOrEqual(t, u.IdempotencyBytes, int64(2048))
	assert.Less(t, u.IdempotencyRecords, 20)
}

// TestTheHTTPServerCutsSlowBodiesAndIdleConnections: HTTPServer's read
// timeout ends a body sent byte by byte, and its idle timeout closes a
// keep-alive connection nobody uses (timeouts shortened for the test).
func TestTheHTTPServerCutsSlowBodiesAndIdleConnections(t *testing.T) {
	t.Parallel()
	srv := New()
	t.Cleanup(srv.Close)
	hs := srv.HTTPServer()
	assert.Equal(t, ReadTimeout, hs.ReadTimeout)
	assert.Equal(t, WriteTimeout, hs.WriteTimeout)
	assert.Equal(t, IdleTimeout, hs.IdleTimeout)
	assert.Equal(t, ReadHeaderTimeout, hs.ReadHeaderTimeout)
	hs.ReadTimeout, hs.IdleTimeout = 300*time.Millisecond, 300*time.Millisecond
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = hs.Serve(ln) }()
	t.Cleanup(func() { _ = hs.Close() })

	conn, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /api/v1/signup HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n")
	require.NoError(t, err)
	sent := 0
	for ; sent < 100; sent++ {
		if _, err := conn.Write([]byte{' '}); err != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
		if isClosed(conn) {
			break
		}
	}
	assert.Less(t, sent, 100, "the server stopped reading the slow body")

	idle, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer idle.Close()
	_, err = fmt.Fprintf(idle, "GET /_mock/clock HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	require.NoError(t, err)
	resp, err := http.ReadResponse(bufio.NewReader(idle), nil)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	require.NoError(t, idle.SetReadDeadline(time.Now().Add(10*time.Second)))
	_, err = idle.Read(make([]byte, 1))
	assert.ErrorIs(t, err, io.EOF, "the idle keep-alive connection was closed by the server")
}

// isClosed reports whether the server closed conn (or sent a response on it): a
// read returns at once with data or an error.
func isClosed(conn net.Conn) bool {
	_ = conn.SetReadDeadline(time.Now().Add(time.Millisecond))
	defer func() { _ = conn.SetReadDeadline(time.Time{}) }()
	_, err := conn.Read(make([]byte, 1))
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		return false
	}
	return true
}

// TestLongPollsOutlastTheServerTimeoutsAndShutdownAnswersThem: a long poll
// is not cut by the read and write timeouts (shortened here); Shutdown
// responds to an open long poll at once, with what it has, and returns.
func TestLongPollsOutlastTheServerTimeoutsAndShutdownAnswersThem(t *testing.T) {
	t.Parallel()
	srv := New()
	t.Cleanup(srv.Close)
	hs := srv.HTTPServer()
	// Timeouts of a second, not less: the handler must reach its poll (and
	// move the deadlines) within them, and a loaded machine running the
	// race detector can take a few hundred milliseconds to schedule it.
	hs.ReadTimeout, hs.WriteTimeout = time.Second, time.Second
	// started says a request's handler began: its request was read, so a
	// Shutdown then can only cut the poll short, not the request.
	started := make(chan struct{}, 10)
	serve := hs.Handler
	hs.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		serve.ServeHTTP(w, r)
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = hs.Serve(ln) }()
	base := "http://" + ln.Addr().String()

	r := hostDo(t, http.MethodGet, base+"/_mock/requests?wait=2s", "", "", "")
	assert.Equal(t, http.StatusOK, r.status, "a poll of 2s under timeouts of 1s: %s", r.body)
	<-started

	// An open poll of 60s (the server has read it), then Shutdown.
	got := make(chan rawResp, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, base+"/_mock/requests?wait=60s", nil)
		// A connection of its own: one the server closed as idle would be
		// retried after Shutdown closed the listener.
		fresh := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		resp, err := fresh.Do(req)
		if err != nil {
			got <- rawResp{status: -1, body: []byte(err.Error())}
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		got <- rawResp{status: resp.StatusCode, body: body}
	}()
	<-started
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, hs.Shutdown(ctx), "Shutdown waited for no poll")
	poll := <-got
	assert.Equal(t, http.StatusOK, poll.status, "%s", poll.body)
	var page struct {
		Requests []any `json:"requests"`
	}
	require.NoError(t, json.Unmarshal(poll.body, &page), "%s", poll.body)
	assert.NotNil(t, page.Requests)
	assert.Empty(t, page.Requests)
}

// TestCustomHeadersAreRefusedAtWriteTime: a subscription's custom header
// with a control character in its value, a value over 4096 bytes, or a
// hop-by-hop, framing or encoding name is refused when it is saved, with a
// 400 naming the header, never later at delivery time.
func TestCustomHeadersAreRefusedAtWriteTime(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	create := func(headers string) rawResp {
		body := `{"business_id":"` + acct.BusinessID + `","webhook_url":"http://127.0.0.1:9/hook","events":["lead.created"],"custom_headers":` + headers + `}`
		return rawDo(t, http.MethodPost, srv.URL+"/v1/webhooks", body, bearer(acct.APIKey)...)
	}
	for _, tc := range []struct{ headers, path, says string }{
		{`{"X-Tag":"a\u0000b"}`, "/custom_headers/X-Tag", ""},
		{`{"X-Tag":"a\u000bb"}`, "/custom_headers/X-Tag", ""},
		{`{"X-Tag":"a\u007fb"}`, "/custom_headers/X-Tag", ""},
		{`{"X-Tag":"` + strings.Repeat("v", 4097) + `"}`, "/custom_headers/X-Tag", ""},
		{`{"Transfer-Encoding":"chunked"}`, "/custom_headers", "Transfer-Encoding"},
		{`{"connection":"close"}`, "/custom_headers", "connection"},
		{`{"TE":"trailers"}`, "/custom_headers", "TE"},
		{`{"Upgrade":"websocket"}`, "/custom_headers", "Upgrade"},
		{`{"Content-Encoding":"gzip"}`, "/custom_headers", "Content-Encoding"},
		{`{"Expect":"100-continue"}`, "/custom_headers", "Expect"},
	} {
		r := create(tc.headers)
		require.Equal(t, http.StatusBadRequest, r.status, "%.80s: %s", tc.headers, r.body)
		assert.Equal(t, "invalid_request", r.code())
		details, _ := r.json["error"].(map[string]any)["details"].([]any)
		require.NotEmpty(t, details, "%s", r.body)
		d := details[0].(map[string]any)
		assert.Equal(t, tc.path, d["path"], "%s", r.body)
		if tc.says != "" {
			assert.Contains(t, d["message"], `"`+tc.says+`"`, "the message names the header")
		}
	}
	r := create(`{"X-Tag":"a\tb é ` + strings.Repeat("v", 4000) + `"}`)
	assert.Equal(t, http.StatusCreated, r.status, "a tab, UTF-8 and 4 KB pass: %s", r.body)
	assert.Empty(t, srv.Deliveries(DeliveryFilter{}), "nothing was delivered")
}

// TestTheOutboxKeepsTheNewestMessages: every text sent lands in the
// outbox, which keeps the newest WithOutboxSize messages; a reset keeps
// the bound.
func TestTheOutboxKeepsTheNewestMessages(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t, WithOutboxSize(3), WithRateLimits(false), WithStartTime(afternoonET))
	send := func(acct *Account, n int) {
		require.NoError(t, srv.SetConsent(acct.BusinessID, "+15551230001", ConsentOptedIn))
		for i := range n {
			r := rawDo(t, http.MethodPost, srv.URL+"/v1/sms/send", fmt.Sprintf(`{"from_agent_id":%q,"to":"+15551230001","message":"text %d"}`, acct.AgentID, i), bearer(acct.APIKey)...)
			require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		}
	}
	send(acct, 5)
	var bodies []string
	for _, m := range srv.Outbox("") {
		bodies = append(bodies, m.Body)
	}
	require.Len(t, bodies, 3, "%q", bodies)
	assert.Contains(t, bodies, "text 4")
	assert.NotContains(t, bodies, "text 1")
	assert.Equal(t, 3, srv.LogUsage().Outbox)

	srv.Reset()
	acct, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	send(acct, 5)
	assert.Len(t, srv.Outbox(""), 3, "the bound holds after a reset")
}

// fillJournal journals n requests to s, each with a body the journal keeps
// at its cap (JournalBodyCap).
func fillJournal(t *testing.T, s *Server, key string, n int) {
	t.Helper()
	body := `{"name":"` + strings.Repeat("x", httpapi.JournalBodyCap) + `"}`
	for range n {
		req := localRequest(http.MethodPost, "/api/v1/agents", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		s.ServeHTTP(httptest.NewRecorder(), req)
	}
}

// TestAJournalPageIsBoundedInEntriesAndBytes: GET /_mock/requests lists
// at most MaxJournalLimit entries (a larger limit is 400) and at most
// MaxJournalPageBytes of them, the newest (or with after, the first)
// ones, however large the journal.
func TestAJournalPageIsBoundedInEntriesAndBytes(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	r := rawDo(t, http.MethodGet, srv.AdminURL+"/requests?limit=1001", "")
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Equal(t, "invalid_request", r.code())
	assert.Contains(t, r.message(), "limit")
	assert.Equal(t, http.StatusOK, rawDo(t, http.MethodGet, srv.AdminURL+"/requests?limit=1000", "").status)

	const n = 300 // each over 16 KiB: about 5 MiB in all
	fillJournal(t, srv.Server, acct.APIKey, n)
	for _, q := range []string{"limit=1000", "limit=1000&after=0"} {
		r = rawDo(t, http.MethodGet, srv.AdminURL+"/requests?"+q, "")
		require.Equal(t, http.StatusOK, r.status)
		var page struct {
			Requests  []JournalEntry `json:"requests"`
			Count     int            `json:"count"`
			LatestSeq int64          `json:"latest_seq"`
		}
		require.NoError(t, json.Unmarshal(r.body, &page))
		assert.Equal(t, n, page.Count, q)
		require.NotEmpty(t, page.Requests, q)
		assert.Less(t, len(page.Requests), n, "%s: cut by bytes", q)
		var bytes int64
		for i, e := range page.Requests {
			bytes += e.Bytes()
			assert.Equal(t, page.Requests[0].Seq+int64(i), e.Seq, "%s: a run of entries", q)
		}
		assert.LessOrEqual(t, bytes, int64(httpapi.MaxJournalPageBytes), q)
		if strings.Contains(q, "after") {
			assert.Equal(t, int64(1), page.Requests[0].Seq, "read on from after: the first ones")
		} else {
			assert.Equal(t, page.LatestSeq, page.Requests[len(page.Requests)-1].Seq, "the newest ones")
		}
	}
}

// smallBuffers is a listener whose connections have small send buffers,
// so that a response a client does not read stays with the server.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// TestAClientThatDoesNotReadALargeResponseIsCutOff: a response over
// LargeResponseBytes that its client does not read within
// LargeResponseTimeout is abandoned (the connection closed), so that the
// server does not hold it for its whole write timeout.
func TestAClientThatDoesNotReadALargeResponseIsCutOff(t *testing.T) {
	t.Parallel()
	srv := New()
	t.Cleanup(srv.Close)
	acct, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	fillJournal(t, srv, acct.APIKey, 100)
	hs := srv.HTTPServer()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = hs.Serve(smallBuffers{ln}) }()
	t.Cleanup(func() { _ = hs.Close() })

	conn, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.(*net.TCPConn).SetReadBuffer(4096))
	_, err = fmt.Fprintf(conn, "GET /_mock/requests?limit=100 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	require.NoError(t, err)
	time.Sleep(httpapi.LargeResponseTimeout + 2*time.Second) // the client reads nothing meanwhile
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(30*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	require.NoError(t, err)
	defer resp.Body.Close()
	got, err := io.Copy(io.Discard, resp.Body)
	assert.Error(t, err, "the server closed the connection")

	whole := rawDo(t, http.MethodGet, "http://"+ln.Addr().String()+"/_mock/requests?limit=100", "")
	require.Equal(t, http.StatusOK, whole.status)
	require.Greater(t, len(whole.body), httpapi.LargeResponseBytes)
	assert.Less(t, got, int64(len(whole.body)), "the server stopped before the whole response was sent")
}
