package mockserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/leads"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/runs"
	"github.com/voiceagent/voiceagent-go/sdr"
	"github.com/voiceagent/voiceagent-go/sms"
)

// Scripted calls through the SDK: a completed call's conversation, duration
// and caller details (a lead), a voicemail, a rejected call, and the
// billed minutes, the events and the listing that follow them.
func TestScriptedCallsThroughTheSDK(t *testing.T) {
	t.Parallel()
	e := newTelEnv(t)
	ctx := context.Background()
	const (
		customer  = "+14155550140"
		voicemail = "+14155550141"
		rejected  = "+14155550142"
	)
	steps, err := e.acct.Script(Script{Calls: []CallStep{
		{To: customer, Outcome: "completed", Duration: voiceagent.Int(140),
			Transcript: []Turn{{Role: "agent", Text: "Hello from Ava."}, {Role: "caller", Text: "I'd like a quote."}},
			Caller:     &ScriptCaller{Name: "Dana Reyes", Email: "dana@example.com", Intent: "quote"}},
		{To: voicemail, Outcome: "voicemail", RingSeconds: voiceagent.Int(20)},
		{To: rejected, Outcome: "rejected"},
	}})
	require.NoError(t, err)
	require.Len(t, steps, 3)
	assert.Equal(t, admin.StepPending, steps[0].Status)
	assert.Nil(t, steps[0].UsedBy)

	placed := map[string]string{}
	for _, to := range []string{customer, voicemail} {
		c, err := e.c.Calls.Create(ctx, &calls.CreateParams{AgentID: e.acct.AgentID, To: to})
		require.NoError(t, err)
		placed[to] = c.ID
	}
	_, err = e.c.Calls.Create(ctx, &calls.CreateParams{AgentID: e.acct.AgentID, To: rejected})
	var apiErr *voiceagent.Error
	require.True(t, errors.As(err, &apiErr), "%v", err)
	assert.Equal(t, 500, apiErr.StatusCode)
	assert.Equal(t, "call_failed", string(apiErr.Code))
	page, err := e.c.Calls.List(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, page.Data, 2, "a rejected call stores nothing")

	before := e.srv.MinutesUsed(e.acct.BusinessID)
	e.acct.Advance(19 * time.Second)
	vm, err := e.c.Calls.Get(ctx, placed[voicemail])
	require.NoError(t, err)
	assert.Equal(t, "queued", string(vm.Status), "the voicemail step rings 20 seconds")
	e.acct.Advance(10 * time.Minute)

	c, err := e.c.Calls.Get(ctx, placed[customer])
	require.NoError(t, err)
	assert.Equal(t, "completed", string(c.Status))
	assert.Equal(t, 140, c.Duration)
	assert.Equal(t, "Agent: Hello from Ava.\nCaller: I'd like a quote.", *c.Transcript)
	require.NotNil(t, c.LeadID, "the caller's details made a lead")
	lead, err := e.c.Leads.Get(ctx, *c.LeadID)
	require.NoError(t, err)
	assert.Equal(t, "Dana Reyes", *lead.Name)
	assert.Equal(t, "dana@example.com", *lead.Email)

	vm, err = e.c.Calls.Get(ctx, placed[voicemail])
	require.NoError(t, err)
	assert.Equal(t, "completed", string(vm.Status))
	assert.Equal(t, "voicemail", *vm.EndedReason)
	assert.True(t, strings.HasPrefix(*vm.Transcript, "Agent: Hi"), *vm.Transcript)
	assert.NotContains(t, *vm.Transcript, "Caller:", "nobody answered")
	assert.Equal(t, before+3+1, e.srv.MinutesUsed(e.acct.BusinessID), "140 s and a short voicemail, billed by the started minute")

	got, err := e.acct.ScriptSteps()
	require.NoError(t, err)
	require.Len(t, got, 3)
	for i, id := range []string{placed[customer], placed[voicemail]} {
		assert.Equal(t, admin.StepUsed, got[i].Status)
		require.NotNil(t, got[i].UsedBy)
		assert.Equal(t, id, *got[i].UsedBy)
		assert.Equal(t, afternoonET, got[i].UsedAt.UTC(), "used when the call was placed")
	}
	assert.Equal(t, admin.StepUsed, got[2].Status)
	assert.Nil(t, got[2].UsedBy, "a rejected call stores nothing to point to")
	e.acct.VerifyScript(t)
}

// A step for another tenant's number, or left unused, is reported by
// VerifyScript; a step's kind only matches its own channel.
func TestVerifyScriptReportsUnusedSteps(t *testing.T) {
	t.Parallel()
	e := newTelEnv(t)
	other, err := e.srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	_, err = other.Script(Script{Calls: []CallStep{{To: "*", Outcome: "busy"}}})
	require.NoError(t, err)
	_, err = e.acct.Script(Script{Texts: []TextStep{{To: "+14155550150", Outcome: "failed"}}})
	require.NoError(t, err)

	c, err := e.c.Calls.Create(context.Background(), &calls.CreateParams{AgentID: e.acct.AgentID, To: "+14155550150"})
	require.NoError(t, err)
	e.acct.Advance(10 * time.Minute)
	got, err := e.c.Calls.Get(context.Background(), c.ID)
	require.NoError(t, err)
	assert.Equal(t, "completed", string(got.Status), "neither the other tenant's call step nor this tenant's text step applies")

	rec := &recordingTB{TB: t}
	e.acct.VerifyScript(rec)
	require.Len(t, rec.errors, 1)
	assert.Contains(t, rec.errors[0], "a text to +14155550150, failed")
	rec = &recordingTB{TB: t}
	other.VerifyScript(rec)
	assert.Len(t, rec.errors, 1)

	n, err := e.acct.ClearScript()
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	rec = &recordingTB{TB: t}
	e.acct.VerifyScript(rec)
	assert.Empty(t, rec.errors, "nothing pending is left")
}

// recordingTB records the errors a helper reports instead of failing the
// test.
type recordingTB struct {
	testing.TB
	errors []string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// Scripted texts through the SDK: a reply arrives after delivery with
// every effect of an inbound text (a lead, sms.received), and a carrier
// failure fails the send once.
func TestScriptedTextsThroughTheSDK(t *testing.T) {
	t.Parallel()
	e := newTelEnv(t)
	ctx := context.Background()
	const to = "+14155550160"
	require.NoError(t, e.srv.SetConsent(e.acct.BusinessID, to, "opted_in"))
	_, err := e.acct.Script(Script{Texts: []TextStep{
		{To: to, Outcome: "failed"},
		{To: "*", Outcome: "delivered", Reply: &TextReply{AfterSeconds: 300, Body: "Yes, my name is Sam Lee, Tuesday works"}},
	}})
	require.NoError(t, err)

	_, err = e.c.SMS.Send(ctx, &sms.SendParams{To: to, FromAgentID: e.acct.AgentID, Message: "Can we confirm Tuesday?"})
	var apiErr *voiceagent.Error
	require.True(t, errors.As(err, &apiErr), "%v", err)
	assert.Equal(t, "sms_send_failed", string(apiErr.Code))
	sent, err := e.c.SMS.Send(ctx, &sms.SendParams{To: to, FromAgentID: e.acct.AgentID, Message: "Can we confirm Tuesday?"})
	require.NoError(t, err, "the failed step is used")
	require.NotEmpty(t, sent)

	e.acct.Advance(time.Minute)
	list, err := e.c.SMS.List(ctx, &sms.ListParams{})
	require.NoError(t, err)
	for _, m := range list.Data {
		assert.NotEqual(t, "inbound", m.Direction, "no reply before its time")
	}
	e.acct.Advance(5 * time.Minute)
	list, err = e.c.SMS.List(ctx, &sms.ListParams{})
	require.NoError(t, err)
	var reply *sms.Message
	for i, m := range list.Data {
		if m.Direction == "inbound" {
			reply = &list.Data[i]
		}
	}
	require.NotNil(t, reply, "the reply arrived")
	assert.Equal(t, to, reply.From)
	assert.Equal(t, e.acct.PhoneNumber, reply.To)
	assert.Equal(t, "Yes, my name is Sam Lee, Tuesday works", reply.Body)
	ls, err := e.c.Leads.List(ctx, &leads.ListParams{Phone: to})
	require.NoError(t, err)
	require.Len(t, ls.Data, 1, "the reply made a lead")
	assert.Equal(t, "Sam Lee", *ls.Data[0].Name)
	e.lastEvent(t, "sms.received")
	e.acct.VerifyScript(t)
}

// An approval request's call follows the script: a busy approver is
// unreachable.
func TestApprovalRequestsFollowScripts(t *testing.T) {
	t.Parallel()
	e := newTelEnv(t)
	const approver = "+14155550177"
	_, err := e.acct.Script(Script{Calls: []CallStep{{To: approver, Outcome: "busy"}}})
	require.NoError(t, err)
	created := rawDo(t, http.MethodPost, e.srv.URL+"/v1/approval-requests", approvalRequestBody(approver), bearer(e.acct.APIKey)...)
	require.Equal(t, http.StatusCreated, created.status, string(created.body))
	e.acct.Advance(time.Minute)
	got := rawDo(t, http.MethodGet, e.srv.URL+"/v1/approval-requests?id="+created.json["id"].(string), "", bearer(e.acct.APIKey)...)
	require.Equal(t, http.StatusOK, got.status, string(got.body))
	assert.Equal(t, "unreachable", got.json["status"], "the approver's line was busy")
	e.acct.VerifyScript(t)
}

// A communication run's call touch and an SDR pipeline call follow the
// script like a call of the API.
func TestRunsAndTheSDRPipelineFollowScripts(t *testing.T) {
	t.Parallel()
	e := newTelEnv(t)
	ctx := context.Background()
	const (
		runTarget = "+14155550170"
		sdrTarget = "+14155550171"
	)
	_, err := e.acct.Script(Script{Calls: []CallStep{
		{To: runTarget, Outcome: "busy"},
		{To: sdrTarget, Outcome: "completed", Duration: voiceagent.Int(75), Summary: "Booked a demo for Friday."},
	}})
	require.NoError(t, err)

	run, err := e.c.Runs.Create(ctx, &runs.CreateParams{
		BusinessID: e.acct.BusinessID, ExternalRef: "scripted-run",
		Touches: []runs.TouchParams{{TouchID: "t1", Channel: runs.ChannelCall,
			Target: runs.Target{Phone: runTarget}, ScheduledAt: e.acct.Now()}},
	}, voiceagent.WithIdempotencyKey("scripted-run"))
	require.NoError(t, err)

	leadsOut, err := e.srv.SeedLeads(e.acct.BusinessID, []LeadFixture{{Name: "Lee Park", Phone: sdrTarget}})
	require.NoError(t, err)
	_, err = e.c.SDR.UpdateConfig(ctx, &sdr.ConfigParams{BusinessID: e.acct.BusinessID, Enabled: voiceagent.Bool(true)})
	require.NoError(t, err)
	act, err := e.c.SDR.Act(ctx, &sdr.ActionParams{BusinessID: e.acct.BusinessID, LeadID: leadsOut[0], Action: sdr.ActionCall})
	require.NoError(t, err)
	require.True(t, act.Success, act.Detail)

	e.acct.Advance(time.Hour)
	got, err := e.c.Runs.Get(ctx, run.ID)
	require.NoError(t, err)
	touch := got.Touches[0]
	assert.Equal(t, "failed", touch.Status)
	require.NotNil(t, touch.Error)
	assert.Equal(t, "busy", touch.Error.Code, "the run touch followed the busy step")

	page, err := e.c.Calls.List(ctx, nil)
	require.NoError(t, err)
	var sdrCall *calls.Call
	for i, c := range page.Data {
		if c.ID != *touch.CallID {
			sdrCall = &page.Data[i]
		}
	}
	require.NotNil(t, sdrCall)
	detail, err := e.c.Calls.Get(ctx, sdrCall.ID)
	require.NoError(t, err)
	assert.Equal(t, 75, detail.Duration)
	assert.Equal(t, "Booked a demo for Friday.", *detail.Summary, "the SDR call followed the completed step")
	e.acct.VerifyScript(t)
}

// A request refused by a step, retried by the SDK with its idempotency key,
// gets the same response: the retry does not take the next step.
func TestRetriesOfAScriptedRefusalReplayIt(t *testing.T) {
	t.Parallel()
	e := newTelEnv(t)
	ctx := context.Background()
	const to = "+14155550175"
	require.NoError(t, e.srv.SetConsent(e.acct.BusinessID, to, "opted_in"))
	_, err := e.acct.Script(Script{
		Calls: []CallStep{{To: to, Outcome: "rejected"}, {To: to, Outcome: "busy"}},
		Texts: []TextStep{{To: to, Outcome: "failed"}, {To: to, Outcome: "delivered"}},
	})
	require.NoError(t, err)
	c := e.acct.Client(voiceagent.WithMaxRetries(2), voiceagent.WithRetryWait(time.Millisecond, time.Millisecond))

	_, err = c.Calls.Create(ctx, &calls.CreateParams{AgentID: e.acct.AgentID, To: to}, voiceagent.WithIdempotencyKey("call-1"))
	var apiErr *voiceagent.Error
	require.True(t, errors.As(err, &apiErr), "%v", err)
	assert.Equal(t, "call_failed", string(apiErr.Code))
	_, err = c.SMS.Send(ctx, &sms.SendParams{To: to, FromAgentID: e.acct.AgentID, Message: "Hi"}, voiceagent.WithIdempotencyKey("text-1"))
	require.True(t, errors.As(err, &apiErr), "%v", err)
	assert.Equal(t, "sms_send_failed", string(apiErr.Code))

	steps, err := e.acct.ScriptSteps()
	require.NoError(t, err)
	require.Len(t, steps, 4)
	assert.Equal(t, []admin.StepStatus{"used", "pending", "used", "pending"},
		[]admin.StepStatus{steps[0].Status, steps[1].Status, steps[2].Status, steps[3].Status}, "each retry replayed the refusal")
	page, err := c.Calls.List(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, page.Data)
}

// A tenant holds at most 10,000 pending script steps: a request past the
// bound is refused naming its first step past it, and adds nothing. GET
// /_mock/scripts lists pages of at most 1,000 steps oldest first, read on
// with after; the Go helpers read every page.
func TestScriptsAreBoundedAndPaged(t *testing.T) {
	t.Parallel()
	e := newTelEnv(t)
	ctx := context.Background()
	url := e.srv.AdminURL + "/scripts"
	add := func(calls, texts int) rawResp {
		t.Helper()
		steps := func(n int, step string) string { return strings.TrimSuffix(strings.Repeat(step+",", n), ",") }
		body := fmt.Sprintf(`{"business_id":%q,"calls":[%s],"texts":[%s]}`, e.acct.BusinessID,
			steps(calls, `{"to":"*","outcome":"busy"}`), steps(texts, `{"to":"*","outcome":"delivered"}`))
		return rawDo(t, http.MethodPost, url, body)
	}
	list := func(query string) rawResp {
		t.Helper()
		return rawDo(t, http.MethodGet, url+"?business_id="+e.acct.BusinessID+query, "")
	}

	// One step used, then 9,999 pending.
	_, err := e.acct.Script(Script{Calls: []CallStep{{To: "+14155550150", Outcome: "completed"}}})
	require.NoError(t, err)
	_, err = e.c.Calls.Create(ctx, &calls.CreateParams{AgentID: e.acct.AgentID, To: "+14155550150"})
	require.NoError(t, err)
	for i := range 5 {
		r := add(1000, 1000-i/4)
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	}

	r := add(1, 1)
	assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	assert.Equal(t, "invalid_request", r.code())
	assert.Contains(t, r.message(), "holds 9999 pending script steps and may hold at most 10000")
	details, _ := r.json["error"].(map[string]any)["details"].([]any)
	require.Len(t, details, 1)
	assert.Equal(t, "/texts/0", details[0].(map[string]any)["path"], "the first step past the bound")
	r = add(1, 0)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	r = add(0, 1)
	assert.Equal(t, http.StatusBadRequest, r.status, "%s", r.body)
	_, err = e.acct.Script(Script{Calls: []CallStep{{To: "*", Outcome: "busy"}}})
	var mockErr *Error
	require.ErrorAs(t, err, &mockErr, "the Go helper meets the same bound")
	assert.Equal(t, http.StatusBadRequest, mockErr.Status)
	other, err := e.srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	_, err = other.Script(Script{Calls: []CallStep{{To: "*", Outcome: "busy"}}})
	require.NoError(t, err, "another tenant's bound is its own")

	// The pages: 10,001 steps oldest first, the used one first.
	var ids []string
	after := ""
	for pages := 0; ; pages++ {
		require.Less(t, pages, 11, "10,001 steps are 11 pages")
		r := list(after)
		require.Equal(t, http.StatusOK, r.status, "%s", r.body)
		steps := r.json["steps"].([]any)
		for _, st := range steps {
			ids = append(ids, st.(map[string]any)["id"].(string))
		}
		if pages == 0 {
			require.Len(t, steps, 1000, "a page holds 1,000 steps by default")
			assert.Equal(t, "used", steps[0].(map[string]any)["status"], "oldest first")
		}
		if r.json["has_more"] != true {
			break
		}
		after = "&after=" + steps[len(steps)-1].(map[string]any)["created_at"].(string)
	}
	require.Len(t, ids, 10_001)
	seen := map[string]bool{}
	for _, id := range ids {
		assert.False(t, seen[id], "step %s listed twice", id)
		seen[id] = true
	}

	r = list("&status=used")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	require.Len(t, r.json["steps"], 1)
	assert.Equal(t, ids[0], r.json["steps"].([]any)[0].(map[string]any)["id"])
	assert.Equal(t, false, r.json["has_more"])
	r = list("&status=pending&limit=3")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Equal(t, []any{ids[1], ids[2], ids[3]}, []any{
		r.json["steps"].([]any)[0].(map[string]any)["id"], r.json["steps"].([]any)[1].(map[string]any)["id"], r.json["steps"].([]any)[2].(map[string]any)["id"],
	})
	assert.Equal(t, true, r.json["has_more"])
	for _, bad := range []string{"&limit=1001", "&limit=0", "&status=bogus", "&after=yesterday"} {
		r := list(bad)
		assert.Equal(t, http.StatusBadRequest, r.status, bad)
		assert.Equal(t, "invalid_request", r.code(), bad)
	}

	// The Go helpers read every page.
	steps, err := e.acct.ScriptSteps()
	require.NoError(t, err)
	require.Len(t, steps, len(ids))
	for i, st := range steps {
		if st.ID != ids[i] {
			t.Fatalf("step %d is %s, GET /_mock/scripts listed %s", i, st.ID, ids[i])
		}
	}
	rec := &recordingTB{TB: t}
	e.acct.VerifyScript(rec)
	assert.Len(t, rec.errors, 10_000, "every pending step is reported, however many pages")
	n, err := e.acct.ClearScript()
	require.NoError(t, err)
	assert.Equal(t, 10_000, n)
	r = add(1000, 1000)
	assert.Equal(t, http.StatusCreated, r.status, "cleared, the tenant may add steps again")
}
