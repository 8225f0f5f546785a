package mockserver_test

import (
	"fmt"
	"log"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver"
)

// A caller rings a business, leaves their details and hangs up; the
// agent's lead collection creates the lead, and what the agent received on
// the call can be read back.
func ExampleServer_InboundCall() {
	srv := mockserver.New(mockserver.WithStartTime(time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)))
	defer srv.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Acme Plumbing"})
	if err != nil {
		log.Fatal(err)
	}
	id, err := srv.InboundCall(mockserver.InboundCall{
		To:       acct.PhoneNumber,
		From:     "+15551230005",
		Caller:   mockserver.Caller{Name: "Dana Fox", Said: "I'd like a quote for a new water heater."},
		Duration: 90,
	})
	if err != nil {
		log.Fatal(err)
	}
	srv.Advance(2*time.Second + 90*time.Second) // rings, then a 90-second conversation

	pc, _ := srv.ProviderCall(id)
	fmt.Println(pc.Variables["business_name"], pc.Variables["time_of_day"])
	fmt.Println(srv.MinutesUsed(acct.BusinessID), "minute(s) used")
	fmt.Println(srv.Consent(acct.BusinessID, "+15551230005"))
	// Output:
	// Acme Plumbing afternoon
	// 2 minute(s) used
	// opted_in
}

// Texts need consent; STOP revokes it and START restores it.
func ExampleServer_InboundSMS() {
	srv := mockserver.New()
	defer srv.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for _, body := range []string{"Hello there", "STOP", "start"} {
		in, err := srv.InboundSMS(mockserver.InboundSMS{To: acct.PhoneNumber, From: "+15551230006", Body: body})
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(body, "->", in.Consent)
	}
	// Output:
	// Hello there -> opted_in
	// STOP -> opted_out
	// start -> opted_in
}
