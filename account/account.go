// Package account reads what a key's account has: the balance of its
// businesses (minutes used, numbers, subscription), the API usage log, the
// key's capabilities (workspace, granted permissions, allowance) and the
// catalog of request schemas.
//
//	bal, err := c.Account.Balance(ctx, nil)
//	for e, err := range c.Account.Usage.All(ctx, &account.UsageListParams{Start: &since}) { ... }
package account

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"slices"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// BalanceEntry is the balance of one business.
type BalanceEntry struct {
	BusinessID string `json:"business_id"`
	// MinutesUsed is the billed call minutes (each call rounded up).
	MinutesUsed int `json:"minutes_used"`
	// PhoneNumbers is how many numbers the business has.
	PhoneNumbers int `json:"phone_numbers"`
	// SubscriptionStatus is for example "active".
	SubscriptionStatus string `json:"subscription_status"`
}

// BalanceParams filter Balance.
type BalanceParams struct {
	// BusinessID limits the answer to one business.
	BusinessID string `url:"business_id,omitempty"`
}

// UsageEntry is one authenticated API request of the account.
type UsageEntry struct {
	ID string `json:"id"`
	// Endpoint is the path below the base URL, for example /v1/calls.
	Endpoint   string `json:"endpoint"`
	Method     string `json:"method"`
	StatusCode int    `json:"status_code"`
	// CallID is the call a request placed, if any.
	CallID *string `json:"call_id"`
	// CostCents is what the request cost.
	CostCents int       `json:"cost_cents"`
	CreatedAt time.Time `json:"created_at"`
}

// UsageListParams filter the usage log.
type UsageListParams struct {
	// Start keeps requests made at or after Start.
	Start *time.Time `url:"start,omitempty" layout:"2006-01-02T15:04:05.999999999Z07:00"`
	// End keeps requests made before End.
	End *time.Time `url:"end,omitempty" layout:"2006-01-02T15:04:05.999999999Z07:00"`
	// Limit is the page size (default 100, at most 500).
	Limit int `url:"limit,omitempty"`
	// After is the cursor: the created_at of the last entry seen (see
	// voiceagent.Page.NextCursor). All sets it itself.
	After string `url:"after,omitempty"`
}

// Workspace is a business the key reaches.
type Workspace struct {
	ID                 string     `json:"id"`
	Name               string     `json:"name"`
	BusinessType       *string    `json:"business_type"`
	Website            *string    `json:"website"`
	SubscriptionStatus string     `json:"subscription_status"`
	TrialEndsAt        *time.Time `json:"trial_ends_at"`
	PartnerID          string     `json:"partner_id,omitempty"`
	CreatedAt          time.Time  `json:"created_at"`
}

// KeyInfo describes the key that made the request (never its value).
type KeyInfo struct {
	ID     string             `json:"id"`
	Prefix string             `json:"prefix"`
	Name   string             `json:"name"`
	Scopes []voiceagent.Scope `json:"scopes"`
	// BusinessID is the one business the key is limited to (nil: all the
	// owner's businesses).
	BusinessID *string `json:"business_id"`
	// PartnerID is set on partner keys.
	PartnerID *string    `json:"partner_id"`
	CreatedAt time.Time  `json:"created_at"`
	ExpiresAt *time.Time `json:"expires_at"`
}

// RateLimit is one endpoint group's limit.
type RateLimit struct {
	// Group names the limit, for example calls.create.
	Group  string `json:"group"`
	Method string `json:"method"`
	// Path is the endpoint; a trailing * matches a prefix, a lone * every
	// other endpoint of the method.
	Path          string `json:"path"`
	Limit         int    `json:"limit"`
	WindowSeconds int    `json:"window_seconds"`
	// Per is "key" or "ip".
	Per string `json:"per"`
}

// Allowance is what the key may spend.
type Allowance struct {
	RateLimits         []RateLimit `json:"rate_limits"`
	RateLimitsEnforced bool        `json:"rate_limits_enforced"`
	// SubscriptionStatus and TrialEndsAt are those of Workspace; nil when
	// the key reaches several workspaces (each has its own).
	SubscriptionStatus *string    `json:"subscription_status"`
	TrialEndsAt        *time.Time `json:"trial_ends_at"`
}

// Capabilities is what a key can see and do.
type Capabilities struct {
	// Workspace is the key's business when it reaches exactly one, else nil.
	Workspace *Workspace `json:"workspace"`
	// Workspaces are every business the key reaches, oldest first.
	Workspaces []Workspace `json:"workspaces"`
	Key        KeyInfo     `json:"key"`
	// Permissions are the scopes granted (the wildcard expanded).
	Permissions []voiceagent.Scope `json:"permissions"`
	Allowance   Allowance          `json:"allowance"`
}

// Can reports whether the key holds a scope.
func (c *Capabilities) Can(scope voiceagent.Scope) bool { return slices.Contains(c.Permissions, scope) }

// SchemaInfo is one entry of the schema catalog.
type SchemaInfo struct {
	// Name is what Schema takes, for example agentCreate.
	Name        string `json:"name"`
	Title       string `json:"title"`
	Description string `json:"description"`
	// ID is the schema's $id, under which a validator must register it
	// (schemas reference each other by relative $ref).
	ID string `json:"id"`
	// URL reads the schema (GET /v1/schemas?name=).
	URL string `json:"url"`
}

// Service reads the account. Get it from client.Client.Account.
type Service struct {
	b *voiceagent.Backend
	// Usage reads the API usage log.
	Usage *UsageService
}

// NewService returns the service on a backend.
func NewService(b *voiceagent.Backend) *Service {
	return &Service{b: b, Usage: &UsageService{b: b}}
}

// Balance returns the balance of each business the key reaches, oldest
// first (billing:read).
func (s *Service) Balance(ctx context.Context, p *BalanceParams, opts ...voiceagent.Option) ([]BalanceEntry, error) {
	return voiceagent.ListItems[BalanceEntry](ctx, s.b, "/v1/balance", "businesses", p, opts...)
}

// Capabilities returns the key's workspace, permissions and allowance (any
// valid key).
func (s *Service) Capabilities(ctx context.Context, opts ...voiceagent.Option) (*Capabilities, error) {
	return voiceagent.Send[Capabilities](ctx, s.b, http.MethodGet, "/v1/capabilities", nil, nil, opts...)
}

// Schemas returns the catalog of request schemas (any valid key).
func (s *Service) Schemas(ctx context.Context, opts ...voiceagent.Option) ([]SchemaInfo, error) {
	return voiceagent.ListItems[SchemaInfo](ctx, s.b, "/v1/schemas", "schemas", nil, opts...)
}

// Schema returns one request schema, a JSON Schema document (any valid
// key). An unknown name is voiceagent.ErrNotFound.
func (s *Service) Schema(ctx context.Context, name string, opts ...voiceagent.Option) (json.RawMessage, error) {
	var out json.RawMessage
	q := struct {
		Name string `url:"name"`
	}{name}
	if err := s.b.Do(ctx, http.MethodGet, "/v1/schemas", q, nil, &out, opts...); err != nil {
		return nil, err
	}
	return out, nil
}

// UsageService reads the API usage log. Get it from Service.Usage.
type UsageService struct{ b *voiceagent.Backend }

// List returns one page of the usage log, newest first (billing:read).
func (s *UsageService) List(ctx context.Context, p *UsageListParams, opts ...voiceagent.Option) (*voiceagent.Page[UsageEntry], error) {
	return voiceagent.ListPage(ctx, s.b, "/v1/usage", "usage", p, func(e *UsageEntry) time.Time { return e.CreatedAt }, opts...)
}

// All walks the whole usage log that matches p, newest first, page after
// page. p is not modified.
func (s *UsageService) All(ctx context.Context, p *UsageListParams, opts ...voiceagent.Option) iter.Seq2[*UsageEntry, error] {
	return voiceagent.All(ctx, p, func(q *UsageListParams) *string { return &q.After }, s.List, opts...)
}
