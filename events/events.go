// Package events reads the platform's event log (GET /v1/events) and
// replays stored events to the webhook subscriptions (POST
// /v1/events/replay). Every event a business produces is kept in the log in
// the same standard body that subscriptions receive; see package webhooks
// for the event types and for receiving deliveries.
package events

import (
	"context"
	"iter"
	"net/http"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// Event is an event of the log: the standard delivery body (id, event,
// business_id, timestamp, data; see [webhooks.Event] and its typed
// accessors) and when it was recorded.
type Event struct {
	webhooks.Event
	// CreatedAt orders the log; it is the pagination cursor.
	CreatedAt time.Time `json:"created_at"`
}

// ListParams filter and page List.
type ListParams struct {
	// Type keeps only one event type (a webhooks.Event constant).
	Type webhooks.EventType `url:"type,omitempty"`
	// BusinessID limits the list to one business.
	BusinessID string `url:"business_id,omitempty"`
	// Limit is the page size, 1 to 100 (default 50).
	Limit int `url:"limit,omitempty"`
	// After is the cursor: the created_at of the last item seen.
	After string `url:"after,omitempty"`
}

// ReplayParams choose the events to deliver again: either EventIDs (1 to
// 100), or a window from Since (to Until, default now), optionally only
// some Types. BusinessID limits either to one business.
type ReplayParams struct {
	EventIDs   []string             `json:"event_ids,omitempty"`
	Since      *time.Time           `json:"since,omitempty"`
	Until      *time.Time           `json:"until,omitempty"`
	Types      []webhooks.EventType `json:"types,omitempty"`
	BusinessID string               `json:"business_id,omitempty"`
}

// ReplayResult says what a replay started.
type ReplayResult struct {
	// Events is how many events were replayed (at most 1,000 per call).
	Events int `json:"events"`
	// Deliveries is how many deliveries were started: one per event and
	// active subscription listing its type.
	Deliveries int `json:"deliveries"`
	// DeliveryIDs identify the new deliveries.
	DeliveryIDs []string `json:"delivery_ids"`
}

// Service is the event log API. Get it from client.Client.Events.
type Service struct{ b *voiceagent.Backend }

// NewService returns the service on a backend.
func NewService(b *voiceagent.Backend) *Service { return &Service{b: b} }

// List returns one page of the events of the key's businesses, newest
// first (events:read).
func (s *Service) List(ctx context.Context, p *ListParams, opts ...voiceagent.Option) (*voiceagent.Page[Event], error) {
	return voiceagent.ListPage(ctx, s.b, "/v1/events", "events", p, func(e *Event) time.Time { return e.CreatedAt }, opts...)
}

// All walks every event, page by page (events:read).
func (s *Service) All(ctx context.Context, p *ListParams, opts ...voiceagent.Option) iter.Seq2[*Event, error] {
	return voiceagent.All(ctx, p, func(q *ListParams) *string { return &q.After }, s.List, opts...)
}

// Get returns one event (events:read).
func (s *Service) Get(ctx context.Context, id string, opts ...voiceagent.Option) (*Event, error) {
	return voiceagent.Send[Event](ctx, s.b, http.MethodGet, "/v1/events", voiceagent.IDQuery{ID: id}, nil, opts...)
}

// Replay delivers stored events again to the subscriptions of their
// businesses, as they are configured now, with the events' own ids (so
// receivers that processed an event already can skip it) (events:replay).
func (s *Service) Replay(ctx context.Context, p *ReplayParams, opts ...voiceagent.Option) (*ReplayResult, error) {
	return voiceagent.Send[ReplayResult](ctx, s.b, http.MethodPost, "/v1/events/replay", nil, p, opts...)
}
