package mockserver

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
)

// deliberate5xx are the server errors the API documents for valid input
// (magic numbers and the signup provisioning failure); every other 5xx on
// bad input is a bug.
var deliberate5xx = []string{"call_failed", "sms_send_failed", "provisioning_failed", "vendor_error"}

// fuzzRoutes are the API routes, in a stable order, that the fuzz targets
// pick from.
func fuzzRoutes(s *Server) []*httpapi.Route {
	var out []*httpapi.Route
	for _, methods := range s.httpapi.Routes {
		for _, rt := range methods {
			if rt.Auth != httpapi.AuthAdmin {
				out = append(out, rt)
			}
		}
	}
	slices.SortFunc(out, func(a, b *httpapi.Route) int { return strings.Compare(a.Method+a.Path, b.Method+b.Path) })
	return out
}

// fuzzSetup is a fuzz target's server (closed when the target ends), its
// tenant with one record of each kind, and the API routes it picks from.
func fuzzSetup(f testing.TB, keep func(*httpapi.Route) bool) (*Server, *Account, seedIDs, []*httpapi.Route) {
	s := New(WithRateLimits(false))
	f.Cleanup(s.Close)
	acct, ids, err := fuzzTenant(s)
	if err != nil {
		f.Fatal(err)
	}
	var routes []*httpapi.Route
	for _, rt := range fuzzRoutes(s) {
		if keep(rt) {
			routes = append(routes, rt)
		}
	}
	return s, acct, ids, routes
}

// checkAnswer fails unless the response is below 500 (or a documented 5xx)
// and, for errors, in the API's error format.
func checkAnswer(t *testing.T, rt *httpapi.Route, rec *httptest.ResponseRecorder, input string) {
	t.Helper()
	var env struct {
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if rec.Code >= 400 {
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.Error == nil || env.Error.Code == "" || env.Error.Message == "" {
			t.Fatalf("%s %s with %q: %d answer not in the error format: %s", rt.Method, rt.Path, input, rec.Code, rec.Body.String())
		}
	}
	if rec.Code >= 500 && !slices.Contains(deliberate5xx, env.Error.Code) {
		t.Fatalf("%s %s with %q: %d %s", rt.Method, rt.Path, input, rec.Code, rec.Body.String())
	}
}

// handwrittenBodies are bodies every write route is tried with (in
// TestRequestBodySeeds): malformed JSON, odd numbers, deep nesting,
// invalid UTF-8. The fuzz target's seed corpus in testdata/fuzz holds
// each of them once.
var handwrittenBodies = []string{
	``, `{}`, `null`, `[]`, `"x"`, `{"id": 1}`, `{"business_id": "x", "name": ""}`,
	`{"to": "+15551230001", "agent_id": "00000000-0000-4000-8000-000000000000"}`,
	`{"a": 1e999}`, `{"n": 123456789012345678901234567890}`, `{"x": -0}`,
	strings.Repeat(`[`, 5000) + strings.Repeat(`]`, 5000),
	`{"email": "a@b.c", "business_name": "x", "api_key_scopes": ["*"]}`,
	`{"action": "bootstrap", "brand": {"name": "x"}, "support": {}}`,
	`{"events": ["lead.created"], "webhook_url": "https://x", "business_id": "y"}`,
	"{\"\xff\": 1}", `{"a":"\ud800"}`,
}

// handwrittenQueries are queries every read and delete route is tried
// with (in TestQuerySeeds); the fuzz target's seed corpus holds each once.
var handwrittenQueries = []string{
	"", "id=", "id=nope", "limit=0", "limit=101", "limit=-1", "limit=99999999999999999999",
	"after=yesterday", "after=2026-01-01T00:00:00Z", "days=0", "days=91", "status=%00",
	"businessId=x&segment=%ff", "id=00000000-0000-4000-8000-000000000000", "wait=1h",
	"name=agentCreate", "group_by=month", "period=year", "%zz",
}

// isWrite picks the routes FuzzRequestBodies sends bodies to.
func isWrite(rt *httpapi.Route) bool { return rt.Method != http.MethodGet }

// isRead picks the routes FuzzQueries sends queries to.
func isRead(rt *httpapi.Route) bool {
	return rt.Method == http.MethodGet || rt.Method == http.MethodDelete
}

// sendBody sends body to route rt with a key holding every scope (and the
// account's session) and checks the response.
func sendBody(t *testing.T, s *Server, acct *Account, rt *httpapi.Route, body string) {
	t.Helper()
	req := localRequest(rt.Method, rt.Path, bytes.NewBufferString(body))
	req.Header.Set("Authorization", "Bearer "+acct.APIKey)
	req.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: acct.Session})
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	checkAnswer(t, rt, rec, body)
}

// sendQuery sends query to route rt as sendBody sends a body.
func sendQuery(t *testing.T, s *Server, acct *Account, rt *httpapi.Route, query string) {
	t.Helper()
	req := localRequest(rt.Method, rt.Path, nil)
	req.URL.RawQuery = query
	req.Header.Set("Authorization", "Bearer "+acct.APIKey)
	req.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: acct.Session})
	rec := httptest.NewRecorder()
	s.ServeHTTP(rec, req)
	checkAnswer(t, rt, rec, query)
}

// FuzzRequestBodies sends arbitrary bodies to every write route with a key
// holding every scope: nothing may panic or respond 5xx. Its seed corpus
// is small (testdata/fuzz/FuzzRequestBodies: the handwritten bodies), so
// that fuzzing starts within seconds; TestRequestBodySeeds sends every
// handwritten and generated body to every route it fits.
func FuzzRequestBodies(f *testing.F) {
	s, acct, _, writes := fuzzSetup(f, isWrite)
	f.Fuzz(func(t *testing.T, pick uint8, body string) {
		sendBody(t, s, acct, writes[int(pick)%len(writes)], body)
	})
}

// FuzzQueries sends arbitrary query strings to every read and delete route.
// Its seed corpus is small (testdata/fuzz/FuzzQueries: the handwritten
// queries); TestQuerySeeds sends every query parameter of the API,
// well-formed and malformed, to every such route.
func FuzzQueries(f *testing.F) {
	s, acct, _, reads := fuzzSetup(f, isRead)
	f.Fuzz(func(t *testing.T, pick uint8, query string) {
		sendQuery(t, s, acct, reads[int(pick)%len(reads)], query)
	})
}

// TestRequestBodySeeds is FuzzRequestBodies's checks on the bodies of the
// former corpus: every handwritten body on every write route, and the
// bodies generated from each route's schemas (fuzz_seeds_test.go) on
// their route.
func TestRequestBodySeeds(t *testing.T) {
	t.Parallel()
	s, acct, ids, writes := fuzzSetup(t, isWrite)
	g := newSchemaGen(t)
	g.ids = ids
	for _, rt := range writes {
		for _, body := range append(slices.Clone(handwrittenBodies), g.bodySeeds(rt)...) {
			sendBody(t, s, acct, rt, body)
		}
	}
}

// TestQuerySeeds is FuzzQueries's checks on the queries of the former
// corpus: the handwritten queries and every query parameter of the API
// (querySeeds) on every read route; a delete route reads only id.
func TestQuerySeeds(t *testing.T) {
	t.Parallel()
	s, acct, ids, reads := fuzzSetup(t, isRead)
	structured := querySeeds(ids)
	for _, rt := range reads {
		for _, q := range handwrittenQueries {
			sendQuery(t, s, acct, rt, q)
		}
		for _, q := range structured {
			if rt.Method == http.MethodDelete && !strings.HasPrefix(q, "id=") {
				continue // a delete reads only id
			}
			sendQuery(t, s, acct, rt, q)
		}
	}
}
