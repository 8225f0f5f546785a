package voiceagent

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/voiceagent/voiceagent-go/internal/wire"
)

// ruleFor returns the limit of the API's section 8 (wire.Limits) that the
// client holds a request to. Only the per-key limits apply client-side:
// signup (5 per hour per IP) is left to the server, since blocking a program
// for twelve minutes is worse than the server's clear 429 with Retry-After.
func ruleFor(method, path string) (wire.Limit, bool) {
	l, ok := wire.LimitFor(method, path)
	if !ok || l.PerIP {
		return wire.Limit{}, false
	}
	return l, true
}

// limiterKey names one bucket: an endpoint group of one API key (the
// platform counts per key, and a call may override the client's key).
type limiterKey struct {
	rule wire.Limit
	key  string
}

// clientLimits holds one token bucket per endpoint group and key, each
// allowing the group's limit (Max per Window) as a burst and refilling at
// the same rate.
type clientLimits struct {
	mu       sync.Mutex
	limiters map[limiterKey]*rate.Limiter
}

func newClientLimits() *clientLimits {
	return &clientLimits{limiters: map[limiterKey]*rate.Limiter{}}
}

// limiter returns the bucket of a group and key, creating it full.
func (l *clientLimits) limiter(rule wire.Limit, apiKey string) *rate.Limiter {
	k := limiterKey{rule, apiKey}
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := l.limiters[k]
	if lim == nil {
		lim = rate.NewLimiter(rate.Every(rule.Window/time.Duration(rule.Max)), rule.Max)
		l.limiters[k] = lim
	}
	return lim
}

// wait blocks until the request's group has a slot for the key, or ctx
// ends (at once when ctx's deadline comes before the slot).
func (l *clientLimits) wait(ctx context.Context, apiKey, method, path string) error {
	rule, ok := ruleFor(method, path)
	if !ok {
		return nil
	}
	return l.limiter(rule, apiKey).Wait(ctx)
}
