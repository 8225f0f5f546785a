package mockserver

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/mockserver/admin"
)

func TestFaultAdminAPI(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	r := rawDo(t, http.MethodPost, srv.AdminURL+"/faults", `{"method":"get","path":"/v1/numbers","status":503,"times":1}`)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	var rule FaultRule
	require.NoError(t, json.Unmarshal(r.body, &rule))
	assert.Equal(t, "fault_1", rule.ID)
	assert.Equal(t, "GET", rule.Method)
	assert.Equal(t, "/api/v1/numbers", rule.Path, "the /api prefix is added")
	assert.Equal(t, FaultTargetRequest, rule.Target)

	got := rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(acct.APIKey)...)
	assert.Equal(t, http.StatusServiceUnavailable, got.status)
	assert.Equal(t, "service_unavailable", got.code())
	assert.Equal(t, "injected fault fault_1", got.message())
	assert.Equal(t, http.StatusOK, rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(acct.APIKey)...).status, "times: 1")

	var list struct {
		Faults []FaultRule `json:"faults"`
	}
	require.NoError(t, json.Unmarshal(rawDo(t, http.MethodGet, srv.AdminURL+"/faults", "").body, &list))
	require.Len(t, list.Faults, 1)
	assert.Equal(t, 1, list.Faults[0].Fired)

	r = rawDo(t, http.MethodPost, srv.AdminURL+"/faults", `{"id":"mine","path":"/api/v1/*","status":418,"code":"vendor_error","message":"short and stout"}`)
	require.Equal(t, http.StatusCreated, r.status)
	got = rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...)
	assert.Equal(t, 418, got.status, "a path ending in * is a prefix")
	assert.Equal(t, "vendor_error", got.code())
	assert.Equal(t, "short and stout", got.message())
	r = rawDo(t, http.MethodPost, srv.AdminURL+"/faults", `{"path":"/api/v1/*","status":418,"code":"teapot"}`)
	assert.Equal(t, http.StatusBadRequest, r.status, "the real service answers only its own codes: %s", r.body)
	assert.Contains(t, string(r.body), "/code")

	r = rawDo(t, http.MethodDelete, srv.AdminURL+"/faults", "")
	require.Equal(t, http.StatusOK, r.status)
	require.NoError(t, json.Unmarshal(rawDo(t, http.MethodGet, srv.AdminURL+"/faults", "").body, &list))
	assert.Empty(t, list.Faults)
	assert.Equal(t, http.StatusOK, rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...).status)

	for _, body := range []string{`{"status":200}`, `{"probability":2}`, `{"target":"moon"}`, `{"latency_ms":-1}`, `{"nope":1}`} {
		r = rawDo(t, http.MethodPost, srv.AdminURL+"/faults", body)
		assert.Equal(t, http.StatusBadRequest, r.status, body)
	}
}

func TestFaultsMatchMethodAndPathAndNeverTheAdminAPI(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t, WithFaults(FaultRule{Method: "POST", Path: "/v1/agents", Status: 500}, FaultRule{Status: 502, Path: "/v1/*"}))
	assert.Equal(t, http.StatusBadGateway, rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...).status, "another method: the catch-all rule")
	assert.Equal(t, http.StatusInternalServerError, rawDo(t, http.MethodPost, srv.URL+"/v1/agents", "{}", bearer(acct.APIKey)...).status)
	assert.Equal(t, http.StatusOK, rawDo(t, http.MethodGet, srv.AdminURL+"/clock", "").status, "the admin API is never faulted")
	// A rule for the admin API could never fire: it is refused.
	r := rawDo(t, http.MethodPost, srv.AdminURL+"/faults", `{"status":502,"path":"/_mock/clock"}`)
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Contains(t, string(r.body), "no route of the API matches")
	assert.PanicsWithValue(t, "mockserver: WithFaults: 400 invalid_request: path: no route of the API matches /api/_mock/clock: the rule would never fire (see GET /api/openapi.yaml for the routes)",
		func() { New(WithFaults(FaultRule{Status: 502, Path: "/_mock/clock"})) })
	// A status fault responds before authentication: the handler never runs.
	assert.Equal(t, http.StatusInternalServerError, rawDo(t, http.MethodPost, srv.URL+"/v1/agents", "{}").status)
}

func TestFaultLatencyDelaysTheAnswer(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	srv.AddFault(FaultRule{Path: "/v1/numbers", LatencyMS: 50, Times: 1})
	r := rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(acct.APIKey)...)
	assert.Equal(t, http.StatusOK, r.status, "latency alone does not fail the request")
	e := srv.Requests(nil)
	require.Len(t, e, 1)
	assert.GreaterOrEqual(t, e[0].DurationMS, 50.0)

	// A client that gives up ends the wait: the server does not sleep on.
	srv.AddFault(FaultRule{Path: "/v1/numbers", LatencyMS: 60_000, Times: 1})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/v1/numbers", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+acct.APIKey)
	_, err = http.DefaultClient.Do(req)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	gone := srv.WaitRequests(wctx, func(e *JournalEntry) bool { return e.Seq == 2 })
	require.Len(t, gone, 1, "the abandoned request finished long before its 60 seconds")
}

func TestFaultProbabilityIsRepeatableWithASeed(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 6, 5, 0, 0, 0, 0, time.UTC)
	pattern := func() []int {
		srv := Start(t, WithIDSeed(9), WithStartTime(start), WithFaults(FaultRule{Path: "/v1/voices", Status: 503, Probability: 0.5}))
		acct, err := srv.NewAccount(AccountOptions{})
		require.NoError(t, err)
		var out []int
		for range 40 {
			out = append(out, rawDo(t, http.MethodGet, srv.URL+"/v1/voices", "", bearer(acct.APIKey)...).status)
		}
		return out
	}
	a, b := pattern(), pattern()
	assert.Equal(t, a, b)
	failed := 0
	for _, s := range a {
		if s == http.StatusServiceUnavailable {
			failed++
		}
	}
	assert.Greater(t, failed, 0, "some requests fail")
	assert.Less(t, failed, 40, "some succeed")

	always := Start(t, WithFaults(FaultRule{Path: "/v1/voices", Status: 503, Probability: 1}))
	acct, err := always.NewAccount(AccountOptions{})
	require.NoError(t, err)
	for range 5 {
		assert.Equal(t, http.StatusServiceUnavailable, rawDo(t, http.MethodGet, always.URL+"/v1/voices", "", bearer(acct.APIKey)...).status)
	}
}

func TestDroppedAndTruncatedAnswersAreJournaled(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	srv.AddFault(FaultRule{Path: "/v1/numbers", Drop: true, Times: 1})
	srv.AddFault(FaultRule{Path: "/v1/agents", Truncate: true, Times: 1})
	for _, path := range []string{"/v1/numbers", "/v1/agents"} {
		req, err := http.NewRequest(http.MethodGet, srv.URL+path, nil)
		require.NoError(t, err)
		req.Header.Set("Authorization", "Bearer "+acct.APIKey)
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(&map[string]any{})
			resp.Body.Close()
		}
		assert.Error(t, err, "%s: no complete answer", path)
	}
	e := srv.Requests(nil)
	require.Len(t, e, 2)
	assert.Equal(t, admin.FaultDropped, e[0].Fault)
	assert.Equal(t, 0, e[0].Status, "dropped before the handler: no status")
	assert.Equal(t, admin.FaultTruncated, e[1].Fault)
	assert.Equal(t, 200, e[1].Status)
}

func TestFaultRetryAfter(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	r := rawDo(t, http.MethodPost, srv.AdminURL+"/faults", `{"path":"/v1/numbers","status":429,"times":1}`)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	got := rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(acct.APIKey)...)
	assert.Equal(t, http.StatusTooManyRequests, got.status)
	assert.Equal(t, "rate_limited", got.code())
	assert.Equal(t, "1", got.header.Get("Retry-After"), "a 429 says when to retry")

	for _, c := range []struct {
		body, want string
	}{
		{`{"path":"/v1/numbers","status":429,"retry_after":0,"times":1}`, "0"},
		{`{"path":"/v1/numbers","status":503,"retry_after":7,"times":1}`, "7"},
		{`{"path":"/v1/numbers","status":502,"times":1}`, ""},
	} {
		r := rawDo(t, http.MethodPost, srv.AdminURL+"/faults", c.body)
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		got := rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(acct.APIKey)...)
		assert.Equal(t, c.want, got.header.Get("Retry-After"), c.body)
	}
	assert.Equal(t, http.StatusBadRequest, rawDo(t, http.MethodPost, srv.AdminURL+"/faults", `{"status":429,"retry_after":-1}`).status)
	for _, f := range srv.Faults() {
		assert.Equal(t, 1, f.Fired, f.ID)
	}
}

// TestAFaultOfProbabilityZeroIsRefused: "probability": 0 would never fire,
// so POST /_mock/faults refuses it, naming the field; a rule without a
// probability fires every time.
func TestAFaultOfProbabilityZeroIsRefused(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	r := rawDo(t, http.MethodPost, srv.AdminURL+"/faults", `{"path":"/v1/numbers","status":503,"probability":0}`)
	require.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	assert.Equal(t, "invalid_request", r.code())
	assert.Contains(t, r.message(), "/probability: must be greater than 0, not 0")
	assert.Empty(t, srv.Faults(), "nothing was added")

	r = rawDo(t, http.MethodPost, srv.AdminURL+"/faults", `{"path":"/v1/numbers","status":503}`)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	for range 10 {
		assert.Equal(t, http.StatusServiceUnavailable, rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(acct.APIKey)...).status)
	}
}

// TestTheJournalNamesTheFaultThatActed: every journaled request a fault
// rule acted on carries the rule's id, whatever the rule did, and the -v
// log line names it too.
func TestTheJournalNamesTheFaultThatActed(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	srv, acct := startWithAccount(t, WithLogger(slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	_, err := srv.AddFault(FaultRule{ID: "slow-numbers", Path: "/v1/numbers", LatencyMS: 1, Status: 502})
	require.NoError(t, err)
	assert.Equal(t, http.StatusBadGateway, rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(acct.APIKey)...).status)
	assert.Equal(t, http.StatusOK, rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...).status)
	e := srv.Requests(nil)
	require.Len(t, e, 2)
	assert.Equal(t, "slow-numbers", e[0].FaultID)
	assert.Equal(t, admin.FaultStatus, e[0].Fault, "answered with the rule's status (after its latency)")
	assert.Empty(t, e[1].FaultID)
	assert.Regexp(t, `path=/api/v1/numbers .*status=502 .*fault=slow-numbers fault_outcome=status`, log.String())
	assert.NotContains(t, log.String(), `fault=""`)
}
