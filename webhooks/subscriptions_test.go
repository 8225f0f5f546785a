package webhooks_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/events"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
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
		Events: []webhooks.EventType{webhooks.EventLeadCreated}, Description: voiceagent.String("CRM sync"),
	})
	require.NoError(t, err)
	assert.Empty(t, up.Secret)
	assert.Equal(t, "https://hooks.example.com/v2", up.WebhookURL)
	assert.Equal(t, []webhooks.EventType{webhooks.EventLeadCreated}, up.Events)
	require.NotNil(t, up.Description)
	assert.Equal(t, "CRM sync", *up.Description)
	assert.Equal(t, sub.CreatedAt, up.CreatedAt)

	// An explicit null clears the description; unsent fields stay.
	clear := &webhooks.UpsertParams{ID: sub.ID, BusinessID: sub.BusinessID, WebhookURL: up.WebhookURL}
	clear.SetNull("description")
	up, err = env.Client.Webhooks.Upsert(ctx, clear)
	require.NoError(t, err)
	assert.Nil(t, up.Description)
	assert.Equal(t, []webhooks.EventType{webhooks.EventLeadCreated}, up.Events)

	del, err := env.Client.Webhooks.Delete(ctx, sub.ID)
	require.NoError(t, err)
	assert.Equal(t, &webhooks.Deleted{Success: true, ID: sub.ID}, del)
	_, err = env.Client.Webhooks.Get(ctx, sub.ID)
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
	assert.ErrorIs(t, errOf(env.Client.Webhooks.Delete(ctx, sub.ID)), voiceagent.ErrNotFound)
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
		assert.Equal(t, string(ev.Type), r.Header.Get(webhooks.HeaderEvent))
		assert.Equal(t, "1", r.Header.Get(webhooks.HeaderAttempt))
		assert.Equal(t, env.Account.BusinessID, ev.BusinessID)
		ts, err := strconv.ParseInt(r.Header.Get(webhooks.HeaderTimestamp), 10, 64)
		require.NoError(t, err)
		assert.InDelta(t, time.Now().Unix(), ts, 60, "webhook-timestamp is the wall-clock time of the attempt")
		assert.Equal(t, start, ev.Timestamp.UTC(), "the body's timestamp is the simulated time of the event")
		types[string(ev.Type)] = true
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
	sub := subscribe(t, env, &webhooks.UpsertParams{WebhookURL: recv.URL, Events: []webhooks.EventType{webhooks.EventLeadCreated}})

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

	// A succeeded delivery is replayable too: the same message once more, a
	// duplicate by its webhook-id for the receiver's deduplication.
	again, err := env.Server.ReplayDelivery(done.ID)
	require.NoError(t, err)
	assert.Equal(t, done.ID, again.ReplayOf)
	got = recv.wait(t, 10)
	assert.Equal(t, got[0].Body, got[9].Body)
	assert.Equal(t, evID, got[9].Header.Get(webhooks.HeaderID))
	_, err = env.Server.ReplayDelivery("nope")
	assert.ErrorIs(t, err, mockserver.ErrDeliveryNotFound)
}

func TestTemplatesFormBodiesMethodsAndCustomHeadersArriveAsConfigured(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	recv := newReceiver(t)
	sub := subscribe(t, env, &webhooks.UpsertParams{
		WebhookURL: recv.URL + "/crm",
		Events:     []webhooks.EventType{webhooks.EventLeadCreated},
		HTTPMethod: http.MethodPut,
		PayloadTemplate: &webhooks.PayloadTemplate{Fields: map[string]webhooks.FieldSource{
			"contact.email": webhooks.FieldPath("data.lead.email|data.email"),
			"contact.name":  webhooks.FieldPath("data.name"),
			"contact.phone": webhooks.FieldPath("data.missing|data.phones.1"),
			"kind":          webhooks.FieldPath("event"),
			"nothing":       webhooks.FieldPath("data.absent"),
			"source":        webhooks.FieldValue("voiceagent"),
			"score":         webhooks.FieldValue(42.5),
			"vip":           webhooks.FieldValue(true),
			"empty":         webhooks.FieldValue(nil),
		}},
		CustomHeaders: map[string]*string{"Authorization": voiceagent.String("Bearer crm-token"), "x-tenant": voiceagent.String("acme")},
	})
	assert.Nil(t, sub.Preset)
	assert.Equal(t, []string{"Authorization", "X-Tenant"}, sub.HeaderNames(), "names are canonical")
	for _, v := range sub.CustomHeaders {
		assert.Nil(t, v, "values are never returned")
	}

	_, err := env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventLeadCreated, map[string]any{
		"name": "Ada Lovelace", "email": "ada@example.com", "phones": []string{"+15550000001", "+15550000002"},
	})
	require.NoError(t, err)
	r := recv.wait(t, 1)[0]
	assert.Equal(t, http.MethodPut, r.Method)
	assert.Equal(t, "Bearer crm-token", r.Header.Get("Authorization"))
	assert.Equal(t, "acme", r.Header.Get("X-Tenant"))
	require.NoError(t, webhooks.Verify(r.Body, r.Header, []string{sub.Secret}), "templated bodies are signed too")
	assert.JSONEq(t, `{
		"contact": {"email": "ada@example.com", "name": "Ada Lovelace", "phone": "+15550000002"},
		"kind": "lead.created", "nothing": null, "source": "voiceagent", "score": 42.5, "vip": true, "empty": null
	}`, string(r.Body))

	// The delivery log never shows a custom header's value.
	d := waitDeliveries(t, env.Server, 1, mockserver.DeliveryFilter{SubscriptionID: sub.ID, Status: mockserver.DeliverySucceeded})[0]
	assert.Equal(t, "[redacted]", d.Attempts[0].RequestHeaders["Authorization"])
	logJSON, _ := json.Marshal(d)
	assert.NotContains(t, string(logJSON), "crm-token")

	// Form bodies: nested names are dotted keys, null is empty. A null
	// header value keeps the saved value; unsent headers are dropped.
	up := &webhooks.UpsertParams{
		ID: sub.ID, BusinessID: sub.BusinessID, WebhookURL: sub.WebhookURL, BodyFormat: webhooks.BodyFormatForm,
		HTTPMethod: http.MethodPatch, CustomHeaders: map[string]*string{"authorization": nil},
	}
	sub2, err := env.Client.Webhooks.Upsert(ctx, up)
	require.NoError(t, err)
	assert.Equal(t, []string{"Authorization"}, sub2.HeaderNames())
	_, err = env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventLeadCreated, map[string]any{"name": "Grace", "lead": map[string]any{"email": "grace@example.com"}})
	require.NoError(t, err)
	r = recv.wait(t, 2)[1]
	assert.Equal(t, http.MethodPatch, r.Method)
	assert.Equal(t, "application/x-www-form-urlencoded", r.Header.Get("Content-Type"))
	assert.Equal(t, "Bearer crm-token", r.Header.Get("Authorization"), "null kept the saved value")
	assert.Empty(t, r.Header.Get("X-Tenant"))
	require.NoError(t, webhooks.Verify(r.Body, r.Header, []string{sub.Secret}), "the signature covers the form body")
	form, err := url.ParseQuery(string(r.Body))
	require.NoError(t, err)
	assert.Equal(t, url.Values{
		"contact.email": {"grace@example.com"}, "contact.name": {"Grace"}, "contact.phone": {""},
		"kind": {"lead.created"}, "nothing": {""}, "source": {"voiceagent"}, "score": {"42.5"}, "vip": {"true"}, "empty": {""},
	}, form)

	// null template: back to the standard body, here as a form.
	std := &webhooks.UpsertParams{ID: sub.ID, BusinessID: sub.BusinessID, WebhookURL: sub.WebhookURL}
	std.SetNull("payload_template", "custom_headers")
	sub3, err := env.Client.Webhooks.Upsert(ctx, std)
	require.NoError(t, err)
	assert.Nil(t, sub3.PayloadTemplate)
	assert.Empty(t, sub3.CustomHeaders)
	evID, err := env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventLeadCreated, map[string]any{"name": "Linus", "tags": []string{"a"}})
	require.NoError(t, err)
	r = recv.wait(t, 3)[2]
	form, err = url.ParseQuery(string(r.Body))
	require.NoError(t, err)
	assert.Equal(t, evID, form.Get("id"))
	assert.Equal(t, "lead.created", form.Get("event"))
	assert.Equal(t, env.Account.BusinessID, form.Get("business_id"))
	assert.Equal(t, "Linus", form.Get("data.name"))
	assert.Equal(t, "a", form.Get("data.tags.0"))
	assert.Empty(t, r.Header.Get("Authorization"))
}

func TestPresetsExpandToAnEditableTemplate(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	recv := newReceiver(t)
	for _, preset := range []string{webhooks.PresetGenericCRM, webhooks.PresetHubSpot, webhooks.PresetSalesforce,
		webhooks.PresetPipedrive, webhooks.PresetZohoCRM, webhooks.PresetGoHighLevel} {
		sub := subscribe(t, env, &webhooks.UpsertParams{WebhookURL: "https://crm.example.com", Preset: preset})
		require.NotNil(t, sub.Preset, preset)
		assert.Equal(t, preset, *sub.Preset)
		require.NotNil(t, sub.PayloadTemplate, preset)
		assert.NotEmpty(t, sub.PayloadTemplate.Fields, preset)
	}

	sub := subscribe(t, env, &webhooks.UpsertParams{WebhookURL: recv.URL, Preset: webhooks.PresetHubSpot, Events: []webhooks.EventType{webhooks.EventLeadCreated}})
	_, err := env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventLeadCreated, map[string]any{
		"first_name": "Ada", "last_name": "Lovelace", "email": "ada@example.com", "phone": "+15550001111",
	})
	require.NoError(t, err)
	var body struct {
		Properties map[string]any `json:"properties"`
	}
	require.NoError(t, json.Unmarshal(recv.wait(t, 1)[0].Body, &body))
	assert.Equal(t, "ada@example.com", body.Properties["email"])
	assert.Equal(t, "Ada", body.Properties["firstname"])
	assert.Equal(t, "Lovelace", body.Properties["lastname"])
	assert.Equal(t, "+15550001111", body.Properties["phone"])
	assert.Equal(t, "lead", body.Properties["lifecyclestage"])
	assert.Equal(t, "lead.created", body.Properties["voiceagent_event"])

	// Edit the expanded map and send it back: it is now a plain template.
	tpl := sub.PayloadTemplate
	tpl.Fields["properties.company"] = webhooks.FieldValue("Analytical Engines")
	delete(tpl.Fields, "properties.phone")
	edited, err := env.Client.Webhooks.Upsert(ctx, &webhooks.UpsertParams{
		ID: sub.ID, BusinessID: sub.BusinessID, WebhookURL: sub.WebhookURL, PayloadTemplate: tpl,
		Preset: webhooks.PresetSalesforce, // ignored: a template is sent
	})
	require.NoError(t, err)
	assert.Nil(t, edited.Preset)
	assert.Equal(t, tpl.Fields, edited.PayloadTemplate.Fields)
	_, err = env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventLeadCreated, map[string]any{"email": "b@example.com", "phone": "+1"})
	require.NoError(t, err)
	body.Properties = nil
	require.NoError(t, json.Unmarshal(recv.wait(t, 2)[1].Body, &body))
	assert.Equal(t, "Analytical Engines", body.Properties["company"])
	assert.NotContains(t, body.Properties, "phone")
}

// rawPost sends a JSON body with the account's key and returns the status
// and decoded answer.
func rawPost(t *testing.T, env *testenv.Env, key, path, body string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, env.Server.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := env.HTTPClient().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return resp.StatusCode, out
}

func TestUpsertRejectsBadInput(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	biz := env.Account.BusinessID
	many := map[string]any{}
	for i := range 101 {
		many["f"+strconv.Itoa(i)] = "id"
	}
	manyJSON, _ := json.Marshal(many)
	headers := map[string]any{}
	for i := range 21 {
		headers["X-H"+strconv.Itoa(i)] = "v"
	}
	headersJSON, _ := json.Marshal(headers)
	for name, body := range map[string]string{
		"missing url":             `{"business_id":"` + biz + `"}`,
		"http outside loopback":   `{"business_id":"` + biz + `","webhook_url":"http://example.com/x"}`,
		"not a url":               `{"business_id":"` + biz + `","webhook_url":"hooks"}`,
		"unknown event":           `{"business_id":"` + biz + `","webhook_url":"https://a.example","events":["lead.deleted"]}`,
		"duplicate events":        `{"business_id":"` + biz + `","webhook_url":"https://a.example","events":["lead.created","lead.created"]}`,
		"empty events":            `{"business_id":"` + biz + `","webhook_url":"https://a.example","events":[]}`,
		"unknown preset":          `{"business_id":"` + biz + `","webhook_url":"https://a.example","preset":"crmx"}`,
		"bad method":              `{"business_id":"` + biz + `","webhook_url":"https://a.example","http_method":"GET"}`,
		"bad format":              `{"business_id":"` + biz + `","webhook_url":"https://a.example","body_format":"xml"}`,
		"unknown property":        `{"business_id":"` + biz + `","webhook_url":"https://a.example","secret":"x"}`,
		"101 fields":              `{"business_id":"` + biz + `","webhook_url":"https://a.example","payload_template":{"fields":` + string(manyJSON) + `}}`,
		"template without fields": `{"business_id":"` + biz + `","webhook_url":"https://a.example","payload_template":{}}`,
		"constant object":         `{"business_id":"` + biz + `","webhook_url":"https://a.example","payload_template":{"fields":{"a":{"value":{"x":1}}}}}`,
		"empty path segment":      `{"business_id":"` + biz + `","webhook_url":"https://a.example","payload_template":{"fields":{"a":"data..email"}}}`,
		"empty alternative":       `{"business_id":"` + biz + `","webhook_url":"https://a.example","payload_template":{"fields":{"a":"data.email|"}}}`,
		"empty name segment":      `{"business_id":"` + biz + `","webhook_url":"https://a.example","payload_template":{"fields":{"a..b":"id"}}}`,
		"leaf and object":         `{"business_id":"` + biz + `","webhook_url":"https://a.example","payload_template":{"fields":{"a":"id","a.b":"event"}}}`,
		"21 headers":              `{"business_id":"` + biz + `","webhook_url":"https://a.example","custom_headers":` + string(headersJSON) + `}`,
		"content-type header":     `{"business_id":"` + biz + `","webhook_url":"https://a.example","custom_headers":{"content-type":"text/plain"}}`,
		"host header":             `{"business_id":"` + biz + `","webhook_url":"https://a.example","custom_headers":{"Host":"x"}}`,
		"content-length header":   `{"business_id":"` + biz + `","webhook_url":"https://a.example","custom_headers":{"Content-Length":"1"}}`,
		"brand header":            `{"business_id":"` + biz + `","webhook_url":"https://a.example","custom_headers":{"X-Voiceagent-Event":"x"}}`,
		"webhook- header":         `{"business_id":"` + biz + `","webhook_url":"https://a.example","custom_headers":{"Webhook-Signature":"x"}}`,
		"header name not token":   `{"business_id":"` + biz + `","webhook_url":"https://a.example","custom_headers":{"X A":"x"}}`,
		"header value newline":    `{"business_id":"` + biz + `","webhook_url":"https://a.example","custom_headers":{"X-A":"a\r\nB: c"}}`,
		"same header twice":       `{"business_id":"` + biz + `","webhook_url":"https://a.example","custom_headers":{"X-A":"1","x-a":"2"}}`,
		"null with no value":      `{"business_id":"` + biz + `","webhook_url":"https://a.example","custom_headers":{"X-A":null}}`,
		"not json":                `{"business_id":`,
	} {
		status, out := rawPost(t, env, env.Account.APIKey, "/v1/webhooks", body)
		assert.Equal(t, http.StatusBadRequest, status, name)
		errObj, _ := out["error"].(map[string]any)
		assert.Equal(t, "invalid_request", errObj["code"], name)
	}
	page, err := env.Client.Webhooks.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, page.Data, "no bad input created a subscription")
}

func TestUpsertAccessRules(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	sub := subscribe(t, env, &webhooks.UpsertParams{WebhookURL: "https://a.example"})
	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	oc := env.ClientFor(other.APIKey)

	_, err := oc.Webhooks.Get(ctx, sub.ID)
	assert.ErrorIs(t, err, voiceagent.ErrNotFound, "another tenant's subscription is not visible")
	assert.ErrorIs(t, errOf(oc.Webhooks.Delete(ctx, sub.ID)), voiceagent.ErrNotFound)
	_, err = oc.Webhooks.Upsert(ctx, &webhooks.UpsertParams{ID: sub.ID, BusinessID: other.BusinessID, WebhookURL: "https://evil.example"})
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
	_, err = oc.Webhooks.RotateSecret(ctx, &webhooks.RotateSecretParams{ID: sub.ID})
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
	_, err = env.Client.Webhooks.Upsert(ctx, &webhooks.UpsertParams{BusinessID: other.BusinessID, WebhookURL: "https://a.example"})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)

	// A subscription cannot move to another business.
	second, err := env.Server.NewAccount(mockserver.AccountOptions{Email: "second@example.com"})
	require.NoError(t, err)
	_, err = env.ClientFor(second.APIKey).Webhooks.Upsert(ctx, &webhooks.UpsertParams{ID: sub.ID, BusinessID: second.BusinessID, WebhookURL: "https://a.example"})
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)

	// Same user, two businesses: the key reaches both, the subscription
	// still cannot move.
	one, err := env.Server.NewAccount(mockserver.AccountOptions{Email: "two-businesses@example.com"})
	require.NoError(t, err)
	two, err := env.Server.NewAccount(mockserver.AccountOptions{Email: "two-businesses@example.com"})
	require.NoError(t, err)
	both := env.ClientFor(one.APIKey)
	s1, err := both.Webhooks.Upsert(ctx, &webhooks.UpsertParams{BusinessID: one.BusinessID, WebhookURL: "https://a.example"})
	require.NoError(t, err)
	_, err = both.Webhooks.Upsert(ctx, &webhooks.UpsertParams{ID: s1.ID, BusinessID: two.BusinessID, WebhookURL: "https://a.example"})
	var moved *voiceagent.Error
	require.ErrorAs(t, err, &moved)
	assert.Equal(t, voiceagent.CodeInvalidRequest, moved.Code)
	require.NotEmpty(t, moved.Details)
	assert.Equal(t, "/business_id", moved.Details[0].Path)
	mine, err := both.Webhooks.List(ctx, &webhooks.ListParams{BusinessID: two.BusinessID})
	require.NoError(t, err)
	assert.Empty(t, mine.Data)

	_, err = env.Client.Webhooks.Upsert(ctx, &webhooks.UpsertParams{ID: "7c8f5a56-34a4-4c5e-9a9e-0b7cbb2f6f3e", BusinessID: env.Account.BusinessID, WebhookURL: "https://a.example"})
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)

	readOnly := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{voiceagent.ScopeWebhooksRead}})
	rc := env.ClientFor(readOnly.APIKey)
	_, err = rc.Webhooks.List(ctx, nil)
	require.NoError(t, err)
	_, err = rc.Webhooks.Upsert(ctx, &webhooks.UpsertParams{BusinessID: readOnly.BusinessID, WebhookURL: "https://a.example"})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	assert.ErrorIs(t, errOf(rc.Webhooks.Delete(ctx, sub.ID)), voiceagent.ErrForbidden)
	_, err = rc.Webhooks.RotateSecret(ctx, &webhooks.RotateSecretParams{ID: sub.ID})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	noScope := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{voiceagent.ScopeAgentsRead}})
	_, err = env.ClientFor(noScope.APIKey).Webhooks.List(ctx, nil)
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)

	assert.ErrorIs(t, errOf(env.Client.Webhooks.Delete(ctx, "")), voiceagent.ErrEmptyID, "the SDK refuses an empty id before sending")
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, env.Server.URL+"/v1/webhooks?id=", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+env.Account.APIKey)
	res, err := env.HTTPClient().Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	var body struct {
		Error struct{ Code string } `json:"error"`
	}
	require.NoError(t, json.NewDecoder(res.Body).Decode(&body))
	assert.Equal(t, http.StatusBadRequest, res.StatusCode, "DELETE with an empty id over raw HTTP")
	assert.Equal(t, voiceagent.CodeBadRequest, body.Error.Code, "%+v", body)
}

func TestSecretsAndHeaderValuesNeverAppearInAnswers(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	var first *http.Response
	sub, err := env.Client.Webhooks.Upsert(ctx, &webhooks.UpsertParams{
		BusinessID: env.Account.BusinessID, WebhookURL: "https://a.example",
		CustomHeaders: map[string]*string{"X-Api-Key": voiceagent.String("hdr-value-123")},
	}, voiceagent.WithResponseInto(&first))
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, first.StatusCode)

	for _, path := range []string{"/v1/webhooks", "/v1/webhooks?id=" + sub.ID} {
		var raw json.RawMessage
		require.NoError(t, env.Client.Do(ctx, http.MethodGet, path, nil, nil, &raw))
		assert.NotContains(t, string(raw), sub.Secret, path)
		assert.NotContains(t, string(raw), strings.TrimPrefix(sub.Secret, "whsec_"), path)
		assert.NotContains(t, string(raw), "hdr-value-123", path)
		assert.Contains(t, string(raw), "X-Api-Key", path)
	}
	var raw json.RawMessage
	require.NoError(t, env.Client.Do(ctx, http.MethodPost, "/v1/webhooks", nil,
		map[string]any{"id": sub.ID, "business_id": sub.BusinessID, "webhook_url": "https://b.example"}, &raw))
	assert.NotContains(t, string(raw), "hdr-value-123")
	assert.NotContains(t, string(raw), sub.Secret)
	assert.NotContains(t, string(raw), `"secret"`)
}

func TestRotationSignsWithBothSecretsDuringTheGracePeriod(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	recv := newReceiver(t)
	sub := subscribe(t, env, &webhooks.UpsertParams{WebhookURL: recv.URL})
	oldSecret := sub.Secret

	rot, err := env.Client.Webhooks.RotateSecret(ctx, &webhooks.RotateSecretParams{ID: sub.ID, GracePeriodSeconds: voiceagent.Int(3600)})
	require.NoError(t, err)
	require.NotEmpty(t, rot.Secret)
	assert.NotEqual(t, oldSecret, rot.Secret)
	require.Len(t, rot.PreviousSecrets, 1)
	assert.Equal(t, env.Server.Now().Add(time.Hour), rot.PreviousSecrets[0].ExpiresAt)
	got, err := env.Client.Webhooks.Get(ctx, sub.ID)
	require.NoError(t, err)
	assert.Empty(t, got.Secret)
	assert.Len(t, got.PreviousSecrets, 1)

	_, err = env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventCallCompleted, map[string]any{"id": "c1"})
	require.NoError(t, err)
	r := recv.wait(t, 1)[0]
	assert.Len(t, strings.Fields(r.Header.Get(webhooks.HeaderSignature)), 2, "both secrets sign during the grace period")
	require.NoError(t, webhooks.Verify(r.Body, r.Header, []string{oldSecret}), "receivers still on the old secret pass")
	require.NoError(t, webhooks.Verify(r.Body, r.Header, []string{rot.Secret}), "receivers on the new secret pass")
	ref, err := standardwebhooks.NewWebhook(oldSecret)
	require.NoError(t, err)
	require.NoError(t, ref.Verify(r.Body, r.Header))

	env.Server.Advance(time.Hour)
	_, err = env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventCallCompleted, map[string]any{"id": "c2"})
	require.NoError(t, err)
	r = recv.wait(t, 2)[1]
	assert.Len(t, strings.Fields(r.Header.Get(webhooks.HeaderSignature)), 1, "the old secret expired")
	assert.ErrorIs(t, webhooks.Verify(r.Body, r.Header, []string{oldSecret}), webhooks.ErrInvalidSignature)
	require.NoError(t, webhooks.Verify(r.Body, r.Header, []string{rot.Secret}))
	got, err = env.Client.Webhooks.Get(ctx, sub.ID)
	require.NoError(t, err)
	assert.Empty(t, got.PreviousSecrets)

	// Grace 0 retires the old secret at once.
	rot2, err := env.Client.Webhooks.RotateSecret(ctx, &webhooks.RotateSecretParams{ID: sub.ID, GracePeriodSeconds: voiceagent.Int(0)})
	require.NoError(t, err)
	assert.Empty(t, rot2.PreviousSecrets)
	_, err = env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventCallCompleted, nil)
	require.NoError(t, err)
	r = recv.wait(t, 3)[2]
	assert.Len(t, strings.Fields(r.Header.Get(webhooks.HeaderSignature)), 1)
	require.NoError(t, webhooks.Verify(r.Body, r.Header, []string{rot2.Secret}))
	assert.ErrorIs(t, webhooks.Verify(r.Body, r.Header, []string{rot.Secret}), webhooks.ErrInvalidSignature)

	status, _ := rawPost(t, env, env.Account.APIKey, "/v1/webhooks/rotate-secret", `{"id":"`+sub.ID+`","grace_period_seconds":604801}`)
	assert.Equal(t, http.StatusBadRequest, status)
}

func TestDeactivatingOrDeletingCancelsPendingDeliveries(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	recv := newReceiver(t, 500, 500, 500, 500)
	sub := subscribe(t, env, &webhooks.UpsertParams{WebhookURL: recv.URL})
	ev1, err := env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventSMSDelivered, nil)
	require.NoError(t, err)
	waitDeliveries(t, env.Server, 1, mockserver.DeliveryFilter{EventID: ev1, MinAttempts: 1})

	_, err = env.Client.Webhooks.Upsert(ctx, &webhooks.UpsertParams{ID: sub.ID, BusinessID: sub.BusinessID, WebhookURL: sub.WebhookURL, IsActive: voiceagent.Bool(false)})
	require.NoError(t, err)
	d := env.Server.Deliveries(mockserver.DeliveryFilter{EventID: ev1})[0]
	assert.Equal(t, mockserver.DeliveryCanceled, d.Status)
	assert.Equal(t, "the subscription was deactivated", d.Reason)
	env.Server.Advance(time.Hour)
	assert.Len(t, recv.all(), 1, "no retry after deactivation")

	// An inactive subscription gets nothing; reactivated, new events flow.
	_, err = env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventSMSDelivered, nil)
	require.NoError(t, err)
	assert.Len(t, env.Server.Deliveries(mockserver.DeliveryFilter{SubscriptionID: sub.ID}), 1)
	_, err = env.Client.Webhooks.Upsert(ctx, &webhooks.UpsertParams{ID: sub.ID, BusinessID: sub.BusinessID, WebhookURL: sub.WebhookURL, IsActive: voiceagent.Bool(true)})
	require.NoError(t, err)
	ev3, err := env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventSMSDelivered, nil)
	require.NoError(t, err)
	waitDeliveries(t, env.Server, 1, mockserver.DeliveryFilter{EventID: ev3, MinAttempts: 1})

	// A canceled delivery is replayable once the subscription is active.
	replay, err := env.Server.ReplayDelivery(d.ID)
	require.NoError(t, err)
	assert.Equal(t, ev1, replay.EventID)
	// The replay's first attempt is posted in the background: wait for it,
	// so that the count below is taken after it.
	waitDeliveries(t, env.Server, 2, mockserver.DeliveryFilter{EventID: ev1, MinAttempts: 1})

	require.NoError(t, errOf(env.Client.Webhooks.Delete(ctx, sub.ID)))
	for _, d := range env.Server.Deliveries(mockserver.DeliveryFilter{SubscriptionID: sub.ID, Status: mockserver.DeliveryPending}) {
		t.Errorf("delivery %s still pending after the delete", d.ID)
	}
	canceled := env.Server.Deliveries(mockserver.DeliveryFilter{SubscriptionID: sub.ID, Status: mockserver.DeliveryCanceled})
	require.NotEmpty(t, canceled)
	assert.Equal(t, "the subscription was deleted", canceled[len(canceled)-1].Reason)
	_, err = env.Server.ReplayDelivery(canceled[len(canceled)-1].ID)
	assert.ErrorIs(t, err, mockserver.ErrDeliveryNotReplayable, "no subscription to deliver to")
	before := len(recv.all())
	env.Server.Advance(48 * time.Hour)
	assert.Len(t, recv.all(), before, "no attempt after the delete")
}

func TestEventsGoOnlyToSubscriptionsOfTheirBusinessAndType(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	leadsOnly := newReceiver(t)
	everything := newReceiver(t)
	otherTenant := newReceiver(t)
	subscribe(t, env, &webhooks.UpsertParams{WebhookURL: leadsOnly.URL, Events: []webhooks.EventType{webhooks.EventLeadCreated, webhooks.EventLeadScored}})
	subscribe(t, env, &webhooks.UpsertParams{WebhookURL: everything.URL})
	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	_, err := env.ClientFor(other.APIKey).Webhooks.Upsert(context.Background(), &webhooks.UpsertParams{BusinessID: other.BusinessID, WebhookURL: otherTenant.URL})
	require.NoError(t, err)

	for _, typ := range []webhooks.EventType{webhooks.EventLeadCreated, webhooks.EventCallStarted, webhooks.EventLeadScored} {
		_, err := env.Server.EmitEvent(env.Account.BusinessID, typ, nil)
		require.NoError(t, err)
	}
	waitDeliveries(t, env.Server, 5, mockserver.DeliveryFilter{BusinessID: env.Account.BusinessID, Status: mockserver.DeliverySucceeded})
	var types []string
	for _, r := range leadsOnly.all() {
		types = append(types, r.Header.Get(webhooks.HeaderEvent))
	}
	assert.ElementsMatch(t, []string{string(webhooks.EventLeadCreated), string(webhooks.EventLeadScored)}, types)
	assert.Len(t, everything.all(), 3)
	assert.Empty(t, otherTenant.all())
}

func TestTheMockCallsOnlyLoopbackReceivers(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	sub := subscribe(t, env, &webhooks.UpsertParams{WebhookURL: "https://hooks.example.com/x"})
	evID, err := env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventWorkspacePaused, nil)
	require.NoError(t, err)
	d := waitDeliveries(t, env.Server, 1, mockserver.DeliveryFilter{EventID: evID, MinAttempts: 1})[0]
	assert.Equal(t, sub.ID, d.SubscriptionID)
	assert.Equal(t, 0, d.Attempts[0].StatusCode)
	assert.Contains(t, d.Attempts[0].Error, "loopback", "refused without connecting")
	assert.Equal(t, mockserver.DeliveryFailed, d.Status, "failed at once: no retry could reach it")
	assert.Equal(t, d.Attempts[0].Error, d.Reason)
	assert.Nil(t, d.NextAttemptAt)
}

func TestHTTPSReceiversOnLoopbackAndTimeouts(t *testing.T) {
	t.Parallel()
	// The timeout is long enough for a TLS handshake on a loaded machine
	// (the race detector makes it slow), and the slow receiver outlasts it.
	env := testenv.New(t, mockserver.WithWebhookTimeout(2*time.Second))
	tlsRecv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(tlsRecv.Close)
	release := make(chan struct{})
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); slow.Close() })

	tlsSub := subscribe(t, env, &webhooks.UpsertParams{WebhookURL: tlsRecv.URL, Events: []webhooks.EventType{webhooks.EventCallReceived}})
	slowSub := subscribe(t, env, &webhooks.UpsertParams{WebhookURL: slow.URL, Events: []webhooks.EventType{webhooks.EventCallReceived}})
	_, err := env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventCallReceived, nil)
	require.NoError(t, err)
	ok := waitDeliveries(t, env.Server, 1, mockserver.DeliveryFilter{SubscriptionID: tlsSub.ID, Status: mockserver.DeliverySucceeded})[0]
	assert.Equal(t, http.StatusNoContent, ok.Attempts[0].StatusCode, "any 2xx succeeds")
	timedOut := waitDeliveries(t, env.Server, 1, mockserver.DeliveryFilter{SubscriptionID: slowSub.ID, MinAttempts: 1})[0]
	assert.Contains(t, strings.ToLower(timedOut.Attempts[0].Error), "timeout")
	assert.Zero(t, timedOut.Attempts[0].StatusCode)
	assert.Equal(t, mockserver.DeliveryPending, timedOut.Status)
}

func TestARedirectIsAFailedAttempt(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	target := newReceiver(t)
	redirect := httptest.NewServer(http.RedirectHandler(target.URL, http.StatusTemporaryRedirect))
	t.Cleanup(redirect.Close)
	subscribe(t, env, &webhooks.UpsertParams{WebhookURL: redirect.URL})
	evID, err := env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventLeadCreated, nil)
	require.NoError(t, err)
	d := waitDeliveries(t, env.Server, 1, mockserver.DeliveryFilter{EventID: evID, MinAttempts: 1})[0]
	assert.Equal(t, http.StatusTemporaryRedirect, d.Attempts[0].StatusCode)
	assert.Equal(t, mockserver.DeliveryPending, d.Status)
	assert.Empty(t, target.all(), "redirects are not followed")
}

func TestTheDeliveryLogIsARingBuffer(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, mockserver.WithDeliveryLogSize(3))
	recv := newReceiver(t)
	subscribe(t, env, &webhooks.UpsertParams{WebhookURL: recv.URL})
	var ids []string
	for range 5 {
		id, err := env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventLeadScored, nil)
		require.NoError(t, err)
		ids = append(ids, id)
	}
	recv.wait(t, 5)
	ds := env.Server.Deliveries(mockserver.DeliveryFilter{})
	require.Len(t, ds, 3)
	assert.Equal(t, ids[2:], []string{ds[0].EventID, ds[1].EventID, ds[2].EventID}, "the oldest are dropped")
}

func TestTheWebhooksHandlerReceivesVerifiesAndDeduplicates(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	var mu sync.Mutex
	var handled []*webhooks.Event
	// The Handler needs the secret, which the create answer gives: mount it
	// behind a switchable handler.
	var h http.Handler = http.NotFoundHandler()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		cur := h
		mu.Unlock()
		cur.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	sub := subscribe(t, env, &webhooks.UpsertParams{WebhookURL: srv.URL + "/hooks", Events: []webhooks.EventType{webhooks.EventLeadCreated}})
	wh, err := webhooks.NewHandler(webhooks.WithSecrets(sub.Secret))
	require.NoError(t, err)
	wh.On(webhooks.EventLeadCreated, func(ctx context.Context, e *webhooks.Event) error {
		mu.Lock()
		defer mu.Unlock()
		handled = append(handled, e)
		return nil
	})
	mu.Lock()
	h = wh
	mu.Unlock()

	evID, err := env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventLeadCreated, map[string]any{"name": "Ada"})
	require.NoError(t, err)
	waitDeliveries(t, env.Server, 1, mockserver.DeliveryFilter{EventID: evID, Status: mockserver.DeliverySucceeded})

	// A replay arrives with the same webhook-id: the Handler answers 200
	// without running the handler again.
	res, err := env.Client.Events.Replay(ctx, &events.ReplayParams{EventIDs: []string{evID}})
	require.NoError(t, err)
	require.Equal(t, 1, res.Deliveries)
	waitDeliveries(t, env.Server, 2, mockserver.DeliveryFilter{EventID: evID, Status: mockserver.DeliverySucceeded})
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, handled, 1, "deduplicated by webhook-id")
	assert.Equal(t, evID, handled[0].ID)
	var data struct {
		Name string `json:"name"`
	}
	require.NoError(t, handled[0].DecodeData(&data))
	assert.Equal(t, "Ada", data.Name)
}

// BenchmarkDeliveryRoundTrip measures events signed and delivered to a
// loopback receiver: emit, render, sign, post, verify at the receiver,
// record. It counts at the receiver (the delivery log is a ring that may
// hold fewer than b.N) and reports events/s: events verified per second of
// the whole run, from the first emit to the last verified delivery.
func BenchmarkDeliveryRoundTrip(b *testing.B) {
	env := testenv.New(b)
	var secret atomic.Value
	secret.Store("")
	var verified, rejected atomic.Int64
	all := make(chan struct{})
	var want atomic.Int64
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if webhooks.Verify(body, r.Header, []string{secret.Load().(string)}) != nil {
			rejected.Add(1)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if verified.Add(1) == want.Load() {
			close(all)
		}
	}))
	b.Cleanup(recv.Close)
	sub, err := env.Client.Webhooks.Upsert(context.Background(), &webhooks.UpsertParams{
		BusinessID: env.Account.BusinessID, WebhookURL: recv.URL, Events: []webhooks.EventType{webhooks.EventLeadCreated},
	})
	require.NoError(b, err)
	secret.Store(sub.Secret)
	data := map[string]any{"id": "l1", "name": "Ada Lovelace", "email": "ada@example.com"}
	want.Store(int64(b.N))
	b.ReportAllocs()
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		if _, err := env.Server.EmitEvent(env.Account.BusinessID, webhooks.EventLeadCreated, data); err != nil {
			b.Fatal(err)
		}
	}
	select {
	case <-all:
	case <-time.After(time.Minute):
		b.Fatalf("%d of %d deliveries verified (%d rejected) after a minute", verified.Load(), b.N, rejected.Load())
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "events/s")
	if n := rejected.Load(); n > 0 {
		b.Fatalf("%d deliveries failed verification", n)
	}
}

func TestARetriedCreateReturnsTheSameSubscriptionAndSecret(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	p := &webhooks.UpsertParams{BusinessID: env.Account.BusinessID, WebhookURL: "https://a.example"}
	first, err := env.Client.Webhooks.Upsert(ctx, p, voiceagent.WithIdempotencyKey("create-hook-1"))
	require.NoError(t, err)
	var resp *http.Response
	again, err := env.Client.Webhooks.Upsert(ctx, p, voiceagent.WithIdempotencyKey("create-hook-1"), voiceagent.WithResponseInto(&resp))
	require.NoError(t, err)
	assert.Equal(t, "true", resp.Header.Get(voiceagent.HeaderIdempotentReplay))
	assert.Equal(t, first.ID, again.ID)
	assert.Equal(t, first.Secret, again.Secret)
	page, err := env.Client.Webhooks.List(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, page.Data, 1, "one subscription")
}

// errOf returns the error of a call that answers a value and an error.
func errOf[T any](_ T, err error) error { return err }
