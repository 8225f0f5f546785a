package governance_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/governance"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// An approval callback is a delivery of the one delivery engine: listed in
// the delivery log under kind approval_callback, failed after the eighth
// attempt, and replayable, the request's callback status following it.
func TestApprovalCallbackIsADeliveryInTheLogAndReplayable(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	rcv := newReceiver(t)
	rcv.fails.Store(int32(len(mockserver.WebhookRetrySchedule())))
	p := approvalParams(env, "+15551230001", rcv.url())
	p.ExpiresAt = env.Server.Now().Add(10 * time.Second)
	a, err := env.Client.Approvals.Request(ctx, p)
	require.NoError(t, err)

	env.Server.Advance(10 * time.Second) // expired: attempt 1 fails
	rcv.next(t)
	env.Server.Advance(30 * time.Hour) // the whole schedule: attempts 2 to 8 fail
	var last delivery
	for range len(mockserver.WebhookRetrySchedule()) - 1 {
		last = rcv.next(t)
	}
	assert.Equal(t, "8", last.header.Get(webhooks.HeaderAttempt))
	got, err := env.Client.Approvals.Get(ctx, a.ID)
	require.NoError(t, err)
	assert.Equal(t, "failed", got.Callback.Status)
	assert.Len(t, got.Callback.Attempts, 8)
	assert.Nil(t, got.Callback.NextAttemptAt)

	mine := mockserver.DeliveryFilter{Kind: mockserver.DeliveryKindApprovalCallback, ApprovalRequestID: a.ID}
	ds := env.Server.Deliveries(mine)
	require.Len(t, ds, 1)
	d := ds[0]
	assert.Equal(t, mockserver.DeliveryFailed, d.Status)
	assert.Len(t, d.Attempts, 8)
	assert.Equal(t, governance.ApprovalCallbackEvent, d.Event)
	assert.Equal(t, env.Account.BusinessID, d.BusinessID)
	assert.Equal(t, rcv.url(), d.Attempts[0].URL)
	assert.Equal(t, string(last.body), d.Body, "the log holds the body as sent")
	cb, err := governance.VerifyApprovalCallback(a.CallbackSecret, last.header, last.body)
	require.NoError(t, err)
	assert.Equal(t, cb.ID, d.MessageID, "the webhook-id is the callback's id")
	assert.Equal(t, governance.ApprovalExpired, cb.Data.Decision)
	assert.Empty(t, env.Server.Deliveries(mockserver.DeliveryFilter{Kind: mockserver.DeliveryKindSubscription, ApprovalRequestID: a.ID}))

	replay, err := env.Server.ReplayDelivery(d.ID)
	require.NoError(t, err)
	assert.Equal(t, d.ID, replay.ReplayOf)
	assert.Equal(t, mockserver.DeliveryKindApprovalCallback, replay.Kind)
	again := rcv.next(t) // the receiver answers 204 now
	assert.Equal(t, "1", again.header.Get(webhooks.HeaderAttempt), "a fresh schedule")
	replayed, err := governance.VerifyApprovalCallback(a.CallbackSecret, again.header, again.body)
	require.NoError(t, err, "signed with the request's secret again")
	assert.Equal(t, cb.ID, replayed.ID, "the same webhook-id, for deduplication")
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	done := mockserver.DeliveryFilter{ApprovalRequestID: a.ID, Status: mockserver.DeliverySucceeded}
	require.Len(t, env.Server.WaitDeliveries(waitCtx, done.Match), 1)
	got, err = env.Client.Approvals.Get(ctx, a.ID)
	require.NoError(t, err)
	assert.Equal(t, "delivered", got.Callback.Status, "the request's callback follows the replay")
	assert.Len(t, got.Callback.Attempts, 9)

	// The admin route filters by kind and request too.
	q := url.Values{"kind": {"approval_callback"}, "approval_request_id": {a.ID}}
	status, out := adminGet(t, env.Server.AdminURL+"/deliveries?"+q.Encode())
	require.Equal(t, http.StatusOK, status)
	require.Len(t, out.Deliveries, 2)
	assert.Equal(t, a.ID, out.Deliveries[1].ApprovalRequestID)
	assert.Equal(t, mockserver.DeliverySucceeded, out.Deliveries[1].Status)
	status, _ = adminGet(t, env.Server.AdminURL+"/deliveries?kind=approval")
	assert.Equal(t, http.StatusBadRequest, status)
}

func adminGet(t *testing.T, u string) (int, struct{ Deliveries []mockserver.Delivery }) {
	t.Helper()
	var out struct{ Deliveries []mockserver.Delivery }
	resp, err := http.Get(u) //nolint:noctx // a loopback test server
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &out), string(raw))
	return resp.StatusCode, out
}
