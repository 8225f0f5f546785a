package agency

import (
	"crypto/sha256"
	"crypto/subtle"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	sdk "github.com/voiceagent/voiceagent-go/agency"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/identity"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
)

const (
	roleAdmin    = store.PartnerRoleAdmin
	roleOperator = store.PartnerRoleOperator
)

// profileCommands are the commands of POST /v1/agency-profile.
func (s *Service) profileCommands() map[string]agencyCommand {
	return map[string]agencyCommand{
		"bootstrap":     {input: inputOf[bootstrapInput]},
		"update":        {input: inputOf[profileUpdateInput]},
		"invite":        {input: inputOf[inviteInput]},
		"accept_invite": {input: inputOf[acceptInviteInput]},
		"revoke_invite": {input: inputOf[revokeInviteInput]},
		"assign":        {input: inputOf[assignInput]},
		"unassign":      {input: inputOf[unassignInput]},
		"revoke_member": {input: inputOf[revokeMemberInput]},
		"issue_key":     {input: inputOf[issueKeyInput]},
	}
}

// profileReceipt starts the receipt of a profile command; the command sets
// the records it changed.
func (s *Service) profileReceipt(c *call) *sdk.ProfileReceipt {
	return &sdk.ProfileReceipt{ReceiptHeader: s.header(c)}
}

// bootstrapInput is the input of bootstrap.
type bootstrapInput struct {
	Brand   store.AgencyBrand   `json:"brand"`
	Support store.AgencySupport `json:"support"`
}

func (in bootstrapInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.bootstrap(tx, c, in)
}

// bootstrap creates an agency whose only member, an admin, is the sender;
// 409 when the sender is a member of an agency already.
func (s *Service) bootstrap(tx *platform.Tx, c *call, in bootstrapInput) (*sdk.ProfileReceipt, error) {
	u := c.user(tx)
	if u.PartnerID != "" {
		return nil, errConflict("the caller is already a member of agency %s", u.PartnerID)
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	pt := &store.Partner{
		Brand: in.Brand, Support: in.Support, CommercialMode: "commission",
		Revision: s.IDs.UUID(), UpdatedAt: c.now.UTC(),
		Members: map[string]*store.PartnerMember{u.ID: {UserID: u.ID, Role: roleAdmin, JoinedAt: c.now.UTC()}},
	}
	pt.ID = s.IDs.UUID() // an agency owns itself
	tx.Partners.Insert(pt, pt.ID, c.now)
	tx.RegisterPartner(pt.ID, "")
	u.PartnerID = pt.ID
	c.partner = pt
	r := s.profileReceipt(c)
	r.Profile, r.Member = profileView(pt), memberView(tx, pt, pt.Members[u.ID])
	return r, nil
}

// profileUpdateInput is the input of update.
type profileUpdateInput struct {
	PartnerID        string              `json:"partnerId"`
	ExpectedRevision string              `json:"expectedRevision"`
	Brand            store.AgencyBrand   `json:"brand"`
	Support          store.AgencySupport `json:"support"`
	CommercialMode   string              `json:"commercialMode"`
}

func (in profileUpdateInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.updateProfile(tx, c, in)
}

// updateProfile replaces an agency's brand, support and commercial mode:
// an admin's command, at the profile's current revision.
func (s *Service) updateProfile(tx *platform.Tx, c *call, in profileUpdateInput) (*sdk.ProfileReceipt, error) {
	pt, err := c.member(tx, in.PartnerID, roleAdmin)
	if err != nil {
		return nil, err
	}
	if e := checkRevision(in.ExpectedRevision, pt.Revision); e != nil {
		return nil, e
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	pt.Brand, pt.Support, pt.CommercialMode = in.Brand, in.Support, in.CommercialMode
	pt.Revision, pt.UpdatedAt = s.IDs.UUID(), c.now.UTC()
	r := s.profileReceipt(c)
	r.Profile = profileView(pt)
	return r, nil
}

// inviteInput is the input of invite.
type inviteInput struct {
	PartnerID string `json:"partnerId"`
	Email     string `json:"email"`
	Role      string `json:"role"`
}

func (in inviteInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.invite(tx, c, in)
}

// invite invites a new member and emails the invite's link: an admin's
// command, refused for a member, a second pending invite of the same
// email, and beyond the agency's limits.
func (s *Service) invite(tx *platform.Tx, c *call, in inviteInput) (*sdk.ProfileReceipt, error) {
	pt, err := c.member(tx, in.PartnerID, roleAdmin)
	if err != nil {
		return nil, err
	}
	email := strings.ToLower(strings.TrimSpace(in.Email))
	if u, ok := tx.UsersByEmail[email]; ok && pt.Members[u.ID] != nil {
		return nil, errConflict("%s is already a member of the agency", email)
	}
	pending := 0
	for _, inv := range pt.Invites {
		if inviteStatus(c.now, inv) != "pending" {
			continue
		}
		pending++
		if inv.Email == email {
			return nil, errConflict("a pending invite (%s) exists for %s: revoke it first", inv.ID, email)
		}
	}
	if pending >= agencyPendingInvitesMax {
		return nil, errConflict("the agency has %d pending invites, the most it may have", agencyPendingInvitesMax)
	}
	if len(pt.Members) >= agencyMembersMax {
		return nil, errConflict("the agency has %d members, the most it may have", agencyMembersMax)
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	token := "inv_" + s.IDs.Token(24)
	inv := &store.PartnerInvite{
		ID: s.IDs.UUID(), Email: email, Role: in.Role, TokenHash: sha256.Sum256([]byte(token)),
		Status: "pending", CreatedAt: c.now.UTC(), ExpiresAt: c.now.Add(inviteTTL).UTC(),
	}
	pt.Invites = append(pt.Invites, inv)
	link := appBaseURL + "/agency/invite?" + url.Values{"partnerId": {pt.ID}, "token": {token}}.Encode()
	s.SendOutbox(tx, c.now, store.OutboxMessage{
		BusinessID: c.by.Tenant, Channel: "email", To: email, From: "no-reply@voiceagent.example",
		Subject: "You are invited to join " + pt.Brand.Name,
		Body:    "You are invited to join " + pt.Brand.Name + " as " + in.Role + ". Accept the invitation: " + link,
		Link:    link,
	})
	r := s.profileReceipt(c)
	r.Invite = inviteView(c.now, inv)
	return r, nil
}

// inviteStatus is an invite's status at now: a pending invite whose time is
// past is expired.
func inviteStatus(now time.Time, inv *store.PartnerInvite) string {
	if inv.Status == "pending" && !now.Before(inv.ExpiresAt) {
		return "expired"
	}
	return inv.Status
}

// acceptInviteInput is the input of accept_invite.
type acceptInviteInput struct {
	PartnerID string `json:"partnerId"`
	Token     string `json:"token"`
}

func (in acceptInviteInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.acceptInvite(tx, c, in)
}

// acceptInvite makes the sender a member with the role of the pending
// invite the token names.
func (s *Service) acceptInvite(tx *platform.Tx, c *call, in acceptInviteInput) (*sdk.ProfileReceipt, error) {
	pt, ok := tx.Partners.Get(in.PartnerID)
	var inv *store.PartnerInvite
	if ok {
		sum := sha256.Sum256([]byte(in.Token))
		for _, i := range pt.Invites {
			if subtle.ConstantTimeCompare(i.TokenHash[:], sum[:]) == 1 {
				inv = i
			}
		}
	}
	if inv == nil {
		return nil, domain.Forbidden("the invite token is not valid for agency " + in.PartnerID)
	}
	c.partner = pt
	if tx := inviteStatus(c.now, inv); tx != "pending" {
		return nil, errState("the invite is %s", tx)
	}
	u := c.user(tx)
	switch u.PartnerID {
	case "":
	case pt.ID:
		return nil, errConflict("the caller is already a member of the agency")
	default:
		return nil, errConflict("the caller is a member of another agency (%s)", u.PartnerID)
	}
	if len(pt.Members) >= agencyMembersMax {
		return nil, errConflict("the agency has %d members, the most it may have", agencyMembersMax)
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	m := &store.PartnerMember{UserID: u.ID, Role: inv.Role, JoinedAt: c.now.UTC()}
	pt.Members[u.ID] = m
	u.PartnerID = pt.ID
	inv.Status, inv.ResolvedAt, inv.ResolvedBy = "accepted", c.now.UTC(), u.ID
	r := s.profileReceipt(c)
	r.Member = memberView(tx, pt, m)
	return r, nil
}

// revokeInviteInput is the input of revoke_invite.
type revokeInviteInput struct {
	PartnerID string `json:"partnerId"`
	InviteID  string `json:"inviteId"`
}

func (in revokeInviteInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.revokeInvite(tx, c, in)
}

// revokeInvite revokes a pending invite: an admin's command.
func (s *Service) revokeInvite(tx *platform.Tx, c *call, in revokeInviteInput) (*sdk.ProfileReceipt, error) {
	pt, err := c.member(tx, in.PartnerID, roleAdmin)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(pt.Invites, func(inv *store.PartnerInvite) bool { return inv.ID == in.InviteID })
	if i < 0 {
		return nil, domain.NotFound("invite not found: " + in.InviteID)
	}
	inv := pt.Invites[i]
	if tx := inviteStatus(c.now, inv); tx != "pending" {
		return nil, errState("the invite is %s", tx)
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	inv.Status, inv.ResolvedAt, inv.ResolvedBy = "revoked", c.now.UTC(), c.by.UserID
	r := s.profileReceipt(c)
	r.Invite = inviteView(c.now, inv)
	return r, nil
}

// assignment resolves the member and the client business of assign and
// unassign.
func (c *call) assignment(tx *platform.Tx, partnerID, userID, businessID string) (*store.Partner, *store.PartnerMember, *store.Business, error) {
	pt, err := c.member(tx, partnerID, roleAdmin)
	if err != nil {
		return nil, nil, nil, err
	}
	m := pt.Members[userID]
	if m == nil {
		return nil, nil, nil, domain.NotFound("no member " + userID + " in the agency")
	}
	b, err := requireClient(tx, c.by.UserID, pt, businessID)
	if err != nil {
		return nil, nil, nil, err
	}
	if b.Members[userID] == store.RoleOwner {
		return nil, nil, nil, errConflict("user %s owns business %s; the owner's role cannot change", userID, businessID)
	}
	return pt, m, b, nil
}

// assignInput is the input of assign.
type assignInput struct {
	PartnerID    string `json:"partnerId"`
	UserID       string `json:"userId"`
	BusinessID   string `json:"businessId"`
	BusinessRole string `json:"businessRole"`
}

func (in assignInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.assign(tx, c, in)
}

// assign gives a member a role in a client business: an admin's command.
func (s *Service) assign(tx *platform.Tx, c *call, in assignInput) (*sdk.ProfileReceipt, error) {
	pt, m, b, err := c.assignment(tx, in.PartnerID, in.UserID, in.BusinessID)
	if err != nil {
		return nil, err
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	tx.AddMember(b, m.UserID, in.BusinessRole)
	r := s.profileReceipt(c)
	r.Member = memberView(tx, pt, m)
	return r, nil
}

// unassignInput is the input of unassign.
type unassignInput struct {
	PartnerID  string `json:"partnerId"`
	UserID     string `json:"userId"`
	BusinessID string `json:"businessId"`
}

func (in unassignInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.unassign(tx, c, in)
}

// unassign removes a member from a client business: an admin's command.
func (s *Service) unassign(tx *platform.Tx, c *call, in unassignInput) (*sdk.ProfileReceipt, error) {
	pt, m, b, err := c.assignment(tx, in.PartnerID, in.UserID, in.BusinessID)
	if err != nil {
		return nil, err
	}
	if _, ok := b.Members[m.UserID]; !ok {
		return nil, errState("user %s is not assigned to business %s", m.UserID, b.ID)
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	tx.RemoveMember(b, m.UserID)
	r := s.profileReceipt(c)
	r.Member = memberView(tx, pt, m)
	return r, nil
}

// revokeMemberInput is the input of revoke_member.
type revokeMemberInput struct {
	PartnerID string `json:"partnerId"`
	UserID    string `json:"userId"`
}

func (in revokeMemberInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.revokeMember(tx, c, in)
}

// revokeMember removes a member (but the last admin) from the agency, from
// its client businesses but those it owns, and deactivates its partner
// keys: an admin's command.
func (s *Service) revokeMember(tx *platform.Tx, c *call, in revokeMemberInput) (*sdk.ProfileReceipt, error) {
	pt, err := c.member(tx, in.PartnerID, roleAdmin)
	if err != nil {
		return nil, err
	}
	m := pt.Members[in.UserID]
	if m == nil {
		return nil, domain.NotFound("no member " + in.UserID + " in the agency")
	}
	if m.Role == roleAdmin {
		admins := 0
		for _, other := range pt.Members {
			if other.Role == roleAdmin {
				admins++
			}
		}
		if admins == 1 {
			return nil, errConflict("user %s is the agency's last admin", m.UserID)
		}
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	delete(pt.Members, m.UserID)
	if u, ok := tx.Users.Get(m.UserID); ok && u.PartnerID == pt.ID {
		u.PartnerID = ""
	}
	for _, bid := range tx.BusinessesOfPartner(pt.ID) {
		if b, ok := tx.Businesses.Get(bid); ok && b.Members[m.UserID] != "" && b.Members[m.UserID] != store.RoleOwner {
			tx.RemoveMember(b, m.UserID)
		}
	}
	for _, k := range tx.Keys.Owned(m.UserID) {
		if k.PartnerID == pt.ID {
			k.Active = false
		}
	}
	r := s.profileReceipt(c)
	r.Profile, r.RevokedUserID = profileView(pt), m.UserID
	return r, nil
}

// issueKeyInput is the input of issue_key.
type issueKeyInput struct {
	PartnerID string   `json:"partnerId"`
	Name      string   `json:"name"`
	Scopes    []string `json:"scopes"`
}

func (in issueKeyInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.issueKey(tx, c, in)
}

// issueKey issues a partner key to the sender with scopes it holds (none
// platform-only): an admin's command. The receipt is the only place the
// key's value is shown.
func (s *Service) issueKey(tx *platform.Tx, c *call, in issueKeyInput) (*sdk.ProfileReceipt, error) {
	pt, err := c.member(tx, in.PartnerID, roleAdmin)
	if err != nil {
		return nil, err
	}
	for i, sc := range in.Scopes {
		path := "/scopes/" + strconv.Itoa(i)
		switch {
		case !identity.IsScope(sc):
			return nil, domain.InvalidField(path, "unknown scope %q", sc)
		case identity.IsPlatformOnly(sc):
			return nil, domain.InvalidField(path, "%s is platform-only; a partner key cannot hold it", sc)
		case slices.Contains(in.Scopes[:i], sc):
			return nil, domain.InvalidField(path, "duplicate scope %q", sc)
		case !c.by.Has(voiceagent.Scope(sc)):
			return nil, domain.Forbidden("the caller cannot grant the scope " + sc + " it does not hold")
		}
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	value, k := s.identity.IssueKey(tx, c.now, c.by.UserID, in.Name, in.Scopes, "", pt.ID)
	key := partnerKeyView(k)
	key.Key = value
	r := s.profileReceipt(c)
	r.Key = &key
	return r, nil
}

// getAgencyProfile is GET /v1/agency-profile: the profile, the caller's
// role, members with their assignments, invites (never their tokens),
// partner keys (prefixes only) and retained commands. A caller without an
// agency sees only its retained bootstrap commands.
func (s *Service) getAgencyProfile(rc *httpapi.Ctx) (any, error) {
	pt, err := agencyRead(rc, true)
	if err != nil {
		return nil, err
	}
	if pt == nil {
		if rc.Query("partnerId") != "" || rc.Principal.User.PartnerID != "" {
			return nil, domain.Forbidden("current membership of agency " + rc.Query("partnerId") + " is required")
		}
		ops := operationsOf(rc.Tx, rc.Principal.User.ID, "profile")
		if len(ops) == 0 {
			return nil, domain.Forbidden("current membership of an agency is required (bootstrap one, or accept an invite)")
		}
		// Not sdk.ProfileState: that would show an empty role and null
		// members, invites and keys, which a caller without an agency has not.
		return map[string]any{"profile": nil, "operations": ops}, nil
	}
	ms := slices.Collect(maps.Values(pt.Members))
	slices.SortFunc(ms, func(a, b *store.PartnerMember) int {
		if c := a.JoinedAt.Compare(b.JoinedAt); c != 0 {
			return c
		}
		return strings.Compare(a.UserID, b.UserID)
	})
	members := make([]sdk.Member, 0, len(ms))
	for _, m := range ms {
		members = append(members, *memberView(rc.Tx, pt, m))
	}
	invites := []sdk.Invite{}
	for i := len(pt.Invites) - 1; i >= 0 && len(invites) < agencyInvitesShown; i-- {
		invites = append(invites, *inviteView(rc.Now, pt.Invites[i]))
	}
	var ks []*store.APIKey
	for _, m := range ms {
		for _, k := range rc.Tx.Keys.Owned(m.UserID) {
			if k.PartnerID == pt.ID {
				ks = append(ks, k)
			}
		}
	}
	slices.SortFunc(ks, func(a, b *store.APIKey) int { return b.CreatedAt.Compare(a.CreatedAt) })
	keys := make([]sdk.PartnerKey, 0, min(len(ks), agencyKeysShown))
	for _, k := range ks[:min(len(ks), agencyKeysShown)] {
		keys = append(keys, partnerKeyView(k))
	}
	return &sdk.ProfileState{
		Profile: profileView(pt), Role: sdk.Role(pt.Members[rc.Principal.User.ID].Role), Members: members,
		Invites: invites, Keys: keys, Operations: operationsOf(rc.Tx, pt.ID, "profile"),
	}, nil
}

// profileView is an agency profile as reads and receipts show it.
func profileView(pt *store.Partner) *sdk.Profile {
	return &sdk.Profile{
		PartnerID: pt.ID, Brand: sdk.Brand(pt.Brand), Support: sdk.Support(pt.Support),
		CommercialMode: sdk.CommercialMode(pt.CommercialMode), Revision: pt.Revision,
		CreatedAt: pt.CreatedAt, UpdatedAt: pt.UpdatedAt,
	}
}

// memberView is a member with the client businesses they are assigned to.
func memberView(tx *platform.Tx, pt *store.Partner, m *store.PartnerMember) *sdk.Member {
	email := ""
	if u, ok := tx.Users.Get(m.UserID); ok {
		email = u.Email
	}
	assignments := []sdk.Assignment{}
	for _, bid := range tx.BusinessesOfPartner(pt.ID) {
		if b, ok := tx.Businesses.Get(bid); ok && b.Members[m.UserID] != "" {
			assignments = append(assignments, sdk.Assignment{BusinessID: bid, BusinessRole: sdk.BusinessRole(b.Members[m.UserID])})
		}
	}
	return &sdk.Member{UserID: m.UserID, Email: email, Role: sdk.Role(m.Role), JoinedAt: m.JoinedAt, Assignments: assignments}
}

// inviteView is an invite at now, without its token.
func inviteView(now time.Time, inv *store.PartnerInvite) *sdk.Invite {
	return &sdk.Invite{
		InviteID: inv.ID, Email: inv.Email, Role: sdk.Role(inv.Role), Status: inviteStatus(now, inv),
		CreatedAt: inv.CreatedAt, ExpiresAt: inv.ExpiresAt, ResolvedAt: timeOrNil(inv.ResolvedAt),
	}
}

// partnerKeyView is a partner key without its value.
func partnerKeyView(k *store.APIKey) sdk.PartnerKey {
	return sdk.PartnerKey{
		ID: k.ID, Prefix: k.Prefix, Name: k.Name, Scopes: val.Strings[voiceagent.Scope](k.Scopes), PartnerID: k.PartnerID,
		UserID: k.Owner, IsActive: k.Active, CreatedAt: k.CreatedAt,
	}
}
