package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/sms"
)

var afternoonET = time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)

type telEnv struct {
	srv  *TestServer
	acct *Account
	c    *client.Client
}

func newTelEnv(t *testing.T, opts ...Option) *telEnv {
	t.Helper()
	srv := Start(t, append([]Option{WithStartTime(afternoonET)}, opts...)...)
	acct, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(srv.URL), voiceagent.WithMaxRetries(0), voiceagent.WithRateLimiting(false),
		voiceagent.WithHTTPClient(checkedClient(t)))
	return &telEnv{srv: srv, acct: acct, c: c}
}

// events returns the types of the business's telephony events since the
// account was provisioned, oldest first, and drops them from the next call.
func (e *telEnv) events(t *testing.T, seen *int) []string {
	t.Helper()
	tx := e.srv.platform.ReadTx()
	defer tx.End()
	var out []string
	all := tx.Events.Owned(e.acct.BusinessID)
	for _, ev := range all[*seen:] {
		if !strings.HasPrefix(ev.Type, "workspace.") && !strings.HasPrefix(ev.Type, "phone_number.") {
			out = append(out, ev.Type)
		}
	}
	*seen = len(all)
	return out
}

func (e *telEnv) lastEvent(t *testing.T, typ string) map[string]any {
	t.Helper()
	tx := e.srv.platform.ReadTx()
	defer tx.End()
	all := tx.Events.Owned(e.acct.BusinessID)
	for i := len(all) - 1; i >= 0; i-- {
		if all[i].Type == typ {
			var m map[string]any
			require.NoError(t, json.Unmarshal(all[i].Data, &m))
			return m
		}
	}
	t.Fatalf("no %s event", typ)
	return nil
}

func TestEventsOfCallsLeadsAndTexts(t *testing.T) {
	t.Parallel()
	e := newTelEnv(t)
	ctx := context.Background()
	seen := 0
	e.events(t, &seen)

	in, err := e.srv.InboundCall(InboundCall{To: e.acct.PhoneNumber, From: "+15556660001", Caller: Caller{Name: "Ida"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"call.received"}, e.events(t, &seen))
	e.srv.Advance(2 * time.Second)
	assert.Equal(t, []string{"call.started"}, e.events(t, &seen))
	e.srv.Advance(5 * time.Minute)
	assert.Equal(t, []string{"lead.created", "lead.scored", "call.completed"}, e.events(t, &seen))
	data := e.lastEvent(t, "call.completed")
	assert.Equal(t, in, data["id"])
	assert.Equal(t, "ended", data["status"])
	assert.NotEmpty(t, data["lead_id"])
	lead := e.lastEvent(t, "lead.created")
	assert.Equal(t, "Ida", lead["name"])
	assert.Equal(t, float64(45), lead["score"], "10 + name 15 + phone 10 + interaction 10")

	out, err := e.c.Calls.Create(ctx, &calls.CreateParams{AgentID: e.acct.AgentID, To: "+15556660001"})
	require.NoError(t, err)
	e.srv.Advance(6 * time.Minute)
	assert.Equal(t, []string{"call.started", "lead.scored", "call.completed"}, e.events(t, &seen))
	assert.Equal(t, out.ID, e.lastEvent(t, "call.completed")["id"])
	assert.Equal(t, "contacted", e.lastEvent(t, "lead.scored")["status"])

	_, err = e.c.Calls.Create(ctx, &calls.CreateParams{AgentID: e.acct.AgentID, To: "+15005550001"})
	require.NoError(t, err)
	e.srv.Advance(time.Minute)
	assert.Equal(t, []string{"call.failed"}, e.events(t, &seen))
	assert.Equal(t, "no_answer", e.lastEvent(t, "call.failed")["error"])

	_, err = e.srv.InboundCall(InboundCall{To: e.acct.PhoneNumber, From: "+15556660002", Answered: voiceagent.Bool(false), Voicemail: "Call me back"})
	require.NoError(t, err)
	e.srv.Advance(time.Minute)
	assert.Equal(t, []string{"call.received", "lead.created", "lead.scored", "voicemail.received", "call.failed"}, e.events(t, &seen))
	assert.Equal(t, "Caller: Call me back", e.lastEvent(t, "voicemail.received")["transcript"])
	assert.Equal(t, "no-answer", e.lastEvent(t, "call.failed")["status"])

	_, err = e.srv.InboundSMS(InboundSMS{To: e.acct.PhoneNumber, From: "+15556660003", Body: "hi there"})
	require.NoError(t, err)
	assert.Equal(t, []string{"lead.created", "lead.scored", "sms.received"}, e.events(t, &seen))
	_, err = e.c.SMS.Send(ctx, &sms.SendParams{To: "+15556660003", FromAgentID: e.acct.AgentID, Message: "hello"})
	require.NoError(t, err)
	assert.Equal(t, []string{"sms.sent", "lead.scored"}, e.events(t, &seen))
	e.srv.Advance(2 * time.Second)
	assert.Equal(t, []string{"sms.delivered"}, e.events(t, &seen))
	assert.Equal(t, "delivered", e.lastEvent(t, "sms.delivered")["status"])
	_, err = e.c.SMS.Send(ctx, &sms.SendParams{To: "+15005550012", FromAgentID: e.acct.AgentID, Message: "x"})
	require.Error(t, err)
	assert.Equal(t, []string{"sms.failed"}, e.events(t, &seen))
	_, err = e.c.SMS.Send(ctx, &sms.SendParams{To: "+15005550011", FromAgentID: e.acct.AgentID, Message: "x"})
	require.Error(t, err)
	assert.Empty(t, e.events(t, &seen), "a refused text emits nothing")
}

func TestTransferEmitsAHandoff(t *testing.T) {
	t.Parallel()
	e := newTelEnv(t)
	ctx := context.Background()
	_, err := e.c.Agents.Update(ctx, &agents.UpdateParams{ID: e.acct.AgentID, TransferEnabled: voiceagent.Bool(true), TransferPhoneNumber: voiceagent.String("+15556669999")})
	require.NoError(t, err)
	id, err := e.srv.InboundCall(InboundCall{To: e.acct.PhoneNumber, From: "+15556660011", Caller: Caller{Said: "Can I speak to a real person please?"}})
	require.NoError(t, err)
	e.srv.Advance(6 * time.Minute)
	c, err := e.c.Calls.Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "transferred", *c.EndedReason)
	assert.Contains(t, *c.Transcript, "transfer you")
	h := e.lastEvent(t, "conversation.handoff")
	assert.Equal(t, id, h["call_id"])
	assert.Equal(t, "+15556669999", h["transfer_to"])
	assert.Equal(t, *c.LeadID, h["lead_id"])

	// Without transfer on, the same request ends normally.
	_, err = e.c.Agents.Update(ctx, &agents.UpdateParams{ID: e.acct.AgentID, TransferEnabled: voiceagent.Bool(false)})
	require.NoError(t, err)
	id, err = e.srv.InboundCall(InboundCall{To: e.acct.PhoneNumber, From: "+15556660012", Caller: Caller{Said: "Can I speak to a real person please?"}})
	require.NoError(t, err)
	e.srv.Advance(6 * time.Minute)
	c, err = e.c.Calls.Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, "completed", *c.EndedReason)
}

func TestRingFirstRoutingDelaysTheAgent(t *testing.T) {
	t.Parallel()
	e := newTelEnv(t)
	tx := e.srv.platform.WriteTx()
	b, _ := tx.Businesses.Get(e.acct.BusinessID)
	b.RingFirstSeconds = 20 // as signup does with phone_forward_to
	tx.End()
	id, err := e.srv.InboundCall(InboundCall{To: e.acct.PhoneNumber, From: "+15556660021", Duration: 40})
	require.NoError(t, err)
	e.srv.Advance(19 * time.Second)
	c, err := e.c.Calls.Get(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, calls.StatusRinging, c.Status, "the owner's phone rings first")
	e.srv.Advance(time.Second)
	c, err = e.c.Calls.Get(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, calls.StatusInProgress, c.Status)
	e.srv.Advance(40 * time.Second)
	c, err = e.c.Calls.Get(context.Background(), id)
	require.NoError(t, err)
	assert.Equal(t, calls.StatusEnded, c.Status)
	assert.Equal(t, 40, c.Duration)
}

// blockingReceiver sends no response until the test ends.
func blockingReceiver(t *testing.T) (string, <-chan struct{}) {
	t.Helper()
	got := make(chan struct{}, 8)
	release := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got <- struct{}{}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(hs.Close)
	t.Cleanup(func() { close(release) })
	return hs.URL + "/slow", got
}

func TestAnAttemptTimesOut(t *testing.T) {
	t.Parallel()
	e := newTelEnv(t, WithWebhookTimeout(100*time.Millisecond))
	u, _ := blockingReceiver(t)
	c, err := e.c.Calls.Create(context.Background(), &calls.CreateParams{AgentID: e.acct.AgentID, To: "+15005550002", WebhookURL: voiceagent.String(u)})
	require.NoError(t, err)
	e.srv.Advance(2 * time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ds := e.srv.WaitDeliveries(ctx, DeliveryFilter{CallID: c.ID, MinAttempts: 1}.Match)
	require.Len(t, ds, 1)
	d := ds[0]
	assert.Equal(t, DeliveryKindCallWebhook, d.Kind)
	require.Len(t, d.Attempts, 1)
	assert.Equal(t, 0, d.Attempts[0].StatusCode)
	assert.Contains(t, d.Attempts[0].Error, "timeout")
	assert.Equal(t, DeliveryPending, d.Status)
	require.NotNil(t, d.NextAttemptAt)
}

func TestResetAndCloseWhileADeliveryIsInFlight(t *testing.T) {
	t.Parallel()
	e := newTelEnv(t)
	u, got := blockingReceiver(t)
	c, err := e.c.Calls.Create(context.Background(), &calls.CreateParams{AgentID: e.acct.AgentID, To: "+15005550002", WebhookURL: voiceagent.String(u)})
	require.NoError(t, err)
	e.srv.Advance(2 * time.Second)
	<-got
	require.Len(t, e.srv.Deliveries(DeliveryFilter{CallID: c.ID}), 1)
	e.srv.Reset()
	assert.Empty(t, e.srv.Deliveries(DeliveryFilter{CallID: c.ID}))
	e.srv.Close() // cancels the in-flight attempt; its result is dropped
	e.srv.Close()
}

func adminPost(t *testing.T, srv *TestServer, path string, body any) (int, map[string]any) {
	t.Helper()
	raw, err := json.Marshal(body)
	require.NoError(t, err)
	resp, err := http.Post(srv.AdminURL+path, "application/json", bytes.NewReader(raw))
	require.NoError(t, err)
	defer resp.Body.Close()
	return resp.StatusCode, decodeJSONBody(t, resp.Body)
}

func adminGet(t *testing.T, srv *TestServer, pathAndQuery string) (int, map[string]any) {
	t.Helper()
	resp, err := http.Get(srv.AdminURL + pathAndQuery)
	require.NoError(t, err)
	defer resp.Body.Close()
	return resp.StatusCode, decodeJSONBody(t, resp.Body)
}

func decodeJSONBody(t *testing.T, r io.Reader) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.NewDecoder(r).Decode(&m))
	return m
}

func TestAdminRoutes(t *testing.T) {
	t.Parallel()
	e := newTelEnv(t)
	ctx := context.Background()
	srv := e.srv

	status, call := adminPost(t, srv, "/inbound-call", map[string]any{
		"to": e.acct.PhoneNumber, "from": "+15556660031",
		"caller":   map[string]any{"name": "Rae Five", "email": "rae@example.com", "said": "I want a quote", "intent": "quote"},
		"duration": 45,
	})
	require.Equal(t, http.StatusCreated, status, call)
	assert.Equal(t, "ringing", call["status"])
	assert.Equal(t, "inbound", call["direction"])
	callID := call["id"].(string)
	_, err := adminAdvance(srv, 2*time.Second+45*time.Second)
	require.NoError(t, err)
	c, err := e.c.Calls.Get(ctx, callID)
	require.NoError(t, err)
	assert.Equal(t, 45, c.Duration)
	lead, err := e.c.Leads.Get(ctx, *c.LeadID)
	require.NoError(t, err)
	assert.Equal(t, "rae@example.com", *lead.Email)
	assert.Equal(t, "quote", *lead.Intent)

	status, pc := adminGet(t, srv, "/provider-calls?call_id="+callID)
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, e.acct.PhoneNumber, pc["to"])
	assert.Equal(t, "Test Business", pc["variables"].(map[string]any)["business_name"])
	status, _ = adminGet(t, srv, "/provider-calls?call_id=nope")
	assert.Equal(t, http.StatusNotFound, status)
	status, body := adminGet(t, srv, "/provider-calls")
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, "bad_request", body["error"].(map[string]any)["code"])

	status, in := adminPost(t, srv, "/inbound-sms", map[string]any{"to": e.acct.PhoneNumber, "from": "+15556660032", "body": "hello"})
	require.Equal(t, http.StatusCreated, status, in)
	assert.Equal(t, "opted_in", in["consent"])
	assert.NotEmpty(t, in["lead_id"])
	assert.NotEmpty(t, in["message_id"])

	status, body = adminPost(t, srv, "/consent", map[string]any{"business_id": e.acct.BusinessID, "phone": "+15556660032", "status": "opted_out"})
	require.Equal(t, http.StatusOK, status, body)
	status, body = adminGet(t, srv, "/consent?business_id="+e.acct.BusinessID+"&phone=%2B15556660032")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "opted_out", body["status"])
	assert.Equal(t, false, body["on_dnc"])
	status, body = adminPost(t, srv, "/dnc", map[string]any{"phone": "+15556660032", "business_id": e.acct.BusinessID})
	require.Equal(t, http.StatusOK, status, body)
	assert.Equal(t, true, body["on_list"])
	_, body = adminGet(t, srv, "/consent?business_id="+e.acct.BusinessID+"&phone=%2B15556660032")
	assert.Equal(t, true, body["on_dnc"])
	status, _ = adminPost(t, srv, "/dnc", map[string]any{"phone": "+15556660032", "on_list": false})
	require.Equal(t, http.StatusOK, status)

	_, err = e.c.SMS.UpdatePrompt(ctx, &sms.UpdatePromptParams{AgentID: e.acct.AgentID, SMSPrompt: "Short.", Reason: voiceagent.String("r")})
	require.NoError(t, err)
	status, body = adminGet(t, srv, "/prompt-audit?agent_id="+e.acct.AgentID)
	require.Equal(t, http.StatusOK, status)
	entries := body["entries"].([]any)
	require.Len(t, entries, 1)
	assert.Equal(t, "Short.", entries[0].(map[string]any)["new_value"])

	rcv := make(chan struct{}, 1)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { rcv <- struct{}{} }))
	t.Cleanup(hs.Close)
	out, err := e.c.Calls.Create(ctx, &calls.CreateParams{AgentID: e.acct.AgentID, To: "+15005550002", WebhookURL: voiceagent.String(hs.URL)})
	require.NoError(t, err)
	_, err = adminAdvance(srv, 2*time.Second)
	require.NoError(t, err)
	status, body = adminGet(t, srv, "/deliveries?kind=call_webhook&call_id="+out.ID+"&status=succeeded&wait=10s")
	require.Equal(t, http.StatusOK, status)
	deliveries := body["deliveries"].([]any)
	require.Len(t, deliveries, 1)
	d := deliveries[0].(map[string]any)
	assert.Equal(t, "succeeded", d["status"])
	assert.Equal(t, "call.failed", d["event"])
	assert.Equal(t, "call_webhook", d["kind"])
	assert.Equal(t, out.ID, d["call_id"])
	assert.NotContains(t, d, "subscription_id")
	status, body = adminGet(t, srv, "/deliveries?kind=subscription&call_id="+out.ID)
	require.Equal(t, http.StatusOK, status)
	assert.Empty(t, body["deliveries"], "the kind filter")
	status, _ = adminGet(t, srv, "/deliveries?kind=sms")
	assert.Equal(t, http.StatusBadRequest, status)

	for path, bad := range map[string]map[string]any{
		"/inbound-call": {"to": e.acct.PhoneNumber},
		"/inbound-sms":  {"to": e.acct.PhoneNumber, "from": "+15556660033", "body": ""},
		"/dnc":          {"phone": "555"},
		"/consent":      {"business_id": e.acct.BusinessID, "phone": "+15556660033", "status": "maybe"},
	} {
		status, body := adminPost(t, srv, path, bad)
		assert.Equal(t, http.StatusBadRequest, status, path)
		assert.Equal(t, "invalid_request", body["error"].(map[string]any)["code"], path)
	}
	for path, unknown := range map[string]map[string]any{
		"/inbound-call": {"to": "+15550000000", "from": "+15556660033"},
		"/inbound-sms":  {"to": "+15550000000", "from": "+15556660033", "body": "x"},
		"/consent":      {"business_id": "00000000-0000-4000-8000-000000000000", "phone": "+15556660033", "status": "none"},
	} {
		status, _ := adminPost(t, srv, path, unknown)
		assert.Equal(t, http.StatusNotFound, status, path)
	}
	_, err = srv.InboundCall(InboundCall{To: e.acct.PhoneNumber, From: "nope"})
	assert.Error(t, err, "the Go helper validates like the route")
	_, err = srv.InboundSMS(InboundSMS{To: "+15550000000", From: "+15556660033", Body: "x"})
	assert.Error(t, err)
}

func adminAdvance(srv *TestServer, d time.Duration) (map[string]any, error) {
	raw, _ := json.Marshal(map[string]any{"seconds": d.Seconds()})
	resp, err := http.Post(srv.AdminURL+"/clock/advance", "application/json", bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var m map[string]any
	return m, json.NewDecoder(resp.Body).Decode(&m)
}
