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

	sdk "github.com/voiceagent/voiceagent-go/agency"
	"github.com/voiceagent/voiceagent-go/internal/wire"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

const (
	roleAdmin    = store.PartnerRoleAdmin
	roleOperator = store.PartnerRoleOperator
)

// profileCommands are the commands of POST /v1/agency-profile.
func (s *Service) profileCommands() map[string]agencyCommand {
	return map[string]agencyCommand{
		"bootstrap":     {run: s.profileBootstrap},
		"update":        {run: s.profileUpdate},
		"invite":        {run: s.profileInvite},
		"accept_invite": {run: s.profileAcceptInvite},
		"revoke_invite": {run: s.profileRevokeInvite},
		"assign":        {run: s.profileAssign},
		"unassign":      {run: s.profileUnassign},
		"revoke_member": {run: s.profileRevokeMember},
		"issue_key":     {run: s.profileIssueKey},
	}
}

// profileReceipt starts the receipt of a profile command; the command sets
// the records it changed.
func (s *Service) profileReceipt(rc *httpapi.Ctx, cs *cmdState) *sdk.ProfileReceipt {
	return &sdk.ProfileReceipt{ReceiptHeader: s.header(rc, cs)}
}

func (s *Service) profileBootstrap(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body struct {
		Brand   store.AgencyBrand   `json:"brand"`
		Support store.AgencySupport `json:"support"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	u := rc.Principal.User
	if u.PartnerID != "" {
		return nil, errConflict("the caller is already a member of agency %s", u.PartnerID)
	}
	if err := ready(rc); err != nil {
		return nil, err
	}
	pt := &store.Partner{
		Brand: body.Brand, Support: body.Support, CommercialMode: "commission",
		Revision: s.IDs.UUID(), UpdatedAt: rc.Now.UTC(),
		Members: map[string]*store.PartnerMember{u.ID: {UserID: u.ID, Role: roleAdmin, JoinedAt: rc.Now.UTC()}},
	}
	pt.ID = s.IDs.UUID() // an agency owns itself
	rc.Store.Partners.Insert(pt, pt.ID, rc.Now)
	rc.Store.RegisterPartner(pt.ID, "")
	u.PartnerID = pt.ID
	cs.partner = pt
	r := s.profileReceipt(rc, cs)
	r.Profile, r.Member = profileView(pt), memberView(rc.Store, pt, pt.Members[u.ID])
	return r, nil
}

func (s *Service) profileUpdate(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body struct {
		PartnerID        string              `json:"partnerId"`
		ExpectedRevision string              `json:"expectedRevision"`
		Brand            store.AgencyBrand   `json:"brand"`
		Support          store.AgencySupport `json:"support"`
		CommercialMode   string              `json:"commercialMode"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	pt, err := cs.member(rc, body.PartnerID, roleAdmin)
	if err != nil {
		return nil, err
	}
	if e := checkRevision(body.ExpectedRevision, pt.Revision); e != nil {
		return nil, e
	}
	if err := ready(rc); err != nil {
		return nil, err
	}
	pt.Brand, pt.Support, pt.CommercialMode = body.Brand, body.Support, body.CommercialMode
	pt.Revision, pt.UpdatedAt = s.IDs.UUID(), rc.Now.UTC()
	r := s.profileReceipt(rc, cs)
	r.Profile = profileView(pt)
	return r, nil
}

func (s *Service) profileInvite(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body struct {
		PartnerID string `json:"partnerId"`
		Email     string `json:"email"`
		Role      string `json:"role"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	pt, err := cs.member(rc, body.PartnerID, roleAdmin)
	if err != nil {
		return nil, err
	}
	email := strings.ToLower(strings.TrimSpace(body.Email))
	if u, ok := rc.Store.UsersByEmail[email]; ok && pt.Members[u.ID] != nil {
		return nil, errConflict("%s is already a member of the agency", email)
	}
	pending := 0
	for _, inv := range pt.Invites {
		if inviteStatus(rc.Now, inv) != "pending" {
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
	if err := ready(rc); err != nil {
		return nil, err
	}
	token := "inv_" + s.IDs.Token(24)
	inv := &store.PartnerInvite{
		ID: s.IDs.UUID(), Email: email, Role: body.Role, TokenHash: sha256.Sum256([]byte(token)),
		Status: "pending", CreatedAt: rc.Now.UTC(), ExpiresAt: rc.Now.Add(inviteTTL).UTC(),
	}
	pt.Invites = append(pt.Invites, inv)
	link := appBaseURL + "/agency/invite?" + url.Values{"partnerId": {pt.ID}, "token": {token}}.Encode()
	s.SendOutbox(rc.Store, rc.Now, store.OutboxMessage{
		BusinessID: rc.Tenant, Channel: "email", To: email, From: "no-reply@voiceagent.example",
		Subject: "You are invited to join " + pt.Brand.Name,
		Body:    "You are invited to join " + pt.Brand.Name + " as " + body.Role + ". Accept the invitation: " + link,
		Link:    link,
	})
	r := s.profileReceipt(rc, cs)
	r.Invite = inviteView(rc.Now, inv)
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

func (s *Service) profileAcceptInvite(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body struct {
		PartnerID string `json:"partnerId"`
		Token     string `json:"token"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	pt, ok := rc.Store.Partners.Get(body.PartnerID)
	var inv *store.PartnerInvite
	if ok {
		sum := sha256.Sum256([]byte(body.Token))
		for _, i := range pt.Invites {
			if subtle.ConstantTimeCompare(i.TokenHash[:], sum[:]) == 1 {
				inv = i
			}
		}
	}
	if inv == nil {
		return nil, httpapi.Forbidden("the invite token is not valid for agency " + body.PartnerID)
	}
	cs.partner = pt
	if st := inviteStatus(rc.Now, inv); st != "pending" {
		return nil, errState("the invite is %s", st)
	}
	u := rc.Principal.User
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
	if err := ready(rc); err != nil {
		return nil, err
	}
	m := &store.PartnerMember{UserID: u.ID, Role: inv.Role, JoinedAt: rc.Now.UTC()}
	pt.Members[u.ID] = m
	u.PartnerID = pt.ID
	inv.Status, inv.ResolvedAt, inv.ResolvedBy = "accepted", rc.Now.UTC(), u.ID
	r := s.profileReceipt(rc, cs)
	r.Member = memberView(rc.Store, pt, m)
	return r, nil
}

func (s *Service) profileRevokeInvite(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body struct {
		PartnerID string `json:"partnerId"`
		InviteID  string `json:"inviteId"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	pt, err := cs.member(rc, body.PartnerID, roleAdmin)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(pt.Invites, func(inv *store.PartnerInvite) bool { return inv.ID == body.InviteID })
	if i < 0 {
		return nil, httpapi.NotFound("invite not found: " + body.InviteID)
	}
	inv := pt.Invites[i]
	if st := inviteStatus(rc.Now, inv); st != "pending" {
		return nil, errState("the invite is %s", st)
	}
	if err := ready(rc); err != nil {
		return nil, err
	}
	inv.Status, inv.ResolvedAt, inv.ResolvedBy = "revoked", rc.Now.UTC(), rc.Principal.User.ID
	r := s.profileReceipt(rc, cs)
	r.Invite = inviteView(rc.Now, inv)
	return r, nil
}

// assignment resolves the member and the client business of assign and
// unassign.
func (cs *cmdState) assignment(rc *httpapi.Ctx, partnerID, userID, businessID string) (*store.Partner, *store.PartnerMember, *store.Business, error) {
	pt, err := cs.member(rc, partnerID, roleAdmin)
	if err != nil {
		return nil, nil, nil, err
	}
	m := pt.Members[userID]
	if m == nil {
		return nil, nil, nil, httpapi.NotFound("no member " + userID + " in the agency")
	}
	b, err := requireClient(rc, pt, businessID)
	if err != nil {
		return nil, nil, nil, err
	}
	if b.Members[userID] == store.RoleOwner {
		return nil, nil, nil, errConflict("user %s owns business %s; the owner's role cannot change", userID, businessID)
	}
	return pt, m, b, nil
}

func (s *Service) profileAssign(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body struct {
		PartnerID    string `json:"partnerId"`
		UserID       string `json:"userId"`
		BusinessID   string `json:"businessId"`
		BusinessRole string `json:"businessRole"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	pt, m, b, err := cs.assignment(rc, body.PartnerID, body.UserID, body.BusinessID)
	if err != nil {
		return nil, err
	}
	if err := ready(rc); err != nil {
		return nil, err
	}
	rc.Store.AddMember(b, m.UserID, body.BusinessRole)
	r := s.profileReceipt(rc, cs)
	r.Member = memberView(rc.Store, pt, m)
	return r, nil
}

func (s *Service) profileUnassign(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body struct {
		PartnerID  string `json:"partnerId"`
		UserID     string `json:"userId"`
		BusinessID string `json:"businessId"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	pt, m, b, err := cs.assignment(rc, body.PartnerID, body.UserID, body.BusinessID)
	if err != nil {
		return nil, err
	}
	if _, ok := b.Members[m.UserID]; !ok {
		return nil, errState("user %s is not assigned to business %s", m.UserID, b.ID)
	}
	if err := ready(rc); err != nil {
		return nil, err
	}
	rc.Store.RemoveMember(b, m.UserID)
	r := s.profileReceipt(rc, cs)
	r.Member = memberView(rc.Store, pt, m)
	return r, nil
}

func (s *Service) profileRevokeMember(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body struct {
		PartnerID string `json:"partnerId"`
		UserID    string `json:"userId"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	pt, err := cs.member(rc, body.PartnerID, roleAdmin)
	if err != nil {
		return nil, err
	}
	m := pt.Members[body.UserID]
	if m == nil {
		return nil, httpapi.NotFound("no member " + body.UserID + " in the agency")
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
	if err := ready(rc); err != nil {
		return nil, err
	}
	st := rc.Store
	delete(pt.Members, m.UserID)
	if u, ok := st.Users.Get(m.UserID); ok && u.PartnerID == pt.ID {
		u.PartnerID = ""
	}
	for _, bid := range st.BusinessesOfPartner(pt.ID) {
		if b, ok := st.Businesses.Get(bid); ok && b.Members[m.UserID] != "" && b.Members[m.UserID] != store.RoleOwner {
			st.RemoveMember(b, m.UserID)
		}
	}
	for _, k := range st.Keys.Owned(m.UserID) {
		if k.PartnerID == pt.ID {
			k.Active = false
		}
	}
	r := s.profileReceipt(rc, cs)
	r.Profile, r.RevokedUserID = profileView(pt), m.UserID
	return r, nil
}

func (s *Service) profileIssueKey(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body struct {
		PartnerID string   `json:"partnerId"`
		Name      string   `json:"name"`
		Scopes    []string `json:"scopes"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	pt, err := cs.member(rc, body.PartnerID, roleAdmin)
	if err != nil {
		return nil, err
	}
	for i, sc := range body.Scopes {
		path := "/scopes/" + strconv.Itoa(i)
		switch {
		case !wire.IsScope(sc):
			return nil, httpapi.InvalidField(path, "unknown scope %q", sc)
		case slices.Contains(wire.PlatformOnlyScopes, sc):
			return nil, httpapi.InvalidField(path, "%s is platform-only; a partner key cannot hold it", sc)
		case slices.Contains(body.Scopes[:i], sc):
			return nil, httpapi.InvalidField(path, "duplicate scope %q", sc)
		case !rc.Principal.Has(sc):
			return nil, httpapi.Forbidden("the caller cannot grant the scope " + sc + " it does not hold")
		}
	}
	if err := ready(rc); err != nil {
		return nil, err
	}
	value, k := s.identity.IssueKey(rc.Store, rc.Now, rc.Principal.User.ID, body.Name, body.Scopes, "", pt.ID)
	key := partnerKeyView(k)
	key.Key = value
	r := s.profileReceipt(rc, cs)
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
			return nil, httpapi.Forbidden("current membership of agency " + rc.Query("partnerId") + " is required")
		}
		ops := operationsOf(rc.Store, rc.Principal.User.ID, "profile")
		if len(ops) == 0 {
			return nil, httpapi.Forbidden("current membership of an agency is required (bootstrap one, or accept an invite)")
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
		members = append(members, *memberView(rc.Store, pt, m))
	}
	invites := []sdk.Invite{}
	for i := len(pt.Invites) - 1; i >= 0 && len(invites) < agencyInvitesShown; i-- {
		invites = append(invites, *inviteView(rc.Now, pt.Invites[i]))
	}
	var ks []*store.APIKey
	for _, m := range ms {
		for _, k := range rc.Store.Keys.Owned(m.UserID) {
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
		Invites: invites, Keys: keys, Operations: operationsOf(rc.Store, pt.ID, "profile"),
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
func memberView(st *store.Store, pt *store.Partner, m *store.PartnerMember) *sdk.Member {
	email := ""
	if u, ok := st.Users.Get(m.UserID); ok {
		email = u.Email
	}
	assignments := []sdk.Assignment{}
	for _, bid := range st.BusinessesOfPartner(pt.ID) {
		if b, ok := st.Businesses.Get(bid); ok && b.Members[m.UserID] != "" {
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
		ID: k.ID, Prefix: k.Prefix, Name: k.Name, Scopes: k.Scopes, PartnerID: k.PartnerID,
		UserID: k.Owner, IsActive: k.Active, CreatedAt: k.CreatedAt,
	}
}
