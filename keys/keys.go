// Package keys manages API keys (GET, POST and DELETE /v1/keys). Key
// management needs a signed-in dashboard session, not a bearer key: build
// the client with voiceagent.WithSessionCookie (the session comes from
// signup.Service.ExchangeMagicLink). A bearer key gets 401.
//
//	dash := client.New("", voiceagent.WithSessionCookie(session))
//	k, err := dash.Keys.Create(ctx, &keys.CreateParams{Name: "CI", Scopes: []voiceagent.Scope{voiceagent.ScopeCallsRead}})
//	// k.Value is the key: it is shown once.
package keys

import (
	"context"
	"iter"
	"net/http"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// DefaultName is the name of a key created without one.
const DefaultName = "Untitled Key"

// Key is an API key as the list shows it; the key itself is never shown
// again after Create.
type Key struct {
	ID string `json:"id"`
	// Prefix is the key's first 20 characters.
	Prefix string             `json:"prefix"`
	Name   string             `json:"name"`
	Scopes []voiceagent.Scope `json:"scopes"`
	// BusinessID restricts the key to one business; nil means all the
	// owner's businesses.
	BusinessID *string `json:"business_id"`
	// PartnerID is set on partner keys: they reach exactly that partner's
	// businesses.
	PartnerID *string `json:"partner_id"`
	// UserID is the account the key acts as.
	UserID     string     `json:"user_id"`
	CreatedAt  time.Time  `json:"created_at"`
	LastUsedAt *time.Time `json:"last_used_at"`
	ExpiresAt  *time.Time `json:"expires_at"`
	// IsActive is false once the key is revoked (or expired).
	IsActive  bool       `json:"is_active"`
	RevokedAt *time.Time `json:"revoked_at"`
}

// Created is the answer of Create: the key record and, once, its value.
type Created struct {
	Key
	// Value is the full key (voiceagent_live_...). It is shown only here.
	Value string `json:"key"`
}

// CreateParams are the fields of POST /v1/keys.
type CreateParams struct {
	// Name defaults to DefaultName.
	Name string `json:"name,omitempty"`
	// BusinessID restricts the key to one business, where the session's
	// user must be owner or admin. Omitted: all the user's businesses.
	BusinessID string `json:"business_id,omitempty"`
	// Scopes default to voiceagent.KeyDefaultScopes. sdr:*,
	// approvals:write, concierge:write, call_evidence:* and support:write
	// cannot be given to a key.
	Scopes []voiceagent.Scope `json:"scopes,omitempty"`
	// PartnerID (platform operators only) mints a partner key reaching
	// exactly that partner's businesses. Not combinable with BusinessID.
	PartnerID string `json:"partner_id,omitempty"`
	// UserID (partner keys only) is the account the key acts as; default
	// the minting operator.
	UserID string `json:"user_id,omitempty"`
}

// ListParams page through List.
type ListParams struct {
	// Limit is the page size (default and maximum 100).
	Limit int `url:"limit,omitempty"`
	// After is the cursor: the created_at of the last key seen.
	After string `url:"after,omitempty"`
}

// Revoked is the answer of Revoke.
type Revoked struct {
	Success   bool       `json:"success"`
	ID        string     `json:"id"`
	RevokedAt *time.Time `json:"revoked_at"`
}

// Service is the keys API. Get it from client.Client.Keys.
type Service struct{ b *voiceagent.Backend }

// NewService returns the service on a backend.
func NewService(b *voiceagent.Backend) *Service { return &Service{b: b} }

const path = "/v1/keys"

// List returns one page of the session user's keys, revoked ones included,
// newest first.
func (s *Service) List(ctx context.Context, p *ListParams, opts ...voiceagent.Option) (*voiceagent.Page[Key], error) {
	return voiceagent.ListPage(ctx, s.b, path, "keys", p, func(k *Key) time.Time { return k.CreatedAt }, opts...)
}

// All walks every key of the session's user, starting after p.After.
func (s *Service) All(ctx context.Context, p *ListParams, opts ...voiceagent.Option) iter.Seq2[*Key, error] {
	return voiceagent.All(ctx, p, func(q *ListParams) *string { return &q.After }, s.List, opts...)
}

// Create mints a key. Its value (Created.Value) is answered only here.
func (s *Service) Create(ctx context.Context, p *CreateParams, opts ...voiceagent.Option) (*Created, error) {
	if p == nil {
		p = &CreateParams{}
	}
	return voiceagent.Send[Created](ctx, s.b, http.MethodPost, path, nil, p, opts...)
}

// Revoke revokes a key: it stops working at once and stays listed with
// IsActive false. Revoking a revoked key succeeds.
func (s *Service) Revoke(ctx context.Context, id string, opts ...voiceagent.Option) (*Revoked, error) {
	return voiceagent.Send[Revoked](ctx, s.b, http.MethodDelete, path, voiceagent.IDQuery{ID: id}, nil, opts...)
}
