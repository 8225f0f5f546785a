package mockserver_test

import (
	"context"
	"fmt"
	"log"
	"net/http/httptest"
	"time"

	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
)

// Connect reaches a server running elsewhere (here one on a loopback port;
// in a suite, the binary or a container at its URL, with its admin token)
// and gives the same Go helpers as a server in process.
func ExampleConnect() {
	hs := httptest.NewServer(mockserver.New()) // stands for: voiceagent-mock -admin-token ...
	defer hs.Close()

	srv, err := mockserver.Connect(hs.URL, "")
	if err != nil {
		log.Fatal(err)
	}
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	if err != nil {
		log.Fatal(err)
	}
	if _, err := acct.Script(mockserver.Script{Calls: []mockserver.CallStep{{To: "+14155550100", Outcome: admin.OutcomeNoAnswer}}}); err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	call, err := acct.Client().Calls.Create(ctx, &calls.CreateParams{AgentID: acct.AgentID, To: "+14155550100"})
	if err != nil {
		log.Fatal(err)
	}
	acct.Advance(time.Minute)
	got, err := acct.Client().Calls.Get(ctx, call.ID)
	if err != nil {
		log.Fatal(err)
	}
	steps, _ := acct.ScriptSteps()
	fmt.Println(got.Status, *got.Error, steps[0].Status)
	// Output: failed no_answer used
}
