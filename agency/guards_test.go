package agency_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agency"
)

func TestStaleRevisionsAreRefusedWith409(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx, c := w.ctx, w.admin

	state, err := c.Agency.Profile.Get(ctx, "")
	require.NoError(t, err)
	upd := &agency.UpdateProfileParams{PartnerID: w.partner, ExpectedRevision: state.Profile.Revision,
		Brand: agency.Brand{Name: "A"}, Support: agency.Support{Email: "a@b.example", OwnerName: "O", Coverage: "c"},
		CommercialMode: agency.CommercialModeCommission}
	_, err = c.Agency.Profile.Update(ctx, upd)
	require.NoError(t, err)
	_, err = c.Agency.Profile.Update(ctx, upd)
	apiErr := requireAPIError(t, err, http.StatusConflict, voiceagent.CodeStaleRevision)
	assert.ErrorIs(t, err, voiceagent.ErrStaleRevision)
	assert.Contains(t, string(apiErr.Body), `"currentRevision"`)

	saved, err := c.Agency.Offers.Save(ctx, &agency.SaveOfferParams{PartnerID: w.partner, Draft: offerDraft("O", agency.PackageConvert)})
	require.NoError(t, err)
	again := &agency.SaveOfferParams{PartnerID: w.partner, OfferID: saved.Offer.OfferID, ExpectedRevision: saved.Offer.Revision,
		Draft: offerDraft("O2", agency.PackageConvert)}
	_, err = c.Agency.Offers.Save(ctx, again)
	require.NoError(t, err)
	_, err = c.Agency.Offers.Save(ctx, again)
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeStaleRevision)
	_, err = c.Agency.Offers.Archive(ctx, &agency.ArchiveOfferParams{PartnerID: w.partner, OfferID: saved.Offer.OfferID, ExpectedRevision: saved.Offer.Revision})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeStaleRevision)

	v := w.publish(offerDraft("P", agency.PackageConvert))
	created, err := c.Agency.Enrollments.Create(ctx, &agency.CreateEnrollmentParams{PartnerID: w.partner, OfferVersionID: v.OfferVersionID,
		Entries: []agency.Entry{{NewClient: &agency.NewClient{Name: "N", ExternalRef: "r"}, Facts: minimalFacts()}}, IdempotencyKey: "k1"})
	require.NoError(t, err)
	_, err = c.Agency.Enrollments.Preview(ctx, &agency.SessionParams{PartnerID: w.partner, SessionID: created.Session.SessionID})
	require.NoError(t, err)
	_, err = c.Agency.Enrollments.Save(ctx, &agency.SaveEnrollmentParams{PartnerID: w.partner, SessionID: created.Session.SessionID,
		ExpectedRevision: created.Session.Revision, Entries: created.Session.Entries})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeStaleRevision)
}

func TestFingerprintsAndStatesAreGuarded(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx, c := w.ctx, w.admin

	saved, err := c.Agency.Offers.Save(ctx, &agency.SaveOfferParams{PartnerID: w.partner, Draft: offerDraft("O", agency.PackageConvert)})
	require.NoError(t, err)
	oid := saved.Offer.OfferID
	_, err = c.Agency.Offers.Publish(ctx, &agency.PublishOfferParams{PartnerID: w.partner, OfferID: oid,
		ExpectedRevision: saved.Offer.Revision, Fingerprint: saved.Offer.Fingerprint})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeInvalidState)
	pv, err := c.Agency.Offers.Preview(ctx, &agency.OfferParams{PartnerID: w.partner, OfferID: oid})
	require.NoError(t, err)
	_, err = c.Agency.Offers.Publish(ctx, &agency.PublishOfferParams{PartnerID: w.partner, OfferID: oid,
		ExpectedRevision: pv.Offer.Revision, Fingerprint: hex64})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeFingerprintMismatch)
	pub, err := c.Agency.Offers.Publish(ctx, &agency.PublishOfferParams{PartnerID: w.partner, OfferID: oid,
		ExpectedRevision: pv.Offer.Revision, Fingerprint: pv.Fingerprint})
	require.NoError(t, err)
	_, err = c.Agency.Offers.Preview(ctx, &agency.OfferParams{PartnerID: w.partner, OfferID: oid})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeInvalidState)

	// Enrolling a session that changed after its preview, or with a wrong
	// fingerprint, is refused.
	ownerEmail := "o@client.example"
	_, owner := w.account(ownerEmail)
	sess, appr := w.approvedSession(pub.OfferVersion.OfferVersionID, ownerEmail, owner,
		agency.Entry{NewClient: &agency.NewClient{Name: "N", ExternalRef: "r1"}, Facts: minimalFacts()})
	_, err = c.Agency.Enrollments.Enroll(ctx, &agency.EnrollParams{PartnerID: w.partner, SessionID: sess.SessionID,
		ExpectedRevision: sess.Revision, Fingerprint: hex64, ApprovalIDs: []string{appr}, IdempotencyKey: "e1"})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeFingerprintMismatch)
	_, err = c.Agency.Enrollments.Enroll(ctx, &agency.EnrollParams{PartnerID: w.partner, SessionID: sess.SessionID,
		ExpectedRevision: sess.Revision, Fingerprint: sess.Fingerprint,
		ApprovalIDs: []string{appr, "3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f"}, IdempotencyKey: "e2"})
	apiErr := requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
	assert.Equal(t, "/approvalIds/1", apiErr.Details[0].Path)
	saved2, err := c.Agency.Enrollments.Save(ctx, &agency.SaveEnrollmentParams{PartnerID: w.partner, SessionID: sess.SessionID,
		ExpectedRevision: sess.Revision, Entries: sess.Entries})
	require.NoError(t, err)
	assert.Nil(t, saved2.Session.OwnerApproval, "saving drops the approval")
	_, err = c.Agency.Enrollments.Enroll(ctx, &agency.EnrollParams{PartnerID: w.partner, SessionID: sess.SessionID,
		ExpectedRevision: saved2.Session.Revision, Fingerprint: saved2.Session.Fingerprint, ApprovalIDs: []string{appr}, IdempotencyKey: "e3"})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeInvalidState)
	pv2, err := c.Agency.Enrollments.Preview(ctx, &agency.SessionParams{PartnerID: w.partner, SessionID: sess.SessionID})
	require.NoError(t, err)
	_, err = c.Agency.Enrollments.Enroll(ctx, &agency.EnrollParams{PartnerID: w.partner, SessionID: sess.SessionID,
		ExpectedRevision: pv2.Session.Revision, Fingerprint: pv2.Fingerprint, ApprovalIDs: []string{appr}, IdempotencyKey: "e4"})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeApprovalRequired)
}

func TestOwnerApprovalIsExact(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx, c := w.ctx, w.admin
	v := w.publish(offerDraft("P", agency.PackageConvert))
	ownerEmail := "boss@client.example"
	_, owner := w.account(ownerEmail)
	_, stranger := w.account("stranger@client.example")
	created, err := c.Agency.Enrollments.Create(ctx, &agency.CreateEnrollmentParams{PartnerID: w.partner, OfferVersionID: v.OfferVersionID,
		OwnerEmail: ownerEmail, IdempotencyKey: "k",
		Entries: []agency.Entry{{NewClient: &agency.NewClient{Name: "N", ExternalRef: "r"}, Facts: minimalFacts()}}})
	require.NoError(t, err)
	sid := created.Session.SessionID
	token := w.linkToken(ownerEmail)

	_, err = stranger.Agency.Enrollments.ClaimOwner(ctx, &agency.ClaimOwnerParams{PartnerID: w.partner, SessionID: sid, Token: "wrong"})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
	claimed, err := owner.Agency.Enrollments.ClaimOwner(ctx, &agency.ClaimOwnerParams{PartnerID: w.partner, SessionID: sid, Token: token})
	require.NoError(t, err)
	_, err = stranger.Agency.Enrollments.ClaimOwner(ctx, &agency.ClaimOwnerParams{PartnerID: w.partner, SessionID: sid, Token: token})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeConflict)
	_, err = stranger.Agency.Enrollments.Get(ctx, &agency.GetParams{ID: sid})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)

	// Approving needs a preview, the claiming owner, and the current
	// revision.
	_, err = owner.Agency.Enrollments.ApproveOwner(ctx, &agency.ApproveOwnerParams{PartnerID: w.partner, SessionID: sid,
		ExpectedRevision: claimed.Session.Revision, Fingerprint: claimed.Session.Fingerprint})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeInvalidState)
	pv, err := c.Agency.Enrollments.Preview(ctx, &agency.SessionParams{PartnerID: w.partner, SessionID: sid})
	require.NoError(t, err)
	_, err = c.Agency.Enrollments.ApproveOwner(ctx, &agency.ApproveOwnerParams{PartnerID: w.partner, SessionID: sid,
		ExpectedRevision: pv.Session.Revision, Fingerprint: pv.Fingerprint})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
	_, err = owner.Agency.Enrollments.ApproveOwner(ctx, &agency.ApproveOwnerParams{PartnerID: w.partner, SessionID: sid,
		ExpectedRevision: claimed.Session.Revision, Fingerprint: pv.Fingerprint})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeStaleRevision)
	appr, err := owner.Agency.Enrollments.ApproveOwner(ctx, &agency.ApproveOwnerParams{PartnerID: w.partner, SessionID: sid,
		ExpectedRevision: pv.Session.Revision, Fingerprint: pv.Fingerprint})
	require.NoError(t, err)

	// Rotating the link drops the claim and the approval; the old token
	// stops working.
	rot, err := c.Agency.Enrollments.RotateOwnerLink(ctx, &agency.RotateOwnerLinkParams{PartnerID: w.partner, SessionID: sid,
		ExpectedRevision: appr.Session.Revision})
	require.NoError(t, err)
	assert.Equal(t, agency.SessionPreviewed, rot.Session.State)
	assert.Nil(t, rot.Session.OwnerApproval)
	assert.Equal(t, "issued", rot.Session.OwnerLink.Status)
	_, err = c.Agency.Enrollments.Enroll(ctx, &agency.EnrollParams{PartnerID: w.partner, SessionID: sid,
		ExpectedRevision: rot.Session.Revision, Fingerprint: pv.Fingerprint, ApprovalIDs: []string{appr.ApprovalID}, IdempotencyKey: "e"})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeApprovalRequired)
	_, err = owner.Agency.Enrollments.ClaimOwner(ctx, &agency.ClaimOwnerParams{PartnerID: w.partner, SessionID: sid, Token: token})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
	newToken := w.linkToken(ownerEmail)
	assert.NotEqual(t, token, newToken)
	_, err = owner.Agency.Enrollments.ClaimOwner(ctx, &agency.ClaimOwnerParams{PartnerID: w.partner, SessionID: sid, Token: newToken})
	require.NoError(t, err)

	// A revoked session takes no more commands.
	rev, err := c.Agency.Enrollments.Revoke(ctx, &agency.SessionParams{PartnerID: w.partner, SessionID: sid})
	require.NoError(t, err)
	assert.Equal(t, agency.SessionRevoked, rev.Session.State)
	_, err = c.Agency.Enrollments.Preview(ctx, &agency.SessionParams{PartnerID: w.partner, SessionID: sid})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeInvalidState)
}

func TestRolesAndMembershipAreChecked(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := w.ctx
	_, reader := w.member("reader@acme.example", agency.RoleReader)
	opAcct, op := w.member("op@acme.example", agency.RoleOperator)
	outsider, outsiderClient := w.account("outsider@else.example")

	// A reader reads and does nothing else.
	st, err := reader.Agency.Profile.Get(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, agency.RoleReader, st.Role)
	_, err = reader.Agency.Offers.Save(ctx, &agency.SaveOfferParams{PartnerID: w.partner, Draft: offerDraft("x", agency.PackageConvert)})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
	_, err = reader.Agency.Profile.Invite(ctx, &agency.InviteParams{PartnerID: w.partner, Email: "x@y.example", Role: agency.RoleAdmin})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
	_, err = op.Agency.Profile.IssueKey(ctx, &agency.IssueKeyParams{PartnerID: w.partner, Name: "k", Scopes: []voiceagent.Scope{"agents:read"}})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)

	// Outsiders get 403 on reads and commands of the agency.
	_, err = outsiderClient.Agency.Profile.Get(ctx, w.partner)
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
	_, err = outsiderClient.Agency.Offers.List(ctx, nil)
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
	_, err = outsiderClient.Agency.Offers.Save(ctx, &agency.SaveOfferParams{PartnerID: w.partner, Draft: offerDraft("x", agency.PackageConvert)})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)

	// Conflicts: a second bootstrap, a duplicate invite, a member of another
	// agency accepting, removing the last admin.
	_, err = w.admin.Agency.Profile.Bootstrap(ctx, &agency.BootstrapParams{Brand: agency.Brand{Name: "B"},
		Support: agency.Support{Email: "a@b.example", OwnerName: "O", Coverage: "c"}})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeConflict)
	_, err = w.admin.Agency.Profile.Invite(ctx, &agency.InviteParams{PartnerID: w.partner, Email: "op@acme.example", Role: agency.RoleAdmin})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeConflict)
	_, err = w.admin.Agency.Profile.Invite(ctx, &agency.InviteParams{PartnerID: w.partner, Email: outsider.UserID + "@x.example", Role: agency.RoleAdmin})
	require.NoError(t, err)
	_, err = w.admin.Agency.Profile.Invite(ctx, &agency.InviteParams{PartnerID: w.partner, Email: outsider.UserID + "@x.example", Role: agency.RoleAdmin})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeConflict)
	_, err = w.admin.Agency.Profile.RevokeMember(ctx, &agency.RevokeMemberParams{PartnerID: w.partner, UserID: w.env.Account.UserID})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeConflict)

	// An operator acts on installations of the clients assigned to it.
	inst := w.installed("assigned-1")
	_, err = op.Agency.Installations.PreviewRouteReceipt(ctx, &agency.StepParams{PartnerID: w.partner, InstallationID: inst.InstallationID, ExpectedRevision: inst.Revision})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
	_, err = w.admin.Agency.Profile.Assign(ctx, &agency.AssignParams{PartnerID: w.partner, UserID: opAcct.UserID,
		BusinessID: w.env.Account.BusinessID, BusinessRole: agency.BusinessRoleMember})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden) // not a client of the agency
	as, err := w.admin.Agency.Profile.Assign(ctx, &agency.AssignParams{PartnerID: w.partner, UserID: opAcct.UserID,
		BusinessID: inst.BusinessID, BusinessRole: agency.BusinessRoleMember})
	require.NoError(t, err)
	assert.Equal(t, []agency.Assignment{{BusinessID: inst.BusinessID, BusinessRole: agency.BusinessRoleMember}}, as.Member.Assignments)
	pv, err := op.Agency.Installations.PreviewRouteReceipt(ctx, &agency.StepParams{PartnerID: w.partner, InstallationID: inst.InstallationID, ExpectedRevision: inst.Revision})
	require.NoError(t, err)
	_, err = w.admin.Agency.Profile.Unassign(ctx, &agency.UnassignParams{PartnerID: w.partner, UserID: opAcct.UserID, BusinessID: inst.BusinessID})
	require.NoError(t, err)
	_, err = op.Agency.Installations.ApproveRouteReceipt(ctx, &agency.StepParams{PartnerID: w.partner, InstallationID: inst.InstallationID, ExpectedRevision: pv.Installation.Revision})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
	_, err = w.admin.Agency.Profile.Unassign(ctx, &agency.UnassignParams{PartnerID: w.partner, UserID: opAcct.UserID, BusinessID: inst.BusinessID})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeInvalidState)

	// Revoking a member ends their role and their partner keys.
	_, err = w.admin.Agency.Profile.Assign(ctx, &agency.AssignParams{PartnerID: w.partner, UserID: opAcct.UserID,
		BusinessID: inst.BusinessID, BusinessRole: agency.BusinessRoleAdmin})
	require.NoError(t, err)
	_, err = w.admin.Agency.Profile.Invite(ctx, &agency.InviteParams{PartnerID: w.partner, Email: "admin2@acme.example", Role: agency.RoleAdmin})
	require.NoError(t, err)
	_, admin2 := w.account("admin2@acme.example")
	_, err = admin2.Agency.Profile.AcceptInvite(ctx, &agency.AcceptInviteParams{PartnerID: w.partner, Token: w.linkToken("admin2@acme.example")})
	require.NoError(t, err)
	key, err := admin2.Agency.Profile.IssueKey(ctx, &agency.IssueKeyParams{PartnerID: w.partner, Name: "k2", Scopes: []voiceagent.Scope{"workspaces:read"}})
	require.NoError(t, err)
	_, err = w.env.ClientFor(key.Key.Key).Agency.Profile.Get(ctx, "")
	require.NoError(t, err)
	_, err = w.admin.Agency.Profile.RevokeMember(ctx, &agency.RevokeMemberParams{PartnerID: w.partner, UserID: key.Key.UserID})
	require.NoError(t, err)
	_, err = w.env.ClientFor(key.Key.Key).Agency.Profile.Get(ctx, "")
	requireAPIError(t, err, http.StatusUnauthorized, voiceagent.CodeUnauthorized)
	_, err = w.admin.Agency.Profile.RevokeMember(ctx, &agency.RevokeMemberParams{PartnerID: w.partner, UserID: opAcct.UserID})
	require.NoError(t, err)
	_, err = op.Agency.Offers.List(ctx, nil)
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
	st, err = w.admin.Agency.Profile.Get(ctx, "")
	require.NoError(t, err)
	assert.Len(t, st.Members, 2, "the admin and the reader")

	// Invites can be revoked; a revoked invite's token does not work.
	inv, err := w.admin.Agency.Profile.Invite(ctx, &agency.InviteParams{PartnerID: w.partner, Email: "late@acme.example", Role: agency.RoleReader})
	require.NoError(t, err)
	_, late := w.account("late@acme.example")
	_, err = w.admin.Agency.Profile.RevokeInvite(ctx, &agency.RevokeInviteParams{PartnerID: w.partner, InviteID: inv.Invite.InviteID})
	require.NoError(t, err)
	_, err = late.Agency.Profile.AcceptInvite(ctx, &agency.AcceptInviteParams{PartnerID: w.partner, Token: w.linkToken("late@acme.example")})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeInvalidState)
	_, err = late.Agency.Profile.AcceptInvite(ctx, &agency.AcceptInviteParams{PartnerID: w.partner, Token: "inv_nope"})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
}

func TestScopesAreChecked(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx := w.ctx
	// An operator without agents:write cannot send enrollment commands, and
	// a key without workspaces:read cannot read.
	_, noAgents := w.member("na@acme.example", agency.RoleAdmin, "workspaces:read", "workspaces:write")
	_, err := noAgents.Agency.Enrollments.Preview(ctx, &agency.SessionParams{PartnerID: w.partner, SessionID: "3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f"})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
	_, noRead := w.member("nr@acme.example", agency.RoleAdmin, "workspaces:write")
	_, err = noRead.Agency.Offers.List(ctx, nil)
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)

	// The care package needs sms:write to enroll and to launch;
	// run_scenarios needs evals:write.
	_, noSMS := w.member("nosms@acme.example", agency.RoleAdmin, "workspaces:read", "workspaces:write", "agents:write")
	v := w.publish(offerDraft("Care", agency.PackageConvert, agency.PackageCare))
	_, owner := w.account("o@care.example")
	sess, appr := w.approvedSession(v.OfferVersionID, "o@care.example", owner,
		agency.Entry{NewClient: &agency.NewClient{Name: "C", ExternalRef: "care-1"}, Facts: minimalFacts()})
	enroll := &agency.EnrollParams{PartnerID: w.partner, SessionID: sess.SessionID, ExpectedRevision: sess.Revision,
		Fingerprint: sess.Fingerprint, ApprovalIDs: []string{appr}, IdempotencyKey: "care-enroll"}
	_, err = noSMS.Agency.Enrollments.Enroll(ctx, enroll)
	apiErr := requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
	assert.Contains(t, apiErr.Message, "sms:write")
	r, err := w.admin.Agency.Enrollments.Enroll(ctx, enroll)
	require.NoError(t, err)
	inst, err := noSMS.Agency.Installations.Get(ctx, &agency.GetParams{ID: r.Clients[0].InstallationID})
	require.NoError(t, err)
	care := inst.Updates[0]
	_, err = noSMS.Agency.Installations.ResolveUpdate(ctx, &agency.ResolveUpdateParams{PartnerID: w.partner,
		InstallationID: inst.InstallationID, ExpectedRevision: inst.Revision, UpdateID: care.UpdateID, Fingerprint: care.Fingerprint,
		Choices: map[string]agency.Choice{"launch": agency.ChoiceQueue}})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
	_, err = noSMS.Agency.Installations.RunScenarios(ctx, &agency.RunScenariosParams{PartnerID: w.partner,
		InstallationID: inst.InstallationID, ExpectedRevision: inst.Revision})
	apiErr = requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
	assert.Contains(t, apiErr.Message, "evals:write")
	held, err := w.admin.Agency.Installations.ResolveUpdate(ctx, &agency.ResolveUpdateParams{PartnerID: w.partner,
		InstallationID: inst.InstallationID, ExpectedRevision: inst.Revision, UpdateID: care.UpdateID, Fingerprint: care.Fingerprint,
		Choices: map[string]agency.Choice{"launch": agency.ChoiceHold}})
	require.NoError(t, err)
	assert.Equal(t, "held", held.Installation.CarePackage.State)
	runs, err := w.admin.Agency.Installations.RunScenarios(ctx, &agency.RunScenariosParams{PartnerID: w.partner,
		InstallationID: inst.InstallationID, ExpectedRevision: held.Installation.Revision, Scenarios: []string{"booking", "wrong_number"}})
	require.NoError(t, err)
	assert.Equal(t, []agency.ScenarioResult{
		{Scenario: "booking", Passed: false, Detail: "booking is not enabled in the facts"},
		{Scenario: "wrong_number", Passed: true, Detail: "the agent ends the call politely"},
	}, runs.ScenarioRun.Results)
	_, err = w.admin.Agency.Installations.RunScenarios(ctx, &agency.RunScenariosParams{PartnerID: w.partner,
		InstallationID: inst.InstallationID, ExpectedRevision: runs.Installation.Revision, Scenarios: []string{"fire"}})
	apiErr = requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
	assert.Equal(t, "/scenarios/0", apiErr.Details[0].Path)

	// A partner key holds only scopes the issuer holds, never platform-only
	// or unknown ones.
	_, err = noSMS.Agency.Profile.IssueKey(ctx, &agency.IssueKeyParams{PartnerID: w.partner, Name: "k", Scopes: []voiceagent.Scope{"sms:write"}})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
	for _, sc := range []voiceagent.Scope{"approvals:write", "nope:read", "*"} {
		_, err = w.admin.Agency.Profile.IssueKey(ctx, &agency.IssueKeyParams{PartnerID: w.partner, Name: "k", Scopes: []voiceagent.Scope{sc}})
		requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
	}
}

func TestIdempotencyKeyIsRequiredForCreateAndEnroll(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	v := w.publish(offerDraft("P", agency.PackageConvert))
	key := w.env.Account.APIKey
	body := fmt.Sprintf(`{"action": "create", "partnerId": %q, "offerVersionId": %q, "entries": [
	  {"newClient": {"name": "N", "externalRef": "r"}, "expectedRevision": null,
	   "facts": {"schemaVersion": 1, "profile": {"timezone": "", "services": [], "serviceArea": "", "hours": "",
	     "instructions": "", "website": "", "reviewUrl": ""}}}]}`, w.partner, v.OfferVersionID)
	status, apiErr := rawPost(t, w, "/v1/agency-enrollments", key, body, nil)
	require.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, voiceagent.CodeInvalidRequest, apiErr.Code)
	assert.Equal(t, "Idempotency-Key", apiErr.Details[0].Path)

	enrollBody := fmt.Sprintf(`{"action": "enroll", "partnerId": %q, "sessionId": %q, "expectedRevision": %q,
	  "fingerprint": %q, "approvalIds": []}`, w.partner, v.OfferVersionID, v.OfferVersionID, hex64)
	status, apiErr = rawPost(t, w, "/v1/agency-enrollments", key, enrollBody, nil)
	require.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "Idempotency-Key", apiErr.Details[0].Path)

	status, apiErr = rawPost(t, w, "/v1/agency-enrollments", key, body, http.Header{"Idempotency-Key": {strings.Repeat("k", 151)}})
	require.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "Idempotency-Key", apiErr.Details[0].Path)
	status, _ = rawPost(t, w, "/v1/agency-enrollments", key, body, http.Header{"Idempotency-Key": {strings.Repeat("k", 150)}})
	require.Equal(t, http.StatusOK, status)

	// The SDK refuses to send them without a key.
	_, err := w.admin.Agency.Enrollments.Create(w.ctx, &agency.CreateEnrollmentParams{PartnerID: w.partner, OfferVersionID: v.OfferVersionID})
	require.ErrorContains(t, err, "IdempotencyKey")
	_, err = w.admin.Agency.Enrollments.Enroll(w.ctx, &agency.EnrollParams{PartnerID: w.partner})
	require.ErrorContains(t, err, "IdempotencyKey")
	_, err = w.admin.Agency.Enrollments.Enroll(w.ctx, nil, voiceagent.WithIdempotencyKey("x"))
	require.ErrorContains(t, err, "needs params")
}

func TestBoundsAndShapesAreValidated(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	key := w.env.Account.APIKey
	facts := `{"schemaVersion": 1, "profile": {"timezone": "", "services": [], "serviceArea": "", "hours": "",
	  "instructions": "", "website": "", "reviewUrl": ""}%s}`
	entry := func(extra string) string {
		return `{"newClient": {"name": "N", "externalRef": "r"}, "expectedRevision": null, "facts": ` + fmt.Sprintf(facts, extra) + `}`
	}
	create := func(entries ...string) string {
		return fmt.Sprintf(`{"action": "create", "partnerId": %q, "offerVersionId": %q, "entries": [%s]}`,
			w.partner, w.partner, strings.Join(entries, ","))
	}
	many := make([]string, 51)
	for i := range many {
		many[i] = entry("")
	}
	tool := `, "discovery": {"observations": [], "locations": [], "primaryLocationId": null, "tools": [
	  {"name": "T", "purpose": "crm", "decision": "retain", "executor": "%s", "connectionRef": null}]}`
	for _, tc := range []struct{ name, path, body string }{
		{"51 entries", "/entries", create(many...)},
		{"unknown property", "/", `{"action": "preview", "partnerId": "` + w.partner + `", "sessionId": "` + w.partner + `", "extra": 1}`},
		{"unknown facts property", "/entries/0/facts", create(entry(`, "color": "red"`))},
		{"executor", "/entries/0/facts/discovery/tools/0/executor", create(entry(fmt.Sprintf(tool, "robot")))},
		{"E.164", "/entries/0/facts/fallback/phone", create(entry(`, "fallback": {"mode": "callback", "instruction": "i", "phone": "555-1234"}`))},
		{"schedule time", "/entries/0/facts/intakeCoverage/schedule/0/end", create(entry(`, "intakeCoverage": {"timezone": "", "schedule": [{"day": 1, "start": "08:00", "end": "24:00"}], "afterHours": "x"}`))},
		{"entry revision not 64 hex", "/entries/0/expectedRevision", create(strings.Replace(entry(""), `"expectedRevision": null`, `"expectedRevision": "ABC"`, 1))},
		{"offer name of 161", "/draft/name", `{"action": "save", "partnerId": "` + w.partner + `", "draft": {"name": "` + strings.Repeat("n", 161) + `", "industry": "legal", "commercialMode": "commission", "retail": {"monthlyCents": 1, "currency": "USD", "scope": "s", "collection": "agency_external"}, "packages": [{"key": "convert", "version": "1", "variant": "v"}], "supportedClaims": ["approved_intake_setup"], "supportPolicy": "p", "brandingLimitationsAcknowledged": true}}`},
		{"installation revision uuid", "/expectedRevision", `{"action": "preview_handoff", "partnerId": "` + w.partner + `", "installationId": "` + w.partner + `", "expectedRevision": "` + w.partner + `"}`},
	} {
		path := "/v1/agency-enrollments"
		switch {
		case strings.Contains(tc.body, `"save"`):
			path = "/v1/agency-offers"
		case strings.Contains(tc.body, "installationId"):
			path = "/v1/agency-installations"
		}
		status, apiErr := rawPost(t, w, path, key, tc.body, http.Header{"Idempotency-Key": {tc.name}})
		require.Equal(t, http.StatusBadRequest, status, tc.name)
		require.Equal(t, voiceagent.CodeInvalidRequest, apiErr.Code, tc.name)
		paths := make([]string, len(apiErr.Details))
		for i, d := range apiErr.Details {
			paths[i] = d.Path
		}
		assert.Contains(t, paths, tc.path, tc.name)
	}
	// kai is an executor of the interface: accepted.
	status, apiErr := rawPost(t, w, "/v1/agency-enrollments", key, create(entry(fmt.Sprintf(tool, "kai"))), http.Header{"Idempotency-Key": {"kai"}})
	require.Equal(t, http.StatusNotFound, status, "valid body; the offer version does not exist")
	assert.Equal(t, voiceagent.CodeNotFound, apiErr.Code)
}
