package webhooks_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/events"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// exampleMock starts an in-process mock server with one account and
// returns a client for it.
// exampleMock starts a mock whose simulated clock starts at a fixed time,
// far from the wall clock's: an example that mixed the wall clock's time
// with the mock's would fail at every hour, not only at some.
func exampleMock() (*mockserver.Server, *mockserver.Account, *client.Client, func()) {
	srv := mockserver.New(mockserver.WithStartTime(time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)))
	hs := httptest.NewServer(srv)
	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Acme Plumbing"})
	if err != nil {
		panic(err)
	}
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"))
	return srv, acct, c, func() { srv.Close(); hs.Close() }
}

func ExampleService_Upsert() {
	srv, acct, c, stop := exampleMock()
	defer stop()
	ctx := context.Background()

	// A receiver: the Handler verifies signatures and deduplicates. It is
	// made first, without a secret (the subscription needs its URL); the
	// create answer brings the secret, given with SetSecrets. Until then it
	// answers signed deliveries 503, which the platform retries.
	var mu sync.Mutex
	var got []string
	wh, err := webhooks.NewHandler()
	if err != nil {
		panic(err)
	}
	wh.OnAny(func(ctx context.Context, e *webhooks.Event) error {
		w, err := e.Workspace()
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		got = append(got, string(e.Type)+" "+w.Name)
		return nil
	})
	receiver := httptest.NewServer(wh)
	defer receiver.Close()

	sub, err := c.Webhooks.Upsert(ctx, &webhooks.UpsertParams{
		BusinessID: acct.BusinessID,
		WebhookURL: receiver.URL + "/hooks/voiceagent",
		Events:     []webhooks.EventType{webhooks.EventWorkspaceCreated, webhooks.EventWorkspaceReady},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("secret issued:", strings.HasPrefix(sub.Secret, "whsec_")) // store it now: it is shown once

	if err := wh.SetSecrets(sub.Secret); err != nil {
		panic(err)
	}

	// The account's provisioning happened before the subscription: replay
	// the last hour. Times are the platform's: the mock's simulated clock
	// here (acct.Now), time.Now() against the real service.
	since := acct.Now().Add(-time.Hour)
	if _, err := c.Events.Replay(ctx, &events.ReplayParams{Since: &since}); err != nil {
		panic(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	done := mockserver.DeliveryFilter{SubscriptionID: sub.ID, Status: mockserver.DeliverySucceeded}
	srv.WaitDeliveryCount(wctx, 2, done.Match)

	mu.Lock()
	defer mu.Unlock()
	slices.Sort(got)
	for _, g := range got {
		fmt.Println(g)
	}
	// Output:
	// secret issued: true
	// workspace.created Acme Plumbing
	// workspace.ready Acme Plumbing
}

func ExampleService_Upsert_template() {
	_, acct, c, stop := exampleMock()
	defer stop()

	// A CRM that wants its own body, as a form, with an API key header.
	sub, err := c.Webhooks.Upsert(context.Background(), &webhooks.UpsertParams{
		BusinessID: acct.BusinessID,
		WebhookURL: "https://crm.example.com/inbound",
		Events:     []webhooks.EventType{webhooks.EventLeadCreated},
		BodyFormat: webhooks.BodyFormatForm,
		PayloadTemplate: &webhooks.PayloadTemplate{Fields: map[string]webhooks.FieldSource{
			"contact.email": webhooks.FieldPath("data.email"),
			"contact.name":  webhooks.FieldPath("data.name|data.first_name"),
			"source":        webhooks.FieldValue("voice agent"),
		}},
		CustomHeaders: map[string]*string{"X-Api-Key": voiceagent.String("crm-secret")},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(sub.BodyFormat, len(sub.PayloadTemplate.Fields), sub.HeaderNames())
	fmt.Println("header value returned:", sub.CustomHeaders["X-Api-Key"] != nil)
	// Output:
	// form 3 [X-Api-Key]
	// header value returned: false
}

func ExampleService_RotateSecret() {
	_, acct, c, stop := exampleMock()
	defer stop()
	ctx := context.Background()
	sub, err := c.Webhooks.Upsert(ctx, &webhooks.UpsertParams{BusinessID: acct.BusinessID, WebhookURL: "https://example.com/hooks"})
	if err != nil {
		panic(err)
	}
	// The old secret keeps signing for an hour: deploy the new one to the
	// receiver (which may verify with both) in the meantime.
	rot, err := c.Webhooks.RotateSecret(ctx, &webhooks.RotateSecretParams{ID: sub.ID, GracePeriodSeconds: voiceagent.Int(3600)})
	if err != nil {
		panic(err)
	}
	fmt.Println("new secret:", rot.Secret != sub.Secret)
	fmt.Println("old secret expires in:", rot.PreviousSecrets[0].ExpiresAt.Sub(rot.UpdatedAt))
	// Output:
	// new secret: true
	// old secret expires in: 1h0m0s
}
