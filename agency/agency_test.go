package agency_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agency"
	"github.com/voiceagent/voiceagent-go/agents"
)

// TestAgencyFromBootstrapToInstalledClient walks an agency from bootstrap to
// a live client, then resolves an update from a second enrollment.
func TestAgencyFromBootstrapToInstalledClient(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx, admin := w.ctx, w.admin

	// Profile: read, update with the revision read.
	state, err := admin.Agency.Profile.Get(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, agency.RoleAdmin, state.Role)
	require.Len(t, state.Members, 1)
	assert.Equal(t, w.env.Account.UserID, state.Members[0].UserID)
	assert.Equal(t, agency.CommercialModeCommission, state.Profile.CommercialMode)
	up, err := admin.Agency.Profile.Update(ctx, &agency.UpdateProfileParams{
		PartnerID: w.partner, ExpectedRevision: state.Profile.Revision,
		Brand:          agency.Brand{Name: "Acme Voice", LogoURL: "https://acme.example/logo.png"},
		Support:        agency.Support{Email: "help@acme.example", OwnerName: "Ann", Coverage: "24/7"},
		CommercialMode: agency.CommercialModePartnerBilled,
	})
	require.NoError(t, err)
	assert.NotEqual(t, state.Profile.Revision, up.Profile.Revision)
	assert.Equal(t, "Acme Voice", up.Profile.Brand.Name)

	// Invite an operator; the invite's token arrives by email only.
	opAcct, op := w.member("op@acme.example", agency.RoleOperator)
	state, err = admin.Agency.Profile.Get(ctx, w.partner)
	require.NoError(t, err)
	require.Len(t, state.Members, 2)
	assert.Equal(t, "accepted", state.Invites[0].Status)
	assert.NotContains(t, string(mustJSON(t, state)), w.linkToken("op@acme.example"), "no invite token in reads")

	// Offer: the operator drafts and previews, the admin publishes.
	draft := offerDraft("Intake for plumbers", agency.PackageConvert, agency.PackageCare)
	saved, err := op.Agency.Offers.Save(ctx, &agency.SaveOfferParams{PartnerID: w.partner, Draft: draft})
	require.NoError(t, err)
	assert.Equal(t, agency.OfferDrafted, saved.Offer.State)
	fp, err := agency.Fingerprint(draft)
	require.NoError(t, err)
	assert.Equal(t, fp, saved.Offer.Fingerprint, "the fingerprint is the canonical draft's")
	pv, err := op.Agency.Offers.Preview(ctx, &agency.OfferParams{PartnerID: w.partner, OfferID: saved.Offer.OfferID})
	require.NoError(t, err)
	assert.Equal(t, agency.OfferPreviewed, pv.Offer.State)
	assert.Equal(t, fp, pv.Fingerprint)
	_, err = op.Agency.Offers.Publish(ctx, &agency.PublishOfferParams{PartnerID: w.partner, OfferID: saved.Offer.OfferID,
		ExpectedRevision: pv.Offer.Revision, Fingerprint: fp})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
	pub, err := admin.Agency.Offers.Publish(ctx, &agency.PublishOfferParams{PartnerID: w.partner, OfferID: saved.Offer.OfferID,
		ExpectedRevision: pv.Offer.Revision, Fingerprint: fp})
	require.NoError(t, err)
	assert.Equal(t, agency.OfferPublished, pub.Offer.State)
	version := pub.OfferVersion.OfferVersionID
	assert.Equal(t, version, pub.Offer.PublishedVersionID)

	// Enrollment: created by the operator with a stable key; a replay gives
	// the first receipt.
	ownerEmail := "owner@plumber.example"
	ownerAcct, owner := w.account(ownerEmail, voiceagent.ScopeWorkspacesRead, voiceagent.ScopeWorkspacesWrite, voiceagent.ScopeAgentsWrite, voiceagent.ScopeAgentsRead)
	create := &agency.CreateEnrollmentParams{
		PartnerID: w.partner, OfferVersionID: version, OwnerEmail: ownerEmail, IdempotencyKey: "crm-batch-42",
		Entries: []agency.Entry{{NewClient: &agency.NewClient{Name: "Joe's Plumbing", ExternalRef: "crm-1"}, Facts: minimalFacts()}},
	}
	created, err := op.Agency.Enrollments.Create(ctx, create)
	require.NoError(t, err)
	var resp *http.Response
	replay, err := op.Agency.Enrollments.Create(ctx, create, voiceagent.WithResponseInto(&resp))
	require.NoError(t, err)
	assert.Equal(t, created.Session.SessionID, replay.Session.SessionID)
	assert.Equal(t, created.ReceiptID, replay.ReceiptID)
	assert.Equal(t, "true", resp.Header.Get(voiceagent.HeaderIdempotentReplay))
	sid := created.Session.SessionID
	assert.Equal(t, agency.SessionDraft, created.Session.State)
	assert.Equal(t, "issued", created.Session.OwnerLink.Status)

	// Save the full facts, preview: the fingerprint covers the content.
	create.Entries[0].Facts = fullFacts()
	saved2, err := op.Agency.Enrollments.Save(ctx, &agency.SaveEnrollmentParams{
		PartnerID: w.partner, SessionID: sid, ExpectedRevision: created.Session.Revision, Entries: create.Entries,
	})
	require.NoError(t, err)
	spv, err := op.Agency.Enrollments.Preview(ctx, &agency.SessionParams{PartnerID: w.partner, SessionID: sid})
	require.NoError(t, err)
	sfp, err := agency.Fingerprint(map[string]any{"offerVersionId": version, "entries": create.Entries})
	require.NoError(t, err)
	assert.Equal(t, sfp, spv.Fingerprint)
	assert.Equal(t, saved2.Session.Fingerprint, spv.Fingerprint)
	require.Len(t, spv.Plan, 1)
	assert.Equal(t, "create_client", spv.Plan[0].Action)

	// Enrolling before the owner approved is refused.
	_, err = op.Agency.Enrollments.Enroll(ctx, &agency.EnrollParams{PartnerID: w.partner, SessionID: sid,
		ExpectedRevision: spv.Session.Revision, Fingerprint: spv.Fingerprint, IdempotencyKey: "enroll-1"})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeApprovalRequired)

	// The owner claims with the emailed token and approves the exact
	// fingerprint.
	claimed, err := owner.Agency.Enrollments.ClaimOwner(ctx, &agency.ClaimOwnerParams{
		PartnerID: w.partner, SessionID: sid, Token: w.linkToken(ownerEmail)})
	require.NoError(t, err)
	assert.Equal(t, ownerAcct.UserID, claimed.Session.OwnerLink.ClaimedBy)
	ownerView, err := owner.Agency.Enrollments.Get(ctx, &agency.GetParams{ID: sid})
	require.NoError(t, err, "the owner reads the session it claimed")
	assert.Equal(t, spv.Fingerprint, ownerView.Fingerprint)
	_, err = owner.Agency.Enrollments.ApproveOwner(ctx, &agency.ApproveOwnerParams{PartnerID: w.partner, SessionID: sid,
		ExpectedRevision: claimed.Session.Revision, Fingerprint: hex64})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeFingerprintMismatch)
	appr, err := owner.Agency.Enrollments.ApproveOwner(ctx, &agency.ApproveOwnerParams{PartnerID: w.partner, SessionID: sid,
		ExpectedRevision: claimed.Session.Revision, Fingerprint: spv.Fingerprint})
	require.NoError(t, err)
	assert.Equal(t, agency.SessionApproved, appr.Session.State)

	// Enroll: a 202 with one receipt per client.
	enrollParams := &agency.EnrollParams{PartnerID: w.partner, SessionID: sid, ExpectedRevision: appr.Session.Revision,
		Fingerprint: spv.Fingerprint, IdempotencyKey: "enroll-1b"}
	_, err = op.Agency.Enrollments.Enroll(ctx, enrollParams)
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeApprovalRequired)
	enrollParams.ApprovalIDs, enrollParams.IdempotencyKey = []string{appr.ApprovalID}, "enroll-2"
	enrolled, err := op.Agency.Enrollments.Enroll(ctx, enrollParams, voiceagent.WithResponseInto(&resp))
	require.NoError(t, err)
	assert.Equal(t, http.StatusAccepted, resp.StatusCode)
	assert.Equal(t, agency.SessionEnrolled, enrolled.Session.State)
	require.Len(t, enrolled.Clients, 1)
	rc := enrolled.Clients[0]
	require.Equal(t, agency.ClientEnrolled, rc.State, rc.Detail)
	require.NotEmpty(t, rc.BusinessID)

	// The new client is a business linked to the agency, with an agent, a
	// number and the facts in its prompt; its owner reaches it.
	ownerAgents, err := owner.Agents.List(ctx, &agents.ListParams{BusinessID: rc.BusinessID})
	require.NoError(t, err)
	require.Len(t, ownerAgents, 1)
	require.NotNil(t, ownerAgents[0].PhoneNumber)
	detail, err := owner.Agents.Get(ctx, ownerAgents[0].ID)
	require.NoError(t, err)
	assert.Contains(t, *detail.Prompts.Inbound.Prompt, "Drain cleaning")
	assert.True(t, detail.TransferEnabled, "the transfer fallback turns transfer on")

	// A partner key reaches exactly the agency's clients.
	issued, err := admin.Agency.Profile.IssueKey(ctx, &agency.IssueKeyParams{PartnerID: w.partner, Name: "Integration",
		Scopes: []voiceagent.Scope{voiceagent.ScopeAgentsRead, voiceagent.ScopeWorkspacesRead}})
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(issued.Key.Key, "voiceagent_live_"))
	partnerAgents, err := w.env.ClientFor(issued.Key.Key).Agents.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, partnerAgents, 1, "the client's agent, not the agency's own")
	assert.Equal(t, rc.BusinessID, partnerAgents[0].BusinessID)
	state, err = admin.Agency.Profile.Get(ctx, w.partner)
	require.NoError(t, err)
	require.Len(t, state.Keys, 1)
	assert.Empty(t, state.Keys[0].Key, "reads never show a key's value")

	// The enrolling operator is assigned to the new client.
	opMember := state.Members[slices.IndexFunc(state.Members, func(m agency.Member) bool { return m.UserID == opAcct.UserID })]
	assert.Equal(t, []agency.Assignment{{BusinessID: rc.BusinessID, BusinessRole: agency.BusinessRoleAdmin}}, opMember.Assignments)

	// Installation: route receipt, then handoff; the care package waits
	// for an explicit launch.
	inst, err := op.Agency.Installations.Get(ctx, &agency.GetParams{ID: rc.InstallationID})
	require.NoError(t, err)
	assert.Equal(t, agency.InstallationAwaitingRoute, inst.State)
	assert.Equal(t, agency.StepBlocked, inst.Handoff.State)
	require.NotNil(t, inst.CarePackage)
	assert.Equal(t, "draft", inst.CarePackage.State)
	require.Equal(t, 1, inst.PendingUpdates)
	assert.Regexp(t, "^[0-9a-f]{64}$", inst.Revision)
	factsFP, err := agency.Fingerprint(fullFacts())
	require.NoError(t, err)
	assert.Equal(t, factsFP, inst.FactsRevision)

	_, err = op.Agency.Installations.PreviewHandoff(ctx, &agency.StepParams{PartnerID: w.partner, InstallationID: inst.InstallationID, ExpectedRevision: inst.Revision})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeInvalidState)
	route, err := op.Agency.Installations.PreviewRouteReceipt(ctx, &agency.StepParams{PartnerID: w.partner, InstallationID: inst.InstallationID, ExpectedRevision: inst.Revision})
	require.NoError(t, err)
	rr := route.Installation.RouteReceipt
	require.NotNil(t, rr.Content)
	assert.Equal(t, agency.RoutingOwnerNotification, rr.Content.Routing.Kind)
	assert.Equal(t, *ownerAgents[0].PhoneNumber, rr.Content.PhoneNumber)
	contentFP, err := agency.Fingerprint(rr.RawContent)
	require.NoError(t, err)
	assert.Equal(t, contentFP, route.Fingerprint)
	_, err = op.Agency.Installations.ApproveRouteReceipt(ctx, &agency.StepParams{PartnerID: w.partner, InstallationID: inst.InstallationID,
		ExpectedRevision: inst.Revision, Fingerprint: route.Fingerprint})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeStaleRevision)
	_, err = op.Agency.Installations.ApproveRouteReceipt(ctx, &agency.StepParams{PartnerID: w.partner, InstallationID: inst.InstallationID,
		ExpectedRevision: route.Installation.Revision, Fingerprint: hex64})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeFingerprintMismatch)
	ra, err := op.Agency.Installations.ApproveRouteReceipt(ctx, &agency.StepParams{PartnerID: w.partner, InstallationID: inst.InstallationID,
		ExpectedRevision: route.Installation.Revision, Fingerprint: route.Fingerprint})
	require.NoError(t, err)
	assert.Equal(t, agency.InstallationAwaitingHandoff, ra.Installation.State)
	hp, err := op.Agency.Installations.PreviewHandoff(ctx, &agency.StepParams{PartnerID: w.partner, InstallationID: inst.InstallationID, ExpectedRevision: ra.Installation.Revision})
	require.NoError(t, err)
	assert.Equal(t, ownerAcct.UserID, hp.Installation.Handoff.Content.OwnerUserID)

	// Launch the care package (an update), then the handoff changed and
	// must be previewed again before its approval.
	care := hp.Installation.Updates[0]
	require.Equal(t, agency.UpdateCareLaunch, care.Kind)
	launched, err := op.Agency.Installations.ResolveUpdate(ctx, &agency.ResolveUpdateParams{PartnerID: w.partner,
		InstallationID: inst.InstallationID, ExpectedRevision: hp.Installation.Revision, UpdateID: care.UpdateID,
		Fingerprint: care.Fingerprint, Choices: map[string]agency.Choice{"launch": agency.ChoiceQueue}})
	require.NoError(t, err)
	assert.Equal(t, "queued", launched.Installation.CarePackage.State)
	_, err = op.Agency.Installations.ApproveHandoff(ctx, &agency.StepParams{PartnerID: w.partner, InstallationID: inst.InstallationID,
		ExpectedRevision: launched.Installation.Revision, Fingerprint: hp.Fingerprint})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeFingerprintMismatch)
	hp, err = op.Agency.Installations.PreviewHandoff(ctx, &agency.StepParams{PartnerID: w.partner, InstallationID: inst.InstallationID, ExpectedRevision: launched.Installation.Revision})
	require.NoError(t, err)
	live, err := op.Agency.Installations.ApproveHandoff(ctx, &agency.StepParams{PartnerID: w.partner, InstallationID: inst.InstallationID,
		ExpectedRevision: hp.Installation.Revision, Fingerprint: hp.Fingerprint})
	require.NoError(t, err)
	assert.Equal(t, agency.InstallationLive, live.Installation.State)
	assert.Equal(t, agency.StepApproved, live.Installation.Handoff.State)

	// Scenarios need evals:write; every scenario passes on the full facts.
	runs, err := op.Agency.Installations.RunScenarios(ctx, &agency.RunScenariosParams{PartnerID: w.partner,
		InstallationID: inst.InstallationID, ExpectedRevision: live.Installation.Revision})
	require.NoError(t, err)
	require.Len(t, runs.ScenarioRun.Results, 6)
	for _, r := range runs.ScenarioRun.Results {
		assert.True(t, r.Passed, r.Scenario+": "+r.Detail)
	}

	// A second enrollment with new facts becomes a pending update of the
	// installation; applying the routing change sends it back to review.
	newFacts := fullFacts()
	newFacts.Routing.Destination = "dispatch@plumber.example"
	newFacts.FAQs = append(newFacts.FAQs, agency.FAQ{Question: "Do you fix boilers?", Answer: "Yes."})
	sess2, appr2 := w.approvedSession(version, ownerEmail, owner, agency.Entry{
		BusinessID: rc.BusinessID, ExpectedRevision: &inst.FactsRevision, Facts: newFacts})
	r2, err := w.enroll(sess2, appr2)
	require.NoError(t, err)
	require.Equal(t, agency.ClientUpdated, r2.Clients[0].State, r2.Clients[0].Detail)
	inst2, err := op.Agency.Installations.Get(ctx, &agency.GetParams{ID: inst.InstallationID})
	require.NoError(t, err)
	upd := inst2.Updates[0]
	require.Equal(t, r2.Clients[0].UpdateID, upd.UpdateID)
	assert.Equal(t, []string{"faqs", "routing"}, upd.Parts)
	proposed, err := upd.ProposedFacts()
	require.NoError(t, err)
	assert.Equal(t, "dispatch@plumber.example", proposed.Routing.Destination)
	_, err = op.Agency.Installations.ResolveUpdate(ctx, &agency.ResolveUpdateParams{PartnerID: w.partner,
		InstallationID: inst.InstallationID, ExpectedRevision: inst2.Revision, UpdateID: upd.UpdateID,
		Fingerprint: upd.Fingerprint, Choices: map[string]agency.Choice{"routing": agency.ChoiceApply}})
	apiErr := requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
	assert.Equal(t, "/choices/faqs", apiErr.Details[0].Path)
	resolved, err := op.Agency.Installations.ResolveUpdate(ctx, &agency.ResolveUpdateParams{PartnerID: w.partner,
		InstallationID: inst.InstallationID, ExpectedRevision: inst2.Revision, UpdateID: upd.UpdateID, Fingerprint: upd.Fingerprint,
		Choices: map[string]agency.Choice{"routing": agency.ChoiceApply, "faqs": agency.ChoiceKeep}})
	require.NoError(t, err)
	final := resolved.Installation
	assert.Equal(t, "dispatch@plumber.example", final.Facts.Routing.Destination)
	assert.Len(t, final.Facts.FAQs, 1, "kept")
	assert.NotEqual(t, inst.FactsRevision, final.FactsRevision)
	assert.Equal(t, agency.InstallationAwaitingRoute, final.State)
	assert.Equal(t, 0, final.PendingUpdates)
	assert.Equal(t, "resolved", resolved.Update.State)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	return b
}
