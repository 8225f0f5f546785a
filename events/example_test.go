package events_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/events"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// exampleMock starts an in-process mock server with one account and
// returns the account and a client for it.
func exampleMock() (*mockserver.Account, *client.Client, func()) {
	srv := mockserver.New()
	hs := httptest.NewServer(srv)
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	if err != nil {
		panic(err)
	}
	return acct, client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api")), func() { srv.Close(); hs.Close() }
}

func ExampleService_All() {
	acct, c, stop := exampleMock()
	defer stop()

	// Every event of the key's businesses, newest first, page by page.
	for e, err := range c.Events.All(context.Background(), &events.ListParams{Limit: 2}) {
		if err != nil {
			panic(err)
		}
		fmt.Println(e.Type)
	}
	// Only one type; the data decodes into the family's type.
	page, _ := c.Events.List(context.Background(), &events.ListParams{Type: webhooks.EventPhoneNumberAssigned})
	n, _ := page.Data[0].PhoneNumber()
	fmt.Println(n.PhoneNumber == acct.PhoneNumber)
	// Output:
	// workspace.ready
	// phone_number.assigned
	// workspace.created
	// true
}

func ExampleService_Replay() {
	acct, c, stop := exampleMock()
	defer stop()
	ctx := context.Background()

	// A receiver missed an event: deliver it again, with its own id.
	_, _ = c.Webhooks.Upsert(ctx, &webhooks.UpsertParams{BusinessID: acct.BusinessID, WebhookURL: "https://example.com/hooks"})
	page, _ := c.Events.List(ctx, &events.ListParams{Type: webhooks.EventWorkspaceReady})
	res, err := c.Events.Replay(ctx, &events.ReplayParams{EventIDs: []string{page.Data[0].ID}})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Events, res.Deliveries)
	// Output:
	// 1 1
}
