package agency_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agency"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// exampleServer starts an in-process mock server with one account and
// returns it, a client for the account, and a stop function.
func exampleServer(email string) (*mockserver.Server, *client.Client, func(string) *client.Client, func()) {
	srv := mockserver.New()
	hs := httptest.NewServer(srv)
	clientFor := func(email string) *client.Client {
		acct, err := srv.NewAccount(mockserver.AccountOptions{Email: email})
		if err != nil {
			panic(err)
		}
		return client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"), voiceagent.WithMaxRetries(0))
	}
	return srv, clientFor(email), clientFor, func() { hs.Close(); srv.Close() }
}

func exampleDraft() agency.OfferDraft {
	return agency.OfferDraft{
		Name: "Intake for plumbers", Industry: agency.IndustryHomeServices, CommercialMode: agency.CommercialModeCommission,
		Retail:          agency.Retail{MonthlyCents: 49900, Scope: "Answering and intake"},
		Packages:        []agency.Package{{Key: agency.PackageConvert, Version: "2026-06", Variant: "standard"}},
		SupportedClaims: []agency.Claim{agency.ClaimApprovedIntakeSetup},
		SupportPolicy:   "Email within one business day.", BrandingLimitationsAcknowledged: true,
	}
}

// Bootstrap an agency, then save, preview and publish an offer: publishing
// carries the revision and the fingerprint the preview gave.
func ExampleOffersService_Publish() {
	_, c, _, stop := exampleServer("ann@acme.example")
	defer stop()
	ctx := context.Background()

	boot, err := c.Agency.Profile.Bootstrap(ctx, &agency.BootstrapParams{
		Brand:   agency.Brand{Name: "Acme Agency"},
		Support: agency.Support{Email: "help@acme.example", OwnerName: "Ann", Coverage: "Mon-Fri 9-5"},
	})
	if err != nil {
		panic(err)
	}
	partner := boot.Profile.PartnerID

	saved, _ := c.Agency.Offers.Save(ctx, &agency.SaveOfferParams{PartnerID: partner, Draft: exampleDraft()})
	fmt.Println(saved.Offer.State)
	pv, _ := c.Agency.Offers.Preview(ctx, &agency.OfferParams{PartnerID: partner, OfferID: saved.Offer.OfferID})
	fmt.Println(pv.Offer.State)

	_, err = c.Agency.Offers.Publish(ctx, &agency.PublishOfferParams{PartnerID: partner, OfferID: saved.Offer.OfferID,
		ExpectedRevision: saved.Offer.Revision, Fingerprint: pv.Fingerprint})
	fmt.Println(voiceagent.ErrStaleRevision.Code, errors.Is(err, voiceagent.ErrStaleRevision))

	pub, _ := c.Agency.Offers.Publish(ctx, &agency.PublishOfferParams{PartnerID: partner, OfferID: saved.Offer.OfferID,
		ExpectedRevision: pv.Offer.Revision, Fingerprint: pv.Fingerprint})
	fmt.Println(pub.Offer.State, pub.OfferVersion.OfferVersionID == pub.Offer.PublishedVersionID)
	// Output:
	// drafted
	// previewed
	// stale_revision true
	// published true
}

// Enroll a new client: create the session with a stable idempotency key,
// preview it, let the owner claim the emailed link and approve the exact
// fingerprint, then enroll with the owner's approval.
func ExampleEnrollmentsService_Enroll() {
	srv, c, clientFor, stop := exampleServer("ann@acme.example")
	defer stop()
	ctx := context.Background()
	boot, _ := c.Agency.Profile.Bootstrap(ctx, &agency.BootstrapParams{Brand: agency.Brand{Name: "Acme"},
		Support: agency.Support{Email: "help@acme.example", OwnerName: "Ann", Coverage: "24/7"}})
	partner := boot.Profile.PartnerID
	saved, _ := c.Agency.Offers.Save(ctx, &agency.SaveOfferParams{PartnerID: partner, Draft: exampleDraft()})
	pv, _ := c.Agency.Offers.Preview(ctx, &agency.OfferParams{PartnerID: partner, OfferID: saved.Offer.OfferID})
	pub, _ := c.Agency.Offers.Publish(ctx, &agency.PublishOfferParams{PartnerID: partner, OfferID: saved.Offer.OfferID,
		ExpectedRevision: pv.Offer.Revision, Fingerprint: pv.Fingerprint})

	created, err := c.Agency.Enrollments.Create(ctx, &agency.CreateEnrollmentParams{
		PartnerID: partner, OfferVersionID: pub.OfferVersion.OfferVersionID, OwnerEmail: "joe@plumbing.example",
		IdempotencyKey: "crm-import-2026-06-05",
		Entries: []agency.Entry{{
			NewClient: &agency.NewClient{Name: "Joe's Plumbing", ExternalRef: "crm-1"},
			Facts:     agency.Facts{Profile: agency.FactsProfile{Timezone: "America/New_York", Services: []string{"Leaks"}}},
		}},
	})
	if err != nil {
		panic(err)
	}
	session := created.Session.SessionID
	preview, _ := c.Agency.Enrollments.Preview(ctx, &agency.SessionParams{PartnerID: partner, SessionID: session})
	fmt.Println(preview.Session.State, preview.Plan[0].Action)

	// The owner follows the emailed link (here: read from the mock's outbox).
	owner := clientFor("joe@plumbing.example")
	mail, _ := srv.WaitOutbox(ctx, "joe@plumbing.example", nil)
	link, _ := url.Parse(mail.Link)
	claimed, _ := owner.Agency.Enrollments.ClaimOwner(ctx, &agency.ClaimOwnerParams{
		PartnerID: partner, SessionID: session, Token: link.Query().Get("token")})
	approved, _ := owner.Agency.Enrollments.ApproveOwner(ctx, &agency.ApproveOwnerParams{PartnerID: partner,
		SessionID: session, ExpectedRevision: claimed.Session.Revision, Fingerprint: preview.Fingerprint})
	fmt.Println(approved.Session.State)

	var resp *http.Response
	enrolled, err := c.Agency.Enrollments.Enroll(ctx, &agency.EnrollParams{
		PartnerID: partner, SessionID: session, ExpectedRevision: approved.Session.Revision,
		Fingerprint: preview.Fingerprint, ApprovalIDs: []string{approved.ApprovalID}, IdempotencyKey: "enroll-" + session,
	}, voiceagent.WithResponseInto(&resp))
	if err != nil {
		panic(err)
	}
	fmt.Println(resp.StatusCode, enrolled.Session.State, enrolled.Clients[0].State)
	// Output:
	// previewed create_client
	// approved
	// 202 enrolled enrolled
}

// Fingerprint computes what the platform computes for content, so a program
// can check what it is about to approve.
func ExampleFingerprint() {
	fp, _ := agency.Fingerprint(map[string]any{"b": []int{1, 2}, "a": "x"})
	same, _ := agency.Fingerprint(json.RawMessage(`{ "a": "x", "b": [1, 2] }`))
	fmt.Println(len(fp), fp == same)
	// Output: 64 true
}

// A command whose dependency is unavailable is retained: the 503 names the
// operation, and a later read shows its outcome.
func ExampleRetainedOperation() {
	srv, c, _, stop := exampleServer("ann@acme.example")
	defer stop()
	ctx := context.Background()
	boot, _ := c.Agency.Profile.Bootstrap(ctx, &agency.BootstrapParams{Brand: agency.Brand{Name: "Acme"},
		Support: agency.Support{Email: "help@acme.example", OwnerName: "Ann", Coverage: "24/7"}})
	srv.AddFault(mockserver.FaultRule{Path: "/v1/agency-offers", Method: http.MethodPost,
		Target: mockserver.FaultTargetDependency, Status: http.StatusServiceUnavailable, Times: 1})

	_, err := c.Agency.Offers.Save(ctx, &agency.SaveOfferParams{PartnerID: boot.Profile.PartnerID, Draft: exampleDraft()})
	op, retained := agency.RetainedOperation(err)
	fmt.Println(retained, op.Status)

	srv.Advance(30 * time.Second) // the platform retries it
	ops, _ := c.Agency.Offers.Operations(ctx, "")
	fmt.Println(ops[0].OperationID == op.OperationID, ops[0].Status)
	// Output:
	// true pending
	// true applied
}
