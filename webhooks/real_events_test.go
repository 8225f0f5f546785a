package webhooks_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/events"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/internal/wire"
	"github.com/voiceagent/voiceagent-go/leads"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/sms"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// These tests drive real actions through the SDK (and the mock's telephony
// drivers) and receive what they emit on a receiver built on
// webhooks.NewHandler, checked also by the Standard Webhooks reference
// library.

func TestACompletedCallIsDeliveredSignedAndItsOwnWebhookUnsigned(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, mockserver.WithStartTime(daytime))
	ctx := context.Background()
	recv := newLiveReceiver(t, 0)
	sub := subscribe(t, env, &webhooks.UpsertParams{WebhookURL: recv.URL + "/hooks",
		Events: []webhooks.EventType{webhooks.EventCallStarted, webhooks.EventCallCompleted}})
	recv.arm(t, sub.Secret)

	created, err := env.Client.Calls.Create(ctx, &calls.CreateParams{
		AgentID: env.Account.AgentID, To: "+15557770002", Name: voiceagent.String("Janet"),
		Context: voiceagent.String("her quote"), WebhookURL: voiceagent.String(recv.URL + "/calls/token-123"),
	})
	require.NoError(t, err)

	env.Server.Advance(2 * time.Second)
	started := recv.event(t, webhooks.EventCallStarted)
	live, err := env.Client.Calls.Get(ctx, created.ID)
	require.NoError(t, err)
	cd, err := started.Call()
	require.NoError(t, err)
	assert.Equal(t, callData(live), *cd, "call.started carries the call as the API shows it then")
	assert.EqualValues(t, calls.StatusInProgress, cd.Status)
	assert.True(t, cd.EndedAt.IsZero())

	env.Server.Advance(5 * time.Minute)
	completed := recv.event(t, webhooks.EventCallCompleted)
	done, err := env.Client.Calls.Get(ctx, created.ID)
	require.NoError(t, err)
	require.Equal(t, calls.StatusCompleted, done.Status)
	cd, err = completed.Call()
	require.NoError(t, err)
	assert.Equal(t, callData(done), *cd)
	assertSameFields(t, completed, cd)
	assert.Equal(t, env.Account.BusinessID, completed.BusinessID)
	assert.Equal(t, *done.EndedAt, completed.Timestamp.UTC(), "the body's timestamp is the simulated time of the event")

	// The event log holds the same event, the same data.
	logged, err := env.Client.Events.Get(ctx, completed.ID)
	require.NoError(t, err)
	assert.JSONEq(t, string(logged.Data), string(completed.Data))

	// The call's own webhook reached the same handler, unsigned, in the
	// flat form of the spec.
	cw := recv.call(t)
	assert.Equal(t, webhooks.CallWebhook{
		ID: cw.ID, Event: webhooks.EventCallCompleted, CallID: created.ID, Status: string(calls.StatusCompleted),
		Duration: done.Duration, RecordingURL: *done.RecordingURL, Summary: *done.Summary, Timestamp: *done.EndedAt,
	}, *cw)

	// Two signed deliveries (the reference library agrees), one unsigned.
	assert.Equal(t, 2, recv.assertReferenceVerified(t))
	paths := map[string]int{}
	for _, r := range recv.got() {
		assert.Equal(t, http.StatusOK, r.Status)
		paths[r.Path]++
		if r.Path == "/calls/token-123" {
			assert.Empty(t, r.Header.Get(webhooks.HeaderSignature), "per-call webhooks are not signed")
			assert.Equal(t, cw.ID, r.Header.Get(webhooks.HeaderID))
		}
	}
	assert.Equal(t, map[string]int{"/hooks": 2, "/calls/token-123": 1}, paths)

	// One delivery log holds both; kind tells them apart.
	ds := waitDeliveries(t, env.Server, 2, mockserver.DeliveryFilter{EventID: completed.ID, Status: mockserver.DeliverySucceeded})
	kinds := map[mockserver.DeliveryKind]mockserver.Delivery{}
	for _, d := range ds {
		kinds[d.Kind] = d
	}
	require.Len(t, kinds, 2)
	assert.Equal(t, sub.ID, kinds[mockserver.DeliveryKindSubscription].SubscriptionID)
	assert.Equal(t, completed.ID, kinds[mockserver.DeliveryKindSubscription].MessageID, "a subscription's webhook-id is the event id")
	assert.Equal(t, created.ID, kinds[mockserver.DeliveryKindCallWebhook].CallID)
	assert.Equal(t, cw.ID, kinds[mockserver.DeliveryKindCallWebhook].MessageID)
	assert.Len(t, env.Server.Deliveries(mockserver.DeliveryFilter{Kind: mockserver.DeliveryKindCallWebhook, CallID: created.ID}), 1)
}

func TestAnInboundCallCreatesALeadDeliveredSigned(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, mockserver.WithStartTime(daytime))
	ctx := context.Background()
	recv, _ := liveSubscription(t, env, 0, webhooks.EventLeadCreated, webhooks.EventCallReceived,
		webhooks.EventCallCompleted, webhooks.EventConversationHandoff)
	_, err := env.Client.Agents.Update(ctx, &agents.UpdateParams{
		ID: env.Account.AgentID, TransferEnabled: voiceagent.Bool(true), TransferPhoneNumber: voiceagent.String("+15557779999"),
	})
	require.NoError(t, err)

	callID, err := env.Server.InboundCall(mockserver.InboundCall{
		To: env.Account.PhoneNumber, From: "+15557770101", Duration: 90,
		Caller: mockserver.Caller{Name: "Jane Doe", Email: "jane@example.com", Said: "Can I talk to a person about my order?"},
	})
	require.NoError(t, err)
	received := recv.event(t, webhooks.EventCallReceived)
	rc, err := received.Call()
	require.NoError(t, err)
	assert.Equal(t, callID, rc.ID)
	assert.Equal(t, "ringing", rc.Status)
	assert.Equal(t, calls.DirectionInbound, rc.Direction)

	env.Server.Advance(2*time.Second + 90*time.Second)
	created := recv.event(t, webhooks.EventLeadCreated)
	ld, err := created.Lead()
	require.NoError(t, err)
	lead, err := env.Client.Leads.Get(ctx, ld.ID)
	require.NoError(t, err)
	assert.Equal(t, leadData(lead), *ld, "lead.created carries the lead as the API shows it")
	assertSameFields(t, created, ld)
	assert.Equal(t, "Jane Doe", ld.Name)
	assert.Equal(t, "Jane", ld.FirstName)
	assert.Equal(t, "jane@example.com", ld.Email)
	assert.Equal(t, "+15557770101", ld.Phone)
	assert.EqualValues(t, leads.StatusNew, ld.Status)
	assert.Equal(t, "inbound_call", ld.Source)
	assert.Equal(t, "human", ld.Intent)
	assert.Equal(t, env.Account.AgentID, ld.AgentID)
	assert.Equal(t, 1, ld.InteractionCount)

	handoff := recv.event(t, webhooks.EventConversationHandoff)
	h, err := handoff.Handoff()
	require.NoError(t, err)
	assertSameFields(t, handoff, h)
	call, err := env.Client.Calls.Get(ctx, callID)
	require.NoError(t, err)
	assert.Equal(t, webhooks.HandoffData{
		CallID: callID, ConversationID: call.ConversationID, AgentID: env.Account.AgentID, LeadID: &ld.ID,
		From: "+15557770101", TransferTo: "+15557779999", Reason: h.Reason, Timestamp: *call.EndedAt,
	}, *h)
	assert.NotEmpty(t, h.Reason)
	_, err = handoff.Call()
	assert.ErrorIs(t, err, webhooks.ErrEventFamily)

	completed := recv.event(t, webhooks.EventCallCompleted)
	cd, err := completed.Call()
	require.NoError(t, err)
	assert.Equal(t, callData(call), *cd)
	assert.Equal(t, &ld.ID, cd.LeadID)
	assert.Equal(t, "transferred", cd.EndedReason)

	assert.Equal(t, 4, recv.assertReferenceVerified(t))
	assert.Len(t, recv.handled(), 4, "lead.scored and call.started are not subscribed")
}

func TestASentTextIsDeliveredSigned(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, mockserver.WithStartTime(daytime))
	ctx := context.Background()
	recv, _ := liveSubscription(t, env, 0, webhooks.EventSMSReceived, webhooks.EventSMSSent,
		webhooks.EventSMSDelivered, webhooks.EventSMSFailed)

	// The customer texts first: consent, a lead, sms.received.
	in, err := env.Server.InboundSMS(mockserver.InboundSMS{To: env.Account.PhoneNumber, From: "+15557770201", Body: "Do you deliver on Fridays?"})
	require.NoError(t, err)
	inbound, err := recv.event(t, webhooks.EventSMSReceived).Message()
	require.NoError(t, err)
	assert.Equal(t, in.MessageID, inbound.ID)
	assert.Equal(t, "inbound", inbound.Direction)
	assert.Equal(t, &in.LeadID, inbound.LeadID)

	sent, err := env.Client.SMS.Send(ctx, &sms.SendParams{To: "+15557770201", FromAgentID: env.Account.AgentID, Message: "Yes, every Friday!"})
	require.NoError(t, err)
	sentEv := recv.event(t, webhooks.EventSMSSent)
	md, err := sentEv.Message()
	require.NoError(t, err)
	assertSameFields(t, sentEv, md)
	assert.Equal(t, sent.ID, md.ID)
	assert.Equal(t, sent.MessageSID, md.MessageSID)
	assert.Equal(t, "sent", md.Status)
	assert.Equal(t, md.CreatedAt, md.UpdatedAt)

	env.Server.Advance(2 * time.Second)
	deliveredEv := recv.event(t, webhooks.EventSMSDelivered)
	dd, err := deliveredEv.Message()
	require.NoError(t, err)
	thread, err := env.Client.SMS.List(ctx, &sms.ListParams{LeadID: in.LeadID, Direction: "outbound"})
	require.NoError(t, err)
	require.Len(t, thread.Data, 1)
	assert.Equal(t, messageData(&thread.Data[0]), *dd, "sms.delivered carries the text as the API shows it")
	assert.Equal(t, "delivered", dd.Status)
	assert.Equal(t, daytime.Add(2*time.Second), dd.UpdatedAt)
	assert.Equal(t, &in.LeadID, dd.LeadID)
	assert.Equal(t, env.Account.PhoneNumber, dd.From)
	sentView := *dd
	sentView.Status, sentView.UpdatedAt = "sent", dd.CreatedAt
	assert.Equal(t, sentView, *md, "sms.sent was the same text before delivery")

	// The carrier refuses a text: sms.failed, with the error.
	_, err = env.Client.SMS.Send(ctx, &sms.SendParams{To: "+15005550012", FromAgentID: env.Account.AgentID, Message: "Hello"})
	require.Error(t, err)
	fd, err := recv.event(t, webhooks.EventSMSFailed).Message()
	require.NoError(t, err)
	assert.Equal(t, "failed", fd.Status)
	assert.NotEmpty(t, fd.Error)

	assert.Equal(t, 4, recv.assertReferenceVerified(t))
}

func TestAReceiverFailingTwiceGetsARealEventOnTheThirdAttempt(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, mockserver.WithStartTime(daytime))
	ctx := context.Background()
	recv, sub := liveSubscription(t, env, 2, webhooks.EventLeadCreated)

	in, err := env.Server.InboundSMS(mockserver.InboundSMS{To: env.Account.PhoneNumber, From: "+15557770301", Body: "Hi, I'm Ada. Can I book a table?"})
	require.NoError(t, err)
	f := mockserver.DeliveryFilter{SubscriptionID: sub.ID}
	d := waitDeliveries(t, env.Server, 1, mockserver.DeliveryFilter{SubscriptionID: sub.ID, MinAttempts: 1})[0]
	assert.Equal(t, mockserver.DeliveryPending, d.Status)
	assert.Equal(t, http.StatusInternalServerError, d.Attempts[0].StatusCode)

	env.Server.Advance(4 * time.Second)
	assert.Len(t, env.Server.Deliveries(f)[0].Attempts, 1, "the retry is due 5 s after the first attempt")
	env.Server.Advance(time.Second)
	assert.Len(t, env.Server.Deliveries(f)[0].Attempts, 2)
	assert.Empty(t, recv.handled(), "two failures: the handler has not run")
	env.Server.Advance(5 * time.Minute)

	ev := recv.event(t, webhooks.EventLeadCreated)
	d = env.Server.Deliveries(f)[0]
	assert.Equal(t, mockserver.DeliverySucceeded, d.Status)
	require.Len(t, d.Attempts, 3)
	assert.Equal(t, []int{500, 500, 200}, []int{d.Attempts[0].StatusCode, d.Attempts[1].StatusCode, d.Attempts[2].StatusCode})
	assert.Equal(t, d.CreatedAt.Add(5*time.Second+5*time.Minute), d.Attempts[2].At)

	got := recv.got()
	require.Len(t, got, 3)
	for i, r := range got {
		assert.Equal(t, ev.ID, r.Header.Get(webhooks.HeaderID), "the same webhook-id on every attempt")
		assert.Equal(t, strconv.Itoa(i+1), r.Header.Get(webhooks.HeaderAttempt))
		assert.Equal(t, got[0].Body, r.Body, "the same body on every attempt")
	}
	assert.Equal(t, 3, recv.assertReferenceVerified(t))
	assert.Len(t, recv.handled(), 1)
	ld, err := ev.Lead()
	require.NoError(t, err)
	assert.Equal(t, in.LeadID, ld.ID)
	assert.Equal(t, "Ada", ld.Name)
	assert.Equal(t, "sms", ld.Source)
	lead, err := env.Client.Leads.Get(ctx, in.LeadID)
	require.NoError(t, err)
	assert.Equal(t, leadData(lead), *ld, "the retried body is the lead as it was, which has not changed")
}

func TestTemplatesPresetsFormsAndHeadersArriveAsConfiguredOnRealEvents(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, mockserver.WithStartTime(daytime))
	ctx := context.Background()

	tplRecv, hubRecv, formRecv := newLiveReceiver(t, 0), newLiveReceiver(t, 0), newLiveReceiver(t, 0)
	tplSub := subscribe(t, env, &webhooks.UpsertParams{
		WebhookURL: tplRecv.URL + "/crm", Events: []webhooks.EventType{webhooks.EventLeadCreated}, HTTPMethod: http.MethodPut,
		PayloadTemplate: &webhooks.PayloadTemplate{Fields: map[string]webhooks.FieldSource{
			"contact.name":  webhooks.FieldPath("data.name"),
			"contact.email": webhooks.FieldPath("data.email"),
			"contact.phone": webhooks.FieldPath("data.missing|data.phone"),
			"lead.id":       webhooks.FieldPath("data.id"),
			"lead.score":    webhooks.FieldPath("data.score"),
			"lead.intent":   webhooks.FieldPath("data.intent"),
			"lead.zip":      webhooks.FieldPath("data.zip"),
			"kind":          webhooks.FieldPath("event"),
			"source":        webhooks.FieldValue("voiceagent"),
		}},
		CustomHeaders: map[string]*string{"Authorization": voiceagent.String("Bearer crm-token"), "X-Tenant": voiceagent.String("acme")},
	})
	tplRecv.arm(t, tplSub.Secret)
	hubSub := subscribe(t, env, &webhooks.UpsertParams{WebhookURL: hubRecv.URL, Events: []webhooks.EventType{webhooks.EventLeadCreated}, Preset: webhooks.PresetHubSpot})
	hubRecv.arm(t, hubSub.Secret)

	// A caller rings: lead.created, rendered by the template and the preset.
	_, err := env.Server.InboundCall(mockserver.InboundCall{To: env.Account.PhoneNumber, From: "+15557770401", Duration: 60,
		Caller: mockserver.Caller{Name: "Ada Lovelace", Email: "ada@example.com", Said: "How much is a quote for a kitchen?"}})
	require.NoError(t, err)
	env.Server.Advance(2*time.Second + time.Minute)

	raw := tplRecv.raw(t, 1)
	page, err := env.Client.Leads.List(ctx, &leads.ListParams{Phone: "+15557770401"})
	require.NoError(t, err)
	require.Len(t, page.Data, 1)
	lead, err := env.Client.Leads.Get(ctx, page.Data[0].ID)
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"contact": {"name": "Ada Lovelace", "email": "ada@example.com", "phone": "+15557770401"},
		"lead": {"id": "`+lead.ID+`", "score": `+strconv.Itoa(lead.Score)+`, "intent": "quote", "zip": null},
		"kind": "lead.created", "source": "voiceagent"
	}`, string(raw.Body))
	assert.True(t, raw.Info.Verified, "templated bodies are signed")
	assert.Equal(t, webhooks.EventLeadCreated, raw.Info.EventType)
	r := tplRecv.got()[0]
	assert.Equal(t, http.MethodPut, r.Method)
	assert.Equal(t, "/crm", r.Path)
	assert.Equal(t, "Bearer crm-token", r.Header.Get("Authorization"))
	assert.Equal(t, "acme", r.Header.Get("X-Tenant"))
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))
	tplRecv.assertReferenceVerified(t)

	var hub struct {
		Properties map[string]any `json:"properties"`
	}
	hubRaw := hubRecv.raw(t, 1)
	require.NoError(t, json.Unmarshal(hubRaw.Body, &hub))
	assert.Equal(t, map[string]any{
		"email": "ada@example.com", "firstname": "Ada", "lastname": "Lovelace", "phone": "+15557770401",
		"lifecyclestage": "lead", "hs_lead_status": "NEW", "voiceagent_event": "lead.created",
		"voiceagent_event_id": hubRaw.Info.ID, "voiceagent_summary": "How much is a quote for a kitchen?",
		"voiceagent_record_id": lead.ID,
	}, hub.Properties)
	hubRecv.assertReferenceVerified(t)

	// An outbound call completes: call.completed as a form, by the generic
	// CRM preset, with PATCH.
	formSub := subscribe(t, env, &webhooks.UpsertParams{WebhookURL: formRecv.URL, Events: []webhooks.EventType{webhooks.EventCallCompleted},
		Preset: webhooks.PresetGenericCRM, BodyFormat: webhooks.BodyFormatForm, HTTPMethod: http.MethodPatch})
	formRecv.arm(t, formSub.Secret)
	created, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15557770402", Name: voiceagent.String("Grace")})
	require.NoError(t, err)
	env.Server.Advance(2*time.Second + 5*time.Minute)
	formRaw := formRecv.raw(t, 1)
	call, err := env.Client.Calls.Get(ctx, created.ID)
	require.NoError(t, err)
	form, err := url.ParseQuery(string(formRaw.Body))
	require.NoError(t, err)
	assert.Equal(t, url.Values{
		"event": {"call.completed"}, "event_id": {formRaw.Info.ID}, "occurred_at": {call.EndedAt.UTC().Format(wire.TimeLayout)},
		"business_id": {env.Account.BusinessID}, "record.id": {call.ID}, "record.status": {"completed"},
		"contact.name": {"Grace"}, "contact.first_name": {""}, "contact.last_name": {""}, "contact.email": {""},
		"contact.phone": {"+15557770402"}, "activity.summary": {*call.Summary},
		"activity.duration_seconds": {strconv.Itoa(call.Duration)}, "activity.recording_url": {*call.RecordingURL},
		"source": {"voiceagent"},
	}, form)
	fr := formRecv.got()[0]
	assert.Equal(t, http.MethodPatch, fr.Method)
	assert.Equal(t, "application/x-www-form-urlencoded", fr.Header.Get("Content-Type"))
	assert.True(t, formRaw.Info.Verified)
	assert.Equal(t, 1, formRecv.assertReferenceVerified(t), "the signature covers the form body")
}

func TestReplayReDeliversARealEvent(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, mockserver.WithStartTime(daytime))
	ctx := context.Background()
	recv, _ := liveSubscription(t, env, 0, webhooks.EventLeadCreated)

	in, err := env.Server.InboundSMS(mockserver.InboundSMS{To: env.Account.PhoneNumber, From: "+15557770501", Body: "Hi, this is Grace Hopper"})
	require.NoError(t, err)
	ev := recv.event(t, webhooks.EventLeadCreated)
	waitDeliveries(t, env.Server, 1, mockserver.DeliveryFilter{EventID: ev.ID, Status: mockserver.DeliverySucceeded})

	// The lead moves on; a replay still carries the event as it happened.
	_, err = env.Client.Leads.Update(ctx, &leads.UpdateParams{ID: in.LeadID, Status: voiceagent.Ptr(leads.StatusQualified)})
	require.NoError(t, err)
	res, err := env.Client.Events.Replay(ctx, &events.ReplayParams{EventIDs: []string{ev.ID}})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Events)
	require.Len(t, res.DeliveryIDs, 1)
	ds := waitDeliveries(t, env.Server, 2, mockserver.DeliveryFilter{EventID: ev.ID, Status: mockserver.DeliverySucceeded})
	assert.Equal(t, res.DeliveryIDs[0], ds[1].ID)

	got := recv.got()
	require.Len(t, got, 2)
	assert.Equal(t, ev.ID, got[1].Header.Get(webhooks.HeaderID), "a replay keeps the event's webhook-id")
	assert.Equal(t, got[0].Body, got[1].Body, "and its body")
	assert.Equal(t, 2, recv.assertReferenceVerified(t))
	assert.Len(t, recv.handled(), 1, "the handler deduplicated the replay")
	assert.Contains(t, string(got[1].Body), `"status":"new"`)

	// A subscription created since gets the replayed event too (a window
	// of the log, one type): its handler runs once, with the original data.
	late, _ := liveSubscription(t, env, 0, webhooks.EventLeadCreated)
	since := daytime.Add(-time.Minute)
	res, err = env.Client.Events.Replay(ctx, &events.ReplayParams{Since: &since, Types: []webhooks.EventType{webhooks.EventLeadCreated}})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Events)
	assert.Equal(t, 2, res.Deliveries, "both active subscriptions listing lead.created")
	lateEv := late.event(t, webhooks.EventLeadCreated)
	assert.Equal(t, ev.ID, lateEv.ID)
	assert.JSONEq(t, string(ev.Data), string(lateEv.Data))
	ld, err := lateEv.Lead()
	require.NoError(t, err)
	assert.EqualValues(t, leads.StatusNew, ld.Status)
	assert.Equal(t, 1, late.assertReferenceVerified(t))
	waitDeliveries(t, env.Server, 4, mockserver.DeliveryFilter{EventID: ev.ID, Status: mockserver.DeliverySucceeded})
	assert.Len(t, recv.handled(), 1, "still once")
}
