package sdr_test

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
	"github.com/voiceagent/voiceagent-go/sdr"
)

// exampleEnv starts a mock server at noon in New York with one business
// whose number a caller just rang, and returns a client for it.
func exampleEnv() (*mockserver.Server, *mockserver.Account, *client.Client, func()) {
	srv := mockserver.New(mockserver.WithStartTime(time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)))
	hs := httptest.NewServer(srv)
	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Acme Plumbing"})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := srv.InboundCall(mockserver.InboundCall{
		To: acct.PhoneNumber, From: "+15551230003", Duration: 60,
		Caller: mockserver.Caller{Said: "This is Bo Chen, can I get a quote? bo@example.com"},
	}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(2 * time.Minute)
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"))
	return srv, acct, c, func() { hs.Close(); srv.Close() }
}

func ExampleService_Pipeline() {
	_, acct, c, done := exampleEnv()
	defer done()
	ctx := context.Background()

	p, err := c.SDR.Pipeline(ctx, &sdr.PipelineParams{BusinessID: acct.BusinessID})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("leads:", p.Summary.TotalLeads, "actionable:", p.Summary.Actionable)
	for _, l := range p.Leads {
		fmt.Println(*l.Name, l.Segment, l.NextAction, l.Score)
	}
	// Output:
	// leads: 1 actionable: 1
	// Bo Chen speed_to_lead call 85
}

func ExampleService_Run() {
	srv, acct, c, done := exampleEnv()
	defer done()
	ctx := context.Background()

	_, err := c.SDR.UpdateConfig(ctx, &sdr.ConfigParams{
		BusinessID: acct.BusinessID, Enabled: voiceagent.Bool(true),
		AutoCall: voiceagent.Bool(true), AutoSMS: voiceagent.Bool(true), MinTouchGapHours: voiceagent.Int(24),
	})
	if err != nil {
		log.Fatal(err)
	}
	// Preview, then run for real: the same plan.
	for _, dry := range []bool{true, false} {
		run, err := c.SDR.Run(ctx, &sdr.RunParams{BusinessID: acct.BusinessID, DryRun: dry})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("dry run %t: %d call queued, %d skipped\n", run.DryRun, run.Summary.CallsQueued, run.Skipped)
	}
	// The call runs on the clock; the lead answered, so it is engaged again.
	srv.Advance(10 * time.Minute)
	p, err := c.SDR.Pipeline(ctx, &sdr.PipelineParams{BusinessID: acct.BusinessID})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Leads[0].Segment, p.Leads[0].TouchCount, p.Leads[0].NextActionAt.Format(time.RFC3339))
	// Output:
	// dry run true: 1 call queued, 0 skipped
	// dry run false: 1 call queued, 0 skipped
	// fresh_demo_caller 1 2026-03-11T16:02:00Z
}

func ExampleService_Act() {
	_, acct, c, done := exampleEnv()
	defer done()
	ctx := context.Background()

	lead, err := c.SDR.Pipeline(ctx, &sdr.PipelineParams{BusinessID: acct.BusinessID})
	if err != nil {
		log.Fatal(err)
	}
	id := lead.Leads[0].ID
	res, err := c.SDR.Act(ctx, &sdr.ActionParams{BusinessID: acct.BusinessID, LeadID: id, Action: sdr.ActionSMS})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Action, res.Segment, res.TouchCount)

	// A second touch within min_touch_gap_hours (24 by default) is refused.
	_, err = c.SDR.Act(ctx, &sdr.ActionParams{BusinessID: acct.BusinessID, LeadID: id, Action: sdr.ActionEmail})
	var apiErr *voiceagent.Error
	if errors.As(err, &apiErr) && apiErr.NextAllowedAt != nil {
		fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.NextAllowedAt.Format(time.RFC3339))
	}
	// Output:
	// sms contacted_no_reply 1
	// 429 rate_limited 2026-03-11T16:02:00Z
}
