package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ruleTenant is an account on the binary, with a lead (an inbound
// text's), a queued call made with an Idempotency-Key, its key and its
// session.
type ruleTenant struct {
	name                                          string
	biz, user, agent, number, key, session        string
	lead, call, callBody, idemKey, callResponseID string
}

// newRuleTenant makes an account through the admin API and gives it a lead
// and a queued call.
func newRuleTenant(t *testing.T, base, admin, name string, n int) *ruleTenant {
	t.Helper()
	status, acct := httpJSON(t, http.MethodPost, admin+"/accounts", fmt.Sprintf(`{"business_name":%q}`, name))
	require.Equal(t, http.StatusCreated, status, acct)
	rt := &ruleTenant{name: name, biz: acct["business_id"].(string), user: acct["user_id"].(string),
		agent: acct["agent_id"].(string), number: acct["phone_number"].(string), key: acct["api_key"].(string),
		session: acct["session"].(string), idemKey: "call-of-" + name}
	status, out := httpJSON(t, http.MethodPost, admin+"/inbound-sms",
		fmt.Sprintf(`{"to":%q,"from":"+1415555%04d","body":"Hi, I am %s, do you open on Sundays?"}`, rt.number, 100+n, name))
	require.Equal(t, http.StatusCreated, status, out)
	status, leads := httpJSON(t, http.MethodGet, base+"/v1/leads", "", rt.auth()...)
	require.Equal(t, http.StatusOK, status, leads)
	require.Len(t, leads["leads"], 1)
	rt.lead = leads["leads"].([]any)[0].(map[string]any)["id"].(string)
	rt.callBody = fmt.Sprintf(`{"agent_id":%q,"to":"+1415555%04d"}`, rt.agent, 200+n)
	status, call := httpJSON(t, http.MethodPost, base+"/v1/calls", rt.callBody, append(rt.auth(), "Idempotency-Key", rt.idemKey)...)
	require.Equal(t, http.StatusCreated, status, call)
	rt.call = call["id"].(string)
	return rt
}

func (rt *ruleTenant) auth() []string { return []string{"Authorization", "Bearer " + rt.key} }

// rawGet returns the status and body of a GET with the header pairs.
func rawGet(t *testing.T, url string, header ...string) string {
	t.Helper()
	status, body := httpRaw(t, http.MethodGet, url, "", header...)
	return fmt.Sprintf("%d %s", status, body)
}

// ruleReads returns what every tenant reads, through its key (its leads
// and its call), through its session (its governed updates) and through
// the admin API (its snapshot document), and the list of tenants.
func ruleReads(t *testing.T, base, admin string, tenants ...*ruleTenant) map[string]string {
	t.Helper()
	out := map[string]string{"GET /_mock/tenants": rawGet(t, admin+"/tenants")}
	for _, rt := range tenants {
		out[rt.name+" leads"] = rawGet(t, base+"/v1/leads", rt.auth()...)
		out[rt.name+" call"] = rawGet(t, base+"/v1/calls?id="+rt.call, rt.auth()...)
		out[rt.name+" governed updates by session"] = rawGet(t, base+"/v1/governed-updates?business_id="+rt.biz, "Cookie", "voiceagent_session="+rt.session)
		out[rt.name+" snapshot"] = rawGet(t, admin+"/snapshot?business_id="+rt.biz)
		for k, v := range out {
			if strings.HasPrefix(k, rt.name) {
				require.True(t, strings.HasPrefix(v, "200 "), "%s: %s", k, v)
			}
		}
	}
	return out
}

// snapshotDoc returns the snapshot document of rt's tenant, decoded.
func snapshotDoc(t *testing.T, admin string, rt *ruleTenant) map[string]any {
	t.Helper()
	resp, err := http.Get(admin + "/snapshot?business_id=" + rt.biz)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var doc map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&doc))
	return doc
}

// docTenant is the first tenant of a document; docRecord finds the record
// of a table whose field has the value (the first record without a field).
func docTenant(doc map[string]any) map[string]any { return doc["tenants"].([]any)[0].(map[string]any) }

func docRecord(t *testing.T, ts map[string]any, table, field, value string) map[string]any {
	t.Helper()
	for _, r := range ts["tables"].(map[string]any)[table].([]any) {
		rec := r.(map[string]any)
		if field == "" || rec[field] == value {
			return rec
		}
	}
	t.Fatalf("no %s record with %s %s", table, field, value)
	return nil
}

// docIndex returns the index in its table of a record docRecord found.
func docIndex(ts map[string]any, table string, rec map[string]any) int {
	for i, r := range ts["tables"].(map[string]any)[table].([]any) {
		if r.(map[string]any)["ID"] == rec["ID"] {
			return i
		}
	}
	return -1
}

// Each edited document of the attack on restore, through the
// binary: another tenant's key hash or session token, a refused
// two-tenant document holding a third tenant's key and session, another
// tenant's idempotency record with a changed body, a task naming another
// tenant's queued call, a number routing to another tenant's agent, a call
// pointing at another tenant's agent and lead, a business listing another
// tenant's user, a clock at 9999-12-31. Each is refused (409 for a value
// another tenant holds, else 400) naming the member, and afterwards every
// tenant (the attacker, the victim and a third) reads exactly as before
// through its key, its session and GET /_mock/snapshot, and GET
// /_mock/tenants keeps its order. A clock restored near the end refuses
// the advance that would pass it, and every read and the state file at
// shutdown still work.
func TestTheBinaryRefusesEditedDocumentsAndChangesNoTenant(t *testing.T) {
	t.Parallel()
	bin, err := buildBinary()
	require.NoError(t, err)
	state := filepath.Join(t.TempDir(), "state.json")
	run := startStateful(t, bin, "-addr", "127.0.0.1:0", "-start", "2026-03-10T16:00:00Z", "-state", state)
	base, admin := run.base, run.admin
	attacker := newRuleTenant(t, base, admin, "attacker", 1)
	victim := newRuleTenant(t, base, admin, "victim", 2)
	third := newRuleTenant(t, base, admin, "third", 3)
	all := []*ruleTenant{attacker, victim, third}

	victimDoc, thirdDoc := snapshotDoc(t, admin, victim), snapshotDoc(t, admin, third)
	keyOf := func(doc map[string]any, rt *ruleTenant) map[string]any {
		return docRecord(t, docTenant(doc), "keys", "Owner", rt.user)
	}
	sessionOf := func(doc map[string]any, rt *ruleTenant) map[string]any {
		return docRecord(t, docTenant(doc), "sessions", "Owner", rt.user)
	}
	// attack returns the attacker's document with change made to its
	// tenant, and the path change says the refusal names.
	attack := func(change func(ts map[string]any) string) (map[string]any, string) {
		doc := snapshotDoc(t, admin, attacker)
		return doc, change(docTenant(doc))
	}
	type attackCase struct {
		name   string
		status int
		doc    map[string]any
		path   string
	}
	var cases []attackCase
	add := func(name string, status int, doc map[string]any, path string) {
		cases = append(cases, attackCase{name, status, doc, path})
	}

	// set returns the attacker's document with field set to value in the
	// record of table whose match field is matched, and the path of field.
	set := func(table, match, matched, field string, value any) (map[string]any, string) {
		return attack(func(ts map[string]any) string {
			r := docRecord(t, ts, table, match, matched)
			r[field] = value
			return fmt.Sprintf("tenants.0.tables.%s.%d.%s", table, docIndex(ts, table, r), field)
		})
	}

	doc, path := set("keys", "Owner", attacker.user, "Hash", keyOf(victimDoc, victim)["Hash"])
	add("another tenant's key hash", http.StatusConflict, doc, path)
	doc, path = set("sessions", "Owner", attacker.user, "Token", victim.session)
	add("another tenant's session token", http.StatusConflict, doc, path)

	// The attacker's tenant holds the third tenant's key hash and session
	// token; the victim's, beside it, a number routing to the third
	// tenant's agent.
	doc, path = attack(func(ts map[string]any) string {
		k := docRecord(t, ts, "keys", "Owner", attacker.user)
		k["Hash"] = keyOf(thirdDoc, third)["Hash"]
		docRecord(t, ts, "sessions", "Owner", attacker.user)["Token"] = sessionOf(thirdDoc, third)["Token"]
		return fmt.Sprintf("tenants.0.tables.keys.%d.Hash", docIndex(ts, "keys", k))
	})
	second := snapshotDoc(t, admin, victim)
	docRecord(t, docTenant(second), "numbers", "PhoneNumber", victim.number)["AgentID"] = third.agent
	doc["tenants"] = append(doc["tenants"].([]any), docTenant(second))
	add("a two-tenant document holding a third tenant's key and session", http.StatusConflict, doc, path)

	doc, path = attack(func(ts map[string]any) string {
		stolen := docTenant(victimDoc)["idempotency"].([]any)[0].(map[string]any)
		injected := map[string]any{}
		for k, v := range stolen {
			injected[k] = v
		}
		injected["body"] = map[string]any{"id": "injected", "status": "completed"}
		idem := append(ts["idempotency"].([]any), injected)
		ts["idempotency"] = idem
		return fmt.Sprintf("tenants.0.idempotency.%d.owner", len(idem)-1)
	})
	add("another tenant's idempotency record with a changed body", http.StatusBadRequest, doc, path)

	doc, path = attack(func(ts map[string]any) string {
		tasks := append(ts["tasks"].([]any), map[string]any{"at": ts["now"], "kind": "call.answer", "subject_id": victim.call})
		ts["tasks"] = tasks
		return fmt.Sprintf("tenants.0.tasks.%d.subject_id", len(tasks)-1)
	})
	add("a task naming another tenant's queued call", http.StatusBadRequest, doc, path)

	doc, path = set("numbers", "PhoneNumber", attacker.number, "AgentID", victim.agent)
	add("a number routing to another tenant's agent", http.StatusBadRequest, doc, path)

	doc, path = attack(func(ts map[string]any) string {
		c := docRecord(t, ts, "calls", "ID", attacker.call)
		c["AgentID"], c["LeadID"] = victim.agent, victim.lead
		return fmt.Sprintf("tenants.0.tables.calls.%d.AgentID", docIndex(ts, "calls", c))
	})
	add("a call pointing at another tenant's agent and lead", http.StatusBadRequest, doc, path)

	doc, path = set("calls", "ID", attacker.call, "LeadID", victim.lead)
	add("a call pointing at another tenant's lead", http.StatusBadRequest, doc, path)

	doc, path = attack(func(ts map[string]any) string {
		b := docRecord(t, ts, "businesses", "ID", attacker.biz)
		b["Members"].(map[string]any)[victim.user] = "admin"
		return fmt.Sprintf("tenants.0.tables.businesses.%d.Members", docIndex(ts, "businesses", b))
	})
	add("a business listing another tenant's user as a member", http.StatusBadRequest, doc, path)

	doc, path = attack(func(ts map[string]any) string {
		steps := make([]any, 10_001)
		for j := range steps {
			steps[j] = map[string]any{"ID": fmt.Sprintf("step_%d", j), "Owner": attacker.biz, "CreatedAt": ts["now"],
				"Kind": "call", "To": "*", "Outcome": "completed"}
		}
		ts["tables"].(map[string]any)["scripts"] = steps
		return "tenants.0.tables.scripts.10000"
	})
	add("more pending script steps than a tenant holds", http.StatusBadRequest, doc, path)

	doc, path = attack(func(ts map[string]any) string {
		ts["now"] = "9999-12-31T00:00:00Z"
		return "tenants.0.now"
	})
	add("a clock at 9999-12-31", http.StatusBadRequest, doc, path)

	// Each refusal names the attacker's tenant, which exists: GET
	// /_mock/tenants (in the reads) keeps its order.
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := ruleReads(t, base, admin, all...)
			body, err := json.Marshal(tc.doc)
			require.NoError(t, err)
			status, out := httpJSON(t, http.MethodPost, admin+"/snapshot", string(body))
			require.Equal(t, tc.status, status, "%v", out)
			e := out["error"].(map[string]any)
			assert.Equal(t, map[int]string{http.StatusConflict: "conflict", http.StatusBadRequest: "invalid_request"}[tc.status], e["code"])
			require.NotEmpty(t, e["details"], e["message"])
			assert.Equal(t, tc.path, e["details"].([]any)[0].(map[string]any)["path"], e["message"])
			after := ruleReads(t, base, admin, all...)
			for k, v := range before {
				assert.Equal(t, v, after[k], "%s after the refusal", k)
			}
		})
	}

	// The victim's retry with its Idempotency-Key replays its own
	// response; the attacker's clock runs no task on the victim's call.
	status, replay := httpJSON(t, http.MethodPost, base+"/v1/calls", victim.callBody, append(victim.auth(), "Idempotency-Key", victim.idemKey)...)
	require.Equal(t, http.StatusCreated, status, replay)
	assert.Equal(t, victim.call, replay["id"])
	status, out := httpJSON(t, http.MethodPost, admin+"/clock/advance", fmt.Sprintf(`{"seconds":600,"business_id":%q}`, attacker.biz))
	require.Equal(t, http.StatusOK, status, out)
	status, call := httpJSON(t, http.MethodGet, base+"/v1/calls?id="+victim.call, "", victim.auth()...)
	require.Equal(t, http.StatusOK, status, call)
	assert.Equal(t, "queued", call["status"], "the victim's call waits for the victim's clock")

	// A clock restored just before the end: the advance that would pass
	// it is refused, naming seconds; every read still works, and the
	// shutdown writes the state.
	doc = snapshotDoc(t, admin, attacker)
	docTenant(doc)["now"] = "8999-12-31T00:00:00Z"
	body, err := json.Marshal(doc)
	require.NoError(t, err)
	status, out = httpJSON(t, http.MethodPost, admin+"/snapshot", string(body))
	require.Equal(t, http.StatusOK, status, out)
	status, out = httpJSON(t, http.MethodPost, admin+"/clock/advance", fmt.Sprintf(`{"seconds":172800,"business_id":%q}`, attacker.biz))
	require.Equal(t, http.StatusBadRequest, status, out)
	e := out["error"].(map[string]any)
	assert.Equal(t, "seconds", e["details"].([]any)[0].(map[string]any)["path"])
	assert.Contains(t, e["message"], "9000-01-01T00:00:00Z")
	status, out = httpJSON(t, http.MethodPost, admin+"/clock/advance", `{"seconds":172800}`)
	require.Equal(t, http.StatusBadRequest, status, "every clock moves or none: %v", out)
	assert.Contains(t, out["error"].(map[string]any)["message"], "tenant "+attacker.biz)
	status, out = httpJSON(t, http.MethodPost, admin+"/clock/advance", fmt.Sprintf(`{"seconds":3600,"business_id":%q}`, attacker.biz))
	require.Equal(t, http.StatusOK, status, out)
	assert.Equal(t, "8999-12-31T01:00:00.000000000Z", out["now"])
	for _, url := range []string{admin + "/tenants", admin + "/snapshot", base + "/v1/calls?id=" + attacker.call} {
		assert.True(t, strings.HasPrefix(rawGet(t, url, attacker.auth()...), "200 "), url)
	}
	run.stop(t)
	assert.Contains(t, run.out.String(), "state: written to "+state)
	data, err := os.ReadFile(state)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"now":"8999-12-31T01:00:00.000000000Z"`)
}
