// Package testenv sets up what the SDK's end-to-end tests need: a mock
// server on loopback, a ready account on it, and a client for that account.
package testenv

import (
	"net/http"
	"testing"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/internal/conformance"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// Env is a mock server with one ready account and a client for it.
type Env struct {
	Server  *mockserver.TestServer
	Account *mockserver.Account
	Client  *client.Client

	t           testing.TB
	conformance bool
}

// New starts a mock server (closed when the test ends), provisions an
// account with every scope, and returns a client for it that does not retry
// and keeps no client-side rate limits, so tests see the server's answers.
func New(t testing.TB, opts ...mockserver.Option) *Env {
	t.Helper()
	srv := mockserver.Start(t, opts...)
	e := &Env{Server: srv, Account: NewAccount(t, srv, mockserver.AccountOptions{}), t: t}
	e.Client = e.ClientFor(e.Account.APIKey)
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

// ClientFor returns a client for another key on the same server. Under
// WithConformance its requests and answers are checked too.
func (e *Env) ClientFor(apiKey string, opts ...voiceagent.Option) *client.Client {
	base := []voiceagent.Option{
		voiceagent.WithBaseURL(e.Server.URL),
		voiceagent.WithMaxRetries(0),
		voiceagent.WithRateLimiting(false),
	}
	if e.conformance {
		base = append(base, voiceagent.WithHTTPClient(e.HTTPClient()))
	}
	return client.New(apiKey, append(base, opts...)...)
}

// WithConformance checks every request the environment's clients send, and
// every answer, against the OpenAPI document (openapi/openapi.yaml, as the
// mock serves it): a violation fails the test with t.Errorf (see package
// internal/conformance for what counts). It replaces e.Client with a checked
// client for the same key, applies to the clients ClientFor returns from
// then on, and returns e:
//
//	env := testenv.New(t).WithConformance()
func (e *Env) WithConformance() *Env {
	e.t.Helper()
	e.conformance = true
	e.Client = e.ClientFor(e.Account.APIKey)
	return e
}

// HTTPClient returns an HTTP client for raw requests to the server: checked
// against the OpenAPI document under WithConformance, plain otherwise.
func (e *Env) HTTPClient() *http.Client {
	if !e.conformance {
		return &http.Client{}
	}
	return &http.Client{Transport: conformance.Transport(e.t, nil)}
}
