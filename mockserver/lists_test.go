package mockserver

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// TestListsShowEveryChange changes leads, calls, agents and texts through
// each path that changes them (write routes, inbound calls and texts, the
// call and text simulation on the clock, governed updates, personas,
// fixtures, products and knowledge), reading GET /v1/leads, /v1/calls,
// /v1/agents, /v1/sms/messages, /v1/events, /v1/products, /v1/knowledge
// and the other lists before and after each: the reads show each change.
func TestListsShowEveryChange(t *testing.T) {
	srv, acct := startWithAccount(t, WithStartTime(afternoonET), WithRateLimits(false))
	key := bearer(acct.APIKey)
	read := func(path string) string {
		t.Helper()
		r := rawDo(t, http.MethodGet, srv.URL+path, "", key...)
		require.Equal(t, http.StatusOK, r.status, "%s: %s", path, r.body)
		return string(r.body)
	}
	lists := func() string {
		return read("/v1/leads?limit=100") + read("/v1/calls?limit=100") + read("/v1/agents") + read("/v1/sms/messages?limit=100") +
			read("/v1/events?limit=100") + read("/v1/products?limit=100") + read("/v1/knowledge?limit=100") +
			read("/v1/transcripts?limit=50") + read("/v1/usage?limit=100") +
			read("/v1/governed-updates?limit=100") + read("/v1/approval-requests?limit=100") +
			read("/v1/communication-runs?limit=100") + read("/v1/numbers") + read("/sdr/activity?limit=200&businessId="+acct.BusinessID) +
			read("/v1/webhooks?limit=100")
	}
	do := func(method, path, body string, want int, header ...string) map[string]any {
		t.Helper()
		r := rawDo(t, method, srv.URL+path, body, append(key, header...)...)
		require.Equal(t, want, r.status, "%s %s: %s", method, path, r.body)
		return r.json
	}

	// callbackAttempts waits until the approval callback (posted in real
	// time, to a port nothing listens on) has made n attempts.
	callbackAttempts := func(n int) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		got := srv.WaitDeliveries(ctx, func(d *Delivery) bool {
			return d.Kind == store.DeliveryApprovalCallback && len(d.Attempts) >= n
		})
		require.NotEmpty(t, got, "the approval callback made %d attempts", n)
	}
	catalog := map[string]string{} // the ids of the product and the knowledge entry
	var hook string                // the webhook subscription's id
	steps := []struct {
		name  string
		do    func()
		shows []string // what the lists show afterwards
	}{
		{"inbound texts make leads", func() {
			for i := range 3 {
				_, err := srv.InboundSMS(InboundSMS{To: acct.PhoneNumber, From: fmt.Sprintf("+1555123000%d", i), Body: "Hi, this is Jane Doe, I would like a quote"})
				require.NoError(t, err)
			}
		}, []string{`"phone":"+15551230000"`}},
		{"calls placed", func() {
			for _, to := range []string{"+15551230000", "+15005550001", "+15005550002"} {
				do(http.MethodPost, "/v1/calls", `{"agent_id":"`+acct.AgentID+`","to":"`+to+`","name":"Jane"}`, http.StatusCreated)
			}
		}, []string{`"status":"queued"`}},
		{"the clock answers the calls", func() { srv.Advance(5 * time.Second) }, []string{`"status":"in-progress"`}},
		{"the clock ends them", func() { srv.Advance(10 * time.Minute) }, []string{`"status":"completed"`, `"status":"failed"`, `"status":"contacted"`}},
		{"an inbound call answered", func() {
			_, err := srv.InboundCall(InboundCall{To: acct.PhoneNumber, From: "+15551230001", Caller: Caller{Name: "Ann Lee", Said: "I need to book an appointment"}})
			require.NoError(t, err)
			srv.Advance(time.Hour)
		}, []string{`"name":"Ann Lee"`, `"status":"ended"`}},
		{"an inbound call missed, with a voicemail", func() {
			no := false
			_, err := srv.InboundCall(InboundCall{To: acct.PhoneNumber, From: "+15551230002", Answered: &no, Voicemail: "Call me back, this is Bo Chen"})
			require.NoError(t, err)
			srv.Advance(time.Hour)
		}, []string{`"status":"no-answer"`, `"summary":"Voicemail from`}},
		{"a lead patched", func() {
			tx := srv.platform.ReadTx()
			l := tx.LeadByPhone(acct.BusinessID, "+15551230000")
			tx.End()
			do(http.MethodPatch, "/v1/leads", `{"id":"`+l.ID+`","status":"qualified","name":"Patched Name"}`, http.StatusOK)
		}, []string{`"name":"Patched Name"`, `"status":"qualified"`}},
		{"the outbound-sales pipeline pauses the lead, then resumes it", func() {
			tx := srv.platform.ReadTx()
			l := tx.LeadByPhone(acct.BusinessID, "+15551230000")
			tx.End()
			for _, action := range []string{"pause", "resume"} {
				do(http.MethodPost, "/sdr/action", `{"businessId":"`+acct.BusinessID+`","leadId":"`+l.ID+`","action":"`+action+`"}`, http.StatusOK)
			}
		}, []string{`"action":"pause"`, `"action":"resume"`}},
		{"the agent renamed (leads and calls show its name)", func() {
			do(http.MethodPatch, "/v1/agents", `{"id":"`+acct.AgentID+`","name":"Renamed Agent"}`, http.StatusOK)
		}, []string{`"agent_name":"Renamed Agent"`}},
		{"its SMS prompt updated", func() {
			do(http.MethodPost, "/v1/sms/update-prompt", `{"agent_id":"`+acct.AgentID+`","sms_prompt":"Be brief."}`, http.StatusOK)
		}, nil},
		{"a persona loaded", func() {
			do(http.MethodPost, "/v1/agents/persona", `{"agent_id":"`+acct.AgentID+`","persona":{"lead_name":"Pat","scenario":"a test"}}`, http.StatusOK)
		}, nil},
		{"a governed rename", func() {
			do(http.MethodPost, "/v1/governed-updates", `{"intent":"agent.patch","target":{"agent_id":"`+acct.AgentID+
				`"},"payload":{"name":"Governed Agent"},"idempotency_key":"cache-gov","authority":{"mode":"system_policy"}}`, http.StatusOK)
		}, []string{`"agent_name":"Governed Agent"`, `"name":"Governed Agent"`}},
		{"a second agent", func() {
			do(http.MethodPost, "/v1/agents", `{"business_id":"`+acct.BusinessID+`","name":"Second","system_prompt":"Hi"}`, http.StatusCreated)
		}, []string{`"name":"Second"`}},
		{"a text sent", func() {
			do(http.MethodPost, "/v1/sms/send", `{"from_agent_id":"`+acct.AgentID+`","to":"+15551230001","message":"Thanks!"}`, http.StatusOK)
		}, []string{`"body":"Thanks!","status":"sent"`}},
		{"the clock delivers it", func() { srv.Advance(5 * time.Second) }, []string{`"body":"Thanks!","status":"delivered"`}},
		{"a product and a knowledge entry", func() {
			catalog["product"] = do(http.MethodPost, "/v1/products", `{"business_id":"`+acct.BusinessID+`","name":"Water heater","price":900}`, http.StatusCreated)["id"].(string)
			catalog["knowledge"] = do(http.MethodPost, "/v1/knowledge", `{"business_id":"`+acct.BusinessID+`","title":"Hours","content":"We open at 8.","content_type":"faq"}`, http.StatusCreated)["id"].(string)
		}, []string{`"name":"Water heater"`, `"title":"Hours"`}},
		{"both updated", func() {
			do(http.MethodPost, "/v1/products", `{"id":"`+catalog["product"]+`","price":950,"sku":"WH-1"}`, http.StatusOK)
			do(http.MethodPost, "/v1/knowledge", `{"id":"`+catalog["knowledge"]+`","business_id":"`+acct.BusinessID+`","content":"We open at 7."}`, http.StatusOK)
		}, []string{`"price":950`, `"sku":"WH-1"`, `"content":"We open at 7."`}},
		{"a governed update queued, then approved", func() {
			gov := do(http.MethodPost, "/v1/governed-updates", `{"intent":"agent.patch","target":{"agent_id":"`+acct.AgentID+
				`"},"payload":{"name":"Queued Agent"},"idempotency_key":"cache-queued","queue_for_approval":true}`, http.StatusAccepted)
			for range 3 {
				assert.True(t, strings.Contains(lists(), `"status":"pending_approval"`)) // kept while pending
			}
			r := rawDo(t, http.MethodPost, srv.URL+"/v1/governed-updates/decide", `{"id":"`+gov["id"].(string)+`","decision":"approve"}`,
				"Cookie", httpapi.SessionCookie+"="+acct.Session) // a decision is a signed-in person's
			require.Equal(t, http.StatusOK, r.status, "decide: %s", r.body)
		}, []string{`"decided_by":"` + acct.UserID + `"`, `"name":"Queued Agent"`}},
		{"an approval request called, answered, its callback tried", func() {
			do(http.MethodPost, "/v1/approval-requests", `{"source":"ops","source_request_id":"cache-1","principal_id":"p1",`+
				`"channel":{"type":"voice","address":"+15551230005"},"summary":"Refund?","risk_level":"low",`+
				`"expires_at":"2030-01-01T00:00:00Z","callback_url":"http://127.0.0.1:9/cb"}`, http.StatusCreated)
			for range 3 {
				assert.True(t, strings.Contains(lists(), `"status":"calling"`))
			}
			srv.Advance(10 * time.Minute)
			callbackAttempts(1)
		}, []string{`"status":"approved"`, `"attempts":[{`}},
		{"the clock retries the callback", func() {
			srv.Advance(time.Hour)
			callbackAttempts(2)
		}, []string{`"attempts":[{"at":`, `},{"at":`}}, // the list shows both attempts
		{"a communication run's touches run", func() {
			at := srv.Now().Add(time.Minute).UTC().Format(time.RFC3339)
			do(http.MethodPost, "/v1/communication-runs", `{"business_id":"`+acct.BusinessID+`","external_ref":"cache-run","touches":[`+
				`{"touch_id":"t1","channel":"sms","message":"Hi","target":{"phone":"+15551230001"},"scheduled_at":"`+at+`"},`+
				`{"touch_id":"t2","channel":"call","target":{"phone":"+15551230000","name":"Jane"},"scheduled_at":"`+at+`"}]}`,
				http.StatusCreated, "Idempotency-Key", "cache-run")
			for range 3 {
				assert.True(t, strings.Contains(lists(), `"external_ref":"cache-run","status":"scheduled"`))
			}
			srv.Advance(2 * time.Minute) // the touches start
			for range 3 {
				assert.True(t, strings.Contains(lists(), `"external_ref":"cache-run","status":"running"`))
			}
			srv.Advance(time.Hour) // and end
		}, []string{`"external_ref":"cache-run","status":"completed"`}},
		{"a webhook subscription made, then changed", func() {
			hook = do(http.MethodPost, "/v1/webhooks", `{"business_id":"`+acct.BusinessID+`","webhook_url":"https://hooks.example/a"}`, http.StatusCreated)["id"].(string)
			for range 3 {
				assert.Contains(t, lists(), `"webhook_url":"https://hooks.example/a"`)
			}
			do(http.MethodPost, "/v1/webhooks", `{"id":"`+hook+`","business_id":"`+acct.BusinessID+`","webhook_url":"https://hooks.example/b",`+
				`"custom_headers":{"X-Team":"ops"}}`, http.StatusOK)
		}, []string{`"webhook_url":"https://hooks.example/b"`, `"custom_headers":{"X-Team":null}`}},
		{"its secret rotated with an hour's grace", func() {
			do(http.MethodPost, "/v1/webhooks/rotate-secret", `{"id":"`+hook+`","grace_period_seconds":3600}`, http.StatusOK)
		}, []string{`"previous_secrets":[{"created_at":`}},
		{"the clock passes the grace: the old secret no longer shows", func() { srv.Advance(2 * time.Hour) },
			[]string{`"previous_secrets":[]`}},
		{"fixtures", func() {
			_, err := srv.SeedLeads(acct.BusinessID, []LeadFixture{{Name: "Seeded Lead", Phone: "+15551239999"}})
			require.NoError(t, err)
			_, err = srv.SeedCalls(acct.BusinessID, []CallFixture{{To: "+15551239999", Duration: 42, Summary: "Seeded call"}})
			require.NoError(t, err)
		}, []string{`"name":"Seeded Lead"`, `"summary":"Seeded call"`}},
	}
	hides := map[string][]string{ // what the lists no longer show after a step
		"a webhook subscription made, then changed":                  {"hooks.example/a"},
		"the clock passes the grace: the old secret no longer shows": {`"previous_secrets":[{`},
	}
	assert.Contains(t, lists(), `"phone_number":"`+acct.PhoneNumber+`"`)
	for _, st := range steps {
		lists()
		st.do()
		got := lists()
		for _, want := range st.shows {
			assert.True(t, strings.Contains(got, want), "after %s, the lists do not show %s", st.name, want)
		}
		for _, gone := range hides[st.name] {
			assert.False(t, strings.Contains(got, gone), "after %s, the lists still show %s", st.name, gone)
		}
		delete(hides, st.name)
	}
	assert.Empty(t, hides, "every step hides names is a step")
}

// TestListsAfterAResetShowOnlyTheNewState fills the lists, resets the
// server and does it again with another agent name: the lists show the
// new records only.
func TestListsAfterAResetShowOnlyTheNewState(t *testing.T) {
	fill := func(srv *TestServer, agentName string) (string, *Account) {
		t.Helper()
		acct, err := srv.NewAccount(AccountOptions{})
		require.NoError(t, err)
		key := bearer(acct.APIKey)
		do := func(method, path, body string, want int) {
			t.Helper()
			r := rawDo(t, method, srv.URL+path, body, key...)
			require.Equal(t, want, r.status, "%s %s: %s", method, path, r.body)
		}
		do(http.MethodPatch, "/v1/agents", `{"id":"`+acct.AgentID+`","name":"`+agentName+`"}`, http.StatusOK)
		_, err = srv.InboundSMS(InboundSMS{To: acct.PhoneNumber, From: "+15551230000", Body: "Hi, this is " + agentName + " calling, I would like a quote"})
		require.NoError(t, err)
		do(http.MethodPost, "/v1/calls", `{"agent_id":"`+acct.AgentID+`","to":"+15551230000"}`, http.StatusCreated)
		srv.Advance(10 * time.Minute)
		var got string
		for range 2 { // a read again shows the same
			got = ""
			for _, path := range []string{"/v1/leads?limit=100", "/v1/calls?limit=100", "/v1/agents"} {
				r := rawDo(t, http.MethodGet, srv.URL+path, "", key...)
				require.Equal(t, http.StatusOK, r.status, "%s: %s", path, r.body)
				got += string(r.body)
			}
		}
		return got, acct
	}
	srv := Start(t, WithStartTime(afternoonET), WithRateLimits(false), WithIDSeed(18))
	before, old := fill(srv, "Before Reset")
	assert.Contains(t, before, `"agent_name":"Before Reset"`)
	r := rawDo(t, http.MethodPost, srv.AdminURL+"/reset", "")
	require.Equal(t, http.StatusOK, r.status)
	after, acct := fill(srv, "After Reset")
	assert.NotContains(t, after, "Before Reset")
	assert.Contains(t, after, `"agent_name":"After Reset"`)
	assert.Contains(t, after, `"business_id":"`+acct.BusinessID+`"`)
	assert.NotContains(t, after, old.BusinessID)
	assert.NotContains(t, after, old.AgentID)
}

// TestListsFollowEachTenantsClock places calls in two tenants, reads both
// tenants' lists, and advances one tenant's clock at a time: the calls,
// and the leads they contact, change in that tenant only, and each
// tenant's lists show its own state after every step.
func TestListsFollowEachTenantsClock(t *testing.T) {
	srv := Start(t, WithStartTime(afternoonET), WithRateLimits(false))
	var accts [2]*Account
	for i := range accts {
		acct, err := srv.NewAccount(AccountOptions{BusinessName: fmt.Sprint("Tenant ", i)})
		require.NoError(t, err)
		accts[i] = acct
		for j := range 2 {
			to := fmt.Sprintf("+1555123%d00%d", i, j)
			_, err := srv.InboundSMS(InboundSMS{To: acct.PhoneNumber, From: to, Body: "Hi, this is Jane Doe, I would like a quote"})
			require.NoError(t, err)
			r := rawDo(t, http.MethodPost, srv.URL+"/v1/calls", `{"agent_id":"`+acct.AgentID+`","to":"`+to+`"}`, bearer(acct.APIKey)...)
			require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		}
	}
	lists := func(acct *Account) string {
		t.Helper()
		var got string
		for range 2 { // a read again shows the same
			got = ""
			for _, path := range []string{"/v1/leads?limit=100", "/v1/calls?limit=100", "/v1/agents"} {
				r := rawDo(t, http.MethodGet, srv.URL+path, "", bearer(acct.APIKey)...)
				require.Equal(t, http.StatusOK, r.status, "%s: %s", path, r.body)
				got += string(r.body)
			}
		}
		return got
	}
	for _, acct := range accts {
		got := lists(acct)
		assert.Contains(t, got, `"status":"queued"`)
		assert.NotContains(t, got, `"status":"completed"`)
	}
	accts[0].Advance(10 * time.Minute)
	first, second := lists(accts[0]), lists(accts[1])
	assert.Contains(t, first, `"status":"completed"`, "the first tenant's calls ended on its clock")
	assert.Contains(t, first, `"status":"contacted"`, "and contacted its leads")
	assert.NotContains(t, first, `"status":"queued"`)
	assert.Contains(t, second, `"status":"queued"`, "the second tenant's clock did not move")
	assert.NotContains(t, second, `"status":"completed"`)
	assert.NotContains(t, second, `"status":"contacted"`)

	accts[1].Advance(10 * time.Minute)
	second = lists(accts[1])
	assert.Contains(t, second, `"status":"completed"`)
	assert.Contains(t, second, `"status":"contacted"`)
	assert.NotContains(t, second, `"status":"queued"`)
	assert.Equal(t, first, lists(accts[0]), "the second tenant's clock changed nothing of the first's")
}
