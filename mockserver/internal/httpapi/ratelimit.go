package httpapi

import (
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// limitRule is one rate limit of spec section 8.
type limitRule struct {
	Name   string
	Method string
	Path   string // exact, or a prefix when it ends with "/"; "" any path
	limit  int
	Window time.Duration
	PerIP  bool
}

// LimitRules are the limits of spec section 8, first match wins. Writes
// the spec gives no limit for are not limited.
var LimitRules = []limitRule{
	{"signup", http.MethodPost, "/api/v1/signup", 5, time.Hour, true},
	{"calls.create", http.MethodPost, "/api/v1/calls", 60, time.Minute, false},
	{"agents.create", http.MethodPost, "/api/v1/agents", 30, time.Minute, false},
	{"agents.update", http.MethodPatch, "/api/v1/agents", 60, time.Minute, false},
	{"sms.send", http.MethodPost, "/api/v1/sms/send", 60, time.Minute, false},
	{"analytics", http.MethodGet, "/api/v1/analytics/", 120, time.Minute, false},
	{"transcripts", http.MethodGet, "/api/v1/transcripts", 120, time.Minute, false},
	{"reads", http.MethodGet, "", 300, time.Minute, false},
}

// LimitRuleFor returns the rule limiting method and path, nil when none does.
func LimitRuleFor(method, path string) *limitRule {
	for i := range LimitRules {
		r := &LimitRules[i]
		if r.Method != method {
			continue
		}
		if r.Path == "" || r.Path == path || (strings.HasSuffix(r.Path, "/") && strings.HasPrefix(path, r.Path)) {
			return r
		}
	}
	return nil
}

// RateLimiter keeps one token bucket per rule and caller (key, session or,
// for signup, client IP): a bucket holds the rule's limit and refills over
// its window. Time is real time plus the simulated clock's advances.
type RateLimiter struct {
	On    bool
	scale float64
	now   func() time.Time

	Mu      sync.Mutex
	Buckets map[string]*rate.Limiter
}

// NewRateLimiter returns the limiter: on switches limits on, scale multiplies them, now is the time windows are measured on.
func NewRateLimiter(on bool, scale float64, now func() time.Time) *RateLimiter {
	if scale <= 0 {
		scale = 1
	}
	return &RateLimiter{On: on, scale: scale, now: now, Buckets: map[string]*rate.Limiter{}}
}

// Reset empties every bucket.
func (l *RateLimiter) Reset() {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	l.Buckets = map[string]*rate.Limiter{}
}

// LimitOf is a rule's limit after WithRateLimitScale (at least 1).
func (l *RateLimiter) LimitOf(r *limitRule) int {
	return max(int(math.Round(float64(r.limit)*l.scale)), 1)
}

// check takes a token for the request. It returns the RateLimit-* headers
// to add to the answer, or a 429 error carrying them and Retry-After.
func (l *RateLimiter) check(rc *Ctx) (http.Header, *Error) {
	if !l.On || rc.Route.Auth == AuthAdmin {
		return nil, nil
	}
	rule := LimitRuleFor(rc.Request.Method, rc.Request.URL.Path)
	if rule == nil {
		return nil, nil
	}
	var who string
	switch {
	case rule.PerIP || rc.Principal == nil:
		who = "ip:" + rc.ClientIP
	case rc.Principal.Key != nil:
		who = "key:" + rc.Principal.Key.ID
	default:
		who = "session:" + rc.Principal.Session.ID
	}
	limit := l.LimitOf(rule)
	every := rule.Window / time.Duration(limit)

	l.Mu.Lock()
	b := l.Buckets[rule.Name+"\x00"+who]
	if b == nil {
		b = rate.NewLimiter(rate.Every(every), limit)
		l.Buckets[rule.Name+"\x00"+who] = b
	}
	l.Mu.Unlock()

	now := l.now()
	allowed := b.AllowN(now, 1)
	tokens := b.TokensAt(now)
	h := http.Header{}
	h.Set("RateLimit-Limit", strconv.Itoa(limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(max(int(math.Floor(tokens)), 0)))
	h.Set("RateLimit-Reset", strconv.Itoa(int(math.Ceil((float64(limit)-tokens)*every.Seconds()))))
	if allowed {
		return h, nil
	}
	wait := max(int(math.Ceil((1-tokens)*every.Seconds())), 1)
	h.Set("Retry-After", strconv.Itoa(wait))
	e := NewError(http.StatusTooManyRequests, CodeRateLimited,
		"too many requests: the limit is "+strconv.Itoa(limit)+" per "+rule.Window.String()+"; retry after "+strconv.Itoa(wait)+"s")
	e.Header = h
	return nil, e
}
