package sms_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/sms"
)

func ExampleService_Send() {
	srv := mockserver.New(mockserver.WithStartTime(time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)))
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Acme Plumbing"})
	if err != nil {
		log.Fatal(err)
	}
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"))
	ctx := context.Background()
	const customer = "+15551230004"

	_, err = c.SMS.Send(ctx, &sms.SendParams{To: customer, FromAgentID: acct.AgentID, Message: "Hi!"})
	fmt.Println(errors.Is(err, voiceagent.ErrNumberOptedOut)) // no consent yet

	// The customer texts first: that is consent.
	in, err := srv.InboundSMS(mockserver.InboundSMS{To: acct.PhoneNumber, From: customer, Body: "Hi, are you open on Saturday?"})
	if err != nil {
		log.Fatal(err)
	}
	sent, err := c.SMS.Send(ctx, &sms.SendParams{To: customer, FromAgentID: acct.AgentID, Message: "Yes, 9 to 5!"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sent.Success, sent.From == acct.PhoneNumber)

	srv.Advance(2 * time.Second) // delivered
	thread, err := c.SMS.Thread(ctx, in.LeadID)
	if err != nil {
		log.Fatal(err)
	}
	for _, m := range thread {
		fmt.Println(m.Direction, m.Status, m.Body)
	}
	// Output:
	// true
	// true true
	// inbound received Hi, are you open on Saturday?
	// outbound delivered Yes, 9 to 5!
}

func ExampleService_UpdatePrompt() {
	srv := mockserver.New()
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	if err != nil {
		log.Fatal(err)
	}
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"))

	res, err := c.SMS.UpdatePrompt(context.Background(), &sms.UpdatePromptParams{
		AgentID:   acct.AgentID,
		SMSPrompt: "Answer texts in one or two sentences. Never quote prices.",
		Reason:    voiceagent.String("Owner asked for shorter replies"),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Success, res.Message)

	// The change is written to an audit trail.
	audit := srv.PromptAudit(acct.AgentID)
	fmt.Println(len(audit), audit[0].Reason)
	// Output:
	// true SMS prompt updated
	// 1 Owner asked for shorter replies
}

func ExampleService_All() {
	srv := mockserver.New(mockserver.WithStartTime(time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)))
	defer srv.Close()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	if err != nil {
		log.Fatal(err)
	}
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"))
	for _, from := range []string{"+15551230007", "+15551230008"} {
		if _, err := srv.InboundSMS(mockserver.InboundSMS{To: acct.PhoneNumber, From: from, Body: "Do you do weekend visits?"}); err != nil {
			log.Fatal(err)
		}
	}

	for m, err := range c.SMS.All(context.Background(), &sms.ListParams{Direction: "inbound"}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(m.From, m.Status)
	}
	// Output:
	// +15551230008 received
	// +15551230007 received
}
