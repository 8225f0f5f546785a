package agency

import (
	"context"
	"net/http"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// CommercialMode is how an agency is paid.
type CommercialMode string

// Commercial modes.
const (
	CommercialModeCommission    CommercialMode = "commission"
	CommercialModePartnerBilled CommercialMode = "partner_billed"
)

// Role is a member's role in the agency: admins do everything, operators
// run offers, enrollments and the installations of the clients they are
// assigned to, readers only read.
type Role string

// Member roles.
const (
	RoleAdmin    Role = "admin"
	RoleOperator Role = "operator"
	RoleReader   Role = "reader"
)

// BusinessRole is a member's role on a client business.
type BusinessRole string

// Business roles an assignment gives (BusinessRoleOwner is the client's
// owner, shown in assignments, never assigned).
const (
	BusinessRoleAdmin  BusinessRole = "admin"
	BusinessRoleMember BusinessRole = "member"
	BusinessRoleOwner  BusinessRole = "owner"
)

// Brand is the agency's brand. An empty LogoURL is sent as "" (none), as
// the profile shows it.
type Brand struct {
	Name    string `json:"name"`    // 1-120 characters
	LogoURL string `json:"logoUrl"` // absolute URI (at most 1000) or empty
}

// Support is the agency's support contact. An empty HelpURL is sent as ""
// (none), as the profile shows it.
type Support struct {
	Email     string `json:"email"`     // at most 254 characters
	OwnerName string `json:"ownerName"` // 1-120
	HelpURL   string `json:"helpUrl"`   // absolute URI (at most 1000) or empty
	Coverage  string `json:"coverage"`  // 1-500
}

// Profile is the agency's profile.
type Profile struct {
	PartnerID      string         `json:"partnerId"`
	Brand          Brand          `json:"brand"`
	Support        Support        `json:"support"`
	CommercialMode CommercialMode `json:"commercialMode"`
	// Revision is the ExpectedRevision of Update (a uuid).
	Revision  string    `json:"revision"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// Member is a member of the agency with the client businesses they are
// assigned to.
type Member struct {
	UserID      string       `json:"userId"`
	Email       string       `json:"email"`
	Role        Role         `json:"role"`
	JoinedAt    time.Time    `json:"joinedAt"`
	Assignments []Assignment `json:"assignments"`
}

// Assignment is a member's role on a client business.
type Assignment struct {
	BusinessID   string       `json:"businessId"`
	BusinessRole BusinessRole `json:"businessRole"`
}

// Invite is an invitation to join the agency. Its token is only in the
// invitation email, never in an answer.
type Invite struct {
	InviteID string `json:"inviteId"`
	Email    string `json:"email"`
	Role     Role   `json:"role"`
	// Status is pending, accepted, revoked or expired (after 7 days).
	Status     string     `json:"status"`
	CreatedAt  time.Time  `json:"createdAt"`
	ExpiresAt  time.Time  `json:"expiresAt"`
	ResolvedAt *time.Time `json:"resolvedAt"`
}

// PartnerKey is an API key of the agency: it reaches exactly the agency's
// client businesses.
type PartnerKey struct {
	ID        string             `json:"id"`
	Prefix    string             `json:"prefix"`
	Name      string             `json:"name"`
	Scopes    []voiceagent.Scope `json:"scopes"`
	PartnerID string             `json:"partnerId"`
	// UserID is the member the key acts as.
	UserID    string    `json:"userId"`
	IsActive  bool      `json:"isActive"`
	CreatedAt time.Time `json:"createdAt"`
	// Key is the full key value: only in IssueKey's receipt, once.
	Key string `json:"key,omitempty"`
}

// ProfileState is GET /v1/agency-profile.
type ProfileState struct {
	// Profile is nil for a caller whose bootstrap is still retained.
	Profile *Profile `json:"profile"`
	// Role is the caller's role.
	Role    Role     `json:"role"`
	Members []Member `json:"members"`
	// Invites are the latest 100, newest first.
	Invites []Invite `json:"invites"`
	// Keys are the latest 100 partner keys, newest first, without values.
	Keys []PartnerKey `json:"keys"`
	// Operations are the latest 20 retained profile commands.
	Operations []Operation `json:"operations"`
}

// ProfileReceipt is the answer of a profile command.
type ProfileReceipt struct {
	ReceiptHeader
	// Profile: bootstrap, update, revoke_member.
	Profile *Profile `json:"profile,omitempty"`
	// Member: bootstrap (the caller, admin), accept_invite, assign, unassign.
	Member *Member `json:"member,omitempty"`
	// Invite: invite, revoke_invite.
	Invite *Invite `json:"invite,omitempty"`
	// Key: issue_key, with the key's value.
	Key *PartnerKey `json:"key,omitempty"`
	// RevokedUserID: revoke_member.
	RevokedUserID string `json:"revokedUserId,omitempty"`
}

// BootstrapParams create the caller's agency; the caller becomes its admin.
type BootstrapParams struct {
	Brand   Brand   `json:"brand"`
	Support Support `json:"support"`
}

// UpdateProfileParams replace the profile (admin).
type UpdateProfileParams struct {
	PartnerID        string         `json:"partnerId"`
	ExpectedRevision string         `json:"expectedRevision"`
	Brand            Brand          `json:"brand"`
	Support          Support        `json:"support"`
	CommercialMode   CommercialMode `json:"commercialMode"`
}

// InviteParams invite a member by email (admin). The invitee receives a
// link with a token for AcceptInvite.
type InviteParams struct {
	PartnerID string `json:"partnerId"`
	Email     string `json:"email"`
	Role      Role   `json:"role"`
}

// AcceptInviteParams join an agency with the token of an invitation.
type AcceptInviteParams struct {
	PartnerID string `json:"partnerId"`
	Token     string `json:"token"`
}

// RevokeInviteParams cancel a pending invitation (admin).
type RevokeInviteParams struct {
	PartnerID string `json:"partnerId"`
	InviteID  string `json:"inviteId"`
}

// AssignParams give a member a role on a client business (admin).
type AssignParams struct {
	PartnerID    string       `json:"partnerId"`
	UserID       string       `json:"userId"`
	BusinessID   string       `json:"businessId"`
	BusinessRole BusinessRole `json:"businessRole"`
}

// UnassignParams take a member off a client business (admin).
type UnassignParams struct {
	PartnerID  string `json:"partnerId"`
	UserID     string `json:"userId"`
	BusinessID string `json:"businessId"`
}

// RevokeMemberParams remove a member (admin): their assignments and partner
// keys go too.
type RevokeMemberParams struct {
	PartnerID string `json:"partnerId"`
	UserID    string `json:"userId"`
}

// IssueKeyParams mint a partner key (admin): it acts as the caller and
// reaches the agency's client businesses only. Scopes must be scopes the
// caller holds; platform-only scopes are refused.
type IssueKeyParams struct {
	PartnerID string             `json:"partnerId"`
	Name      string             `json:"name"`   // 1-100 characters
	Scopes    []voiceagent.Scope `json:"scopes"` // 1-25
}

// ProfileService manages the agency profile (/v1/agency-profile).
type ProfileService struct{ b *voiceagent.Backend }

// Get reads the profile, members, invites, partner keys and retained
// commands of the agency (empty partnerID: the caller's).
func (s *ProfileService) Get(ctx context.Context, partnerID string, opts ...voiceagent.Option) (*ProfileState, error) {
	return voiceagent.Send[ProfileState](ctx, s.b, http.MethodGet, pathProfile, &ListParams{PartnerID: partnerID}, nil, opts...)
}

// Bootstrap creates the caller's agency (commission mode) with the caller
// as admin; 409 when the caller already belongs to one.
func (s *ProfileService) Bootstrap(ctx context.Context, p *BootstrapParams, opts ...voiceagent.Option) (*ProfileReceipt, error) {
	return command[ProfileReceipt](ctx, s.b, pathProfile, "bootstrap", p, opts)
}

// Update replaces brand, support and commercial mode.
func (s *ProfileService) Update(ctx context.Context, p *UpdateProfileParams, opts ...voiceagent.Option) (*ProfileReceipt, error) {
	return command[ProfileReceipt](ctx, s.b, pathProfile, "update", p, opts)
}

// Invite invites a member by email.
func (s *ProfileService) Invite(ctx context.Context, p *InviteParams, opts ...voiceagent.Option) (*ProfileReceipt, error) {
	return command[ProfileReceipt](ctx, s.b, pathProfile, "invite", p, opts)
}

// AcceptInvite makes the caller a member with the invitation's role.
func (s *ProfileService) AcceptInvite(ctx context.Context, p *AcceptInviteParams, opts ...voiceagent.Option) (*ProfileReceipt, error) {
	return command[ProfileReceipt](ctx, s.b, pathProfile, "accept_invite", p, opts)
}

// RevokeInvite cancels a pending invitation.
func (s *ProfileService) RevokeInvite(ctx context.Context, p *RevokeInviteParams, opts ...voiceagent.Option) (*ProfileReceipt, error) {
	return command[ProfileReceipt](ctx, s.b, pathProfile, "revoke_invite", p, opts)
}

// Assign gives a member a role on a client business.
func (s *ProfileService) Assign(ctx context.Context, p *AssignParams, opts ...voiceagent.Option) (*ProfileReceipt, error) {
	return command[ProfileReceipt](ctx, s.b, pathProfile, "assign", p, opts)
}

// Unassign takes a member off a client business.
func (s *ProfileService) Unassign(ctx context.Context, p *UnassignParams, opts ...voiceagent.Option) (*ProfileReceipt, error) {
	return command[ProfileReceipt](ctx, s.b, pathProfile, "unassign", p, opts)
}

// RevokeMember removes a member, their assignments and their partner keys.
func (s *ProfileService) RevokeMember(ctx context.Context, p *RevokeMemberParams, opts ...voiceagent.Option) (*ProfileReceipt, error) {
	return command[ProfileReceipt](ctx, s.b, pathProfile, "revoke_member", p, opts)
}

// IssueKey mints a partner key; the receipt's Key.Key is its value, shown
// once.
func (s *ProfileService) IssueKey(ctx context.Context, p *IssueKeyParams, opts ...voiceagent.Option) (*ProfileReceipt, error) {
	return command[ProfileReceipt](ctx, s.b, pathProfile, "issue_key", p, opts)
}
