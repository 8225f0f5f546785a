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

// clientLimits holds one token bucket per endpoint group, each allowing the
// group's per-minute limit as a burst and refilling at the same rate.
type clientLimits struct {
	mu       sync.Mutex
	limiters map[rateRule]*rate.Limiter
}

func newClientLimits() *clientLimits {
	return &clientLimits{limiters: map[rateRule]*rate.Limiter{}}
}

func (l *clientLimits) wait(ctx context.Context, method, path string) error {
	rule, ok := ruleFor(method, path)
	if !ok {
		return nil
	}
	l.mu.Lock()
	lim := l.limiters[rule]
	if lim == nil {
		lim = rate.NewLimiter(rate.Every(time.Minute/time.Duration(rule.perMinute)), rule.perMinute)
		l.limiters[rule] = lim
	}
	l.mu.Unlock()
	return lim.Wait(ctx)
}
