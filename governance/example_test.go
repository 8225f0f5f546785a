package governance_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/governance"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// A governed agent.patch: a dry run, the change itself, a replay of it, and
// a change the authority does not cover.
func ExampleUpdatesService() {
	srv := mockserver.New()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	acct, _ := srv.NewAccount(mockserver.AccountOptions{})
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"))
	ctx := context.Background()

	p := &governance.UpdateParams{
		Intent:    governance.IntentAgentPatch,
		Target:    governance.AgentTarget{AgentID: acct.AgentID},
		Payload:   map[string]any{"first_message": "Thanks for calling Acme!"},
		Actor:     &governance.Actor{Type: "agent", ID: "assistant-7"},
		Authority: &governance.Authority{Mode: governance.AuthorityAgentAsserted},
		DryRun:    true,
	}
	dry, err := c.GovernedUpdates.Submit(ctx, p)
	if err != nil {
		panic(err)
	}
	fmt.Println("dry run would be:", dry.Would)

	p.DryRun, p.IdempotencyKey = false, "greeting-2026-06"
	u, err := c.GovernedUpdates.Submit(ctx, p)
	if err != nil {
		panic(err)
	}
	again, err := c.GovernedUpdates.Submit(ctx, p)
	if err != nil {
		panic(err)
	}
	fmt.Println(u.Status, again.ID == u.ID)

	_, err = c.GovernedUpdates.Submit(ctx, &governance.UpdateParams{
		Intent: governance.IntentEmergencyAddress, IdempotencyKey: "e911-1",
		Target:    governance.NumberTarget{PhoneNumber: acct.PhoneNumber},
		Payload:   governance.EmergencyAddress{Street: "1 Main St", City: "Springfield", State: "IL", PostalCode: "62701", Country: "US"},
		Authority: &governance.Authority{Mode: governance.AuthorityAgentAsserted},
	})
	fmt.Println(errors.Is(err, voiceagent.ErrForbidden))
	// Output:
	// dry run would be: applied
	// applied true
	// true
}

// Ask a person to approve by phone; the decision arrives at the callback,
// signed with the secret the request returned.
func ExampleApprovalsService() {
	srv := mockserver.New()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	acct, _ := srv.NewAccount(mockserver.AccountOptions{}) // test accounts hold approvals:write
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"))
	ctx := context.Background()

	var secret string
	decided := make(chan string, 1)
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		cb, err := governance.VerifyApprovalCallback(secret, r.Header, body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnauthorized)
			return
		}
		decided <- cb.Data.Decision + " " + cb.Data.SourceRequestID
	}))
	defer receiver.Close()

	a, err := c.Approvals.Request(ctx, &governance.ApprovalParams{
		Source: "refund-guard", SourceRequestID: "refund-1234", PrincipalID: "owner-1",
		Channel: governance.ApprovalChannel{Type: governance.ChannelVoice, Address: "+15551230001"},
		Summary: "Refund $40 on order 1234.", RiskLevel: "medium",
		ExpiresAt: srv.Now().Add(time.Hour), CallbackURL: receiver.URL + "/approvals",
	})
	if err != nil {
		panic(err)
	}
	secret = a.CallbackSecret
	fmt.Println(a.Status)
	srv.Advance(10 * time.Minute) // the call ends
	fmt.Println(<-decided)
	// Output:
	// calling
	// approved refund-1234
}
