package mockserver

import (
	"net/http"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// defaultKeyName is the name of a key created without one.
const defaultKeyName = "Untitled Key"

// keyRoutes are the dashboard's key management: session only, so a bearer
// key cannot create, upgrade or revoke keys (the pipeline answers 401).
func (s *Server) keyRoutes() []*route {
	return []*route{
		{method: http.MethodGet, path: "/api/v1/keys", auth: authSession, handle: s.listKeys},
		{method: http.MethodPost, path: "/api/v1/keys", auth: authSession, schema: "keyCreate", handle: s.createKey},
		{method: http.MethodDelete, path: "/api/v1/keys", auth: authSession, handle: s.revokeKey},
	}
}

// listKeys is GET /v1/keys: the keys that act as the session's user,
// revoked ones included, newest first, paged (limit default and max 100).
func (s *Server) listKeys(rc *reqCtx) (any, error) {
	pq, err := rc.pageQuery(100, 100)
	if err != nil {
		return nil, err
	}
	keys, more := listPage(rc.st.Keys, []string{rc.p.user.ID}, pq, nil, func(k *store.APIKey) map[string]any {
		return keyView(k, rc.now)
	})
	return map[string]any{"keys": keys, "has_more": more}, nil
}

func (s *Server) createKey(rc *reqCtx) (any, error) {
	var body struct {
		Name       *string  `json:"name"`
		BusinessID string   `json:"business_id"`
		Scopes     []string `json:"scopes"`
		PartnerID  string   `json:"partner_id"`
		UserID     string   `json:"user_id"`
	}
	// The schema forbids this pair too, but its message ("'not' failed")
	// does not say why.
	if decodeLoose(rc.body, &body) == nil && body.BusinessID != "" && body.PartnerID != "" {
		return nil, errInvalidField("/partner_id", "a partner key reaches its partner's businesses: partner_id cannot be combined with business_id")
	}
	if err := rc.decode(&body); err != nil {
		return nil, err
	}
	name := defaultKeyName
	if body.Name != nil {
		name = *body.Name
	}
	scopes := body.Scopes
	if scopes == nil {
		scopes = keyDefaultScopes
	}
	caller := rc.p.user
	owner := caller.ID
	if body.BusinessID != "" {
		b, ok := rc.st.Businesses.Get(body.BusinessID)
		if !ok {
			return nil, errNotFound("business not found: " + body.BusinessID)
		}
		if role := b.Members[caller.ID]; role != store.RoleOwner && role != store.RoleAdmin {
			return nil, errForbidden("only owners or admins of business " + b.ID + " may create keys for it")
		}
	}
	if body.PartnerID != "" {
		if !caller.Operator {
			return nil, errForbidden("only platform operators may mint partner keys (partner_id)")
		}
		if !rc.st.PartnerKnown(body.PartnerID) {
			return nil, errNotFound("partner not found: " + body.PartnerID)
		}
		if body.UserID != "" {
			if _, ok := rc.st.Users.Get(body.UserID); !ok {
				return nil, errNotFound("user not found: " + body.UserID)
			}
			owner = body.UserID
		}
	}
	value, k := s.issueKey(rc.st, rc.now, owner, name, scopes, body.BusinessID, body.PartnerID)
	if owner != caller.ID {
		k.CreatedBy = caller.ID
	}
	v := keyView(k, rc.now)
	v["key"] = value
	return created(v), nil
}

// revokeKey is DELETE /v1/keys?id=: the key stops working at once and stays
// listed with is_active false. Revoking a revoked key succeeds again.
func (s *Server) revokeKey(rc *reqCtx) (any, error) {
	id, err := rc.requireQuery("id")
	if err != nil {
		return nil, err
	}
	k, ok := rc.st.Keys.Get(id)
	if !ok || (k.Owner != rc.p.user.ID && k.CreatedBy != rc.p.user.ID) {
		return nil, errNotFound("key not found: " + id)
	}
	if k.Active {
		k.Active = false
		t := rc.now.UTC()
		k.RevokedAt = &t
	}
	return map[string]any{"success": true, "id": k.ID, "revoked_at": k.RevokedAt}, nil
}

// keyView is a key record as GET /v1/keys shows it; never the key itself.
func keyView(k *store.APIKey, now time.Time) map[string]any {
	var lastUsed any
	if n := k.LastUsed.Load(); n != 0 {
		lastUsed = time.Unix(0, n).UTC()
	}
	active := k.Active && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt))
	return map[string]any{
		"id":           k.ID,
		"prefix":       k.Prefix,
		"name":         k.Name,
		"scopes":       k.Scopes,
		"business_id":  nullable(k.BusinessID),
		"partner_id":   nullable(k.PartnerID),
		"user_id":      k.Owner,
		"created_at":   k.CreatedAt,
		"last_used_at": lastUsed,
		"expires_at":   k.ExpiresAt,
		"is_active":    active,
		"revoked_at":   k.RevokedAt,
	}
}
