package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/openapi"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// dataSchemas compiles the OpenAPI components the data of each event type
// is documented as, by type.
var dataSchemas = sync.OnceValues(func() (map[webhooks.EventType]*jsonschema.Schema, error) {
	doc, err := openapi.BundledJSON("http://127.0.0.1")
	if err != nil {
		return nil, err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const id = "mem://openapi.json"
	if err := c.AddResource(id, inst); err != nil {
		return nil, err
	}
	component := map[string][]webhooks.EventType{
		"CallDetail": {webhooks.EventCallReceived, webhooks.EventCallStarted, webhooks.EventCallCompleted, webhooks.EventCallFailed,
			webhooks.EventVoicemailReceived, webhooks.EventDispatcherBriefingCreated, webhooks.EventCallbackScheduled, webhooks.EventCallbackCompleted},
		"LeadDetail":          {webhooks.EventLeadCreated, webhooks.EventLeadScored},
		"SmsMessage":          {webhooks.EventSMSReceived, webhooks.EventSMSSent, webhooks.EventSMSDelivered, webhooks.EventSMSFailed},
		"PhoneNumber":         {webhooks.EventPhoneNumberAssigned, webhooks.EventPhoneNumberReleased, webhooks.EventPhoneNumberPurchased},
		"Workspace":           {webhooks.EventWorkspacePaused, webhooks.EventWorkspaceCanceled, webhooks.EventWorkspaceCreated, webhooks.EventWorkspaceProvisioningFailed, webhooks.EventWorkspaceReady, webhooks.EventWorkspaceTeardownCompleted},
		"LeadEmail":           {webhooks.EventLeadEmailSent, webhooks.EventLeadEmailFailed},
		"ConversationHandoff": {webhooks.EventConversationHandoff, webhooks.EventDispatcherHandoffDispatched},
	}
	out := map[webhooks.EventType]*jsonschema.Schema{}
	for name, types := range component {
		sch, err := c.Compile(id + "#/components/schemas/" + name)
		if err != nil {
			return nil, err
		}
		for _, t := range types {
			out[t] = sch
		}
	}
	return out, nil
})

// checkShape validates data against the documented schema of its type.
func checkShape(t *testing.T, typ webhooks.EventType, data json.RawMessage) {
	t.Helper()
	schemas, err := dataSchemas()
	require.NoError(t, err)
	sch, ok := schemas[typ]
	require.True(t, ok, "no schema for %s", typ)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	require.NoError(t, err)
	assert.NoError(t, sch.Validate(inst), "%s: %s", typ, data)
}

// Every one of the 27 types emitted without data arrives at a subscription
// with data of its documented shape, taken from the tenant's records where
// it has them.
func TestEventsEmittedWithoutDataCarryTheirSample(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	var mu sync.Mutex
	got := map[string][]byte{} // by webhook-id
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got[r.Header.Get(webhooks.HeaderID)] = b
		mu.Unlock()
	}))
	t.Cleanup(recv.Close)
	sub := rawDo(t, http.MethodPost, srv.URL+"/v1/webhooks", `{"business_id":"`+acct.BusinessID+`","webhook_url":"`+recv.URL+`/hook"}`, bearer(acct.APIKey)...)
	require.Equal(t, http.StatusCreated, sub.status, string(sub.body))
	callID, err := srv.InboundCall(InboundCall{To: acct.PhoneNumber, From: "+15557654321"})
	require.NoError(t, err)

	ids := map[string]webhooks.EventType{}
	for _, typ := range webhooks.EventTypes() {
		r := rawDo(t, http.MethodPost, srv.AdminURL+"/events", `{"business_id":"`+acct.BusinessID+`","event":"`+string(typ)+`"}`)
		require.Equal(t, http.StatusCreated, r.status, string(r.body))
		var ev webhooks.Event
		require.NoError(t, json.Unmarshal(r.body, &ev))
		checkShape(t, typ, ev.Data)
		ids[ev.ID] = typ
		switch typ {
		case webhooks.EventCallCompleted:
			c, err := ev.Call()
			require.NoError(t, err)
			assert.Equal(t, callID, c.ID, "the tenant's latest call")
			assert.Equal(t, "completed", c.Status)
		case webhooks.EventPhoneNumberReleased:
			n, err := ev.PhoneNumber()
			require.NoError(t, err)
			assert.Equal(t, acct.PhoneNumber, n.PhoneNumber, "the tenant's number")
		case webhooks.EventWorkspaceReady:
			w, err := ev.Workspace()
			require.NoError(t, err)
			assert.Equal(t, acct.BusinessID, w.ID)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f := DeliveryFilter{SubscriptionID: string(sub.json["id"].(string)), Status: DeliverySucceeded}
	srv.WaitDeliveryCount(ctx, len(ids), func(d *Delivery) bool { _, ok := ids[d.EventID]; return ok && f.Match(d) })
	mu.Lock()
	defer mu.Unlock()
	for id, typ := range ids {
		body, ok := got[id]
		require.True(t, ok, "%s arrived", typ)
		ev, err := webhooks.Parse(body)
		require.NoError(t, err)
		assert.Equal(t, typ, ev.Type)
		checkShape(t, typ, ev.Data)
	}

	// The schemas do hold the shape: what the issue saw delivered fails.
	schemas, err := dataSchemas()
	require.NoError(t, err)
	note, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"note":"x"}`))
	require.NoError(t, err)
	assert.Error(t, schemas[webhooks.EventCallCompleted].Validate(note))

	// Data given is sent as given.
	r := rawDo(t, http.MethodPost, srv.AdminURL+"/events", `{"business_id":"`+acct.BusinessID+`","event":"call.completed","data":{"note":"x"}}`)
	require.Equal(t, http.StatusCreated, r.status)
	assert.Equal(t, map[string]any{"note": "x"}, r.json["data"])
}

// sdkReceiver is a receiver built on the SDK's Handler, handling every
// event; its secret is given once the subscription exists.
func sdkReceiver(t *testing.T) (*webhooks.Handler, *httptest.Server) {
	t.Helper()
	h, err := webhooks.NewHandler(webhooks.WithErrorLog(slog.New(slog.NewTextHandler(io.Discard, nil))))
	require.NoError(t, err)
	h.OnAny(func(context.Context, *webhooks.Event) error { return nil })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, srv
}

func TestReceiverChecksRoute(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	h, good := sdkReceiver(t)
	sub := rawDo(t, http.MethodPost, srv.URL+"/v1/webhooks", `{"business_id":"`+acct.BusinessID+`","webhook_url":"`+good.URL+`/hook"}`, bearer(acct.APIKey)...)
	require.Equal(t, http.StatusCreated, sub.status, string(sub.body))
	secret := sub.json["secret"].(string)
	require.NoError(t, h.SetSecrets(secret))

	// A subscription whose receiver verifies, rejects and dedupes: passed.
	r := rawDo(t, http.MethodPost, srv.AdminURL+"/receiver-checks", `{"subscription_id":"`+sub.json["id"].(string)+`"}`)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Equal(t, true, r.json["passed"], string(r.body))
	assert.Equal(t, good.URL+"/hook", r.json["url"])
	checks := r.json["checks"].([]any)
	require.Len(t, checks, 27+9)
	first := checks[0].(map[string]any)
	assert.Equal(t, "accepts_valid", first["id"])
	assert.Equal(t, "lead.created", first["event"])
	assert.Equal(t, float64(200), first["status"])

	// A receiver that accepts everything, by URL and secret: each rejects_* fails.
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) }))
	t.Cleanup(bad.Close)
	r = rawDo(t, http.MethodPost, srv.AdminURL+"/receiver-checks", `{"url":"`+bad.URL+`","secret":"`+secret+`","events":["sms.sent"]}`)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Equal(t, false, r.json["passed"])
	checks = r.json["checks"].([]any)
	require.Len(t, checks, 1+9)
	for _, c := range checks {
		c := c.(map[string]any)
		assert.Equal(t, !strings.HasPrefix(c["id"].(string), "rejects_"), c["passed"], c["id"])
	}

	// Bad input: 400 in the spec's error format; an unknown subscription 404.
	for name, body := range map[string]string{
		"no url":             `{"secret":"` + secret + `"}`,
		"empty":              `{}`,
		"bad secret":         `{"url":"` + bad.URL + `","secret":"nope"}`,
		"no secret":          `{"url":"` + bad.URL + `"}`,
		"external host":      `{"url":"https://example.com/hooks","secret":"` + secret + `"}`,
		"http elsewhere":     `{"url":"http://example.com/hooks","secret":"` + secret + `"}`,
		"not a url":          `{"url":"::nope","secret":"` + secret + `"}`,
		"both":               `{"url":"` + bad.URL + `","secret":"` + secret + `","subscription_id":"` + sub.json["id"].(string) + `"}`,
		"unknown event":      `{"url":"` + bad.URL + `","secret":"` + secret + `","events":["call.complete"]}`,
		"unknown member":     `{"url":"` + bad.URL + `","secret":"` + secret + `","nope":1}`,
		"events not a list":  `{"url":"` + bad.URL + `","secret":"` + secret + `","events":"lead.created"}`,
		"empty events":       `{"url":"` + bad.URL + `","secret":"` + secret + `","events":[]}`,
		"subscription empty": `{"subscription_id":""}`,
	} {
		r := rawDo(t, http.MethodPost, srv.AdminURL+"/receiver-checks", body)
		assert.Equal(t, http.StatusBadRequest, r.status, "%s: %s", name, r.body)
		assert.Equal(t, "invalid_request", r.code(), name)
	}
	// A subscription's custom headers go with the checks' deliveries.
	guarded := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Receiver-Token") != "t-1" {
			http.Error(w, "no token", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(guarded.Close)
	sub2 := rawDo(t, http.MethodPost, srv.URL+"/v1/webhooks", `{"business_id":"`+acct.BusinessID+`","webhook_url":"`+guarded.URL+`","custom_headers":{"X-Receiver-Token":"t-1"}}`, bearer(acct.APIKey)...)
	require.Equal(t, http.StatusCreated, sub2.status, string(sub2.body))
	require.NoError(t, h.SetSecrets(secret, sub2.json["secret"].(string)))
	r = rawDo(t, http.MethodPost, srv.AdminURL+"/receiver-checks", `{"subscription_id":"`+sub2.json["id"].(string)+`","events":["call.started"]}`)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Equal(t, true, r.json["passed"], string(r.body))

	r = rawDo(t, http.MethodPost, srv.AdminURL+"/receiver-checks", `{"subscription_id":"00000000-0000-4000-8000-000000000000"}`)
	assert.Equal(t, http.StatusNotFound, r.status)
	assert.Equal(t, "not_found", r.code())
}

// With external webhooks allowed, an http receiver elsewhere is checked
// (here one the dialer reaches on loopback by another name).
func TestReceiverChecksFollowTheDeliveryRules(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithExternalWebhooks(true))
	secret, err := webhooks.NewSecret()
	require.NoError(t, err)
	_, good := sdkReceiver(t)
	url := strings.Replace(good.URL, "127.0.0.1", "127.0.0.1.nip.invalid", 1)
	r := rawDo(t, http.MethodPost, srv.AdminURL+"/receiver-checks", `{"url":"`+url+`","secret":"`+secret+`","events":["lead.created"]}`)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.Equal(t, false, r.json["passed"], "a host that does not resolve fails its checks, not the request")
	for _, c := range r.json["checks"].([]any) {
		c := c.(map[string]any)
		if c["id"] != "responds_in_time" {
			assert.Equal(t, float64(0), c["status"], c["id"])
			assert.Contains(t, c["detail"], "no response", c["id"])
		}
	}
}
