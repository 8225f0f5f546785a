package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/openapi"
)

// Structured inputs of the fuzz targets' checks: for every body schema,
// bodies generated from the schema (valid-looking, naming the fuzz
// tenant's real records so handlers run past their lookups), then mutated
// one field at a time; for every read route, every query parameter the API
// knows with well-formed and malformed values. TestRequestBodySeeds and
// TestQuerySeeds run them in go test as table tests (not as the fuzz
// targets' corpus, which stays small so that fuzzing starts at once), so
// a route or schema added later is covered at once.

// routeSchemas are the body schemas of a route: its own, or the ones its
// handler chooses between (signup's three body shapes).
func routeSchemas(rt *httpapi.Route) []string {
	if rt.Method+" "+rt.Path == "POST /api/v1/signup" {
		return []string{"signupOtpRequest", "signupOtpVerify", "signupPayment"}
	}
	if rt.Schema == "" {
		return nil
	}
	return []string{rt.Schema}
}

// seedIDs are real records of the fuzz tenant, by the property names that
// refer to them.
type seedIDs map[string]string

func (ids seedIDs) forProperty(route, name string) (string, bool) {
	switch name {
	case "id":
		switch {
		case strings.Contains(route, "/v1/leads"):
			return ids["lead"], true
		case strings.Contains(route, "/v1/agents"):
			return ids["agent"], true
		case strings.Contains(route, "/v1/webhooks/rotate-secret"):
			return ids["webhook"], true
		}
		return "", false
	case "business_id", "businessId":
		return ids["business"], true
	case "agent_id", "from_agent_id", "sdr_agent_id":
		return ids["agent"], true
	case "lead_id", "leadId":
		return ids["lead"], true
	case "partnerId", "partner_id":
		return ids["partner"], true
	}
	return "", false
}

// cannedValues are values for the common definitions whose pattern or
// format a generator cannot guess.
var cannedValues = map[string]any{
	"e164": "+15551230001", "uuid": "00000000-0000-4000-8000-000000000001", "hex64": strings.Repeat("ab", 32),
	"timestamp": "2026-03-10T16:00:00Z", "email": "seed@example.com", "uri": "https://example.com/seed",
	"uriOrEmpty": "", "timezone": "America/New_York", "hhmm": "09:00", "scope": "calls:read",
	"signupScope": "calls:read", "keyCreateScope": "calls:read", "eventType": "lead.created", "leadStatus": "qualified",
}

// cannedPatterns are values for the patterns of properties that are not
// common definitions.
var cannedPatterns = map[string]any{"^[0-9]{6}$": "123456"}

// schemaGen generates JSON values from the schemas of package openapi.
type schemaGen struct {
	docs  map[string]map[string]any // schema name -> document
	route string
	ids   seedIDs
}

func newSchemaGen(t testing.TB) *schemaGen {
	g := &schemaGen{docs: map[string]map[string]any{}}
	for _, name := range openapi.SchemaNames() {
		raw, ok := openapi.Schema(name)
		require.True(t, ok, name)
		var doc map[string]any
		require.NoError(t, json.Unmarshal(raw, &doc), name)
		g.docs[name] = doc
	}
	return g
}

// resolve follows a $ref ("#/$defs/x" in doc, or "other.json#/$defs/x"):
// the schema, the document it lives in, and the definition's name.
func (g *schemaGen) resolve(ref string, doc map[string]any) (map[string]any, map[string]any, string) {
	file, frag, _ := strings.Cut(ref, "#")
	if file != "" {
		doc = g.docs[strings.TrimSuffix(file, ".json")]
	}
	var cur any = doc
	name := ""
	for _, part := range strings.Split(strings.Trim(frag, "/"), "/") {
		if part == "" {
			continue
		}
		m, _ := cur.(map[string]any)
		cur, name = m[part], part
	}
	s, _ := cur.(map[string]any)
	return s, doc, name
}

// values returns one or more values for a schema: one per choice of an
// action-selected command (if/then), one otherwise.
func (g *schemaGen) values(s any, doc map[string]any, prop string, depth int) []any {
	sch, ok := s.(map[string]any)
	if !ok || depth > 12 {
		return []any{"x"}
	}
	if id, ok := g.ids.forProperty(g.route, prop); ok && id != "" {
		return []any{id}
	}
	if ref, ok := sch["$ref"].(string); ok {
		target, tdoc, name := g.resolve(ref, doc)
		if v, ok := cannedValues[name]; ok {
			return []any{v}
		}
		return g.values(target, tdoc, prop, depth+1)
	}
	if c, ok := sch["const"]; ok {
		return []any{c}
	}
	if e, ok := sch["enum"].([]any); ok && len(e) > 0 {
		return []any{e[0]}
	}
	_, hasProps := sch["properties"]
	if hasProps && sch["type"] == nil {
		return []any{g.object(sch, doc, depth)} // an object whose type is implied
	}
	for _, key := range []string{"anyOf", "oneOf"} {
		if alts, ok := sch[key].([]any); ok && len(alts) > 0 && !hasProps && sch["type"] == nil {
			return g.values(alts[0], doc, prop, depth+1)
		}
	}
	// Commands: {action: enum} with allOf of if action == X then schema.
	if alls, ok := sch["allOf"].([]any); ok {
		var out []any
		for _, a := range alls {
			then, _ := a.(map[string]any)["then"]
			if then != nil {
				out = append(out, g.values(then, doc, prop, depth+1)...)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	typ := sch["type"]
	if ts, ok := typ.([]any); ok {
		for _, t := range ts {
			if t != "null" {
				typ = t
				break
			}
		}
	}
	switch typ {
	case "object":
		return []any{g.object(sch, doc, depth)}
	case "array":
		n := 1
		if m, ok := sch["minItems"].(float64); ok && m > 1 {
			n = int(m)
		}
		items := make([]any, 0, n)
		for i := range n {
			vs := g.values(sch["items"], doc, prop, depth+1)
			v := vs[0]
			if str, ok := v.(string); ok && n > 1 && sch["uniqueItems"] == true {
				v = fmt.Sprintf("%s%d", str, i)
			}
			items = append(items, v)
		}
		return []any{items}
	case "integer", "number":
		if m, ok := sch["minimum"].(float64); ok {
			return []any{m}
		}
		return []any{1}
	case "boolean":
		return []any{true}
	case "null":
		return []any{nil}
	}
	n := 1
	if m, ok := sch["minLength"].(float64); ok && m > 1 {
		n = int(m)
	}
	if v, ok := cannedPatterns[fmt.Sprint(sch["pattern"])]; ok {
		return []any{v}
	}
	switch sch["format"] {
	case "email":
		return []any{"seed@example.com"}
	case "uri":
		return []any{"https://example.com/seed"}
	case "date-time":
		return []any{"2026-03-10T16:00:00Z"}
	case "uuid":
		return []any{"00000000-0000-4000-8000-000000000002"}
	}
	return []any{strings.Repeat("s", n)}
}

// object is an object with the schema's required properties.
func (g *schemaGen) object(sch, doc map[string]any, depth int) map[string]any {
	props, _ := sch["properties"].(map[string]any)
	out := map[string]any{}
	req, _ := sch["required"].([]any)
	for _, key := range []string{"anyOf", "oneOf"} { // the first alternative's requirements
		if alts, ok := sch[key].([]any); ok && len(alts) > 0 {
			first, _ := alts[0].(map[string]any)
			more, _ := first["required"].([]any)
			req = append(slices.Clone(req), more...)
		}
	}
	for _, r := range req {
		name := r.(string)
		out[name] = g.values(props[name], doc, name, depth+1)[0]
	}
	return out
}

// bodySeeds are the structured bodies for a route: valid-looking bases
// (the required properties; then each optional property added in turn),
// and for each base field a missing, null, wrongly typed, huge, deeply
// nested or oversized value, plus an unknown property.
func (g *schemaGen) bodySeeds(rt *httpapi.Route) []string {
	g.route = rt.Method + " " + rt.Path
	var out []string
	add := func(v any) {
		b, err := json.Marshal(v)
		if err == nil {
			out = append(out, string(b))
		}
	}
	deep := strings.Repeat("[", 2000) + strings.Repeat("]", 2000)
	for _, name := range routeSchemas(rt) {
		doc := g.docs[name]
		for _, base := range g.values(doc, doc, "", 0) {
			obj, ok := base.(map[string]any)
			if !ok {
				add(base)
				continue
			}
			add(obj)
			props, _ := doc["properties"].(map[string]any)
			if then := commandSchema(g, doc, obj); then != nil {
				props, _ = then["properties"].(map[string]any)
			}
			for _, p := range sortedKeys(props) {
				if _, ok := obj[p]; ok {
					continue
				}
				with := cloneObj(obj)
				with[p] = g.values(props[p], doc, p, 1)[0]
				add(with)
			}
			for _, f := range sortedKeys(obj) {
				without := cloneObj(obj)
				delete(without, f)
				add(without)
				for _, bad := range []any{nil, 12345, -1e308, "", strings.Repeat("é", 5000), []any{}, map[string]any{}, true,
					json.Number("123456789012345678901234567890"), json.RawMessage(deep), "\xff\xfe", "00000000-0000-4000-8000-00000000dead"} {
					mutated := cloneObj(obj)
					mutated[f] = bad
					add(mutated)
				}
			}
			extra := cloneObj(obj)
			extra["unknown_property"] = 1
			add(extra)
		}
	}
	return out
}

// commandSchema is the then-schema an agency command's action selects.
func commandSchema(g *schemaGen, doc, obj map[string]any) map[string]any {
	action, _ := obj["action"].(string)
	alls, _ := doc["allOf"].([]any)
	for _, a := range alls {
		m, _ := a.(map[string]any)
		cond, _ := m["if"].(map[string]any)
		props, _ := cond["properties"].(map[string]any)
		act, _ := props["action"].(map[string]any)
		if act["const"] == action && action != "" {
			if then, ok := m["then"].(map[string]any); ok {
				if ref, ok := then["$ref"].(string); ok {
					s, _, _ := g.resolve(ref, doc)
					return s
				}
				return then
			}
		}
	}
	return nil
}

func cloneObj(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// queryParams are the query parameters the API reads, and values for each
// (well-formed ones naming real records; malformed ones).
func queryParams(ids seedIDs) map[string][]string {
	id := func(kind string) []string {
		return []string{ids[kind], "00000000-0000-4000-8000-000000000000", "nope", "%00"}
	}
	return map[string][]string{
		"id": id("lead"), "business_id": id("business"), "agent_id": id("agent"), "lead_id": id("lead"),
		"partnerId": id("partner"), "businessId": id("business"), "leadId": id("lead"), "subscription_id": id("webhook"),
		"limit":  {"1", "100", "0", "-5", "101", "99999999999999999999", "1e3", "x"},
		"after":  {"2026-03-10T16:00:00.000000001Z", "2026-03-10", "yesterday", "9999-12-31T23:59:59Z"},
		"start":  {"2026-03-10", "2026-03-10T16:00:00Z", "never"},
		"end":    {"2026-03-11", "garbage"},
		"days":   {"1", "90", "91", "0", "-1"},
		"status": {"new", "completed", "qualified", "\xff", ""}, "type": {"lead.created", "lead.deleted"},
		"direction": {"inbound", "sideways"}, "phone": {"+15551230001", "555"}, "email": {"a@b.c", "not-an-email"},
		"source": {"sms", strings.Repeat("s", 5000)}, "group_by": {"day", "week", "month"}, "period": {"today", "year"},
		"segment": {"cold", "warm-ish"}, "name": {"agentCreate", "nope"}, "wait": {"1ms", "1h"}, "token": {"x"},
	}
}

// querySeeds are, for a read or delete route, one seed per parameter and
// value, and one with every parameter at its first value.
func querySeeds(ids seedIDs) []string {
	params := queryParams(ids)
	var out []string
	all := []string{}
	for _, name := range sortedKeys(params) {
		for _, v := range params[name] {
			out = append(out, name+"="+v)
		}
		all = append(all, name+"="+params[name][0])
	}
	return append(out, strings.Join(all, "&"))
}

// fuzzTenant is the tenant the fuzz targets act as, with one record of
// each kind the seeds name.
func fuzzTenant(s *Server) (*Account, seedIDs, error) {
	acct, err := s.NewAccount(AccountOptions{})
	if err != nil {
		return nil, nil, err
	}
	ids := seedIDs{"business": acct.BusinessID, "agent": acct.AgentID}
	in, err := s.InboundSMS(InboundSMS{To: acct.PhoneNumber, From: "+15551230001", Body: "Hi, my name is Fuzz, I need a quote"})
	if err != nil {
		return nil, nil, err
	}
	ids["lead"] = in.LeadID
	post := func(path, body string) (map[string]any, error) {
		req := httptest.NewRequest(http.MethodPost, path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+acct.APIKey)
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, req)
		var out map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || rec.Code >= 300 {
			return nil, fmt.Errorf("%s: %d %s", path, rec.Code, rec.Body)
		}
		return out, nil
	}
	hook, err := post("/api/v1/webhooks", `{"business_id":"`+acct.BusinessID+`","webhook_url":"https://example.com/fuzz"}`)
	if err != nil {
		return nil, nil, err
	}
	ids["webhook"], _ = hook["id"].(string)
	boot, err := post("/api/v1/agency-profile", `{"action":"bootstrap","brand":{"name":"Fuzz"},"support":{"email":"f@example.com","ownerName":"F","coverage":"c"}}`)
	if err != nil {
		return nil, nil, err
	}
	profile, _ := boot["profile"].(map[string]any)
	ids["partner"], _ = profile["partnerId"].(string)
	return acct, ids, nil
}

func TestBodySeedsCoverEverySchema(t *testing.T) {
	t.Parallel()
	s := New(WithRateLimits(false))
	defer s.Close()
	g := newSchemaGen(t)
	g.ids = seedIDs{"business": "00000000-0000-4000-8000-00000000000b", "agent": "00000000-0000-4000-8000-00000000000a",
		"lead": "00000000-0000-4000-8000-00000000000c", "partner": "00000000-0000-4000-8000-00000000000d"}
	covered := map[string]bool{}
	total := 0
	for _, rt := range fuzzRoutes(s) {
		seeds := g.bodySeeds(rt)
		total += len(seeds)
		for _, name := range routeSchemas(rt) {
			covered[name] = true
		}
		if len(routeSchemas(rt)) > 0 {
			assert.Greater(t, len(seeds), 5, "%s %s", rt.Method, rt.Path)
		}
	}
	t.Logf("%d structured body seeds, %d query seeds per read route", total, len(querySeeds(g.ids)))
	// Every body schema of package openapi is used by a route (the shared
	// definitions aside), so every one gets seeds.
	for _, name := range openapi.SchemaNames() {
		if name == "common" || covered[name] {
			continue
		}
		t.Logf("schema %s is not used by a route of this server (another area's)", name)
	}
	// A generated base of each command validates: the generator is not
	// feeding the handlers only invalid bodies.
	valid := 0
	for _, rt := range fuzzRoutes(s) {
		g.route = rt.Method + " " + rt.Path
		for _, name := range routeSchemas(rt) {
			doc := g.docs[name]
			for _, base := range g.values(doc, doc, "", 0) {
				raw, _ := json.Marshal(base)
				rc := &httpapi.Ctx{Route: &httpapi.Route{Schema: name}, Body: raw}
				if err := rc.Decode(nil); err == nil {
					valid++
				} else {
					t.Logf("%s: generated %s: %v", name, raw, err)
				}
			}
		}
	}
	assert.Greater(t, valid, 20, "most generated bases are valid")
	assert.True(t, slices.Contains(routeSchemas(&httpapi.Route{Method: http.MethodPost, Path: "/api/v1/signup"}), "signupOtpVerify"))
}
