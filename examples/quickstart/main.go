// Command quickstart walks through the platform the way a new customer does,
// printing each step:
//
//  1. sign up with the code emailed to the owner, open a dashboard session
//     with the magic link, and create an API key with that session;
//  2. create an agent and give it inbound, outbound and SMS prompts;
//  3. a caller leaves a voicemail on the business's number: the platform's
//     lead collection turns it into a lead;
//  4. the new agent calls the lead back; the program watches the call go
//     from queued to completed;
//  5. read the finished call, its transcript, and the lead again (now
//     contacted).
//
// By default it runs against an in-process mock server: the emailed code is
// read from the mock's outbox, the caller is simulated, and the simulated
// clock is moved forward instead of waiting. With VOICEAGENT_BASE_URL and
// VOICEAGENT_API_KEY set it runs against that service with that key instead:
// signup and the simulated caller are skipped, and a call is placed only when
// QUICKSTART_CALL_TO names the number to call (your own phone), which the
// program then polls until the call ends.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/internal/harness/examplekit"
	"github.com/voiceagent/voiceagent-go/keys"
	"github.com/voiceagent/voiceagent-go/leads"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/signup"
)

// The simulated caller of the mock run.
const (
	callerNumber = "+15551230042"
	voicemail    = "Hi, this is Maria Lopez. My water heater is leaking, can someone come by tomorrow? " +
		"You can reach me at maria@example.com."
)

// pollEvery is how often the call is read while it runs against a real
// service (tests shorten it); mockStep is how far the mock's clock moves
// between two reads.
var (
	pollEvery = 3 * time.Second
	mockStep  = 5 * time.Second
)

// callTimeout bounds how long the program watches a call.
const callTimeout = 20 * time.Minute

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

// quickstart is one run: where it prints, the client, and the mock server
// when it runs against one (nil against a real service).
type quickstart struct {
	out io.Writer
	c   *client.Client
	srv *mockserver.Server
}

func (q *quickstart) say(format string, args ...any) { fmt.Fprintf(q.out, format+"\n", args...) }

func run(ctx context.Context, out io.Writer) error {
	q := &quickstart{out: out}
	base, key := os.Getenv("VOICEAGENT_BASE_URL"), os.Getenv("VOICEAGENT_API_KEY")
	var businessID string
	if base == "" || key == "" {
		m := examplekit.StartMock()
		defer m.Close()
		q.srv, base = m.Server, m.BaseURL
		q.say("Started an in-process mock server at %s", base)
		var err error
		if key, businessID, err = q.signUp(ctx, base); err != nil {
			return err
		}
	} else {
		q.say("Using %s with the key in VOICEAGENT_API_KEY (signup skipped)", base)
	}
	q.c = client.New(key, voiceagent.WithBaseURL(base))

	if businessID == "" {
		var err error
		if businessID, _, err = examplekit.Business(ctx, q.c); err != nil {
			return err
		}
	}

	agentID, err := q.createAgent(ctx, businessID)
	if err != nil {
		return err
	}
	nums, err := q.c.Numbers.List(ctx, nil)
	if err != nil {
		return fmt.Errorf("listing numbers: %w", err)
	}
	for _, n := range nums {
		q.say("Number %s answers for agent %s", n.PhoneNumber, n.AgentID)
	}

	callTo := os.Getenv("QUICKSTART_CALL_TO")
	if q.srv != nil {
		if len(nums) == 0 {
			return errors.New("the new business has no number")
		}
		callTo = callerNumber
		if err := q.leaveVoicemail(ctx, nums[0].PhoneNumber); err != nil {
			return err
		}
	}
	if callTo == "" {
		q.say("Set QUICKSTART_CALL_TO to a number you own (E.164) to place a real call; stopping here.")
		q.say("Done.")
		return nil
	}

	lead, err := q.findLead(ctx, callTo)
	if err != nil {
		return err
	}
	callID, err := q.callBack(ctx, agentID, callTo, lead)
	if err != nil {
		return err
	}
	if err := q.watch(ctx, callID); err != nil {
		return err
	}
	if err := q.readResults(ctx, agentID, callID, lead); err != nil {
		return err
	}
	q.say("Done.")
	return nil
}

// signUp creates an account on the mock through the email verification
// flow, opens a dashboard session and creates a key able to manage agents,
// calls and leads. It returns that key and the new business.
func (q *quickstart) signUp(ctx context.Context, base string) (key, businessID string, err error) {
	anon := client.New("", voiceagent.WithBaseURL(base))
	email := "owner@quickstart-plumbing.example"
	req := &signup.RequestParams{Fields: signup.Fields{
		BusinessName:   "Quickstart Plumbing",
		Email:          email,
		PhoneForwardTo: "+15551230001",
	}}
	ch, err := anon.Signup.Request(ctx, req)
	if err != nil {
		return "", "", fmt.Errorf("requesting a signup code: %w", err)
	}
	q.say("Requested signup for %s: a code valid for %ds was emailed", email, ch.ExpiresInSeconds)

	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	msg, ok := q.srv.WaitOutbox(waitCtx, email, func(m mockserver.OutboxMessage) bool { return m.OTPCode != "" })
	if !ok {
		return "", "", errors.New("no signup code arrived in the mock's outbox")
	}
	res, err := anon.Signup.Verify(ctx, &signup.VerifyParams{RequestParams: *req, ChallengeID: ch.ChallengeID, OTPCode: msg.OTPCode})
	if err != nil {
		return "", "", fmt.Errorf("verifying the signup code: %w", err)
	}
	number := "none"
	if res.PhoneNumber != nil {
		number = *res.PhoneNumber
	}
	q.say("Verified the code: business %s, intake agent %s, number %s, read-only key %s",
		res.BusinessID, res.AgentID, number, voiceagent.RedactKey(res.APIKey))

	session, err := anon.Signup.ExchangeMagicLink(ctx, res.DashboardMagicLink)
	if err != nil {
		return "", "", fmt.Errorf("opening a dashboard session: %w", err)
	}
	q.say("Exchanged the dashboard magic link for a session")

	// A new key gets agents, numbers, calls, SMS and emails by default;
	// reading and editing leads needs their scopes too.
	dash := client.New("", voiceagent.WithBaseURL(base), voiceagent.WithSessionCookie(session))
	scopes := append(slices.Clone(voiceagent.KeyDefaultScopes), voiceagent.ScopeLeadsRead, voiceagent.ScopeLeadsWrite)
	k, err := dash.Keys.Create(ctx, &keys.CreateParams{Name: "Quickstart", Scopes: scopes})
	if err != nil {
		return "", "", fmt.Errorf("creating a key: %w", err)
	}
	q.say("Created key %q (%s) with scopes %v", k.Name, voiceagent.RedactKey(k.Value), k.Scopes)
	return k.Value, res.BusinessID, nil
}

// createAgent creates an agent with an inbound prompt, then gives it
// outbound and SMS prompts.
func (q *quickstart) createAgent(ctx context.Context, businessID string) (string, error) {
	created, err := q.c.Agents.Create(ctx, &agents.CreateParams{
		BusinessID:   businessID,
		Name:         "After-hours receptionist",
		SystemPrompt: "You answer calls for a plumbing company after hours. Take the caller's name, number and problem.",
		FirstMessage: voiceagent.String("Thanks for calling Quickstart Plumbing. How can I help?"),
	})
	if err != nil {
		return "", fmt.Errorf("creating an agent: %w", err)
	}
	q.say("Created agent %s with an inbound prompt (assistant %s at the voice provider)", created.ID, created.VendorAssistantID)

	_, err = q.c.Agents.Update(ctx, &agents.UpdateParams{
		ID:             created.ID,
		OutboundPrompt: voiceagent.String("You call back customers who left a voicemail and book a visit."),
		SMSPrompt:      voiceagent.String("You text customers short appointment confirmations."),
		// {{name}} and the other lead variables are filled in at call time.
		OutboundFirstMessage: voiceagent.String("Hi {{name}}, this is Quickstart Plumbing returning your call."),
	})
	if err != nil {
		return "", fmt.Errorf("updating the agent's prompts: %w", err)
	}
	q.say("Gave the agent outbound and SMS prompts")
	return created.ID, nil
}

// leaveVoicemail makes a simulated caller ring the business's number and
// leave a message nobody picks up, then lets the mock's clock run until the
// call has ended and lead collection has run.
func (q *quickstart) leaveVoicemail(ctx context.Context, number string) error {
	_, err := q.srv.InboundCall(mockserver.InboundCall{
		To: number, From: callerNumber, Answered: voiceagent.Bool(false), Voicemail: voicemail,
	})
	if err != nil {
		return fmt.Errorf("simulating an inbound call: %w", err)
	}
	q.say("A caller (%s) rang %s after hours and left a voicemail", callerNumber, number)
	q.srv.Advance(time.Minute) // 30 s of ringing, then the voicemail
	return nil
}

// findLead reads the lead with the phone number about to be called, if
// there is one.
func (q *quickstart) findLead(ctx context.Context, phone string) (*leads.Lead, error) {
	page, err := q.c.Leads.List(ctx, &leads.ListParams{Phone: phone, Limit: 1})
	if err != nil {
		return nil, fmt.Errorf("reading leads: %w", err)
	}
	if len(page.Data) == 0 {
		q.say("No lead has the number %s yet", phone)
		return nil, nil
	}
	l := &page.Data[0]
	q.say("Lead %s (made by lead collection): %s, %s, %s, source %s, status %s",
		l.ID, examplekit.Str(l.Name), examplekit.Str(l.Phone), examplekit.Str(l.Email), examplekit.Str(l.Source), l.Status)
	return l, nil
}

// callBack has the agent call the number, linked to the lead when there is
// one (the agent's prompt is then enriched with the lead's data).
func (q *quickstart) callBack(ctx context.Context, agentID, to string, lead *leads.Lead) (string, error) {
	p := &calls.CreateParams{AgentID: agentID, To: to, Context: voiceagent.String("your recent enquiry")}
	if q.srv != nil {
		p.Context = voiceagent.String("the leaking water heater you mentioned in your voicemail")
	}
	if lead != nil {
		p.LeadID = voiceagent.String(lead.ID)
		p.Name = lead.Name
	}
	if lead == nil {
		// No name for the greeting's {{name}}: open without one.
		p.FirstMessage = voiceagent.String("Hi, this is Quickstart Plumbing returning your call.")
	}
	call, err := q.c.Calls.Create(ctx, p)
	if err != nil {
		return "", fmt.Errorf("placing the call: %w", err)
	}
	q.say("Placed call %s to %s: %s", call.ID, call.To, call.Status)
	return call.ID, nil
}

// watch reads the call until it has ended, printing each status it passes
// through. Against the mock it moves the simulated clock between reads;
// against a real service it waits pollEvery.
func (q *quickstart) watch(ctx context.Context, callID string) error {
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	start, last := time.Now(), calls.Status("")
	if q.srv != nil {
		start = q.srv.Now()
	}
	for {
		call, err := q.c.Calls.Get(ctx, callID)
		if err != nil {
			return fmt.Errorf("reading the call: %w", err)
		}
		if call.Status != last {
			elapsed := time.Since(start)
			if q.srv != nil {
				elapsed = q.srv.Now().Sub(start)
			}
			q.say("  +%-6s %s", elapsed.Round(time.Second), call.Status)
			last = call.Status
		}
		switch call.Status {
		case calls.StatusCompleted, calls.StatusFailed, calls.StatusEnded, calls.StatusNoAnswer:
			return nil
		}
		if q.srv != nil {
			q.srv.Advance(mockStep)
			continue
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for call %s to end: %w", callID, ctx.Err())
		case <-time.After(pollEvery):
		}
	}
}

// readResults reads the finished call, its transcript and the lead.
func (q *quickstart) readResults(ctx context.Context, agentID, callID string, lead *leads.Lead) error {
	call, err := q.c.Calls.Get(ctx, callID)
	if err != nil {
		return fmt.Errorf("reading the call: %w", err)
	}
	if call.Status == calls.StatusFailed {
		q.say("The call failed: %s", examplekit.Str(call.Error))
		return nil
	}
	q.say("The call lasted %ds; summary: %s", call.Duration, examplekit.Str(call.Summary))
	q.say("Recording: %s", examplekit.Str(call.RecordingURL))
	if qd := call.QualityDimensions; qd != nil {
		q.say("Quality: professionalism %d, empathy %d, information gathering %d, resolution %d",
			qd.Professionalism, qd.Empathy, qd.InformationGathering, qd.Resolution)
	}

	for t, err := range q.c.Calls.AllTranscripts(ctx, &calls.TranscriptListParams{AgentID: agentID}) {
		if err != nil {
			return fmt.Errorf("reading transcripts: %w", err)
		}
		if t.CallID != callID {
			continue
		}
		q.say("Transcript:")
		for _, line := range strings.Split(t.Transcript, "\n") {
			q.say("  %s", line)
		}
		break
	}

	if lead == nil {
		return nil
	}
	l, err := q.c.Leads.Get(ctx, lead.ID)
	if err != nil {
		return fmt.Errorf("reading the lead: %w", err)
	}
	q.say("Lead %s is now %s after %d interactions (score %d, intent %s)",
		examplekit.Str(l.Name), l.Status, l.InteractionCount, l.Score, examplekit.Str(l.Intent))
	return nil
}
