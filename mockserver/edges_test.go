package mockserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/openapi"
	"github.com/voiceagent/voiceagent-go/sms"
)

// An agent's max_duration is whole seconds from 1 to 3600, like a call's:
// a fraction, a huge number, zero or a negative number is 400 and changes
// nothing, and 120 caps the agent's calls at 120 seconds.
func TestAgentMaxDurationIsWholeSecondsAndCapsItsCalls(t *testing.T) {
	srv, acct := startWithAccount(t, WithStartTime(afternoonET), WithRateLimits(false))
	key := bearer(acct.APIKey)
	patch := func(v string) rawResp {
		return rawDo(t, http.MethodPatch, srv.URL+"/v1/agents", fmt.Sprintf(`{"id":%q,"max_duration":%s}`, acct.AgentID, v), key...)
	}
	for _, bad := range []string{"90.5", "1e20", "-5", "0", "3601", `"120"`} {
		r := patch(bad)
		assert.Equal(t, http.StatusBadRequest, r.status, "max_duration %s: %s", bad, r.body)
		assert.Equal(t, "invalid_request", r.code(), bad)
	}
	r := rawDo(t, http.MethodGet, srv.URL+"/v1/agents?id="+acct.AgentID, "", key...)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	assert.EqualValues(t, 0, r.json["max_duration"], "the refused values changed nothing")

	r = patch("120")
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	r = rawDo(t, http.MethodGet, srv.URL+"/v1/agents?id="+acct.AgentID, "", key...)
	assert.EqualValues(t, 120, r.json["max_duration"])

	var ids []string
	for n := range 6 {
		r := rawDo(t, http.MethodPost, srv.URL+"/v1/calls", fmt.Sprintf(`{"agent_id":%q,"to":"+1555123%04d"}`, acct.AgentID, 40+n), key...)
		require.Equal(t, http.StatusCreated, r.status, string(r.body))
		ids = append(ids, r.json["id"].(string))
	}
	acct.Advance(time.Hour)
	capped := 0
	for _, id := range ids {
		r := rawDo(t, http.MethodGet, srv.URL+"/v1/calls?id="+id, "", key...)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		assert.EqualValues(t, 120, r.json["max_duration"], "the agent's cap applies to its calls")
		assert.Equal(t, "completed", r.json["status"])
		d, _ := r.json["duration"].(float64)
		assert.LessOrEqual(t, d, 120.0)
		if r.json["ended_reason"] == "max_duration" {
			assert.EqualValues(t, 120, d, "a capped call lasts the cap")
			capped++
		}
	}
	assert.Positive(t, capped, "some of the calls (30 to 300 s planned) reached the 120 s cap")
}

// An empty value of a query parameter the document declares with a schema
// that refuses one is 400 invalid_request naming the parameter, for every
// such parameter of every operation; it is not taken as absent.
func TestEmptyQueryFiltersAreRefused(t *testing.T) {
	srv, acct := startWithAccount(t, WithRateLimits(false))
	key := bearer(acct.APIKey)
	r := rawDo(t, http.MethodGet, srv.URL+"/v1/leads?phone=", "", key...)
	require.Equal(t, http.StatusBadRequest, r.status, string(r.body))
	assert.Equal(t, "invalid_request", r.code())
	assert.Contains(t, r.message(), "phone")
	assert.Equal(t, []any{map[string]any{"path": "phone", "message": "must not be empty: give a value, or leave the parameter out"}},
		r.json["error"].(map[string]any)["details"])

	params, err := openapi.QueryParameters()
	require.NoError(t, err)
	checked := 0
	for _, rt := range srv.Routes() {
		for _, p := range params[rt.Operation] {
			if p.AllowsEmpty || p.Required || p.Name == "id" {
				continue // ?id= and required parameters have their own answer (bad_request)
			}
			url := srv.URL + rt.Path[len("/api"):] + "?" + p.Name + "="
			header := key
			switch rt.Auth {
			case "admin":
				url, header = srv.HTTP.URL+rt.Path+"?"+p.Name+"=", nil
			case "session":
				header = []string{"Cookie", "voiceagent_session=" + acct.Session}
			}
			r := rawDo(t, rt.Method, url, "", header...)
			if assert.Equal(t, http.StatusBadRequest, r.status, "%s %s?%s=: %s", rt.Method, rt.Path, p.Name, r.body) {
				assert.Equal(t, "invalid_request", r.code(), "%s %s?%s=", rt.Method, rt.Path, p.Name)
				assert.Contains(t, r.message(), p.Name)
			}
			checked++
		}
	}
	assert.Greater(t, checked, 40, "every declared parameter that refuses an empty value was tried")
}

// An empty Idempotency-Key is 400 invalid_request naming the header, and
// the request does nothing.
func TestEmptyIdempotencyKeyIsRefused(t *testing.T) {
	srv, acct := startWithAccount(t, WithRateLimits(false))
	key := bearer(acct.APIKey)
	r := rawDo(t, http.MethodPost, srv.URL+"/v1/calls", fmt.Sprintf(`{"agent_id":%q,"to":"+15551230001"}`, acct.AgentID),
		append(key, "Idempotency-Key", "")...)
	require.Equal(t, http.StatusBadRequest, r.status, string(r.body))
	assert.Equal(t, "invalid_request", r.code())
	assert.Contains(t, r.message(), "Idempotency-Key")
	r = rawDo(t, http.MethodGet, srv.URL+"/v1/calls", "", key...)
	assert.Empty(t, r.json["calls"], "no call was placed")
}

// The document and the mock agree on a call's duration: an integer, 0
// until the call ends (the spec's "integer seconds"), never null.
func TestCallDurationIsZeroUntilTheCallEnds(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]map[string]any `yaml:"properties"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	require.NoError(t, yaml.Unmarshal(openapi.Document, &doc))
	for _, name := range []string{"Call", "CallDetail"} {
		assert.Equal(t, "integer", doc.Components.Schemas[name].Properties["duration"]["type"], "%s.duration", name)
	}
	srv, acct := startWithAccount(t, WithRateLimits(false))
	key := bearer(acct.APIKey)
	r := rawDo(t, http.MethodPost, srv.URL+"/v1/calls", fmt.Sprintf(`{"agent_id":%q,"to":"+15551230001"}`, acct.AgentID), key...)
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	for _, path := range []string{"/v1/calls?id=" + r.json["id"].(string), "/v1/calls"} {
		r := rawDo(t, http.MethodGet, srv.URL+path, "", key...)
		require.Equal(t, http.StatusOK, r.status, string(r.body))
		assert.Contains(t, string(r.body), `"duration":0`, path)
	}
}

// GET /, GET /api and GET /_mock answer a program the index and a browser
// a redirect to the dashboard; none of them, nor a browser's
// /favicon.ico, is journaled, and the dashboard declares its icon.
func TestTheFirstURLsLeadToTheDocumentsAndTheDashboard(t *testing.T) {
	srv := Start(t)
	var links map[string]any
	for _, path := range []string{"/", "/api", "/_mock"} {
		r := rawDo(t, http.MethodGet, srv.HTTP.URL+path, "")
		require.Equal(t, http.StatusOK, r.status, "%s: %s", path, r.body)
		assert.Equal(t, srv.URL, r.json["api"], path)
		assert.Equal(t, srv.URL+"/openapi.yaml", r.json["openapi"], path)
		assert.Equal(t, srv.AdminURL+"/openapi.yaml", r.json["admin_openapi"], path)
		assert.Equal(t, srv.AdminURL+"/ui", r.json["dashboard"], path)
		assert.Equal(t, srv.AdminURL+"/health", r.json["health"], path)
		links = r.json

		req, err := http.NewRequest(http.MethodGet, srv.HTTP.URL+path, nil)
		require.NoError(t, err)
		req.Header.Set("Accept", "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
		resp, err := (&http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}).Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusFound, resp.StatusCode, path)
		assert.Equal(t, "/_mock/ui", resp.Header.Get("Location"), path)
	}
	resp, err := http.Get(srv.HTTP.URL + "/favicon.ico")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	assert.Len(t, srv.Requests(nil), 0, "only /api requests are journaled")

	resp, err = http.Get(srv.AdminURL + "/ui")
	require.NoError(t, err)
	page, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	assert.Contains(t, string(page), `<link rel="icon" href="data:`, "the dashboard declares its icon, so a browser asks for no /favicon.ico")

	rawDo(t, http.MethodGet, srv.URL+"/v1/nothing-here", "")
	assert.Len(t, srv.Requests(nil), 1, "an unknown path under /api is journaled")

	for _, link := range []string{"openapi", "admin_openapi", "dashboard", "health"} {
		resp, err := http.Get(links[link].(string))
		require.NoError(t, err)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, link)
	}
}

// The journal shows a JSON body as JSON: GET /_mock/requests gives
// request.body and response.body as decoded values, so a test can read
// into them; another body, or one cut at the cap, stays a string. The Go
// helpers keep the text, and decode the HTTP form back to it.
func TestTheJournalShowsJSONBodiesAsJSON(t *testing.T) {
	srv, acct := startWithAccount(t, WithRateLimits(false))
	key := bearer(acct.APIKey)
	r := rawDo(t, http.MethodPatch, srv.URL+"/v1/agents", fmt.Sprintf(`{"id": %q, "name": "Night desk"}`, acct.AgentID), key...)
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	r = rawDo(t, http.MethodPost, srv.URL+"/v1/sms/send", "not json", append(key, "Content-Type", "text/plain")...)
	long := fmt.Sprintf(`{"id": %q, "name": "%s"}`, acct.AgentID, strings.Repeat("x", JournalBodyCap))
	rawDo(t, http.MethodPatch, srv.URL+"/v1/agents", long, key...)

	r = rawDo(t, http.MethodGet, srv.AdminURL+"/requests", "")
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	entries := r.json["requests"].([]any)
	require.Len(t, entries, 3)
	first := entries[0].(map[string]any)
	assert.Equal(t, "Night desk", first["request"].(map[string]any)["body"].(map[string]any)["name"], "request.body.name")
	assert.Equal(t, true, first["response"].(map[string]any)["body"].(map[string]any)["updated"], "response.body.updated")
	assert.Equal(t, "not json", entries[1].(map[string]any)["request"].(map[string]any)["body"], "a body of another type is a string")
	cut := entries[2].(map[string]any)["request"].(map[string]any)
	assert.Equal(t, true, cut["truncated"])
	assert.IsType(t, "", cut["body"], "a body cut at the cap is a string")

	var page struct {
		Requests []JournalEntry `json:"requests"`
	}
	require.NoError(t, json.Unmarshal(r.body, &page))
	require.Len(t, page.Requests, 3)
	assert.JSONEq(t, fmt.Sprintf(`{"id": %q, "name": "Night desk"}`, acct.AgentID), page.Requests[0].Request.Body)
	assert.True(t, page.Requests[0].Request.BodyIsJSON())
	assert.Equal(t, "not json", page.Requests[1].Request.Body)
	assert.False(t, page.Requests[1].Request.BodyIsJSON())
	inGo := srv.Requests(nil)
	assert.Equal(t, fmt.Sprintf(`{"id": %q, "name": "Night desk"}`, acct.AgentID), inGo[0].Request.Body, "in Go, the body as sent")
	again, err := json.Marshal(inGo[0])
	require.NoError(t, err)
	assert.Contains(t, string(again), `"body":{"id":`, "a Go entry encodes as the admin API shows it")
}

// GET /_mock/deliveries refuses a query parameter it does not know (limit
// included), as GET /_mock/requests does, and takes every filter the admin
// document declares; the document names every delivery kind.
func TestDeliveryLogFiltersAreTheDocumentsAndNoOthers(t *testing.T) {
	srv := Start(t)
	r := rawDo(t, http.MethodGet, srv.AdminURL+"/deliveries?limit=5", "")
	require.Equal(t, http.StatusBadRequest, r.status, string(r.body))
	assert.Equal(t, "bad_request", r.code())
	assert.Contains(t, r.message(), "limit")
	r = rawDo(t, http.MethodGet, srv.AdminURL+"/requests?limit=5&lmit=1", "")
	require.Equal(t, http.StatusBadRequest, r.status, "the journal refuses the same way: %s", r.body)
	assert.Contains(t, r.message(), "lmit")

	params, err := openapi.QueryParameters()
	require.NoError(t, err)
	values := map[string]string{"wait": "1ms", "count": "1", "kind": string(DeliveryKindApprovalCallback), "business_id": "", "status": "pending", "min_attempts": "0"}
	acct, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	values["business_id"] = acct.BusinessID
	names := 0
	for _, p := range params["listDeliveries"] {
		v, ok := values[p.Name]
		if !ok {
			v = "x"
		}
		r := rawDo(t, http.MethodGet, srv.AdminURL+"/deliveries?"+p.Name+"="+v, "")
		assert.Equal(t, http.StatusOK, r.status, "?%s=%s: %s", p.Name, v, r.body)
		names++
	}
	assert.GreaterOrEqual(t, names, 11)

	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]map[string]any `yaml:"properties"`
			} `yaml:"schemas"`
		} `yaml:"components"`
	}
	require.NoError(t, yaml.Unmarshal(openapi.AdminDocument, &doc))
	kinds := doc.Components.Schemas["Delivery"].Properties["kind"]["enum"]
	assert.ElementsMatch(t, []any{string(DeliveryKindSubscription), string(DeliveryKindCallWebhook), string(DeliveryKindApprovalCallback)}, kinds)
	for _, member := range []string{"approval_request_id", "subscription_id", "call_id"} {
		assert.Contains(t, doc.Components.Schemas["Delivery"].Properties, member)
	}
	assert.Contains(t, doc.Components.Schemas["FaultRule"].Properties, "business_id")
	errorMembers := doc.Components.Schemas["Error"].Properties["error"]["properties"].(map[string]any)
	assert.Contains(t, errorMembers, "details")
}

// acct.Client() retries what the SDK retries, as often, with test-sized
// waits (ClientRetryWaitMin to ClientRetryWaitMax, not half a second and
// more), and returns a 429 whose Retry-After is longer at once, so a test
// of a failure path takes milliseconds.
func TestAccountClientRetriesWithTestSizedWaits(t *testing.T) {
	srv, acct := startWithAccount(t, WithRateLimits(false))
	var cfg voiceagent.RequestConfig
	before, _ := srv.clientOptions(nil)
	for _, o := range before {
		o(&cfg)
	}
	assert.Equal(t, ClientRetryWaitMin, cfg.RetryWaitMin)
	assert.Equal(t, ClientRetryWaitMax, cfg.RetryWaitMax)
	assert.Less(t, ClientRetryWaitMax, voiceagent.DefaultRetryWait/10)

	ctx := context.Background()
	c := acct.Client()
	_, err := acct.AddFault(FaultRule{Method: http.MethodGet, Path: "/v1/agents", Status: http.StatusServiceUnavailable, Times: 2})
	require.NoError(t, err)
	_, err = c.Agents.List(ctx, nil)
	require.NoError(t, err, "two injected 503s, then the answer")
	attempts := acct.Requests(RequestFilter{Method: http.MethodGet, Path: "/v1/agents"}.Match)
	require.Len(t, attempts, 3)
	for i, e := range attempts {
		assert.Equal(t, []string{fmt.Sprint(i)}, e.Request.Header["X-Voiceagent-Retry-Count"])
	}

	_, err = acct.AddFault(FaultRule{Method: http.MethodGet, Path: "/v1/numbers", Status: http.StatusTooManyRequests, Times: 1})
	require.NoError(t, err)
	_, err = c.Numbers.List(ctx, nil)
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusTooManyRequests, apiErr.StatusCode)
	assert.Equal(t, time.Second, apiErr.RetryAfter)
	assert.Len(t, acct.Requests(RequestFilter{Path: "/v1/numbers"}.Match), 1, "a Retry-After longer than the waits is returned, not waited for")
}

// Advance refuses to move time back, in Go as over HTTP: the route
// answers 400, Server.Advance and Account.Advance panic with its message,
// and no clock moves.
func TestAdvanceRefusesNegativeDurations(t *testing.T) {
	srv, acct := startWithAccount(t)
	before, base := acct.Now(), srv.Now()
	r := rawDo(t, http.MethodPost, srv.AdminURL+"/clock/advance", fmt.Sprintf(`{"seconds":-3600,"business_id":%q}`, acct.BusinessID))
	assert.Equal(t, http.StatusBadRequest, r.status, string(r.body))
	for name, advance := range map[string]func(){
		"Account.Advance(-1h)":   func() { acct.Advance(-time.Hour) },
		"Server.Advance(-1h)":    func() { srv.Advance(-time.Hour) },
		"Account.Advance(401 d)": func() { acct.Advance(401 * 24 * time.Hour) },
	} {
		func() {
			defer func() {
				v := recover()
				require.NotNil(t, v, "%s did not panic", name)
				assert.Contains(t, fmt.Sprint(v), "/seconds", name)
			}()
			advance()
		}()
	}
	assert.Equal(t, before, acct.Now())
	assert.Equal(t, base, srv.Now())
	assert.Equal(t, before.Add(time.Minute), acct.Advance(time.Minute), "a forward move works as before")
}

// The helpers take a business first, then a number, then a value; each
// per-account one has a form on Account that fills the account's business
// (and number) in; InboundSMS takes a struct, as InboundCall does.
func TestHelpersTakeOneOrderAndHaveAccountForms(t *testing.T) {
	srv, acct := startWithAccount(t, WithStartTime(afternoonET), WithRateLimits(false))
	other, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	const phone = "+15551239876"

	require.NoError(t, acct.SetConsent(phone, ConsentOptedIn))
	assert.Equal(t, ConsentOptedIn, acct.Consent(phone))
	assert.Equal(t, ConsentOptedIn, srv.Consent(acct.BusinessID, phone))
	assert.NotEqual(t, ConsentOptedIn, other.Consent(phone), "another tenant's consent is its own")

	require.NoError(t, acct.AddDoNotCall(phone))
	c := acct.Client()
	ctx := context.Background()
	_, err = c.SMS.Send(ctx, &sms.SendParams{To: phone, FromAgentID: acct.AgentID, Message: "Hello"})
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "number_on_dnc", apiErr.Code)
	require.NoError(t, acct.RemoveDoNotCall(phone))
	require.NoError(t, srv.AddDoNotCall(acct.BusinessID, phone))
	require.NoError(t, srv.RemoveDNC(phone, acct.BusinessID), "the deprecated form keeps its order")
	_, err = c.SMS.Send(ctx, &sms.SendParams{To: phone, FromAgentID: acct.AgentID, Message: "Hello"})
	require.NoError(t, err)

	got, err := acct.InboundSMS(InboundSMS{From: phone, Body: "STOP"})
	require.NoError(t, err)
	assert.Equal(t, ConsentOptedOut, got.Consent)
	_, err = srv.InboundSMS(InboundSMS{To: other.PhoneNumber, From: phone, Body: "Hi"})
	require.NoError(t, err)
	assert.Equal(t, ConsentOptedIn, other.Consent(phone))

	callID, err := acct.InboundCall(InboundCall{From: "+15551230042"})
	require.NoError(t, err)
	call, err := c.Calls.Get(ctx, callID)
	require.NoError(t, err)
	assert.Equal(t, acct.PhoneNumber, call.To, "the account's number rang")

	ids, err := acct.SeedLeads([]LeadFixture{{Name: "Ada Lovelace", Phone: "+15551230043"}})
	require.NoError(t, err)
	lead, err := c.Leads.Get(ctx, ids[0])
	require.NoError(t, err)
	assert.Equal(t, acct.BusinessID, lead.BusinessID)
	_, err = other.Client().Leads.Get(ctx, ids[0])
	require.Error(t, err, "the lead is the account's, not another tenant's")

	_, err = other.Client().Agents.List(ctx, nil)
	require.NoError(t, err)
	for _, e := range acct.Requests(nil) {
		assert.Equal(t, acct.BusinessID, e.BusinessID, "Account.Requests keeps the account's own")
	}
	assert.Len(t, other.Requests(nil), 2)
	assert.Equal(t, 0, acct.MinutesUsed())
	assert.Empty(t, acct.Deliveries(DeliveryFilter{}))
}
