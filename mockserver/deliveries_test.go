package mockserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/internal/harness/conformance"
	"github.com/voiceagent/voiceagent-go/internal/wire"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// call sends a request with an optional key and decodes the JSON response.
func call(t *testing.T, method, url, key, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := (&http.Client{Transport: conformance.Transport(t, nil)}).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(raw, &out), string(raw))
	return resp.StatusCode, out
}

// The admin routes let test suites in any language drive and inspect
// deliveries: emit an event, long-poll the log, replay a failed delivery
// and a succeeded one.
func TestDeliveryAdminRoutes(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	require.NoError(t, err)
	var fail atomic.Bool
	var received atomic.Int64
	var lastID atomic.Value
	fail.Store(true)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if fail.Load() {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		lastID.Store(r.Header.Get("webhook-id"))
		received.Add(1)
	}))
	t.Cleanup(recv.Close)

	status, sub := call(t, http.MethodPost, srv.URL+"/v1/webhooks", acct.APIKey,
		`{"business_id":"`+acct.BusinessID+`","webhook_url":"`+recv.URL+`","events":["lead.created"]}`)
	require.Equal(t, http.StatusCreated, status, sub)

	status, ev := call(t, http.MethodPost, srv.AdminURL+"/events", "",
		`{"business_id":"`+acct.BusinessID+`","event":"lead.created","data":{"name":"Ada"}}`)
	require.Equal(t, http.StatusCreated, status, ev)
	assert.Equal(t, "lead.created", ev["event"])
	evID := ev["id"].(string)

	status, out := call(t, http.MethodGet, srv.AdminURL+"/deliveries?wait=10s&min_attempts=1&event_id="+evID, "", "")
	require.Equal(t, http.StatusOK, status)
	ds := out["deliveries"].([]any)
	require.Len(t, ds, 1)
	d := ds[0].(map[string]any)
	assert.Equal(t, "pending", d["status"])
	assert.Equal(t, sub["id"], d["subscription_id"])
	assert.Equal(t, float64(10_000), out["cap"])
	attempt := d["attempts"].([]any)[0].(map[string]any)
	assert.Equal(t, float64(500), attempt["status_code"])
	assert.Contains(t, d["body"], `"name":"Ada"`)

	// Run out the schedule (27 h 35 min 5 s), then replay once fixed.
	status, _ = call(t, http.MethodPost, srv.AdminURL+"/clock/advance", "", `{"seconds": 100000}`)
	require.Equal(t, http.StatusOK, status)
	status, out = call(t, http.MethodGet, srv.AdminURL+"/deliveries?status=failed&subscription_id="+sub["id"].(string), "", "")
	require.Equal(t, http.StatusOK, status)
	require.Len(t, out["deliveries"], 1)
	failed := out["deliveries"].([]any)[0].(map[string]any)
	assert.Len(t, failed["attempts"], 8)

	fail.Store(false)
	status, replay := call(t, http.MethodPost, srv.AdminURL+"/deliveries/replay", "", `{"delivery_id":"`+failed["id"].(string)+`"}`)
	require.Equal(t, http.StatusCreated, status, replay)
	assert.Equal(t, failed["id"], replay["replay_of"])
	status, out = call(t, http.MethodGet, srv.AdminURL+"/deliveries?wait=10s&status=succeeded&event_id="+evID, "", "")
	require.Equal(t, http.StatusOK, status)
	require.Len(t, out["deliveries"], 1)

	// Any delivery is replayable: a succeeded one goes out once more, the
	// same message (webhook-id) as the receiver already acknowledged.
	before := received.Load()
	status, again := call(t, http.MethodPost, srv.AdminURL+"/deliveries/replay", "", `{"delivery_id":"`+replay["id"].(string)+`"}`)
	require.Equal(t, http.StatusCreated, status, again)
	assert.Equal(t, replay["id"], again["replay_of"])
	assert.Equal(t, replay["message_id"], again["message_id"])
	status, out = call(t, http.MethodGet, srv.AdminURL+"/deliveries?wait=10s&count=2&status=succeeded&event_id="+evID, "", "")
	require.Equal(t, http.StatusOK, status)
	require.Len(t, out["deliveries"], 2)
	assert.Equal(t, before+1, received.Load())
	assert.Equal(t, evID, lastID.Load(), "the replay carries the event's webhook-id")

	// Except a subscription's once the subscription is gone: 409.
	status, _ = call(t, http.MethodDelete, srv.URL+"/v1/webhooks?id="+sub["id"].(string), acct.APIKey, "")
	require.Equal(t, http.StatusOK, status)
	status, out = call(t, http.MethodPost, srv.AdminURL+"/deliveries/replay", "", `{"delivery_id":"`+replay["id"].(string)+`"}`)
	assert.Equal(t, http.StatusConflict, status, "no subscription to deliver to")
	assert.Equal(t, "conflict", out["error"].(map[string]any)["code"])
	assert.Contains(t, out["error"].(map[string]any)["message"], "subscription exists and is active")
	status, _ = call(t, http.MethodPost, srv.AdminURL+"/deliveries/replay", "", `{"delivery_id":"nope"}`)
	assert.Equal(t, http.StatusNotFound, status)
	status, _ = call(t, http.MethodGet, srv.AdminURL+"/deliveries?status=lost", "", "")
	assert.Equal(t, http.StatusBadRequest, status)
	status, _ = call(t, http.MethodGet, srv.AdminURL+"/deliveries?wait=forever", "", "")
	assert.Equal(t, http.StatusBadRequest, status)
	status, _ = call(t, http.MethodPost, srv.AdminURL+"/events", "", `{"business_id":"`+acct.BusinessID+`","event":"lead.deleted"}`)
	assert.Equal(t, http.StatusBadRequest, status)
	status, _ = call(t, http.MethodPost, srv.AdminURL+"/events", "", `{"business_id":"6f1c3a52-3e5b-4f7d-9f1e-0c2b8e7d6a11","event":"lead.created"}`)
	assert.Equal(t, http.StatusNotFound, status)

	// Reset empties the log.
	srv.Reset()
	assert.Empty(t, srv.Deliveries(mockserver.DeliveryFilter{}))
}

func TestEmitEventRejectsUnknownTypesAndBusinesses(t *testing.T) {
	t.Parallel()
	srv := mockserver.New()
	defer srv.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	require.NoError(t, err)
	_, err = srv.EmitEvent(acct.BusinessID, "lead.deleted", nil)
	assert.Error(t, err)
	_, err = srv.EmitEvent("nope", "lead.created", nil)
	assert.Error(t, err)
	id, err := srv.EmitEvent(acct.BusinessID, "lead.created", nil)
	require.NoError(t, err)
	assert.NotEmpty(t, id)
}

func TestSecretsAreRepeatableWithAnIDSeed(t *testing.T) {
	t.Parallel()
	secret := func() string {
		srv := mockserver.Start(t, mockserver.WithIDSeed(7))
		acct, err := srv.NewAccount(mockserver.AccountOptions{Email: "seed@example.com"})
		require.NoError(t, err)
		status, sub := call(t, http.MethodPost, srv.URL+"/v1/webhooks", acct.APIKey,
			`{"business_id":"`+acct.BusinessID+`","webhook_url":"https://a.example"}`)
		require.Equal(t, http.StatusCreated, status)
		return sub["secret"].(string)
	}
	first := secret()
	assert.Regexp(t, `^whsec_[A-Za-z0-9+/]{32}$`, first)
	assert.Equal(t, first, secret())
}

// An event emitted through the admin API happens at its business's tenant
// time, not at the base time, like every event the tenant's requests make.
func TestAdminEventsHappenAtTheTenantsTime(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	require.NoError(t, err)
	tenantNow := acct.Advance(90 * time.Minute)
	require.True(t, tenantNow.After(srv.Now()))

	status, ev := call(t, http.MethodPost, srv.AdminURL+"/events", "",
		`{"business_id":"`+acct.BusinessID+`","event":"lead.created"}`)
	require.Equal(t, http.StatusCreated, status, ev)
	assert.Equal(t, tenantNow.UTC().Format(wire.TimeLayout), ev["created_at"])
}

// TestADeliveryTheGuardRefusesFailsAtOnce: a receiver the server may not
// call (https outside loopback, without WithExternalWebhooks) fails its
// delivery at the first attempt, with the refusal as the reason, and no
// attempt is retried however far the clock moves.
func TestADeliveryTheGuardRefusesFailsAtOnce(t *testing.T) {
	t.Parallel()
	srv := mockserver.Start(t)
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	require.NoError(t, err)
	status, sub := call(t, http.MethodPost, srv.URL+"/v1/webhooks", acct.APIKey,
		`{"business_id":"`+acct.BusinessID+`","webhook_url":"https://receiver.example/hook?token=t0ps3cret","events":["lead.created"]}`)
	require.Equal(t, http.StatusCreated, status, sub)
	status, ev := call(t, http.MethodPost, srv.AdminURL+"/events", "", `{"business_id":"`+acct.BusinessID+`","event":"lead.created"}`)
	require.Equal(t, http.StatusCreated, status, ev)

	status, out := call(t, http.MethodGet, srv.AdminURL+"/deliveries?wait=10s&status=failed&event_id="+ev["id"].(string), "", "")
	require.Equal(t, http.StatusOK, status)
	require.Len(t, out["deliveries"], 1, "failed at once: %v", out)
	status, _ = call(t, http.MethodPost, srv.AdminURL+"/clock/advance", "", `{"seconds": 100000}`)
	require.Equal(t, http.StatusOK, status)
	d := srv.Deliveries(mockserver.DeliveryFilter{EventID: ev["id"].(string)})
	require.Len(t, d, 1)
	assert.Equal(t, mockserver.DeliveryFailed, d[0].Status)
	assert.Nil(t, d[0].NextAttemptAt)
	require.Len(t, d[0].Attempts, 1, "never retried")
	assert.Contains(t, d[0].Attempts[0].Error, "host receiver.example is outside loopback")
	assert.Equal(t, d[0].Attempts[0].Error, d[0].Reason)
	assert.Equal(t, "https://receiver.example/hook?token=REDACTED", d[0].Attempts[0].URL, "the delivery log keeps no token")
}
