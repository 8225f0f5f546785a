package mockserver

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
	name   string
	method string
	path   string // exact, or a prefix when it ends with "/"; "" any path
	limit  int
	window time.Duration
	perIP  bool
}

// limitRules are the limits of spec section 8, first match wins. Writes
// the spec gives no limit for are not limited.
var limitRules = []limitRule{
	{"signup", http.MethodPost, "/api/v1/signup", 5, time.Hour, true},
	{"calls.create", http.MethodPost, "/api/v1/calls", 60, time.Minute, false},
	{"agents.create", http.MethodPost, "/api/v1/agents", 30, time.Minute, false},
	{"agents.update", http.MethodPatch, "/api/v1/agents", 60, time.Minute, false},
	{"sms.send", http.MethodPost, "/api/v1/sms/send", 60, time.Minute, false},
	{"analytics", http.MethodGet, "/api/v1/analytics/", 120, time.Minute, false},
	{"transcripts", http.MethodGet, "/api/v1/transcripts", 120, time.Minute, false},
	{"reads", http.MethodGet, "", 300, time.Minute, false},
}

func limitRuleFor(method, path string) *limitRule {
	for i := range limitRules {
		r := &limitRules[i]
		if r.method != method {
			continue
		}
		if r.path == "" || r.path == path || (strings.HasSuffix(r.path, "/") && strings.HasPrefix(path, r.path)) {
			return r
		}
	}
	return nil
}

// rateLimiter keeps one token bucket per rule and caller (key, session or,
// for signup, client IP): a bucket holds the rule's limit and refills over
// its window. Time is real time plus the simulated clock's advances.
type rateLimiter struct {
	on    bool
	scale float64
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*rate.Limiter
}

func newRateLimiter(on bool, scale float64, now func() time.Time) *rateLimiter {
	if scale <= 0 {
		scale = 1
	}
	return &rateLimiter{on: on, scale: scale, now: now, buckets: map[string]*rate.Limiter{}}
}

func (l *rateLimiter) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buckets = map[string]*rate.Limiter{}
}

// limitOf is a rule's limit after WithRateLimitScale (at least 1).
func (l *rateLimiter) limitOf(r *limitRule) int {
	return max(int(math.Round(float64(r.limit)*l.scale)), 1)
}

// check takes a token for the request. It returns the RateLimit-* headers
// to add to the answer, or a 429 error carrying them and Retry-After.
func (l *rateLimiter) check(rc *reqCtx) (http.Header, *apiError) {
	if !l.on || rc.route.auth == authAdmin {
		return nil, nil
	}
	rule := limitRuleFor(rc.r.Method, rc.r.URL.Path)
	if rule == nil {
		return nil, nil
	}
	var who string
	switch {
	case rule.perIP || rc.p == nil:
		who = "ip:" + rc.clientIP
	case rc.p.key != nil:
		who = "key:" + rc.p.key.ID
	default:
		who = "session:" + rc.p.session.ID
	}
	limit := l.limitOf(rule)
	every := rule.window / time.Duration(limit)

	l.mu.Lock()
	b := l.buckets[rule.name+"\x00"+who]
	if b == nil {
		b = rate.NewLimiter(rate.Every(every), limit)
		l.buckets[rule.name+"\x00"+who] = b
	}
	l.mu.Unlock()

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
	e := newError(http.StatusTooManyRequests, codeRateLimited,
		"too many requests: the limit is "+strconv.Itoa(limit)+" per "+rule.window.String()+"; retry after "+strconv.Itoa(wait)+"s")
	e.header = h
	return nil, e
}
