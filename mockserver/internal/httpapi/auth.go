package httpapi

import (
	"crypto/sha256"
	"crypto/subtle"
	"math"
	"net/http"
	"net/netip"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/time/rate"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/internal/wire"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// KeyPrefix starts every API key; a key is the prefix and 40 base62
// characters. A key's shown prefix is its first KeyShownLen characters; a
// dashboard session travels in the cookie SessionCookie.
const (
	KeyPrefix     = "voiceagent_live_"
	KeyRandomLen  = 40
	KeyShownLen   = 20 // a key's "prefix" field: its first 20 characters
	SessionCookie = "voiceagent_session"
)

// Principal is who is calling, as authentication found it: a key, or a
// dashboard session, and the actor the operations act for (its user, the
// scopes it holds, the businesses it reaches and its tenant; Has and
// Reaches are the actor's).
type Principal struct {
	domain.Actor
	User    *store.User
	Key     *store.APIKey  // nil for a session
	Session *store.Session // nil for a key
}

// OwnerID is the id idempotency keys, usage and rate limits are kept under.
func (p *Principal) OwnerID() string { return p.User.ID }

// ScopeReq is a scope requirement: one scope, or allOf/anyOf of others.
type ScopeReq interface {
	Met(by *domain.Actor) bool
	String() string
}

// Scope is a requirement of one scope.
type Scope string

// Met reports whether the caller holds the scope.
func (s Scope) Met(by *domain.Actor) bool { return by.Has(voiceagent.Scope(s)) }

// String is the scope's name.
func (s Scope) String() string { return string(s) }

// AllOfReq is met when every one of its requirements is.
type AllOfReq []ScopeReq

// Met reports whether every requirement is met.
func (a AllOfReq) Met(by *domain.Actor) bool {
	for _, r := range a {
		if !r.Met(by) {
			return false
		}
	}
	return true
}

// String joins the requirements with "and".
func (a AllOfReq) String() string { return joinReqs(a, " and ") }

// AnyOfReq is met when one of its requirements is.
type AnyOfReq []ScopeReq

// Met reports whether one requirement is met.
func (a AnyOfReq) Met(by *domain.Actor) bool {
	for _, r := range a {
		if r.Met(by) {
			return true
		}
	}
	return false
}

// String joins the requirements with "or", in parentheses.
func (a AnyOfReq) String() string { return "(" + joinReqs(a, " or ") + ")" }

// AllOf is a requirement met when all of r are.
func AllOf(r ...ScopeReq) ScopeReq { return AllOfReq(r) }

// AnyOf is a requirement met when one of r is.
func AnyOf(r ...ScopeReq) ScopeReq { return AnyOfReq(r) }

func joinReqs(rs []ScopeReq, sep string) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, sep)
}

// HashKey is how keys are kept at rest.
func HashKey(key string) [32]byte { return sha256.Sum256([]byte(key)) }

// authenticate is the one auth check: it resolves the caller for the
// route's auth mode and checks the route's scope requirement.
func (s *API) authenticate(rc *Ctx) error {
	mode := rc.Route.Auth
	if mode == AuthNone || mode == AuthAdmin {
		return nil
	}
	tx := s.ReadTx()
	defer tx.End()
	var p *Principal
	if mode != AuthSession {
		if h := rc.Request.Header.Get("Authorization"); h != "" {
			var apiErr error
			if p, apiErr = s.keyPrincipal(tx, h); apiErr != nil {
				return apiErr
			}
			p.Tenant = principalTenant(tx, p)
			now := s.Clocks.Now(p.Tenant)
			if apiErr := p.keyExpired(now); apiErr != nil {
				return apiErr
			}
			rc.Tenant, rc.Now = p.Tenant, now
		}
	}
	if p == nil && mode != AuthKey {
		if c, err := rc.Request.Cookie(SessionCookie); err == nil {
			if p = s.sessionPrincipal(tx, c.Value); p != nil {
				p.Tenant = principalTenant(tx, p)
				if now := s.Clocks.Now(p.Tenant); now.Before(p.Session.ExpiresAt) {
					rc.Tenant, rc.Now = p.Tenant, now
				} else {
					p = nil // expired on its tenant's clock
				}
			}
		}
	}
	if p == nil {
		switch mode {
		case AuthSession:
			if rc.Request.Header.Get("Authorization") != "" {
				return domain.Unauthorized("this endpoint needs a signed-in dashboard session; a bearer key cannot manage keys")
			}
			return domain.Unauthorized("missing or expired dashboard session")
		default:
			return domain.Unauthorized("missing API key: send Authorization: Bearer <API_KEY>")
		}
	}
	rc.Principal = p
	if req := rc.Route.Scope; req != nil && p.Key != nil && !req.Met(&p.Actor) {
		return domain.Forbidden("this key lacks the scope " + req.String())
	}
	return nil
}

func (s *API) keyPrincipal(tx *platform.Tx, header string) (*Principal, error) {
	// The scheme is case-insensitive (RFC 9110 section 11.1).
	scheme, raw, ok := strings.Cut(header, " ")
	raw = strings.TrimSpace(raw)
	if !ok || !strings.EqualFold(scheme, "Bearer") || !strings.HasPrefix(raw, KeyPrefix) {
		return nil, domain.Unauthorized("invalid API key")
	}
	sum := HashKey(raw)
	k, found := tx.KeysByHash[sum]
	if !found || subtle.ConstantTimeCompare(k.Hash[:], sum[:]) != 1 {
		return nil, domain.Unauthorized("invalid API key")
	}
	if !k.Active {
		return nil, domain.Unauthorized("this API key has been revoked")
	}
	u, ok := tx.Users.Get(k.Owner)
	if !ok {
		return nil, domain.Unauthorized("the key's account no longer exists")
	}
	p := &Principal{User: u, Key: k, Actor: domain.Actor{UserID: u.ID, KeyID: k.ID, Scopes: k.Scopes}}
	switch {
	case k.PartnerID != "":
		p.Businesses = tx.BusinessesOfPartner(k.PartnerID)
		if k.BusinessID != "" {
			p.Businesses = intersect(p.Businesses, k.BusinessID)
		}
	case k.BusinessID != "":
		p.Businesses = intersect(tx.BusinessesOf(u.ID), k.BusinessID)
	default:
		p.Businesses = tx.BusinessesOf(u.ID)
	}
	p.Businesses = readOnly(p.Businesses)
	return p, nil
}

// keyExpired checks a key's expiry on its tenant's time now, and marks
// the key used.
func (p *Principal) keyExpired(now time.Time) error {
	k := p.Key
	if k.ExpiresAt != nil && !now.Before(*k.ExpiresAt) {
		return domain.Unauthorized("this API key has expired")
	}
	k.LastUsed.Store(now.UnixNano())
	return nil
}

// principalTenant is the tenant a caller acts in: that of the first
// business it has access to, else of its user's first business ("" when it has
// none).
func principalTenant(tx *platform.Tx, p *Principal) string {
	if len(p.Businesses) > 0 {
		return tx.TenantOf(p.Businesses[0])
	}
	if bs := tx.BusinessesOf(p.User.ID); len(bs) > 0 {
		return tx.TenantOf(bs[0])
	}
	return ""
}

func (s *API) sessionPrincipal(tx *platform.Tx, token string) *Principal {
	sess, ok := tx.SessionsByToken[token]
	if !ok {
		return nil
	}
	u, ok := tx.Users.Get(sess.Owner)
	if !ok {
		return nil
	}
	return &Principal{User: u, Session: sess,
		Actor: domain.Actor{UserID: u.ID, SessionID: sess.ID, Businesses: readOnly(tx.BusinessesOf(u.ID))}}
}

// intersect is the part of ids that is only: a slice of ids, or nil.
func intersect(ids []string, only string) []string {
	if i := slices.Index(ids, only); i >= 0 {
		return ids[i : i+1]
	}
	return nil
}

// readOnly is a store's list of business ids as a Principal keeps it:
// the store's own slice, which the store never changes in place (it
// appends past its end, or makes a new one), capped at its length so
// that an append to it copies rather than writing into the store's.
func readOnly(ids []string) []string { return ids[:len(ids):len(ids)] }

// Actor returns the actor of the request's caller, for the operations a
// handler calls: nil on a route that authenticates nobody.
func (rc *Ctx) Actor() *domain.Actor {
	if rc.Principal == nil {
		return nil
	}
	return &rc.Principal.Actor
}

// Business returns a business the caller has access to: 404 when it does
// not exist, 403 when the caller has no access to it.
func (rc *Ctx) Business(id string) (*store.Business, error) {
	b, ok := rc.Tx.Businesses.Get(id)
	if !ok {
		return nil, domain.NotFound("business not found: " + id)
	}
	if rc.Principal == nil || !rc.Principal.Reaches(id) {
		return nil, domain.Forbidden("this key has no access to business " + id)
	}
	return b, nil
}

// ScopedBusinesses returns the businesses a list reads: all the caller
// has access to, or the one named by the business_id query parameter.
func (rc *Ctx) ScopedBusinesses() ([]string, error) {
	if id := rc.Query("business_id"); id != "" {
		if _, err := rc.Business(id); err != nil {
			return nil, err
		}
		return []string{id}, nil
	}
	return rc.Principal.Businesses, nil
}

// RateLimiter keeps one counter per rule and caller (Buckets). Most are
// token buckets: a bucket holds the rule's limit and refills over its
// window. A rule counted per client IP (wire.Limit.PerIP: signup's, spec
// section 8) counts the attempts of a window that starts with the first
// of them instead: past the limit the attempt is refused and the address
// waits a whole window from that refusal, no attempt given back sooner.
// Time is real time plus the advances of the caller's tenant's clock (the
// base clock for signup, which has no tenant).
type RateLimiter struct {
	On    bool
	scale float64
	now   func(tenant string) time.Time

	Mu sync.Mutex
	// Buckets are the counters by rule name + "\x00" + caller: "key:" and
	// a key's id, "session:" and a session's id, "ip:" and a client IP.
	Buckets map[string]*RateCounter
}

// RateCounter is the count of one rule and caller: a token bucket, or for
// a rule counted per client IP the attempts of its window and the end of
// its wait.
type RateCounter struct {
	tokens *rate.Limiter // nil for a rule counted per client IP
	start  time.Time     // the window's first attempt
	n      int           // attempts counted in the window
	until  time.Time     // refused until then (after a 429); zero: not
}

// newRateLimiter returns the limiter: on switches limits on, scale
// multiplies them, now is the time a tenant's windows are measured on.
func newRateLimiter(on bool, scale float64, now func(tenant string) time.Time) *RateLimiter {
	if scale <= 0 {
		scale = 1
	}
	return &RateLimiter{On: on, scale: scale, now: now, Buckets: map[string]*RateCounter{}}
}

// Reset empties every bucket.
func (l *RateLimiter) Reset() {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	l.Buckets = map[string]*RateCounter{}
}

// Clear drops the counters of the callers in who ("key:<id>",
// "session:<id>", "ip:<address>"), every rule's, and returns how many it
// dropped.
func (l *RateLimiter) Clear(who map[string]bool) int {
	l.Mu.Lock()
	defer l.Mu.Unlock()
	n := 0
	for k := range l.Buckets {
		if _, caller, _ := strings.Cut(k, "\x00"); who[caller] {
			delete(l.Buckets, k)
			n++
		}
	}
	return n
}

// IPCaller is the caller a rate limit counted per client IP counts
// address as: "ip:" and the address in its canonical form (address as it
// is when it is no IP address).
func IPCaller(address string) string {
	if a, err := netip.ParseAddr(address); err == nil {
		return "ip:" + a.Unmap().String()
	}
	return "ip:" + address
}

// TenantCallers returns the callers of tenant's rate-limit counters: its
// keys ("key:<id>") and its users' sessions ("session:<id>").
func TenantCallers(tx *platform.Tx, tenant string) map[string]bool {
	recs := tx.Records(tenant)
	who := map[string]bool{}
	for _, k := range recs["keys"] {
		who["key:"+k.RecordID()] = true
	}
	for _, sess := range recs["sessions"] {
		who["session:"+sess.RecordID()] = true
	}
	return who
}

// LimitOf is a limit's count after WithRateLimitScale (at least 1).
func (l *RateLimiter) LimitOf(r *wire.Limit) int {
	return max(int(math.Round(float64(r.Max)*l.scale)), 1)
}

// check counts the request. It returns the RateLimit-* headers to add to
// the response, or a 429 error carrying them and Retry-After, naming the
// route and how its limit is counted.
func (l *RateLimiter) check(rc *Ctx) (http.Header, *Error) {
	if !l.On || rc.Route.Auth == AuthAdmin {
		return nil, nil
	}
	rule := rc.Route.Limit
	if rule == nil {
		return nil, nil
	}
	var who, per string
	switch {
	case rule.PerIP || rc.Principal == nil:
		who, per = IPCaller(rc.ClientIP), "client IP"
	case rc.Principal.Key != nil:
		who, per = "key:"+rc.Principal.Key.ID, "key"
	default:
		who, per = "session:"+rc.Principal.Session.ID, "session"
	}
	limit := l.LimitOf(rule)
	now := l.now(rc.Tenant)

	l.Mu.Lock()
	c := l.Buckets[rule.Name+"\x00"+who]
	if c == nil {
		c = &RateCounter{}
		if !rule.PerIP {
			c.tokens = rate.NewLimiter(rate.Every(rule.Window/time.Duration(limit)), limit)
		}
		l.Buckets[rule.Name+"\x00"+who] = c
	}
	allowed, remaining, reset, wait := c.take(now, limit, rule.Window)
	l.Mu.Unlock()

	h := http.Header{}
	h.Set("RateLimit-Limit", strconv.Itoa(limit))
	h.Set("RateLimit-Remaining", strconv.Itoa(remaining))
	h.Set("RateLimit-Reset", strconv.Itoa(reset))
	if allowed {
		return h, nil
	}
	h.Set("Retry-After", strconv.Itoa(wait))
	e := newError(http.StatusTooManyRequests, voiceagent.CodeRateLimited,
		"too many requests to "+rc.Route.Method+" "+rc.Route.Path+": the limit is "+strconv.Itoa(limit)+" per "+rule.Window.String()+
			", counted per "+per+"; retry after "+strconv.Itoa(wait)+"s")
	e.Header = h
	return nil, e
}

// take counts an attempt at now against a limit of limit per window. It
// reports whether it is allowed, the attempts left, the seconds until the
// count is whole again (RateLimit-Reset) and, for a refused attempt, the
// seconds to wait (Retry-After).
func (c *RateCounter) take(now time.Time, limit int, window time.Duration) (allowed bool, remaining, reset, wait int) {
	secs := func(d time.Duration) int { return max(int(math.Ceil(d.Seconds())), 1) }
	if c.tokens != nil {
		every := window / time.Duration(limit)
		allowed = c.tokens.AllowN(now, 1)
		tokens := c.tokens.TokensAt(now)
		remaining = max(int(math.Floor(tokens)), 0)
		reset = int(math.Ceil((float64(limit) - tokens) * every.Seconds()))
		return allowed, remaining, reset, max(int(math.Ceil((1-tokens)*every.Seconds())), 1)
	}
	if !c.until.IsZero() {
		if now.Before(c.until) {
			wait = secs(c.until.Sub(now))
			return false, 0, wait, wait
		}
		*c = RateCounter{} // the wait is over: a whole count again
	}
	if c.n == 0 || !now.Before(c.start.Add(window)) {
		c.start, c.n = now, 0
	}
	if c.n < limit {
		c.n++
		return true, limit - c.n, secs(c.start.Add(window).Sub(now)), 0
	}
	c.until = now.Add(window)
	wait = secs(window)
	return false, 0, wait, wait
}
