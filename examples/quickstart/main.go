// Command quickstart walks through the platform the way a new customer
// does: sign up with an emailed code, open a dashboard session with the
// magic link, create a key with that session, create an agent with inbound,
// outbound and SMS prompts, and list the numbers.
//
// By default it runs against an in-process mock server (where the emailed
// code is read from the mock's outbox). With VOICEAGENT_BASE_URL and
// VOICEAGENT_API_KEY set it runs against that service instead, with that
// key, and skips signup and key creation.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/keys"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/signup"
)

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out io.Writer) error {
	base, key := os.Getenv("VOICEAGENT_BASE_URL"), os.Getenv("VOICEAGENT_API_KEY")
	var businessID string
	if base == "" || key == "" {
		srv := mockserver.New()
		defer srv.Close()
		hs := httptest.NewServer(srv)
		defer hs.Close()
		base = hs.URL + "/api"
		fmt.Fprintf(out, "Started an in-process mock server at %s\n", base)
		var err error
		if key, businessID, err = signUp(ctx, out, srv, base); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(out, "Using %s with the key in VOICEAGENT_API_KEY (signup skipped)\n", base)
	}
	c := client.New(key, voiceagent.WithBaseURL(base))

	if businessID == "" {
		existing, err := c.Agents.List(ctx, nil)
		if err != nil {
			return fmt.Errorf("listing agents: %w", err)
		}
		if len(existing) == 0 {
			return errors.New("the key reaches no business with an agent")
		}
		businessID = existing[0].BusinessID
	}

	created, err := c.Agents.Create(ctx, &agents.CreateParams{
		BusinessID:   businessID,
		Name:         "After-hours receptionist",
		SystemPrompt: "You answer calls for a plumbing company after hours. Take the caller's name, number and problem.",
		FirstMessage: voiceagent.String("Thanks for calling Quickstart Plumbing. How can I help?"),
	})
	if err != nil {
		return fmt.Errorf("creating an agent: %w", err)
	}
	fmt.Fprintf(out, "Created agent %s with an inbound prompt (assistant %s at the voice provider)\n", created.ID, created.VendorAssistantID)

	_, err = c.Agents.Update(ctx, &agents.UpdateParams{
		ID:             created.ID,
		OutboundPrompt: voiceagent.String("You call back customers who left a voicemail and book a visit."),
		SMSPrompt:      voiceagent.String("You text customers short appointment confirmations."),
	})
	if err != nil {
		return fmt.Errorf("updating the agent's prompts: %w", err)
	}
	fmt.Fprintln(out, "Gave the agent outbound and SMS prompts")

	nums, err := c.Numbers.List(ctx, nil)
	if err != nil {
		return fmt.Errorf("listing numbers: %w", err)
	}
	for _, n := range nums {
		fmt.Fprintf(out, "Number %s answers for agent %s\n", n.PhoneNumber, n.AgentID)
	}
	fmt.Fprintln(out, "Done.")
	return nil
}

// signUp creates an account on the mock through the email verification
// flow, opens a dashboard session and creates a key able to manage agents.
// It returns that key and the new business.
func signUp(ctx context.Context, out io.Writer, srv *mockserver.Server, base string) (key, businessID string, err error) {
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
	fmt.Fprintf(out, "Requested signup for %s: a code valid for %ds was emailed\n", email, ch.ExpiresInSeconds)

	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	msg, ok := srv.WaitOutbox(waitCtx, email, func(m mockserver.OutboxMessage) bool { return m.OTPCode != "" })
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
	fmt.Fprintf(out, "Verified the code: business %s, intake agent %s, number %s, read-only key %s\n",
		res.BusinessID, res.AgentID, number, voiceagent.RedactKey(res.APIKey))

	session, err := anon.Signup.ExchangeMagicLink(ctx, res.DashboardMagicLink)
	if err != nil {
		return "", "", fmt.Errorf("opening a dashboard session: %w", err)
	}
	fmt.Fprintln(out, "Exchanged the dashboard magic link for a session")

	dash := client.New("", voiceagent.WithBaseURL(base), voiceagent.WithSessionCookie(session))
	k, err := dash.Keys.Create(ctx, &keys.CreateParams{Name: "Quickstart"})
	if err != nil {
		return "", "", fmt.Errorf("creating a key: %w", err)
	}
	fmt.Fprintf(out, "Created key %q (%s) with scopes %v\n", k.Name, voiceagent.RedactKey(k.Value), k.Scopes)
	return k.Value, res.BusinessID, nil
}
