package mockserver

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/runs"
	"github.com/voiceagent/voiceagent-go/sms"
)

// The schedule lists a tenant's pending work as data, in the order it will
// run: a queued call's next step, a text's delivery, a run's touch; each
// task leaves it when it runs, and other tenants' work never shows.
func TestScheduleListsPendingWork(t *testing.T) {
	t.Parallel()
	e := newTelEnv(t)
	ctx := context.Background()
	other, err := e.srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	base, err := e.acct.Schedule()
	require.NoError(t, err)

	call, err := e.c.Calls.Create(ctx, &calls.CreateParams{AgentID: e.acct.AgentID, To: "+14155550180"})
	require.NoError(t, err)
	require.NoError(t, e.srv.SetConsent(e.acct.BusinessID, "+14155550181", "opted_in"))
	text, err := e.c.SMS.Send(ctx, &sms.SendParams{To: "+14155550181", FromAgentID: e.acct.AgentID, Message: "Hello"})
	require.NoError(t, err)
	run, err := e.c.Runs.Create(ctx, &runs.CreateParams{BusinessID: e.acct.BusinessID, ExternalRef: "schedule",
		Touches: []runs.TouchParams{
			{TouchID: "t1", Channel: runs.ChannelCall, Target: runs.Target{Phone: "+14155550182"}, ScheduledAt: e.acct.Now().Add(time.Hour)},
			{TouchID: "t2", Channel: runs.ChannelCall, Target: runs.Target{Phone: "+14155550183"}, ScheduledAt: e.acct.Now().Add(2 * time.Hour)},
		}}, voiceagent.WithIdempotencyKey("schedule"))
	require.NoError(t, err)

	tasks, err := e.acct.Schedule()
	require.NoError(t, err)
	now := e.acct.Now()
	assert.Equal(t, []ScheduledTask{
		{At: now.Add(2 * time.Second), Kind: "call.answer", SubjectID: call.ID},
		{At: now.Add(2 * time.Second), Kind: "sms.delivery", SubjectID: text.ID},
		{At: now.Add(time.Hour), Kind: "run.touch", SubjectID: run.ID},
		{At: now.Add(2 * time.Hour), Kind: "run.touch", SubjectID: run.ID, N: 1},
	}, withoutTasks(tasks, base))
	theirs, err := other.Schedule()
	require.NoError(t, err)
	for _, task := range theirs {
		assert.NotEqual(t, call.ID, task.SubjectID, "another tenant's schedule")
	}

	e.acct.Advance(5 * time.Second)
	tasks, err = e.acct.Schedule()
	require.NoError(t, err)
	got := withoutTasks(tasks, base)
	require.NotEmpty(t, got)
	assert.Equal(t, "call.end", got[0].Kind, "the answered call's next step")
	assert.Equal(t, call.ID, got[0].SubjectID)

	e.acct.Advance(3 * time.Hour)
	tasks, err = e.acct.Schedule()
	require.NoError(t, err)
	for _, task := range tasks {
		assert.NotEqual(t, call.ID, task.SubjectID, "the finished call's work is gone")
		assert.NotEqual(t, run.ID, task.SubjectID, "the run's touches ran")
	}

	_, err = e.srv.Schedule("not-a-uuid")
	assert.Error(t, err)
	_, err = e.srv.Schedule("00000000-0000-4000-8000-000000000000")
	assert.Error(t, err)
}

// withoutTasks returns tasks without those in base (the account's own
// work when the test started).
func withoutTasks(tasks, base []ScheduledTask) []ScheduledTask {
	seen := map[ScheduledTask]bool{}
	for _, t := range base {
		seen[t] = true
	}
	var out []ScheduledTask
	for _, t := range tasks {
		if !seen[t] {
			out = append(out, t)
		}
	}
	return out
}
