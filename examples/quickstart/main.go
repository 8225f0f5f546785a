// Command quickstart walks through the platform: an account, an agent, the
// numbers. By default it runs against an in-process mock server; with
// VOICEAGENT_BASE_URL and VOICEAGENT_API_KEY set it runs against that
// service instead.
package main

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"os"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
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
		acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Quickstart Plumbing"})
		if err != nil {
			return err
		}
		key, businessID = acct.APIKey, acct.BusinessID
		fmt.Fprintf(out, "1. Started an in-process mock server at %s and provisioned business %s\n", base, businessID)
	} else {
		fmt.Fprintf(out, "1. Using %s\n", base)
	}
	c := client.New(key, voiceagent.WithBaseURL(base))

	existing, err := c.Agents.List(ctx, nil)
	if err != nil {
		return fmt.Errorf("listing agents: %w", err)
	}
	if businessID == "" && len(existing) > 0 {
		businessID = existing[0].BusinessID
	}
	fmt.Fprintf(out, "2. The account has %d agent(s)\n", len(existing))

	created, err := c.Agents.Create(ctx, &agents.CreateParams{
		BusinessID:   businessID,
		Name:         "After-hours receptionist",
		SystemPrompt: "You answer calls for a plumbing company after hours. Take the caller's details.",
	})
	if err != nil {
		return fmt.Errorf("creating an agent: %w", err)
	}
	fmt.Fprintf(out, "3. Created agent %s (assistant %s at the voice provider)\n", created.ID, created.VendorAssistantID)

	_, err = c.Agents.Update(ctx, &agents.UpdateParams{
		ID:             created.ID,
		OutboundPrompt: voiceagent.String("You call back customers who left a voicemail."),
		SMSPrompt:      voiceagent.String("You text customers short appointment confirmations."),
	})
	if err != nil {
		return fmt.Errorf("updating the agent's prompts: %w", err)
	}
	fmt.Fprintln(out, "4. Gave the agent outbound and SMS prompts")

	nums, err := c.Numbers.List(ctx, nil)
	if err != nil {
		return fmt.Errorf("listing numbers: %w", err)
	}
	for _, n := range nums {
		fmt.Fprintf(out, "5. Number %s answers for agent %s\n", n.PhoneNumber, n.AgentID)
	}
	fmt.Fprintln(out, "Done.")
	return nil
}
