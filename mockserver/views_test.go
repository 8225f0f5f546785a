package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/internal/wire"
)

// The reads below show their records through struct views (runs.RunView,
// governance.GovernedView, the call detail, the SDR email of lead_email.*
// events). A struct encodes only the members it declares, so a member lost,
// renamed or no longer null when unset would go unnoticed by the SDK's
// decoders: these tests decode each response into map[string]any and compare
// its shape (every member, nested ones included, with the kind of its value:
// string, number, bool, null, object or array) to the shape the API
// documents, with the optional members both present and absent.

// jsonShape is the shape of a decoded JSON value: objects keep their
// members with the shapes of their values, arrays the shapes of their
// items, and every other value becomes the name of its kind.
func jsonShape(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[k] = jsonShape(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = jsonShape(x)
		}
		return out
	case string:
		return "string"
	case float64:
		return "number"
	case bool:
		return "bool"
	case nil:
		return "null"
	}
	panic(fmt.Sprintf("jsonShape: %T", v))
}

// assertShape checks that v has exactly the members and kinds of want, a
// JSON document of the shape (see jsonShape).
func assertShape(t *testing.T, want string, v any, msgAndArgs ...any) {
	t.Helper()
	got, err := json.Marshal(jsonShape(v))
	require.NoError(t, err)
	assert.JSONEq(t, want, string(got), msgAndArgs...)
}

// viewsEnv is a server and an account to read the views with.
type viewsEnv struct {
	t    *testing.T
	srv  *TestServer
	acct *Account
}

func (e viewsEnv) do(method, path, body string, want int, header ...string) rawResp {
	e.t.Helper()
	r := rawDo(e.t, method, e.srv.URL+path, body, append(bearer(e.acct.APIKey), header...)...)
	require.Equal(e.t, want, r.status, "%s %s: %s", method, path, r.body)
	return r
}

func (e viewsEnv) get(path string) map[string]any {
	e.t.Helper()
	return e.do(http.MethodGet, path, "", http.StatusOK).json
}

// list reads a list response and returns its items by id.
func (e viewsEnv) list(path, key string) map[string]map[string]any {
	e.t.Helper()
	items, ok := e.get(path)[key].([]any)
	require.True(e.t, ok, "%s answers %s", path, key)
	out := map[string]map[string]any{}
	for _, it := range items {
		m := it.(map[string]any)
		out[m["id"].(string)] = m
	}
	return out
}

func newViewsEnv(t *testing.T) viewsEnv {
	srv, acct := startWithAccount(t, WithStartTime(afternoonET))
	return viewsEnv{t: t, srv: srv, acct: acct}
}

// Shapes of a communication run and of its touches: scheduled, with every
// optional member of the body given (runScheduledFull) or none (runBare);
// and finished.
const (
	touchCallFull = `{"touch_id":"string","channel":"string",
		"target":{"phone":"string","lead_id":"string","name":"string","email":"string","timezone":"string","state":"string"},
		"scheduled_at":"string","timing_window":{"not_before":"string","not_after":"string"},
		"context":{"plan":"string","seats":"number"},"metadata":{"n":"number"},"message":"string","sms_category":"null",
		"status":"string","execute_at":"string","started_at":"null","completed_at":"null","call_id":"null",
		"message_sid":"null","duration":"null","summary":"null","error":"null"}`
	touchSMSFull = `{"touch_id":"string","channel":"string",
		"target":{"phone":"string","lead_id":"null","name":"null","email":"null","timezone":"null","state":"null"},
		"scheduled_at":"string","timing_window":{"not_before":"string","not_after":"null"},
		"context":"null","metadata":"null","message":"string","sms_category":"string",
		"status":"string","execute_at":"string","started_at":"null","completed_at":"null","call_id":"null",
		"message_sid":"null","duration":"null","summary":"null","error":"null"}`
	touchCallDone = `{"touch_id":"string","channel":"string",
		"target":{"phone":"string","lead_id":"string","name":"string","email":"string","timezone":"string","state":"string"},
		"scheduled_at":"string","timing_window":{"not_before":"string","not_after":"string"},
		"context":{"plan":"string","seats":"number"},"metadata":{"n":"number"},"message":"string","sms_category":"null",
		"status":"string","execute_at":"string","started_at":"string","completed_at":"string","call_id":"string",
		"message_sid":"null","duration":"number","summary":"string","error":"null"}`
	touchSMSSkipped = `{"touch_id":"string","channel":"string",
		"target":{"phone":"string","lead_id":"null","name":"null","email":"null","timezone":"null","state":"null"},
		"scheduled_at":"string","timing_window":{"not_before":"string","not_after":"null"},
		"context":"null","metadata":"null","message":"string","sms_category":"string",
		"status":"string","execute_at":"string","started_at":"string","completed_at":"string","call_id":"null",
		"message_sid":"null","duration":"null","summary":"null","error":{"code":"string","message":"string"}}`
	touchBareFailed = `{"touch_id":"string","channel":"string",
		"target":{"phone":"string","lead_id":"null","name":"null","email":"null","timezone":"null","state":"null"},
		"scheduled_at":"string","timing_window":"null","context":"null","metadata":"null","message":"null","sms_category":"null",
		"status":"string","execute_at":"string","started_at":"string","completed_at":"string","call_id":"string",
		"message_sid":"null","duration":"number","summary":"null","error":{"code":"string","message":"string"}}`
	touchCounts = `{"scheduled":"number","running":"number","completed":"number","failed":"number","skipped":"number"}`
)

// runShape is the shape of a run with the given metadata, touches and
// start and end stamps.
func runShape(metadata, startedAt, completedAt string, touches ...string) string {
	ts := "["
	for i, t := range touches {
		if i > 0 {
			ts += ","
		}
		ts += t
	}
	return `{"id":"string","business_id":"string","external_ref":"string","status":"string","agent_id":"string",
		"assigned_number_id":"null","from_number":"string","from_number_id":"string","metadata":` + metadata + `,
		"touches":` + ts + `],"touch_counts":` + touchCounts + `,"idempotency_key":"string",
		"created_at":"string","updated_at":"string","started_at":"` + startedAt + `","completed_at":"` + completedAt + `"}`
}

func TestCommunicationRunViewMembers(t *testing.T) {
	t.Parallel()
	e := newViewsEnv(t)
	biz := e.acct.BusinessID
	leads, err := e.srv.SeedLeads(biz, []LeadFixture{{Phone: "+15551230101", Name: "Ann"}})
	require.NoError(t, err)
	at := func(d time.Duration) string { return afternoonET.Add(d).UTC().Format(wire.TimeLayout) }
	full := `{"business_id":"` + biz + `","external_ref":"views-full","metadata":{"campaign":"spring","wave":2},"touches":[` +
		`{"touch_id":"t1","channel":"call","message":"Hello Ann","context":{"plan":"pro","seats":3},"metadata":{"n":1},` +
		`"target":{"phone":"+15551230101","lead_id":"` + leads[0] + `","name":"Ann","email":"ann@example.com","timezone":"America/New_York","state":"NY"},` +
		`"scheduled_at":"` + at(time.Minute) + `","timing_window":{"not_before":"` + at(0) + `","not_after":"` + at(24*time.Hour) + `"}},` +
		`{"touch_id":"t2","channel":"sms","message":"Hi","sms_category":"marketing","target":{"phone":"+15551230102"},` +
		`"scheduled_at":"` + at(2*time.Minute) + `","timing_window":{"not_before":"` + at(0) + `"}}]}`
	bare := `{"business_id":"` + biz + `","external_ref":"views-bare","touches":[` +
		`{"touch_id":"t1","channel":"call","target":{"phone":"+15005550001"},"scheduled_at":"` + at(time.Minute) + `"}]}`

	created := e.do(http.MethodPost, "/v1/communication-runs", full, http.StatusCreated, "Idempotency-Key", "views-full").json
	fullShape := runShape(`{"campaign":"string","wave":"number"}`, "null", "null", touchCallFull, touchSMSFull)
	assertShape(t, fullShape, created, "the create's answer")
	fullID := created["id"].(string)
	read := e.get("/v1/communication-runs?id=" + fullID)
	assertShape(t, fullShape, read, "GET ?id=")
	assert.Equal(t, created, read, "the create and the read show the same run")
	assert.Equal(t, map[string]any{"campaign": "spring", "wave": 2.0}, read["metadata"])
	assert.Equal(t, map[string]any{"scheduled": 2.0, "running": 0.0, "completed": 0.0, "failed": 0.0, "skipped": 0.0}, read["touch_counts"])
	touch := read["touches"].([]any)[0].(map[string]any)
	assert.Equal(t, map[string]any{"plan": "pro", "seats": 3.0}, touch["context"])
	assert.Equal(t, map[string]any{"phone": "+15551230101", "lead_id": leads[0], "name": "Ann", "email": "ann@example.com",
		"timezone": "America/New_York", "state": "NY"}, touch["target"])
	assert.Equal(t, at(time.Minute), touch["scheduled_at"])
	assert.Equal(t, "scheduled", touch["status"])

	bareID := e.do(http.MethodPost, "/v1/communication-runs", bare, http.StatusCreated, "Idempotency-Key", "views-bare").json["id"].(string)
	touchBare := `{"touch_id":"string","channel":"string",
		"target":{"phone":"string","lead_id":"null","name":"null","email":"null","timezone":"null","state":"null"},
		"scheduled_at":"string","timing_window":"null","context":"null","metadata":"null","message":"null","sms_category":"null",
		"status":"string","execute_at":"string","started_at":"null","completed_at":"null","call_id":"null",
		"message_sid":"null","duration":"null","summary":"null","error":"null"}`
	assertShape(t, runShape(`"null"`, "null", "null", touchBare), e.get("/v1/communication-runs?id="+bareID))

	e.acct.Advance(time.Hour)
	runs := e.list("/v1/communication-runs?limit=10", "communication_runs")
	require.Len(t, runs, 2)
	assertShape(t, runShape(`{"campaign":"string","wave":"number"}`, "string", "string", touchCallDone, touchSMSSkipped), runs[fullID])
	assert.Equal(t, map[string]any{"scheduled": 0.0, "running": 0.0, "completed": 1.0, "failed": 0.0, "skipped": 1.0}, runs[fullID]["touch_counts"])
	assert.Equal(t, "completed", runs[fullID]["status"])
	assertShape(t, runShape(`"null"`, "string", "string", touchBareFailed), runs[bareID])
	assert.Equal(t, "failed", runs[bareID]["status"])
	assert.Equal(t, runs[bareID], e.get("/v1/communication-runs?id="+bareID), "a list item and the read by id agree")
}

func TestCommunicationRunPreviewMembers(t *testing.T) {
	t.Parallel()
	e := newViewsEnv(t)
	at := func(d time.Duration) string { return afternoonET.Add(d).UTC().Format(wire.TimeLayout) }
	preview := e.do(http.MethodPost, "/v1/communication-runs/preview", `{"business_id":"`+e.acct.BusinessID+`","external_ref":"p","touches":[`+
		`{"touch_id":"late","channel":"call","target":{"phone":"+15551230101","name":"Ann"},"scheduled_at":"`+at(time.Hour)+`"},`+
		`{"touch_id":"early","channel":"sms","message":"Hi","sms_category":"marketing","target":{"phone":"+15551230102"},`+
		`"scheduled_at":"`+at(-time.Hour)+`","timing_window":{"not_before":"`+at(0)+`"}}]}`, http.StatusOK).json
	assertShape(t, `{"valid":"bool","business_id":"string","external_ref":"string","agent_id":"string","from_number":"string","from_number_id":"string",
		"touches":[
			{"touch_id":"string","channel":"string","to":"string","name":"null","scheduled_at":"string","execute_at":"string",
			 "timing_window":{"not_before":"string","not_after":"null"},"message":"string","sms_category":"string"},
			{"touch_id":"string","channel":"string","to":"string","name":"string","scheduled_at":"string","execute_at":"string",
			 "timing_window":"null","message":"null","sms_category":"null"}],
		"summary":{"touches":"number","calls":"number","sms":"number","first_at":"string","last_at":"string"},
		"warnings":[{"path":"string","message":"string"}]}`, preview)
	touches := preview["touches"].([]any)
	assert.Equal(t, "early", touches[0].(map[string]any)["touch_id"], "in execution order")
	assert.Equal(t, at(-time.Hour), touches[0].(map[string]any)["scheduled_at"])
	assert.Equal(t, at(0), touches[0].(map[string]any)["execute_at"], "moved into the window")
	assert.Equal(t, map[string]any{"touches": 2.0, "calls": 1.0, "sms": 1.0, "first_at": at(0), "last_at": at(time.Hour)}, preview["summary"])
	assert.Equal(t, true, preview["valid"])

	quiet := e.do(http.MethodPost, "/v1/communication-runs/preview", `{"business_id":"`+e.acct.BusinessID+`","external_ref":"q","touches":[`+
		`{"touch_id":"t1","channel":"call","target":{"phone":"+15551230101"},"scheduled_at":"`+at(time.Hour)+`"}]}`, http.StatusOK).json
	assert.Equal(t, []any{}, quiet["warnings"], "no warnings: [], not null")
}

// governedShape is the shape of a governed update.
func governedShape(status map[string]string) string {
	s := map[string]string{
		"id": `"string"`, "business_id": `"string"`, "intent": `"string"`, "status": `"string"`, "dry_run": `"bool"`,
		"idempotency_key": `"string"`, "target": `{"agent_id":"string"}`, "payload": `{"name":"string"}`,
		"actor": `"null"`, "authority": `"null"`, "queue_for_approval": `"bool"`, "reason": `"null"`, "source_ref": `"null"`,
		"extra": `"null"`, "result": `"null"`, "error": `"null"`, "decided_by": `"null"`, "decided_at": `"null"`,
		"decision_note": `"null"`, "created_at": `"string"`, "updated_at": `"string"`,
	}
	for k, v := range status {
		s[k] = v
	}
	return shapeObject(s)
}

func TestGovernedUpdateViewMembers(t *testing.T) {
	t.Parallel()
	e := newViewsEnv(t)
	agent := e.acct.AgentID
	queued := e.do(http.MethodPost, "/v1/governed-updates", `{"intent":"agent.patch","target":{"agent_id":"`+agent+`"},"payload":{"name":"Queued"},`+
		`"idempotency_key":"g1","queue_for_approval":true,"reason":"rename","source_ref":"ticket-1","ticket":"T-1",`+
		`"actor":{"type":"agent","id":"a1","display_name":"Bot"},"authority":{"mode":"agent_asserted"}}`, http.StatusAccepted).json
	queuedShape := governedShape(map[string]string{
		"actor": `{"type":"string","id":"string","display_name":"string"}`, "authority": `{"mode":"string"}`,
		"reason": `"string"`, "source_ref": `"string"`, "extra": `{"ticket":"string"}`,
	})
	assertShape(t, queuedShape, queued, "the submit's answer")
	assert.Equal(t, map[string]any{"ticket": "T-1"}, queued["extra"])
	assert.Equal(t, false, queued["dry_run"])
	assert.Equal(t, true, queued["queue_for_approval"])
	read := e.get("/v1/governed-updates?id=" + queued["id"].(string))
	assert.Equal(t, queued, read, "the submit and the read show the same update")

	applied := e.do(http.MethodPost, "/v1/governed-updates", `{"intent":"agent.patch","target":{"agent_id":"`+agent+`"},"payload":{"name":"Applied"},`+
		`"idempotency_key":"g2","authority":{"mode":"agent_asserted"}}`, http.StatusOK).json
	require.IsType(t, map[string]any{}, applied["result"])
	assert.Equal(t, "applied", applied["status"])
	appliedShape := governedShape(map[string]string{"authority": `{"mode":"string"}`})
	var s map[string]any
	require.NoError(t, json.Unmarshal([]byte(appliedShape), &s))
	s["result"] = jsonShape(applied["result"])
	want, _ := json.Marshal(s)
	assertShape(t, string(want), applied)

	rejected := e.do(http.MethodPost, "/v1/governed-updates", `{"intent":"agent.patch","target":{"agent_id":"`+agent+`"},"payload":{"name":"No"},`+
		`"idempotency_key":"g3"}`, http.StatusForbidden)
	rejectedID := rejected.json["error"].(map[string]any)["governed_update_id"].(string)

	decided := rawDo(t, http.MethodPost, e.srv.URL+"/v1/governed-updates/decide", `{"id":"`+queued["id"].(string)+`","decision":"reject","note":"no"}`,
		"Cookie", "voiceagent_session="+e.acct.Session)
	require.Equal(t, http.StatusOK, decided.status, "%s", decided.body)
	decidedShape := governedShape(map[string]string{
		"actor": `{"type":"string","id":"string","display_name":"string"}`, "authority": `{"mode":"string"}`,
		"reason": `"string"`, "source_ref": `"string"`, "extra": `{"ticket":"string"}`,
		"decided_by": `"string"`, "decided_at": `"string"`, "decision_note": `"string"`,
	})
	assertShape(t, decidedShape, decided.json, "the decision's answer")

	all := e.list("/v1/governed-updates?limit=10", "governed_updates")
	require.Len(t, all, 3)
	assert.Equal(t, decided.json, all[queued["id"].(string)])
	assert.Equal(t, applied, all[applied["id"].(string)])
	assertShape(t, governedShape(map[string]string{"error": `{"code":"string","message":"string"}`}), all[rejectedID])
	assert.Equal(t, "rejected", all[rejectedID]["status"])
}

// callDetailShape is the shape of a call read by id and of call events'
// data, with the members that differ.
func callDetailShape(diff map[string]string) string {
	s := map[string]string{
		"id": `"string"`, "conversation_id": `"string"`, "status": `"string"`, "duration": `"number"`, "agent_id": `"string"`,
		"agent_name": `"string"`, "created_at": `"string"`, "direction": `"string"`, "summary": `"null"`, "business_id": `"string"`,
		"lead_id": `"null"`, "recording_url": `"null"`, "transcript": `"null"`, "quality_dimensions": `"null"`, "to": `"string"`,
		"from": `"string"`, "name": `"null"`, "context": `"null"`, "max_duration": `"number"`, "error": `"null"`,
		"ended_reason": `"null"`, "voicemail": `"null"`, "started_at": `"null"`, "ended_at": `"null"`, "updated_at": `"string"`,
	}
	for k, v := range diff {
		if v == "" {
			delete(s, k)
		} else {
			s[k] = v
		}
	}
	return shapeObject(s)
}

// shapeObject writes a shape given member by member as a JSON object.
func shapeObject(s map[string]string) string {
	keys := make([]string, 0, len(s))
	for k := range s {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := "{"
	for i, k := range keys {
		if i > 0 {
			out += ","
		}
		out += `"` + k + `":` + s[k]
	}
	return out + "}"
}

// completedCall are the members a completed call sets.
var completedCall = map[string]string{
	"summary": `"string"`, "recording_url": `"string"`, "transcript": `"string"`, "ended_reason": `"string"`,
	"started_at": `"string"`, "ended_at": `"string"`,
	"quality_dimensions": `{"professionalism":"number","empathy":"number","information_gathering":"number","resolution":"number"}`,
}

// with is base with the members of more added or replaced.
func with(base map[string]string, more map[string]string) map[string]string {
	out := map[string]string{}
	for k, v := range base {
		out[k] = v
	}
	for k, v := range more {
		out[k] = v
	}
	return out
}

func TestCallDetailViewMembers(t *testing.T) {
	t.Parallel()
	e := newViewsEnv(t)
	biz := e.acct.BusinessID
	leads, err := e.srv.SeedLeads(biz, []LeadFixture{{Phone: "+15551230201", Name: "Bo"}})
	require.NoError(t, err)
	plain := e.do(http.MethodPost, "/v1/calls", `{"agent_id":"`+e.acct.AgentID+`","to":"+15551230201","name":"Bo","context":"renewal"}`, http.StatusCreated).json["id"].(string)
	bare := e.do(http.MethodPost, "/v1/calls", `{"agent_id":"`+e.acct.AgentID+`","to":"+15005550001"}`, http.StatusCreated).json["id"].(string)
	queued := e.get("/v1/calls?id=" + plain)
	assertShape(t, callDetailShape(map[string]string{"lead_id": `"string"`, "name": `"string"`, "context": `"string"`}), queued, "a queued call")
	assert.Equal(t, leads[0], queued["lead_id"])
	assert.Equal(t, "renewal", queued["context"])
	assert.Equal(t, "queued", queued["status"])
	assert.Equal(t, 0.0, queued["duration"])

	run := e.do(http.MethodPost, "/v1/communication-runs", `{"business_id":"`+biz+`","external_ref":"views-call","touches":[`+
		`{"touch_id":"t1","channel":"call","target":{"phone":"+15551230202"},"scheduled_at":"`+afternoonET.Format(time.RFC3339)+`"}]}`,
		http.StatusCreated, "Idempotency-Key", "views-call").json
	approval := e.do(http.MethodPost, "/v1/approval-requests", approvalRequestBody("+15551230203"), http.StatusCreated).json

	e.acct.Advance(time.Hour)
	done := e.get("/v1/calls?id=" + plain)
	assertShape(t, callDetailShape(with(completedCall, map[string]string{"lead_id": `"string"`, "name": `"string"`, "context": `"string"`})), done, "a completed call")
	failed := e.get("/v1/calls?id=" + bare)
	assertShape(t, callDetailShape(map[string]string{"error": `"string"`, "ended_reason": `"string"`, "ended_at": `"string"`}), failed, "a failed call")
	assert.Equal(t, "no_answer", failed["error"])

	runs := e.get("/v1/communication-runs?id=" + run["id"].(string))
	callID := runs["touches"].([]any)[0].(map[string]any)["call_id"].(string)
	touchCall := e.get("/v1/calls?id=" + callID)
	assertShape(t, callDetailShape(with(completedCall, map[string]string{
		"communication_run_id": `"string"`, "external_ref": `"string"`, "touch_id": `"string"`})), touchCall, "a run touch's call")
	assert.Equal(t, run["id"], touchCall["communication_run_id"])
	assert.Equal(t, "views-call", touchCall["external_ref"])
	assert.Equal(t, "t1", touchCall["touch_id"])

	approvals := e.get("/v1/approval-requests?id=" + approval["id"].(string))
	approvalCall := e.get("/v1/calls?id=" + approvals["call_id"].(string))
	assertShape(t, callDetailShape(with(completedCall, map[string]string{"context": `"string"`, "approval_request_id": `"string"`})), approvalCall, "an approval's call")
	assert.Equal(t, approval["id"], approvalCall["approval_request_id"])

	// The events and the admin list show the same detail.
	evs := e.get("/v1/events?type=call.completed&limit=100")["events"].([]any)
	found := false
	for _, ev := range evs {
		data := ev.(map[string]any)["data"].(map[string]any)
		if data["id"] == plain {
			found = true
			assert.Equal(t, done, data, "call.completed's data is the call's detail")
		}
	}
	assert.True(t, found, "call.completed of %s", plain)
	admin := rawDo(t, http.MethodGet, e.srv.URL[:len(e.srv.URL)-len("/api")]+"/_mock/calls?business_id="+url.QueryEscape(biz), "")
	require.Equal(t, http.StatusOK, admin.status, "%s", admin.body)
	for _, c := range admin.json["calls"].([]any) {
		if c := c.(map[string]any); c["id"] == bare {
			assert.Equal(t, failed, c, "GET /_mock/calls shows the detail")
		}
	}
}

func TestLeadEmailEventMembers(t *testing.T) {
	t.Parallel()
	e := newViewsEnv(t)
	biz := e.acct.BusinessID
	e.do(http.MethodPut, "/sdr/config", `{"businessId":"`+biz+`","enabled":true}`, http.StatusOK)
	ids, err := e.srv.SeedLeads(biz, []LeadFixture{{Email: "ann@example.com", Name: "Ann"}, {Email: "x@email-fails.example"}})
	require.NoError(t, err)
	for _, id := range ids {
		e.do(http.MethodPost, "/sdr/action", `{"businessId":"`+biz+`","leadId":"`+id+`","action":"email"}`, http.StatusOK)
	}
	e.acct.Advance(time.Minute)
	mail := `{"id":"string","lead_id":"string","business_id":"string","to":"string","from":"string","subject":"string",
		"body":"string","status":"string","error":%s,"created_at":"string","sent_at":%s}`
	for typ, want := range map[string]string{
		"lead_email.sent":   fmt.Sprintf(mail, `"null"`, `"string"`),
		"lead_email.failed": fmt.Sprintf(mail, `"string"`, `"null"`),
	} {
		evs := e.get("/v1/events?type=" + typ)["events"].([]any)
		require.Len(t, evs, 1, typ)
		data := evs[0].(map[string]any)["data"].(map[string]any)
		assertShape(t, want, data, typ)
		assert.Equal(t, biz, data["business_id"])
	}
}
