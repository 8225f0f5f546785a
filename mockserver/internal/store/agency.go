package store

import (
	"encoding/json"
	"time"
)

// Roles of a partner (agency) member.
const (
	PartnerRoleAdmin    = "admin"
	PartnerRoleOperator = "operator"
	PartnerRoleReader   = "reader"
)

// AgencyBrand is an agency's brand.
type AgencyBrand struct {
	Name    string `json:"name"`
	LogoURL string `json:"logoUrl"`
}

// AgencySupport is an agency's support contact.
type AgencySupport struct {
	Email     string `json:"email"`
	OwnerName string `json:"ownerName"`
	HelpURL   string `json:"helpUrl"`
	Coverage  string `json:"coverage"`
}

// Partner is an agency. Owner is the partner's own id.
type Partner struct {
	Base
	Brand          AgencyBrand
	Support        AgencySupport
	CommercialMode string
	Revision       string // uuid, changes on bootstrap and update
	UpdatedAt      time.Time
	Members        map[string]*PartnerMember // by user id
	Invites        []*PartnerInvite          // oldest first
}

// PartnerMember is a user's role in an agency.
type PartnerMember struct {
	UserID   string
	Role     string
	JoinedAt time.Time
}

// PartnerInvite is an invitation to join an agency. Only a SHA-256 of its
// token is kept.
type PartnerInvite struct {
	ID         string
	Email      string
	Role       string
	TokenHash  [32]byte
	Status     string // pending, accepted, revoked, expired
	CreatedAt  time.Time
	ExpiresAt  time.Time
	ResolvedAt time.Time
	ResolvedBy string
}

// Offer is an agency's branded offer. Owner is the partner id.
type Offer struct {
	Base
	State       string          // drafted, previewed, published, archived
	Draft       json.RawMessage // canonical JSON of the draft
	Name        string
	Fingerprint string // of Draft
	Revision    string // uuid
	Versions    []string
	UpdatedAt   time.Time
	PreviewedAt time.Time
	PublishedAt time.Time
	ArchivedAt  time.Time
}

// OfferVersion is an immutable published snapshot of an offer. Owner is the
// partner id.
type OfferVersion struct {
	Base
	OfferID     string
	Draft       json.RawMessage
	Fingerprint string
	Packages    []OfferPackage
}

// OfferPackage is one package of an offer.
type OfferPackage struct {
	Key     string `json:"key"`
	Version string `json:"version"`
	Variant string `json:"variant"`
}

// EnrollmentEntry is one client of an enrollment session, as sent.
type EnrollmentEntry struct {
	BusinessID       string          `json:"businessId,omitempty"`
	NewClient        *NewClient      `json:"newClient,omitempty"`
	ExpectedRevision *string         `json:"expectedRevision"`
	Facts            json.RawMessage `json:"facts"`
}

// NewClient is a client business an enrollment creates.
type NewClient struct {
	Name        string `json:"name"`
	ExternalRef string `json:"externalRef"`
	OwnerEmail  string `json:"ownerEmail,omitempty"`
}

// OwnerLink is the link an enrollment's owner claims the session with.
// Only a SHA-256 of its token is kept.
type OwnerLink struct {
	Status    string // none, issued, claimed
	TokenHash [32]byte
	IssuedAt  time.Time
	ClaimedAt time.Time
	ClaimedBy string // user id
}

// OwnerApproval is the owner's approval of one fingerprint of a session.
type OwnerApproval struct {
	ID          string
	Fingerprint string
	ApprovedBy  string
	ApprovedAt  time.Time
}

// ClientReceipt is the per-client outcome of an enroll.
type ClientReceipt struct {
	Entry              int
	State              string // enrolled, updated, waiting, conflict
	Reason             string // a code: stale_revision, reconciliation_required, dependency_unavailable, unchanged
	Detail             string
	BusinessID         string
	ExternalRef        string
	ExistingBusinessID string
	InstallationID     string
	UpdateID           string
	Attempts           int
	UpdatedAt          time.Time
}

// EnrollmentSession enrolls clients into an offer version. Owner is the
// partner id.
type EnrollmentSession struct {
	Base
	OfferVersionID string
	State          string // draft, previewed, approved, enrolling, enrolled, revoked
	SelfService    bool
	Entries        []EnrollmentEntry
	OwnerEmail     string
	OwnerLink      OwnerLink
	Approval       *OwnerApproval
	ApprovalIDs    []string // every approval recorded, oldest first
	Fingerprint    string
	Revision       string // uuid
	Receipts       []*ClientReceipt
	CreatedBy      string
	EnrolledBy     string
	UpdatedAt      time.Time
	EnrolledAt     time.Time
	// EnrolledIn is the tenant of the caller who enrolled the session:
	// its clock retries the waiting clients, and its scoped faults apply.
	EnrolledIn string
}

// InstallStep is a reviewed step of an installation (route receipt,
// handoff).
type InstallStep struct {
	State       string // pending, previewed, approved (handoff: blocked first)
	Content     json.RawMessage
	Fingerprint string
	PreviewedAt time.Time
	ApprovedAt  time.Time
	ApprovedBy  string
}

// PendingUpdate is a change to an installation that waits for a decision.
type PendingUpdate struct {
	ID          string
	Kind        string // facts_change, care_launch
	State       string // pending, resolved
	Parts       []string
	Proposed    json.RawMessage
	Fingerprint string
	Choices     map[string]string
	CreatedAt   time.Time
	ResolvedAt  time.Time
	ResolvedBy  string
}

// CarePackage is the care package's campaign of an installation.
type CarePackage struct {
	State      string // draft, queued, held
	Version    string
	Variant    string
	PreparedAt time.Time
	DecidedAt  time.Time
}

// ScenarioResult is the outcome of one test scenario.
type ScenarioResult struct {
	Scenario string `json:"scenario"`
	Passed   bool   `json:"passed"`
	Detail   string `json:"detail"`
}

// ScenarioRun is one run of test scenarios against an installation.
type ScenarioRun struct {
	ID      string
	Results []ScenarioResult
	RanAt   time.Time
	RanBy   string
}

// Installation is a client business installed by an agency. Owner is the
// partner id.
type Installation struct {
	Base
	BusinessID     string
	SessionID      string
	OfferVersionID string
	AgentID        string
	State          string // awaiting_route, awaiting_handoff, live
	Revision       string // 64 hex
	Facts          json.RawMessage
	FactsRevision  string
	Route          InstallStep
	Handoff        InstallStep
	Updates        []*PendingUpdate
	Care           *CarePackage
	Scenarios      []*ScenarioRun
	UpdatedAt      time.Time
}

// AgencyOperation is an agency command retained while a dependency was
// unavailable. Owner is the partner id (the user id before a partner
// exists).
type AgencyOperation struct {
	Base
	Resource     string
	Action       string
	Status       string // pending, applied, rejected
	Attempts     int
	Result       json.RawMessage
	ErrorStatus  int
	ErrorCode    string
	ErrorMessage string
	UpdatedAt    time.Time
	// Command is the retained command, kept while the operation is
	// pending so that its retry can run it again (nil once it is applied
	// or rejected).
	Command *RetainedCommand
}

// RetainedCommand is what running a retained agency command again needs:
// its typed input and who sent it.
type RetainedCommand struct {
	// Input is the JSON of the command's typed input, the value its
	// operation took (the operation's resource and action name its type):
	// the retry decodes it into that type and calls the operation again.
	Input json.RawMessage
	// Path is the path of the command's resource, which the dependency
	// faults its retries meet are matched on.
	Path string
	// Tenant is the sender's tenant: its clock and its scoped faults apply.
	Tenant string
	// UserID is the user who sent the command; KeyID the key it sent it
	// with ("" for a dashboard session, SessionID).
	UserID, KeyID, SessionID string
	// Businesses are the businesses the sender had access to.
	Businesses []string
}

// UnmarshalJSON decodes a retained command of a snapshot. A document
// written before commands kept their input has the request's body under
// Body instead: its members are the input's, with the action beside them,
// which decoding into the input's type ignores, so it is taken as the
// input.
func (c *RetainedCommand) UnmarshalJSON(data []byte) error {
	type plain RetainedCommand
	var v struct {
		plain
		Body json.RawMessage
	}
	if err := json.Unmarshal(data, &v); err != nil {
		return err
	}
	*c = RetainedCommand(v.plain)
	if len(c.Input) == 0 {
		c.Input = v.Body
	}
	return nil
}

// AgencyTables are the agency records and their indexes.
type AgencyTables struct {
	Partners         *Table[*Partner]
	Offers           *Table[*Offer]
	OfferVersions    *Table[*OfferVersion]
	Enrollments      *Table[*EnrollmentSession]
	Installations    *Table[*Installation]
	AgencyOperations *Table[*AgencyOperation]
	// InstallationByBusiness finds the installation of a client business.
	InstallationByBusiness map[string]*Installation
	// ClientsByRef finds a partner's client business by partner id, NUL and
	// the client's external reference.
	ClientsByRef map[string]string
}

func newAgencyTables() AgencyTables {
	return AgencyTables{
		Partners:               NewTable[*Partner](),
		Offers:                 NewTable[*Offer](),
		OfferVersions:          NewTable[*OfferVersion](),
		Enrollments:            NewTable[*EnrollmentSession](),
		Installations:          NewTable[*Installation](),
		AgencyOperations:       NewTable[*AgencyOperation](),
		InstallationByBusiness: map[string]*Installation{},
		ClientsByRef:           map[string]string{},
	}
}
