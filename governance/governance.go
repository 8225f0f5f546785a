// Package governance submits reviewed changes and asks humans for approvals.
//
// Governed updates (POST /v1/governed-updates) change sensitive settings
// under an explicit intent, actor and authority: an agent's configuration
// (IntentAgentPatch), a number's emergency address (IntentEmergencyAddress)
// and the business's transcript sink (IntentTranscriptSink). A request can
// be a dry run (evaluated, nothing changes), be queued for a human's
// approval (Decide, with a dashboard session), or apply at once when its
// authority suffices:
//
//	| intent                       | authority modes that apply directly                          |
//	|------------------------------|--------------------------------------------------------------|
//	| agent.patch                  | agent_asserted, human_confirmed, dashboard_session, system_policy |
//	| transcripts.sink.configure   | human_confirmed, dashboard_session, system_policy            |
//	| phone.emergency_address.set  | human_confirmed, dashboard_session                           |
//
// Any other mode (none included) is a 403 forbidden unless the request sets
// QueueForApproval. human_confirmed needs ConfirmedBy and a past
// ConfirmedAt; dashboard_session needs the request to be made with a
// dashboard session. Mutating requests carry an IdempotencyKey: per
// business, a replay returns the first outcome (the same status and body,
// a rejection included); the same key with another body is 409
// idempotency_conflict. Keys need agents:write for agent.patch and
// workspaces:write for the other intents.
//
// Approval requests (POST /v1/approval-requests, the platform-only scope
// approvals:write) call a person and ask them to approve something; the
// decision is posted to a callback URL, signed like a webhook (see
// VerifyApprovalCallback).
package governance

import (
	"context"
	"encoding/json"
	"iter"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/internal/idstyle"
)

// Intent is what a governed update changes.
type Intent string

// Intents of governed updates.
const (
	// IntentAgentPatch patches an agent: Target AgentTarget, Payload the
	// fields of PATCH /v1/agents (a map, as agents.UpdateParams without id).
	IntentAgentPatch Intent = "agent.patch"
	// IntentEmergencyAddress sets a number's emergency address: Target
	// NumberTarget, Payload EmergencyAddress.
	IntentEmergencyAddress Intent = "phone.emergency_address.set"
	// IntentTranscriptSink configures where call transcripts go: Payload
	// TranscriptSink.
	IntentTranscriptSink Intent = "transcripts.sink.configure"
)

// Authority modes.
const (
	AuthorityNone             = "none"
	AuthorityAgentAsserted    = "agent_asserted"
	AuthorityHumanConfirmed   = "human_confirmed"
	AuthorityDashboardSession = "dashboard_session"
	AuthoritySystemPolicy     = "system_policy"
)

// States of a governed update.
const (
	StatusApplied         = "applied"
	StatusPendingApproval = "pending_approval"
	StatusRejected        = "rejected"
	// StatusFailed: approved, but the change could not be made (its target
	// was gone).
	StatusFailed = "failed"
	// StatusDryRun is the status of a dry run's answer.
	StatusDryRun = "dry_run"
)

// Actor is who asks for a change.
type Actor struct {
	// Type is agent, human, system or integration. Required.
	Type        string `json:"type"`
	ID          string `json:"id,omitempty"`
	DisplayName string `json:"display_name,omitempty"`
}

// Authority is how a change is authorized.
type Authority struct {
	// Mode is one of the Authority constants. Required.
	Mode            string     `json:"mode"`
	ConfirmedBy     string     `json:"confirmed_by,omitempty"`
	ConfirmedAt     *time.Time `json:"confirmed_at,omitempty"`
	ConfirmationRef string     `json:"confirmation_ref,omitempty"`
}

// AgentTarget is the target of IntentAgentPatch.
type AgentTarget struct {
	AgentID string `json:"agent_id"`
}

// NumberTarget is the target of IntentEmergencyAddress: the number by id
// or by E.164 value.
type NumberTarget struct {
	NumberID    string `json:"number_id,omitempty"`
	PhoneNumber string `json:"phone_number,omitempty"`
}

// EmergencyAddress is the payload of IntentEmergencyAddress.
type EmergencyAddress struct {
	Name       string `json:"name,omitempty"`
	Street     string `json:"street"`
	Street2    string `json:"street2,omitempty"`
	City       string `json:"city"`
	State      string `json:"state"`
	PostalCode string `json:"postal_code"`
	// Country is an ISO 3166-1 alpha-2 code such as US.
	Country string `json:"country"`
}

// TranscriptSink is the payload of IntentTranscriptSink.
type TranscriptSink struct {
	// URL receives transcripts (https).
	URL string `json:"url"`
	// Enabled defaults to true.
	Enabled *bool `json:"enabled,omitempty"`
	// Format is json (default) or text.
	Format string `json:"format,omitempty"`
}

// UpdateParams are a governed update request.
type UpdateParams struct {
	// Intent is required.
	Intent Intent `json:"intent"`
	// BusinessID defaults to the target's business (or the key's only one).
	BusinessID string `json:"business_id,omitempty"`
	// Target is AgentTarget, NumberTarget or a map.
	Target any `json:"target,omitempty"`
	// Payload is a map (agent.patch), EmergencyAddress or TranscriptSink.
	Payload any `json:"payload,omitempty"`
	// IdempotencyKey is required unless DryRun.
	IdempotencyKey   string     `json:"idempotency_key,omitempty"`
	Actor            *Actor     `json:"actor,omitempty"`
	Authority        *Authority `json:"authority,omitempty"`
	DryRun           bool       `json:"dry_run,omitempty"`
	QueueForApproval bool       `json:"queue_for_approval,omitempty"`
	Reason           string     `json:"reason,omitempty"`
	SourceRef        string     `json:"source_ref,omitempty"`
	// Extra are more top-level properties, kept with the update.
	Extra map[string]any `json:"-"`
}

// MarshalJSON adds Extra to the top level.
func (p UpdateParams) MarshalJSON() ([]byte, error) {
	type plain UpdateParams
	b, err := json.Marshal(plain(p))
	if err != nil || len(p.Extra) == 0 {
		return b, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for k, v := range p.Extra {
		if _, known := m[k]; !known {
			m[k] = v
		}
	}
	return json.Marshal(m)
}

// UpdateError is why an update was rejected or failed.
type UpdateError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Update is a governed update, or the answer of a dry run.
type Update struct {
	ID         string `json:"id"`
	BusinessID string `json:"business_id"`
	Intent     Intent `json:"intent"`
	// Status is applied, pending_approval, rejected, failed, or dry_run.
	Status           string         `json:"status"`
	DryRun           bool           `json:"dry_run"`
	IdempotencyKey   string         `json:"idempotency_key"`
	Target           map[string]any `json:"target"`
	Payload          map[string]any `json:"payload"`
	Actor            *Actor         `json:"actor"`
	Authority        *Authority     `json:"authority"`
	QueueForApproval bool           `json:"queue_for_approval"`
	Reason           *string        `json:"reason"`
	SourceRef        *string        `json:"source_ref"`
	Extra            map[string]any `json:"extra"`
	// Result is what the change did (for agent.patch the answer of PATCH
	// /v1/agents; for the others the stored setting).
	Result       map[string]any `json:"result"`
	Error        *UpdateError   `json:"error"`
	DecidedBy    *string        `json:"decided_by"`
	DecidedAt    *time.Time     `json:"decided_at"`
	DecisionNote *string        `json:"decision_note"`
	CreatedAt    time.Time      `json:"created_at"`
	UpdatedAt    time.Time      `json:"updated_at"`

	// Dry runs only: what would happen (applied, pending_approval or
	// rejected), the current and new values, and the authority verdict.
	Would                 string         `json:"would,omitempty"`
	Changes               map[string]any `json:"changes,omitempty"`
	AuthoritySufficient   bool           `json:"authority_sufficient,omitempty"`
	AllowedAuthorityModes []string       `json:"allowed_authority_modes,omitempty"`
	RejectionReason       string         `json:"rejection_reason,omitempty"`
}

// DecideParams approve or reject a queued update.
type DecideParams struct {
	ID string `json:"id"`
	// Decision is "approve" or "reject".
	Decision string `json:"decision"`
	Note     string `json:"note,omitempty"`
}

// ListParams filter and page List.
type ListParams struct {
	BusinessID string `url:"business_id,omitempty"`
	Status     string `url:"status,omitempty"`
	Intent     Intent `url:"intent,omitempty"`
	// Limit is the page size (default 50, at most 100).
	Limit int `url:"limit,omitempty"`
	// After is the cursor (Page.NextCursor) of the page to read.
	After string `url:"after,omitempty"`
}

// UpdatesService is the governed updates API. Get it from
// client.Client.GovernedUpdates.
type UpdatesService struct{ r idstyle.Resource[Update] }

// NewUpdatesService returns the service on a backend.
func NewUpdatesService(b *voiceagent.Backend) *UpdatesService {
	return &UpdatesService{idstyle.Resource[Update]{B: b, Path: "/v1/governed-updates", ListKey: "governed_updates",
		CreatedAt: func(u *Update) time.Time { return u.CreatedAt }}}
}

// Submit sends a governed update. An applied update answers 200, a queued
// one 202 (Status pending_approval); a rejection is a 403 *voiceagent.Error
// whose Body carries governed_update_id and allowed_authority_modes.
func (s *UpdatesService) Submit(ctx context.Context, p *UpdateParams, opts ...voiceagent.Option) (*Update, error) {
	return s.r.Post(ctx, "", p, opts...)
}

// Decide approves or rejects a queued update. It needs a dashboard session
// (voiceagent.WithSessionCookie): a bearer key cannot approve a change.
func (s *UpdatesService) Decide(ctx context.Context, p *DecideParams, opts ...voiceagent.Option) (*Update, error) {
	return s.r.Post(ctx, s.r.Path+"/decide", p, opts...)
}

// Get reads a governed update.
func (s *UpdatesService) Get(ctx context.Context, id string, opts ...voiceagent.Option) (*Update, error) {
	return s.r.Get(ctx, id, opts...)
}

// List reads one page of governed updates, newest first.
func (s *UpdatesService) List(ctx context.Context, p *ListParams, opts ...voiceagent.Option) (*voiceagent.Page[Update], error) {
	return s.r.List(ctx, p, opts...)
}

// All walks every governed update matching p, page by page.
func (s *UpdatesService) All(ctx context.Context, p *ListParams, opts ...voiceagent.Option) iter.Seq2[*Update, error] {
	return voiceagent.All(ctx, p, func(q *ListParams) *string { return &q.After }, s.List, opts...)
}
