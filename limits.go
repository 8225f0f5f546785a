package voiceagent

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// rateRule is one endpoint group of the API's section 8 limits.
type rateRule struct {
	method    string
	path      string // exact path, or a prefix when it ends with "/"
	perMinute int
}

// clientRules mirror the platform's per-key limits. Signup (5 per hour per
// IP) is left to the server: blocking a program for twelve minutes is worse
// than the server's clear 429 with Retry-After.
var clientRules = []rateRule{
	{http.MethodPost, "/v1/calls", 60},
	{http.MethodPost, "/v1/agents", 30},
	{http.MethodPatch, "/v1/agents", 60},
	{http.MethodPost, "/v1/sms/send", 60},
	{http.MethodGet, "/v1/analytics/", 120},
	{http.MethodGet, "/v1/transcripts", 120},
	{http.MethodGet, "", 300}, // every other GET
}

func ruleFor(method, path string) (rateRule, bool) {
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	for _, r := range clientRules {
		if r.method != method {
			continue
		}
		switch {
		case r.path == "", r.path == path, strings.HasSuffix(r.path, "/") && strings.HasPrefix(path, r.path):
			return r, true
		}
	}
	return rateRule{}, false
}

// limiterKey names one bucket: an endpoint group of one API key (the
// platform counts per key, and a call may override the client's key).
type limiterKey struct {
	rule rateRule
	key  string
}

// clientLimits holds one token bucket per endpoint group and key, each
// allowing the group's per-minute limit as a burst and refilling at the same
// rate.
type clientLimits struct {
	mu       sync.Mutex
	limiters map[limiterKey]*rate.Limiter
}

func newClientLimits() *clientLimits {
	return &clientLimits{limiters: map[limiterKey]*rate.Limiter{}}
}

// limiter returns the bucket of a group and key, creating it full.
func (l *clientLimits) limiter(rule rateRule, apiKey string) *rate.Limiter {
	k := limiterKey{rule, apiKey}
	l.mu.Lock()
	defer l.mu.Unlock()
	lim := l.limiters[k]
	if lim == nil {
		lim = rate.NewLimiter(rate.Every(time.Minute/time.Duration(rule.perMinute)), rule.perMinute)
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
