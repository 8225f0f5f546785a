package webhooks

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"slices"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// Presets of POST /v1/webhooks: each expands to an editable starting
// payload template (returned in [Subscription.PayloadTemplate]).
const (
	PresetGenericCRM  = "generic_crm"
	PresetHubSpot     = "hubspot"
	PresetSalesforce  = "salesforce"
	PresetPipedrive   = "pipedrive"
	PresetZohoCRM     = "zoho_crm"
	PresetGoHighLevel = "gohighlevel"
)

// Body formats of deliveries.
const (
	// BodyFormatJSON sends application/json (the default).
	BodyFormatJSON = "json"
	// BodyFormatForm sends application/x-www-form-urlencoded: nested
	// members are flattened to dotted keys (contact.email, items.0.name),
	// null is the empty string.
	BodyFormatForm = "form"
)

// FieldSource is where a payload template field takes its value: a dot path
// into the standard event body ([FieldPath]) or a constant ([FieldValue]).
type FieldSource struct {
	// Path is a dot path such as "data.email"; "a|b" takes the first path
	// with a non-null value; a missing path renders null. Empty when the
	// source is a constant.
	Path string
	// Value is the constant (string, number, bool or nil) when IsValue.
	Value any
	// IsValue reports a constant source.
	IsValue bool
}

// FieldPath is a source reading the standard body at a dot path, for
// example "data.email|data.lead.email".
func FieldPath(path string) FieldSource { return FieldSource{Path: path} }

// FieldValue is a constant source: a string, number, bool or nil.
func FieldValue(v any) FieldSource { return FieldSource{Value: v, IsValue: true} }

// MarshalJSON writes a path as a string and a constant as {"value": v}.
func (f FieldSource) MarshalJSON() ([]byte, error) {
	if f.IsValue {
		return json.Marshal(struct {
			Value any `json:"value"`
		}{f.Value})
	}
	return json.Marshal(f.Path)
}

// UnmarshalJSON reads either form.
func (f *FieldSource) UnmarshalJSON(b []byte) error {
	var path string
	if err := json.Unmarshal(b, &path); err == nil {
		*f = FieldPath(path)
		return nil
	}
	var c struct {
		Value any `json:"value"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return fmt.Errorf("webhooks: a template field is a path string or {\"value\": ...}: %w", err)
	}
	*f = FieldValue(c.Value)
	return nil
}

// PayloadTemplate replaces the standard body of deliveries: each output
// field (a dot in the name nests the output: "contact.email" gives
// {"contact": {"email": ...}}) takes its value from a [FieldSource]. At most
// 100 fields.
type PayloadTemplate struct {
	Fields map[string]FieldSource `json:"fields"`
}

// RotatedSecret is a previous signing secret that still signs deliveries
// until ExpiresAt (its value is never returned).
type RotatedSecret struct {
	CreatedAt time.Time `json:"created_at"`
	ExpiresAt time.Time `json:"expires_at"`
}

// Subscription is a webhook subscription: where and how a business's events
// are delivered.
type Subscription struct {
	ID          string      `json:"id"`
	BusinessID  string      `json:"business_id"`
	WebhookURL  string      `json:"webhook_url"`
	Events      []EventType `json:"events"`
	Description *string     `json:"description"`
	IsActive    bool        `json:"is_active"`
	// Preset is the preset the template was expanded from, nil when the
	// template was sent or there is none.
	Preset *string `json:"preset"`
	// PayloadTemplate is the custom body; nil means the standard body.
	PayloadTemplate *PayloadTemplate `json:"payload_template"`
	// CustomHeaders lists the saved custom header names; values are never
	// returned, so every value is nil. Sending the map back unchanged in
	// [UpsertParams.CustomHeaders] keeps every saved value.
	CustomHeaders map[string]*string `json:"custom_headers"`
	HTTPMethod    string             `json:"http_method"`
	BodyFormat    string             `json:"body_format"`
	// SecretCreatedAt is when the current signing secret was made.
	SecretCreatedAt time.Time `json:"secret_created_at"`
	// PreviousSecrets are rotated-out secrets still signing deliveries.
	PreviousSecrets []RotatedSecret `json:"previous_secrets"`
	CreatedAt       time.Time       `json:"created_at"`
	UpdatedAt       time.Time       `json:"updated_at"`
	// Secret is the signing secret ("whsec_..."): set only in the answer of
	// the create (and of [Service.RotateSecret]), once. Store it at once.
	Secret string `json:"secret,omitempty"`
}

// HeaderNames returns the names of the saved custom headers, sorted.
func (s *Subscription) HeaderNames() []string {
	names := make([]string, 0, len(s.CustomHeaders))
	for n := range s.CustomHeaders {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// UpsertParams are the fields of POST /v1/webhooks. Without ID it creates a
// subscription; with ID it updates that one, changing only the fields set
// (BusinessID and WebhookURL are always required). Use SetNull for explicit
// nulls: "payload_template" (back to the standard body), "custom_headers"
// (no headers) and "description".
type UpsertParams struct {
	voiceagent.NullFields `json:"-"`

	// ID of the subscription to update; empty creates one.
	ID string `json:"id,omitempty"`
	// BusinessID whose events are delivered. Required.
	BusinessID string `json:"business_id"`
	// WebhookURL is the receiver: https:// (the mock server also takes
	// http:// on loopback hosts, and on any host when it runs with
	// -allow-external-webhooks). Required.
	WebhookURL string `json:"webhook_url"`
	// Events to deliver (the Event constants); default every event type.
	Events      []EventType `json:"events,omitempty"`
	Description *string     `json:"description,omitempty"`
	// IsActive pauses (false) or resumes deliveries; default true.
	IsActive *bool `json:"is_active,omitempty"`
	// Preset expands to a payload template (a Preset constant); ignored
	// when PayloadTemplate is sent.
	Preset string `json:"preset,omitempty"`
	// PayloadTemplate replaces the standard body.
	PayloadTemplate *PayloadTemplate `json:"payload_template,omitempty"`
	// CustomHeaders are sent with every delivery (at most 20; not
	// Content-Type, Host, Content-Length, X-Voiceagent-* or webhook-*). The
	// map sent becomes the set of headers; a nil value keeps the saved value
	// of that header.
	CustomHeaders map[string]*string `json:"custom_headers,omitempty"`
	// HTTPMethod is POST (default), PUT or PATCH.
	HTTPMethod string `json:"http_method,omitempty"`
	// BodyFormat is BodyFormatJSON (default) or BodyFormatForm.
	BodyFormat string `json:"body_format,omitempty"`
}

// ListParams filter and page List.
type ListParams struct {
	// BusinessID limits the list to one business.
	BusinessID string `url:"business_id,omitempty"`
	// Limit is the page size, 1 to 100 (default 50).
	Limit int `url:"limit,omitempty"`
	// After is the cursor: the created_at of the last item seen.
	After string `url:"after,omitempty"`
}

// RotateSecretParams are the fields of POST /v1/webhooks/rotate-secret.
type RotateSecretParams struct {
	// ID of the subscription. Required.
	ID string `json:"id"`
	// GracePeriodSeconds is how long the old secret keeps signing (0 to
	// 604800; default 86400). 0 retires it at once.
	GracePeriodSeconds *int `json:"grace_period_seconds,omitempty"`
}

// Service is the webhook subscriptions API. Get it from
// client.Client.Webhooks.
type Service struct{ b *voiceagent.Backend }

// NewService returns the service on a backend.
func NewService(b *voiceagent.Backend) *Service { return &Service{b: b} }

const subscriptionsPath = "/v1/webhooks"

// Upsert creates a subscription (p.ID empty; the answer carries the signing
// secret, once) or updates one (webhooks:write).
func (s *Service) Upsert(ctx context.Context, p *UpsertParams, opts ...voiceagent.Option) (*Subscription, error) {
	return voiceagent.Send[Subscription](ctx, s.b, http.MethodPost, subscriptionsPath, nil, p, opts...)
}

// Get returns one subscription (webhooks:read).
func (s *Service) Get(ctx context.Context, id string, opts ...voiceagent.Option) (*Subscription, error) {
	return voiceagent.Send[Subscription](ctx, s.b, http.MethodGet, subscriptionsPath, voiceagent.IDQuery{ID: id}, nil, opts...)
}

// List returns one page of the subscriptions of the key's businesses,
// newest first (webhooks:read).
func (s *Service) List(ctx context.Context, p *ListParams, opts ...voiceagent.Option) (*voiceagent.Page[Subscription], error) {
	return voiceagent.ListPage(ctx, s.b, subscriptionsPath, "webhooks", p, func(w *Subscription) time.Time { return w.CreatedAt }, opts...)
}

// All walks every subscription, page by page (webhooks:read).
func (s *Service) All(ctx context.Context, p *ListParams, opts ...voiceagent.Option) iter.Seq2[*Subscription, error] {
	return voiceagent.All(ctx, p, func(q *ListParams) *string { return &q.After }, s.List, opts...)
}

// Deleted is the answer of [Service.Delete].
type Deleted struct {
	Success bool   `json:"success"`
	ID      string `json:"id"`
}

// Delete removes a subscription; its pending deliveries are canceled
// (webhooks:write).
func (s *Service) Delete(ctx context.Context, id string, opts ...voiceagent.Option) (*Deleted, error) {
	return voiceagent.Send[Deleted](ctx, s.b, http.MethodDelete, subscriptionsPath, voiceagent.IDQuery{ID: id}, nil, opts...)
}

// RotateSecret gives a subscription a new signing secret (in the answer's
// Secret, once). The old secret keeps signing for the grace period, so
// deliveries carry both signatures until it ends (webhooks:write).
func (s *Service) RotateSecret(ctx context.Context, p *RotateSecretParams, opts ...voiceagent.Option) (*Subscription, error) {
	return voiceagent.Send[Subscription](ctx, s.b, http.MethodPost, subscriptionsPath+"/rotate-secret", nil, p, opts...)
}
