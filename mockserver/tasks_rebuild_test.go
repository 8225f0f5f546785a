package mockserver

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
	mclock "github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/runs"
	"github.com/voiceagent/voiceagent-go/sdr"
	"github.com/voiceagent/voiceagent-go/sms"
)

// rebuildCase makes a world in which tasks of some kinds are pending,
// rebuilds its schedule from data (rebuild) and checks the outcome is what
// the original tasks would have made.
type rebuildCase struct {
	// kinds are the kinds of task the case rebuilds.
	kinds []string
	run   func(t *testing.T, e *telEnv)
}

// rebuildCases cover every kind of task a server defines but
// agency.retry_enrollment, rebuilt in package agency
// (TestAgencyTasksAreRebuiltFromData).
var rebuildCases = map[string]rebuildCase{
	"outbound call": {kinds: []string{"call.answer", "call.end"}, run: func(t *testing.T, e *telEnv) {
		c, err := e.c.Calls.Create(context.Background(), &calls.CreateParams{AgentID: e.acct.AgentID, To: "+14155550180"})
		require.NoError(t, err)
		rebuild(t, e.srv, e.tenant(t), "call.answer")
		e.acct.Advance(5 * time.Second)
		assert.Equal(t, store.CallInProgress, e.call(t, c.ID).Status)
		rebuild(t, e.srv, e.tenant(t), "call.end")
		e.acct.Advance(time.Hour)
		got := e.call(t, c.ID)
		assert.Equal(t, store.CallCompleted, got.Status)
		assert.Equal(t, "completed", got.EndedReason)
		assert.NotEmpty(t, got.Transcript)
	}},
	"failed call": {kinds: []string{"call.fail"}, run: func(t *testing.T, e *telEnv) {
		const to = "+14155550181"
		_, err := e.acct.Script(Script{Calls: []CallStep{{To: to, Outcome: "busy"}}})
		require.NoError(t, err)
		c, err := e.c.Calls.Create(context.Background(), &calls.CreateParams{AgentID: e.acct.AgentID, To: to})
		require.NoError(t, err)
		rebuild(t, e.srv, e.tenant(t), "call.fail")
		e.acct.Advance(time.Minute)
		got := e.call(t, c.ID)
		assert.Equal(t, store.CallFailed, got.Status)
		assert.Equal(t, "busy", got.Error, "the outcome comes from the call's script step")
	}},
	"voicemail": {kinds: []string{"call.voicemail", "call.end"}, run: func(t *testing.T, e *telEnv) {
		const to = "+14155550182"
		_, err := e.acct.Script(Script{Calls: []CallStep{{To: to, Outcome: "voicemail"}}})
		require.NoError(t, err)
		c, err := e.c.Calls.Create(context.Background(), &calls.CreateParams{AgentID: e.acct.AgentID, To: to})
		require.NoError(t, err)
		rebuild(t, e.srv, e.tenant(t), "call.voicemail")
		e.acct.Advance(5 * time.Second)
		rebuild(t, e.srv, e.tenant(t), "call.end")
		e.acct.Advance(time.Hour)
		got := e.call(t, c.ID)
		assert.Equal(t, store.CallCompleted, got.Status)
		assert.Equal(t, "voicemail", got.EndedReason)
		assert.Equal(t, "Agent: "+got.VoicemailMessage, got.Transcript)
		assert.Equal(t, voicemailSeconds(got.VoicemailMessage), got.Duration)
	}},
	"inbound call": {kinds: []string{"call.answer", "call.end"}, run: func(t *testing.T, e *telEnv) {
		id, err := e.acct.InboundCall(InboundCall{To: e.acct.PhoneNumber, From: "+14155550183", Duration: 60})
		require.NoError(t, err)
		rebuild(t, e.srv, e.tenant(t), "call.answer")
		e.acct.Advance(time.Minute)
		assert.Equal(t, store.CallInProgress, e.call(t, id).Status)
		rebuild(t, e.srv, e.tenant(t), "call.end")
		e.acct.Advance(time.Hour)
		got := e.call(t, id)
		assert.Equal(t, store.CallEnded, got.Status)
		assert.Equal(t, 60, got.Duration)
	}},
	"missed call": {kinds: []string{"call.missed"}, run: func(t *testing.T, e *telEnv) {
		id, err := e.acct.InboundCall(InboundCall{To: e.acct.PhoneNumber, From: "+14155550184", Answered: voiceagent.Bool(false)})
		require.NoError(t, err)
		rebuild(t, e.srv, e.tenant(t), "call.missed")
		e.acct.Advance(time.Hour)
		assert.Equal(t, store.CallNoAnswer, e.call(t, id).Status)
	}},
	"text and its reply": {kinds: []string{"sms.delivery", "sms.reply"}, run: func(t *testing.T, e *telEnv) {
		const to = "+14155550185"
		_, err := e.acct.Script(Script{Texts: []TextStep{{To: to, Outcome: "delivered", Reply: &TextReply{AfterSeconds: 60, Body: "Sounds good"}}}})
		require.NoError(t, err)
		require.NoError(t, e.acct.SetConsent(to, "opted_in"))
		sent, err := e.c.SMS.Send(context.Background(), &sms.SendParams{To: to, FromAgentID: e.acct.AgentID, Message: "Hello"})
		require.NoError(t, err)
		rebuild(t, e.srv, e.tenant(t), "sms.delivery")
		e.acct.Advance(10 * time.Second)
		e.srv.platform.Read(func(tx *platform.Tx) {
			m, ok := tx.SMSMessages.Get(sent.ID)
			require.True(t, ok)
			assert.Equal(t, store.SMSDelivered, m.Status)
		})
		rebuild(t, e.srv, e.tenant(t), "sms.reply")
		e.acct.Advance(2 * time.Minute)
		e.srv.platform.Read(func(tx *platform.Tx) {
			var replies []string
			for _, m := range tx.SMSMessages.Owned(e.acct.BusinessID) {
				if m.From == to {
					replies = append(replies, m.Body)
				}
			}
			assert.Equal(t, []string{"Sounds good"}, replies)
		})
	}},
	"run touch": {kinds: []string{"run.touch"}, run: func(t *testing.T, e *telEnv) {
		run, err := e.c.Runs.Create(context.Background(), &runs.CreateParams{BusinessID: e.acct.BusinessID, ExternalRef: "rebuild",
			Touches: []runs.TouchParams{
				{TouchID: "t1", Channel: runs.ChannelCall, Target: runs.Target{Phone: "+14155550186"}, ScheduledAt: e.acct.Now().Add(time.Hour)},
				{TouchID: "t2", Channel: runs.ChannelCall, Target: runs.Target{Phone: "+14155550187"}, ScheduledAt: e.acct.Now().Add(2 * time.Hour)},
			}}, voiceagent.WithIdempotencyKey("rebuild"))
		require.NoError(t, err)
		rebuild(t, e.srv, e.tenant(t), "run.touch")
		e.acct.Advance(3 * time.Hour)
		got, err := e.c.Runs.Get(context.Background(), run.ID)
		require.NoError(t, err)
		for _, touch := range got.Touches {
			assert.Equal(t, "completed", string(touch.Status), touch.TouchID)
			assert.NotNil(t, touch.CallID, touch.TouchID)
		}
	}},
	"sdr": {kinds: []string{"sdr.run", "sdr.email"}, run: func(t *testing.T, e *telEnv) {
		ctx := context.Background()
		leads, err := e.srv.SeedLeads(e.acct.BusinessID, []LeadFixture{{Name: "Lee Park", Email: "lee@example.com"}})
		require.NoError(t, err)
		_, err = e.c.SDR.UpdateConfig(ctx, &sdr.ConfigParams{BusinessID: e.acct.BusinessID, Enabled: voiceagent.Bool(true)})
		require.NoError(t, err)
		act, err := e.c.SDR.Act(ctx, &sdr.ActionParams{BusinessID: e.acct.BusinessID, LeadID: leads[0], Action: sdr.ActionEmail})
		require.NoError(t, err)
		require.True(t, act.Success, act.Detail)
		start := e.acct.Now()
		tasks := rebuild(t, e.srv, e.tenant(t), "sdr.run", "sdr.email")
		gen := tasks[slices.IndexFunc(tasks, func(t mclock.Task) bool { return t.Kind == "sdr.run" })].N
		assert.Positive(t, gen, "an sdr.run names its runner's generation")
		e.acct.Advance(2*time.Hour + time.Minute)
		e.srv.platform.Read(func(tx *platform.Tx) {
			var sent int
			for _, m := range tx.SDRMails.Owned(e.acct.BusinessID) {
				if m.To == "lee@example.com" && m.Status != store.SDREmailQueued {
					sent++
				}
			}
			assert.Equal(t, 1, sent, "the queued email was sent")
			cfg := tx.SDRConfigs[e.acct.BusinessID]
			require.NotNil(t, cfg.NextRunAt)
			assert.Equal(t, start.Add(4*time.Hour), *cfg.NextRunAt, "the runner ran and scheduled its next run")
		})
		pending, err := e.acct.Schedule()
		require.NoError(t, err)
		assert.Contains(t, pending, ScheduledTask{At: start.Add(4 * time.Hour), Kind: "sdr.run", SubjectID: e.acct.BusinessID, N: gen})
	}},
	"approval expiry": {kinds: []string{"approval.expire"}, run: func(t *testing.T, e *telEnv) {
		const approver = "+14155550188"
		_, err := e.acct.Script(Script{Calls: []CallStep{{To: approver, Outcome: "no_answer", RingSeconds: voiceagent.Int(600)}}})
		require.NoError(t, err)
		body := `{"source":"ops","source_request_id":"r1","principal_id":"p1","channel":{"type":"voice","address":"` + approver +
			`"},"summary":"Refund?","risk_level":"low","expires_at":"` + e.acct.Now().Add(5*time.Minute).Format(time.RFC3339) + `","callback_url":"http://127.0.0.1:9/cb"}`
		created := rawDo(t, http.MethodPost, e.srv.URL+"/v1/approval-requests", body, bearer(e.acct.APIKey)...)
		require.Equal(t, http.StatusCreated, created.status, string(created.body))
		rebuild(t, e.srv, e.tenant(t), "approval.expire")
		e.acct.Advance(7 * time.Minute) // the approver's phone rings 10 minutes
		got := rawDo(t, http.MethodGet, e.srv.URL+"/v1/approval-requests?id="+created.json["id"].(string), "", bearer(e.acct.APIKey)...)
		require.Equal(t, http.StatusOK, got.status, string(got.body))
		assert.Equal(t, "expired", got.json["status"])
	}},
	"delivery retry": {kinds: []string{"delivery.attempt"}, run: func(t *testing.T, e *telEnv) {
		var calls atomic.Int64
		recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			if calls.Add(1) == 1 {
				w.WriteHeader(http.StatusInternalServerError)
			}
		}))
		t.Cleanup(recv.Close)
		status := rawDo(t, http.MethodPost, e.srv.URL+"/v1/webhooks",
			`{"business_id":"`+e.acct.BusinessID+`","webhook_url":"`+recv.URL+`","events":["lead.created"]}`, bearer(e.acct.APIKey)...)
		require.Equal(t, http.StatusCreated, status.status, string(status.body))
		evID, err := e.acct.EmitEvent("lead.created", map[string]any{"name": "Ada"})
		require.NoError(t, err)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		ds := e.srv.WaitDeliveries(ctx, func(d *Delivery) bool { return d.EventID == evID && len(d.Attempts) == 1 })
		require.Len(t, ds, 1, "the first attempt failed")
		tasks := rebuild(t, e.srv, e.tenant(t), "delivery.attempt")
		assert.Contains(t, tasks, mclock.Task{At: ds[0].CreatedAt.Add(5 * time.Second), Kind: "delivery.attempt", Subject: ds[0].ID, N: 2})
		e.acct.Advance(10 * time.Second)
		got := e.acct.Deliveries(DeliveryFilter{EventID: evID})
		require.Len(t, got, 1)
		assert.Equal(t, DeliverySucceeded, got[0].Status)
		assert.Len(t, got[0].Attempts, 2, "the rebuilt second attempt was made")
		assert.EqualValues(t, 2, calls.Load())
	}},
	"retained agency command": {kinds: []string{"agency.retry_command"}, run: func(t *testing.T, e *telEnv) {
		_, err := e.acct.AddFault(FaultRule{Path: "/v1/agency-profile", Method: http.MethodPost, Target: FaultTargetDependency, Times: 1})
		require.NoError(t, err)
		r := rawDo(t, http.MethodPost, e.srv.URL+"/v1/agency-profile",
			`{"action":"bootstrap","brand":{"name":"Rebuilt"},"support":{"email":"r@example.com","ownerName":"R","coverage":"c"}}`, bearer(e.acct.APIKey)...)
		require.Equal(t, http.StatusServiceUnavailable, r.status, string(r.body))
		opID := r.json["error"].(map[string]any)["operation"].(map[string]any)["operationId"].(string)
		rebuild(t, e.srv, e.tenant(t), "agency.retry_command")
		e.acct.Advance(time.Minute)
		e.srv.platform.Read(func(tx *platform.Tx) {
			op, ok := tx.AgencyOperations.Get(opID)
			require.True(t, ok)
			assert.Equal(t, "applied", op.Status, "%s %s", op.ErrorCode, op.ErrorMessage)
			assert.Nil(t, op.Command, "an applied command is not kept")
			pt, ok := tx.Partners.Get(op.Owner)
			require.True(t, ok, "the operation is listed under the agency it created")
			assert.Equal(t, "Rebuilt", pt.Brand.Name)
		})
	}},
	"signup and magic link": {kinds: []string{"signup.forget_challenge", "magic_link.forget"}, run: func(t *testing.T, e *telEnv) {
		const email = "rebuild@acme.example"
		fields := `"business_name":"Acme","email":"` + email + `"`
		status, ch := identityPost(t, e.srv, "/v1/signup", "{"+fields+"}", "")
		require.Equal(t, http.StatusOK, status, ch)
		challenge := ch["challenge_id"].(string)
		rebuild(t, e.srv, "", "signup.forget_challenge")
		var code string
		e.srv.platform.Read(func(tx *platform.Tx) {
			c, ok := tx.Challenges.Get(challenge)
			require.True(t, ok)
			code = c.Code
		})
		status, out := identityPost(t, e.srv, "/v1/signup", `{`+fields+`,"challenge_id":"`+challenge+`","otp_code":"`+code+`"}`, "")
		require.Equal(t, http.StatusCreated, status, out)
		user := out["user_id"].(string)
		var tenant string
		e.srv.platform.Read(func(tx *platform.Tx) {
			tenant = tx.TenantOf(out["business_id"].(string))
			assert.True(t, slices.ContainsFunc(slices.Collect(maps.Values(tx.MagicLinks)), func(l *store.MagicLink) bool { return l.UserID == user }),
				"the signup made a magic link")
		})
		tasks := rebuild(t, e.srv, tenant, "magic_link.forget")
		assert.Equal(t, 2, countKind(tasks, "magic_link.forget"), "the sign-in link and the password setup link")
		links := func() (kinds []string) {
			e.srv.platform.Read(func(tx *platform.Tx) {
				for _, l := range tx.MagicLinks {
					if l.UserID == user {
						kinds = append(kinds, l.Kind)
					}
				}
			})
			return kinds
		}
		e.srv.Advance(3 * 24 * time.Hour)
		e.srv.platform.Read(func(tx *platform.Tx) {
			_, ok := tx.Challenges.Get(challenge)
			assert.False(t, ok, "the challenge is forgotten")
		})
		assert.Equal(t, []string{"password_setup"}, links(), "the sign-in link is forgotten a day after it expired, the other link is kept")
		e.srv.Advance(7 * 24 * time.Hour)
		assert.Empty(t, links(), "the password setup link is forgotten a day after it expired")
	}},
}

// countKind returns how many of tasks are of kind.
func countKind(tasks []mclock.Task, kind string) int {
	n := 0
	for _, t := range tasks {
		if t.Kind == kind {
			n++
		}
	}
	return n
}

// Every task on the schedule is data: dropped from its clock and put back
// from its clock.Task value alone (Resume), it does what it would have.
func TestTasksAreRebuiltFromData(t *testing.T) {
	t.Parallel()
	for name, tc := range rebuildCases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, newTelEnv(t, WithRateLimits(false)))
		})
	}
}

// Every kind of task a server defines is rebuilt by a case of
// TestTasksAreRebuiltFromData (or, agency.retry_enrollment, in package
// agency): a new kind needs a case.
func TestEveryTaskKindIsRebuilt(t *testing.T) {
	t.Parallel()
	srv := New()
	t.Cleanup(srv.Close)
	covered := []string{"agency.retry_enrollment"}
	for _, tc := range rebuildCases {
		covered = append(covered, tc.kinds...)
	}
	slices.Sort(covered)
	assert.Equal(t, srv.platform.TaskKinds(), slices.Compact(covered))
	assert.Error(t, srv.platform.Resume("", mclock.Task{Kind: "no.such_kind"}))
}

// rebuild captures tenant's pending tasks, which must include tasks of
// kinds, drops them from its clock and puts each back with Resume, in
// order. It returns the tasks.
func rebuild(t *testing.T, srv *TestServer, tenant string, kinds ...string) []mclock.Task {
	t.Helper()
	clk := srv.platform.Clocks.Of(tenant)
	tasks := clk.Tasks()
	for _, k := range kinds {
		require.True(t, slices.ContainsFunc(tasks, func(t mclock.Task) bool { return t.Kind == k }), "a %s task is pending: %v", k, tasks)
	}
	clk.Reset()
	require.Zero(t, clk.Pending())
	for _, task := range tasks {
		require.NoError(t, srv.platform.Resume(tenant, task))
	}
	require.Equal(t, tasks, clk.Tasks(), "the rebuilt schedule")
	return tasks
}

// tenant returns the tenant of the env's account.
func (e *telEnv) tenant(t *testing.T) string {
	t.Helper()
	var tenant string
	e.srv.platform.Read(func(tx *platform.Tx) { tenant = tx.TenantOf(e.acct.BusinessID) })
	require.NotEmpty(t, tenant)
	return tenant
}

// call returns a copy of the stored call id.
func (e *telEnv) call(t *testing.T, id string) store.Call {
	t.Helper()
	var c store.Call
	e.srv.platform.Read(func(tx *platform.Tx) {
		got, ok := tx.Calls.Get(id)
		require.True(t, ok, id)
		c = *got
	})
	return c
}

// voicemailSeconds is how long a voicemail message lasts, as the simulator
// counts it (two words in five seconds, at least five seconds).
func voicemailSeconds(msg string) int {
	words := 0
	inWord := false
	for _, r := range msg {
		if r == ' ' || r == '\n' || r == '\t' {
			inWord = false
		} else if !inWord {
			inWord = true
			words++
		}
	}
	return max(5, words*2/5)
}
