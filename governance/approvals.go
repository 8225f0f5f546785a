package governance

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"net/http"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/internal/idstyle"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// Approval channel types. Only the voice-prefixed ones place a call; SMS
// channels are answered 501 not_implemented.
const (
	ChannelVoice        = "voice"
	ChannelVoiceThenSMS = "voice_then_sms"
	ChannelSMSThenVoice = "sms_then_voice"
	ChannelSMS          = "sms"
)

// Approval states (also the decision of the callback).
const (
	ApprovalCalling     = "calling"
	ApprovalApproved    = "approved"
	ApprovalDenied      = "denied"
	ApprovalUnreachable = "unreachable"
	ApprovalExpired     = "expired"
)

// ApprovalCallbackEvent is the event name of approval callbacks.
const ApprovalCallbackEvent = "approval.decided"

// ApprovalChannel is how the person is reached.
type ApprovalChannel struct {
	// Type is one of the Channel constants.
	Type string `json:"type"`
	// Address is the E.164 number called.
	Address string `json:"address"`
}

// ApprovalParams ask a person for an approval.
type ApprovalParams struct {
	// Source is the requester's lowercase slug (letters, digits, _ and -). Required.
	Source string `json:"source"`
	// SourceRequestID is the request's id in the source. Required.
	SourceRequestID string `json:"source_request_id"`
	SourceIntentID  string `json:"source_intent_id,omitempty"`
	MessageID       string `json:"message_id,omitempty"`
	// RespondsToHash is "sha256:" and 64 lowercase hex characters.
	RespondsToHash string `json:"responds_to_hash,omitempty"`
	// PrincipalID is the person asked. Required.
	PrincipalID string `json:"principal_id"`
	// Channel is required.
	Channel ApprovalChannel `json:"channel"`
	// Summary is what is to be approved, read out on the call (at most 2000
	// characters). Required.
	Summary string `json:"summary"`
	// RiskLevel is low, medium, high or critical. Required.
	RiskLevel       string   `json:"risk_level"`
	RequiredFactors []string `json:"required_factors,omitempty"`
	// ExpiresAt is when the request lapses (in the future). Required.
	ExpiresAt time.Time `json:"expires_at"`
	// CallbackURL receives the decision: https on the platform's allowed
	// host list. Required.
	CallbackURL string `json:"callback_url"`
	// CallbackSecretID names the secret that signs the callback; without it
	// each request gets its own secret.
	CallbackSecretID string `json:"callback_secret_id,omitempty"`
}

// CallbackAttempt is one delivery attempt of the callback.
type CallbackAttempt struct {
	At         time.Time `json:"at"`
	StatusCode int       `json:"status_code"`
	Error      string    `json:"error,omitempty"`
}

// CallbackState is the delivery state of an approval's callback.
type CallbackState struct {
	// Status is none (no decision yet), pending, delivered, failed, or
	// not_sent (the host is outside loopback and the platform does not call
	// out; Error says why).
	Status        string            `json:"status"`
	EventID       *string           `json:"event_id"`
	Error         *string           `json:"error"`
	Attempts      []CallbackAttempt `json:"attempts"`
	NextAttemptAt *time.Time        `json:"next_attempt_at"`
}

// Approval is an approval request and its outcome.
type Approval struct {
	ID string `json:"id"`
	// Status is calling, approved, denied, unreachable or expired.
	Status           string          `json:"status"`
	BusinessID       string          `json:"business_id"`
	Source           string          `json:"source"`
	SourceRequestID  string          `json:"source_request_id"`
	SourceIntentID   *string         `json:"source_intent_id"`
	MessageID        *string         `json:"message_id"`
	RespondsToHash   *string         `json:"responds_to_hash"`
	PrincipalID      string          `json:"principal_id"`
	Channel          ApprovalChannel `json:"channel"`
	Summary          string          `json:"summary"`
	RiskLevel        string          `json:"risk_level"`
	RequiredFactors  []string        `json:"required_factors"`
	ExpiresAt        time.Time       `json:"expires_at"`
	CallbackURL      string          `json:"callback_url"`
	CallbackSecretID *string         `json:"callback_secret_id"`
	// CallbackSecret signs the callback. Request returns it once: for a
	// request without CallbackSecretID, and for the first request naming a
	// new CallbackSecretID. Store it.
	CallbackSecret  string        `json:"callback_secret,omitempty"`
	CallID          *string       `json:"call_id"`
	VerifiedFactors []string      `json:"verified_factors"`
	Reason          *string       `json:"reason"`
	DecidedAt       *time.Time    `json:"decided_at"`
	Callback        CallbackState `json:"callback"`
	CreatedAt       time.Time     `json:"created_at"`
	UpdatedAt       time.Time     `json:"updated_at"`
}

// ApprovalDecision is the data of an approval callback.
type ApprovalDecision struct {
	ApprovalRequestID string `json:"approval_request_id"`
	// Decision is approved, denied, unreachable or expired.
	Decision        string          `json:"decision"`
	Reason          string          `json:"reason"`
	Source          string          `json:"source"`
	SourceRequestID string          `json:"source_request_id"`
	SourceIntentID  *string         `json:"source_intent_id"`
	MessageID       *string         `json:"message_id"`
	RespondsToHash  *string         `json:"responds_to_hash"`
	PrincipalID     string          `json:"principal_id"`
	Channel         ApprovalChannel `json:"channel"`
	RiskLevel       string          `json:"risk_level"`
	RequiredFactors []string        `json:"required_factors"`
	VerifiedFactors []string        `json:"verified_factors"`
	CallID          *string         `json:"call_id"`
	DecidedAt       time.Time       `json:"decided_at"`
	ExpiresAt       time.Time       `json:"expires_at"`
}

// ApprovalCallback is the body the platform posts to a callback URL.
type ApprovalCallback struct {
	// ID identifies the callback; deduplicate by it (also the webhook-id
	// header).
	ID         string           `json:"id"`
	Event      string           `json:"event"`
	BusinessID string           `json:"business_id"`
	Timestamp  time.Time        `json:"timestamp"`
	Data       ApprovalDecision `json:"data"`
}

// VerifyApprovalCallback checks the Standard Webhooks signature of a
// callback (webhook-id, webhook-timestamp within webhooks.DefaultTolerance,
// webhook-signature) with the request's secret, then decodes the body.
// Verify the raw body, before any parsing; opts are those of
// webhooks.Verify.
func VerifyApprovalCallback(secret string, header http.Header, body []byte, opts ...webhooks.VerifyOption) (*ApprovalCallback, error) {
	if err := webhooks.Verify(body, header, []string{secret}, opts...); err != nil {
		return nil, fmt.Errorf("governance: approval callback: %w", err)
	}
	var cb ApprovalCallback
	if err := json.Unmarshal(body, &cb); err != nil {
		return nil, fmt.Errorf("governance: decoding approval callback: %w", err)
	}
	return &cb, nil
}

// ApprovalListParams filter and page List.
type ApprovalListParams struct {
	Status string `url:"status,omitempty"`
	// Limit is the page size (default 50, at most 100).
	Limit int `url:"limit,omitempty"`
	// After is the cursor (Page.NextCursor) of the page to read.
	After string `url:"after,omitempty"`
}

// ApprovalsService is the approval requests API (approvals:write, a
// platform-only scope). Get it from client.Client.Approvals.
type ApprovalsService struct{ r idstyle.Resource[Approval] }

// NewApprovalsService returns the service on a backend.
func NewApprovalsService(b *voiceagent.Backend) *ApprovalsService {
	return &ApprovalsService{idstyle.Resource[Approval]{B: b, Path: "/v1/approval-requests", ListKey: "approval_requests",
		CreatedAt: func(a *Approval) time.Time { return a.CreatedAt }}}
}

// Request places the approval call and returns the request in state
// calling. SMS channel types are a 501 *voiceagent.Error
// (voiceagent.ErrNotImplemented).
func (s *ApprovalsService) Request(ctx context.Context, p *ApprovalParams, opts ...voiceagent.Option) (*Approval, error) {
	return s.r.Post(ctx, "", p, opts...)
}

// Get reads an approval request with its decision and callback state.
func (s *ApprovalsService) Get(ctx context.Context, id string, opts ...voiceagent.Option) (*Approval, error) {
	return s.r.Get(ctx, id, opts...)
}

// List reads one page of the caller's approval requests, newest first.
func (s *ApprovalsService) List(ctx context.Context, p *ApprovalListParams, opts ...voiceagent.Option) (*voiceagent.Page[Approval], error) {
	return s.r.List(ctx, p, opts...)
}

// All walks every approval request matching p, page by page.
func (s *ApprovalsService) All(ctx context.Context, p *ApprovalListParams, opts ...voiceagent.Option) iter.Seq2[*Approval, error] {
	return voiceagent.All(ctx, p, func(q *ApprovalListParams) *string { return &q.After }, s.List, opts...)
}
