package voiceagent_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/leads"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// exampleMock starts an in-process mock server with one account and
// returns the server, the account, a client for it and a stop function.
func exampleMock(opts ...voiceagent.Option) (*mockserver.Server, *mockserver.Account, *client.Client, func()) {
	srv := mockserver.New()
	hs := httptest.NewServer(srv)
	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Acme Plumbing"})
	if err != nil {
		log.Fatal(err)
	}
	c := client.New(acct.APIKey, append([]voiceagent.Option{voiceagent.WithBaseURL(hs.URL + "/api")}, opts...)...)
	return srv, acct, c, func() { hs.Close(); srv.Close() }
}

// Every non-2xx answer is an *Error: compare its code with errors.Is, or
// read it with errors.As.
func ExampleError() {
	_, _, c, stop := exampleMock()
	defer stop()

	_, err := c.Calls.Get(context.Background(), "5b0c1a8e-0000-4000-8000-000000000000")
	fmt.Println(errors.Is(err, voiceagent.ErrNotFound))

	var apiErr *voiceagent.Error
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, apiErr.RequestID != "")
	}
	// Output:
	// true
	// 404 not_found true
}

// A POST sent again with the same idempotency key is answered with the first
// answer: the call is placed once.
func ExampleWithIdempotencyKey() {
	_, acct, c, stop := exampleMock()
	defer stop()
	ctx := context.Background()
	p := &calls.CreateParams{AgentID: acct.AgentID, To: "+15551230001"}

	first, err := c.Calls.Create(ctx, p, voiceagent.WithIdempotencyKey("order-1234-callback"))
	if err != nil {
		log.Fatal(err)
	}
	var resp *http.Response
	again, err := c.Calls.Create(ctx, p, voiceagent.WithIdempotencyKey("order-1234-callback"), voiceagent.WithResponseInto(&resp))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(again.ID == first.ID, resp.Header.Get(voiceagent.HeaderIdempotentReplay))
	// Output: true true
}

// Connection errors, 429 and 5xx answers are retried with backoff; the
// SDK's idempotency key makes a retried POST safe.
func ExampleWithMaxRetries() {
	srv, acct, c, stop := exampleMock(voiceagent.WithRetryWait(time.Millisecond, 10*time.Millisecond))
	defer stop()
	ctx := context.Background()
	p := &calls.CreateParams{AgentID: acct.AgentID, To: "+15551230001"}

	// The next two POST /v1/calls fail with 503: the default two retries
	// get through.
	srv.AddFault(mockserver.FaultRule{Method: http.MethodPost, Path: "/v1/calls", Status: 503, Times: 2})
	call, err := c.Calls.Create(ctx, p)
	fmt.Println(call.Status, err)

	// Without retries the failure is returned.
	srv.AddFault(mockserver.FaultRule{Method: http.MethodPost, Path: "/v1/calls", Status: 503, Times: 1})
	_, err = c.Calls.Create(ctx, p, voiceagent.WithMaxRetries(0))
	fmt.Println(errors.Is(err, voiceagent.ErrServiceUnavailable))
	// Output:
	// queued <nil>
	// true
}

// List reads one page; pass its NextCursor as After for the next. All walks
// every page for you.
func ExamplePage() {
	srv, acct, c, stop := exampleMock()
	defer stop()
	ctx := context.Background()
	for _, from := range []string{"+15551230001", "+15551230002", "+15551230003"} {
		if _, err := srv.InboundCall(mockserver.InboundCall{To: acct.PhoneNumber, From: from}); err != nil {
			log.Fatal(err)
		}
	}
	srv.Advance(10 * time.Minute) // the calls end; each caller becomes a lead

	page, err := c.Leads.List(ctx, &leads.ListParams{Limit: 2})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(page.Data), page.HasMore)
	page, err = c.Leads.List(ctx, &leads.ListParams{Limit: 2, After: page.NextCursor})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(page.Data), page.HasMore)

	n := 0
	for _, err := range c.Leads.All(ctx, &leads.ListParams{Limit: 2}) {
		if err != nil {
			log.Fatal(err)
		}
		n++
	}
	fmt.Println(n)
	// Output:
	// 2 true
	// 1 false
	// 3
}
