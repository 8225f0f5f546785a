package calls_test

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/internal/wire"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// afternoonET is 12:00 in New York (the businesses' time zone): every
// test starts there so time_of_day is deterministic.
var afternoonET = time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)

func newEnv(t *testing.T, opts ...mockserver.Option) *testenv.Env {
	t.Helper()
	return testenv.New(t, append([]mockserver.Option{mockserver.WithStartTime(afternoonET)}, opts...)...)
}

// hit is one request a receiver got.
type hit struct {
	header http.Header
	body   []byte
}

// receiver is a webhook receiver on loopback that answers statusFor(n) to
// its n-th request (from 1) and hands every request to the test.
type receiver struct {
	url  string
	hits chan hit
}

func newReceiver(t *testing.T, statusFor func(n int) int) *receiver {
	t.Helper()
	r := &receiver{hits: make(chan hit, 32)}
	var n atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.hits <- hit{header: req.Header.Clone(), body: body}
		w.WriteHeader(statusFor(int(n.Add(1))))
	}))
	t.Cleanup(hs.Close)
	r.url = hs.URL + "/hook"
	return r
}

func (r *receiver) next(t *testing.T) hit {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	select {
	case h := <-r.hits:
		return h
	case <-ctx.Done():
		t.Fatal("no webhook arrived")
		return hit{}
	}
}

func always(status int) func(int) int { return func(int) int { return status } }

// waitAttempts waits until the mock recorded n attempts of the call's
// webhook delivery (its only one) in the delivery log.
func waitAttempts(t *testing.T, env *testenv.Env, callID string, n int) mockserver.Delivery {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ds := env.Server.WaitDeliveries(ctx, mockserver.DeliveryFilter{CallID: callID, MinAttempts: n}.Match)
	require.Len(t, ds, 1, "attempt %d was not recorded", n)
	require.Equal(t, mockserver.DeliveryKindCallWebhook, ds[0].Kind)
	return ds[0]
}

// callWebhook returns the call's webhook delivery (its only one).
func callWebhook(t *testing.T, env *testenv.Env, callID string) mockserver.Delivery {
	t.Helper()
	ds := env.Server.Deliveries(mockserver.DeliveryFilter{Kind: mockserver.DeliveryKindCallWebhook, CallID: callID})
	require.Len(t, ds, 1)
	return ds[0]
}

func TestCreateWithEveryFieldRunsTheLifecycleAndPostsTheWebhook(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	rcv := newReceiver(t, always(http.StatusOK))
	lead := inboundLead(t, env, "+15557770001", mockserver.Caller{Name: "Jane Doe", Email: "jane@example.com", Said: "I need a quote"})

	created, err := env.Client.Calls.Create(ctx, &calls.CreateParams{
		AgentID: env.Account.AgentID, To: "+15557770002", Name: voiceagent.String("Janet"),
		Context: voiceagent.String("the quote she asked for"), FirstMessage: voiceagent.String("Hello {{name}}, it's about your quote."),
		LeadID: voiceagent.String(lead), WebhookURL: voiceagent.String(rcv.url), MaxDuration: voiceagent.Int(900),
	})
	require.NoError(t, err)
	assert.Equal(t, calls.StatusQueued, created.Status)
	assert.Equal(t, env.Account.AgentID, created.AgentID)
	assert.Equal(t, "+15557770002", created.To)
	require.NotNil(t, created.Name)
	assert.Equal(t, "Janet", *created.Name)
	assert.True(t, strings.HasPrefix(created.ConversationID, "conv_"))
	assert.True(t, env.Server.Now().Equal(created.CreatedAt))

	// What the agent received: the request's name wins, the rest is the lead.
	pc, ok := env.Server.ProviderCall(created.ID)
	require.True(t, ok)
	assert.Equal(t, "Hello Janet, it's about your quote.", pc.FirstMessage)
	assert.Contains(t, pc.Prompt, "Context: the quote she asked for")
	assert.Equal(t, 900, pc.MaxDuration)
	assert.Equal(t, env.Account.PhoneNumber, pc.From)
	assert.Equal(t, map[string]any{
		"name": "Janet", "lead_score": 75.0, "lead_status": "new", "interaction_count": 1.0,
		"days_since_first_contact": 0.0, "lead_source": "inbound_call", "business_name": "Test Business",
		"business_phone": env.Account.PhoneNumber, "time_of_day": "afternoon",
	}, pc.Variables)

	c, err := env.Client.Calls.Get(ctx, created.ID)
	require.NoError(t, err)
	assert.Equal(t, calls.StatusQueued, c.Status)
	assert.Nil(t, c.Summary)
	assert.Nil(t, c.StartedAt)

	env.Server.Advance(2 * time.Second)
	c, err = env.Client.Calls.Get(ctx, created.ID)
	require.NoError(t, err)
	assert.Equal(t, calls.StatusInProgress, c.Status)
	require.NotNil(t, c.StartedAt)
	assert.True(t, created.CreatedAt.Add(2*time.Second).Equal(*c.StartedAt))

	env.Server.Advance(5 * time.Minute)
	c, err = env.Client.Calls.Get(ctx, created.ID)
	require.NoError(t, err)
	assert.Equal(t, calls.StatusCompleted, c.Status)
	assert.Equal(t, calls.DirectionOutbound, c.Direction)
	assert.GreaterOrEqual(t, c.Duration, 30)
	assert.LessOrEqual(t, c.Duration, 300)
	require.NotNil(t, c.EndedAt)
	assert.Equal(t, time.Duration(c.Duration)*time.Second, c.EndedAt.Sub(*c.StartedAt))
	require.NotNil(t, c.Summary)
	assert.Contains(t, *c.Summary, "Janet")
	require.NotNil(t, c.RecordingURL)
	assert.Equal(t, "https://recordings.voiceagent.example/"+c.ID+".mp3", *c.RecordingURL)
	require.NotNil(t, c.Transcript)
	lines := strings.Split(*c.Transcript, "\n")
	assert.Equal(t, "Agent: Hello Janet, it's about your quote.", lines[0])
	for _, l := range lines {
		assert.True(t, strings.HasPrefix(l, "Agent: ") || strings.HasPrefix(l, "Caller: "), l)
	}
	require.NotNil(t, c.QualityDimensions)
	for _, q := range []int{c.QualityDimensions.Professionalism, c.QualityDimensions.Empathy,
		c.QualityDimensions.InformationGathering, c.QualityDimensions.Resolution} {
		assert.True(t, q >= 1 && q <= 10, q)
	}
	assert.Equal(t, env.Account.BusinessID, c.BusinessID)
	assert.Equal(t, "Test Business Intake Agent", c.AgentName)
	require.NotNil(t, c.LeadID)
	assert.Equal(t, lead, *c.LeadID)
	assert.Equal(t, "completed", *c.EndedReason)
	assert.Equal(t, 900, c.MaxDuration)
	assert.Equal(t, "the quote she asked for", *c.Context)
	assert.Equal(t, env.Account.PhoneNumber, *c.From)

	h := rcv.next(t)
	assert.Equal(t, "application/json", h.header.Get("Content-Type"))
	assert.NotEmpty(t, h.header.Get("Webhook-Id"))
	assert.Equal(t, "call.completed", h.header.Get("X-Voiceagent-Event"))
	assert.Equal(t, "1", h.header.Get("X-Voiceagent-Attempt"))
	var body map[string]any
	require.NoError(t, json.Unmarshal(h.body, &body))
	assert.Equal(t, map[string]any{
		"event": "call.completed", "call_id": c.ID, "status": "completed", "duration": float64(c.Duration),
		"recording_url": *c.RecordingURL, "summary": *c.Summary, "timestamp": c.EndedAt.UTC().Format(wire.TimeLayout),
	}, body)
	ev, err := webhooks.ParseCallWebhook(h.body)
	require.NoError(t, err)
	assert.Equal(t, webhooks.EventCallCompleted, ev.Event)
	assert.Equal(t, c.ID, ev.CallID)
	assert.Empty(t, h.header.Get("Webhook-Signature"), "per-call webhooks are not signed")
	d := waitAttempts(t, env, c.ID, 1)
	assert.Equal(t, mockserver.DeliverySucceeded, d.Status)
	assert.Equal(t, h.header.Get("Webhook-Id"), d.MessageID)
	assert.Equal(t, d.ID, d.MessageID, "the webhook-id is the delivery's id")
	assert.Equal(t, c.ID, d.CallID)
	assert.Equal(t, string(h.body), d.Body)
	assert.Empty(t, d.SubscriptionID)
	logged, err := env.Client.Events.Get(ctx, d.EventID)
	require.NoError(t, err, "the delivery names the event of the log")
	assert.Equal(t, webhooks.EventCallCompleted, logged.Type)
	loggedCall, err := logged.Call()
	require.NoError(t, err)
	assert.Equal(t, c.ID, loggedCall.ID)

	// The completed outbound call counted as an interaction and contacted the lead.
	l, err := env.Client.Leads.Get(ctx, lead)
	require.NoError(t, err)
	assert.Equal(t, "contacted", string(l.Status))
	assert.Equal(t, 2, l.InteractionCount)
	inbound, err := env.Client.Calls.List(ctx, &calls.ListParams{Status: calls.StatusEnded})
	require.NoError(t, err)
	require.Len(t, inbound.Data, 1)
	assert.Equal(t, (c.Duration+59)/60+(inbound.Data[0].Duration+59)/60, env.Server.MinutesUsed(env.Account.BusinessID),
		"minutes count finished calls, each rounded up")
}

// inboundLead makes a caller ring the account's number, runs the call to
// its end and returns the lead it created.
func inboundLead(t *testing.T, env *testenv.Env, from string, caller mockserver.Caller) string {
	t.Helper()
	id, err := env.Server.InboundCall(mockserver.InboundCall{To: env.Account.PhoneNumber, From: from, Caller: caller})
	require.NoError(t, err)
	env.Server.Advance(6 * time.Minute)
	c, err := env.Client.Calls.Get(context.Background(), id)
	require.NoError(t, err)
	require.NotNil(t, c.LeadID)
	return *c.LeadID
}

func TestMaxDurationCapsTheCallAndTheAgentsDefaultApplies(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	c1, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15557770010", MaxDuration: voiceagent.Int(10)})
	require.NoError(t, err)
	_, err = env.Client.Agents.Update(ctx, &agents.UpdateParams{ID: env.Account.AgentID, MaxDuration: voiceagent.Int(20)})
	require.NoError(t, err)
	c2, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15557770010"})
	require.NoError(t, err)
	c3, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15557770010", MaxDuration: voiceagent.Int(600)})
	require.NoError(t, err)

	env.Server.Advance(2*time.Second + 10*time.Second)
	got, err := env.Client.Calls.Get(ctx, c1.ID)
	require.NoError(t, err)
	assert.Equal(t, calls.StatusCompleted, got.Status, "capped at 10 s")
	assert.Equal(t, 10, got.Duration)
	assert.Equal(t, "max_duration", *got.EndedReason)
	assert.Contains(t, *got.Transcript, "time limit")

	env.Server.Advance(10 * time.Minute)
	got, err = env.Client.Calls.Get(ctx, c2.ID)
	require.NoError(t, err)
	assert.Equal(t, 20, got.Duration, "the agent's max_duration is the default")
	assert.Equal(t, 20, got.MaxDuration)
	got3, err := env.Client.Calls.Get(ctx, c3.ID)
	require.NoError(t, err)
	assert.Greater(t, got3.Duration, 20, "the request's max_duration wins over the agent's")
	assert.Equal(t, "completed", *got3.EndedReason)
}

func TestDurationIsDerivedFromTheNumber(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	var ids []string
	for _, to := range []string{"+15557770020", "+15557770020", "+15557770021"} {
		c, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: to})
		require.NoError(t, err)
		ids = append(ids, c.ID)
	}
	env.Server.Advance(6 * time.Minute)
	var d []int
	for _, id := range ids {
		c, err := env.Client.Calls.Get(ctx, id)
		require.NoError(t, err)
		require.Equal(t, calls.StatusCompleted, c.Status)
		d = append(d, c.Duration)
	}
	assert.Equal(t, d[0], d[1], "the same number gives the same duration")
	assert.NotEqual(t, d[0], d[2])
}

func TestMagicNumbers(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	rcv := newReceiver(t, always(http.StatusNoContent))

	noAnswer, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15005550001", WebhookURL: voiceagent.String(rcv.url)})
	require.NoError(t, err)
	busy, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15005550002"})
	require.NoError(t, err)

	env.Server.Advance(2 * time.Second)
	c, err := env.Client.Calls.Get(ctx, busy.ID)
	require.NoError(t, err)
	assert.Equal(t, calls.StatusFailed, c.Status)
	require.NotNil(t, c.Error)
	assert.Equal(t, calls.ErrorBusy, *c.Error)
	assert.Equal(t, 0, c.Duration)
	assert.Nil(t, c.Transcript)
	assert.Nil(t, c.StartedAt)

	env.Server.Advance(27 * time.Second)
	c, err = env.Client.Calls.Get(ctx, noAnswer.ID)
	require.NoError(t, err)
	assert.Equal(t, calls.StatusQueued, c.Status, "still ringing at 29 s")
	env.Server.Advance(time.Second)
	c, err = env.Client.Calls.Get(ctx, noAnswer.ID)
	require.NoError(t, err)
	assert.Equal(t, calls.StatusFailed, c.Status)
	assert.Equal(t, calls.ErrorNoAnswer, *c.Error)

	h := rcv.next(t)
	var body map[string]any
	require.NoError(t, json.Unmarshal(h.body, &body))
	assert.Equal(t, map[string]any{
		"event": "call.failed", "call_id": noAnswer.ID, "status": "failed", "error": "no_answer",
		"timestamp": c.EndedAt.UTC().Format(wire.TimeLayout),
	}, body)
	assert.Equal(t, "call.failed", h.header.Get("X-Voiceagent-Event"))

	before, err := env.Client.Calls.List(ctx, nil)
	require.NoError(t, err)
	_, err = env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15005550003"})
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusInternalServerError, apiErr.StatusCode)
	assert.Equal(t, voiceagent.CodeCallFailed, apiErr.Code)
	assert.ErrorIs(t, err, voiceagent.ErrCallFailed)
	after, err := env.Client.Calls.List(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, after.Data, len(before.Data), "no record for a call that could not be placed")
}

func TestEnrichmentFromTheNumberCalledAndWithoutALead(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	lead := inboundLead(t, env, "+15557770030", mockserver.Caller{Said: "My name is Sam Lee, how much is a repair?"})
	env.Server.Advance(3 * 24 * time.Hour) // now 12:06 three days later: still afternoon

	byNumber, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15557770030"})
	require.NoError(t, err)
	require.NotNil(t, byNumber.Name)
	assert.Equal(t, "Sam Lee", *byNumber.Name, "the lead's name when the request gives none")
	pc, _ := env.Server.ProviderCall(byNumber.ID)
	assert.Equal(t, 3.0, pc.Variables["days_since_first_contact"])
	assert.Equal(t, "Sam Lee", pc.Variables["name"])
	assert.Equal(t, 60.0, pc.Variables["lead_score"], "10 + name 15 + phone 10 + one interaction 10 + quote 15")
	c, err := env.Client.Calls.Get(ctx, byNumber.ID)
	require.NoError(t, err)
	assert.Equal(t, lead, *c.LeadID, "a call to a lead's number is linked to it")
	assert.Contains(t, pc.FirstMessage, "Hi Sam Lee")

	stranger, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15557770031"})
	require.NoError(t, err)
	pc, _ = env.Server.ProviderCall(stranger.ID)
	assert.Equal(t, map[string]any{
		"business_name": "Test Business", "business_phone": env.Account.PhoneNumber, "time_of_day": "afternoon",
	}, pc.Variables)
	c, err = env.Client.Calls.Get(ctx, stranger.ID)
	require.NoError(t, err)
	assert.Nil(t, c.LeadID)
	assert.Nil(t, c.Name)

	env.Server.Advance(8 * time.Hour) // 20:06 New York
	evening, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15557770031"})
	require.NoError(t, err)
	pc, _ = env.Server.ProviderCall(evening.ID)
	assert.Equal(t, "evening", pc.Variables["time_of_day"])
	env.Server.Advance(14 * time.Hour) // 10:06
	morning, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15557770031"})
	require.NoError(t, err)
	pc, _ = env.Server.ProviderCall(morning.ID)
	assert.Equal(t, "morning", pc.Variables["time_of_day"])
}

func TestAliasesAndFieldsThroughRawJSON(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	var out map[string]any
	err := env.Client.Do(ctx, http.MethodPost, "/v1/calls", nil, map[string]any{
		"agent_id": env.Account.AgentID, "to": "+15557770040", "customer_name": "Pat", "first_message": "Yo {{name}}",
	}, &out)
	require.NoError(t, err)
	assert.Equal(t, "Pat", out["name"])
	assert.Equal(t, "queued", out["status"])
	assert.ElementsMatch(t, []string{"id", "conversation_id", "status", "agent_id", "to", "name", "created_at"}, slices.Collect(maps.Keys(out)))
	pc, _ := env.Server.ProviderCall(out["id"].(string))
	assert.Equal(t, "Yo Pat", pc.FirstMessage)
	assert.Equal(t, 600, pc.MaxDuration, "max_duration defaults to 600")

	for name, body := range map[string]map[string]any{
		"both names":          {"agent_id": env.Account.AgentID, "to": "+15557770040", "name": "a", "customer_name": "b"},
		"both first messages": {"agent_id": env.Account.AgentID, "to": "+15557770040", "firstMessage": "a", "first_message": "b"},
		"unknown field":       {"agent_id": env.Account.AgentID, "to": "+15557770040", "from": "+15550000000"},
		"max_duration 0":      {"agent_id": env.Account.AgentID, "to": "+15557770040", "max_duration": 0},
		"to not E.164":        {"agent_id": env.Account.AgentID, "to": "555-1234"},
		"lead_id not a uuid":  {"agent_id": env.Account.AgentID, "to": "+15557770040", "lead_id": "x"},
	} {
		err := env.Client.Do(ctx, http.MethodPost, "/v1/calls", nil, body, nil)
		assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest, name)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	otherLead := func() string {
		id, err := env.Server.InboundCall(mockserver.InboundCall{To: other.PhoneNumber, From: "+15557770050"})
		require.NoError(t, err)
		env.Server.Advance(6 * time.Minute)
		c, err := env.ClientFor(other.APIKey).Calls.Get(ctx, id)
		require.NoError(t, err)
		return *c.LeadID
	}()
	p := func(mod func(*calls.CreateParams)) *calls.CreateParams {
		cp := &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15557770051"}
		mod(cp)
		return cp
	}

	_, err := env.Client.Calls.Create(ctx, p(func(c *calls.CreateParams) { c.AgentID = other.AgentID }))
	assert.ErrorIs(t, err, voiceagent.ErrNotFound, "another business's agent")
	_, err = env.Client.Calls.Create(ctx, p(func(c *calls.CreateParams) { c.AgentID = "00000000-0000-4000-8000-000000000000" }))
	assert.ErrorIs(t, err, voiceagent.ErrNotFound, "unknown agent")
	_, err = env.Client.Calls.Create(ctx, p(func(c *calls.CreateParams) { c.LeadID = voiceagent.String(otherLead) }))
	assert.ErrorIs(t, err, voiceagent.ErrNotFound, "another business's lead")

	for _, u := range []string{"http://hooks.example.com/x", "https://hooks.example.com/x", "http://user:pw@127.0.0.1/x"} {
		_, err = env.Client.Calls.Create(ctx, p(func(c *calls.CreateParams) { c.WebhookURL = voiceagent.String(u) }))
		var apiErr *voiceagent.Error
		require.ErrorAs(t, err, &apiErr, u)
		assert.Equal(t, voiceagent.CodeInvalidRequest, apiErr.Code, u)
		require.NotEmpty(t, apiErr.Details, u)
		assert.Equal(t, "webhook_url", apiErr.Details[0].Path)
	}
	_, err = env.Client.Calls.Create(ctx, p(func(c *calls.CreateParams) { c.WebhookURL = voiceagent.String("https://localhost:1/hook") }))
	assert.NoError(t, err, "https on loopback is allowed")

	_, err = env.Client.Calls.Get(ctx, "nope")
	assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest, "a malformed id")
	_, err = env.Client.Calls.Get(ctx, "7c9e6679-7425-40de-944b-e07fc1f90ae7")
	assert.ErrorIs(t, err, voiceagent.ErrNotFound, "a well-formed id of no call")
	_, err = env.Client.Calls.Get(ctx, "")
	assert.ErrorIs(t, err, voiceagent.ErrEmptyID, "refused before sending")
	otherCall, err := env.ClientFor(other.APIKey).Calls.Create(ctx, &calls.CreateParams{AgentID: other.AgentID, To: "+15557770052"})
	require.NoError(t, err)
	_, err = env.Client.Calls.Get(ctx, otherCall.ID)
	assert.ErrorIs(t, err, voiceagent.ErrNotFound, "another tenant's call")

	readOnly := env.ClientFor(testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"calls:read"}}).APIKey)
	_, err = readOnly.Calls.Create(ctx, p(func(*calls.CreateParams) {}))
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	noRead := env.ClientFor(testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"calls:write"}}).APIKey)
	_, err = noRead.Calls.List(ctx, nil)
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	_, err = noRead.Calls.ListTranscripts(ctx, nil)
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)

	for _, q := range []*calls.ListParams{{Limit: 101}, {Limit: -1}, {After: "yesterday"}} {
		_, err = env.Client.Calls.List(ctx, q)
		assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest)
	}
	for _, q := range []*calls.TranscriptListParams{{Limit: 51}, {Days: 91}, {Days: -2}, {After: "x"}} {
		_, err = env.Client.Calls.ListTranscripts(ctx, q)
		assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest)
	}

	env.Server.AddFault(mockserver.FaultRule{Path: "/v1/calls", Method: "POST", Target: mockserver.FaultTargetVoiceProvider, Status: 502, Times: 1})
	_, err = env.Client.Calls.Create(ctx, p(func(*calls.CreateParams) {}))
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, voiceagent.CodeVendorError, apiErr.Code)
	assert.Equal(t, 502, apiErr.StatusCode)
}

func TestExternalWebhooksNeedTheOption(t *testing.T) {
	t.Parallel()
	create := func(env *testenv.Env, url string) error {
		_, err := env.Client.Calls.Create(context.Background(), &calls.CreateParams{
			AgentID: env.Account.AgentID, To: "+15557770060", WebhookURL: voiceagent.String(url),
		})
		return err
	}
	local := newEnv(t)
	for _, url := range []string{"https://hooks.example.com/x", "http://receiver:3000/hook"} {
		err := create(local, url)
		assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest, url)
		assert.ErrorContains(t, err, "-allow-external-webhooks", "the refusal says what would allow it")
	}
	assert.NoError(t, create(local, "http://127.0.0.1:9/hook"))

	// With the option: https and http receivers elsewhere (docker compose).
	ext := newEnv(t, mockserver.WithExternalWebhooks(true))
	assert.NoError(t, create(ext, "https://hooks.example.com/x"))
	assert.NoError(t, create(ext, "http://receiver:3000/hook"))
	err := create(ext, "ftp://receiver/hook")
	assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest)
	assert.ErrorContains(t, err, `the scheme must be https (or http), not "ftp"`)
}

func TestListFiltersAndFields(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	second, err := env.Client.Agents.Create(ctx, &agents.CreateParams{BusinessID: env.Account.BusinessID, Name: "Closer", SystemPrompt: "Close."})
	require.NoError(t, err)
	var mine []string
	for i := range 3 {
		c, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: "+1555777007" + string(rune('0'+i))})
		require.NoError(t, err)
		mine = append(mine, c.ID)
	}
	busy, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: second.ID, To: "+15005550002"})
	require.NoError(t, err)
	_, err = env.Server.InboundCall(mockserver.InboundCall{To: env.Account.PhoneNumber, From: "+15557770079"})
	require.NoError(t, err)
	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	_, err = env.ClientFor(other.APIKey).Calls.Create(ctx, &calls.CreateParams{AgentID: other.AgentID, To: "+15557770080"})
	require.NoError(t, err)
	env.Server.Advance(10 * time.Minute)

	all, err := env.Client.Calls.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, all.Data, 5, "another tenant's calls are not listed")
	assert.False(t, all.HasMore)
	inbound := all.Data[0]
	assert.Equal(t, calls.DirectionInbound, inbound.Direction, "newest first")
	assert.Equal(t, calls.StatusEnded, inbound.Status)
	require.NotNil(t, inbound.Summary)
	assert.Equal(t, busy.ID, all.Data[1].ID)
	assert.Equal(t, "Closer", all.Data[1].AgentName)
	assert.Nil(t, all.Data[1].Summary)
	for i, c := range all.Data[2:] {
		assert.Equal(t, mine[2-i], c.ID)
		assert.Equal(t, calls.DirectionOutbound, c.Direction)
		assert.NotEmpty(t, c.ConversationID)
		assert.Positive(t, c.Duration)
		assert.Nil(t, c.Transcript, "the list form has no transcript")
	}

	byAgent, err := env.Client.Calls.List(ctx, &calls.ListParams{AgentID: second.ID})
	require.NoError(t, err)
	require.Len(t, byAgent.Data, 1)
	assert.Equal(t, busy.ID, byAgent.Data[0].ID)
	byStatus, err := env.Client.Calls.List(ctx, &calls.ListParams{Status: calls.StatusCompleted})
	require.NoError(t, err)
	assert.Len(t, byStatus.Data, 3)
	ended, err := env.Client.Calls.List(ctx, &calls.ListParams{Status: calls.StatusEnded})
	require.NoError(t, err)
	assert.Len(t, ended.Data, 1)
	none, err := env.Client.Calls.List(ctx, &calls.ListParams{Status: "teleported"})
	require.NoError(t, err, "the status filter takes any string")
	assert.Empty(t, none.Data)

	page1, err := env.Client.Calls.List(ctx, &calls.ListParams{Limit: 2})
	require.NoError(t, err)
	require.Len(t, page1.Data, 2)
	assert.True(t, page1.HasMore)
	assert.Equal(t, voiceagent.Cursor(page1.Data[1].CreatedAt), page1.NextCursor)
	page2, err := env.Client.Calls.List(ctx, &calls.ListParams{Limit: 2, After: page1.NextCursor})
	require.NoError(t, err)
	require.Len(t, page2.Data, 2)
	assert.Equal(t, all.Data[2].ID, page2.Data[0].ID)
	page3, err := env.Client.Calls.List(ctx, &calls.ListParams{Limit: 2, After: page2.NextCursor})
	require.NoError(t, err)
	require.Len(t, page3.Data, 1)
	assert.False(t, page3.HasMore)

	_, err = env.Client.Calls.List(ctx, &calls.ListParams{BusinessID: other.BusinessID})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
}

func TestTranscripts(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	old, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15557770090"})
	require.NoError(t, err)
	env.Server.Advance(31 * 24 * time.Hour)
	done, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15557770091"})
	require.NoError(t, err)
	_, err = env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15005550002"}) // fails: no transcript
	require.NoError(t, err)
	env.Server.Advance(6 * time.Minute)
	running, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15557770092"})
	require.NoError(t, err)
	_ = running // queued: no transcript yet

	page, err := env.Client.Calls.ListTranscripts(ctx, nil)
	require.NoError(t, err)
	require.Len(t, page.Data, 1, "only finished calls within 30 days")
	tr := page.Data[0]
	assert.Equal(t, done.ID, tr.CallID)
	assert.Equal(t, done.ConversationID, tr.ConversationID)
	assert.Equal(t, env.Account.AgentID, tr.AgentID)
	assert.Equal(t, "Test Business Intake Agent", tr.AgentName)
	assert.Equal(t, calls.StatusCompleted, tr.Status)
	assert.Positive(t, tr.Duration)
	require.NotNil(t, tr.Summary)
	assert.True(t, strings.HasPrefix(tr.Transcript, "Agent: "))
	assert.Contains(t, tr.Transcript, "\nCaller: ")
	assert.Equal(t, done.CreatedAt, tr.CreatedAt)

	wide, err := env.Client.Calls.ListTranscripts(ctx, &calls.TranscriptListParams{Days: 90})
	require.NoError(t, err)
	require.Len(t, wide.Data, 2)
	assert.Equal(t, old.ID, wide.Data[1].CallID)
	for _, tr := range wide.Data { // each item shows its own call's summary
		c, err := env.Client.Calls.Get(ctx, tr.CallID)
		require.NoError(t, err)
		require.NotNil(t, c.Summary)
		require.NotNil(t, tr.Summary)
		assert.Equal(t, *c.Summary, *tr.Summary)
	}
	assert.NotEqual(t, *wide.Data[0].Summary, *wide.Data[1].Summary)
	byAgent, err := env.Client.Calls.ListTranscripts(ctx, &calls.TranscriptListParams{Days: 90, AgentID: "00000000-0000-4000-8000-000000000000"})
	require.NoError(t, err)
	assert.Empty(t, byAgent.Data)
	one, err := env.Client.Calls.ListTranscripts(ctx, &calls.TranscriptListParams{Days: 90, Limit: 1})
	require.NoError(t, err)
	assert.True(t, one.HasMore)
	two, err := env.Client.Calls.ListTranscripts(ctx, &calls.TranscriptListParams{Days: 90, Limit: 1, After: one.NextCursor})
	require.NoError(t, err)
	require.Len(t, two.Data, 1)
	assert.Equal(t, old.ID, two.Data[0].CallID)
	assert.False(t, two.HasMore)
}

func TestWebhookRetriesOnTheClockWithTheSameID(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	rcv := newReceiver(t, func(n int) int {
		if n <= 2 {
			return http.StatusServiceUnavailable
		}
		return http.StatusOK
	})
	c, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15005550002", WebhookURL: voiceagent.String(rcv.url)})
	require.NoError(t, err)
	env.Server.Advance(2 * time.Second)
	first := rcv.next(t)
	waitAttempts(t, env, c.ID, 1)

	env.Server.Advance(4 * time.Second)
	d := callWebhook(t, env, c.ID)
	assert.Len(t, d.Attempts, 1, "not yet: the retry is 5 s after the first attempt")
	require.NotNil(t, d.NextAttemptAt)
	assert.Equal(t, d.Attempts[0].At.Add(5*time.Second), *d.NextAttemptAt)
	env.Server.Advance(time.Second)
	second := rcv.next(t)
	waitAttempts(t, env, c.ID, 2)

	env.Server.Advance(5 * time.Minute)
	third := rcv.next(t)
	d = waitAttempts(t, env, c.ID, 3)
	assert.Equal(t, mockserver.DeliverySucceeded, d.Status)
	assert.Nil(t, d.NextAttemptAt)
	assert.Equal(t, []int{503, 503, 200}, []int{d.Attempts[0].StatusCode, d.Attempts[1].StatusCode, d.Attempts[2].StatusCode})
	for i, h := range []hit{first, second, third} {
		assert.Equal(t, d.MessageID, h.header.Get("Webhook-Id"), "the same webhook-id on every attempt")
		assert.Equal(t, string(rune('1'+i)), h.header.Get("X-Voiceagent-Attempt"))
		assert.JSONEq(t, string(first.body), string(h.body), "the same body on every attempt")
	}
	assert.Equal(t, afternoonET.Add(2*time.Second), d.Attempts[0].At)
	assert.Equal(t, d.Attempts[1].At.Add(5*time.Minute), d.Attempts[2].At)
}

func TestWebhookGivesUpAfterEightAttempts(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	rcv := newReceiver(t, always(http.StatusInternalServerError))
	c, err := env.Client.Calls.Create(context.Background(), &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15005550002", WebhookURL: voiceagent.String(rcv.url)})
	require.NoError(t, err)
	env.Server.Advance(2 * time.Second)
	schedule := mockserver.WebhookRetrySchedule()
	require.Len(t, schedule, 8)
	for n := 1; n <= len(schedule); n++ {
		rcv.next(t)
		waitAttempts(t, env, c.ID, n)
		if n < len(schedule) {
			env.Server.Advance(schedule[n])
		}
	}
	d := callWebhook(t, env, c.ID)
	assert.Equal(t, mockserver.DeliveryFailed, d.Status)
	assert.Len(t, d.Attempts, 8)
	assert.Nil(t, d.NextAttemptAt)
	env.Server.Advance(48 * time.Hour)
	assert.Len(t, callWebhook(t, env, c.ID).Attempts, 8, "no ninth attempt")
	assert.Equal(t, d.Attempts[0].At.Add(5*time.Second+5*time.Minute+30*time.Minute+2*time.Hour+5*time.Hour+20*time.Hour), d.Attempts[7].At)

	// A failed per-call webhook is replayable like any delivery: the same
	// webhook-id and body, to the call's webhook_url, on a fresh schedule.
	replay, err := env.Server.ReplayDelivery(d.ID)
	require.NoError(t, err)
	assert.Equal(t, d.ID, replay.ReplayOf)
	assert.Equal(t, d.MessageID, replay.MessageID)
	assert.Equal(t, mockserver.DeliveryKindCallWebhook, replay.Kind)
	assert.Equal(t, c.ID, replay.CallID)
	h := rcv.next(t)
	assert.Equal(t, d.MessageID, h.header.Get("Webhook-Id"))
	assert.Equal(t, "1", h.header.Get("X-Voiceagent-Attempt"))
	assert.Equal(t, d.Body, string(h.body))
}

func TestWebhookToAClosedReceiverRecordsTheError(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	hs := httptest.NewServer(http.NotFoundHandler())
	url := hs.URL + "/gone"
	hs.Close()
	c, err := env.Client.Calls.Create(context.Background(), &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15005550002", WebhookURL: voiceagent.String(url)})
	require.NoError(t, err)
	env.Server.Advance(2 * time.Second)
	d := waitAttempts(t, env, c.ID, 1)
	assert.Equal(t, 0, d.Attempts[0].StatusCode)
	assert.NotEmpty(t, d.Attempts[0].Error)
	assert.Equal(t, mockserver.DeliveryPending, d.Status)
}

func TestAllWalksCallsAndTranscriptsWhileNewOnesArrive(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	want := map[string]bool{}
	for i := range 7 {
		c, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: "+155577701" + string(rune('0'+i)) + "0"})
		require.NoError(t, err)
		want[c.ID] = true
	}
	env.Server.Advance(6 * time.Minute)

	seen := map[string]bool{}
	for c, err := range env.Client.Calls.All(ctx, &calls.ListParams{Limit: 2}) {
		require.NoError(t, err)
		require.False(t, seen[c.ID], "repeated %s", c.ID)
		seen[c.ID] = true
		// A new call arrives (and an old one finishes) mid-walk.
		_, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15557770199"})
		require.NoError(t, err)
	}
	assert.Equal(t, want, seen, "no gaps, no repeats, nothing newer than the walk's start")

	seen = map[string]bool{}
	for tr, err := range env.Client.Calls.AllTranscripts(ctx, &calls.TranscriptListParams{Limit: 3}) {
		require.NoError(t, err)
		require.False(t, seen[tr.CallID])
		seen[tr.CallID] = true
		_, err := env.Server.InboundCall(mockserver.InboundCall{To: env.Account.PhoneNumber, From: "+15557770198", Duration: 1})
		require.NoError(t, err)
		env.Server.Advance(5 * time.Second) // the new call finishes: a newer transcript
	}
	assert.Equal(t, want, seen)

	params := &calls.ListParams{Limit: 2}
	for range env.Client.Calls.All(ctx, params) {
		break
	}
	assert.Empty(t, params.After, "All does not change the caller's params")
}

func TestARetriedCreateWithTheSameKeyPlacesOneCall(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	p := &calls.CreateParams{AgentID: env.Account.AgentID, To: "+15557770300"}
	var resp *http.Response
	a, err := env.Client.Calls.Create(ctx, p, voiceagent.WithIdempotencyKey("call-once"))
	require.NoError(t, err)
	b, err := env.Client.Calls.Create(ctx, p, voiceagent.WithIdempotencyKey("call-once"), voiceagent.WithResponseInto(&resp))
	require.NoError(t, err)
	assert.Equal(t, a.ID, b.ID)
	assert.Equal(t, "true", resp.Header.Get("Idempotent-Replayed"))
	page, err := env.Client.Calls.List(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, page.Data, 1)
}
