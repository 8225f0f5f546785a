package agency_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agency"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

func TestUnavailableDependencyRetainsTheCommand(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx, c, srv := w.ctx, w.admin, w.env.Server

	srv.AddFault(mockserver.FaultRule{Path: "/v1/agency-offers", Method: http.MethodPost, Target: mockserver.FaultTargetDependency, Status: 503, Times: 2})
	_, err := c.Agency.Offers.Save(ctx, &agency.SaveOfferParams{PartnerID: w.partner, Draft: offerDraft("Retained", agency.PackageConvert)})
	requireAPIError(t, err, http.StatusServiceUnavailable, voiceagent.CodeServiceUnavailable)
	op, ok := agency.RetainedOperation(err)
	require.True(t, ok)
	assert.Equal(t, agency.OperationPending, op.Status)
	assert.Equal(t, "save", op.Action)

	// A later read shows the retained command, and no offer yet.
	page, err := c.Agency.Offers.List(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, page.Data)
	ops, err := c.Agency.Offers.Operations(ctx, "")
	require.NoError(t, err)
	require.Len(t, ops, 1)
	assert.Equal(t, op.OperationID, ops[0].OperationID)
	assert.Equal(t, agency.OperationPending, ops[0].Status)

	// The dependency is still down at the first retry, back at the second.
	srv.Advance(30 * time.Second)
	ops, err = c.Agency.Offers.Operations(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, agency.OperationPending, ops[0].Status)
	assert.Equal(t, 2, ops[0].Attempts)
	srv.Advance(30 * time.Second)
	ops, err = c.Agency.Offers.Operations(ctx, "")
	require.NoError(t, err)
	require.Equal(t, agency.OperationApplied, ops[0].Status)
	var receipt agency.OfferReceipt
	require.NoError(t, json.Unmarshal(ops[0].Result, &receipt))
	assert.Equal(t, "Retained", receipt.Offer.Name)
	page, err = c.Agency.Offers.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, page.Data, 1)
	assert.Equal(t, receipt.Offer.OfferID, page.Data[0].OfferID)

	// A retained command whose guard fails when retried is rejected, with
	// the error it would have had.
	srv.AddFault(mockserver.FaultRule{Path: "/v1/agency-offers", Method: http.MethodPost, Target: mockserver.FaultTargetDependency, Status: 503, Times: 1})
	_, err = c.Agency.Offers.Archive(ctx, &agency.ArchiveOfferParams{PartnerID: w.partner, OfferID: receipt.Offer.OfferID, ExpectedRevision: receipt.Offer.Revision})
	requireAPIError(t, err, http.StatusServiceUnavailable, voiceagent.CodeServiceUnavailable)
	_, err = c.Agency.Offers.Preview(ctx, &agency.OfferParams{PartnerID: w.partner, OfferID: receipt.Offer.OfferID})
	require.NoError(t, err, "the revision moves on meanwhile")
	srv.Advance(30 * time.Second)
	ops, err = c.Agency.Offers.Operations(ctx, "")
	require.NoError(t, err)
	require.Equal(t, "archive", ops[0].Action)
	assert.Equal(t, agency.OperationRejected, ops[0].Status)
	assert.Equal(t, voiceagent.CodeStaleRevision, ops[0].Error.Code)

	// Reads answer 503 rather than an empty list.
	srv.AddFault(mockserver.FaultRule{Path: "/v1/agency-installations", Method: http.MethodGet, Target: mockserver.FaultTargetDependency, Status: 503, Times: 1})
	_, err = c.Agency.Installations.List(ctx, nil)
	requireAPIError(t, err, http.StatusServiceUnavailable, voiceagent.CodeServiceUnavailable)
	_, ok = agency.RetainedOperation(err)
	assert.False(t, ok, "a read retains nothing")
}

func TestRetainedBootstrapIsShownToItsCaller(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	_, c := w.account("founder@new.example")
	w.env.Server.AddFault(mockserver.FaultRule{Path: "/v1/agency-profile", Method: http.MethodPost, Target: mockserver.FaultTargetDependency, Status: 503, Times: 1})
	_, err := c.Agency.Profile.Bootstrap(w.ctx, &agency.BootstrapParams{Brand: agency.Brand{Name: "New"},
		Support: agency.Support{Email: "a@new.example", OwnerName: "F", Coverage: "c"}})
	_, ok := agency.RetainedOperation(err)
	require.True(t, ok)
	st, err := c.Agency.Profile.Get(w.ctx, "")
	require.NoError(t, err)
	assert.Nil(t, st.Profile)
	require.Len(t, st.Operations, 1)
	w.env.Server.Advance(30 * time.Second)
	st, err = c.Agency.Profile.Get(w.ctx, "")
	require.NoError(t, err)
	require.NotNil(t, st.Profile)
	assert.Equal(t, "New", st.Profile.Brand.Name)
	require.Len(t, st.Operations, 1, "listed under the new agency")
	assert.Equal(t, agency.OperationApplied, st.Operations[0].Status)
}

func TestWaitingAndConflictingClients(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx, c, srv := w.ctx, w.admin, w.env.Server
	existing := w.installed("first")
	v := w.publish(offerDraft("Second", agency.PackageConvert))
	ownerEmail := "multi@client.example"
	_, owner := w.account(ownerEmail)
	sess, appr := w.approvedSession(v.OfferVersionID, ownerEmail, owner,
		agency.Entry{NewClient: &agency.NewClient{Name: "Waits", ExternalRef: "waits"}, Facts: minimalFacts("a")},
		agency.Entry{NewClient: &agency.NewClient{Name: "Dup", ExternalRef: "first"}, Facts: minimalFacts()},
		agency.Entry{BusinessID: existing.BusinessID, ExpectedRevision: voiceagent.String(hex64), Facts: minimalFacts()},
		agency.Entry{NewClient: &agency.NewClient{Name: "Fine", ExternalRef: "fine"}, Facts: minimalFacts()},
	)
	pv, err := c.Agency.Enrollments.Preview(ctx, &agency.SessionParams{PartnerID: w.partner, SessionID: sess.SessionID})
	require.NoError(t, err)
	actions := []string{}
	for _, p := range pv.Plan {
		actions = append(actions, p.Action)
	}
	assert.Equal(t, []string{"create_client", "conflict", "conflict", "create_client"}, actions)
	assert.Equal(t, existing.FactsRevision, pv.Plan[2].CurrentRevision)

	// The voice provider fails once: the first new client waits.
	srv.AddFault(mockserver.FaultRule{Path: "/v1/agency-enrollments", Method: http.MethodPost, Target: mockserver.FaultTargetVoiceProvider, Status: 502, Times: 1})
	r, err := c.Agency.Enrollments.Enroll(ctx, &agency.EnrollParams{PartnerID: w.partner, SessionID: sess.SessionID,
		ExpectedRevision: pv.Session.Revision, Fingerprint: pv.Fingerprint, ApprovalIDs: []string{appr}, IdempotencyKey: "multi"})
	require.NoError(t, err)
	assert.Equal(t, agency.SessionEnrolling, r.Session.State)
	states := func(rs []agency.ClientReceipt) []agency.ClientState {
		out := make([]agency.ClientState, len(rs))
		for i, x := range rs {
			out[i] = x.State
		}
		return out
	}
	assert.Equal(t, []agency.ClientState{agency.ClientWaiting, agency.ClientConflict, agency.ClientConflict, agency.ClientEnrolled}, states(r.Clients))
	assert.Equal(t, "dependency_unavailable", r.Clients[0].Reason)
	assert.Equal(t, voiceagent.CodeReconciliationRequired, r.Clients[1].Reason)
	assert.Equal(t, existing.BusinessID, r.Clients[1].ExistingBusinessID)
	assert.Equal(t, voiceagent.CodeStaleRevision, r.Clients[2].Reason)

	// The waiting client is provisioned once the provider is back.
	srv.Advance(30 * time.Second)
	got, err := c.Agency.Enrollments.Get(ctx, &agency.GetParams{ID: sess.SessionID})
	require.NoError(t, err)
	assert.Equal(t, agency.SessionEnrolled, got.State)
	assert.Equal(t, agency.ClientEnrolled, got.Clients[0].State)
	assert.Equal(t, 2, got.Clients[0].Attempts)
	assert.NotEmpty(t, got.Clients[0].InstallationID)
	assert.NotEqual(t, r.Session.Revision, got.Revision)
	unchanged, err := c.Agency.Installations.Get(ctx, &agency.GetParams{ID: existing.InstallationID})
	require.NoError(t, err)
	assert.Equal(t, existing.FactsRevision, unchanged.FactsRevision, "a conflicting client is left as it was")
}

func TestConcurrentConflictingCommandsExactlyOneWins(t *testing.T) {
	t.Parallel()
	w := newWorld(t)
	ctx, c := w.ctx, w.admin
	saved, err := c.Agency.Offers.Save(ctx, &agency.SaveOfferParams{PartnerID: w.partner, Draft: offerDraft("Base", agency.PackageConvert)})
	require.NoError(t, err)

	const n = 12
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Agency.Offers.Save(ctx, &agency.SaveOfferParams{PartnerID: w.partner, OfferID: saved.Offer.OfferID,
				ExpectedRevision: saved.Offer.Revision, Draft: offerDraft(fmt.Sprintf("Writer %d", i), agency.PackageConvert)})
		}()
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		if err == nil {
			require.Equal(t, -1, winner, "two writers won")
			winner = i
			continue
		}
		requireAPIError(t, err, http.StatusConflict, voiceagent.CodeStaleRevision)
	}
	require.NotEqual(t, -1, winner)
	got, err := c.Agency.Offers.Get(ctx, &agency.GetParams{ID: saved.Offer.OfferID})
	require.NoError(t, err)
	assert.Equal(t, fmt.Sprintf("Writer %d", winner), got.Draft.Name, "the winner's draft is what is stored")

	// Concurrent commits of one session: one enrolls, the others get 409,
	// and each client is installed once.
	v := w.publish(offerDraft("Race", agency.PackageConvert))
	_, owner := w.account("race@client.example")
	sess, appr := w.approvedSession(v.OfferVersionID, "race@client.example", owner,
		agency.Entry{NewClient: &agency.NewClient{Name: "R1", ExternalRef: "r1"}, Facts: minimalFacts()},
		agency.Entry{NewClient: &agency.NewClient{Name: "R2", ExternalRef: "r2"}, Facts: minimalFacts()})
	receipts := make([]*agency.EnrollmentReceipt, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			receipts[i], errs[i] = c.Agency.Enrollments.Enroll(ctx, &agency.EnrollParams{PartnerID: w.partner, SessionID: sess.SessionID,
				ExpectedRevision: sess.Revision, Fingerprint: sess.Fingerprint, ApprovalIDs: []string{appr},
				IdempotencyKey: fmt.Sprintf("racer-%d", i)})
		}()
	}
	wg.Wait()
	wins := 0
	for i, err := range errs {
		if err == nil {
			wins++
			assert.Len(t, receipts[i].Clients, 2)
			continue
		}
		var apiErr *voiceagent.Error
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusConflict, apiErr.StatusCode, apiErr.Error())
	}
	assert.Equal(t, 1, wins)
	var installs int
	for inst, err := range c.Agency.Installations.All(ctx, nil) {
		require.NoError(t, err)
		if inst.SessionID == sess.SessionID {
			installs++
		}
	}
	assert.Equal(t, 2, installs)

	// Commands that do not conflict all land: nothing is lost.
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = c.Agency.Profile.Invite(ctx, &agency.InviteParams{PartnerID: w.partner,
				Email: fmt.Sprintf("m%d@acme.example", i), Role: agency.RoleReader})
		}()
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	st, err := c.Agency.Profile.Get(ctx, "")
	require.NoError(t, err)
	assert.Len(t, st.Invites, n)
}
