package voiceagent

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"

	"github.com/voiceagent/voiceagent-go/internal/wire"
)

func TestRuleForGroupsEndpointsAsTheAPIDoes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		method, path string
		perMinute    int // 0: not limited client-side
	}{
		{http.MethodPost, "/v1/calls", 60},
		{http.MethodPost, "/v1/agents", 30},
		{http.MethodPatch, "/v1/agents", 60},
		{http.MethodPost, "/v1/sms/send", 60},
		{http.MethodGet, "/v1/analytics/dashboard", 120},
		{http.MethodGet, "/v1/analytics/calls?days=7", 120},
		{http.MethodGet, "/v1/transcripts", 120},
		{http.MethodGet, "/v1/transcripts?limit=5", 120},
		{http.MethodGet, "/v1/agents", 300},
		{http.MethodGet, "/v1/agents?id=x", 300},
		{http.MethodGet, "/v1/analytics", 300}, // not under /v1/analytics/
		{http.MethodGet, "/sdr/pipeline", 300},
		{http.MethodPost, "/v1/signup", 0}, // left to the server (5 per hour per IP)
		{http.MethodPost, "/v1/sms/update-prompt", 0},
		{http.MethodDelete, "/v1/keys", 0},
		{http.MethodPut, "/sdr/config", 0},
	} {
		r, ok := ruleFor(tc.method, tc.path)
		if tc.perMinute == 0 {
			assert.False(t, ok, "%s %s", tc.method, tc.path)
			continue
		}
		require.True(t, ok, "%s %s", tc.method, tc.path)
		assert.Equal(t, tc.perMinute, r.Max, "%s %s", tc.method, tc.path)
		assert.Equal(t, time.Minute, r.Window, "%s %s", tc.method, tc.path)
	}
}

// TestClientRulesAreThePerKeyLimitsOfWire keeps the client-side limiter and
// the shared table together: a request on the path of each per-key limit of
// wire.Limits is held to exactly that limit, a per-IP limit (signup) is
// never held client-side, and no request is held to anything else.
func TestClientRulesAreThePerKeyLimitsOfWire(t *testing.T) {
	t.Parallel()
	perKey := map[wire.Limit]bool{}
	for i, l := range wire.Limits {
		path := l.Path
		switch {
		case path == "":
			path = "/v1/not-a-group-" + strconv.Itoa(i)
		case strings.HasSuffix(path, "/"):
			path += "x"
		}
		r, ok := ruleFor(l.Method, path+"?q=1")
		if l.PerIP {
			assert.False(t, ok, "%s (per IP) is held client-side as %+v", l.Name, r)
			continue
		}
		perKey[l] = true
		if assert.True(t, ok, "%s is not held client-side", l.Name) {
			assert.Equal(t, l, r, "%s %s", l.Method, path)
		}
	}
	assert.NotEmpty(t, perKey)

	// Whatever request ruleFor holds, it holds to one of those limits.
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPatch, http.MethodPut, http.MethodDelete} {
		for _, p := range []string{"/v1/signup", "/v1/calls", "/v1/agents", "/v1/agents/persona", "/v1/sms/send",
			"/v1/analytics/dashboard", "/v1/transcripts", "/v1/keys", "/sdr/config", "/v1/leads?limit=5"} {
			if r, ok := ruleFor(m, p); ok {
				assert.True(t, perKey[r], "%s %s is held to %+v, not a per-key limit of wire.Limits", m, p, r)
			}
		}
	}
}

func TestClientLimitsKeepOneFullBucketPerGroupAndKey(t *testing.T) {
	t.Parallel()
	l := newClientLimits()
	calls, _ := ruleFor(http.MethodPost, "/v1/calls")
	a := l.limiter(calls, "key-a")
	assert.Same(t, a, l.limiter(calls, "key-a"))
	assert.NotSame(t, a, l.limiter(calls, "key-b"), "keys are limited separately")
	reads, _ := ruleFor(http.MethodGet, "/v1/agents")
	assert.NotSame(t, a, l.limiter(reads, "key-a"), "groups are limited separately")
	assert.Equal(t, 60, a.Burst())
	assert.InDelta(t, 1.0, float64(a.Limit()), 1e-9, "60 per minute refill one per second")

	// A full bucket lets the group's whole minute through without waiting.
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	for i := range 60 {
		require.NoError(t, l.wait(ctx, "key-c", http.MethodPost, "/v1/calls"), "call %d", i)
	}
	assert.Error(t, l.wait(ctx, "key-c", http.MethodPost, "/v1/calls"), "the 61st call would have to wait past the deadline")
	assert.NoError(t, l.wait(ctx, "key-c", http.MethodPost, "/v1/signup"), "ungrouped endpoints never wait")
}

// tinyBudget replaces a group's bucket of the backend's key with one slot
// refilled once an hour.
func tinyBudget(b *Backend, method, path string) {
	rule, _ := ruleFor(method, path)
	b.limits.mu.Lock()
	b.limits.limiters[limiterKey{rule, b.cfg.APIKey}] = rate.NewLimiter(rate.Every(time.Hour), 1)
	b.limits.mu.Unlock()
}

func TestAnExhaustedClientLimitHoldsTheCallAndRespectsTheContext(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, ok200)
	b := f.backend(WithRateLimiting(true))
	tinyBudget(b, http.MethodGet, "/v1/agents")
	ctx := context.Background()
	require.NoError(t, b.Do(ctx, http.MethodGet, "/v1/agents", nil, nil, nil))

	// The next slot is an hour away: a deadline sooner than that fails at once.
	dctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	err := b.Do(dctx, http.MethodGet, "/v1/agents", nil, nil, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "client-side rate limit")
	assert.Equal(t, 1, f.calls(), "the held call never reached the API")

	// Without a deadline the call waits until the context is cancelled.
	cctx, cancelWait := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- b.Do(cctx, http.MethodGet, "/v1/agents", nil, nil, nil) }()
	cancelWait()
	require.ErrorIs(t, <-done, context.Canceled)
	assert.Equal(t, 1, f.calls())

	// Other groups, other keys and WithRateLimiting(false) are not held.
	require.NoError(t, b.Do(dctx, http.MethodGet, "/v1/transcripts", nil, nil, nil))
	require.NoError(t, b.Do(dctx, http.MethodGet, "/v1/agents", nil, nil, nil, WithAPIKey("voiceagent_live_someone_else")))
	require.NoError(t, b.Do(dctx, http.MethodGet, "/v1/agents", nil, nil, nil, WithRateLimiting(false)))
	assert.Equal(t, 4, f.calls())
}

func TestAClientLimitWithBudgetLetsCallsThrough(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, ok200)
	b := f.backend(WithRateLimiting(true))
	rule, _ := ruleFor(http.MethodPost, "/v1/agents")
	b.limits.mu.Lock()
	b.limits.limiters[limiterKey{rule, testKey}] = rate.NewLimiter(rate.Every(time.Millisecond), 1)
	b.limits.mu.Unlock()
	for range 3 { // the second and third wait about a millisecond each
		require.NoError(t, b.Do(context.Background(), http.MethodPost, "/v1/agents", nil, nil, nil))
	}
	assert.Equal(t, 3, f.calls())
}
