package runs_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/runs"
)

// Validate, preview and create a run of a call and a text; the touches
// happen as the mock's clock advances.
func ExampleService() {
	start := time.Date(2026, 6, 5, 14, 0, 0, 0, time.UTC)
	srv := mockserver.New(mockserver.WithStartTime(start))
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	acct, _ := srv.NewAccount(mockserver.AccountOptions{})
	_ = srv.SetConsent(acct.BusinessID, "+15551230001", "opted_in") // Jane agreed to texts
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"))
	ctx := context.Background()

	p := &runs.CreateParams{
		BusinessID: acct.BusinessID, ExternalRef: "crm-campaign-7",
		Touches: []runs.TouchParams{
			{TouchID: "call-1", Channel: runs.ChannelCall, Target: runs.Target{Phone: "+15551230001", Name: voiceagent.String("Jane")},
				ScheduledAt: start.Add(time.Hour)},
			{TouchID: "sms-1", Channel: runs.ChannelSMS, Target: runs.Target{Phone: "+15551230001"},
				ScheduledAt: start.Add(2 * time.Hour), Message: voiceagent.String("Thanks for your time, Jane!")},
		},
	}
	v, err := c.Runs.Validate(ctx, p)
	if err != nil {
		panic(err)
	}
	pv, err := c.Runs.Preview(ctx, p)
	if err != nil {
		panic(err)
	}
	fmt.Println("valid:", v.Valid, "calls:", pv.Summary.Calls, "texts:", pv.Summary.SMS)

	run, err := c.Runs.Create(ctx, p, voiceagent.WithIdempotencyKey("crm-campaign-7/create"))
	if err != nil {
		panic(err)
	}
	fmt.Println(run.Status)

	srv.Advance(3 * time.Hour) // both touches happen
	run, err = c.Runs.Get(ctx, run.ID)
	if err != nil {
		panic(err)
	}
	for _, t := range run.Touches {
		fmt.Println(t.TouchID, t.Status)
	}
	fmt.Println(run.Status)
	// Output:
	// valid: true calls: 1 texts: 1
	// scheduled
	// call-1 completed
	// sms-1 completed
	// completed
}
