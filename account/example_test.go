package account_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/account"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// newExampleClient starts an in-process mock server with one account and
// returns a client for it, and a function that stops the server.
func newExampleClient() (*client.Client, func()) {
	srv := mockserver.New()
	hs := httptest.NewServer(srv)
	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Example Dental"})
	if err != nil {
		log.Fatal(err)
	}
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"))
	return c, func() { hs.Close(); srv.Close() }
}

func ExampleService_Balance() {
	c, stop := newExampleClient()
	defer stop()
	balance, err := c.Account.Balance(context.Background(), nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, b := range balance {
		fmt.Printf("%d minutes, %d number(s), %s\n", b.MinutesUsed, b.PhoneNumbers, b.SubscriptionStatus)
	}
	// Output: 0 minutes, 1 number(s), active
}

func ExampleUsageService_All() {
	c, stop := newExampleClient()
	defer stop()
	ctx := context.Background()
	if _, err := c.Agents.List(ctx, nil); err != nil {
		log.Fatal(err)
	}
	for e, err := range c.Account.Usage.All(ctx, &account.UsageListParams{Limit: 100}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(e.Method, e.Endpoint, e.StatusCode, e.CostCents)
	}
	// Output: GET /v1/agents 200 0
}

func ExampleService_Capabilities() {
	c, stop := newExampleClient()
	defer stop()
	caps, err := c.Account.Capabilities(context.Background())
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(caps.Workspace.Name)
	fmt.Println(caps.Can(voiceagent.ScopeCallsWrite))
	for _, rl := range caps.Allowance.RateLimits {
		if rl.Group == "calls.create" {
			fmt.Printf("%s %s: %d per %ds\n", rl.Method, rl.Path, rl.Limit, rl.WindowSeconds)
		}
	}
	// Output:
	// Example Dental
	// true
	// POST /v1/calls: 60 per 60s
}

func ExampleService_Schema() {
	c, stop := newExampleClient()
	defer stop()
	ctx := context.Background()
	catalog, err := c.Account.Schemas(ctx)
	if err != nil {
		log.Fatal(err)
	}
	for _, s := range catalog {
		if s.Name == "agentCreate" {
			fmt.Println(s.Title)
		}
	}
	schema, err := c.Account.Schema(ctx, "agentCreate")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(schema) > 0)
	// Output:
	// Create an agent
	// true
}
