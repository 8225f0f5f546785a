package runs_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/runs"
)

func TestValidateReportsEveryRule(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	biz := env.Account.BusinessID

	ok := &runs.CreateParams{BusinessID: biz, ExternalRef: "v", Touches: []runs.TouchParams{
		touch("past", runs.ChannelCall, "+15551230001", -time.Minute),
		touch("later", runs.ChannelSMS, "+15551230002", time.Hour),
	}}
	ok.Touches[0].SMSCategory = voiceagent.String("x")
	v, err := env.Client.Runs.Validate(ctx, ok)
	require.NoError(t, err)
	assert.True(t, v.Valid)
	assert.Empty(t, v.Errors)
	assert.Equal(t, 2, v.Touches)
	assert.ElementsMatch(t, []string{"/touches/0/scheduled_at", "/touches/0/sms_category"}, detailPaths(v.Warnings))

	window := func(nb, na time.Duration) *runs.TimingWindow {
		return &runs.TimingWindow{NotBefore: voiceagent.Time(t0.Add(nb)), NotAfter: voiceagent.Time(t0.Add(na))}
	}
	bad := &runs.CreateParams{BusinessID: biz, ExternalRef: "v",
		AgentID: voiceagent.String(other.AgentID), AssignedNumberID: voiceagent.String(other.PhoneNumber),
		Touches: []runs.TouchParams{
			touch("dup", runs.ChannelCall, "555-0100", time.Hour), // not E.164
			touch("dup", runs.ChannelSMS, "+15551230002", time.Hour),
			{TouchID: "nomsg", Channel: runs.ChannelSMS, Target: runs.Target{Phone: "+15551230003"}, ScheduledAt: t0.Add(time.Hour)},
			{TouchID: "inverted", Channel: runs.ChannelCall, Target: runs.Target{Phone: "+15551230004"}, ScheduledAt: t0.Add(time.Hour), TimingWindow: window(2*time.Hour, time.Hour)},
			{TouchID: "late", Channel: runs.ChannelCall, Target: runs.Target{Phone: "+15551230005"}, ScheduledAt: t0.Add(3 * time.Hour), TimingWindow: window(0, 2*time.Hour)},
			{TouchID: "closed", Channel: runs.ChannelCall, Target: runs.Target{Phone: "+15551230006"}, ScheduledAt: t0.Add(-2 * time.Hour), TimingWindow: window(-3*time.Hour, -time.Hour)},
			{TouchID: "where", Channel: runs.ChannelCall, Target: runs.Target{Phone: "+15551230007", Timezone: voiceagent.String("Mars/Olympus"),
				LeadID: voiceagent.String("00000000-0000-4000-8000-000000000000")}, ScheduledAt: t0.Add(time.Hour)},
		}}
	v, err = env.Client.Runs.Validate(ctx, bad)
	require.NoError(t, err, "problems are in the answer, not an error")
	assert.False(t, v.Valid)
	assert.ElementsMatch(t, []string{
		"/agent_id", "/assigned_number_id", "/touches/0/target/phone", "/touches/1/touch_id", "/touches/2/message",
		"/touches/3/timing_window", "/touches/4/scheduled_at", "/touches/5/timing_window/not_after",
		"/touches/6/target/timezone", "/touches/6/target/lead_id",
	}, detailPaths(v.Errors))

	// Schema failures are reported the same way.
	err = env.Client.Do(ctx, http.MethodPost, "/v1/communication-runs/validate", nil, map[string]any{
		"business_id": biz, "external_ref": "", "touches": []any{map[string]any{"touch_id": "a", "channel": "email",
			"target": map[string]any{"phone": "+15551230001"}, "scheduled_at": "2026-06-05T15:00:00Z"}}}, &v)
	require.NoError(t, err)
	assert.False(t, v.Valid)
	assert.Contains(t, detailPaths(v.Errors), "/touches/0/channel")
	assert.Contains(t, detailPaths(v.Errors), "/external_ref")

	err = env.Client.Do(ctx, http.MethodPost, "/v1/communication-runs/validate", nil, "not an object", &v)
	require.NoError(t, err)
	assert.Equal(t, []string{"/"}, detailPaths(v.Errors))

	// A body that is not JSON is an error; so is a business the key does not reach.
	status, body := rawPost(t, env, "/v1/communication-runs/validate", `{"business_id": `)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, voiceagent.CodeInvalidRequest, body.Error.Code)
	_, err = env.Client.Runs.Validate(ctx, &runs.CreateParams{BusinessID: other.BusinessID, ExternalRef: "v", Touches: ok.Touches})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)

	// Preview and Create refuse the same body with the same details.
	_, err = env.Client.Runs.Preview(ctx, bad)
	apiErr := requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
	assert.Len(t, apiErr.Details, 10)
	_, err = env.Client.Runs.Create(ctx, bad)
	apiErr = requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
	assert.Contains(t, detailPaths(apiErr.Details), "/touches/1/touch_id")
	list, err := env.Client.Runs.List(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, list.Data, "nothing was created")
}

func TestPreviewResolvesNumberAndAgentAndOrdersTouches(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	biz := env.Account.BusinessID
	numbers, err := env.Client.Numbers.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, numbers, 1)
	p := &runs.CreateParams{BusinessID: biz, ExternalRef: "pv", AssignedNumberID: voiceagent.String(numbers[0].ID),
		Touches: []runs.TouchParams{
			touch("second", runs.ChannelSMS, "+15551230002", 2*time.Hour),
			touch("first", runs.ChannelCall, "+15551230001", time.Hour),
		}}
	pv, err := env.Client.Runs.Preview(ctx, p)
	require.NoError(t, err)
	assert.True(t, pv.Valid)
	assert.Equal(t, env.Account.PhoneNumber, pv.FromNumber)
	assert.Equal(t, numbers[0].ID, pv.FromNumberID)
	assert.Equal(t, env.Account.AgentID, pv.AgentID, "the number's agent")
	require.Len(t, pv.Touches, 2)
	assert.Equal(t, "first", pv.Touches[0].TouchID, "in the order they will run")
	assert.Equal(t, runs.PreviewSummary{Touches: 2, Calls: 1, SMS: 1, FirstAt: t0.Add(time.Hour), LastAt: t0.Add(2 * time.Hour)}, pv.Summary)
	run, err := env.Client.Runs.List(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, run.Data, "preview creates nothing")

	// The number as E.164, with another agent of the business.
	created, err := env.Client.Agents.Create(ctx, &agents.CreateParams{BusinessID: biz, Name: "Closer", SystemPrompt: "Close."})
	require.NoError(t, err)
	p.AssignedNumberID = voiceagent.String(env.Account.PhoneNumber)
	p.AgentID = voiceagent.String(created.ID)
	pv, err = env.Client.Runs.Preview(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, created.ID, pv.AgentID)
	assert.Equal(t, numbers[0].ID, pv.FromNumberID)

	// An agent without a number needs an assigned number.
	p.AssignedNumberID = nil
	v, err := env.Client.Runs.Validate(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, []string{"/assigned_number_id"}, detailPaths(v.Errors))
	p.AssignedNumberID = voiceagent.String("+1555")
	v, err = env.Client.Runs.Validate(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, []string{"/assigned_number_id"}, detailPaths(v.Errors))
}

func TestDeleteCancelsTouchesNotStarted(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	run, err := env.Client.Runs.Create(ctx, &runs.CreateParams{BusinessID: env.Account.BusinessID, ExternalRef: "del",
		Touches: []runs.TouchParams{
			touch("now", runs.ChannelCall, "+15551230001", time.Minute),
			touch("later", runs.ChannelCall, "+15551230002", time.Hour),
		}})
	require.NoError(t, err)
	env.Server.Advance(time.Minute)
	del, err := env.Client.Runs.Delete(ctx, run.ID)
	require.NoError(t, err)
	assert.Equal(t, &runs.Deleted{Success: true, ID: run.ID, CanceledTouches: 1}, del)
	_, err = env.Client.Runs.Get(ctx, run.ID)
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
	_, err = env.Client.Runs.Delete(ctx, run.ID)
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)

	env.Server.Advance(2 * time.Hour)
	assert.Equal(t, []string{"call.started", "call.completed"}, touchEvents(t, env, "del", "now"),
		"the call under way finishes")
	assert.Empty(t, touchEvents(t, env, "del", "later"), "the canceled touch never ran")
}

func TestListFiltersPagesAndAccess(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	biz := env.Account.BusinessID
	var ids []string
	for _, ref := range []string{"a", "b", "a"} {
		r, err := env.Client.Runs.Create(ctx, &runs.CreateParams{BusinessID: biz, ExternalRef: ref,
			Touches: []runs.TouchParams{touch("t", runs.ChannelCall, "+15551230002", time.Duration(len(ids)+1)*time.Minute)}})
		require.NoError(t, err)
		ids = append(ids, r.ID)
	}
	env.Server.Advance(time.Minute) // the first run starts
	byRef, err := env.Client.Runs.List(ctx, &runs.ListParams{ExternalRef: "a"})
	require.NoError(t, err)
	require.Len(t, byRef.Data, 2)
	assert.Equal(t, ids[2], byRef.Data[0].ID, "newest first")
	running, err := env.Client.Runs.List(ctx, &runs.ListParams{Status: runs.StatusRunning})
	require.NoError(t, err)
	require.Len(t, running.Data, 1)
	assert.Equal(t, ids[0], running.Data[0].ID)
	var walked []string
	for r, err := range env.Client.Runs.All(ctx, &runs.ListParams{Limit: 1}) {
		require.NoError(t, err)
		walked = append(walked, r.ID)
	}
	assert.Equal(t, []string{ids[2], ids[1], ids[0]}, walked)
	_, err = env.Client.Runs.List(ctx, &runs.ListParams{Status: "done"})
	requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)

	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	oc := env.ClientFor(other.APIKey)
	_, err = oc.Runs.Get(ctx, ids[0])
	assert.ErrorIs(t, err, voiceagent.ErrNotFound, "another tenant's run is not visible")
	_, err = oc.Runs.Delete(ctx, ids[0])
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
	_, err = oc.Runs.Create(ctx, &runs.CreateParams{BusinessID: biz, ExternalRef: "x",
		Touches: []runs.TouchParams{touch("t", runs.ChannelSMS, "+15551230002", time.Hour)}})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)

	// communication-runs:read validates, previews, lists and reads; create needs :write.
	ro := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{voiceagent.ScopeCommunicationRunsRead}})
	rc := env.ClientFor(ro.APIKey)
	p := &runs.CreateParams{BusinessID: ro.BusinessID, ExternalRef: "ro", Touches: []runs.TouchParams{touch("t", runs.ChannelSMS, "+15551230002", time.Hour)}}
	_, err = rc.Runs.Validate(ctx, p)
	require.NoError(t, err)
	_, err = rc.Runs.Preview(ctx, p)
	require.NoError(t, err)
	_, err = rc.Runs.List(ctx, nil)
	require.NoError(t, err)
	_, err = rc.Runs.Create(ctx, p)
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	none := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{voiceagent.ScopeCallsRead}})
	_, err = env.ClientFor(none.APIKey).Runs.Validate(ctx, p)
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
}
