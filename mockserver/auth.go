package mockserver

import (
	"crypto/sha256"
	"crypto/subtle"
	"slices"
	"strings"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// keyPrefix starts every API key; a key is the prefix and 40 base62 characters.
const (
	keyPrefix     = "voiceagent_live_"
	keyRandomLen  = 40
	keyShownLen   = 20 // a key's "prefix" field: its first 20 characters
	sessionCookie = "voiceagent_session"
	scopeWildcard = "*"
)

// principal is who is calling: a key, or a dashboard session, and the
// businesses the caller reaches.
type principal struct {
	user    *store.User
	key     *store.APIKey  // nil for a session
	session *store.Session // nil for a key
	// businesses are the ids the caller reaches, oldest first.
	businesses []string
}

// ownerID is the id idempotency keys, usage and rate limits are kept under.
func (p *principal) ownerID() string { return p.user.ID }

// has reports whether the caller holds a scope. Sessions act as the user and
// hold every scope.
func (p *principal) has(scope string) bool {
	if p.key == nil {
		return true
	}
	return slices.Contains(p.key.Scopes, scope) || slices.Contains(p.key.Scopes, scopeWildcard)
}

// reaches reports whether the caller may act on a business.
func (p *principal) reaches(businessID string) bool {
	return slices.Contains(p.businesses, businessID)
}

// scopeReq is a scope requirement: one scope, or allOf/anyOf of others.
type scopeReq interface {
	met(p *principal) bool
	String() string
}

type scope string

func (s scope) met(p *principal) bool { return p.has(string(s)) }
func (s scope) String() string        { return string(s) }

type allOfReq []scopeReq

func (a allOfReq) met(p *principal) bool {
	for _, r := range a {
		if !r.met(p) {
			return false
		}
	}
	return true
}
func (a allOfReq) String() string { return joinReqs(a, " and ") }

type anyOfReq []scopeReq

func (a anyOfReq) met(p *principal) bool {
	for _, r := range a {
		if r.met(p) {
			return true
		}
	}
	return false
}
func (a anyOfReq) String() string { return "(" + joinReqs(a, " or ") + ")" }

func allOf(r ...scopeReq) scopeReq { return allOfReq(r) }
func anyOf(r ...scopeReq) scopeReq { return anyOfReq(r) }

func joinReqs(rs []scopeReq, sep string) string {
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = r.String()
	}
	return strings.Join(parts, sep)
}

// hashKey is how keys are kept at rest.
func hashKey(key string) [32]byte { return sha256.Sum256([]byte(key)) }

// authenticate is the one auth check: it resolves the caller for the
// route's auth mode and checks the route's scope requirement.
func (s *Server) authenticate(rc *reqCtx) *apiError {
	mode := rc.route.auth
	if mode == authNone || mode == authAdmin {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	st := s.st
	var p *principal
	if mode != authSession {
		if h := rc.r.Header.Get("Authorization"); h != "" {
			var apiErr *apiError
			if p, apiErr = s.keyPrincipal(st, rc, h); apiErr != nil {
				return apiErr
			}
		}
	}
	if p == nil && mode != authKey {
		if c, err := rc.r.Cookie(sessionCookie); err == nil {
			p = s.sessionPrincipal(st, rc, c.Value)
		}
	}
	if p == nil {
		switch mode {
		case authSession:
			if rc.r.Header.Get("Authorization") != "" {
				return errUnauthorized("this endpoint needs a signed-in dashboard session; a bearer key cannot manage keys")
			}
			return errUnauthorized("missing or expired dashboard session")
		default:
			return errUnauthorized("missing API key: send Authorization: Bearer <API_KEY>")
		}
	}
	rc.p = p
	if req := rc.route.scope; req != nil && p.key != nil && !req.met(p) {
		return errForbidden("this key lacks the scope " + req.String())
	}
	return nil
}

func (s *Server) keyPrincipal(st *store.Store, rc *reqCtx, header string) (*principal, *apiError) {
	// The scheme is case-insensitive (RFC 9110 section 11.1).
	scheme, raw, ok := strings.Cut(header, " ")
	raw = strings.TrimSpace(raw)
	if !ok || !strings.EqualFold(scheme, "Bearer") || !strings.HasPrefix(raw, keyPrefix) {
		return nil, errUnauthorized("invalid API key")
	}
	sum := hashKey(raw)
	k, found := st.KeysByHash[sum]
	if !found || subtle.ConstantTimeCompare(k.Hash[:], sum[:]) != 1 {
		return nil, errUnauthorized("invalid API key")
	}
	if !k.Active {
		return nil, errUnauthorized("this API key has been revoked")
	}
	if k.ExpiresAt != nil && !rc.now.Before(*k.ExpiresAt) {
		return nil, errUnauthorized("this API key has expired")
	}
	u, ok := st.Users.Get(k.Owner)
	if !ok {
		return nil, errUnauthorized("the key's account no longer exists")
	}
	k.LastUsed.Store(rc.now.UnixNano())
	p := &principal{user: u, key: k}
	switch {
	case k.PartnerID != "":
		p.businesses = slices.Clone(st.BusinessesOfPartner(k.PartnerID))
		if k.BusinessID != "" {
			p.businesses = intersect(p.businesses, k.BusinessID)
		}
	case k.BusinessID != "":
		p.businesses = intersect(slices.Clone(st.BusinessesOf(u.ID)), k.BusinessID)
	default:
		p.businesses = slices.Clone(st.BusinessesOf(u.ID))
	}
	return p, nil
}

func (s *Server) sessionPrincipal(st *store.Store, rc *reqCtx, token string) *principal {
	sess, ok := st.SessionsByToken[token]
	if !ok || !rc.now.Before(sess.ExpiresAt) {
		return nil
	}
	u, ok := st.Users.Get(sess.Owner)
	if !ok {
		return nil
	}
	return &principal{user: u, session: sess, businesses: slices.Clone(st.BusinessesOf(u.ID))}
}

func intersect(ids []string, only string) []string {
	if slices.Contains(ids, only) {
		return []string{only}
	}
	return nil
}

// business returns a business the caller reaches: 404 when it does not
// exist, 403 when the caller does not reach it.
func (rc *reqCtx) business(id string) (*store.Business, error) {
	b, ok := rc.st.Businesses.Get(id)
	if !ok {
		return nil, errNotFound("business not found: " + id)
	}
	if rc.p == nil || !rc.p.reaches(id) {
		return nil, errForbidden("this key has no access to business " + id)
	}
	return b, nil
}

// scopedBusinesses returns the businesses a list reads: all the caller
// reaches, or the one named by the business_id query parameter.
func (rc *reqCtx) scopedBusinesses() ([]string, error) {
	if id := rc.query("business_id"); id != "" {
		if _, err := rc.business(id); err != nil {
			return nil, err
		}
		return []string{id}, nil
	}
	return rc.p.businesses, nil
}
