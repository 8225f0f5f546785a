package voiceagentmock_test

import (
	"context"
	"fmt"
	"log"
	"time"

	"github.com/testcontainers/testcontainers-go"

	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/testcontainers/voiceagentmock"
)

// Run starts the mock server's container; an account of its own gives the
// test an SDK client, a clock and faults no other test sees.
func ExampleRun() {
	ctx := context.Background()
	mock, err := voiceagentmock.Run(ctx) // VOICEAGENT_MOCK_IMAGE, else the released image
	if err != nil {
		log.Fatal(err)
	}
	defer testcontainers.TerminateContainer(mock)

	acct, err := mock.NewAccount(mockserver.AccountOptions{BusinessName: "Example"})
	if err != nil {
		log.Fatal(err)
	}
	c := acct.Client() // pointed at mock.BaseURL()
	call, err := c.Calls.Create(ctx, &calls.CreateParams{AgentID: acct.AgentID, To: "+15551230001"})
	if err != nil {
		log.Fatal(err)
	}
	acct.Advance(10 * time.Minute) // the call rings, runs and completes
	got, err := c.Calls.Get(ctx, call.ID)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(got.Status)
}
