package webhooks_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/events"
	"github.com/voiceagent/voiceagent-go/internal/testenv"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// received is one request a test receiver got.
type received struct {
	Method string
	Header http.Header
	Body   []byte
}

// receiver is a webhook receiver on loopback that records every request
// and answers with the next status of its script (then 200).
type receiver struct {
	*httptest.Server
	mu       sync.Mutex
	got      []received
	statuses []int
	arrived  chan struct{}
}

func newReceiver(t *testing.T, statuses ...int) *receiver {
	t.Helper()
	r := &receiver{statuses: statuses, arrived: make(chan struct{}, 100)}
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.mu.Lock()
		r.got = append(r.got, received{Method: req.Method, Header: req.Header.Clone(), Body: body})
		status := http.StatusOK
		if len(r.statuses) > 0 {
			status, r.statuses = r.statuses[0], r.statuses[1:]
		}
		r.mu.Unlock()
		w.WriteHeader(status)
		_, _ = w.Write([]byte(`{"ok":true}`))
		r.arrived <- struct{}{}
	}))
	t.Cleanup(r.Close)
	return r
}

// wait waits until the receiver has got n requests in all and returns
// them.
func (r *receiver) wait(t *testing.T, n int) []received {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		if len(r.got) >= n {
			out := append([]received(nil), r.got...)
			r.mu.Unlock()
			return out
		}
		r.mu.Unlock()
		select {
		case <-r.arrived:
		case <-deadline:
			t.Fatalf("the receiver got %d requests, want %d", len(r.all()), n)
		}
	}
}

func (r *receiver) all() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.got...)
}

func subscribe(t *testing.T, env *testenv.Env, p *webhooks.UpsertParams) *webhooks.Subscription {
	t.Helper()
	if p.BusinessID == "" {
		p.BusinessID = env.Account.BusinessID
	}
	sub, err := env.Client.Webhooks.Upsert(context.Background(), p)
	require.NoError(t, err)
	require.NotEmpty(t, sub.Secret)
	return sub
}

// waitDeliveries waits for n deliveries that pass the filter.
func waitDeliveries(t *testing.T, srv *mockserver.TestServer, n int, f mockserver.DeliveryFilter) []mockserver.Delivery {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ds := srv.WaitDeliveryCount(ctx, n, f.Match)
	require.Len(t, ds, n, "deliveries matching %+v", f)
	return ds
}

func TestCreateReturnsTheSecretOnceWithDefaults(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()

	sub := subscribe(t, env, &webhooks.UpsertParams{WebhookURL: "https://hooks.example.com/voiceagent"})
	assert.Regexp(t, `^whsec_[A-Za-z0-9+/]{32}$`, sub.Secret, "whsec_ and the base64 of 24 bytes")
	assert.Equal(t, webhooks.EventTypes(), sub.Events, "every event type by default")
	assert.True(t, sub.IsActive)
	assert.Equal(t, http.MethodPost, sub.HTTPMethod)
	assert.Equal(t, webhooks.BodyFormatJSON, sub.BodyFormat)
	assert.Nil(t, sub.PayloadTemplate)
	assert.Nil(t, sub.Preset)
	assert.Empty(t, sub.CustomHeaders)
	assert.Equal(t, env.Account.BusinessID, sub.BusinessID)

	got, err := env.Client.Webhooks.Get(ctx, sub.ID)
	require.NoError(t, err)
	assert.Empty(t, got.Secret, "the secret is shown once")
	assert.Equal(t, sub.ID, got.ID)

	page, err := env.Client.Webhooks.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, page.Data, 1)
	assert.Empty(t, page.Data[0].Secret)
	assert.False(t, page.HasMore)

	// An update returns no secret and changes only what was sent.
	up, err := env.Client.Webhooks.Upsert(ctx, &webhooks.UpsertParams{
		ID: sub.ID, BusinessID: sub.BusinessID, WebhookURL: "https://hooks.example.com/v2",
		Events: []string{webhooks.EventLeadCreated}, Description: voiceagent.String("CRM sync"),
	})
	require.NoError(t, err)
	assert.Empty(t, up.Secret)
	assert.Equal(t, "https://hooks.example.com/v2", up.WebhookURL)
	assert.Equal(t, []string{webhooks.EventLeadCreated}, up.Events)
	require.NotNil(t, up.Description)
	assert.Equal(t, "CRM sync", *up.Description)
	assert.Equal(t, sub.CreatedAt, up.CreatedAt)

	// An explicit null clears the description; unsent fields stay.
	clear := &webhooks.UpsertParams{ID: sub.ID, BusinessID: sub.BusinessID, WebhookURL: up.WebhookURL}
	clear.SetNull("description")
	up, err = env.Client.Webhooks.Upsert(ctx, clear)
	require.NoError(t, err)
	assert.Nil(t, up.Description)
	assert.Equal(t, []string{webhooks.EventLeadCreated}, up.Events)

	require.NoError(t, env.Client.Webhooks.Delete(ctx, sub.ID))
	_, err = env.Client.Webhooks.Get(ctx, sub.ID)
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
	assert.ErrorIs(t, env.Client.Webhooks.Delete(ctx, sub.ID), voiceagent.ErrNotFound)
}

func TestListPagesAndFiltersByBusiness(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	var ids []string
	for range 5 {
		ids = append(ids, subscribe(t, env, &webhooks.UpsertParams{WebhookURL: "https://hooks.example.com/x"}).ID)
	}
	page, err := env.Client.Webhooks.List(ctx, &webhooks.ListParams{Limit: 2})
	require.NoError(t, err)
	require.Len(t, page.Data, 2)
	assert.True(t, page.HasMore)
	assert.Equal(t, ids[4], page.Data[0].ID, "newest first")

	var walked []string
	for s, err := range env.Client.Webhooks.All(ctx, &webhooks.ListParams{Limit: 2}) {
		require.NoError(t, err)
		walked = append(walked, s.ID)
	}
	assert.Equal(t, []string{ids[4], ids[3], ids[2], ids[1], ids[0]}, walked)

	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	_, err = env.Client.Webhooks.List(ctx, &webhooks.ListParams{BusinessID: other.BusinessID})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	page, err = env.ClientFor(other.APIKey).Webhooks.List(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, page.Data, "another tenant sees none of them")
}

func TestDeliveriesAreSignedAndVerifyWithOurHelperAndTheReferenceLibrary(t *testing.T) {
	t.Parallel()
	start := time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC) // far from the wall clock
	env := testenv.New(t, mockserver.WithStartTime(start))
	ctx := context.Background()
	recv := newReceiver(t)
	sub := subscribe(t, env, &webhooks.UpsertParams{WebhookURL: recv.URL + "/hooks"})

	// The account's provisioning events happened before the subscription:
	// replaying them delivers what provisioning emitted.
	since := env.Server.Now().Add(-time.Hour)
	res, err := env.Client.Events.Replay(ctx, &events.ReplayParams{Since: &since})
	require.NoError(t, err)
	assert.Equal(t, 3, res.Events)
	assert.Equal(t, 3, res.Deliveries)

	got := recv.wait(t, 3)
	ref, err := standardwebhooks.NewWebhook(sub.Secret)
	require.NoError(t, err)
	types := map[string]bool{}
	for _, r := range got {
		assert.Equal(t, http.MethodPost, r.Method)
		assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
		require.NoError(t, webhooks.Verify(r.Body, r.Header, []string{sub.Secret}), "our helper verifies")
		require.NoError(t, ref.Verify(r.Body, r.Header), "the Standard Webhooks reference library verifies")
		ev, err := webhooks.ConstructEvent(r.Body, r.Header, sub.Secret)
		require.NoError(t, err)
		assert.Equal(t, ev.ID, r.Header.Get(webhooks.HeaderID), "webhook-id is the event id")
		assert.Equal(t, ev.Type, r.Header.Get(webhooks.HeaderEvent))
		assert.Equal(t, "1", r.Header.Get(webhooks.HeaderAttempt))
		assert.Equal(t, env.Account.BusinessID, ev.BusinessID)
		ts, err := strconv.ParseInt(r.Header.Get(webhooks.HeaderTimestamp), 10, 64)
		require.NoError(t, err)
		assert.InDelta(t, time.Now().Unix(), ts, 60, "webhook-timestamp is the wall-clock time of the attempt")
		assert.Equal(t, start, ev.Timestamp.UTC(), "the body's timestamp is the simulated time of the event")
		types[ev.Type] = true
	}
	assert.Equal(t, map[string]bool{"workspace.created": true, "phone_number.assigned": true, "workspace.ready": true}, types)

	// Another secret fails.
	other, _ := webhooks.NewSecret()
	assert.ErrorIs(t, webhooks.Verify(got[0].Body, got[0].Header, []string{other}), webhooks.ErrInvalidSignature)

	ds := waitDeliveries(t, env.Server, 3, mockserver.DeliveryFilter{SubscriptionID: sub.ID, Status: mockserver.DeliverySucceeded})
	assert.Equal(t, 200, ds[0].Attempts[0].StatusCode)
}

func TestAReceiverFailingTwiceGetsTheEventOnTheThirdAttempt(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	recv := newReceiver(t, http.StatusInternalServerError, http.StatusServiceUnavailable)
	sub := subscribe(t, env, &webhooks.UpsertParams{WebhookURL: recv.URL, Events: []string{webhooks.EventLeadCreated}})

	evID, err := env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventLeadCreated, map[string]any{"id": "lead-1", "name": "Ada"})
	require.NoError(t, err)
	f := mockserver.DeliveryFilter{EventID: evID}

	// Attempt 1 happens at once and fails; attempt 2 is due 5 s later.
	d := waitDeliveries(t, env.Server, 1, mockserver.DeliveryFilter{EventID: evID, MinAttempts: 1})[0]
	assert.Equal(t, mockserver.DeliveryPending, d.Status)
	assert.Equal(t, 500, d.Attempts[0].StatusCode)
	require.NotNil(t, d.NextAttemptAt)
	assert.Equal(t, d.CreatedAt.Add(5*time.Second), *d.NextAttemptAt)

	env.Server.Advance(4 * time.Second)
	assert.Len(t, env.Server.Deliveries(f)[0].Attempts, 1, "nothing before the 5 s mark")

	// One advance covers attempt 2 (at 5 s, fails) and attempt 3 (5 min
	// later, succeeds): retries on the clock run at their own times.
	env.Server.Advance(6 * time.Minute)
	d = env.Server.Deliveries(f)[0]
	assert.Equal(t, mockserver.DeliverySucceeded, d.Status)
	require.Len(t, d.Attempts, 3)
	assert.Equal(t, d.CreatedAt.Add(5*time.Second), d.Attempts[1].At)
	assert.Equal(t, d.CreatedAt.Add(5*time.Second+5*time.Minute), d.Attempts[2].At)
	assert.Equal(t, []int{500, 503, 200}, []int{d.Attempts[0].StatusCode, d.Attempts[1].StatusCode, d.Attempts[2].StatusCode})
	assert.Nil(t, d.NextAttemptAt)

	got := recv.wait(t, 3)
	for i, r := range got {
		assert.Equal(t, evID, r.Header.Get(webhooks.HeaderID), "the same webhook-id on every attempt")
		assert.Equal(t, strconv.Itoa(i+1), r.Header.Get(webhooks.HeaderAttempt))
		assert.Equal(t, got[0].Body, r.Body, "the same body on every attempt")
		require.NoError(t, webhooks.Verify(r.Body, r.Header, []string{sub.Secret}))
	}
	env.Server.Advance(24 * time.Hour)
	assert.Len(t, recv.all(), 3, "no attempt after a success")
}

func TestADeliveryFailsAfterEightAttemptsAndIsReplayable(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	statuses := make([]int, 8)
	for i := range statuses {
		statuses[i] = http.StatusBadGateway
	}
	recv := newReceiver(t, statuses...)
	subscribe(t, env, &webhooks.UpsertParams{WebhookURL: recv.URL})
	evID, err := env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventSMSSent, nil)
	require.NoError(t, err)
	f := mockserver.DeliveryFilter{EventID: evID}
	waitDeliveries(t, env.Server, 1, mockserver.DeliveryFilter{EventID: evID, MinAttempts: 1})

	// The schedule: at once, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h.
	env.Server.Advance(27*time.Hour + 35*time.Minute + 4*time.Second)
	d := env.Server.Deliveries(f)[0]
	require.Len(t, d.Attempts, 7, "the eighth attempt is due a second later")
	env.Server.Advance(time.Second)
	d = env.Server.Deliveries(f)[0]
	require.Len(t, d.Attempts, 8)
	assert.Equal(t, mockserver.DeliveryFailed, d.Status)
	assert.Nil(t, d.NextAttemptAt)
	offsets := []time.Duration{0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}
	var at time.Duration
	for i, a := range d.Attempts {
		at += offsets[i]
		assert.Equal(t, d.CreatedAt.Add(at), a.At, "attempt %d", i+1)
		assert.Equal(t, http.StatusBadGateway, a.StatusCode)
		assert.Contains(t, a.Error, "502")
	}

	// The receiver is fixed: a replay delivers the same message again.
	replay, err := env.Server.ReplayDelivery(d.ID)
	require.NoError(t, err)
	assert.Equal(t, d.ID, replay.ReplayOf)
	assert.Equal(t, d.MessageID, replay.MessageID)
	done := waitDeliveries(t, env.Server, 1, mockserver.DeliveryFilter{EventID: evID, Status: mockserver.DeliverySucceeded})[0]
	assert.Equal(t, replay.ID, done.ID)
	got := recv.wait(t, 9)
	assert.Equal(t, got[0].Body, got[8].Body)
	assert.Equal(t, evID, got[8].Header.Get(webhooks.HeaderID))

	_, err = env.Server.ReplayDelivery(done.ID)
	assert.ErrorIs(t, err, mockserver.ErrDeliveryNotReplayable, "a succeeded delivery is not replayed")
	_, err = env.Server.ReplayDelivery("nope")
	assert.ErrorIs(t, err, mockserver.ErrDeliveryNotFound)
}
