package runs_test

import (
	"context"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/catalog"
	"github.com/voiceagent/voiceagent-go/events"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/runs"
)

var t0 = time.Date(2026, 6, 5, 14, 0, 0, 0, time.UTC)

func newEnv(t *testing.T) *testenv.Env {
	t.Helper()
	return testenv.New(t, mockserver.WithStartTime(t0))
}

func touch(id string, ch runs.Channel, phone string, at time.Duration) runs.TouchParams {
	p := runs.TouchParams{TouchID: id, Channel: ch, Target: runs.Target{Phone: phone}, ScheduledAt: t0.Add(at)}
	if ch == runs.ChannelSMS {
		p.Message = voiceagent.String("Hello from the run")
	}
	return p
}

// touchEvents returns the types of the business's events (oldest first)
// whose data carries the run's external_ref and the touch id, read through
// the event log as a partner would.
func touchEvents(t *testing.T, env *testenv.Env, externalRef, touchID string) []string {
	t.Helper()
	var types []string
	for _, ev := range refEvents(t, env, externalRef, touchID) {
		types = append(types, string(ev.Type))
	}
	return types
}

func refEvents(t *testing.T, env *testenv.Env, externalRef, touchID string) []*events.Event {
	t.Helper()
	var out []*events.Event
	for ev, err := range env.Client.Events.All(context.Background(), &events.ListParams{BusinessID: env.Account.BusinessID, Limit: 100}) {
		require.NoError(t, err)
		var ref struct{ voiceagent.TouchRef }
		if len(ev.Data) > 0 {
			require.NoError(t, ev.DecodeData(&ref))
		}
		if ref.ExternalRef == externalRef && ref.TouchID == touchID {
			out = append(out, ev)
		}
	}
	slices.Reverse(out) // the log is newest first
	return out
}

func findEvent(t *testing.T, env *testenv.Env, typ, externalRef, touchID string) *events.Event {
	t.Helper()
	for _, ev := range refEvents(t, env, externalRef, touchID) {
		if string(ev.Type) == typ {
			return ev
		}
	}
	return nil
}

func withTimezone(p runs.TouchParams, tz string) runs.TouchParams {
	p.Target.Timezone = &tz
	return p
}

func requireAPIError(t *testing.T, err error, status int, code string) *voiceagent.Error {
	t.Helper()
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, status, apiErr.StatusCode, apiErr.Message)
	assert.Equal(t, code, apiErr.Code, apiErr.Message)
	return apiErr
}

type errorBody struct {
	Error voiceagent.Error `json:"error"`
}

// rawPost posts a raw body with the account's key and no Idempotency-Key.
func rawPost(t *testing.T, env *testenv.Env, path, body string) (int, errorBody) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, env.Server.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+env.Account.APIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := env.HTTPClient().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out errorBody
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return resp.StatusCode, out
}

func detailPaths(errs []voiceagent.ErrorDetail) []string {
	var out []string
	for _, d := range errs {
		out = append(out, d.Path)
	}
	return out
}

// TestRunTouchesFireAsTheClockAdvances is the main story: a run of calls
// and texts whose touches happen on the clock, each in its window, through
// the call simulator and the SMS compliance path, with events partners
// match back by external_ref and touch_id.
func TestRunTouchesFireAsTheClockAdvances(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	biz := env.Account.BusinessID
	_, err := env.Client.Knowledge.Create(ctx, &catalog.KnowledgeCreateParams{BusinessID: biz, Title: "Opening hours",
		Content: "We are open Monday to Friday, 8am to 6pm. Closed on holidays.", ContentType: "faq", Tags: []string{"hours"}})
	require.NoError(t, err)
	require.NoError(t, env.Server.SetConsent(biz, "+15551230002", "opted_in"))

	callT := touch("t-call", runs.ChannelCall, "+15551230001", 10*time.Minute)
	callT.Target.Name = voiceagent.String("Jane")
	callT.Context = map[string]any{"question": "What are your opening hours on Friday?"}
	callT.Metadata = map[string]any{"crm_task": "T-1"}
	smsT := touch("t-sms", runs.ChannelSMS, "+15551230002", 20*time.Minute)
	smsT.SMSCategory = voiceagent.String("follow_up")
	windowT := touch("t-window", runs.ChannelCall, "+15005550001", 5*time.Minute) // nobody answers
	windowT.TimingWindow = &runs.TimingWindow{NotBefore: voiceagent.Time(t0.Add(30 * time.Minute)), NotAfter: voiceagent.Time(t0.Add(2 * time.Hour))}
	dncT := touch("t-dnc", runs.ChannelSMS, "+15005550010", 15*time.Minute) // on the do-not-call list

	const ref = "campaign-42"
	run, err := env.Client.Runs.Create(ctx, &runs.CreateParams{
		BusinessID: biz, ExternalRef: ref, Metadata: map[string]any{"campaign": "spring"},
		Touches: []runs.TouchParams{callT, smsT, windowT, dncT},
	})
	require.NoError(t, err)
	assert.Equal(t, runs.StatusScheduled, run.Status)
	assert.Equal(t, env.Account.PhoneNumber, run.FromNumber, "default sending number: the agent's")
	assert.Equal(t, env.Account.AgentID, run.AgentID, "default agent: the intake agent")
	assert.Equal(t, t0.Add(30*time.Minute), run.Touch("t-window").ExecuteAt, "moved to not_before")
	assert.Equal(t, 4, run.TouchCounts[runs.StatusScheduled])
	for _, tc := range run.Touches {
		assert.Equal(t, runs.StatusScheduled, tc.Status)
	}

	get := func() *runs.Run {
		r, err := env.Client.Runs.Get(ctx, run.ID)
		require.NoError(t, err)
		return r
	}

	env.Server.Advance(10*time.Minute - time.Second)
	assert.Equal(t, runs.StatusScheduled, get().Touch("t-call").Status, "not yet due")

	env.Server.Advance(time.Second) // 14:10: the call touch is due
	r := get()
	assert.Equal(t, runs.StatusRunning, r.Status)
	call := r.Touch("t-call")
	assert.Equal(t, runs.StatusRunning, call.Status)
	require.NotNil(t, call.CallID)
	assert.Equal(t, t0.Add(10*time.Minute), *call.StartedAt)
	placed, err := env.Client.Calls.Get(ctx, *call.CallID)
	require.NoError(t, err, "a real simulated call")
	assert.Equal(t, "+15551230001", placed.To)
	assert.Equal(t, env.Account.PhoneNumber, *placed.From)
	assert.Equal(t, voiceagent.TouchRef{CommunicationRunID: run.ID, ExternalRef: ref, TouchID: "t-call"}, placed.TouchRef)
	assert.Contains(t, *placed.Context, "opening hours", "the touch context reaches the agent")

	env.Server.Advance(5*time.Minute + 5*time.Second) // the call (2 s of ringing, 30-300 s) ended; the dnc text is refused
	r = get()
	call = r.Touch("t-call")
	assert.Equal(t, runs.StatusCompleted, call.Status)
	require.NotNil(t, call.Duration)
	assert.GreaterOrEqual(t, *call.Duration, 30)
	require.NotNil(t, call.Summary)
	assert.Contains(t, *call.Summary, `"Opening hours"`, "the agent answered from the knowledge base")
	completedEv := findEvent(t, env, "call.completed", ref, "t-call")
	require.NotNil(t, completedEv, "the call's events carry external_ref and touch_id")
	cd, err := completedEv.Call()
	require.NoError(t, err)
	assert.Equal(t, *call.Summary, cd.Summary)
	assert.Equal(t, run.ID, cd.CommunicationRunID)
	dnc := r.Touch("t-dnc")
	assert.Equal(t, runs.TouchSkipped, dnc.Status)
	require.NotNil(t, dnc.Error)
	assert.Equal(t, voiceagent.CodeNumberOnDNC, dnc.Error.Code)
	assert.Nil(t, dnc.MessageSID)

	env.Server.Advance(5*time.Minute - 5*time.Second) // 14:20: the text goes out
	sms := get().Touch("t-sms")
	assert.Equal(t, runs.StatusRunning, sms.Status)
	require.NotNil(t, sms.MessageSID)
	sent := findEvent(t, env, "sms.sent", ref, "t-sms")
	require.NotNil(t, sent)
	md, err := sent.Message()
	require.NoError(t, err)
	assert.Equal(t, *sms.MessageSID, md.MessageSID)
	assert.Equal(t, "Hello from the run", md.Body)
	assert.Equal(t, env.Account.PhoneNumber, md.From)

	env.Server.Advance(5 * time.Second) // delivered
	assert.Equal(t, runs.StatusCompleted, get().Touch("t-sms").Status)
	require.NotNil(t, findEvent(t, env, "sms.delivered", ref, "t-sms"))

	env.Server.Advance(10 * time.Minute) // 14:30:10: the windowed call rings
	assert.Equal(t, runs.StatusRunning, get().Touch("t-window").Status)
	env.Server.Advance(time.Minute)
	r = get()
	w := r.Touch("t-window")
	assert.Equal(t, runs.StatusFailed, w.Status)
	require.NotNil(t, w.Error)
	assert.Equal(t, "no_answer", w.Error.Code)

	assert.Equal(t, runs.StatusCompleted, r.Status, "every touch final, some completed")
	require.NotNil(t, r.CompletedAt)
	assert.Equal(t, t0.Add(30*time.Minute+30*time.Second), *r.CompletedAt, "an unanswered call rings 30 s")
	assert.Equal(t, map[string]int{"scheduled": 0, "running": 0, "completed": 2, "failed": 1, "skipped": 1}, r.TouchCounts)

	// Partners match every event back by external_ref and touch_id.
	assert.Equal(t, []string{"call.started", "call.completed"}, touchEvents(t, env, ref, "t-call"))
	assert.Equal(t, []string{"sms.sent", "sms.delivered"}, touchEvents(t, env, ref, "t-sms"))
	assert.Equal(t, []string{"call.failed"}, touchEvents(t, env, ref, "t-window"))
	assert.Empty(t, touchEvents(t, env, ref, "t-dnc"), "a refused text sends nothing")
}

// TestSMSTouchesGoThroughCompliance: consent and quiet hours, in the
// recipient's time zone, skip a text touch; the carrier failing it fails it.
func TestSMSTouchesGoThroughCompliance(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	biz := env.Account.BusinessID
	for _, n := range []string{"+12125550100", "+15551230007"} {
		require.NoError(t, env.Server.SetConsent(biz, n, "opted_in"))
	}
	run, err := env.Client.Runs.Create(ctx, &runs.CreateParams{BusinessID: biz, ExternalRef: "compliance",
		Touches: []runs.TouchParams{
			touch("no-consent", runs.ChannelSMS, "+15551230006", time.Minute),
			touch("night", runs.ChannelSMS, "+12125550100", 12*time.Hour), // 02:00 in New York
			touch("carrier", runs.ChannelSMS, "+15005550012", time.Minute),
			touch("ok", runs.ChannelSMS, "+15551230007", time.Minute),
			withTimezone(touch("tokyo-night", runs.ChannelSMS, "+15551230007", time.Minute), "Asia/Tokyo"), // 23:01 in Tokyo
			withTimezone(touch("tokyo-day", runs.ChannelSMS, "+12125550100", 12*time.Hour), "Asia/Tokyo"),  // 11:00 in Tokyo
		}})
	require.NoError(t, err)
	env.Server.Advance(13 * time.Hour)
	run, err = env.Client.Runs.Get(ctx, run.ID)
	require.NoError(t, err)
	assert.Equal(t, runs.TouchSkipped, run.Touch("no-consent").Status)
	assert.Equal(t, voiceagent.CodeNumberOptedOut, run.Touch("no-consent").Error.Code)
	assert.Equal(t, runs.TouchSkipped, run.Touch("night").Status)
	assert.Equal(t, voiceagent.CodeTCPAViolation, run.Touch("night").Error.Code)
	assert.Contains(t, run.Touch("night").Error.Message, "quiet hours")
	assert.Equal(t, runs.StatusFailed, run.Touch("carrier").Status, "a carrier failure is a failure, not a compliance skip")
	assert.Equal(t, voiceagent.CodeSMSSendFailed, run.Touch("carrier").Error.Code)
	assert.Equal(t, []string{"sms.failed"}, touchEvents(t, env, "compliance", "carrier"))
	assert.Equal(t, runs.StatusCompleted, run.Touch("ok").Status)
	assert.Equal(t, runs.TouchSkipped, run.Touch("tokyo-night").Status, "quiet hours in the target's own time zone")
	assert.Contains(t, run.Touch("tokyo-night").Error.Message, "Asia/Tokyo")
	assert.Equal(t, runs.StatusCompleted, run.Touch("tokyo-day").Status)
	assert.Equal(t, runs.StatusCompleted, run.Status)
}

func TestRunFailsWhenNoTouchCompletesAndPastTouchesRunAtOnce(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	env.Server.Advance(time.Hour)
	run, err := env.Client.Runs.Create(ctx, &runs.CreateParams{
		BusinessID: env.Account.BusinessID, ExternalRef: "r",
		Touches: []runs.TouchParams{
			touch("unplaceable", runs.ChannelCall, "+15005550003", 0), // in the past: runs at once
			touch("busy", runs.ChannelCall, "+15005550002", 0),
		},
	})
	require.NoError(t, err)
	assert.Equal(t, t0.Add(time.Hour), run.Touch("busy").ExecuteAt)
	env.Server.Advance(0)
	run, err = env.Client.Runs.Get(ctx, run.ID)
	require.NoError(t, err)
	assert.Equal(t, runs.StatusFailed, run.Touch("unplaceable").Status)
	assert.Equal(t, voiceagent.CodeCallFailed, run.Touch("unplaceable").Error.Code)
	assert.Nil(t, run.Touch("unplaceable").CallID, "no call was placed")
	assert.Equal(t, runs.StatusRunning, run.Status, "the busy call is ringing")
	env.Server.Advance(time.Minute)
	run, err = env.Client.Runs.Get(ctx, run.ID)
	require.NoError(t, err)
	assert.Equal(t, "busy", run.Touch("busy").Error.Code)
	assert.Equal(t, runs.StatusFailed, run.Status, "every touch final, none completed")
}

func TestCreateRequiresIdempotencyKeyAndReplaysTheSameRun(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	p := &runs.CreateParams{BusinessID: env.Account.BusinessID, ExternalRef: "idem",
		Touches: []runs.TouchParams{touch("a", runs.ChannelSMS, "+15551230002", time.Hour)}}

	// Without the header (raw HTTP: the SDK always sends one).
	status, body := rawPost(t, env, "/v1/communication-runs", `{"business_id": "`+env.Account.BusinessID+`", "external_ref": "x",
		"touches": [{"touch_id": "a", "channel": "sms", "target": {"phone": "+15551230002"},
		"scheduled_at": "2026-06-05T15:00:00Z", "message": "hi"}]}`)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, voiceagent.CodeInvalidRequest, body.Error.Code)
	assert.Contains(t, body.Error.Message, "Idempotency-Key")
	assert.Equal(t, []string{"Idempotency-Key"}, detailPaths(body.Error.Details))

	var first, second *http.Response
	a, err := env.Client.Runs.Create(ctx, p, voiceagent.WithIdempotencyKey("run-key-1"), voiceagent.WithResponseInto(&first))
	require.NoError(t, err)
	assert.Equal(t, http.StatusCreated, first.StatusCode)
	assert.Equal(t, "run-key-1", a.IdempotencyKey)
	b, err := env.Client.Runs.Create(ctx, p, voiceagent.WithIdempotencyKey("run-key-1"), voiceagent.WithResponseInto(&second))
	require.NoError(t, err)
	assert.Equal(t, a.ID, b.ID, "a replay returns the same run")
	assert.Equal(t, "true", second.Header.Get(voiceagent.HeaderIdempotentReplay))

	p2 := *p
	p2.ExternalRef = "other"
	_, err = env.Client.Runs.Create(ctx, &p2, voiceagent.WithIdempotencyKey("run-key-1"))
	assert.ErrorIs(t, err, voiceagent.ErrIdempotencyConflict)

	list, err := env.Client.Runs.List(ctx, &runs.ListParams{ExternalRef: "idem"})
	require.NoError(t, err)
	assert.Len(t, list.Data, 1, "one run: the replay created nothing")
	none, err := env.Client.Runs.List(ctx, &runs.ListParams{ExternalRef: "x"})
	require.NoError(t, err)
	assert.Empty(t, none.Data, "the request without a key created nothing")
}
