package agency_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agency"
)

func TestSelfServiceEnrollment(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx, c := w.ctx, w.admin
	v := w.publish(offerDraft("Self", agency.PackageConvert))
	ownerAcct, owner := w.account("diy@client.example")

	started, err := owner.Agency.Enrollments.StartSelfService(ctx, &agency.StartSelfServiceParams{
		OfferVersionID: v.OfferVersionID, Name: "DIY Plumbing", Facts: minimalFacts("Leaks")})
	require.NoError(t, err)
	s := started.Session
	assert.True(t, s.SelfService)
	assert.Equal(t, w.partner, s.PartnerID)
	assert.Equal(t, "claimed", s.OwnerLink.Status)
	assert.Equal(t, ownerAcct.UserID, s.OwnerLink.ClaimedBy)

	// Only the owner saves and finishes; the agency sees the session.
	_, err = c.Agency.Enrollments.OwnerSave(ctx, &agency.OwnerSaveParams{PartnerID: w.partner, SessionID: s.SessionID,
		ExpectedRevision: s.Revision, Facts: fullFacts()})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
	saved, err := owner.Agency.Enrollments.OwnerSave(ctx, &agency.OwnerSaveParams{PartnerID: w.partner, SessionID: s.SessionID,
		ExpectedRevision: s.Revision, Facts: fullFacts()})
	require.NoError(t, err)
	_, err = owner.Agency.Enrollments.OwnerSave(ctx, &agency.OwnerSaveParams{PartnerID: w.partner, SessionID: s.SessionID,
		ExpectedRevision: s.Revision, Facts: fullFacts()})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeStaleRevision)
	_, err = c.Agency.Enrollments.RotateOwnerLink(ctx, &agency.RotateOwnerLinkParams{PartnerID: w.partner, SessionID: s.SessionID,
		ExpectedRevision: saved.Session.Revision})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeInvalidState)
	finished, err := owner.Agency.Enrollments.FinishSelfService(ctx, &agency.SessionParams{PartnerID: w.partner, SessionID: s.SessionID})
	require.NoError(t, err)
	assert.Equal(t, agency.SessionApproved, finished.Session.State)
	require.NotEmpty(t, finished.ApprovalID)
	_, err = owner.Agency.Enrollments.FinishSelfService(ctx, &agency.SessionParams{PartnerID: w.partner, SessionID: s.SessionID})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeInvalidState)

	listed, err := c.Agency.Enrollments.Get(ctx, &agency.GetParams{ID: s.SessionID})
	require.NoError(t, err)
	r, err := c.Agency.Enrollments.Enroll(ctx, &agency.EnrollParams{PartnerID: w.partner, SessionID: s.SessionID,
		ExpectedRevision: listed.Revision, Fingerprint: listed.Fingerprint, ApprovalIDs: []string{finished.ApprovalID},
		IdempotencyKey: "diy"})
	require.NoError(t, err)
	require.Equal(t, agency.ClientEnrolled, r.Clients[0].State)

	// The owner owns the new business.
	list, err := owner.Agents.List(ctx, nil)
	require.NoError(t, err)
	var found bool
	for _, a := range list {
		found = found || a.BusinessID == r.Clients[0].BusinessID
	}
	assert.True(t, found, "the owner reaches the business it enrolled")

	// An unknown or archived offer version takes no self-service session.
	_, err = owner.Agency.Enrollments.StartSelfService(ctx, &agency.StartSelfServiceParams{
		OfferVersionID: w.partner, Name: "X", Facts: minimalFacts()})
	requireAPIError(t, err, http.StatusNotFound, voiceagent.CodeNotFound)
	offer, err := c.Agency.Offers.Get(ctx, &agency.GetParams{ID: v.OfferID})
	require.NoError(t, err)
	_, err = c.Agency.Offers.Archive(ctx, &agency.ArchiveOfferParams{PartnerID: w.partner, OfferID: v.OfferID, ExpectedRevision: offer.Revision})
	require.NoError(t, err)
	_, err = owner.Agency.Enrollments.StartSelfService(ctx, &agency.StartSelfServiceParams{
		OfferVersionID: v.OfferVersionID, Name: "X", Facts: minimalFacts()})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeInvalidState)
	_, err = c.Agency.Offers.Save(ctx, &agency.SaveOfferParams{PartnerID: w.partner, OfferID: v.OfferID,
		ExpectedRevision: offer.Revision, Draft: offerDraft("again", agency.PackageConvert)})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeInvalidState)
}

func TestListsArePagedByIDAndBounded(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx, c := w.ctx, w.admin
	const n = 53
	for i := range n {
		_, err := c.Agency.Offers.Save(ctx, &agency.SaveOfferParams{PartnerID: w.partner, Draft: offerDraft(fmt.Sprintf("Offer %02d", i), agency.PackageConvert)})
		require.NoError(t, err)
	}
	page, err := c.Agency.Offers.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, page.Data, 50)
	assert.True(t, page.HasMore)
	assert.Equal(t, "Offer 52", page.Data[0].Name, "newest first")
	assert.Equal(t, page.Data[49].OfferID, page.NextCursor)
	next, err := c.Agency.Offers.List(ctx, &agency.ListParams{After: page.NextCursor})
	require.NoError(t, err)
	require.Len(t, next.Data, 3)
	assert.False(t, next.HasMore)
	assert.Equal(t, "Offer 00", next.Data[2].Name)

	var names []string
	for o, err := range c.Agency.Offers.All(ctx, &agency.ListParams{PartnerID: w.partner}) {
		require.NoError(t, err)
		names = append(names, o.Name)
	}
	assert.Len(t, names, n)

	for _, bad := range []string{"nope", w.partner} {
		_, err = c.Agency.Offers.List(ctx, &agency.ListParams{After: bad})
		apiErr := requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
		assert.Equal(t, "after", apiErr.Details[0].Path)
	}
	_, err = c.Agency.Offers.List(ctx, &agency.ListParams{PartnerID: "not-a-uuid"})
	requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
	_, err = c.Agency.Offers.Get(ctx, &agency.GetParams{ID: w.partner})
	requireAPIError(t, err, http.StatusNotFound, voiceagent.CodeNotFound)
	_, err = c.Agency.Installations.Get(ctx, &agency.GetParams{ID: "x"})
	requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)

	// Another agency's records are not visible.
	_, other := w.account("other-agency@else.example")
	_, err = other.Agency.Profile.Bootstrap(ctx, &agency.BootstrapParams{Brand: agency.Brand{Name: "Other"},
		Support: agency.Support{Email: "o@else.example", OwnerName: "O", Coverage: "c"}})
	require.NoError(t, err)
	_, err = other.Agency.Offers.Get(ctx, &agency.GetParams{ID: page.Data[0].OfferID})
	requireAPIError(t, err, http.StatusNotFound, voiceagent.CodeNotFound)
	otherPage, err := other.Agency.Offers.List(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, otherPage.Data)
	_, err = other.Agency.Offers.List(ctx, &agency.ListParams{PartnerID: w.partner})
	requireAPIError(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
}

func TestReadsNeverExposeTokensOrKeyValues(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx, c := w.ctx, w.admin
	v := w.publish(offerDraft("T", agency.PackageConvert))
	_, err := c.Agency.Enrollments.Create(ctx, &agency.CreateEnrollmentParams{PartnerID: w.partner, OfferVersionID: v.OfferVersionID,
		OwnerEmail: "tok@client.example", IdempotencyKey: "tok",
		Entries: []agency.Entry{{NewClient: &agency.NewClient{Name: "N", ExternalRef: "r"}, Facts: fullFacts()}}})
	require.NoError(t, err)
	_, err = c.Agency.Profile.Invite(ctx, &agency.InviteParams{PartnerID: w.partner, Email: "inv@acme.example", Role: agency.RoleReader})
	require.NoError(t, err)
	key, err := c.Agency.Profile.IssueKey(ctx, &agency.IssueKeyParams{PartnerID: w.partner, Name: "k", Scopes: []voiceagent.Scope{"workspaces:read"}})
	require.NoError(t, err)
	secrets := []string{w.linkToken("tok@client.example"), w.linkToken("inv@acme.example"), key.Key.Key}
	for _, path := range []string{"/v1/agency-profile", "/v1/agency-offers", "/v1/agency-enrollments", "/v1/agency-installations"} {
		var raw json.RawMessage
		require.NoError(t, c.Do(ctx, http.MethodGet, path, nil, nil, &raw))
		for _, secret := range secrets {
			require.NotEmpty(t, secret)
			assert.NotContains(t, string(raw), secret, path)
		}
		assert.NotContains(t, strings.ToLower(string(raw)), "tokenhash", path)
	}
}

func TestInvitesExpireAfterSevenDays(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	_, err := w.admin.Agency.Profile.Invite(w.ctx, &agency.InviteParams{PartnerID: w.partner, Email: "slow@acme.example", Role: agency.RoleOperator})
	require.NoError(t, err)
	_, slow := w.account("slow@acme.example")
	w.env.Server.Advance(7*24*time.Hour + time.Second)
	_, err = slow.Agency.Profile.AcceptInvite(w.ctx, &agency.AcceptInviteParams{PartnerID: w.partner, Token: w.linkToken("slow@acme.example")})
	requireAPIError(t, err, http.StatusConflict, voiceagent.CodeInvalidState)
	st, err := w.admin.Agency.Profile.Get(w.ctx, "")
	require.NoError(t, err)
	assert.Equal(t, "expired", st.Invites[0].Status)
	_, err = w.admin.Agency.Profile.Invite(w.ctx, &agency.InviteParams{PartnerID: w.partner, Email: "slow@acme.example", Role: agency.RoleOperator})
	require.NoError(t, err, "an expired invite does not block a new one")
}
