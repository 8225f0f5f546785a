package mockserver

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/catalog"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/governance"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/identity"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/runs"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/sdr"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// The security matrices walk the route table, so a route added later is
// covered at once (scopes) or fails until it is given its cases (tenants).

// publicRoutes are the routes that need no authentication at all; any
// other route without authentication fails TestScopeMatrix.
var publicRoutes = []string{
	"POST /api/v1/signup",
	"GET " + identity.MagicLinkPath,
	"GET " + identity.PasswordSetupPath,
	// The scheduled SDR runner: no key or session, only the platform's
	// internal secret header (401 without it; see docs/mockserver.md, section Scheduled runner).
	"POST /api/sdr/cron",
	// The public OpenAPI document (no credentials needed).
	"GET /api/openapi.yaml",
}

// keyOnlyRoutes are the bearer routes that need no scope beyond a valid
// key (capabilities and schemas: see docs/mockserver.md, section
// Authentication and scopes); any other bearer route
// without a scope requirement fails TestScopeMatrix.
var keyOnlyRoutes = []string{
	"GET /api/v1/capabilities",
	"GET /api/v1/schemas",
	"GET /api/v1/openapi.json",
}

// failingRemovals lists sets of scopes whose removal from every scope
// fails req: a single scope, itself; allOf, each member's; anyOf, one of
// each member's together.
func failingRemovals(req httpapi.ScopeReq) [][]string {
	switch r := req.(type) {
	case httpapi.Scope:
		return [][]string{{string(r)}}
	case httpapi.AllOfReq:
		var out [][]string
		for _, m := range r {
			out = append(out, failingRemovals(m)...)
		}
		return out
	case httpapi.AnyOfReq:
		combined := [][]string{nil}
		for _, m := range r {
			var next [][]string
			for _, prefix := range combined {
				for _, rem := range failingRemovals(m) {
					next = append(next, append(slices.Clone(prefix), rem...))
				}
			}
			combined = next
		}
		return combined
	}
	panic(fmt.Sprintf("unknown scope requirement %T", req))
}

func TestFailingRemovals(t *testing.T) {
	t.Parallel()
	req := httpapi.AllOf(httpapi.Scope("a"), httpapi.AnyOf(httpapi.Scope("b"), httpapi.AllOf(httpapi.Scope("c"), httpapi.Scope("d"))))
	assert.Equal(t, [][]string{{"a"}, {"b", "c"}, {"b", "d"}}, failingRemovals(req))
}

// matrixKeys mints keys for one user on a server, one per scope set.
type matrixKeys struct {
	s      *Server
	userID string
	keys   map[string]string
}

func (m *matrixKeys) key(scopes []string, businessID string) string {
	id := strings.Join(scopes, ",") + "|" + businessID
	if k, ok := m.keys[id]; ok {
		return k
	}
	tx := m.s.platform.WriteTx()
	k, _ := m.s.identity.IssueKey(tx, m.s.Now(), m.userID, "matrix", scopes, businessID, "")
	tx.End()
	m.keys[id] = k
	return k
}

// TestScopeMatrix calls every authenticated route with keys that lack its
// scope requirement (each way of lacking it): 403 forbidden naming the
// requirement. Session-only routes refuse any bearer key (401); routes that
// need only a valid key take a key with one unrelated scope; public routes
// are listed in publicRoutes.
func TestScopeMatrix(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t, WithRateLimits(false))
	keys := &matrixKeys{s: srv.Server, userID: acct.UserID, keys: map[string]string{}}
	for _, methods := range srv.httpapi.Routes {
		for _, rt := range methods {
			name := rt.Method + " " + rt.Path
			send := func(key string) rawResp {
				return rawDo(t, rt.Method, srv.HTTP.URL+rt.Path, "{}", bearer(key)...)
			}
			switch rt.Auth {
			case httpapi.AuthAdmin:
				assert.True(t, strings.HasPrefix(rt.Path, httpapi.AdminPrefix+"/") || slices.Contains([]string{"/", httpapi.APIPrefix, httpapi.AdminPrefix}, rt.Path),
					"%s: admin routes live under %s (or are the index)", name, httpapi.AdminPrefix)
			case httpapi.AuthNone:
				assert.Contains(t, publicRoutes, name, "%s needs no authentication: add it to publicRoutes if that is right", name)
			case httpapi.AuthSession:
				r := send(keys.key(identity.AllScopes(), ""))
				assert.Equal(t, http.StatusUnauthorized, r.status, "%s: a bearer key cannot use a session route: %s", name, r.body)
				assert.Equal(t, voiceagent.CodeUnauthorized, r.code(), name)
			default:
				if rt.Scope == nil {
					assert.Contains(t, keyOnlyRoutes, name, "%s has no scope requirement: add one, or list it in keyOnlyRoutes", name)
					r := send(keys.key([]string{"calls:read"}, ""))
					assert.NotContains(t, []int{http.StatusUnauthorized, http.StatusForbidden}, r.status, "%s: %s", name, r.body)
					continue
				}
				for _, removed := range failingRemovals(rt.Scope) {
					set := slices.DeleteFunc(identity.AllScopes(), func(sc string) bool { return slices.Contains(removed, sc) })
					require.False(t, rt.Scope.Met(&domain.Actor{KeyID: "key", Scopes: set}), "%s: %v meets %s", name, set, rt.Scope)
					r := send(keys.key(set, ""))
					assert.Equal(t, http.StatusForbidden, r.status, "%s without %v: %s", name, removed, r.body)
					assert.Equal(t, voiceagent.CodeForbidden, r.code(), name)
					assert.Contains(t, r.message(), rt.Scope.String(), "%s: the message names the requirement", name)
				}
				// Every scope, or the wildcard alone, passes the scope check.
				for _, set := range [][]string{identity.AllScopes(), {string(voiceagent.ScopeAll)}} {
					r := send(keys.key(set, ""))
					assert.NotContains(t, r.message(), "lacks the scope", "%s with %v: %s", name, set, r.body)
				}
			}
		}
	}
}

// crossCase is one request naming a resource of the victim tenant, sent by
// an outsider: want is 403 (a business named), 404 (a record named: absent
// and inaccessible look the same) or 200 (a read of the outsider's own
// data, which must show nothing of the victim's).
type crossCase struct {
	query, body string
	want        int
	// session sends the outsider's dashboard session instead of its key.
	session bool
	// userLevel marks data that belongs to a user rather than a business
	// (agencies, keys): a key restricted to another business of the same
	// user has access to it by design, so only the other user is tried.
	userLevel bool
	// header is sent along with the outsider's credentials (for example
	// the Idempotency-Key a create requires before it reads the body).
	header []string
}

// victim is the tenant whose resources the outsiders try to reach.
type victim struct {
	*Account
	emailForTest                                                                     string
	leadID, callID, messageID, hookID, eventID, keyID, keyPrefix, partnerID, offerID string
	productID, knowledgeID, runID, governedID, approvalID                            string
}

// ids are every identifier of the victim that must not appear in an
// outsider's successful read.
func (v *victim) ids() []string {
	return []string{v.BusinessID, v.AgentID, v.PhoneNumber, v.leadID, v.callID, v.messageID, v.hookID,
		v.eventID, v.keyID, v.keyPrefix, v.partnerID, v.offerID, v.UserID,
		v.productID, v.knowledgeID, v.runID, v.governedID, v.approvalID}
}

// crossTenantCases lists, per route, the requests of TestCrossTenantMatrix.
// Every authenticated route must have an entry.
func crossTenantCases(v *victim) map[string][]crossCase {
	q := func(k, id string) string { return k + "=" + id }
	own := crossCase{want: http.StatusOK}
	biz := crossCase{query: q("business_id", v.BusinessID), want: http.StatusForbidden}
	notFound := func(query, body string) crossCase {
		return crossCase{query: query, body: body, want: http.StatusNotFound}
	}
	forbiddenBody := func(body string) crossCase { return crossCase{body: body, want: http.StatusForbidden} }
	agency := func(c crossCase) crossCase { c.userLevel = true; return c }
	sdrBiz := crossCase{query: q("businessId", v.BusinessID), want: http.StatusForbidden}
	run := func(business string) string {
		return `{"business_id":"` + business + `","external_ref":"x","touches":[{"touch_id":"t","channel":"sms","message":"Hi",` +
			`"target":{"phone":"+15551230009"},"scheduled_at":"2030-01-01T00:00:00Z"}]}`
	}
	withHeader := func(c crossCase, h ...string) crossCase { c.header = h; return c }
	return map[string][]crossCase{
		"GET /api/v1/agents":                  {own, biz, notFound(q("id", v.AgentID), "")},
		"POST /api/v1/agents":                 {forbiddenBody(`{"business_id":"` + v.BusinessID + `","name":"x","system_prompt":"y"}`)},
		"PATCH /api/v1/agents":                {notFound("", `{"id":"`+v.AgentID+`","name":"stolen"}`)},
		"GET /api/v1/voices":                  {own},
		"GET /api/v1/numbers":                 {own, biz},
		"POST /api/v1/calls":                  {notFound("", `{"agent_id":"`+v.AgentID+`","to":"+15551230009"}`)},
		"GET /api/v1/calls":                   {own, biz, notFound(q("id", v.callID), "")},
		"GET /api/v1/transcripts":             {own, biz},
		"GET /api/v1/leads":                   {own, biz, notFound(q("id", v.leadID), "")},
		"PATCH /api/v1/leads":                 {notFound("", `{"id":"`+v.leadID+`","notes":"stolen"}`)},
		"POST /api/v1/sms/send":               {notFound("", `{"from_agent_id":"`+v.AgentID+`","to":"+15551230009","message":"hi"}`)},
		"POST /api/v1/sms/update-prompt":      {notFound("", `{"agent_id":"`+v.AgentID+`","sms_prompt":"stolen"}`)},
		"GET /api/v1/sms/messages":            {own, biz, notFound(q("lead_id", v.leadID), "")},
		"GET /api/v1/webhooks":                {own, biz, notFound(q("id", v.hookID), "")},
		"POST /api/v1/webhooks":               {forbiddenBody(`{"business_id":"` + v.BusinessID + `","webhook_url":"https://x.example"}`)},
		"DELETE /api/v1/webhooks":             {notFound(q("id", v.hookID), "")},
		"POST /api/v1/webhooks/rotate-secret": {notFound("", `{"id":"`+v.hookID+`"}`)},
		"GET /api/v1/events":                  {own, biz, notFound(q("id", v.eventID), "")},
		"POST /api/v1/events/replay": {
			notFound("", `{"event_ids":["`+v.eventID+`"]}`),
			forbiddenBody(`{"business_id":"` + v.BusinessID + `","since":"2000-01-01T00:00:00Z"}`),
		},
		"GET /api/v1/keys":                 {{want: http.StatusOK, session: true, userLevel: true}},
		"POST /api/v1/keys":                {{body: `{"business_id":"` + v.BusinessID + `"}`, want: http.StatusForbidden, session: true, userLevel: true}},
		"DELETE /api/v1/keys":              {{query: q("id", v.keyID), want: http.StatusNotFound, session: true, userLevel: true}},
		"GET /api/v1/balance":              {own, biz},
		"GET /api/v1/usage":                {own},
		"GET /api/v1/capabilities":         {own},
		"GET /api/v1/schemas":              {own},
		"GET /api/v1/openapi.json":         {own},
		"GET /api/v1/agency-profile":       {agency(crossCase{query: q("partnerId", v.partnerID), want: http.StatusForbidden})},
		"POST /api/v1/agency-profile":      {agency(forbiddenBody(`{"action":"invite","partnerId":"` + v.partnerID + `","email":"x@example.com","role":"admin"}`))},
		"GET /api/v1/agency-offers":        {agency(crossCase{query: q("partnerId", v.partnerID) + "&" + q("id", v.offerID), want: http.StatusForbidden})},
		"POST /api/v1/agency-offers":       {agency(forbiddenBody(`{"action":"archive","partnerId":"` + v.partnerID + `","offerId":"` + v.offerID + `","expectedRevision":"` + v.offerID + `"}`))},
		"GET /api/v1/agency-enrollments":   {agency(crossCase{query: q("partnerId", v.partnerID), want: http.StatusForbidden})},
		"POST /api/v1/agency-enrollments":  {agency(forbiddenBody(`{"action":"revoke","partnerId":"` + v.partnerID + `","sessionId":"` + v.offerID + `"}`))},
		"GET /api/v1/agency-installations": {agency(crossCase{query: q("partnerId", v.partnerID), want: http.StatusForbidden})},
		"POST /api/v1/agency-installations": {agency(forbiddenBody(`{"action":"preview_route_receipt","partnerId":"` + v.partnerID +
			`","installationId":"` + v.offerID + `","expectedRevision":"` + strings.Repeat("0", 64) + `"}`))},
		"GET /api/sdr/config":              {sdrBiz},
		"PUT /api/sdr/config":              {forbiddenBody(`{"businessId":"` + v.BusinessID + `","enabled":false}`)},
		"GET /api/sdr/pipeline":            {sdrBiz},
		"POST /api/sdr/action":             {forbiddenBody(`{"businessId":"` + v.BusinessID + `","leadId":"` + v.leadID + `","action":"pause"}`)},
		"POST /api/sdr/run":                {forbiddenBody(`{"businessId":"` + v.BusinessID + `"}`)},
		"GET /api/sdr/report":              {sdrBiz},
		"GET /api/sdr/activity":            {sdrBiz, {query: q("businessId", v.BusinessID) + "&" + q("leadId", v.leadID), want: http.StatusForbidden}},
		"GET /api/v1/analytics/dashboard":  {own, biz},
		"GET /api/v1/analytics/calls":      {own, biz},
		"GET /api/v1/analytics/funnel":     {own, biz},
		"GET /api/v1/analytics/agents":     {own, biz},
		"GET /api/v1/analytics/weekly":     {own, biz},
		"GET /api/v1/analytics/businesses": {own, biz},
		"GET /api/v1/products":             {own, biz, notFound(q("id", v.productID), "")},
		"POST /api/v1/products": {
			forbiddenBody(`{"business_id":"` + v.BusinessID + `","name":"x"}`),
			notFound("", `{"id":"`+v.productID+`","name":"stolen"}`),
		},
		"DELETE /api/v1/products": {notFound(q("id", v.productID), "")},
		"GET /api/v1/knowledge":   {own, biz, notFound(q("id", v.knowledgeID), "")},
		"POST /api/v1/knowledge": {
			forbiddenBody(`{"business_id":"` + v.BusinessID + `","title":"x","content":"y","content_type":"text"}`),
			notFound("", `{"id":"`+v.knowledgeID+`","business_id":"`+v.BusinessID+`","title":"stolen"}`),
		},
		"DELETE /api/v1/knowledge":                 {notFound(q("id", v.knowledgeID), "")},
		"POST /api/v1/communication-runs/validate": {forbiddenBody(run(v.BusinessID))},
		"POST /api/v1/communication-runs/preview":  {forbiddenBody(run(v.BusinessID))},
		"POST /api/v1/communication-runs":          {withHeader(forbiddenBody(run(v.BusinessID)), "Idempotency-Key", "cross-tenant")},
		"GET /api/v1/communication-runs":           {own, biz, notFound(q("id", v.runID), "")},
		"DELETE /api/v1/communication-runs":        {notFound(q("id", v.runID), "")},
		"POST /api/v1/governed-updates": {
			forbiddenBody(`{"intent":"agent.patch","business_id":"` + v.BusinessID + `","target":{"agent_id":"` + v.AgentID +
				`"},"payload":{"name":"stolen"},"idempotency_key":"v-gov","authority":{"mode":"system_policy"}}`),
			notFound("", `{"intent":"agent.patch","target":{"agent_id":"`+v.AgentID+
				`"},"payload":{"name":"stolen"},"idempotency_key":"x-gov","authority":{"mode":"system_policy"}}`),
		},
		"GET /api/v1/governed-updates": {own, biz, notFound(q("id", v.governedID), "")},
		"POST /api/v1/governed-updates/decide": {{body: `{"id":"` + v.governedID + `","decision":"approve"}`,
			want: http.StatusNotFound, session: true, userLevel: true}},
		// An approval request names no business: it is placed from the
		// caller's own, and shows nothing of the victim's.
		"POST /api/v1/approval-requests": {{body: approvalRequestBody("+15551230009"), want: http.StatusCreated}},
		"GET /api/v1/approval-requests":  {own, notFound(q("id", v.approvalID), "")},
		"POST /api/v1/agents/persona":    {notFound("", `{"agent_id":"`+v.AgentID+`","persona":{"lead_name":"x","scenario":"y"}}`)},
	}
}

// approvalRequestBody is an approval request calling to, with a loopback callback.
func approvalRequestBody(to string) string {
	return `{"source":"ops","source_request_id":"r-` + to + `","principal_id":"p1","channel":{"type":"voice","address":"` + to +
		`"},"summary":"Refund?","risk_level":"low","expires_at":"2030-01-01T00:00:00Z","callback_url":"http://127.0.0.1:9/cb"}`
}

// TestCrossTenantMatrix sends, for every authenticated route, requests
// naming the victim's resources from two outsiders: a key of another user,
// and a key of the victim's own user restricted to another business. Each
// gets 403 or 404 in the error format, or, reading its own data, nothing of
// the victim's; the victim's records are unchanged.
func TestCrossTenantMatrix(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithRateLimits(false), WithStartTime(afternoonET))
	v := newVictim(t, srv)
	cases := crossTenantCases(v)

	other, err := srv.NewAccount(AccountOptions{Email: "outsider@example.com"})
	require.NoError(t, err)
	// The victim's user gets a second business; a key restricted to it is
	// the second outsider.
	second, err := srv.NewAccount(AccountOptions{Email: v.emailForTest})
	require.NoError(t, err)
	require.Equal(t, v.UserID, second.UserID)
	restricted := (&matrixKeys{s: srv.Server, userID: v.UserID, keys: map[string]string{}}).key(identity.AllScopes(), second.BusinessID)

	before := victimState(srv.Server, v)
	for _, methods := range srv.httpapi.Routes {
		for _, rt := range methods {
			name := rt.Method + " " + rt.Path
			if rt.Auth == httpapi.AuthAdmin || rt.Auth == httpapi.AuthNone {
				continue
			}
			cs, ok := cases[name]
			if !assert.True(t, ok, "%s has no cross-tenant cases: add them to crossTenantCases", name) {
				continue
			}
			for _, c := range cs {
				outsiders := []struct {
					who    string
					header []string
				}{{"another user", bearer(other.APIKey)}, {"a key of another business", bearer(restricted)}}
				if c.session {
					outsiders = outsiders[:1]
					outsiders[0].header = []string{"Cookie", httpapi.SessionCookie + "=" + other.Session}
				} else if c.userLevel {
					outsiders = outsiders[:1]
				}
				for _, o := range outsiders {
					o.header = append(slices.Clone(o.header), c.header...)
					url := srv.HTTP.URL + rt.Path
					if c.query != "" {
						url += "?" + c.query
					}
					r := rawDo(t, rt.Method, url, c.body, o.header...)
					what := fmt.Sprintf("%s?%s %s as %s", name, c.query, c.body, o.who)
					assert.Equal(t, c.want, r.status, "%s: %s", what, r.body)
					switch {
					case c.want == http.StatusForbidden:
						assert.Equal(t, voiceagent.CodeForbidden, r.code(), what)
					case c.want == http.StatusNotFound:
						assert.Equal(t, voiceagent.CodeNotFound, r.code(), what)
					case r.status == http.StatusOK || r.status == http.StatusCreated:
						for _, id := range v.ids() {
							assert.NotContains(t, string(r.body), id, "%s shows the victim's %s", what, id)
						}
					}
				}
			}
		}
	}
	assert.Equal(t, before, victimState(srv.Server, v), "the victim's records are unchanged")
}

// newVictim provisions the victim tenant with one of each resource.
func newVictim(t *testing.T, srv *TestServer) *victim {
	t.Helper()
	acct, err := srv.NewAccount(AccountOptions{Email: "victim@example.com"})
	require.NoError(t, err)
	v := &victim{Account: acct, emailForTest: "victim@example.com"}
	key := bearer(acct.APIKey)
	in, err := srv.InboundSMS(InboundSMS{To: acct.PhoneNumber, From: "+15551239001", Body: "Hi, this is Vic, I need a quote"})
	require.NoError(t, err)
	v.leadID = in.LeadID
	post := func(path, body string, want int) rawResp {
		r := rawDo(t, http.MethodPost, srv.URL+path, body, key...)
		require.Equal(t, want, r.status, "%s: %s", path, r.body)
		return r
	}
	v.callID = post("/v1/calls", `{"agent_id":"`+acct.AgentID+`","to":"+15551239002"}`, http.StatusCreated).json["id"].(string)
	v.messageID = post("/v1/sms/send", `{"from_agent_id":"`+acct.AgentID+`","to":"+15551239001","message":"Thanks!"}`, http.StatusOK).json["id"].(string)
	v.hookID = post("/v1/webhooks", `{"business_id":"`+acct.BusinessID+`","webhook_url":"https://hooks.example/v"}`, http.StatusCreated).json["id"].(string)
	boot := post("/v1/agency-profile", `{"action":"bootstrap","brand":{"name":"Vic's agency"},"support":{"email":"v@example.com","ownerName":"Vic","coverage":"Always"}}`, http.StatusOK)
	v.partnerID = boot.json["profile"].(map[string]any)["partnerId"].(string)
	offer := post("/v1/agency-offers", `{"action":"save","partnerId":"`+v.partnerID+`","draft":{"name":"Offer","industry":"legal","commercialMode":"commission",`+
		`"retail":{"monthlyCents":1,"currency":"USD","scope":"s","collection":"agency_external"},"packages":[{"key":"convert","version":"1","variant":"v"}],`+
		`"supportedClaims":["approved_intake_setup"],"supportPolicy":"p","brandingLimitationsAcknowledged":true}}`, http.StatusOK)
	v.offerID = offer.json["offer"].(map[string]any)["offerId"].(string)
	v.productID = post("/v1/products", `{"business_id":"`+acct.BusinessID+`","name":"Widget"}`, http.StatusCreated).json["id"].(string)
	v.knowledgeID = post("/v1/knowledge", `{"business_id":"`+acct.BusinessID+`","title":"Hours","content":"9 to 5","content_type":"text"}`,
		http.StatusCreated).json["id"].(string)
	r := rawDo(t, http.MethodPost, srv.URL+"/v1/communication-runs", `{"business_id":"`+acct.BusinessID+`","external_ref":"v",`+
		`"touches":[{"touch_id":"t1","channel":"sms","message":"Hi","target":{"phone":"+15551239001"},"scheduled_at":"2030-01-01T00:00:00Z"}]}`,
		append(key, "Idempotency-Key", "victim-run")...)
	require.Equal(t, http.StatusCreated, r.status, "run: %s", r.body)
	v.runID = r.json["id"].(string)
	gov := post("/v1/governed-updates", `{"intent":"agent.patch","target":{"agent_id":"`+acct.AgentID+`"},"payload":{"name":"Queued"},`+
		`"idempotency_key":"v-gov","queue_for_approval":true}`, http.StatusAccepted)
	v.governedID = gov.json["id"].(string)
	v.approvalID = post("/v1/approval-requests", approvalRequestBody("+15551239003"), http.StatusCreated).json["id"].(string)
	rawDo(t, http.MethodPut, srv.URL+"/sdr/config", `{"businessId":"`+acct.BusinessID+`","enabled":true}`, key...)
	tx := srv.platform.ReadTx()
	defer tx.End()
	v.eventID = tx.Events.Owned(acct.BusinessID)[0].ID
	k := tx.KeysByHash[httpapi.HashKey(acct.APIKey)]
	v.keyID, v.keyPrefix = k.ID, k.Prefix
	return v
}

// victimState is what the outsiders must not change: the victim's records
// as the API shows them.
func victimState(s *Server, v *victim) string {
	tx := s.platform.ReadTx()
	defer tx.End()
	var b strings.Builder
	a, _ := tx.Agents.Get(v.AgentID)
	l, _ := tx.Leads.Get(v.leadID)
	w, _ := tx.Webhooks.Get(v.hookID)
	k, _ := tx.Keys.Get(v.keyID)
	agent, _ := jsonview.EncodeJSON(telephony.AgentDetail(a))
	lead, _ := jsonview.EncodeJSON(telephony.LeadDetail(tx, l))
	fmt.Fprintf(&b, "agent %s\nlead %s\nhook %v %v %v %v\nkey %v\n", agent, lead, w.URL, w.Active, w.Secrets, w.CustomHeaders, k.Active)
	fmt.Fprintf(&b, "calls %d agents %d hooks %d texts %d events %d", tx.Calls.Count(v.BusinessID), tx.Agents.Count(v.BusinessID),
		tx.Webhooks.Count(v.BusinessID), tx.SMSMessages.Count(v.BusinessID), tx.Events.Count(v.BusinessID))
	p, _ := tx.Products.Get(v.productID)
	kn, _ := tx.Knowledge.Get(v.knowledgeID)
	run, _ := tx.Runs.Get(v.runID)
	g, _ := tx.GovernedUpdates.Get(v.governedID)
	ap, _ := tx.ApprovalRequests.Get(v.approvalID)
	views, _ := jsonview.EncodeJSON([]any{catalog.ProductView(p), catalog.KnowledgeView(kn), runs.RunView(run), governance.GovernedView(g), governance.ApprovalView(ap),
		sdr.SDRConfigView(tx, sdr.SDRConfigOf(tx, v.BusinessID))})
	fmt.Fprintf(&b, "\nproducts %d knowledge %d runs %d governed %d\n%s", tx.Products.Count(v.BusinessID), tx.Knowledge.Count(v.BusinessID),
		tx.Runs.Count(v.BusinessID), tx.GovernedUpdates.Count(v.BusinessID), views)
	return b.String()
}
