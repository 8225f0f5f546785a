package leads_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/leads"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

func ExampleService_Update() {
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

	// A caller rings the business; the agent's lead collection creates a lead.
	if _, err := srv.InboundCall(mockserver.InboundCall{
		To: acct.PhoneNumber, From: "+15551230003",
		Caller: mockserver.Caller{Said: "This is Bo Chen, my kitchen sink is leaking. bo@example.com"},
	}); err != nil {
		log.Fatal(err)
	}
	srv.Advance(10 * time.Minute)

	for lead, err := range c.Leads.All(ctx, &leads.ListParams{Status: leads.StatusNew}) {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(*lead.Name, *lead.Email, *lead.Phone, *lead.Source)

		up, err := c.Leads.Update(ctx, &leads.UpdateParams{
			ID: lead.ID, Status: voiceagent.Ptr(leads.StatusQualified), Notes: voiceagent.String("Plumber booked"),
		})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(up.Status, *up.Notes, *up.Intent, up.Score)
	}
	// Output:
	// Bo Chen bo@example.com +15551230003 inbound_call
	// qualified Plumber booked support 70
}
