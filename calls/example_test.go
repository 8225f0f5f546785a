package calls_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"strings"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// exampleClient starts an in-process mock server at noon New York time and
// returns a client for a fresh account on it.
func exampleClient() (*client.Client, *mockserver.Server, *mockserver.Account, func()) {
	srv := mockserver.New(mockserver.WithStartTime(time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)))
	hs := httptest.NewServer(srv)
	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Acme Plumbing"})
	if err != nil {
		log.Fatal(err)
	}
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"))
	return c, srv, acct, func() { hs.Close(); srv.Close() }
}

func ExampleService_Create() {
	c, srv, acct, done := exampleClient()
	defer done()
	ctx := context.Background()

	call, err := c.Calls.Create(ctx, &calls.CreateParams{
		AgentID: acct.AgentID,
		To:      "+15551230001",
		Name:    voiceagent.String("Jane"),
		Context: voiceagent.String("the quote she asked for"),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(call.Status)

	srv.Advance(10 * time.Minute) // the simulated call runs its course
	got, err := c.Calls.Get(ctx, call.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got.Status, got.Duration > 0, *got.RecordingURL != "")
	fmt.Println(strings.Split(*got.Transcript, "\n")[0])
	// Output:
	// queued
	// completed true true
	// Agent: Hi Jane, this is Acme Plumbing Intake Agent calling from Acme Plumbing.
}

func ExampleService_All() {
	c, srv, acct, done := exampleClient()
	defer done()
	ctx := context.Background()
	for _, to := range []string{"+15551230001", "+15005550002"} { // the second number is busy
		if _, err := c.Calls.Create(ctx, &calls.CreateParams{AgentID: acct.AgentID, To: to}); err != nil {
			log.Fatal(err)
		}
	}
	srv.Advance(10 * time.Minute)

	for call, err := range c.Calls.All(ctx, &calls.ListParams{Limit: 1}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(call.Direction, call.Status)
	}
	// Output:
	// outbound failed
	// outbound completed
}

func ExampleService_ListTranscripts() {
	c, srv, acct, done := exampleClient()
	defer done()
	ctx := context.Background()
	if _, err := srv.InboundCall(mockserver.InboundCall{
		To: acct.PhoneNumber, From: "+15551230002",
		Caller: mockserver.Caller{Said: "Hi, my name is Ana Ruiz. Can I book a visit?"},
	}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(10 * time.Minute)

	page, err := c.Calls.ListTranscripts(ctx, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range page.Data {
		fmt.Println(t.Status)
		fmt.Println(strings.Join(strings.Split(t.Transcript, "\n")[:4], "\n"))
	}
	// Output:
	// ended
	// Agent: Hello! How can I help you today?
	// Caller: Hi, my name is Ana Ruiz. Can I book a visit?
	// Agent: Thanks for calling Acme Plumbing. May I have your name?
	// Caller: It's Ana Ruiz.
}
