package httpapi

import (
	"math"
	"net/http"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"

	"github.com/voiceagent/voiceagent-go/internal/wire"
)

// RateLimiter keeps one token bucket per rule and caller (key, session or,
// for signup, client IP): a bucket holds the rule's limit and refills over
// its window. Time is real time plus the advances of the caller's tenant's
// clock.
type RateLimiter struct {
	On    bool
	scale float64
	now   func(tenant string) time.Time

	Mu      sync.Mutex
	Buckets map[string]*rate.Limiter
}

// newRateLimiter returns the limiter: on switches limits on, scale
// multiplies them, now is the time a tenant's windows are measured on.
func newRateLimiter(on bool, scale float64, now func(tenant string) time.Time) *RateLimiter {
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

// LimitOf is a limit's count after WithRateLimitScale (at least 1).
func (l *RateLimiter) LimitOf(r *wire.Limit) int {
	return max(int(math.Round(float64(r.Max)*l.scale)), 1)
}

// check takes a token for the request. It returns the RateLimit-* headers
// to add to the response, or a 429 error carrying them and Retry-After.
func (l *RateLimiter) check(rc *Ctx) (http.Header, *Error) {
	if !l.On || rc.Route.Auth == AuthAdmin {
		return nil, nil
	}
	rule := rc.Route.Limit
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

	now := l.now(rc.Tenant)
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
	e := NewError(http.StatusTooManyRequests, wire.CodeRateLimited,
		"too many requests: the limit is "+strconv.Itoa(limit)+" per "+rule.Window.String()+"; retry after "+strconv.Itoa(wait)+"s")
	e.Header = h
	return nil, e
}
