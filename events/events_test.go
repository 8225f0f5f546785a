package events_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/events"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

func TestTheLogHoldsWhatProvisioningEmitted(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	page, err := env.Client.Events.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, page.Data, 3)
	assert.False(t, page.HasMore)
	// Newest first.
	assert.Equal(t, []webhooks.EventType{webhooks.EventWorkspaceReady, webhooks.EventPhoneNumberAssigned, webhooks.EventWorkspaceCreated},
		[]webhooks.EventType{page.Data[0].Type, page.Data[1].Type, page.Data[2].Type})
	for _, e := range page.Data {
		assert.Equal(t, env.Account.BusinessID, e.BusinessID)
		assert.Equal(t, env.Server.Now(), e.Timestamp.UTC())
	}
	var number struct {
		PhoneNumber string `json:"phone_number"`
		AgentID     string `json:"agent_id"`
	}
	require.NoError(t, page.Data[1].DecodeData(&number))
	assert.Equal(t, env.Account.PhoneNumber, number.PhoneNumber)
	assert.Equal(t, env.Account.AgentID, number.AgentID)

	one, err := env.Client.Events.Get(ctx, page.Data[2].ID)
	require.NoError(t, err)
	assert.Equal(t, webhooks.EventWorkspaceCreated, one.Type)
	assert.Equal(t, page.Data[2].CreatedAt, one.CreatedAt)
}

func TestListFiltersAndPages(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	for range 4 {
		_, err := env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventLeadCreated, map[string]any{"name": "x"})
		require.NoError(t, err)
		env.Server.Advance(time.Minute)
	}
	page, err := env.Client.Events.List(ctx, &events.ListParams{Type: webhooks.EventLeadCreated, Limit: 3})
	require.NoError(t, err)
	require.Len(t, page.Data, 3)
	assert.True(t, page.HasMore)
	var n int
	for e, err := range env.Client.Events.All(ctx, &events.ListParams{Type: webhooks.EventLeadCreated, Limit: 3}) {
		require.NoError(t, err)
		assert.Equal(t, webhooks.EventLeadCreated, e.Type)
		n++
	}
	assert.Equal(t, 4, n)
	var all int
	for _, err := range env.Client.Events.All(ctx, &events.ListParams{Limit: 2}) {
		require.NoError(t, err)
		all++
	}
	assert.Equal(t, 7, all, "four leads and three provisioning events")

	_, err = env.Client.Events.List(ctx, &events.ListParams{Type: "lead.deleted"})
	assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest)
	_, err = env.Client.Events.List(ctx, &events.ListParams{Limit: 101})
	assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest)

	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	_, err = env.Client.Events.Get(ctx, page.Data[0].ID, voiceagent.WithAPIKey(other.APIKey))
	assert.ErrorIs(t, err, voiceagent.ErrNotFound, "another tenant's event is not visible")
	_, err = env.Client.Events.List(ctx, &events.ListParams{BusinessID: other.BusinessID})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	noScope := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{voiceagent.ScopeWebhooksRead}})
	_, err = env.ClientFor(noScope.APIKey).Events.List(ctx, nil)
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
}

// countingReceiver counts requests per event type.
func countingReceiver(t *testing.T) (*httptest.Server, func() map[string]int) {
	var mu sync.Mutex
	got := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		mu.Lock()
		got[r.Header.Get(webhooks.HeaderEvent)]++
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	return srv, func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		out := map[string]int{}
		for k, v := range got {
			out[k] = v
		}
		return out
	}
}

func TestReplayReDeliversToTheSubscriptions(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	start := env.Server.Now()
	recv, counts := countingReceiver(t)
	_, err := env.Client.Webhooks.Upsert(ctx, &webhooks.UpsertParams{
		BusinessID: env.Account.BusinessID, WebhookURL: recv.URL,
		Events: []webhooks.EventType{webhooks.EventWorkspaceCreated, webhooks.EventWorkspaceReady, webhooks.EventLeadCreated},
	})
	require.NoError(t, err)

	// A window with a type filter: only workspace.ready.
	since := start.Add(-time.Second)
	res, err := env.Client.Events.Replay(ctx, &events.ReplayParams{Since: &since, Types: []webhooks.EventType{webhooks.EventWorkspaceReady}})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Events)
	assert.Equal(t, 1, res.Deliveries)
	require.Len(t, res.DeliveryIDs, 1)
	wait(t, env, len(res.DeliveryIDs), res.DeliveryIDs)

	// The whole window: three events, but the subscription does not list
	// phone_number.assigned, so two deliveries.
	res, err = env.Client.Events.Replay(ctx, &events.ReplayParams{Since: &since, BusinessID: env.Account.BusinessID})
	require.NoError(t, err)
	assert.Equal(t, 3, res.Events)
	assert.Equal(t, 2, res.Deliveries)
	wait(t, env, 2, res.DeliveryIDs)

	// An until before the events: nothing.
	env.Server.Advance(time.Hour)
	until := start.Add(-time.Nanosecond)
	res, err = env.Client.Events.Replay(ctx, &events.ReplayParams{Since: &since, Until: &until})
	require.NoError(t, err)
	assert.Zero(t, res.Events)

	// By id.
	evID, err := env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventLeadCreated, nil)
	require.NoError(t, err)
	res, err = env.Client.Events.Replay(ctx, &events.ReplayParams{EventIDs: []string{evID}})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Deliveries)
	ds := wait(t, env, 1, res.DeliveryIDs)
	assert.Equal(t, evID, ds[0].MessageID, "a replay keeps the event's webhook-id")
	wctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	f := mockserver.DeliveryFilter{EventID: evID, Status: mockserver.DeliverySucceeded}
	require.Len(t, env.Server.WaitDeliveryCount(wctx, 2, f.Match), 2, "the first delivery and the replay")
	assert.Equal(t, map[string]int{string(webhooks.EventWorkspaceReady): 2, string(webhooks.EventWorkspaceCreated): 1, string(webhooks.EventLeadCreated): 2}, counts())
}

// wait waits until the deliveries with the ids succeeded.
func wait(t *testing.T, env *testenv.Env, n int, ids []string) []mockserver.Delivery {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ds := env.Server.WaitDeliveryCount(ctx, n, func(d *mockserver.Delivery) bool {
		for _, id := range ids {
			if d.ID == id && d.Status == mockserver.DeliverySucceeded {
				return true
			}
		}
		return false
	})
	require.Len(t, ds, n)
	return ds
}

func TestReplayErrors(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	page, err := env.Client.Events.List(ctx, nil)
	require.NoError(t, err)
	evID := page.Data[0].ID
	since := env.Server.Now().Add(-time.Hour)

	for name, p := range map[string]*events.ReplayParams{
		"nothing":             {},
		"ids and since":       {EventIDs: []string{evID}, Since: &since},
		"until without since": {EventIDs: []string{evID}, Until: &since},
		"until before since":  {Since: &since, Until: voiceagent.Time(since.Add(-time.Second))},
		"unknown type":        {Since: &since, Types: []webhooks.EventType{"call.exploded"}},
		"not a uuid":          {EventIDs: []string{"evt_1"}},
	} {
		_, err := env.Client.Events.Replay(ctx, p)
		assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest, name)
	}
	_, err = env.Client.Events.Replay(ctx, &events.ReplayParams{EventIDs: []string{"9c5b94b1-35bf-4d8b-8fd1-5d6c3f0e8a11"}})
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)

	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	oc := env.ClientFor(other.APIKey)
	_, err = oc.Events.Replay(ctx, &events.ReplayParams{EventIDs: []string{evID}})
	assert.ErrorIs(t, err, voiceagent.ErrNotFound, "another tenant's event")
	_, err = oc.Events.Replay(ctx, &events.ReplayParams{Since: &since, BusinessID: env.Account.BusinessID})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)

	readOnly := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{voiceagent.ScopeEventsRead}})
	_, err = env.ClientFor(readOnly.APIKey).Events.Replay(ctx, &events.ReplayParams{Since: &since})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden, "replay needs events:replay")
}

func TestReplayIsBounded(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	for range 1000 {
		_, err := env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventLeadScored, nil)
		require.NoError(t, err)
	}
	since := env.Server.Now().Add(-time.Hour)
	_, err := env.Client.Events.Replay(context.Background(), &events.ReplayParams{Since: &since})
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, voiceagent.CodeInvalidRequest, apiErr.Code)
	assert.True(t, strings.Contains(apiErr.Message, "1000"), apiErr.Message)
	res, err := env.Client.Events.Replay(context.Background(), &events.ReplayParams{Since: &since, Types: []webhooks.EventType{webhooks.EventLeadScored}})
	require.NoError(t, err)
	assert.Equal(t, 1000, res.Events)
	assert.Zero(t, res.Deliveries, "no subscription")
}
