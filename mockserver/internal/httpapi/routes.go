package httpapi

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/internal/wire"
	"github.com/voiceagent/voiceagent-go/openapi"
)

// Table is every route of the mock server, the API's and the admin API's,
// in one place: its method and path, its operation (the operationId in
// openapi/openapi.yaml or openapi/admin.yaml, which names its handler), who
// may call it (key, session, key or session, public, admin), the scopes a
// key needs, the JSON Schema of its body, and which Tx its handler
// gets (default: a read Tx for GET, a write Tx otherwise). Its
// rate limit is wire.LimitFor of its method and path, the table the SDK's
// client-side limits use too.
//
// A domain package binds handlers to operations (its Handlers method), and
// Bind refuses a route without a handler and a handler without a route. To
// add an endpoint: a line here, its handler, and its entry in its domain's
// Handlers. A GET route marked cached has its responses cached by the
// pipeline until the state changes (Route.Cached): only a route whose
// response comes from the state under the lock, the caller, the query
// and the tenant's time, nothing else (not the usage log, not a key's
// last use, not the delivery log).
var Table = []Route{
	// The pipeline's own admin routes: the index of the first URLs people try, health, the admin
	// API's document, reset, clock, journal, faults.
	adminRoute(GET, "/", "getIndex").lock(LockNone),
	adminRoute(GET, "/_mock", "getAdminIndex").lock(LockNone),
	adminRoute(GET, "/api", "getAPIIndex").lock(LockNone),
	adminRoute(GET, "/_mock/clock", "getClock").lock(LockNone),
	adminRoute(GET, "/_mock/schedule", "getSchedule").lock(LockNone),
	adminRoute(POST, "/_mock/clock/advance", "advanceClock").body("mockClockAdvance").lock(LockNone),
	adminRoute(DELETE, "/_mock/faults", "clearFaults").lock(LockNone),
	adminRoute(GET, "/_mock/faults", "listFaults").lock(LockNone),
	adminRoute(GET, "/_mock/health", "getHealth").lock(LockNone),
	adminRoute(GET, "/_mock/openapi.yaml", "getAdminOpenAPIDocument").lock(LockNone),
	adminRoute(POST, "/_mock/faults", "addFault").body("mockFault").lock(LockNone),
	adminRoute(GET, "/_mock/requests", "listRequests").lock(LockNone),
	adminRoute(DELETE, "/_mock/rate-limits", "clearRateLimits"),
	adminRoute(POST, "/_mock/reset", "reset").lock(LockNone),
	adminRoute(GET, "/_mock/tenants", "listTenants").lock(LockNone),

	// Identity: signup and dashboard links, keys, account reads, the OpenAPI documents, accounts and the outbox.
	adminRoute(POST, "/_mock/accounts", "createAccount").body("mockAccount").lock(LockWrite),
	adminRoute(GET, "/_mock/outbox", "listOutbox").lock(LockNone),
	adminRoute(POST, "/_mock/accounts/copy", "copyAccount").body("mockAccountCopy").lock(LockNone),
	adminRoute(DELETE, "/_mock/accounts/{business_id}", "deleteAccount").lock(LockWrite),
	adminRoute(GET, "/_mock/snapshot", "getSnapshot").lock(LockNone),
	adminRoute(POST, "/_mock/snapshot", "restoreSnapshot").maxBody(SnapshotMaxBytes).lock(LockNone),
	public(GET, "/api/auth/magic", "exchangeMagicLink").lock(LockWrite),
	public(GET, "/api/auth/password-setup", "readPasswordSetupLink"),
	public(GET, "/api/openapi.yaml", "getOpenAPIDocument").lock(LockNone),
	key(GET, "/api/v1/balance", "getBalance", voiceagent.ScopeBillingRead),
	key(GET, "/api/v1/capabilities", "getCapabilities"),
	session(DELETE, "/api/v1/keys", "revokeKey"),
	session(GET, "/api/v1/keys", "listKeys"),
	session(POST, "/api/v1/keys", "createKey").body("keyCreate"),
	key(GET, "/api/v1/openapi.json", "getOpenAPIContract").lock(LockNone),
	key(GET, "/api/v1/schemas", "getSchemas"),
	public(POST, "/api/v1/signup", "signup").failsWith(voiceagent.CodeValidationError),
	key(GET, "/api/v1/usage", "listUsage", voiceagent.ScopeBillingRead),

	// Telephony: agents and voices, numbers, calls and transcripts, leads, texts, and their admin drivers.
	adminRoute(GET, "/_mock/calls", "listAllCalls"),
	adminRoute(GET, "/_mock/consent", "getConsent"),
	adminRoute(POST, "/_mock/consent", "setConsent").body("mockConsent").lock(LockWrite),
	adminRoute(POST, "/_mock/dnc", "setDnc").body("mockDNC").lock(LockWrite),
	adminRoute(POST, "/_mock/inbound-call", "inboundCall").body("mockInboundCall").lock(LockWrite),
	adminRoute(POST, "/_mock/inbound-sms", "inboundSms").body("mockInboundSMS").lock(LockWrite),
	adminRoute(GET, "/_mock/prompt-audit", "getPromptAudit"),
	adminRoute(GET, "/_mock/provider-calls", "getProviderCall"),
	adminRoute(DELETE, "/_mock/scripts", "clearScript").lock(LockWrite),
	adminRoute(GET, "/_mock/scripts", "listScript"),
	adminRoute(POST, "/_mock/scripts", "addScript").body("mockScript").lock(LockWrite),
	key(GET, "/api/v1/agents", "getAgents", voiceagent.ScopeAgentsRead).cached(),
	key(PATCH, "/api/v1/agents", "updateAgent", voiceagent.ScopeAgentsWrite).body("agentUpdate"),
	key(POST, "/api/v1/agents", "createAgent", voiceagent.ScopeAgentsWrite).body("agentCreate"),
	key(GET, "/api/v1/calls", "getCalls", voiceagent.ScopeCallsRead).cached(),
	key(POST, "/api/v1/calls", "createCall", voiceagent.ScopeCallsWrite).body("callCreate"),
	key(GET, "/api/v1/leads", "getLeads", voiceagent.ScopeLeadsRead).cached(),
	key(PATCH, "/api/v1/leads", "updateLead", voiceagent.ScopeLeadsWrite).body("leadUpdate"),
	key(GET, "/api/v1/numbers", "listNumbers", voiceagent.ScopeNumbersRead).cached(),
	key(GET, "/api/v1/sms/messages", "listSmsMessages", voiceagent.ScopeSMSRead).cached(),
	key(POST, "/api/v1/sms/send", "sendSms", voiceagent.ScopeSMSWrite).body("smsSend"),
	key(POST, "/api/v1/sms/update-prompt", "updateSmsPrompt", voiceagent.ScopeAgentsWrite).body("smsUpdatePrompt"),
	key(GET, "/api/v1/transcripts", "listTranscripts", voiceagent.ScopeCallsRead).cached(),
	key(GET, "/api/v1/voices", "listVoices", voiceagent.ScopeAgentsRead).cached(),

	// Webhooks: subscriptions, the event log, the delivery log.
	adminRoute(GET, "/_mock/deliveries", "listDeliveries").lock(LockNone),
	adminRoute(POST, "/_mock/deliveries/replay", "replayDelivery").body("mockDeliveryReplay").lock(LockWrite),
	adminRoute(POST, "/_mock/events", "emitEvent").body("mockEvent").lock(LockWrite),
	adminRoute(POST, "/_mock/receiver-checks", "runReceiverChecks").body("mockReceiverCheck").lock(LockNone),
	key(GET, "/api/v1/events", "listEvents", voiceagent.ScopeEventsRead).cached(),
	key(POST, "/api/v1/events/replay", "replayEvents", voiceagent.ScopeEventsReplay).body("eventsReplay"),
	key(DELETE, "/api/v1/webhooks", "deleteWebhook", voiceagent.ScopeWebhooksWrite),
	key(GET, "/api/v1/webhooks", "getWebhooks", voiceagent.ScopeWebhooksRead).cached(),
	key(POST, "/api/v1/webhooks", "upsertWebhook", voiceagent.ScopeWebhooksWrite).body("webhookUpsert"),
	key(POST, "/api/v1/webhooks/rotate-secret", "rotateWebhookSecret", voiceagent.ScopeWebhooksWrite).body("webhookRotateSecret"),

	// Catalog: products and knowledge.
	key(DELETE, "/api/v1/knowledge", "deleteKnowledge", voiceagent.ScopeKnowledgeWrite),
	key(GET, "/api/v1/knowledge", "getKnowledge", voiceagent.ScopeKnowledgeRead).cached(),
	key(POST, "/api/v1/knowledge", "upsertKnowledge", voiceagent.ScopeKnowledgeWrite).body("knowledgeUpsert"),
	key(DELETE, "/api/v1/products", "deleteProduct", voiceagent.ScopeProductsWrite),
	key(GET, "/api/v1/products", "getProduct", voiceagent.ScopeProductsRead).cached(),
	key(POST, "/api/v1/products", "upsertProduct", voiceagent.ScopeProductsWrite).body("productUpsert"),

	// Communication runs.
	key(DELETE, "/api/v1/communication-runs", "deleteCommunicationRun", voiceagent.ScopeCommunicationRunsWrite),
	key(GET, "/api/v1/communication-runs", "getCommunicationRuns", voiceagent.ScopeCommunicationRunsRead).cached(),
	key(POST, "/api/v1/communication-runs", "createCommunicationRun", voiceagent.ScopeCommunicationRunsWrite).body("communicationRunCreate"),
	key(POST, "/api/v1/communication-runs/preview", "previewCommunicationRun", voiceagent.ScopeCommunicationRunsRead).body("communicationRunCreate"),
	key(POST, "/api/v1/communication-runs/validate", "validateCommunicationRun", voiceagent.ScopeCommunicationRunsRead).body("communicationRunCreate"),

	// Governance: governed updates, approval requests, persona loading.
	key(POST, "/api/v1/agents/persona", "loadAgentPersona", voiceagent.ScopeAgentsWrite).body("agentPersonaLoad"),
	key(GET, "/api/v1/approval-requests", "getApprovalRequests", voiceagent.ScopeApprovalsWrite).cached(),
	key(POST, "/api/v1/approval-requests", "requestApproval", voiceagent.ScopeApprovalsWrite).body("approvalChannelRequest"),
	keyOrSession(GET, "/api/v1/governed-updates", "getGovernedUpdates").scope(AnyOf(Scope(voiceagent.ScopeAgentsRead), Scope(voiceagent.ScopeWorkspacesRead))).cached(),
	keyOrSession(POST, "/api/v1/governed-updates", "submitGovernedUpdate").scope(AnyOf(Scope(voiceagent.ScopeAgentsWrite), Scope(voiceagent.ScopeWorkspacesWrite))).body("governedUpdateRequest"),
	session(POST, "/api/v1/governed-updates/decide", "decideGovernedUpdate").body("governedUpdateDecision"),

	// Agency management: profile, offers, enrollments, installations.
	key(GET, "/api/v1/agency-enrollments", "getAgencyEnrollments", voiceagent.ScopeWorkspacesRead),
	key(POST, "/api/v1/agency-enrollments", "commandAgencyEnrollments", voiceagent.ScopeWorkspacesWrite, voiceagent.ScopeAgentsWrite).body("agencyEnrollmentCommand"),
	key(GET, "/api/v1/agency-installations", "getAgencyInstallations", voiceagent.ScopeWorkspacesRead),
	key(POST, "/api/v1/agency-installations", "commandAgencyInstallations", voiceagent.ScopeWorkspacesWrite).body("agencyInstallationCommand"),
	key(GET, "/api/v1/agency-offers", "getAgencyOffers", voiceagent.ScopeWorkspacesRead),
	key(POST, "/api/v1/agency-offers", "commandAgencyOffers", voiceagent.ScopeWorkspacesWrite).body("agencyOfferCommand"),
	key(GET, "/api/v1/agency-profile", "getAgencyProfile", voiceagent.ScopeWorkspacesRead),
	key(POST, "/api/v1/agency-profile", "commandAgencyProfile", voiceagent.ScopeWorkspacesWrite).body("agencyProfileCommand"),

	// The outbound-sales pipeline (SDR).
	adminRoute(POST, "/_mock/sdr/cron", "runSdrSchedulerNow").lock(LockWrite),
	keyOrSession(POST, "/api/sdr/action", "sdrAction", voiceagent.ScopeSDRWrite).body("sdrAction"),
	keyOrSession(GET, "/api/sdr/activity", "getSdrActivity", voiceagent.ScopeSDRRead).cached(),
	keyOrSession(GET, "/api/sdr/config", "getSdrConfig", voiceagent.ScopeSDRRead),
	keyOrSession(PUT, "/api/sdr/config", "putSdrConfig", voiceagent.ScopeSDRWrite).body("sdrConfigUpsert"),
	public(POST, "/api/sdr/cron", "runSdrScheduler"),
	keyOrSession(GET, "/api/sdr/pipeline", "getSdrPipeline", voiceagent.ScopeSDRRead),
	keyOrSession(GET, "/api/sdr/report", "getSdrReport", voiceagent.ScopeSDRRead),
	keyOrSession(POST, "/api/sdr/run", "runSdr", voiceagent.ScopeSDRWrite).body("sdrRun"),

	// Analytics.
	key(GET, "/api/v1/analytics/agents", "analyticsAgents", voiceagent.ScopeCallsRead),
	key(GET, "/api/v1/analytics/businesses", "analyticsBusinesses", voiceagent.ScopeWorkspacesRead),
	key(GET, "/api/v1/analytics/calls", "analyticsCalls", voiceagent.ScopeCallsRead),
	key(GET, "/api/v1/analytics/dashboard", "analyticsDashboard", voiceagent.ScopeCallsRead),
	key(GET, "/api/v1/analytics/funnel", "analyticsFunnel", voiceagent.ScopeLeadsRead),
	key(GET, "/api/v1/analytics/weekly", "analyticsWeekly", voiceagent.ScopeCallsRead),

	// Fixtures.
	adminRoute(POST, "/_mock/fixtures", "loadFixtures").body("mockFixtures").lock(LockWrite),
	adminRoute(POST, "/_mock/leads", "seedLeads").body("mockSeedLeads").maxBody(SnapshotMaxBytes).lock(LockWrite),
	adminRoute(POST, "/_mock/calls", "seedCalls").body("mockSeedCalls").maxBody(SnapshotMaxBytes).lock(LockWrite),

	// The dashboard: a page, its script and its style sheet.
	adminRoute(GET, "/_mock/ui", "getDashboard").lock(LockNone),
	adminRoute(GET, "/_mock/ui/app.css", "getDashboardStyle").lock(LockNone),
	adminRoute(GET, "/_mock/ui/app.js", "getDashboardScript").lock(LockNone),
}

// Methods, for the table.
const (
	GET    = http.MethodGet
	POST   = http.MethodPost
	PUT    = http.MethodPut
	PATCH  = http.MethodPatch
	DELETE = http.MethodDelete
)

// key is a route for bearer keys holding every scope of scopes.
func key(method, path, op string, scopes ...voiceagent.Scope) Route {
	return Route{Method: method, Path: path, Op: op, Auth: AuthKey, Scope: allScopes(scopes)}
}

// keyOrSession is a route for bearer keys holding every scope of scopes, or
// for a dashboard session (which acts as its user and skips scope checks).
func keyOrSession(method, path, op string, scopes ...voiceagent.Scope) Route {
	return Route{Method: method, Path: path, Op: op, Auth: AuthKeyOrSession, Scope: allScopes(scopes)}
}

// session is a route for a signed-in dashboard session only.
func session(method, path, op string) Route {
	return Route{Method: method, Path: path, Op: op, Auth: AuthSession}
}

// public is a route nobody needs to authenticate for.
func public(method, path, op string) Route {
	return Route{Method: method, Path: path, Op: op, Auth: AuthNone}
}

// adminRoute is a route of the admin API (/_mock): no key, never counted as usage.
func adminRoute(method, path, op string) Route {
	return Route{Method: method, Path: path, Op: op, Auth: AuthAdmin}
}

// body names the JSON Schema the route's body is validated against.
func (r Route) body(schema string) Route { r.Schema = schema; return r }

// SnapshotMaxBytes bounds a snapshot document sent to POST /_mock/snapshot
// (some 300,000 records). A state file is read without this bound.
const SnapshotMaxBytes = 256 << 20

// maxBody sets the route's bound of its request body (Route.MaxBody).
func (r Route) maxBody(n int64) Route { r.MaxBody = n; return r }

// lock sets which Tx, read or write, the route's handler gets.
func (r Route) lock(m lockMode) Route { r.Lock = m; return r }

// cached marks a GET route whose responses the pipeline caches (Route.Cached).
func (r Route) cached() Route { r.Cached = true; return r }

// scope sets the route's scope requirement (for requirements that are not
// a plain list of scopes, such as AnyOf).
func (r Route) scope(req ScopeReq) Route { r.Scope = req; return r }

// failsWith sets the error code of body validation failures (default
// invalid_request).
func (r Route) failsWith(code string) Route { r.ValidationCode = code; return r }

// allScopes is the requirement of every scope of names (nil for none).
func allScopes(names []voiceagent.Scope) ScopeReq {
	switch len(names) {
	case 0:
		return nil
	case 1:
		return Scope(names[0])
	}
	reqs := make([]ScopeReq, len(names))
	for i, n := range names {
		reqs[i] = Scope(n)
	}
	return AllOf(reqs...)
}

// Handler serves a request: a value to encode as JSON (or a *Respond or
// *RawBody), or an error (an *Error is sent as it is, anything else as
// 500 internal_error).
type Handler func(rc *Ctx) (any, error)

// Handlers are a domain's handlers by operation (Route.Op).
type Handlers map[string]Handler

// Bind gives every route of the table its handler from handlers and makes
// the router's route map; extra routes (a test's, with their handlers)
// are added as they are. It panics on a route without a handler, a handler
// without a route, an operation bound twice or a route listed twice: a
// server that starts serves every route of its table.
func (s *API) Bind(extra []*Route, handlers ...Handlers) {
	all := Handlers{}
	for _, hs := range handlers {
		for op, h := range hs {
			if _, dup := all[op]; dup {
				panic("httpapi: operation " + op + " has two handlers")
			}
			all[op] = h
		}
	}
	routes := make([]*Route, 0, len(Table)+len(extra))
	for _, spec := range Table {
		h, ok := all[spec.Op]
		if !ok {
			panic(fmt.Sprintf("httpapi: no handler for %s %s (operation %s)", spec.Method, spec.Path, spec.Op))
		}
		delete(all, spec.Op)
		rt := spec
		rt.Handle = h
		routes = append(routes, &rt)
	}
	if len(all) > 0 {
		ops := make([]string, 0, len(all))
		for op := range all {
			ops = append(ops, op)
		}
		slices.Sort(ops)
		panic("httpapi: handlers without a route in the table: " + strings.Join(ops, ", "))
	}
	params, err := openapi.QueryParameters()
	if err != nil {
		panic("httpapi: " + err.Error()) // the documents are embedded
	}
	m := map[string]map[string]*Route{}
	for _, rt := range append(routes, extra...) {
		for _, p := range params[rt.Op] {
			rt.declared = append(rt.declared, p.Name)
			if !p.AllowsEmpty && !p.Required { // an empty required one is missing: the handler's 400
				rt.nonEmpty = append(rt.nonEmpty, p.Name)
			}
		}
		if rt.Auth != AuthAdmin {
			if l, ok := wire.LimitFor(rt.Method, strings.TrimPrefix(rt.Path, APIPrefix)); ok {
				rt.Limit = &l
			}
		}
		if m[rt.Path] == nil {
			m[rt.Path] = map[string]*Route{}
		}
		if _, dup := m[rt.Path][rt.Method]; dup {
			panic("httpapi: route " + rt.Method + " " + rt.Path + " is listed twice")
		}
		m[rt.Path][rt.Method] = rt
	}
	s.Routes = m
	s.templates = nil
	for path := range m {
		if strings.Contains(path, "{") {
			s.templates = append(s.templates, path)
		}
	}
	slices.Sort(s.templates)
}
