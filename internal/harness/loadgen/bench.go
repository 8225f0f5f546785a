package loadgen

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"

	"github.com/voiceagent/voiceagent-go/mockserver"
)

// ReadFixtures are the tenant and records the read scenarios use: one
// account holding leads (from inbound texts, so also texts and events),
// finished calls, and a page or more of every other resource the API
// lists, and an agency (partner) account.
type ReadFixtures struct {
	Fixtures
	// PartnerID is the agency account's partner, PartnerKey its key.
	PartnerID, PartnerKey string
	// IDs name one record of each resource, by resource ("products", ...),
	// for the ?id= reads.
	IDs map[string]string
}

// SetupReads starts a mock server as Setup does and gives it what every
// read route answers with a full page: an account with leads leads (and
// their texts and events), as many finished calls, 100 products, 100
// knowledge entries, webhook subscriptions, communication runs, governed
// updates and approval requests, an SDR configuration, and an agency
// account with a profile and an offer. The caller closes the server.
func SetupReads(leads int) (*mockserver.Server, *ReadFixtures, error) {
	srv, fx, err := Setup(leads)
	if err != nil {
		return nil, nil, err
	}
	rf, err := seedReads(srv, fx, leads)
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	return srv, rf, nil
}

// seedReads adds to a Setup tenant what the other read routes list.
func seedReads(srv *mockserver.Server, fx *Fixtures, calls int) (*ReadFixtures, error) {
	rf := &ReadFixtures{Fixtures: *fx, IDs: map[string]string{}}
	if err := SeedCalls(srv, fx.BusinessID, calls, 0); err != nil {
		return nil, err
	}
	do := func(key, method, path, body string, header ...string) (map[string]any, error) {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			req.Header.Set(header[i], header[i+1])
		}
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, req)
		if w.Code >= 300 {
			return nil, fmt.Errorf("seeding %s %s: %d %s", method, path, w.Code, w.Body.String())
		}
		var out map[string]any
		_ = json.Unmarshal(w.Body.Bytes(), &out)
		return out, nil
	}
	post := func(path, body string, header ...string) (map[string]any, error) {
		return do(fx.APIKey, http.MethodPost, path, body, header...)
	}
	id := func(m map[string]any) string { s, _ := m["id"].(string); return s }
	biz := fx.BusinessID
	for i := range 100 {
		n := strconv.Itoa(i)
		p, err := post("/api/v1/products", `{"business_id":"`+biz+`","name":"Widget `+n+`","description":"A widget for load tests, number `+n+`."}`)
		if err != nil {
			return nil, err
		}
		rf.IDs["products"] = id(p)
		k, err := post("/api/v1/knowledge", `{"business_id":"`+biz+`","title":"Hours `+n+`","content":"We are open from 9 to 5 on weekdays (entry `+n+`).","content_type":"text"}`)
		if err != nil {
			return nil, err
		}
		rf.IDs["knowledge"] = id(k)
	}
	for i := range 10 {
		h, err := post("/api/v1/webhooks", `{"business_id":"`+biz+`","webhook_url":"https://hooks.example/load/`+strconv.Itoa(i)+`"}`)
		if err != nil {
			return nil, err
		}
		rf.IDs["webhooks"] = id(h)
	}
	for i := range 20 {
		n := strconv.Itoa(i)
		r, err := post("/api/v1/communication-runs", `{"business_id":"`+biz+`","external_ref":"load-`+n+`",`+
			`"touches":[{"touch_id":"t1","channel":"sms","message":"Hi","target":{"phone":"`+callerNumber(int64(i))+`"},"scheduled_at":"2030-01-01T00:00:00Z"}]}`,
			"Idempotency-Key", "load-run-"+n)
		if err != nil {
			return nil, err
		}
		rf.IDs["communication-runs"] = id(r)
		g, err := post("/api/v1/governed-updates", `{"intent":"agent.patch","target":{"agent_id":"`+fx.AgentID+`"},"payload":{"name":"Queued `+n+`"},`+
			`"idempotency_key":"load-gov-`+n+`","queue_for_approval":true}`)
		if err != nil {
			return nil, err
		}
		rf.IDs["governed-updates"] = id(g)
		a, err := post("/api/v1/approval-requests", `{"source":"ops","source_request_id":"load-`+n+`","principal_id":"p1",`+
			`"channel":{"type":"voice","address":"+1555123`+fmt.Sprintf("%04d", i)+`"},"summary":"Refund?","risk_level":"low",`+
			`"expires_at":"2030-01-01T00:00:00Z","callback_url":"http://127.0.0.1:9/cb"}`)
		if err != nil {
			return nil, err
		}
		rf.IDs["approval-requests"] = id(a)
	}
	if _, err := do(fx.APIKey, http.MethodPut, "/api/sdr/config", `{"businessId":"`+biz+`","enabled":true}`); err != nil {
		return nil, err
	}
	// A page of activity: 50 leads paused, then resumed.
	page, err := do(fx.APIKey, http.MethodGet, "/api/v1/leads?limit=50", "")
	if err != nil {
		return nil, err
	}
	leads, _ := page["leads"].([]any)
	for _, action := range []string{"pause", "resume"} {
		for _, l := range leads {
			lead, _ := l.(map[string]any)
			if _, err := post("/api/sdr/action", `{"businessId":"`+biz+`","leadId":"`+id(lead)+`","action":"`+action+`"}`); err != nil {
				return nil, err
			}
		}
	}
	partner, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Load agency", Email: "agency@load.example"})
	if err != nil {
		return nil, err
	}
	rf.PartnerKey = partner.APIKey
	boot, err := do(partner.APIKey, http.MethodPost, "/api/v1/agency-profile",
		`{"action":"bootstrap","brand":{"name":"Load agency"},"support":{"email":"a@load.example","ownerName":"A","coverage":"Always"}}`)
	if err != nil {
		return nil, err
	}
	if p, ok := boot["profile"].(map[string]any); ok {
		rf.PartnerID, _ = p["partnerId"].(string)
	}
	if _, err := do(partner.APIKey, http.MethodPost, "/api/v1/agency-offers", `{"action":"save","partnerId":"`+rf.PartnerID+`","draft":{"name":"Offer","industry":"legal","commercialMode":"commission",`+
		`"retail":{"monthlyCents":1,"currency":"USD","scope":"s","collection":"agency_external"},"packages":[{"key":"convert","version":"1","variant":"v"}],`+
		`"supportedClaims":["approved_intake_setup"],"supportPolicy":"p","brandingLimitationsAcknowledged":true}}`); err != nil {
		return nil, err
	}
	return rf, nil
}

// SeedCalls stores n finished calls in a business, straight into the store
// (Server.SeedCalls, in batches), each as a completed outbound call with a
// summary and transcript of the length the simulation writes. from is the
// index of the first call's number, so successive seeds use new numbers.
func SeedCalls(srv *mockserver.Server, businessID string, n, from int) error {
	const batch = 10_000
	fixtures := make([]mockserver.CallFixture, 0, min(n, batch))
	for i := from; i < from+n; i += batch {
		fixtures = fixtures[:0]
		for j := i; j < min(i+batch, from+n); j++ {
			to := callerNumber(int64(j))
			fixtures = append(fixtures, mockserver.CallFixture{
				To: to, Name: "Caller " + strconv.Itoa(j), Duration: 60 + j%240,
				Summary: "Outbound call to Caller " + strconv.Itoa(j) + " about a follow-up on their recent inquiry; the caller agreed and the agent noted the next step.",
				Transcript: "Agent: Hi Caller " + strconv.Itoa(j) + ", this is the intake agent calling from Load.\n" +
					"Caller: Hi, yes, this is Caller " + strconv.Itoa(j) + ".\nAgent: I'm calling about a follow-up on their recent inquiry.\n" +
					"Caller: Sure, that works for me.\nAgent: Great, I've noted that. Is there anything else I can help with?\n" +
					"Caller: No, that's all. Thanks!\nAgent: Thank you for your time. Goodbye from Load!",
			})
		}
		if _, err := srv.SeedCalls(businessID, fixtures); err != nil {
			return fmt.Errorf("seeding calls %d to %d: %w", i, i+len(fixtures), err)
		}
	}
	return nil
}

// ReadScenarios are the reads of every GET route of the API that a key or
// a session may call, each with a query that answers a full page where
// the route pages (limit=100 where it allows as many), on the fixtures'
// tenant. ReadExclusions lists the GET routes left out, with the reason.
func ReadScenarios(rf *ReadFixtures) []Scenario {
	q := func(kv ...string) string {
		v := url.Values{}
		for i := 0; i+1 < len(kv); i += 2 {
			v.Set(kv[i], kv[i+1])
		}
		return "?" + v.Encode()
	}
	get := func(path, query string) Scenario {
		name := "GET " + strings.TrimPrefix(path, "/api") + query
		return Scenario{Name: name, Method: http.MethodGet, Read: true, Route: path,
			Path: func(int64) string { return path + query }}
	}
	biz := rf.BusinessID
	partner := func(sc Scenario) Scenario { sc.Key = rf.PartnerKey; return sc }
	session := func(sc Scenario) Scenario { sc.Session = rf.Session; return sc }
	return []Scenario{
		get("/api/v1/agents", ""),
		get("/api/v1/leads", q("limit", "100")),
		get("/api/v1/calls", q("limit", "100")),
		get("/api/v1/sms/messages", q("limit", "100")),
		get("/api/v1/transcripts", q("limit", "50")),
		get("/api/v1/events", q("limit", "100")),
		get("/api/v1/numbers", ""),
		get("/api/v1/voices", ""),
		get("/api/v1/webhooks", ""),
		get("/api/v1/products", q("limit", "100")),
		get("/api/v1/knowledge", q("limit", "100")),
		get("/api/v1/communication-runs", q("limit", "100")),
		get("/api/v1/approval-requests", q("limit", "100")),
		get("/api/v1/governed-updates", q("limit", "100")),
		get("/api/v1/usage", q("limit", "100")),
		session(get("/api/v1/keys", "")),
		get("/api/v1/balance", ""),
		get("/api/v1/capabilities", ""),
		get("/api/v1/schemas", ""),
		get("/api/v1/openapi.json", ""),
		get("/api/openapi.yaml", ""),
		get("/api/v1/analytics/dashboard", ""),
		get("/api/v1/analytics/calls", ""),
		get("/api/v1/analytics/funnel", ""),
		get("/api/v1/analytics/agents", ""),
		get("/api/v1/analytics/weekly", ""),
		get("/api/v1/analytics/businesses", ""),
		get("/api/sdr/config", q("businessId", biz)),
		get("/api/sdr/pipeline", q("businessId", biz)),
		get("/api/sdr/report", q("businessId", biz)),
		get("/api/sdr/activity", q("businessId", biz, "limit", "100")),
		partner(get("/api/v1/agency-profile", q("partnerId", rf.PartnerID))),
		partner(get("/api/v1/agency-offers", q("partnerId", rf.PartnerID))),
		partner(get("/api/v1/agency-enrollments", q("partnerId", rf.PartnerID))),
		partner(get("/api/v1/agency-installations", q("partnerId", rf.PartnerID))),
	}
}

// ReadExclusions are the GET routes under /api that ReadScenarios leaves
// out, with the reason.
var ReadExclusions = map[string]string{
	"/api/auth/magic":          "consumes a one-time sign-in link (a write)",
	"/api/auth/password-setup": "reads a one-time password-setup link",
}

// CreateCallScenario is POST /v1/calls as Scenarios has it (a new number,
// name and Idempotency-Key per request), with its wrk request function;
// run makes the keys of one drive unlike another's.
func CreateCallScenario(fx *Fixtures, run string) Scenario {
	sc := Scenarios(fx)[2]
	sc.Route = "/api/v1/calls"
	sc.Lua = `local n = 0
local prefix = ` + LuaString("wrk-"+run+"-") + `
local agent = ` + LuaString(fx.AgentID) + `
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
request = function()
  n = n + 1
  wrk.headers["Idempotency-Key"] = prefix .. n
  local body = '{"agent_id":"' .. agent .. '","to":"' .. string.format("+1555%07d", n % 10000000) .. '","name":"Load ' .. n .. '"}'
  return wrk.format(nil, "/api/v1/calls", nil, body)
end
`
	return sc
}
