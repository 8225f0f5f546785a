// Command callback-followup is an app's follow-up of a missed lead, and how
// to test its unhappy path with a script of the mock server:
//
//  1. the agent calls the lead back;
//  2. when the callback reaches voicemail, the app texts the lead;
//  3. when the lead answers STOP, the app stops: the number is opted out
//     and it texts no more.
//
// FollowUp is the app's code; it works against any service. By default the
// command runs it against an in-process mock server whose script makes the
// callback reach voicemail and the lead answer the text with STOP five
// minutes later, the unhappy path a test cannot reach with the default
// simulation. With VOICEAGENT_BASE_URL and VOICEAGENT_API_KEY set it runs
// against that service, calling and texting FOLLOWUP_TO (your own number);
// without FOLLOWUP_TO it stops before placing anything.
//
//	go run ./examples/callback-followup
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/internal/harness/examplekit"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/sms"
)

// leadNumber is the lead of the mock run.
const leadNumber = "+14155550123"

// pollEvery is how long the app waits between two reads against a real
// service (tests shorten it).
var pollEvery = 5 * time.Second

// followUpText is what the app texts a lead whose callback reached voicemail.
const followUpText = "Sorry we missed you! Reply with a good time to call, or STOP to opt out."

// Outcome is how a follow-up ended.
type Outcome struct {
	// CallID is the callback.
	CallID string
	// Reached reports whether the lead answered the callback.
	Reached bool
	// Texted reports whether the app texted the lead.
	Texted bool
	// Reply is the lead's reply to the text ("" when none came).
	Reply string
	// OptedOut reports whether the lead answered STOP.
	OptedOut bool
}

// FollowUp calls the lead back and, when the callback reaches voicemail,
// texts the lead and reads the reply. wait lets time pass: it sleeps
// against a real service, and moves the clock of a mock. It gives up on
// the reply after maxReplyWait.
func FollowUp(ctx context.Context, c *client.Client, agentID, to string, wait func(time.Duration), log io.Writer) (Outcome, error) {
	const maxReplyWait = 30 * time.Minute
	created, err := c.Calls.Create(ctx, &calls.CreateParams{AgentID: agentID, To: to,
		Context: voiceagent.String("returning a missed call")})
	if err != nil {
		return Outcome{}, fmt.Errorf("placing the callback: %w", err)
	}
	out := Outcome{CallID: created.ID}
	fmt.Fprintf(log, "Called %s back: call %s\n", to, created.ID)

	var call *calls.Call
	for {
		if call, err = c.Calls.Get(ctx, created.ID); err != nil {
			return out, fmt.Errorf("reading the callback: %w", err)
		}
		if call.Status == calls.StatusCompleted || call.Status == calls.StatusFailed {
			break
		}
		wait(pollEvery)
	}
	reason := examplekit.Str(call.EndedReason)
	fmt.Fprintf(log, "The callback ended: %s (%s) after %d s\n", call.Status, reason, call.Duration)
	if call.Status == calls.StatusCompleted && reason != "voicemail" {
		out.Reached = true
		fmt.Fprintln(log, "The lead answered: nothing more to do")
		return out, nil
	}

	replies := func() ([]sms.Message, error) {
		page, err := c.SMS.List(ctx, &sms.ListParams{Phone: to, Direction: "inbound"})
		if err != nil {
			return nil, fmt.Errorf("reading the replies: %w", err)
		}
		return page.Data, nil
	}
	earlier, err := replies()
	if err != nil {
		return out, err
	}
	seen := map[string]bool{}
	for _, m := range earlier {
		seen[m.ID] = true
	}
	sent, err := c.SMS.Send(ctx, &sms.SendParams{To: to, FromAgentID: agentID, Message: followUpText})
	if err != nil {
		return out, fmt.Errorf("texting the lead: %w", err)
	}
	out.Texted = true
	fmt.Fprintf(log, "Texted the lead: %q (%s)\n", followUpText, sent.MessageSID)

	for waited := time.Duration(0); waited < maxReplyWait; waited += pollEvery {
		msgs, err := replies()
		if err != nil {
			return out, err
		}
		for _, m := range msgs {
			if !seen[m.ID] {
				out.Reply = m.Body
				out.OptedOut = isStop(m.Body)
				fmt.Fprintf(log, "The lead replied: %q\n", m.Body)
				if out.OptedOut {
					fmt.Fprintln(log, "The lead opted out: no more texts")
				}
				return out, nil
			}
		}
		wait(pollEvery)
	}
	fmt.Fprintln(log, "No reply yet: try again tomorrow")
	return out, nil
}

// isStop reports whether a reply is an opt-out keyword.
func isStop(body string) bool {
	switch body {
	case "STOP", "Stop", "stop", "UNSUBSCRIBE", "CANCEL", "END", "QUIT":
		return true
	}
	return false
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "callback-followup:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) error {
	base, key := os.Getenv("VOICEAGENT_BASE_URL"), os.Getenv("VOICEAGENT_API_KEY")
	if base != "" || key != "" {
		return runService(ctx, w, base, key)
	}
	mock := examplekit.StartMock(mockserver.WithStartTime(time.Date(2026, 6, 2, 15, 0, 0, 0, time.UTC)))
	defer mock.Close()
	acct, err := mock.NewAccount(mockserver.AccountOptions{BusinessName: "Bayside Plumbing"})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Started an in-process mock server (%s)\n", mock.BaseURL)
	if err := mock.SetConsent(acct.BusinessID, leadNumber, "opted_in"); err != nil {
		return err
	}
	steps, err := acct.Script(mockserver.Script{
		Calls: []mockserver.CallStep{{To: leadNumber, Outcome: "voicemail", RingSeconds: voiceagent.Int(25)}},
		Texts: []mockserver.TextStep{{To: leadNumber, Outcome: "delivered", Reply: &mockserver.TextReply{AfterSeconds: 300, Body: "STOP"}}},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Scripted %d steps: the callback reaches voicemail, the text is answered STOP after 5 minutes\n", len(steps))

	c := client.New(acct.APIKey, voiceagent.WithBaseURL(mock.BaseURL))
	out, err := FollowUp(ctx, c, acct.AgentID, leadNumber, func(d time.Duration) { acct.Advance(d) }, w)
	if err != nil {
		return err
	}
	used, err := acct.ScriptSteps()
	if err != nil {
		return err
	}
	for _, st := range used {
		fmt.Fprintf(w, "Step %s %s to %s: %s\n", st.Kind, st.Outcome, st.To, st.Status)
	}
	fmt.Fprintf(w, "Consent of %s: %s\n", leadNumber, mock.Consent(acct.BusinessID, leadNumber))
	fmt.Fprintf(w, "Outcome: reached %v, texted %v, opted out %v\n", out.Reached, out.Texted, out.OptedOut)
	fmt.Fprintln(w, "Done.")
	return nil
}

// runService follows up FOLLOWUP_TO on the service at base with key.
func runService(ctx context.Context, w io.Writer, base, key string) error {
	if base == "" || key == "" {
		return errors.New("set both VOICEAGENT_BASE_URL and VOICEAGENT_API_KEY, or neither to use the in-process mock")
	}
	c := client.New(key, voiceagent.WithBaseURL(base))
	fmt.Fprintf(w, "Using %s\n", base)
	to := os.Getenv("FOLLOWUP_TO")
	if to == "" {
		fmt.Fprintln(w, "Set FOLLOWUP_TO to a number you own (E.164) to call and text it; stopping here.")
		fmt.Fprintln(w, "Done.")
		return nil
	}
	agents, err := c.Agents.List(ctx, nil)
	if err != nil {
		return err
	}
	if len(agents) == 0 {
		return errors.New("the key's businesses have no agent to call from")
	}
	out, err := FollowUp(ctx, c, agents[0].ID, to, func(d time.Duration) { time.Sleep(d) }, w)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Outcome: reached %v, texted %v, opted out %v\n", out.Reached, out.Texted, out.OptedOut)
	fmt.Fprintln(w, "Done.")
	return nil
}
