package identity

import (
	"slices"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/keys"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
)

// defaultKeyName is the name of a key created without one.
const defaultKeyName = "Untitled Key"

// listKeys is GET /v1/keys: the keys that act as the session's user,
// revoked ones included, newest first, paged (limit default and max 100).
func (s *Service) listKeys(rc *httpapi.Ctx) (any, error) {
	pq, err := rc.PageQuery(100, 100)
	if err != nil {
		return nil, err
	}
	list, more := httpapi.ListPage(rc.Tx.Keys, []string{rc.Principal.User.ID}, pq, nil, func(k *store.APIKey) keys.Key {
		return keyView(k, rc.Now)
	})
	return map[string]any{"keys": list, "has_more": more}, nil
}

func (s *Service) createKey(rc *httpapi.Ctx) (any, error) {
	var body struct {
		Name       *string  `json:"name"`
		BusinessID string   `json:"business_id"`
		Scopes     []string `json:"scopes"`
		PartnerID  string   `json:"partner_id"`
		UserID     string   `json:"user_id"`
	}
	// The schema forbids this pair too, but its message ("'not' failed")
	// does not say why.
	if httpapi.DecodeLoose(rc.Body, &body) == nil && body.BusinessID != "" && body.PartnerID != "" {
		return nil, domain.InvalidField("/partner_id", "a partner key reaches its partner's businesses: partner_id cannot be combined with business_id")
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	name := defaultKeyName
	if body.Name != nil {
		name = *body.Name
	}
	scopes := body.Scopes
	if scopes == nil {
		scopes = slices.Clone(keyDefaultScopes)
	}
	caller := rc.Principal.User
	owner := caller.ID
	if body.BusinessID != "" {
		b, ok := rc.Tx.Businesses.Get(body.BusinessID)
		if !ok {
			return nil, domain.NotFound("business not found: " + body.BusinessID)
		}
		if role := b.Members[caller.ID]; role != store.RoleOwner && role != store.RoleAdmin {
			return nil, domain.Forbidden("only owners or admins of business " + b.ID + " may create keys for it")
		}
	}
	if body.PartnerID != "" {
		if !caller.Operator {
			return nil, domain.Forbidden("only platform operators may mint partner keys (partner_id)")
		}
		if !rc.Tx.PartnerKnown(body.PartnerID) {
			return nil, domain.NotFound("partner not found: " + body.PartnerID)
		}
		if body.UserID != "" {
			if _, ok := rc.Tx.Users.Get(body.UserID); !ok {
				return nil, domain.NotFound("user not found: " + body.UserID)
			}
			owner = body.UserID
		}
	}
	value, k := s.IssueKey(rc.Tx, rc.Now, owner, name, scopes, body.BusinessID, body.PartnerID)
	if owner != caller.ID {
		k.CreatedBy = caller.ID
	}
	return httpapi.Created(keys.Created{Key: keyView(k, rc.Now), Value: value}), nil
}

// revokeKey is DELETE /v1/keys?id=: the key stops working at once and stays
// listed with is_active false. Revoking a revoked key succeeds again.
func (s *Service) revokeKey(rc *httpapi.Ctx) (any, error) {
	id, err := rc.RequireQuery("id")
	if err != nil {
		return nil, err
	}
	k, ok := rc.Tx.Keys.Get(id)
	if !ok || (k.Owner != rc.Principal.User.ID && k.CreatedBy != rc.Principal.User.ID) {
		return nil, domain.NotFound("key not found: " + id)
	}
	if k.Active {
		k.Active = false
		t := rc.Now.UTC()
		k.RevokedAt = &t
	}
	return keys.Revoked{Success: true, ID: k.ID, RevokedAt: k.RevokedAt}, nil
}

// keyView is a key record as GET /v1/keys shows it; never the key itself.
func keyView(k *store.APIKey, now time.Time) keys.Key {
	var lastUsed *time.Time
	if n := k.LastUsed.Load(); n != 0 {
		t := time.Unix(0, n).UTC()
		lastUsed = &t
	}
	return keys.Key{
		ID:         k.ID,
		Prefix:     k.Prefix,
		Name:       k.Name,
		Scopes:     val.Strings[voiceagent.Scope](k.Scopes),
		BusinessID: val.Strp(k.BusinessID),
		PartnerID:  val.Strp(k.PartnerID),
		UserID:     k.Owner,
		CreatedAt:  k.CreatedAt,
		LastUsedAt: lastUsed,
		ExpiresAt:  k.ExpiresAt,
		IsActive:   k.Active && (k.ExpiresAt == nil || now.Before(*k.ExpiresAt)),
		RevokedAt:  k.RevokedAt,
	}
}
