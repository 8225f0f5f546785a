package agency

import (
	"context"
	"encoding/json"
	"iter"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// InstallationState is where an installation is.
type InstallationState string

// Installation states: the route receipt is reviewed first, then the
// handoff; a live installation whose route facts change goes back to
// awaiting_route.
const (
	InstallationAwaitingRoute   InstallationState = "awaiting_route"
	InstallationAwaitingHandoff InstallationState = "awaiting_handoff"
	InstallationLive            InstallationState = "live"
)

// Step states of the route receipt and the handoff.
const (
	StepBlocked   = "blocked" // handoff only: the route receipt is not approved yet
	StepPending   = "pending"
	StepPreviewed = "previewed"
	StepApproved  = "approved"
)

// UpdateKind is what a pending update changes.
type UpdateKind string

// Update kinds: new facts from a later enrollment (choices per changed part:
// ChoiceApply or ChoiceKeep), and the launch of the care package's draft
// campaign (choice "launch": ChoiceQueue or ChoiceHold; needs sms:write).
const (
	UpdateFactsChange UpdateKind = "facts_change"
	UpdateCareLaunch  UpdateKind = "care_launch"
)

// Choice is the decision on one part of a pending update.
type Choice string

// Choices.
const (
	ChoiceApply Choice = "apply"
	ChoiceKeep  Choice = "keep"
	ChoiceQueue Choice = "queue"
	ChoiceHold  Choice = "hold"
)

// Step is a reviewed step of an installation: its content C as previewed.
type Step[C any] struct {
	State string `json:"state"`
	// Fingerprint is Fingerprint(RawContent) of the previewed content.
	Fingerprint string `json:"fingerprint"`
	// Content is the previewed content (nil before a preview).
	Content *C `json:"content"`
	// RawContent is the content as the server sent it, for Fingerprint.
	RawContent  json.RawMessage `json:"-"`
	PreviewedAt *time.Time      `json:"previewedAt"`
	ApprovedAt  *time.Time      `json:"approvedAt"`
	ApprovedBy  string          `json:"approvedBy"`
}

// UnmarshalJSON keeps the raw content beside the decoded one.
func (s *Step[C]) UnmarshalJSON(b []byte) error {
	type plain Step[C]
	var raw struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(b, (*plain)(s)); err != nil {
		return err
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	if string(raw.Content) != "null" {
		s.RawContent = raw.Content
	}
	return nil
}

// RouteContent is what a route receipt shows: where the client's calls and
// leads go.
type RouteContent struct {
	InstallationID string          `json:"installationId"`
	BusinessID     string          `json:"businessId"`
	AgentID        string          `json:"agentId"`
	PhoneNumber    string          `json:"phoneNumber"`
	Routing        *Routing        `json:"routing"`
	Fallback       *Fallback       `json:"fallback"`
	IntakeCoverage *IntakeCoverage `json:"intakeCoverage"`
}

// HandoffContent is what a handoff hands to the client's owner.
type HandoffContent struct {
	InstallationID          string       `json:"installationId"`
	BusinessID              string       `json:"businessId"`
	OwnerUserID             string       `json:"ownerUserId"`
	OwnerEmail              string       `json:"ownerEmail"`
	AgentID                 string       `json:"agentId"`
	PhoneNumber             string       `json:"phoneNumber"`
	OfferVersionID          string       `json:"offerVersionId"`
	Packages                []Package    `json:"packages"`
	RouteReceiptFingerprint string       `json:"routeReceiptFingerprint"`
	CarePackage             *CarePackage `json:"carePackage"`
	Reporting               *Reporting   `json:"reporting"`
}

// Update is a change to an installation that waits for ResolveUpdate.
type Update struct {
	UpdateID string     `json:"updateId"`
	Kind     UpdateKind `json:"kind"`
	// State is pending or resolved.
	State string `json:"state"`
	// Parts are what the choices must decide: the facts parts that differ,
	// or "launch".
	Parts []string `json:"parts"`
	// Proposed is the proposed content: the new Facts for facts_change
	// (see ProposedFacts).
	Proposed    json.RawMessage   `json:"proposed"`
	Fingerprint string            `json:"fingerprint"`
	Choices     map[string]Choice `json:"choices"`
	CreatedAt   time.Time         `json:"createdAt"`
	ResolvedAt  *time.Time        `json:"resolvedAt"`
	ResolvedBy  string            `json:"resolvedBy"`
}

// ProposedFacts decodes the proposed facts of a facts_change update.
func (u *Update) ProposedFacts() (*Facts, error) {
	var f Facts
	if err := json.Unmarshal(u.Proposed, &f); err != nil {
		return nil, err
	}
	return &f, nil
}

// CarePackage is the care package's campaign: a draft until its launch is
// resolved (queued or held).
type CarePackage struct {
	State      string     `json:"state"`
	Version    string     `json:"version"`
	Variant    string     `json:"variant"`
	PreparedAt time.Time  `json:"preparedAt"`
	DecidedAt  *time.Time `json:"decidedAt"`
}

// ScenarioResult is the outcome of one test scenario.
type ScenarioResult struct {
	Scenario string `json:"scenario"`
	Passed   bool   `json:"passed"`
	Detail   string `json:"detail"`
}

// ScenarioRun is a run of test scenarios.
type ScenarioRun struct {
	RunID   string           `json:"runId"`
	Results []ScenarioResult `json:"results"`
	RanAt   time.Time        `json:"ranAt"`
	RanBy   string           `json:"ranBy"`
}

// Installation is a client business installed by an enrollment.
type Installation struct {
	InstallationID string            `json:"installationId"`
	PartnerID      string            `json:"partnerId"`
	BusinessID     string            `json:"businessId"`
	BusinessName   string            `json:"businessName"`
	AgentID        string            `json:"agentId"`
	PhoneNumber    string            `json:"phoneNumber"`
	SessionID      string            `json:"sessionId"`
	OfferVersionID string            `json:"offerVersionId"`
	State          InstallationState `json:"state"`
	// Revision is the ExpectedRevision of the next command (64 hex).
	Revision string `json:"revision"`
	// FactsRevision is Fingerprint(Facts): an Entry's ExpectedRevision when
	// the client is enrolled again.
	FactsRevision  string               `json:"factsRevision"`
	Facts          Facts                `json:"facts"`
	RouteReceipt   Step[RouteContent]   `json:"routeReceipt"`
	Handoff        Step[HandoffContent] `json:"handoff"`
	PendingUpdates int                  `json:"pendingUpdates"`
	// Updates are the latest 20, newest first.
	Updates     []Update     `json:"updates"`
	CarePackage *CarePackage `json:"carePackage"`
	// ScenarioRuns are the latest 10, newest first.
	ScenarioRuns []ScenarioRun `json:"scenarioRuns"`
	CreatedAt    time.Time     `json:"createdAt"`
	UpdatedAt    time.Time     `json:"updatedAt"`
}

// InstallationReceipt is the answer of an installation command.
type InstallationReceipt struct {
	ReceiptHeader
	Installation Installation `json:"installation"`
	// Fingerprint: the previews, the fingerprint of the previewed content.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Update: resolve_update, the resolved update.
	Update *Update `json:"update,omitempty"`
	// ScenarioRun: run_scenarios.
	ScenarioRun *ScenarioRun `json:"scenarioRun,omitempty"`
}

// StepParams preview or approve the route receipt or the handoff. A
// Fingerprint, when set, must match (the content's on a preview, the
// previewed one on an approval).
type StepParams struct {
	PartnerID        string `json:"partnerId"`
	InstallationID   string `json:"installationId"`
	ExpectedRevision string `json:"expectedRevision"`
	Fingerprint      string `json:"fingerprint,omitempty"`
}

// ResolveUpdateParams decide a pending update: one choice per part.
type ResolveUpdateParams struct {
	PartnerID        string            `json:"partnerId"`
	InstallationID   string            `json:"installationId"`
	ExpectedRevision string            `json:"expectedRevision"`
	UpdateID         string            `json:"updateId"`
	Fingerprint      string            `json:"fingerprint"`
	Choices          map[string]Choice `json:"choices"`
}

// Scenario names run_scenarios knows.
const (
	ScenarioAfterHours      = "after_hours"
	ScenarioBooking         = "booking"
	ScenarioEmergency       = "emergency"
	ScenarioLeadCapture     = "lead_capture"
	ScenarioPricingQuestion = "pricing_question"
	ScenarioWrongNumber     = "wrong_number"
)

// RunScenariosParams run test scenarios (evals:write); no Scenarios runs
// them all.
type RunScenariosParams struct {
	PartnerID        string   `json:"partnerId"`
	InstallationID   string   `json:"installationId"`
	ExpectedRevision string   `json:"expectedRevision"`
	Scenarios        []string `json:"scenarios,omitempty"` // at most 20
}

// InstallationsService reviews installations (/v1/agency-installations).
type InstallationsService struct{ b *voiceagent.Backend }

// List returns a page of the agency's installations, newest first (50 a
// page).
func (s *InstallationsService) List(ctx context.Context, p *ListParams, opts ...voiceagent.Option) (*voiceagent.Page[Installation], error) {
	page, _, err := listPage(ctx, s.b, pathInstallations, "installations", p,
		func(i *Installation) string { return i.InstallationID }, opts)
	return page, err
}

// All walks every installation from p.After.
func (s *InstallationsService) All(ctx context.Context, p *ListParams, opts ...voiceagent.Option) iter.Seq2[*Installation, error] {
	return voiceagent.All(ctx, p, func(q *ListParams) *string { return &q.After }, s.List, opts...)
}

// Get reads one installation.
func (s *InstallationsService) Get(ctx context.Context, p *GetParams, opts ...voiceagent.Option) (*Installation, error) {
	return get[Installation](ctx, s.b, pathInstallations, p, opts)
}

// Operations returns the latest retained installation commands.
func (s *InstallationsService) Operations(ctx context.Context, partnerID string, opts ...voiceagent.Option) ([]Operation, error) {
	return operations(ctx, s.b, pathInstallations, partnerID, opts)
}

// PreviewRouteReceipt computes the route receipt and its fingerprint.
func (s *InstallationsService) PreviewRouteReceipt(ctx context.Context, p *StepParams, opts ...voiceagent.Option) (*InstallationReceipt, error) {
	return command[InstallationReceipt](ctx, s.b, pathInstallations, "preview_route_receipt", p, opts)
}

// ApproveRouteReceipt approves the previewed route receipt; the handoff
// can then be previewed.
func (s *InstallationsService) ApproveRouteReceipt(ctx context.Context, p *StepParams, opts ...voiceagent.Option) (*InstallationReceipt, error) {
	return command[InstallationReceipt](ctx, s.b, pathInstallations, "approve_route_receipt", p, opts)
}

// PreviewHandoff computes the handoff and its fingerprint.
func (s *InstallationsService) PreviewHandoff(ctx context.Context, p *StepParams, opts ...voiceagent.Option) (*InstallationReceipt, error) {
	return command[InstallationReceipt](ctx, s.b, pathInstallations, "preview_handoff", p, opts)
}

// ApproveHandoff approves the previewed handoff: the installation is live.
func (s *InstallationsService) ApproveHandoff(ctx context.Context, p *StepParams, opts ...voiceagent.Option) (*InstallationReceipt, error) {
	return command[InstallationReceipt](ctx, s.b, pathInstallations, "approve_handoff", p, opts)
}

// ResolveUpdate decides a pending update.
func (s *InstallationsService) ResolveUpdate(ctx context.Context, p *ResolveUpdateParams, opts ...voiceagent.Option) (*InstallationReceipt, error) {
	return command[InstallationReceipt](ctx, s.b, pathInstallations, "resolve_update", p, opts)
}

// RunScenarios runs test scenarios against the installation's facts.
func (s *InstallationsService) RunScenarios(ctx context.Context, p *RunScenariosParams, opts ...voiceagent.Option) (*InstallationReceipt, error) {
	return command[InstallationReceipt](ctx, s.b, pathInstallations, "run_scenarios", p, opts)
}
