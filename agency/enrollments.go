package agency

import (
	"context"
	"encoding/json"
	"iter"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// SessionState is where an enrollment session is.
type SessionState string

// Enrollment session states (see the mock server's documentation for the
// transitions).
const (
	SessionDraft     SessionState = "draft"
	SessionPreviewed SessionState = "previewed"
	SessionApproved  SessionState = "approved"
	SessionEnrolling SessionState = "enrolling"
	SessionEnrolled  SessionState = "enrolled"
	SessionRevoked   SessionState = "revoked"
)

// ClientState is the state of one client's enrollment receipt.
type ClientState string

// Client receipt states. Waiting clients are retried by the platform until
// they settle; conflicts change nothing for that client.
const (
	ClientEnrolled ClientState = "enrolled"
	ClientUpdated  ClientState = "updated"
	ClientWaiting  ClientState = "waiting"
	ClientConflict ClientState = "conflict"
)

// Entry is one client of an enrollment: an existing client (BusinessID) or
// a new one (NewClient), exactly one of them.
type Entry struct {
	BusinessID string     `json:"businessId,omitempty"`
	NewClient  *NewClient `json:"newClient,omitempty"`
	// ExpectedRevision is the client's facts revision read last (an
	// installation's FactsRevision), nil (sent as null) for none.
	ExpectedRevision *string `json:"expectedRevision"`
	Facts            Facts   `json:"facts"`
}

// NewClient is a client business the enrollment creates, linked to the
// agency and provisioned with an intake agent and a number.
type NewClient struct {
	Name        string `json:"name"`        // 1-200 characters
	ExternalRef string `json:"externalRef"` // the agency's reference, 1-150
	// OwnerEmail owns the new business (default: the session's ownerEmail,
	// else the owner who claimed the link).
	OwnerEmail string `json:"ownerEmail,omitempty"`
}

// OwnerLink is the session's owner link, without its token (the token is
// only in the email sent to the owner).
type OwnerLink struct {
	// Status is none, issued, claimed or revoked.
	Status    string     `json:"status"`
	IssuedAt  *time.Time `json:"issuedAt"`
	ClaimedAt *time.Time `json:"claimedAt"`
	ClaimedBy string     `json:"claimedBy"`
}

// OwnerApproval is the owner's approval of one fingerprint.
type OwnerApproval struct {
	ApprovalID  string    `json:"approvalId"`
	Fingerprint string    `json:"fingerprint"`
	ApprovedBy  string    `json:"approvedBy"`
	ApprovedAt  time.Time `json:"approvedAt"`
}

// ClientReceipt is the outcome of enrolling one entry.
type ClientReceipt struct {
	Entry int         `json:"entry"`
	State ClientState `json:"state"`
	// Reason is a code: stale_revision or reconciliation_required
	// (conflict), dependency_unavailable (waiting), unchanged (enrolled).
	Reason             string    `json:"reason"`
	Detail             string    `json:"detail"`
	BusinessID         string    `json:"businessId"`
	ExternalRef        string    `json:"externalRef"`
	ExistingBusinessID string    `json:"existingBusinessId"`
	InstallationID     string    `json:"installationId"`
	UpdateID           string    `json:"updateId"`
	Attempts           int       `json:"attempts"`
	UpdatedAt          time.Time `json:"updatedAt"`
}

// Session is an enrollment session.
type Session struct {
	SessionID      string       `json:"sessionId"`
	PartnerID      string       `json:"partnerId"`
	OfferVersionID string       `json:"offerVersionId"`
	State          SessionState `json:"state"`
	SelfService    bool         `json:"selfService"`
	// Revision is the ExpectedRevision of the next command (a uuid).
	Revision string `json:"revision"`
	// Fingerprint is Fingerprint({"offerVersionId", "entries"}).
	Fingerprint   string          `json:"fingerprint"`
	OwnerEmail    string          `json:"ownerEmail"`
	Entries       []Entry         `json:"entries"`
	OwnerLink     OwnerLink       `json:"ownerLink"`
	OwnerApproval *OwnerApproval  `json:"ownerApproval"`
	Clients       []ClientReceipt `json:"clients"`
	CreatedAt     time.Time       `json:"createdAt"`
	UpdatedAt     time.Time       `json:"updatedAt"`
	EnrolledAt    *time.Time      `json:"enrolledAt"`
}

// PlanItem is what enrolling an entry would do, as Preview predicts it.
type PlanItem struct {
	Entry int `json:"entry"`
	// Action is create_client, install, update, unchanged or conflict.
	Action          string `json:"action"`
	BusinessID      string `json:"businessId"`
	ExternalRef     string `json:"externalRef"`
	CurrentRevision string `json:"currentRevision"`
	Conflict        string `json:"conflict"`
}

// EnrollmentReceipt is the answer of an enrollment command.
type EnrollmentReceipt struct {
	ReceiptHeader
	Session Session `json:"session"`
	// Fingerprint and Plan: preview.
	Fingerprint string     `json:"fingerprint,omitempty"`
	Plan        []PlanItem `json:"plan,omitempty"`
	// ApprovalID: approve_owner and finish_self_service, for Enroll's
	// ApprovalIDs.
	ApprovalID string `json:"approvalId,omitempty"`
	// Clients: enroll (answered 202), one receipt per entry.
	Clients []ClientReceipt `json:"clients,omitempty"`
}

// CreateEnrollmentParams create a session (admin or operator). With
// OwnerEmail the owner receives an owner link to claim and approve it.
type CreateEnrollmentParams struct {
	PartnerID      string  `json:"partnerId"`
	OfferVersionID string  `json:"offerVersionId"`
	Entries        []Entry `json:"entries"` // 1-50
	OwnerEmail     string  `json:"ownerEmail,omitempty"`
	// IdempotencyKey is required and must be stable: the same on every
	// retry of this creation (a replay returns the first receipt).
	IdempotencyKey string `json:"-"`
}

// SaveEnrollmentParams replace a session's entries; the session goes back
// to draft and loses its owner approval.
type SaveEnrollmentParams struct {
	PartnerID        string  `json:"partnerId"`
	SessionID        string  `json:"sessionId"`
	ExpectedRevision string  `json:"expectedRevision"`
	Entries          []Entry `json:"entries"`
}

// SessionParams name a session (Preview, Revoke, FinishSelfService).
type SessionParams struct {
	PartnerID string `json:"partnerId"`
	SessionID string `json:"sessionId"`
}

// EnrollParams commit a session: the previewed fingerprint, approved by the
// owner, whose approval is listed in ApprovalIDs.
type EnrollParams struct {
	PartnerID        string   `json:"partnerId"`
	SessionID        string   `json:"sessionId"`
	ExpectedRevision string   `json:"expectedRevision"`
	Fingerprint      string   `json:"fingerprint"`
	ApprovalIDs      []string `json:"approvalIds"` // at most 150
	// IdempotencyKey is required and must be stable across retries.
	IdempotencyKey string `json:"-"`
}

// MarshalJSON sends nil ApprovalIDs as an empty array.
func (p EnrollParams) MarshalJSON() ([]byte, error) {
	type plain EnrollParams
	p.ApprovalIDs = orEmpty(p.ApprovalIDs)
	return json.Marshal(plain(p))
}

// ClaimOwnerParams claim a session with the owner link's token.
type ClaimOwnerParams struct {
	PartnerID string `json:"partnerId"`
	SessionID string `json:"sessionId"`
	Token     string `json:"token"`
}

// ApproveOwnerParams approve exactly the previewed fingerprint (the owner
// who claimed the link).
type ApproveOwnerParams struct {
	PartnerID        string `json:"partnerId"`
	SessionID        string `json:"sessionId"`
	ExpectedRevision string `json:"expectedRevision"`
	Fingerprint      string `json:"fingerprint"`
}

// RotateOwnerLinkParams replace the owner link: the old token stops
// working, the claim and approval are dropped, a new link is emailed.
type RotateOwnerLinkParams struct {
	PartnerID        string `json:"partnerId"`
	SessionID        string `json:"sessionId"`
	ExpectedRevision string `json:"expectedRevision"`
}

// StartSelfServiceParams start a self-service enrollment into a published
// offer version: the caller owns the session.
type StartSelfServiceParams struct {
	OfferVersionID string `json:"offerVersionId"`
	Name           string `json:"name"` // 1-200 characters
	Facts          Facts  `json:"facts"`
}

// OwnerSaveParams replace the facts of a one-client session (its owner).
type OwnerSaveParams struct {
	PartnerID        string `json:"partnerId"`
	SessionID        string `json:"sessionId"`
	ExpectedRevision string `json:"expectedRevision"`
	Facts            Facts  `json:"facts"`
}

// EnrollmentsService enrolls clients (/v1/agency-enrollments).
type EnrollmentsService struct{ b *voiceagent.Backend }

// List returns a page of the agency's sessions, newest first (20 a page).
func (s *EnrollmentsService) List(ctx context.Context, p *ListParams, opts ...voiceagent.Option) (*voiceagent.Page[Session], error) {
	page, _, err := listPage(ctx, s.b, pathEnrollments, "sessions", p, func(x *Session) string { return x.SessionID }, opts)
	return page, err
}

// All walks every session from p.After.
func (s *EnrollmentsService) All(ctx context.Context, p *ListParams, opts ...voiceagent.Option) iter.Seq2[*Session, error] {
	return voiceagent.All(ctx, p, func(q *ListParams) *string { return &q.After }, s.List, opts...)
}

// Get reads one session (agency members, and the owner who claimed it).
func (s *EnrollmentsService) Get(ctx context.Context, p *GetParams, opts ...voiceagent.Option) (*Session, error) {
	return get[Session](ctx, s.b, pathEnrollments, p, opts)
}

// Operations returns the latest retained enrollment commands of the agency.
func (s *EnrollmentsService) Operations(ctx context.Context, partnerID string, opts ...voiceagent.Option) ([]Operation, error) {
	return operations(ctx, s.b, pathEnrollments, partnerID, opts)
}

// Create creates a session. p.IdempotencyKey is required.
func (s *EnrollmentsService) Create(ctx context.Context, p *CreateEnrollmentParams, opts ...voiceagent.Option) (*EnrollmentReceipt, error) {
	var key string
	if p != nil {
		key = p.IdempotencyKey
	}
	opts, err := idempotent("create", key, opts)
	if err != nil {
		return nil, err
	}
	return command[EnrollmentReceipt](ctx, s.b, pathEnrollments, "create", p, opts)
}

// Save replaces a session's entries.
func (s *EnrollmentsService) Save(ctx context.Context, p *SaveEnrollmentParams, opts ...voiceagent.Option) (*EnrollmentReceipt, error) {
	return command[EnrollmentReceipt](ctx, s.b, pathEnrollments, "save", p, opts)
}

// Preview marks the session previewed and returns its fingerprint and what
// enrolling would do per client.
func (s *EnrollmentsService) Preview(ctx context.Context, p *SessionParams, opts ...voiceagent.Option) (*EnrollmentReceipt, error) {
	return command[EnrollmentReceipt](ctx, s.b, pathEnrollments, "preview", p, opts)
}

// Enroll commits the session: the answer (202) has a receipt per client.
// p.IdempotencyKey is required.
func (s *EnrollmentsService) Enroll(ctx context.Context, p *EnrollParams, opts ...voiceagent.Option) (*EnrollmentReceipt, error) {
	var key string
	if p != nil {
		key = p.IdempotencyKey
	}
	opts, err := idempotent("enroll", key, opts)
	if err != nil {
		return nil, err
	}
	return command[EnrollmentReceipt](ctx, s.b, pathEnrollments, "enroll", p, opts)
}

// ClaimOwner makes the caller the session's owner.
func (s *EnrollmentsService) ClaimOwner(ctx context.Context, p *ClaimOwnerParams, opts ...voiceagent.Option) (*EnrollmentReceipt, error) {
	return command[EnrollmentReceipt](ctx, s.b, pathEnrollments, "claim_owner", p, opts)
}

// ApproveOwner records the owner's approval; its ApprovalID goes into
// Enroll's ApprovalIDs.
func (s *EnrollmentsService) ApproveOwner(ctx context.Context, p *ApproveOwnerParams, opts ...voiceagent.Option) (*EnrollmentReceipt, error) {
	return command[EnrollmentReceipt](ctx, s.b, pathEnrollments, "approve_owner", p, opts)
}

// RotateOwnerLink sends the owner a new link.
func (s *EnrollmentsService) RotateOwnerLink(ctx context.Context, p *RotateOwnerLinkParams, opts ...voiceagent.Option) (*EnrollmentReceipt, error) {
	return command[EnrollmentReceipt](ctx, s.b, pathEnrollments, "rotate_owner_link", p, opts)
}

// Revoke revokes a session that is not enrolled.
func (s *EnrollmentsService) Revoke(ctx context.Context, p *SessionParams, opts ...voiceagent.Option) (*EnrollmentReceipt, error) {
	return command[EnrollmentReceipt](ctx, s.b, pathEnrollments, "revoke", p, opts)
}

// StartSelfService starts a self-service session owned by the caller.
func (s *EnrollmentsService) StartSelfService(ctx context.Context, p *StartSelfServiceParams, opts ...voiceagent.Option) (*EnrollmentReceipt, error) {
	return command[EnrollmentReceipt](ctx, s.b, pathEnrollments, "start_self_service", p, opts)
}

// OwnerSave replaces the facts of the owner's one-client session.
func (s *EnrollmentsService) OwnerSave(ctx context.Context, p *OwnerSaveParams, opts ...voiceagent.Option) (*EnrollmentReceipt, error) {
	return command[EnrollmentReceipt](ctx, s.b, pathEnrollments, "owner_save", p, opts)
}

// FinishSelfService submits the owner's self-service session approved; the
// agency then enrolls it.
func (s *EnrollmentsService) FinishSelfService(ctx context.Context, p *SessionParams, opts ...voiceagent.Option) (*EnrollmentReceipt, error) {
	return command[EnrollmentReceipt](ctx, s.b, pathEnrollments, "finish_self_service", p, opts)
}
