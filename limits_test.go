package voiceagent

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
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
		assert.Equal(t, tc.perMinute, r.perMinute, "%s %s", tc.method, tc.path)
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
