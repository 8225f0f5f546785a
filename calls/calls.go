// Package calls places outbound calls and reads call records and
// transcripts.
//
// A call created with Create starts queued; the platform then dials,
// converses and finishes it asynchronously. Read it back with Get, walk the
// history with List or All, and read finished conversations with
// ListTranscripts or AllTranscripts. A call created with a WebhookURL posts
// call.completed or call.failed to that URL when it ends; that body is
// [webhooks.CallWebhook], read by [webhooks.ParseCallWebhook] or
// [webhooks.Handler].
package calls

import (
	"context"
	"iter"
	"net/http"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// Status is a call's status.
type Status string

// Call statuses. Outbound calls go StatusQueued, StatusInProgress, then
// StatusCompleted or StatusFailed; inbound calls go StatusRinging,
// StatusInProgress, then StatusEnded, or StatusRinging then StatusNoAnswer.
const (
	StatusQueued     Status = "queued"
	StatusRinging    Status = "ringing"
	StatusInProgress Status = "in-progress"
	StatusCompleted  Status = "completed"
	StatusFailed     Status = "failed"
	StatusEnded      Status = "ended"
	StatusNoAnswer   Status = "no-answer"
)

// Call directions.
const (
	DirectionInbound  = "inbound"
	DirectionOutbound = "outbound"
)

// Failure reasons of StatusFailed calls (Call.Error).
const (
	ErrorNoAnswer = "no_answer"
	ErrorBusy     = "busy"
)

// QualityDimensions score a finished conversation (1 to 10 each).
type QualityDimensions struct {
	Professionalism      int `json:"professionalism"`
	Empathy              int `json:"empathy"`
	InformationGathering int `json:"information_gathering"`
	Resolution           int `json:"resolution"`
}

// Call is a call record. List fills the fields up to Summary; Get fills all
// of them. Fields that are not known yet (a call in progress has no summary)
// are nil.
type Call struct {
	ID             string `json:"id"`
	ConversationID string `json:"conversation_id"`
	Status         Status `json:"status"`
	// Duration is the call's length in seconds: 0 until the call ends.
	Duration  int       `json:"duration"`
	AgentID   string    `json:"agent_id"`
	AgentName string    `json:"agent_name"`
	CreatedAt time.Time `json:"created_at"`
	Direction string    `json:"direction"`
	Summary   *string   `json:"summary"`

	BusinessID        string             `json:"business_id,omitempty"`
	LeadID            *string            `json:"lead_id,omitempty"`
	RecordingURL      *string            `json:"recording_url,omitempty"`
	Transcript        *string            `json:"transcript,omitempty"`
	QualityDimensions *QualityDimensions `json:"quality_dimensions,omitempty"`
	To                string             `json:"to,omitempty"`
	From              *string            `json:"from,omitempty"`
	Name              *string            `json:"name,omitempty"`
	Context           *string            `json:"context,omitempty"`
	MaxDuration       int                `json:"max_duration,omitempty"`
	// Error is the reason of a failed call: ErrorNoAnswer or ErrorBusy.
	Error *string `json:"error,omitempty"`
	// EndedReason says how the call ended: completed, max_duration,
	// transferred, voicemail, no_answer or busy.
	EndedReason *string    `json:"ended_reason,omitempty"`
	Voicemail   *string    `json:"voicemail,omitempty"`
	StartedAt   *time.Time `json:"started_at,omitempty"`
	EndedAt     *time.Time `json:"ended_at,omitempty"`
	UpdatedAt   *time.Time `json:"updated_at,omitempty"`
	// TouchRef names the communication run touch or approval request that
	// placed the call, if any.
	voiceagent.TouchRef
}

// Per-call webhook events: the same values as [webhooks.EventCallCompleted]
// and [webhooks.EventCallFailed].
const (
	// Deprecated: use webhooks.EventCallCompleted.
	EventCompleted = webhooks.EventCallCompleted
	// Deprecated: use webhooks.EventCallFailed.
	EventFailed = webhooks.EventCallFailed
)

// WebhookEvent is the body the platform posts to a call's WebhookURL when
// the call ends: one type, [webhooks.CallWebhook], under its older name.
//
// Deprecated: use webhooks.CallWebhook.
type WebhookEvent = webhooks.CallWebhook

// CreateParams are the fields of POST /v1/calls.
type CreateParams struct {
	// AgentID is the agent placing the call. Required.
	AgentID string `json:"agent_id"`
	// To is the number to call, E.164. Required.
	To string `json:"to"`
	// Name of the person called (the API also accepts customer_name).
	Name *string `json:"name,omitempty"`
	// Context is free-form text for the agent.
	Context *string `json:"context,omitempty"`
	// FirstMessage overrides the opening line (the API also accepts
	// first_message); default is the agent's outbound greeting.
	FirstMessage *string `json:"firstMessage,omitempty"`
	// LeadID links the call to a lead and enriches the agent's prompt with
	// the lead's data (a lead whose phone is To is used otherwise).
	LeadID *string `json:"lead_id,omitempty"`
	// WebhookURL receives call.completed or call.failed.
	WebhookURL *string `json:"webhook_url,omitempty"`
	// MaxDuration caps the call, in seconds (default 600).
	MaxDuration *int `json:"max_duration,omitempty"`
}

// Created is the answer of Create.
type Created struct {
	ID             string    `json:"id"`
	ConversationID string    `json:"conversation_id"`
	Status         Status    `json:"status"`
	AgentID        string    `json:"agent_id"`
	To             string    `json:"to"`
	Name           *string   `json:"name"`
	CreatedAt      time.Time `json:"created_at"`
}

// ListParams filter List and All.
type ListParams struct {
	// Limit is the page size (default 50, at most 100).
	Limit int `url:"limit,omitempty"`
	// AgentID keeps one agent's calls.
	AgentID string `url:"agent_id,omitempty"`
	// Status keeps calls with this status.
	Status Status `url:"status,omitempty"`
	// BusinessID keeps one business's calls.
	BusinessID string `url:"business_id,omitempty"`
	// After is the cursor: the created_at of the last call seen
	// (voiceagent.Cursor); empty for the newest.
	After string `url:"after,omitempty"`
}

// Transcript is a finished call's conversation: Agent: and Caller: turns
// separated by newlines.
type Transcript struct {
	CallID         string    `json:"call_id"`
	ConversationID string    `json:"conversation_id"`
	AgentID        string    `json:"agent_id"`
	AgentName      string    `json:"agent_name"`
	Status         Status    `json:"status"`
	Duration       int       `json:"duration"`
	Summary        *string   `json:"summary"`
	Transcript     string    `json:"transcript"`
	CreatedAt      time.Time `json:"created_at"`
}

// TranscriptListParams filter ListTranscripts and AllTranscripts.
type TranscriptListParams struct {
	// Limit is the page size (default 20, at most 50).
	Limit int `url:"limit,omitempty"`
	// AgentID keeps one agent's calls.
	AgentID string `url:"agent_id,omitempty"`
	// Days looks back this many days (default 30, at most 90).
	Days int `url:"days,omitempty"`
	// BusinessID keeps one business's calls.
	BusinessID string `url:"business_id,omitempty"`
	// After is the cursor: the created_at of the last transcript seen.
	After string `url:"after,omitempty"`
}

// Service is the calls API. Get it from client.Client.Calls.
type Service struct{ b *voiceagent.Backend }

// NewService returns the service on a backend.
func NewService(b *voiceagent.Backend) *Service { return &Service{b: b} }

// Create places an outbound call (calls:write). The answer is queued; the
// call proceeds asynchronously. Errors: not_found for an agent or lead the
// key does not reach, call_failed (500) when the call cannot be placed,
// vendor_error when the voice provider fails.
func (s *Service) Create(ctx context.Context, p *CreateParams, opts ...voiceagent.Option) (*Created, error) {
	return voiceagent.Send[Created](ctx, s.b, http.MethodPost, "/v1/calls", nil, p, opts...)
}

// Get returns one call with every field (calls:read).
func (s *Service) Get(ctx context.Context, id string, opts ...voiceagent.Option) (*Call, error) {
	return voiceagent.Send[Call](ctx, s.b, http.MethodGet, "/v1/calls", voiceagent.IDQuery{ID: id}, nil, opts...)
}

// List returns one page of calls across the key's businesses, newest first
// (calls:read).
func (s *Service) List(ctx context.Context, p *ListParams, opts ...voiceagent.Option) (*voiceagent.Page[Call], error) {
	return voiceagent.ListPage(ctx, s.b, "/v1/calls", "calls", p, func(c *Call) time.Time { return c.CreatedAt }, opts...)
}

// All walks every call matching p, page by page, newest first.
func (s *Service) All(ctx context.Context, p *ListParams, opts ...voiceagent.Option) iter.Seq2[*Call, error] {
	return voiceagent.All(ctx, p, func(q *ListParams) *string { return &q.After }, s.List, opts...)
}

// ListTranscripts returns one page of finished calls' transcripts, newest
// first (calls:read). Only calls that have a transcript appear.
func (s *Service) ListTranscripts(ctx context.Context, p *TranscriptListParams, opts ...voiceagent.Option) (*voiceagent.Page[Transcript], error) {
	return voiceagent.ListPage(ctx, s.b, "/v1/transcripts", "transcripts", p, func(t *Transcript) time.Time { return t.CreatedAt }, opts...)
}

// AllTranscripts walks every transcript matching p, page by page.
func (s *Service) AllTranscripts(ctx context.Context, p *TranscriptListParams, opts ...voiceagent.Option) iter.Seq2[*Transcript, error] {
	return voiceagent.All(ctx, p, func(q *TranscriptListParams) *string { return &q.After }, s.ListTranscripts, opts...)
}
