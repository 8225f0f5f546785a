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
// answers 503, once.
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
