package voiceagent_test

// The README's Go snippets, compiled and run here so they cannot rot: each
// snippet is the body of one of these examples, line for line
// (internal/harness/doccheck checks it).

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"os"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/leads"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/sms"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// The README's construction snippet (compiled only: it needs a real key).
func Example_readmeConstruction() {
	ctx := context.Background()
	businessID := os.Getenv("VOICEAGENT_BUSINESS_ID")

	c := client.New(os.Getenv("VOICEAGENT_API_KEY")) // base URL: VOICEAGENT_BASE_URL, else https://api.voiceagent.example/api

	agent, err := c.Agents.Create(ctx, &agents.CreateParams{
		BusinessID: businessID, Name: "Front desk", SystemPrompt: "You answer calls for a dental office.",
	})
	if err != nil {
		log.Fatal(err)
	}
	call, err := c.Calls.Create(ctx, &calls.CreateParams{AgentID: agent.ID, To: "+15551230001"})
	_, _ = call, err
}

// The README's error snippet, against a mock server: a number that never
// texted the business has given no consent.
func Example_readmeErrors() {
	ctx := context.Background()
	srv := mockserver.New()
	defer srv.Close()
	acct, _ := srv.NewAccount(mockserver.AccountOptions{})
	c := acct.Client()
	to, agentID := "+15551230077", acct.AgentID

	_, err := c.SMS.Send(ctx, &sms.SendParams{To: to, FromAgentID: agentID, Message: "Hi!"})
	var apiErr *voiceagent.Error
	switch {
	case errors.Is(err, voiceagent.ErrNumberOptedOut): // compare codes with errors.Is against the sentinels
		fmt.Println("no consent yet:", apiErr == nil)
	case errors.As(err, &apiErr): // or read every field
		log.Printf("%d %s: %s (request %s)", apiErr.StatusCode, apiErr.Code, apiErr.Message, apiErr.RequestID)
	}
	// Consent comes from an inbound text or call; in the mock also from SetConsent.
	_ = srv.SetConsent(acct.BusinessID, to, mockserver.ConsentOptedIn)
	_, err = c.SMS.Send(ctx, &sms.SendParams{To: to, FromAgentID: agentID, Message: "Hi!"})
	fmt.Println("sent after consent:", err == nil)
	// Output:
	// no consent yet: true
	// sent after consent: true
}

// The README's iterator snippet: a lead's optional fields are pointers, so
// it reads them nil-safe.
func Example_readmeIterators() {
	ctx := context.Background()
	srv := mockserver.New()
	defer srv.Close()
	acct, _ := srv.NewAccount(mockserver.AccountOptions{})
	c := acct.Client()
	_, _ = srv.SeedLeads(acct.BusinessID, []mockserver.LeadFixture{{Name: "Maria Lopez", Phone: "+15551230050"}, {Phone: "+15551230051"}})

	err := func() error {
		for lead, err := range c.Leads.All(ctx, &leads.ListParams{Status: leads.StatusNew}) {
			if err != nil {
				return err
			}
			fmt.Println(voiceagent.Deref(lead.Name, "(no name)"), lead.ID != "")
		}
		return nil
	}()
	fmt.Println(err)
	// Output:
	// (no name) true
	// Maria Lopez true
	// <nil>
}

// The README's webhook receiver snippet (compiled only).
func Example_readmeWebhookReceiver() {
	secret := os.Getenv("VOICEAGENT_WEBHOOK_SECRET")
	mux := http.NewServeMux()

	h, err := webhooks.NewHandler(webhooks.WithSecrets(secret)) // the old and the new secret while rotating
	if err != nil {
		log.Fatal(err)
	}
	h.On(webhooks.EventLeadCreated, func(ctx context.Context, e *webhooks.Event) error {
		lead, err := e.Lead()
		if err != nil {
			return err
		}
		log.Println("new lead", lead.ID)
		return nil // an error answers 500 and the platform retries the delivery
	})
	mux.Handle("/webhooks/voiceagent", h)
}
