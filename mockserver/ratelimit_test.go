package mockserver

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRateLimitsAnswerHeadersAnd429AndRecoverOnTheClock(t *testing.T) {
	t.Parallel()
	// 300 reads a minute scaled to 3: one token every 20 seconds.
	srv, acct := startWithAccount(t, WithRateLimitScale(0.01))
	get := func(key string) rawResp {
		return rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(key)...)
	}
	for i := range 3 {
		r := get(acct.APIKey)
		require.Equal(t, http.StatusOK, r.status, "request %d", i)
		assert.Equal(t, "3", r.header.Get("RateLimit-Limit"))
		assert.Equal(t, strconv.Itoa(2-i), r.header.Get("RateLimit-Remaining"))
		assert.InDelta(t, 20*(i+1), atoi(t, r.header.Get("RateLimit-Reset")), 1, "seconds until the bucket is full again")
		assert.Empty(t, r.header.Get("Retry-After"))
	}
	r := get(acct.APIKey)
	assert.Equal(t, http.StatusTooManyRequests, r.status)
	assert.Equal(t, "rate_limited", r.code())
	assert.InDelta(t, 20, atoi(t, r.header.Get("Retry-After")), 1)
	assert.Equal(t, "3", r.header.Get("RateLimit-Limit"))
	assert.Equal(t, "0", r.header.Get("RateLimit-Remaining"))
	assert.Contains(t, r.message(), "3 per 1m0s")

	// Another key has its own bucket.
	other, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	assert.Equal(t, http.StatusOK, get(other.APIKey).status)

	// Twenty simulated seconds give one request back; a minute all of them.
	srv.Advance(20 * time.Second)
	assert.Equal(t, http.StatusOK, get(acct.APIKey).status)
	assert.Equal(t, http.StatusTooManyRequests, get(acct.APIKey).status)
	srv.Advance(time.Minute)
	for range 3 {
		assert.Equal(t, http.StatusOK, get(acct.APIKey).status)
	}
	assert.Equal(t, http.StatusTooManyRequests, get(acct.APIKey).status)

	// A limited request is journaled and logged as usage like any other.
	limited := srv.Requests(func(e *JournalEntry) bool { return e.Status == http.StatusTooManyRequests })
	assert.Len(t, limited, 3)
}

func TestRateLimitGroupsAreSeparate(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t, WithRateLimitScale(0.04)) // agent creates: 30 -> 1
	body := `{"business_id":"` + acct.BusinessID + `","name":"a","system_prompt":"b"}`
	r := rawDo(t, http.MethodPost, srv.URL+"/v1/agents", body, bearer(acct.APIKey)...)
	require.Equal(t, http.StatusCreated, r.status)
	assert.Equal(t, "1", r.header.Get("RateLimit-Limit"))
	r = rawDo(t, http.MethodPost, srv.URL+"/v1/agents", body, bearer(acct.APIKey)...)
	assert.Equal(t, http.StatusTooManyRequests, r.status)
	assert.InDelta(t, 60, atoi(t, r.header.Get("Retry-After")), 1)

	// Reads (300 -> 12) and updates (60 -> 2) are other buckets.
	r = rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...)
	assert.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, "12", r.header.Get("RateLimit-Limit"))
	r = rawDo(t, http.MethodPatch, srv.URL+"/v1/agents", `{"id":"`+acct.AgentID+`","name":"x"}`, bearer(acct.APIKey)...)
	assert.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, "2", r.header.Get("RateLimit-Limit"))
}

func TestRateLimitsCanBeSwitchedOffOrScaledUp(t *testing.T) {
	t.Parallel()
	off, acct := startWithAccount(t, WithRateLimits(false), WithRateLimitScale(0.001))
	for range 20 {
		r := rawDo(t, http.MethodGet, off.URL+"/v1/numbers", "", bearer(acct.APIKey)...)
		require.Equal(t, http.StatusOK, r.status)
		assert.Empty(t, r.header.Get("RateLimit-Limit"), "no limit, no headers")
	}

	def, acct := startWithAccount(t)
	r := rawDo(t, http.MethodGet, def.URL+"/v1/numbers", "", bearer(acct.APIKey)...)
	assert.Equal(t, "300", r.header.Get("RateLimit-Limit"))
	assert.Equal(t, "299", r.header.Get("RateLimit-Remaining"))

	up, acct := startWithAccount(t, WithRateLimitScale(2))
	r = rawDo(t, http.MethodGet, up.URL+"/v1/numbers", "", bearer(acct.APIKey)...)
	assert.Equal(t, "600", r.header.Get("RateLimit-Limit"))

	tiny, acct := startWithAccount(t, WithRateLimitScale(0.0001))
	r = rawDo(t, http.MethodGet, tiny.URL+"/v1/numbers", "", bearer(acct.APIKey)...)
	assert.Equal(t, "1", r.header.Get("RateLimit-Limit"), "a scaled limit is at least 1")
}

func TestTheAdminAPIIsNeverRateLimited(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithRateLimitScale(0.0001))
	for range 5 {
		r := rawDo(t, http.MethodGet, srv.AdminURL+"/clock", "")
		require.Equal(t, http.StatusOK, r.status)
		assert.Empty(t, r.header.Get("RateLimit-Limit"))
	}
}

// TestEveryRouteCountsAgainstItsLimit checks the rate limit the route table
// gives routes (wire.LimitFor of their method and path): the spec's groups,
// reads, and none for writes the spec gives no limit or the admin API.
func TestEveryRouteCountsAgainstItsLimit(t *testing.T) {
	t.Parallel()
	srv := New()
	defer srv.Close()
	limits := map[string]string{}
	for _, r := range srv.Routes() {
		limits[r.Method+" "+r.Path] = r.RateLimit
	}
	for _, tc := range []struct{ method, path, rule string }{
		{"POST", "/api/v1/signup", "signup"},
		{"POST", "/api/v1/calls", "calls.create"},
		{"POST", "/api/v1/agents", "agents.create"},
		{"PATCH", "/api/v1/agents", "agents.update"},
		{"POST", "/api/v1/sms/send", "sms.send"},
		{"GET", "/api/v1/analytics/funnel", "analytics"},
		{"GET", "/api/v1/transcripts", "transcripts"},
		{"GET", "/api/v1/calls", "reads"},
		{"GET", "/api/sdr/pipeline", "reads"},
		{"POST", "/api/v1/webhooks", ""},
		{"DELETE", "/api/v1/keys", ""},
		{"GET", "/_mock/requests", ""},
	} {
		rule, ok := limits[tc.method+" "+tc.path]
		require.True(t, ok, "no route %s %s", tc.method, tc.path)
		assert.Equal(t, tc.rule, rule, "%s %s", tc.method, tc.path)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	require.NoError(t, err, "%q", s)
	return n
}
