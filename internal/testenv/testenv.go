// Package testenv sets up what the SDK's end-to-end tests need: a mock
// server on loopback, a ready account on it, and a client for that account.
package testenv

import (
	"testing"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// Env is a mock server with one ready account and a client for it.
type Env struct {
	Server  *mockserver.TestServer
	Account *mockserver.Account
	Client  *client.Client
}

// New starts a mock server (closed when the test ends), provisions an
// account with every scope, and returns a client for it that does not retry
// and keeps no client-side rate limits, so tests see the server's answers.
func New(t testing.TB, opts ...mockserver.Option) *Env {
	t.Helper()
	srv := mockserver.Start(t, opts...)
	e := &Env{Server: srv, Account: NewAccount(t, srv, mockserver.AccountOptions{})}
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

// ClientFor returns a client for another key on the same server.
func (e *Env) ClientFor(apiKey string, opts ...voiceagent.Option) *client.Client {
	base := []voiceagent.Option{
		voiceagent.WithBaseURL(e.Server.URL),
		voiceagent.WithMaxRetries(0),
		voiceagent.WithRateLimiting(false),
	}
	return client.New(apiKey, append(base, opts...)...)
}
