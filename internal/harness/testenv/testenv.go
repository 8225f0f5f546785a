// Package testenv sets up what the SDK's end-to-end tests need: a mock
// server on loopback, a ready account on it, and a client for that account.
package testenv

import (
	"net/http"
	"testing"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/internal/harness/conformance"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// Env is a mock server with one ready account and a client for it.
//
// Every request the environment's clients send (Client, ClientFor,
// HTTPClient), and every answer, is checked against the OpenAPI document
// (openapi/openapi.yaml as the mock serves it) by internal/harness/conformance: a
// violation fails the test with t.Errorf. So every end-to-end test also
// checks that the SDK, the mock and the document agree.
type Env struct {
	Server  *mockserver.TestServer
	Account *mockserver.Account
	Client  *client.Client

	t testing.TB
}

// New starts a mock server (closed when the test ends), provisions an
// account with every scope, and returns a client for it that does not retry
// and keeps no client-side rate limits, so tests see the server's answers.
// The client's traffic is checked against the OpenAPI document.
func New(t testing.TB, opts ...mockserver.Option) *Env {
	t.Helper()
	srv := mockserver.Start(t, opts...)
	e := &Env{Server: srv, Account: NewAccount(t, srv, mockserver.AccountOptions{}), t: t}
	e.Client = e.ClientFor(e.Account.APIKey)
	return e
}

// With returns an environment for a server started and an account provisioned
// elsewhere (with particular options), its clients checked like New's.
func With(t testing.TB, srv *mockserver.TestServer, acct *mockserver.Account) *Env {
	t.Helper()
	e := &Env{Server: srv, Account: acct, t: t}
	e.Client = e.ClientFor(acct.APIKey)
	return e
}

// NewAccount provisions another account on the server.
func NewAccount(t testing.TB, srv *mockserver.TestServer, opts mockserver.AccountOptions) *mockserver.Account {
	t.Helper()
	acct, err := srv.NewAccount(opts)
	if err != nil {
		t.Fatalf("provisioning an account: %v", err)
	}
	return acct
}

// ClientFor returns a client for another key (empty for none, with
// voiceagent.WithSessionCookie for a dashboard session) on the same server,
// its traffic checked against the OpenAPI document like e.Client's. An
// explicit voiceagent.WithHTTPClient among opts replaces the checked one.
func (e *Env) ClientFor(apiKey string, opts ...voiceagent.Option) *client.Client {
	base := []voiceagent.Option{
		voiceagent.WithBaseURL(e.Server.URL),
		voiceagent.WithMaxRetries(0),
		voiceagent.WithRateLimiting(false),
		voiceagent.WithHTTPClient(e.HTTPClient()),
	}
	return client.New(apiKey, append(base, opts...)...)
}

// HTTPClient returns an HTTP client for raw requests to the server, its
// traffic checked against the OpenAPI document: a raw request that breaks
// the document may probe bad input, and passes when the server refuses it
// with a 4xx that the document allows (see internal/harness/conformance).
func (e *Env) HTTPClient() *http.Client {
	if e.t == nil {
		panic("testenv: build an Env with New or With: its traffic is checked against the OpenAPI document, which reports to the test")
	}
	return &http.Client{Transport: Transport(e.t, nil)}
}

// Transport wraps next (http.DefaultTransport when nil) so that its
// traffic is checked against the OpenAPI document, for tests that build
// their own HTTP client.
func Transport(t testing.TB, next http.RoundTripper) http.RoundTripper {
	return conformance.Transport(t, next)
}
