package mockserver_test

import (
	"context"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/internal/harness/helpersuite"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// The Go helpers on a server made with New: the same suite runs against
// the standalone binary reached with Connect (cmd/voiceagent-mock) and
// against the container (testcontainers/voiceagentmock).
func TestTheHelpersInProcess(t *testing.T) {
	srv := mockserver.New()
	defer srv.Close()
	helpersuite.Run(t, srv, helpersuite.Options{Receivers: true, Reset: true})
}

// The same suite through the admin token of a server that requires one.
func TestTheHelpersInProcessWithAnAdminToken(t *testing.T) {
	srv := mockserver.New(mockserver.WithAdminToken("s3cret"))
	defer srv.Close()
	helpersuite.Run(t, srv, helpersuite.Options{})
}

// countingTransport counts the requests it carries to next.
type countingTransport struct {
	next http.RoundTripper
	n    atomic.Int32
}

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return c.next.RoundTrip(r)
}

// acct.Client(voiceagent.WithHTTPClient(c)) on a server made with New: a
// client without a transport of its own is served in process (its timeout
// kept); one with a transport carries the requests to a loopback port the
// server opens, so the transport sees every request.
func TestAccountClientWithAnHTTPClientInProcess(t *testing.T) {
	srv := mockserver.New()
	defer srv.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	require.NoError(t, err)
	ctx := context.Background()

	plain := &http.Client{Timeout: 5 * time.Second}
	_, err = acct.Client(voiceagent.WithHTTPClient(plain)).Calls.List(ctx, nil)
	require.NoError(t, err, "a client with no transport of its own")
	assert.Nil(t, plain.Transport, "the caller's client is not changed")

	counting := &countingTransport{next: http.DefaultTransport}
	_, err = acct.Client(voiceagent.WithHTTPClient(&http.Client{Transport: counting})).Calls.List(ctx, nil)
	require.NoError(t, err, "a client with a transport of its own")
	assert.Equal(t, int32(1), counting.n.Load())
	assert.True(t, strings.HasPrefix(srv.LoopbackURL(), "http://127.0.0.1:"), srv.LoopbackURL())
	assert.Len(t, acct.Requests(nil), 2, "both requests reached the server")
}
