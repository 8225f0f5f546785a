package agency

import (
	"crypto/sha256"
	"crypto/subtle"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
)

const (
	roleAdmin    = store.PartnerRoleAdmin
	roleOperator = store.PartnerRoleOperator
)

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

func (s *Service) profileBootstrap(cc *cmdCtx) (any, error) {
	var body struct {
		Brand   store.AgencyBrand   `json:"brand"`
		Support store.AgencySupport `json:"support"`
	}
	if err := cc.Decode(&body); err != nil {
		return nil, err
	}
	u := cc.user()
	if u.PartnerID != "" {
		return nil, errConflict("the caller is already a member of agency %s", u.PartnerID)
	}
	if err := cc.ready(); err != nil {
		return nil, err
	}
	pt := &store.Partner{
		Brand: body.Brand, Support: body.Support, CommercialMode: "commission",
		Revision: s.IDs.UUID(), UpdatedAt: cc.now.UTC(),
		Members: map[string]*store.PartnerMember{u.ID: {UserID: u.ID, Role: roleAdmin, JoinedAt: cc.now.UTC()}},
	}
	pt.ID = s.IDs.UUID()
	pt.Owner = pt.ID
	pt.CreatedAt = cc.st.Partners.Stamp(cc.now)
	cc.st.Partners.Put(pt)
	cc.st.RegisterPartner(pt.ID, "")
	u.PartnerID = pt.ID
	cc.partner = pt
	return cc.receipt(map[string]any{"profile": profileView(pt), "member": s.memberView(cc.st, pt, pt.Members[u.ID])}), nil
}

func (s *Service) profileUpdate(cc *cmdCtx) (any, error) {
	var body struct {
		PartnerID        string              `json:"partnerId"`
		ExpectedRevision string              `json:"expectedRevision"`
		Brand            store.AgencyBrand   `json:"brand"`
		Support          store.AgencySupport `json:"support"`
		CommercialMode   string              `json:"commercialMode"`
	}
	if err := cc.Decode(&body); err != nil {
		return nil, err
	}
	pt, err := cc.member(body.PartnerID, roleAdmin)
	if err != nil {
		return nil, err
	}
	if e := checkRevision(body.ExpectedRevision, pt.Revision); e != nil {
		return nil, e
	}
	if err := cc.ready(); err != nil {
		return nil, err
	}
	pt.Brand, pt.Support, pt.CommercialMode = body.Brand, body.Support, body.CommercialMode
	pt.Revision, pt.UpdatedAt = s.IDs.UUID(), cc.now.UTC()
	return cc.receipt(map[string]any{"profile": profileView(pt)}), nil
}

func (s *Service) profileInvite(cc *cmdCtx) (any, error) {
	var body struct {
		PartnerID string `json:"partnerId"`
		Email     string `json:"email"`
		Role      string `json:"role"`
	}
	if err := cc.Decode(&body); err != nil {
		return nil, err
	}
	pt, err := cc.member(body.PartnerID, roleAdmin)
	if err != nil {
		return nil, err
	}
	email := strings.ToLower(strings.TrimSpace(body.Email))
	if u, ok := cc.st.UsersByEmail[email]; ok && pt.Members[u.ID] != nil {
		return nil, errConflict("%s is already a member of the agency", email)
	}
	pending := 0
	for _, inv := range pt.Invites {
		if s.inviteStatus(cc, inv) != "pending" {
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
	if err := cc.ready(); err != nil {
		return nil, err
	}
	token := "inv_" + s.IDs.Token(24)
	inv := &store.PartnerInvite{
		ID: s.IDs.UUID(), Email: email, Role: body.Role, TokenHash: sha256.Sum256([]byte(token)),
		Status: "pending", CreatedAt: cc.now.UTC(), ExpiresAt: cc.now.Add(inviteTTL).UTC(),
	}
	pt.Invites = append(pt.Invites, inv)
	link := appBaseURL + "/agency/invite?" + url.Values{"partnerId": {pt.ID}, "token": {token}}.Encode()
	s.SendOutbox(cc.st, cc.now, store.OutboxMessage{
		Channel: "email", To: email, From: "no-reply@voiceagent.example",
		Subject: "You are invited to join " + pt.Brand.Name,
		Body:    "You are invited to join " + pt.Brand.Name + " as " + body.Role + ". Accept the invitation: " + link,
		Link:    link,
	})
	return cc.receipt(map[string]any{"invite": s.inviteView(cc, inv)}), nil
}

// inviteStatus is an invite's status, expiring it when its time is past.
func (s *Service) inviteStatus(cc *cmdCtx, inv *store.PartnerInvite) string {
	if inv.Status == "pending" && !cc.now.Before(inv.ExpiresAt) {
		return "expired"
	}
	return inv.Status
}

func (s *Service) profileAcceptInvite(cc *cmdCtx) (any, error) {
	var body struct {
		PartnerID string `json:"partnerId"`
		Token     string `json:"token"`
	}
	if err := cc.Decode(&body); err != nil {
		return nil, err
	}
	pt, ok := cc.st.Partners.Get(body.PartnerID)
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
	cc.partner = pt
	if st := s.inviteStatus(cc, inv); st != "pending" {
		return nil, errState("the invite is %s", st)
	}
	u := cc.user()
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
	if err := cc.ready(); err != nil {
		return nil, err
	}
	m := &store.PartnerMember{UserID: u.ID, Role: inv.Role, JoinedAt: cc.now.UTC()}
	pt.Members[u.ID] = m
	u.PartnerID = pt.ID
	inv.Status, inv.ResolvedAt, inv.ResolvedBy = "accepted", cc.now.UTC(), u.ID
	return cc.receipt(map[string]any{"member": s.memberView(cc.st, pt, m)}), nil
}

func (s *Service) profileRevokeInvite(cc *cmdCtx) (any, error) {
	var body struct {
		PartnerID string `json:"partnerId"`
		InviteID  string `json:"inviteId"`
	}
	if err := cc.Decode(&body); err != nil {
		return nil, err
	}
	pt, err := cc.member(body.PartnerID, roleAdmin)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(pt.Invites, func(inv *store.PartnerInvite) bool { return inv.ID == body.InviteID })
	if i < 0 {
		return nil, httpapi.NotFound("invite not found: " + body.InviteID)
	}
	inv := pt.Invites[i]
	if st := s.inviteStatus(cc, inv); st != "pending" {
		return nil, errState("the invite is %s", st)
	}
	if err := cc.ready(); err != nil {
		return nil, err
	}
	inv.Status, inv.ResolvedAt, inv.ResolvedBy = "revoked", cc.now.UTC(), cc.user().ID
	return cc.receipt(map[string]any{"invite": s.inviteView(cc, inv)}), nil
}

// assignment resolves the member and the client business of assign and
// unassign.
func (cc *cmdCtx) assignment(partnerID, userID, businessID string) (*store.Partner, *store.PartnerMember, *store.Business, error) {
	pt, err := cc.member(partnerID, roleAdmin)
	if err != nil {
		return nil, nil, nil, err
	}
	m := pt.Members[userID]
	if m == nil {
		return nil, nil, nil, httpapi.NotFound("no member " + userID + " in the agency")
	}
	b, err := cc.requireClient(pt, businessID)
	if err != nil {
		return nil, nil, nil, err
	}
	if b.Members[userID] == store.RoleOwner {
		return nil, nil, nil, errConflict("user %s owns business %s; the owner's role cannot change", userID, businessID)
	}
	return pt, m, b, nil
}

func (s *Service) profileAssign(cc *cmdCtx) (any, error) {
	var body struct {
		PartnerID    string `json:"partnerId"`
		UserID       string `json:"userId"`
		BusinessID   string `json:"businessId"`
		BusinessRole string `json:"businessRole"`
	}
	if err := cc.Decode(&body); err != nil {
		return nil, err
	}
	pt, m, b, err := cc.assignment(body.PartnerID, body.UserID, body.BusinessID)
	if err != nil {
		return nil, err
	}
	if err := cc.ready(); err != nil {
		return nil, err
	}
	cc.st.AddMember(b, m.UserID, body.BusinessRole)
	return cc.receipt(map[string]any{"member": s.memberView(cc.st, pt, m)}), nil
}

func (s *Service) profileUnassign(cc *cmdCtx) (any, error) {
	var body struct {
		PartnerID  string `json:"partnerId"`
		UserID     string `json:"userId"`
		BusinessID string `json:"businessId"`
	}
	if err := cc.Decode(&body); err != nil {
		return nil, err
	}
	pt, m, b, err := cc.assignment(body.PartnerID, body.UserID, body.BusinessID)
	if err != nil {
		return nil, err
	}
	if _, ok := b.Members[m.UserID]; !ok {
		return nil, errState("user %s is not assigned to business %s", m.UserID, b.ID)
	}
	if err := cc.ready(); err != nil {
		return nil, err
	}
	cc.st.RemoveMember(b, m.UserID)
	return cc.receipt(map[string]any{"member": s.memberView(cc.st, pt, m)}), nil
}

func (s *Service) profileRevokeMember(cc *cmdCtx) (any, error) {
	var body struct {
		PartnerID string `json:"partnerId"`
		UserID    string `json:"userId"`
	}
	if err := cc.Decode(&body); err != nil {
		return nil, err
	}
	pt, err := cc.member(body.PartnerID, roleAdmin)
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
	if err := cc.ready(); err != nil {
		return nil, err
	}
	delete(pt.Members, m.UserID)
	if u, ok := cc.st.Users.Get(m.UserID); ok && u.PartnerID == pt.ID {
		u.PartnerID = ""
	}
	for _, bid := range cc.st.BusinessesOfPartner(pt.ID) {
		if b, ok := cc.st.Businesses.Get(bid); ok && b.Members[m.UserID] != "" && b.Members[m.UserID] != store.RoleOwner {
			cc.st.RemoveMember(b, m.UserID)
		}
	}
	for _, k := range cc.st.Keys.Owned(m.UserID) {
		if k.PartnerID == pt.ID {
			k.Active = false
		}
	}
	return cc.receipt(map[string]any{"profile": profileView(pt), "revokedUserId": m.UserID}), nil
}

func (s *Service) profileIssueKey(cc *cmdCtx) (any, error) {
	var body struct {
		PartnerID string   `json:"partnerId"`
		Name      string   `json:"name"`
		Scopes    []string `json:"scopes"`
	}
	if err := cc.Decode(&body); err != nil {
		return nil, err
	}
	pt, err := cc.member(body.PartnerID, roleAdmin)
	if err != nil {
		return nil, err
	}
	for i, sc := range body.Scopes {
		path := "/scopes/" + strconv.Itoa(i)
		switch {
		case !httpapi.IsScope(sc):
			return nil, httpapi.InvalidField(path, "unknown scope %q", sc)
		case slices.Contains(httpapi.PlatformOnlyScopes, sc):
			return nil, httpapi.InvalidField(path, "%s is platform-only; a partner key cannot hold it", sc)
		case slices.Contains(body.Scopes[:i], sc):
			return nil, httpapi.InvalidField(path, "duplicate scope %q", sc)
		case !cc.p.Has(sc):
			return nil, httpapi.Forbidden("the caller cannot grant the scope " + sc + " it does not hold")
		}
	}
	if err := cc.ready(); err != nil {
		return nil, err
	}
	value, k := s.identity.IssueKey(cc.st, cc.now, cc.user().ID, body.Name, body.Scopes, "", pt.ID)
	v := partnerKeyView(k)
	v["key"] = value
	return cc.receipt(map[string]any{"key": v}), nil
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
		return map[string]any{"profile": nil, "operations": ops}, nil
	}
	cc := &cmdCtx{s: s, st: rc.Store, now: rc.Now}
	ms := slices.Collect(maps.Values(pt.Members))
	slices.SortFunc(ms, func(a, b *store.PartnerMember) int {
		if c := a.JoinedAt.Compare(b.JoinedAt); c != 0 {
			return c
		}
		return strings.Compare(a.UserID, b.UserID)
	})
	members := make([]map[string]any, 0, len(ms))
	for _, m := range ms {
		members = append(members, s.memberView(rc.Store, pt, m))
	}
	invites := []map[string]any{}
	for i := len(pt.Invites) - 1; i >= 0 && len(invites) < agencyInvitesShown; i-- {
		invites = append(invites, s.inviteView(cc, pt.Invites[i]))
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
	keys := make([]map[string]any, 0, min(len(ks), agencyKeysShown))
	for _, k := range ks[:min(len(ks), agencyKeysShown)] {
		keys = append(keys, partnerKeyView(k))
	}
	return map[string]any{
		"profile": profileView(pt), "role": pt.Members[rc.Principal.User.ID].Role, "members": members,
		"invites": invites, "keys": keys, "operations": operationsOf(rc.Store, pt.ID, "profile"),
	}, nil
}

// profileView is an agency profile as reads and receipts show it.
func profileView(pt *store.Partner) map[string]any {
	return map[string]any{
		"partnerId": pt.ID, "brand": pt.Brand, "support": pt.Support, "commercialMode": pt.CommercialMode,
		"revision": pt.Revision, "createdAt": pt.CreatedAt, "updatedAt": pt.UpdatedAt,
	}
}

// memberView is a member with the client businesses they are assigned to.
func (s *Service) memberView(st *store.Store, pt *store.Partner, m *store.PartnerMember) map[string]any {
	email := ""
	if u, ok := st.Users.Get(m.UserID); ok {
		email = u.Email
	}
	assignments := []map[string]any{}
	for _, bid := range st.BusinessesOfPartner(pt.ID) {
		if b, ok := st.Businesses.Get(bid); ok && b.Members[m.UserID] != "" {
			assignments = append(assignments, map[string]any{"businessId": bid, "businessRole": b.Members[m.UserID]})
		}
	}
	return map[string]any{"userId": m.UserID, "email": email, "role": m.Role, "joinedAt": m.JoinedAt, "assignments": assignments}
}

// inviteView is an invite without its token.
func (s *Service) inviteView(cc *cmdCtx, inv *store.PartnerInvite) map[string]any {
	return map[string]any{
		"inviteId": inv.ID, "email": inv.Email, "role": inv.Role, "status": s.inviteStatus(cc, inv),
		"createdAt": inv.CreatedAt, "expiresAt": inv.ExpiresAt, "resolvedAt": httpapi.TimeOrNull(inv.ResolvedAt),
	}
}

// partnerKeyView is a partner key without its value.
func partnerKeyView(k *store.APIKey) map[string]any {
	return map[string]any{
		"id": k.ID, "prefix": k.Prefix, "name": k.Name, "scopes": k.Scopes, "partnerId": k.PartnerID,
		"userId": k.Owner, "isActive": k.Active, "createdAt": k.CreatedAt,
	}
}
