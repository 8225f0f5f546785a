package store

import (
	"time"

	"github.com/voiceagent/voiceagent-go/webhooks"
)

// Webhook is a webhook subscription. Owner is its business.
type Webhook struct {
	Base
	URL         string
	Events      []string
	Description *string
	Active      bool
	// Preset is the preset the payload template was expanded from ("" when
	// the template was sent or there is none).
	Preset string
	// Template is the payload template; nil means the standard body.
	Template *webhooks.PayloadTemplate
	// CustomHeaders maps canonical header names to values (never shown).
	CustomHeaders map[string]string
	HTTPMethod    string
	BodyFormat    string
	// Secrets are the signing secrets, newest first. Every secret whose
	// ExpiresAt is zero or after the attempt's time signs a delivery.
	Secrets   []WebhookSecret
	UpdatedAt time.Time
}

// WebhookSecret is one signing secret of a subscription.
type WebhookSecret struct {
	Value     string
	CreatedAt time.Time
	// ExpiresAt is when a rotated-out secret stops signing (zero: current).
	ExpiresAt time.Time
}

// SignsAt reports whether the secret signs a delivery at a simulated
// time: it is current, or rotated out but not yet expired.
func (s WebhookSecret) SignsAt(at time.Time) bool {
	return s.ExpiresAt.IsZero() || s.ExpiresAt.After(at)
}

// Rotated reports whether the secret was rotated out (it expires).
func (s WebhookSecret) Rotated() bool { return !s.ExpiresAt.IsZero() }
