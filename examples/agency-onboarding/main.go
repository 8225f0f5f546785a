// Command agency-onboarding runs an agency's first client onboarding, end to
// end, printing each step:
//
//  1. bootstrap the agency's profile (brand and support);
//  2. save an offer, preview it and publish it (the publish carries the
//     revision and the fingerprint the preview gave);
//  3. create an enrollment session for a new client, with the client's facts
//     and the owner's email, and preview it;
//  4. the client's owner claims the session with the link emailed to them and
//     approves the exact fingerprint previewed;
//  5. enroll the client with that approval: the platform provisions the
//     client's business, agent and number;
//  6. review and approve the installation's route receipt and handoff, so
//     the client goes live, and run the test scenarios.
//
// By default it runs against an in-process mock server, where the agency
// and the owner are two ready accounts and the emailed link is read from the
// mock's outbox. With VOICEAGENT_BASE_URL and VOICEAGENT_API_KEY (the agency
// admin's key) set it runs against that service; it then also needs
// AGENCY_OWNER_EMAIL and VOICEAGENT_OWNER_API_KEY (the client owner's
// address and key) and asks for the owner link on standard input once it
// has been emailed.
//
//	go run ./examples/agency-onboarding
package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agency"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/internal/harness/examplekit"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// stdin is where the owner link is read from against a real service.
var stdin io.Reader = os.Stdin

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "agency-onboarding:", err)
		os.Exit(1)
	}
}

// onboarding is one run: the agency's client, the owner's client, and how
// the owner gets the emailed link.
type onboarding struct {
	out        io.Writer
	agency     *client.Client
	owner      *client.Client
	ownerEmail string
	ownerLink  func(ctx context.Context) (string, error)
}

func (o *onboarding) say(format string, args ...any) { fmt.Fprintf(o.out, format+"\n", args...) }

func run(ctx context.Context, out io.Writer) error {
	o := &onboarding{out: out}
	base, key := os.Getenv("VOICEAGENT_BASE_URL"), os.Getenv("VOICEAGENT_API_KEY")
	if base != "" && key != "" {
		o.ownerEmail = os.Getenv("AGENCY_OWNER_EMAIL")
		ownerKey := os.Getenv("VOICEAGENT_OWNER_API_KEY")
		if o.ownerEmail == "" || ownerKey == "" {
			return errors.New("against a service, set AGENCY_OWNER_EMAIL and VOICEAGENT_OWNER_API_KEY (the client owner's address and key)")
		}
		o.say("Using %s with the agency's key in VOICEAGENT_API_KEY", base)
		o.agency = client.New(key, voiceagent.WithBaseURL(base))
		o.owner = client.New(ownerKey, voiceagent.WithBaseURL(base))
		o.ownerLink = func(ctx context.Context) (string, error) {
			o.say("Paste the owner link emailed to %s:", o.ownerEmail)
			line, err := bufio.NewReader(stdin).ReadString('\n')
			if err != nil && line == "" {
				return "", fmt.Errorf("reading the owner link: %w", err)
			}
			return strings.TrimSpace(line), nil
		}
		return o.onboard(ctx)
	}

	srv := examplekit.StartMock()
	defer srv.Close()
	base = srv.BaseURL
	o.say("Started an in-process mock server at %s", base)
	ann, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Brightline Agency", Email: "ann@brightline.example"})
	if err != nil {
		return err
	}
	o.ownerEmail = "joe@joesplumbing.example"
	joe, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Joe's own test business", Email: o.ownerEmail})
	if err != nil {
		return err
	}
	o.say("Accounts: the agency's admin ann@brightline.example and the client's owner %s", o.ownerEmail)
	o.agency = ann.Client()
	o.owner = joe.Client()
	o.ownerLink = func(ctx context.Context) (string, error) {
		ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		msg, ok := srv.WaitOutbox(ctx, o.ownerEmail, func(m mockserver.OutboxMessage) bool { return m.Link != "" })
		if !ok {
			return "", errors.New("no owner link arrived in the mock's outbox")
		}
		o.say("The owner opens the email %q", msg.Subject)
		return msg.Link, nil
	}
	return o.onboard(ctx)
}

func (o *onboarding) onboard(ctx context.Context) error {
	partner, err := o.bootstrap(ctx)
	if err != nil {
		return err
	}
	versionID, err := o.publishOffer(ctx, partner)
	if err != nil {
		return err
	}
	session, fingerprint, err := o.createSession(ctx, partner, versionID)
	if err != nil {
		return err
	}
	approval, err := o.ownerApproves(ctx, partner, session, fingerprint)
	if err != nil {
		return err
	}
	installationID, err := o.enroll(ctx, partner, session, fingerprint, approval)
	if err != nil {
		return err
	}
	if err := o.goLive(ctx, partner, installationID); err != nil {
		return err
	}
	o.say("Done.")
	return nil
}

// bootstrap creates the agency, or reads the caller's agency when the caller
// already belongs to one.
func (o *onboarding) bootstrap(ctx context.Context) (string, error) {
	boot, err := o.agency.Agency.Profile.Bootstrap(ctx, &agency.BootstrapParams{
		Brand: agency.Brand{Name: "Brightline Agency"},
		Support: agency.Support{
			Email: "help@brightline.example", OwnerName: "Ann Lee", Coverage: "Weekdays 9:00-17:00 Eastern",
		},
	})
	if errors.Is(err, voiceagent.ErrConflict) {
		st, err := o.agency.Agency.Profile.Get(ctx, "")
		if err != nil {
			return "", fmt.Errorf("reading the agency: %w", err)
		}
		if st.Profile == nil {
			return "", errors.New("the caller's agency is still being created; try again later")
		}
		o.say("Already an agency: %s (partner %s), role %s", st.Profile.Brand.Name, st.Profile.PartnerID, st.Role)
		return st.Profile.PartnerID, nil
	}
	if err != nil {
		return "", fmt.Errorf("bootstrapping the agency: %w", err)
	}
	o.say("Bootstrapped agency %q (partner %s); the caller is its %s", boot.Profile.Brand.Name, boot.Profile.PartnerID, boot.Member.Role)
	return boot.Profile.PartnerID, nil
}

// publishOffer saves, previews and publishes an offer, and returns the
// published version clients enroll into.
func (o *onboarding) publishOffer(ctx context.Context, partner string) (string, error) {
	saved, err := o.agency.Agency.Offers.Save(ctx, &agency.SaveOfferParams{PartnerID: partner, Draft: agency.OfferDraft{
		Name:           "After-hours intake for plumbers",
		Industry:       agency.IndustryHomeServices,
		CommercialMode: agency.CommercialModeCommission,
		Retail: agency.Retail{
			MonthlyCents: 29900, Currency: "USD", Scope: "Answering, intake and lead routing", Collection: "agency_external",
		},
		Packages:                        []agency.Package{{Key: agency.PackageConvert, Version: "2026-06", Variant: "standard"}},
		SupportedClaims:                 []agency.Claim{agency.ClaimApprovedIntakeSetup, agency.ClaimRecordedActivityReporting},
		SupportPolicy:                   "Email help@brightline.example; answered within one business day.",
		BrandingLimitationsAcknowledged: true,
	}})
	if err != nil {
		return "", fmt.Errorf("saving the offer: %w", err)
	}
	o.say("Saved offer %s: %s", saved.Offer.OfferID, saved.Offer.State)
	pv, err := o.agency.Agency.Offers.Preview(ctx, &agency.OfferParams{PartnerID: partner, OfferID: saved.Offer.OfferID})
	if err != nil {
		return "", fmt.Errorf("previewing the offer: %w", err)
	}
	o.say("Previewed it: %s, fingerprint %s…", pv.Offer.State, pv.Fingerprint[:12])
	pub, err := o.agency.Agency.Offers.Publish(ctx, &agency.PublishOfferParams{
		PartnerID: partner, OfferID: saved.Offer.OfferID,
		ExpectedRevision: pv.Offer.Revision, Fingerprint: pv.Fingerprint,
	})
	if err != nil {
		return "", fmt.Errorf("publishing the offer: %w", err)
	}
	o.say("Published it: %s, version %s", pub.Offer.State, pub.OfferVersion.OfferVersionID)
	return pub.OfferVersion.OfferVersionID, nil
}

// clientFacts are what the agency knows about the new client, whose owner
// gets the qualified leads.
func clientFacts(ownerEmail string) agency.Facts {
	return agency.Facts{
		Profile: agency.FactsProfile{
			Timezone:     "America/Chicago",
			Services:     []string{"Leak repair", "Water heaters", "Drain cleaning"},
			ServiceArea:  "Austin and Round Rock",
			Hours:        "Mon-Fri 8:00-18:00",
			Instructions: "Emergencies (flooding, no water) go to the on-call plumber at once.",
			Website:      "https://joesplumbing.example",
		},
		IntakeCoverage: &agency.IntakeCoverage{
			Timezone:   "America/Chicago",
			Schedule:   []agency.ScheduleSlot{{Day: 6, Start: "08:00", End: "12:00"}},
			AfterHours: "Take the caller's details and promise a call back by 9:00 the next morning.",
		},
		Routing: &agency.Routing{
			Kind: agency.RoutingOwnerNotification, Destination: ownerEmail,
			Instruction: "Email every qualified lead to the owner.",
		},
		Fallback: &agency.Fallback{
			Mode: agency.FallbackCallback, Instruction: "Offer a call back within the hour.",
		},
		Booking: &agency.Booking{Enabled: true, Instruction: "Book visits in two-hour windows."},
		FAQs: []agency.FAQ{
			{Question: "Do you charge for estimates?", Answer: "No, estimates are free."},
			{Question: "What does a visit cost?", Answer: "A visit costs $89, waived when we do the repair."},
		},
	}
}

// createSession creates an enrollment session for one new client, with the
// owner's email, and previews it. It returns the session and the
// fingerprint the owner must approve.
func (o *onboarding) createSession(ctx context.Context, partner, versionID string) (*agency.Session, string, error) {
	created, err := o.agency.Agency.Enrollments.Create(ctx, &agency.CreateEnrollmentParams{
		PartnerID:      partner,
		OfferVersionID: versionID,
		OwnerEmail:     o.ownerEmail,
		// Stable across retries of this creation: a retry gets the first receipt.
		IdempotencyKey: "onboard-joes-plumbing-" + versionID,
		Entries: []agency.Entry{{
			NewClient: &agency.NewClient{Name: "Joe's Plumbing", ExternalRef: "crm-4711"},
			Facts:     clientFacts(o.ownerEmail),
		}},
	})
	if err != nil {
		return nil, "", fmt.Errorf("creating the enrollment: %w", err)
	}
	o.say("Created enrollment session %s (%s); an owner link was emailed to %s",
		created.Session.SessionID, created.Session.State, o.ownerEmail)
	pv, err := o.agency.Agency.Enrollments.Preview(ctx, &agency.SessionParams{PartnerID: partner, SessionID: created.Session.SessionID})
	if err != nil {
		return nil, "", fmt.Errorf("previewing the enrollment: %w", err)
	}
	for _, item := range pv.Plan {
		o.say("Preview: entry %d (%s) will %s; fingerprint %s…", item.Entry, item.ExternalRef, item.Action, pv.Fingerprint[:12])
	}
	return &pv.Session, pv.Fingerprint, nil
}

// ownerApproves has the owner claim the session with the emailed link and
// approve the previewed fingerprint. It returns the approval's id.
func (o *onboarding) ownerApproves(ctx context.Context, partner string, session *agency.Session, fingerprint string) (string, error) {
	link, err := o.ownerLink(ctx)
	if err != nil {
		return "", err
	}
	u, err := url.Parse(link)
	if err != nil || u.Query().Get("token") == "" {
		return "", fmt.Errorf("the owner link %q carries no token", link)
	}
	claimed, err := o.owner.Agency.Enrollments.ClaimOwner(ctx, &agency.ClaimOwnerParams{
		PartnerID: partner, SessionID: session.SessionID, Token: u.Query().Get("token"),
	})
	if err != nil {
		return "", fmt.Errorf("claiming the session as its owner: %w", err)
	}
	o.say("The owner claimed the session")

	// An approval binds to the exact content: approving a fingerprint that
	// is not the session's is refused.
	_, err = o.owner.Agency.Enrollments.ApproveOwner(ctx, &agency.ApproveOwnerParams{
		PartnerID: partner, SessionID: session.SessionID,
		ExpectedRevision: claimed.Session.Revision, Fingerprint: strings.Repeat("0", 64),
	})
	if !errors.Is(err, voiceagent.ErrFingerprintMismatch) {
		return "", fmt.Errorf("approving another fingerprint: got %v, want %s", err, voiceagent.CodeFingerprintMismatch)
	}
	o.say("Approving another fingerprint is refused: %s", voiceagent.CodeFingerprintMismatch)

	approved, err := o.owner.Agency.Enrollments.ApproveOwner(ctx, &agency.ApproveOwnerParams{
		PartnerID: partner, SessionID: session.SessionID,
		ExpectedRevision: claimed.Session.Revision, Fingerprint: fingerprint,
	})
	if err != nil {
		return "", fmt.Errorf("approving as the owner: %w", err)
	}
	o.say("The owner approved fingerprint %s…: session %s, approval %s", fingerprint[:12], approved.Session.State, approved.ApprovalID)
	session.Revision = approved.Session.Revision
	return approved.ApprovalID, nil
}

// enroll enrolls the approved session and returns the new client's
// installation.
func (o *onboarding) enroll(ctx context.Context, partner string, session *agency.Session, fingerprint, approval string) (string, error) {
	var resp *http.Response
	enrolled, err := o.agency.Agency.Enrollments.Enroll(ctx, &agency.EnrollParams{
		PartnerID: partner, SessionID: session.SessionID,
		ExpectedRevision: session.Revision, Fingerprint: fingerprint,
		ApprovalIDs:    []string{approval},
		IdempotencyKey: "enroll-" + session.SessionID,
	}, voiceagent.WithResponseInto(&resp))
	if err != nil {
		return "", fmt.Errorf("enrolling: %w", err)
	}
	o.say("Enrolled (HTTP %d): session %s", resp.StatusCode, enrolled.Session.State)
	installationID := ""
	for _, c := range enrolled.Clients {
		o.say("  client %s: %s, business %s, installation %s", c.ExternalRef, c.State, c.BusinessID, c.InstallationID)
		if c.State == agency.ClientEnrolled && installationID == "" {
			installationID = c.InstallationID
		}
	}
	if installationID == "" {
		return "", errors.New("no client was enrolled")
	}
	return installationID, nil
}

// goLive reviews and approves the installation's route receipt and handoff,
// then runs the test scenarios.
func (o *onboarding) goLive(ctx context.Context, partner, installationID string) error {
	inst := o.agency.Agency.Installations
	step := func(name string, preview, approve func(context.Context, *agency.StepParams, ...voiceagent.Option) (*agency.InstallationReceipt, error), rev string) (*agency.Installation, error) {
		pv, err := preview(ctx, &agency.StepParams{PartnerID: partner, InstallationID: installationID, ExpectedRevision: rev})
		if err != nil {
			return nil, fmt.Errorf("previewing the %s: %w", name, err)
		}
		ap, err := approve(ctx, &agency.StepParams{
			PartnerID: partner, InstallationID: installationID,
			ExpectedRevision: pv.Installation.Revision, Fingerprint: pv.Fingerprint,
		})
		if err != nil {
			return nil, fmt.Errorf("approving the %s: %w", name, err)
		}
		return &ap.Installation, nil
	}

	cur, err := inst.Get(ctx, &agency.GetParams{PartnerID: partner, ID: installationID})
	if err != nil {
		return fmt.Errorf("reading the installation: %w", err)
	}
	o.say("Installation %s: %s, agent %s answering %s", cur.InstallationID, cur.State, cur.AgentID, cur.PhoneNumber)
	if cur, err = step("route receipt", inst.PreviewRouteReceipt, inst.ApproveRouteReceipt, cur.Revision); err != nil {
		return err
	}
	rc := cur.RouteReceipt.Content
	o.say("Approved the route receipt (leads go to %s): installation %s", rc.Routing.Destination, cur.State)
	if cur, err = step("handoff", inst.PreviewHandoff, inst.ApproveHandoff, cur.Revision); err != nil {
		return err
	}
	o.say("Approved the handoff to %s: installation %s", cur.Handoff.Content.OwnerEmail, cur.State)

	run, err := inst.RunScenarios(ctx, &agency.RunScenariosParams{PartnerID: partner, InstallationID: installationID, ExpectedRevision: cur.Revision})
	if errors.Is(err, voiceagent.ErrForbidden) {
		o.say("Skipped the test scenarios: the key lacks evals:write")
		return nil
	}
	if err != nil {
		return fmt.Errorf("running the test scenarios: %w", err)
	}
	for _, r := range run.ScenarioRun.Results {
		verdict := "passed"
		if !r.Passed {
			verdict = "FAILED: " + r.Detail
		}
		o.say("  scenario %-17s %s", r.Scenario, verdict)
	}
	return nil
}
