package agency_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agency"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

const hex64 = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

// fullFacts uses every part of the facts object.
func fullFacts() agency.Facts {
	observed := time.Date(2026, 6, 1, 10, 0, 0, 0, time.UTC)
	return agency.Facts{
		Profile: agency.FactsProfile{
			Timezone: "America/New_York", Services: []string{"Drain cleaning", "Water heaters"},
			ServiceArea: "Brooklyn and Queens", Hours: "Mon-Fri 8-18", Instructions: "Be brief.",
			Website: "https://plumber.example", ReviewURL: "",
		},
		Discovery: &agency.Discovery{
			Observations: []agency.Observation{
				{Field: "hours", Value: agency.StringValue("Mon-Fri 8-18"), SourceRef: "website", ObservedAt: &observed,
					State: agency.ObservationSuggestion, Revision: hex64, OwnerRole: agency.OwnerRoleAgencyOperator},
				{Field: "languages", Value: agency.ListValue("en", "es"), SourceRef: "call",
					State: agency.ObservationOwnerConfirmed, Revision: hex64, OwnerRole: agency.OwnerRoleClientOwner},
				{Field: "trucks", Value: agency.NumberValue(3), SourceRef: "call", State: agency.ObservationUnknown,
					Revision: hex64, OwnerRole: agency.OwnerRoleProvider},
				{Field: "licensed", Value: agency.BoolValue(true), SourceRef: "call", State: agency.ObservationConflict,
					Revision: hex64, OwnerRole: agency.OwnerRoleProvider},
				{Field: "fax", Value: agency.NullValue(), SourceRef: "call", State: agency.ObservationUnknown,
					Revision: hex64, OwnerRole: agency.OwnerRoleProvider},
			},
			Locations: []agency.Location{{ID: "main", Label: "Main shop", ServiceArea: "Brooklyn",
				Languages: []string{"en", "es"}, Timezone: "America/New_York", ReviewURL: "https://reviews.example/main"}},
			PrimaryLocationID: voiceagent.String("main"),
			Tools: []agency.Tool{
				{Name: "OldCRM", Purpose: agency.PurposeCRM, Decision: agency.DecisionIntegrate, Executor: agency.ExecutorKai},
				{Name: "Calendly", Purpose: agency.PurposeBooking, Decision: agency.DecisionRetain,
					Executor: agency.ExecutorExisting, ConnectionRef: voiceagent.String("conn-1")},
			},
		},
		IntakeCoverage: &agency.IntakeCoverage{Timezone: "America/New_York",
			Schedule:   []agency.ScheduleSlot{{Day: 1, Start: "08:00", End: "18:00"}, {Day: 6, Start: "08:00", End: "12:30"}},
			AfterHours: "Take a message and promise a callback."},
		Qualification: []agency.QualificationQuestion{{Question: "Is water leaking now?", Instruction: "If yes, it is urgent."}},
		Routing: &agency.Routing{Kind: agency.RoutingOwnerNotification, Destination: "owner@plumber.example",
			DestinationPhone: "+15551230001", Instruction: "Text the owner every qualified lead."},
		Fallback:  &agency.Fallback{Mode: agency.FallbackTransfer, Instruction: "Transfer emergencies.", Phone: "+15551230002"},
		Booking:   &agency.Booking{Enabled: true, Instruction: "Offer the next free slot."},
		FAQs:      []agency.FAQ{{Question: "Do you work weekends?", Answer: "Saturday mornings."}},
		Reporting: &agency.Reporting{Timezone: "America/New_York"},
	}
}

// minimalFacts has only the required parts.
func minimalFacts(services ...string) agency.Facts {
	return agency.Facts{Profile: agency.FactsProfile{Timezone: "America/Chicago", Services: services}}
}

func offerDraft(name string, packages ...agency.PackageKey) agency.OfferDraft {
	d := agency.OfferDraft{
		Name: name, Industry: agency.IndustryHomeServices, CommercialMode: agency.CommercialModeCommission,
		Retail:          agency.Retail{MonthlyCents: 49900, Scope: "Intake line"},
		SupportedClaims: []agency.Claim{agency.ClaimApprovedIntakeSetup, agency.ClaimRecordedActivityReporting},
		SupportPolicy:   "Email within one business day.", BrandingLimitationsAcknowledged: true,
	}
	for _, k := range packages {
		d.Packages = append(d.Packages, agency.Package{Key: k, Version: "2026-06", Variant: "standard"})
	}
	return d
}

// world is an agency bootstrapped on a mock server by an admin.
type world struct {
	t       testing.TB
	ctx     context.Context
	env     *testenv.Env
	admin   *client.Client
	partner string
}

func newWorld(t testing.TB, opts ...mockserver.Option) *world {
	t.Helper()
	env := testenv.New(t, opts...)
	w := &world{t: t, ctx: context.Background(), env: env, admin: env.Client}
	r, err := w.admin.Agency.Profile.Bootstrap(w.ctx, &agency.BootstrapParams{
		Brand:   agency.Brand{Name: "Acme Agency"},
		Support: agency.Support{Email: "help@acme.example", OwnerName: "Ann", Coverage: "Mon-Fri 9-5"},
	})
	require.NoError(t, err)
	w.partner = r.Profile.PartnerID
	return w
}

// account provisions another account (scopes default to all) and returns
// it with a client.
func (w *world) account(email string, scopes ...voiceagent.Scope) (*mockserver.Account, *client.Client) {
	w.t.Helper()
	acct := testenv.NewAccount(w.t, w.env.Server, mockserver.AccountOptions{Email: email, Scopes: scopes})
	return acct, w.env.ClientFor(acct.APIKey)
}

// linkToken reads the token of the newest link emailed to an address.
func (w *world) linkToken(to string) string {
	w.t.Helper()
	ctx, cancel := context.WithTimeout(w.ctx, 5*time.Second)
	defer cancel()
	msg, ok := w.env.Server.WaitOutbox(ctx, to, nil)
	require.True(w.t, ok, "no email to %s", to)
	u, err := url.Parse(msg.Link)
	require.NoError(w.t, err)
	return u.Query().Get("token")
}

// member invites email with role and has them accept; it returns their
// client.
func (w *world) member(email string, role agency.Role, scopes ...voiceagent.Scope) (*mockserver.Account, *client.Client) {
	w.t.Helper()
	acct, c := w.account(email, scopes...)
	_, err := w.admin.Agency.Profile.Invite(w.ctx, &agency.InviteParams{PartnerID: w.partner, Email: email, Role: role})
	require.NoError(w.t, err)
	_, err = c.Agency.Profile.AcceptInvite(w.ctx, &agency.AcceptInviteParams{PartnerID: w.partner, Token: w.linkToken(email)})
	require.NoError(w.t, err)
	return acct, c
}

// publish saves, previews and publishes an offer and returns its version.
func (w *world) publish(draft agency.OfferDraft) *agency.OfferVersion {
	w.t.Helper()
	saved, err := w.admin.Agency.Offers.Save(w.ctx, &agency.SaveOfferParams{PartnerID: w.partner, Draft: draft})
	require.NoError(w.t, err)
	pv, err := w.admin.Agency.Offers.Preview(w.ctx, &agency.OfferParams{PartnerID: w.partner, OfferID: saved.Offer.OfferID})
	require.NoError(w.t, err)
	pub, err := w.admin.Agency.Offers.Publish(w.ctx, &agency.PublishOfferParams{
		PartnerID: w.partner, OfferID: saved.Offer.OfferID, ExpectedRevision: pv.Offer.Revision, Fingerprint: pv.Fingerprint,
	})
	require.NoError(w.t, err)
	return pub.OfferVersion
}

// approvedSession creates a session with the entries, previews it, and has
// the owner (ownerEmail, an account) claim and approve it. It returns the
// session as approved and the approval id.
func (w *world) approvedSession(versionID, ownerEmail string, owner *client.Client, entries ...agency.Entry) (*agency.Session, string) {
	w.t.Helper()
	created, err := w.admin.Agency.Enrollments.Create(w.ctx, &agency.CreateEnrollmentParams{
		PartnerID: w.partner, OfferVersionID: versionID, Entries: entries, OwnerEmail: ownerEmail,
		IdempotencyKey: "create-" + time.Now().Format(time.RFC3339Nano),
	})
	require.NoError(w.t, err)
	sid := created.Session.SessionID
	pv, err := w.admin.Agency.Enrollments.Preview(w.ctx, &agency.SessionParams{PartnerID: w.partner, SessionID: sid})
	require.NoError(w.t, err)
	claimed, err := owner.Agency.Enrollments.ClaimOwner(w.ctx, &agency.ClaimOwnerParams{
		PartnerID: w.partner, SessionID: sid, Token: w.linkToken(ownerEmail),
	})
	require.NoError(w.t, err)
	appr, err := owner.Agency.Enrollments.ApproveOwner(w.ctx, &agency.ApproveOwnerParams{
		PartnerID: w.partner, SessionID: sid, ExpectedRevision: claimed.Session.Revision, Fingerprint: pv.Fingerprint,
	})
	require.NoError(w.t, err)
	return &appr.Session, appr.ApprovalID
}

// enroll commits an approved session.
func (w *world) enroll(sess *agency.Session, approvalID string) (*agency.EnrollmentReceipt, error) {
	return w.admin.Agency.Enrollments.Enroll(w.ctx, &agency.EnrollParams{
		PartnerID: w.partner, SessionID: sess.SessionID, ExpectedRevision: sess.Revision,
		Fingerprint: sess.Fingerprint, ApprovalIDs: []string{approvalID}, IdempotencyKey: "enroll-" + sess.SessionID,
	})
}

// installed enrolls one new client into a fresh offer (convert only) and
// returns its installation.
func (w *world) installed(ref string) *agency.Installation {
	w.t.Helper()
	v := w.publish(offerDraft("Offer "+ref, agency.PackageConvert))
	ownerEmail := "owner-" + ref + "@client.example"
	_, owner := w.account(ownerEmail)
	sess, appr := w.approvedSession(v.OfferVersionID, ownerEmail, owner,
		agency.Entry{NewClient: &agency.NewClient{Name: "Client " + ref, ExternalRef: ref}, Facts: fullFacts()})
	r, err := w.enroll(sess, appr)
	require.NoError(w.t, err)
	require.Equal(w.t, agency.ClientEnrolled, r.Clients[0].State, r.Clients[0].Detail)
	inst, err := w.admin.Agency.Installations.Get(w.ctx, &agency.GetParams{ID: r.Clients[0].InstallationID})
	require.NoError(w.t, err)
	return inst
}

// requireAPIError asserts an *voiceagent.Error with status and code.
func requireAPIError(t *testing.T, err error, status int, code string) *voiceagent.Error {
	t.Helper()
	var apiErr *voiceagent.Error
	require.True(t, errors.As(err, &apiErr), "want a %d %s error, got %v", status, code, err)
	require.Equal(t, status, apiErr.StatusCode, apiErr.Error())
	require.Equal(t, code, apiErr.Code, apiErr.Error())
	return apiErr
}

// rawPost sends a body as-is with a key and the headers (no
// Idempotency-Key unless given), and returns the status and the decoded
// error, if any.
func rawPost(t *testing.T, w *world, path, key, body string, header http.Header) (int, *voiceagent.Error) {
	t.Helper()
	req, err := http.NewRequestWithContext(w.ctx, http.MethodPost, w.env.Server.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header = header.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := w.env.HTTPClient().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	if resp.StatusCode < 300 {
		return resp.StatusCode, nil
	}
	var env struct {
		Error voiceagent.Error `json:"error"`
	}
	require.NoError(t, json.Unmarshal(data, &env), string(data))
	env.Error.StatusCode, env.Error.Body = resp.StatusCode, data
	return resp.StatusCode, &env.Error
}
