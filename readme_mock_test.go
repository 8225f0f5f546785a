package voiceagent_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// TestREADMEMockServerTour is the README's mock server tour for Go tests,
// line for line (internal/harness/doccheck checks it), with assertions after it.
func TestREADMEMockServerTour(t *testing.T) {
	t.Parallel()
	ctx := context.Background()

	srv := mockserver.Start(t)                             // on loopback, closed when the test ends
	acct, _ := srv.NewAccount(mockserver.AccountOptions{}) // business, intake agent, number, key, session
	c := acct.Client()                                     // pointed at srv, no client-side rate limiting

	call, _ := c.Calls.Create(ctx, &calls.CreateParams{AgentID: acct.AgentID, To: "+15551230001"})
	acct.Advance(10 * time.Minute)                                                                       // this account's clock: the call rings, runs and completes
	_, _ = srv.InboundCall(mockserver.InboundCall{To: acct.PhoneNumber, From: "+15551230002"})           // a caller rings
	_, _ = acct.AddFault(mockserver.FaultRule{Method: "POST", Path: "/v1/calls", Status: 503, Times: 1}) // only this account's requests

	got, err := c.Calls.Get(ctx, call.ID)
	require.NoError(t, err)
	assert.Equal(t, calls.StatusCompleted, got.Status)
	_, err = c.Calls.Create(ctx, &calls.CreateParams{AgentID: acct.AgentID, To: "+15551230003"}, voiceagent.WithMaxRetries(0))
	assert.ErrorIs(t, err, voiceagent.ErrServiceUnavailable, "the account's own fault")
	other, _ := srv.NewAccount(mockserver.AccountOptions{})
	_, err = other.Client().Calls.Create(ctx, &calls.CreateParams{AgentID: other.AgentID, To: "+15551230003"})
	assert.NoError(t, err, "another account never sees it")
	assert.True(t, other.Now().Before(acct.Now()), "nor the first account's clock")
}
