package runs_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/catalog"
	"github.com/voiceagent/voiceagent-go/internal/testenv"
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

// touchEvents returns the events of a business that carry the run's
// external_ref and the touch id, in order, by type.
func touchEvents(env *testenv.Env, externalRef, touchID string) []string {
	var types []string
	for _, ev := range env.Server.RecordedEvents(env.Account.BusinessID) {
		if ev.Data["external_ref"] == externalRef && ev.Data["touch_id"] == touchID {
			types = append(types, ev.Type)
		}
	}
	return types
}

func findEvent(env *testenv.Env, typ, externalRef, touchID string) *mockserver.RecordedEvent {
	for _, ev := range env.Server.RecordedEvents(env.Account.BusinessID, typ) {
		if ev.Data["external_ref"] == externalRef && ev.Data["touch_id"] == touchID {
			return &ev
		}
	}
	return nil
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
	resp, err := http.DefaultClient.Do(req)
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
// and texts whose touches happen on the clock, each in its window, with
// events partners match back by external_ref and touch_id.
func TestRunTouchesFireAsTheClockAdvances(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	biz := env.Account.BusinessID
	_, err := env.Client.Knowledge.Create(ctx, &catalog.KnowledgeCreateParams{BusinessID: biz, Title: "Opening hours",
		Content: "We are open Monday to Friday, 8am to 6pm. Closed on holidays.", ContentType: "faq", Tags: []string{"hours"}})
	require.NoError(t, err)

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
	created := findEvent(env, "communication_run.created", "", "")
	assert.Nil(t, created, "run events carry external_ref but no touch_id")
	assert.NotEmpty(t, env.Server.RecordedEvents(biz, "communication_run.created"))

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
	started := findEvent(env, "call.started", ref, "t-call")
	require.NotNil(t, started, "the call's events carry external_ref and touch_id")
	assert.Equal(t, *call.CallID, started.Data["call_id"])
	assert.Equal(t, run.ID, started.Data["communication_run_id"])
	assert.Equal(t, "+15551230001", started.Data["to"])
	assert.Equal(t, env.Account.PhoneNumber, started.Data["from"])

	env.Server.Advance(5 * time.Minute) // 14:15: the call (30-300 s) ended; the dnc text is refused
	r = get()
	call = r.Touch("t-call")
	assert.Equal(t, runs.StatusCompleted, call.Status)
	require.NotNil(t, call.Duration)
	assert.GreaterOrEqual(t, *call.Duration, 30)
	require.NotNil(t, call.Summary)
	assert.Contains(t, *call.Summary, `"Opening hours"`, "the agent answered from the knowledge base")
	completedEv := findEvent(env, "call.completed", ref, "t-call")
	require.NotNil(t, completedEv)
	assert.Equal(t, *call.Summary, completedEv.Data["summary"])
	dnc := r.Touch("t-dnc")
	assert.Equal(t, runs.TouchSkipped, dnc.Status)
	require.NotNil(t, dnc.Error)
	assert.Equal(t, voiceagent.CodeNumberOnDNC, dnc.Error.Code)
	assert.Nil(t, dnc.MessageSID)

	env.Server.Advance(5 * time.Minute) // 14:20: the text goes out
	sms := get().Touch("t-sms")
	assert.Equal(t, runs.StatusRunning, sms.Status)
	require.NotNil(t, sms.MessageSID)
	sent := findEvent(env, "sms.sent", ref, "t-sms")
	require.NotNil(t, sent)
	assert.Equal(t, *sms.MessageSID, sent.Data["message_sid"])
	assert.Equal(t, "Hello from the run", sent.Data["body"])

	env.Server.Advance(5 * time.Second) // delivered
	assert.Equal(t, runs.StatusCompleted, get().Touch("t-sms").Status)
	require.NotNil(t, findEvent(env, "sms.delivered", ref, "t-sms"))

	env.Server.Advance(10 * time.Minute) // 14:30: the windowed call, unanswered
	assert.Equal(t, runs.StatusRunning, get().Touch("t-window").Status)
	env.Server.Advance(time.Minute)
	r = get()
	w := r.Touch("t-window")
	assert.Equal(t, runs.StatusFailed, w.Status)
	require.NotNil(t, w.Error)
	assert.Equal(t, "no_answer", w.Error.Code)
	require.NotNil(t, findEvent(env, "call.failed", ref, "t-window"))

	assert.Equal(t, runs.StatusCompleted, r.Status, "every touch final, some completed")
	require.NotNil(t, r.CompletedAt)
	assert.Equal(t, t0.Add(30*time.Minute+30*time.Second), *r.CompletedAt, "an unanswered call rings 30 s")
	assert.Equal(t, map[string]int{"scheduled": 0, "running": 0, "completed": 2, "failed": 1, "skipped": 1}, r.TouchCounts)
	assert.Len(t, env.Server.RecordedEvents(biz, "communication_run.completed"), 1)

	// Partners match every event back by external_ref and touch_id.
	assert.Equal(t, []string{"communication_run.touch.started", "call.started", "call.completed", "communication_run.touch.completed"},
		touchEvents(env, ref, "t-call"))
	assert.Equal(t, []string{"communication_run.touch.started", "sms.sent", "sms.delivered", "communication_run.touch.completed"},
		touchEvents(env, ref, "t-sms"))
	assert.Equal(t, []string{"communication_run.touch.started", "communication_run.touch.skipped"}, touchEvents(env, ref, "t-dnc"))
	assert.Equal(t, []string{"communication_run.touch.started", "call.started", "call.failed", "communication_run.touch.failed"},
		touchEvents(env, ref, "t-window"))
	done := findEvent(env, "communication_run.touch.completed", ref, "t-call")
	require.NotNil(t, done)
	assert.Equal(t, map[string]any{"crm_task": "T-1"}, done.Data["metadata"], "touch metadata rides along")
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
			touch("carrier", runs.ChannelSMS, "+15005550012", 0),
		},
	})
	require.NoError(t, err)
	assert.Equal(t, t0.Add(time.Hour), run.Touch("carrier").ExecuteAt)
	env.Server.Advance(0)
	run, err = env.Client.Runs.Get(ctx, run.ID)
	require.NoError(t, err)
	assert.Equal(t, runs.StatusFailed, run.Status)
	assert.Equal(t, voiceagent.CodeCallFailed, run.Touch("unplaceable").Error.Code)
	assert.Equal(t, runs.StatusFailed, run.Touch("unplaceable").Status)
	assert.Equal(t, voiceagent.CodeSMSSendFailed, run.Touch("carrier").Error.Code)
	assert.Equal(t, runs.StatusFailed, run.Touch("carrier").Status, "a carrier failure is a failure, not a compliance skip")
	assert.Len(t, env.Server.RecordedEvents(env.Account.BusinessID, "communication_run.failed"), 1)
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
