package mockserver_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// A script decides what the other end of the account's next calls does:
// the first call to the number reaches voicemail, the second is answered.
func ExampleAccount_Script() {
	srv := mockserver.New(mockserver.WithStartTime(time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)))
	defer srv.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Acme Plumbing"})
	if err != nil {
		log.Fatal(err)
	}
	_, err = acct.Script(mockserver.Script{Calls: []mockserver.CallStep{
		{To: "+15551230007", Outcome: "voicemail"},
		{To: "+15551230007", Outcome: "completed", Summary: "Booked for Tuesday."},
	}})
	if err != nil {
		log.Fatal(err)
	}
	c, ctx := acct.Client(), context.Background()
	for range 2 {
		created, err := c.Calls.Create(ctx, &calls.CreateParams{AgentID: acct.AgentID, To: "+15551230007"})
		if err != nil {
			log.Fatal(err)
		}
		acct.Advance(10 * time.Minute)
		call, err := c.Calls.Get(ctx, created.ID)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(call.Status, *call.EndedReason)
	}
	steps, _ := acct.ScriptSteps()
	fmt.Println(len(steps), "steps,", steps[0].Status, steps[1].Status)
	// Output:
	// completed voicemail
	// completed completed
	// 2 steps, used used
}

// The schedule lists what the tenant's clock runs next.
func ExampleAccount_Schedule() {
	srv := mockserver.New(mockserver.WithStartTime(time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)))
	defer srv.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := acct.Client().Calls.Create(context.Background(), &calls.CreateParams{AgentID: acct.AgentID, To: "+15551230008"}); err != nil {
		log.Fatal(err)
	}
	tasks, err := acct.Schedule()
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range tasks {
		fmt.Println(t.At.Format(time.TimeOnly), t.Kind)
	}
	// Output:
	// 16:00:02 call.answer
}
