// Package leads reads and edits leads: the prospective customers the
// platform's agents collect from calls and texts (every agent has lead
// collection built in: it extracts the caller's name, email, phone and
// intent). A repeat caller updates the same lead.
package leads

import (
	"context"
	"iter"
	"net/http"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// Status is a lead's status.
type Status string

// Lead statuses. The first five are the API's; the last three appear in the
// quickstart and are accepted too. The funnel order is new, contacted,
// qualified, converted.
const (
	StatusNew          Status = "new"
	StatusContacted    Status = "contacted"
	StatusQualified    Status = "qualified"
	StatusConverted    Status = "converted"
	StatusLost         Status = "lost"
	StatusUnqualified  Status = "unqualified"
	StatusSpam         Status = "spam"
	StatusDoNotContact Status = "do_not_contact"
)

// Lead is a lead. List fills the fields up to UpdatedAt; Get, Update and
// lead events fill all of them. Nil pointers are absent values (JSON null).
type Lead struct {
	ID         string    `json:"id"`
	Name       *string   `json:"name"`
	FirstName  *string   `json:"first_name"`
	LastName   *string   `json:"last_name"`
	Email      *string   `json:"email"`
	Phone      *string   `json:"phone"`
	Status     Status    `json:"status"`
	Source     *string   `json:"source"`
	AgentID    *string   `json:"agent_id"`
	AgentName  *string   `json:"agent_name"`
	BusinessID string    `json:"business_id"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`

	Zip        *string `json:"zip,omitempty"`
	Address    *string `json:"address,omitempty"`
	City       *string `json:"city,omitempty"`
	State      *string `json:"state,omitempty"`
	SourceURL  *string `json:"source_url,omitempty"`
	SourcePage *string `json:"source_page,omitempty"`
	Notes      *string `json:"notes,omitempty"`
	// Message is the latest thing the lead said (on a call or in a text).
	Message   *string `json:"message,omitempty"`
	EventDate *string `json:"event_date,omitempty"`
	EventType *string `json:"event_type,omitempty"`
	// Score is the lead score, 0 to 100.
	Score int `json:"score,omitempty"`
	// InteractionCount counts the calls and texts with the lead.
	InteractionCount int `json:"interaction_count,omitempty"`
	// Intent is what the lead wanted, as lead collection understood it.
	Intent        *string    `json:"intent,omitempty"`
	LastContactAt *time.Time `json:"last_contact_at,omitempty"`
}

// ListParams filter List and All.
type ListParams struct {
	// Status keeps leads with this status.
	Status Status `url:"status,omitempty"`
	// Source keeps leads from this source (inbound_call, voicemail,
	// missed_call, sms, or whatever a PATCH set).
	Source string `url:"source,omitempty"`
	// AgentID keeps leads one agent collected.
	AgentID string `url:"agent_id,omitempty"`
	// Phone keeps leads with exactly this phone.
	Phone string `url:"phone,omitempty"`
	// Email keeps leads with exactly this email.
	Email string `url:"email,omitempty"`
	// BusinessID keeps one business's leads.
	BusinessID string `url:"business_id,omitempty"`
	// Limit is the page size (default 50, at most 100).
	Limit int `url:"limit,omitempty"`
	// After is the cursor: the created_at of the last lead seen.
	After string `url:"after,omitempty"`
}

// UpdateParams are the fields of PATCH /v1/leads: only the fields set are
// sent and only those change. Use SetNull to clear a field (any but ID and
// Status).
type UpdateParams struct {
	voiceagent.NullFields `json:"-"`

	// ID of the lead. Required.
	ID        string  `json:"id"`
	Name      *string `json:"name,omitempty"`
	FirstName *string `json:"first_name,omitempty"`
	LastName  *string `json:"last_name,omitempty"`
	Email     *string `json:"email,omitempty"`
	Phone     *string `json:"phone,omitempty"`
	Status    *Status `json:"status,omitempty"`
	Source    *string `json:"source,omitempty"`
	Notes     *string `json:"notes,omitempty"`
	Address   *string `json:"address,omitempty"`
	City      *string `json:"city,omitempty"`
	State     *string `json:"state,omitempty"`
	Zip       *string `json:"zip,omitempty"`
}

// Service is the leads API. Get it from client.Client.Leads.
type Service struct{ b *voiceagent.Backend }

// NewService returns the service on a backend.
func NewService(b *voiceagent.Backend) *Service { return &Service{b: b} }

// Get returns one lead with every field (leads:read).
func (s *Service) Get(ctx context.Context, id string, opts ...voiceagent.Option) (*Lead, error) {
	return voiceagent.Send[Lead](ctx, s.b, http.MethodGet, "/v1/leads", voiceagent.IDQuery{ID: id}, nil, opts...)
}

// List returns one page of leads across the key's businesses, newest first
// (leads:read).
func (s *Service) List(ctx context.Context, p *ListParams, opts ...voiceagent.Option) (*voiceagent.Page[Lead], error) {
	return voiceagent.ListPage(ctx, s.b, "/v1/leads", "leads", p, func(l *Lead) time.Time { return l.CreatedAt }, opts...)
}

// All walks every lead matching p, page by page, newest first.
func (s *Service) All(ctx context.Context, p *ListParams, opts ...voiceagent.Option) iter.Seq2[*Lead, error] {
	return voiceagent.All(ctx, p, func(q *ListParams) *string { return &q.After }, s.List, opts...)
}

// Update changes the fields set in p and returns the updated lead
// (leads:write). updated_at moves; nothing else changes.
func (s *Service) Update(ctx context.Context, p *UpdateParams, opts ...voiceagent.Option) (*Lead, error) {
	return voiceagent.Send[Lead](ctx, s.b, http.MethodPatch, "/v1/leads", nil, p, opts...)
}
