package mockserver_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/signup"
)

// The server is an http.Handler: serve it with httptest (in a test,
// mockserver.Start(t) does this and closes it when the test ends), give a
// ready account's key to a client, and move the simulated clock to let
// things happen.
func ExampleNew() {
	srv := mockserver.New(mockserver.WithIDSeed(42))
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()

	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Acme Plumbing"})
	if err != nil {
		log.Fatal(err)
	}
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"))
	ctx := context.Background()

	call, err := c.Calls.Create(ctx, &calls.CreateParams{AgentID: acct.AgentID, To: "+15551230001"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(call.Status)
	srv.Advance(10 * time.Minute) // the call is answered, runs and ends
	got, err := c.Calls.Get(ctx, call.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got.Status, got.Duration)
	// Output:
	// queued
	// completed 235
}

// Magic values drive failures, like a payment provider's test cards: a call
// to +15005550002 is busy.
func ExampleServer_Advance() {
	srv := mockserver.New()
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	if err != nil {
		log.Fatal(err)
	}
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"))
	ctx := context.Background()

	call, err := c.Calls.Create(ctx, &calls.CreateParams{AgentID: acct.AgentID, To: "+15005550002"})
	if err != nil {
		log.Fatal(err)
	}
	srv.Advance(2 * time.Second)
	got, err := c.Calls.Get(ctx, call.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got.Status, *got.Error)
	// Output: failed busy
}

// Emails and texts the platform sends to people land in the outbox: here
// the signup code.
func ExampleServer_WaitOutbox() {
	srv := mockserver.New()
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	anon := client.New("", voiceagent.WithBaseURL(hs.URL+"/api"))
	ctx := context.Background()

	req := &signup.RequestParams{Fields: signup.Fields{BusinessName: "Acme", Email: "owner@acme.example"}}
	ch, err := anon.Signup.Request(ctx, req)
	if err != nil {
		log.Fatal(err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	msg, ok := srv.WaitOutbox(waitCtx, "owner@acme.example", func(m mockserver.OutboxMessage) bool { return m.OTPCode != "" })
	if !ok {
		log.Fatal("no code arrived")
	}
	res, err := anon.Signup.Verify(ctx, &signup.VerifyParams{RequestParams: *req, ChallengeID: ch.ChallengeID, OTPCode: msg.OTPCode})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(msg.Channel, len(msg.OTPCode), res.APIKey[:16])
	// Output: email 6 voiceagent_live_
}

// A fault rule makes matching requests fail: here the next POST /v1/calls
// responds 503, once.
func ExampleServer_AddFault() {
	srv := mockserver.New()
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	if err != nil {
		log.Fatal(err)
	}
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"), voiceagent.WithMaxRetries(0))

	srv.AddFault(mockserver.FaultRule{Method: http.MethodPost, Path: "/v1/calls", Status: http.StatusServiceUnavailable, Times: 1})
	p := &calls.CreateParams{AgentID: acct.AgentID, To: "+15551230001"}
	_, err = c.Calls.Create(context.Background(), p)
	fmt.Println(errors.Is(err, voiceagent.ErrServiceUnavailable))
	_, err = c.Calls.Create(context.Background(), p)
	fmt.Println(err)
	// Output:
	// true
	// <nil>
}

// A helper that refuses what it was given returns a *mockserver.Error
// holding what the matching admin route responds with: here a fault rule
// on a path no route has.
func ExampleError() {
	srv := mockserver.New()
	defer srv.Close()

	_, err := srv.AddFault(mockserver.FaultRule{Path: "/v1/nothing", Status: http.StatusServiceUnavailable})
	var e *mockserver.Error
	if errors.As(err, &e) {
		fmt.Println(e.Status, e.Code, e.Details[0].Path)
	}
	// Output: 400 invalid_request path
}

// The request journal keeps every API request with its response; a
// RequestFilter selects entries as GET /_mock/requests does.
func ExampleServer_Requests() {
	srv := mockserver.New()
	defer srv.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	if err != nil {
		log.Fatal(err)
	}
	c := acct.Client()
	_, err = c.Calls.Create(context.Background(), &calls.CreateParams{AgentID: acct.AgentID, To: "+15551230001"})
	if err != nil {
		log.Fatal(err)
	}

	for _, e := range srv.Requests(mockserver.RequestFilter{Method: http.MethodPost, Path: "/v1/calls"}.Match) {
		fmt.Println(e.Method, e.Path, e.Status, e.BusinessID == acct.BusinessID)
	}
	// Output: POST /api/v1/calls 201 true
}

// Seeded leads are stored as given, without events or lead collection;
// an invalid one stores none and says which.
func ExampleServer_SeedLeads() {
	srv := mockserver.New()
	defer srv.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	if err != nil {
		log.Fatal(err)
	}

	ids, err := srv.SeedLeads(acct.BusinessID, []mockserver.LeadFixture{
		{Name: "Jane Doe", Phone: "+15551230001", Status: "qualified"},
		{Name: "John Roe", Email: "john@example.com"},
	})
	fmt.Println(len(ids), err)

	_, err = srv.SeedLeads(acct.BusinessID, []mockserver.LeadFixture{{Name: "Ann", Status: "nothing"}})
	var e *mockserver.Error
	fmt.Println(errors.As(err, &e), e.Status)
	// Output:
	// 2 <nil>
	// true 400
}
