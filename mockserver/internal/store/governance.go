package store

import (
	"encoding/json"
	"time"
)

// GovernedUpdate is a reviewed change (agent.patch, phone emergency address,
// transcript sink) and its outcome. Owner is its business.
type GovernedUpdate struct {
	Base
	Intent           string
	Status           string // applied, pending_approval, rejected, failed
	IdempotencyKey   string
	Fingerprint      [32]byte
	Target           map[string]any
	Payload          map[string]any
	Actor            map[string]any
	Authority        map[string]any
	QueueForApproval bool
	Reason           *string
	SourceRef        *string
	Extra            map[string]any // top-level properties beyond the schema's
	Result           any
	Error            map[string]any
	DecidedBy        string
	DecidedAt        *time.Time
	DecisionNote     *string
	UpdatedAt        time.Time
	// Answer is the update as it was when it was submitted (applied or
	// pending approval), which a request with the same idempotency_key
	// gets again; a rejected update's response is made from its Error.
	Answer json.RawMessage
}

// EmergencyAddress is the emergency (911) address of a phone number.
type EmergencyAddress struct {
	NumberID   string         `json:"-"`
	Address    map[string]any `json:"address"`
	UpdatedAt  time.Time      `json:"updated_at"`
	UpdateID   string         `json:"governed_update_id"`
	BusinessID string         `json:"-"`
}

// TranscriptSink is where a business's call transcripts are sent.
type TranscriptSink struct {
	URL       string    `json:"url"`
	Enabled   bool      `json:"enabled"`
	Format    string    `json:"format"`
	UpdatedAt time.Time `json:"updated_at"`
	UpdateID  string    `json:"governed_update_id"`
}

// CallbackAttempt is one delivery attempt of an approval callback.
type CallbackAttempt struct {
	At         time.Time `json:"at"`
	StatusCode int       `json:"status_code"`
	Error      string    `json:"error,omitempty"`
}

// ApprovalRequest asks a human for an approval over a voice channel. Owner
// is the business whose number places the call (BusinessID).
type ApprovalRequest struct {
	Base
	BusinessID       string // whose number places the call
	Source           string
	SourceRequestID  string
	SourceIntentID   *string
	MessageID        *string
	RespondsToHash   *string
	PrincipalID      string
	ChannelType      string
	ChannelAddress   string
	Summary          string
	RiskLevel        string
	RequiredFactors  []string
	ExpiresAt        time.Time
	CallbackURL      string
	CallbackSecretID *string
	Secret           string // signs the callback

	Status          string // calling, approved, denied, unreachable, expired
	CallID          string
	VerifiedFactors []string
	DecidedAt       *time.Time
	Reason          string

	// The callback is a delivery of kind DeliveryApprovalCallback; the
	// delivery engine keeps these fields up to date as it goes.
	CallbackStatus   string // none, pending, delivered, failed, not_sent
	CallbackError    string // why a callback was not sent
	CallbackEventID  string
	CallbackAttempts []CallbackAttempt
	NextAttemptAt    *time.Time
	UpdatedAt        time.Time
}
