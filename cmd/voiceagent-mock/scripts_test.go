package main

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Scripts through raw HTTP against the binary: scripted calls and texts,
// used in order per number, "*" for any number, another tenant unaffected,
// the listing, DELETE, a STOP reply and a carrier failure, and bad steps
// refused.
func TestTheBinaryFollowsScripts(t *testing.T) {
	t.Parallel()
	bin, err := buildBinary()
	require.NoError(t, err)
	base, admin := startBinary(t, bin, "-addr", "127.0.0.1:0", "-seed", "none", "-start", "2026-03-10T16:00:00Z")

	account := func() (biz, agent string, auth []string) {
		status, acct := httpJSON(t, http.MethodPost, admin+"/accounts", "{}")
		require.Equal(t, http.StatusCreated, status, acct)
		return acct["business_id"].(string), acct["agent_id"].(string), []string{"Authorization", "Bearer " + acct["api_key"].(string)}
	}
	biz, agent, auth := account()
	otherBiz, otherAgent, otherAuth := account()
	advance := func(biz string, seconds int) {
		status, out := httpJSON(t, http.MethodPost, admin+"/clock/advance", fmt.Sprintf(`{"seconds":%d,"business_id":%q}`, seconds, biz))
		require.Equal(t, http.StatusOK, status, out)
	}
	call := func(agent, to string, auth []string) (int, map[string]any) {
		return httpJSON(t, http.MethodPost, base+"/v1/calls", fmt.Sprintf(`{"agent_id":%q,"to":%q}`, agent, to), auth...)
	}
	getCall := func(id string, auth []string) map[string]any {
		status, c := httpJSON(t, http.MethodGet, base+"/v1/calls?id="+id, "", auth...)
		require.Equal(t, http.StatusOK, status, c)
		return c
	}

	const lead = "+14155550100"
	status, added := httpJSON(t, http.MethodPost, admin+"/scripts", fmt.Sprintf(`{"business_id":%q,"calls":[
		{"to":%q,"outcome":"completed","duration":95,"summary":"The caller booked Tuesday at 10.",
		 "transcript":[{"role":"agent","text":"Hi, this is Ava."},{"role":"caller","text":"Tuesday at 10 works."}]},
		{"to":%q,"outcome":"busy"},
		{"to":"*","outcome":"no_answer","ring_seconds":5}],
		"texts":[{"to":"+14155550101","outcome":"delivered","reply":{"after_seconds":60,"body":"STOP"}},
		{"to":"+14155550102","outcome":"failed"}]}`, biz, lead, lead))
	require.Equal(t, http.StatusCreated, status, added)
	require.Len(t, added["steps"], 5)

	// Two steps for one number, in order; then the "*" step; then the default.
	var ids []string
	for range 4 {
		status, c := call(agent, lead, auth)
		require.Equal(t, http.StatusCreated, status, c)
		ids = append(ids, c["id"].(string))
	}
	status, other := call(otherAgent, lead, otherAuth)
	require.Equal(t, http.StatusCreated, status, other)
	advance(biz, 600)
	advance(otherBiz, 600)

	first := getCall(ids[0], auth)
	assert.Equal(t, "completed", first["status"])
	assert.EqualValues(t, 95, first["duration"])
	assert.Equal(t, "Agent: Hi, this is Ava.\nCaller: Tuesday at 10 works.", first["transcript"])
	assert.Equal(t, "The caller booked Tuesday at 10.", first["summary"])
	second := getCall(ids[1], auth)
	assert.Equal(t, "failed", second["status"])
	assert.Equal(t, "busy", second["error"])
	third := getCall(ids[2], auth)
	assert.Equal(t, "failed", third["status"])
	assert.Equal(t, "no_answer", third["error"], `the "*" step`)
	fourth := getCall(ids[3], auth)
	assert.Equal(t, "completed", fourth["status"], "no step left: the default simulation")
	assert.NotEqual(t, first["transcript"], fourth["transcript"])
	theirs := getCall(other["id"].(string), otherAuth)
	assert.Equal(t, "completed", theirs["status"], "another tenant's call to the number follows no step")
	assert.Equal(t, fourth["duration"], theirs["duration"], "both derived from the number")

	// A scripted reply STOP opts the number out; a scripted carrier failure fails once.
	for _, to := range []string{"+14155550101", "+14155550102"} {
		status, out := httpJSON(t, http.MethodPost, admin+"/consent", fmt.Sprintf(`{"business_id":%q,"phone":%q,"status":"opted_in"}`, biz, to))
		require.Equal(t, http.StatusOK, status, out)
	}
	text := func(to string) (int, map[string]any) {
		return httpJSON(t, http.MethodPost, base+"/v1/sms/send", fmt.Sprintf(`{"to":%q,"from_agent_id":%q,"message":"Can we confirm Tuesday?"}`, to, agent), auth...)
	}
	status, out := text("+14155550101")
	require.Equal(t, http.StatusOK, status, out)
	status, out = text("+14155550102")
	require.Equal(t, http.StatusInternalServerError, status, out)
	assert.Equal(t, "sms_send_failed", out["error"].(map[string]any)["code"])
	status, out = text("+14155550102")
	assert.Equal(t, http.StatusOK, status, "the step is used: the next text is delivered: %v", out)
	advance(biz, 61)
	status, consent := httpJSON(t, http.MethodGet, admin+"/consent?business_id="+biz+"&phone=%2B14155550101", "")
	require.Equal(t, http.StatusOK, status, consent)
	assert.Equal(t, "opted_in", consent["status"], "the reply comes 60 s after delivery, 2 s after sending")
	advance(biz, 2)
	status, consent = httpJSON(t, http.MethodGet, admin+"/consent?business_id="+biz+"&phone=%2B14155550101", "")
	require.Equal(t, http.StatusOK, status, consent)
	assert.Equal(t, "opted_out", consent["status"], "the scripted STOP arrived as an inbound text")

	// The listing shows used steps; DELETE removes pending ones only.
	status, out = httpJSON(t, http.MethodPost, admin+"/scripts", fmt.Sprintf(`{"business_id":%q,"calls":[{"to":"+14155550199","outcome":"voicemail"}]}`, biz))
	require.Equal(t, http.StatusCreated, status, out)
	status, list := httpJSON(t, http.MethodGet, admin+"/scripts?business_id="+biz, "")
	require.Equal(t, http.StatusOK, status, list)
	steps := list["steps"].([]any)
	require.Len(t, steps, 6)
	usedBy := map[string]bool{}
	for _, s := range steps[:5] {
		st := s.(map[string]any)
		assert.Equal(t, "used", st["status"], st)
		if id, ok := st["used_by"].(string); ok {
			usedBy[id] = true
		}
	}
	for _, id := range ids[:3] {
		assert.True(t, usedBy[id], "the listing names call %s", id)
	}
	assert.Equal(t, "pending", steps[5].(map[string]any)["status"])
	status, out = httpJSON(t, http.MethodDelete, admin+"/scripts?business_id="+biz, "")
	require.Equal(t, http.StatusOK, status, out)
	assert.EqualValues(t, 1, out["deleted"])
	status, list = httpJSON(t, http.MethodGet, admin+"/scripts?business_id="+otherBiz, "")
	require.Equal(t, http.StatusOK, status, list)
	assert.Empty(t, list["steps"], "the other tenant has no steps")

	// Bad steps and unknown businesses are refused and add nothing.
	for _, body := range []string{
		fmt.Sprintf(`{"business_id":%q,"calls":[{"to":"+14155550100","outcome":"hung_up"}]}`, biz),
		fmt.Sprintf(`{"business_id":%q,"calls":[{"to":"+14155550100","outcome":"completed"},{"to":"555","outcome":"busy"}]}`, biz),
		fmt.Sprintf(`{"business_id":%q,"calls":[{"to":"+14155550100","outcome":"busy","duration":30}]}`, biz),
		fmt.Sprintf(`{"business_id":%q,"texts":[{"to":"+14155550100","outcome":"failed","reply":{"body":"hi"}}]}`, biz),
		fmt.Sprintf(`{"business_id":%q}`, biz),
	} {
		status, out := httpJSON(t, http.MethodPost, admin+"/scripts", body)
		assert.Equal(t, http.StatusBadRequest, status, "%s: %v", body, out)
	}
	status, out = httpJSON(t, http.MethodPost, admin+"/scripts", `{"business_id":"00000000-0000-4000-8000-000000000000","calls":[{"to":"*","outcome":"busy"}]}`)
	assert.Equal(t, http.StatusNotFound, status, out)
	status, list = httpJSON(t, http.MethodGet, admin+"/scripts?business_id="+biz, "")
	require.Equal(t, http.StatusOK, status, list)
	assert.Len(t, list["steps"], 5, "nothing was added")
}

// The schedule through raw HTTP against the binary: a queued call's work
// is listed, moves on with the tenant's clock and is dropped once done.
func TestTheBinaryListsTheSchedule(t *testing.T) {
	t.Parallel()
	bin, err := buildBinary()
	require.NoError(t, err)
	base, admin := startBinary(t, bin, "-addr", "127.0.0.1:0", "-seed", "none", "-start", "2026-03-10T16:00:00Z")
	status, acct := httpJSON(t, http.MethodPost, admin+"/accounts", "{}")
	require.Equal(t, http.StatusCreated, status, acct)
	biz := acct["business_id"].(string)
	auth := []string{"Authorization", "Bearer " + acct["api_key"].(string)}
	status, call := httpJSON(t, http.MethodPost, base+"/v1/calls", fmt.Sprintf(`{"agent_id":%q,"to":"+14155550190"}`, acct["agent_id"]), auth...)
	require.Equal(t, http.StatusCreated, status, call)

	tasksOf := func() []map[string]any {
		status, out := httpJSON(t, http.MethodGet, admin+"/schedule?business_id="+biz, "")
		require.Equal(t, http.StatusOK, status, out)
		var mine []map[string]any
		for _, task := range out["tasks"].([]any) {
			if task := task.(map[string]any); task["subject_id"] == call["id"] {
				mine = append(mine, task)
			}
		}
		return mine
	}
	queued := tasksOf()
	require.Len(t, queued, 1)
	assert.Equal(t, "call.answer", queued[0]["kind"])
	assert.Equal(t, "2026-03-10T16:00:02.000000000Z", queued[0]["at"])

	advance := func(seconds int) {
		status, out := httpJSON(t, http.MethodPost, admin+"/clock/advance", fmt.Sprintf(`{"seconds":%d,"business_id":%q}`, seconds, biz))
		require.Equal(t, http.StatusOK, status, out)
	}
	advance(3)
	talking := tasksOf()
	require.Len(t, talking, 1)
	assert.Equal(t, "call.end", talking[0]["kind"])
	advance(600)
	assert.Empty(t, tasksOf(), "the call completed: its work is gone")

	status, _ = httpJSON(t, http.MethodGet, admin+"/schedule", "")
	assert.Equal(t, http.StatusBadRequest, status, "business_id is required")
	status, _ = httpJSON(t, http.MethodGet, admin+"/schedule?business_id=00000000-0000-4000-8000-000000000000", "")
	assert.Equal(t, http.StatusNotFound, status)
}
