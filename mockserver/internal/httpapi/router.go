// Package httpapi is the mock server's request pipeline: the router and its
// routes, the request context, authentication and scopes, rate limits,
// idempotency, fault injection, the request journal, the usage log, body
// validation, pagination, encoding and the one error writer. It knows no
// domain: the domains give it their routes and handlers.
package httpapi

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/internal/wire"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
)

// AuthMode says who may call a route.
type AuthMode int

const (
	AuthKey          AuthMode = iota // a bearer key
	AuthSession                      // a dashboard session cookie only
	AuthKeyOrSession                 // either (sessions skip scope checks)
	AuthNone                         // nobody needs to authenticate
	AuthAdmin                        // the admin API: no key, never journaled as usage
)

// lockMode says which Tx, read or write, a handler gets.
type lockMode int

const (
	LockAuto  lockMode = iota // read lock for GET, write lock otherwise
	LockWrite                 // the write lock even for GET
	LockNone                  // the handler takes locks itself (clock moves, long polls)
)

// Route is one method and path of the API with everything the pipeline
// needs to know about it.
type Route struct {
	// Method and Path are the route's; a segment "{name}" of Path takes
	// any non-empty segment, which the handler reads as
	// rc.Request.PathValue(name).
	Method, Path string
	Auth         AuthMode
	Scope        ScopeReq // nil: a valid key is enough
	Schema       string   // name of the JSON Schema of the body ("" none)
	// MaxBody bounds the route's request body instead of the server's
	// MaxBodyBytes (0: the server's), for a snapshot being restored.
	MaxBody int64
	Lock    lockMode
	// ValidationCode is the error code of body failures (default invalid_request).
	ValidationCode string
	// Op is the route's operation: the operationId of the OpenAPI documents,
	// which names its handler (see Table and Bind).
	Op string
	// Limit is the route's rate limit (nil: none), from wire.LimitFor.
	Limit *wire.Limit
	// Handle serves the route's requests.
	Handle Handler
	// Cached marks a GET route whose response is made from the state
	// under the lock, the caller, the query and the tenant's time alone:
	// the pipeline caches its response until the state changes (readCache).
	Cached bool
	// nonEmpty are the optional query parameters the route's operation
	// declares with a schema that refuses an empty value (Bind reads them
	// from the OpenAPI documents): ?name= is 400 rather than taken as
	// absent (checkQuery).
	nonEmpty []string
	// declared are the query parameters the route's operation declares
	// in its OpenAPI document: an admin route refuses any other
	// (checkQuery).
	declared []string
}

// apiPrefix is where the API lives; adminPrefix is the admin API.
const (
	APIPrefix   = "/api"
	AdminPrefix = "/_mock"
)

// handlerFor is what ServeHTTP dispatches: a known route, or an error.
func (s *API) handlerFor(r *http.Request) (*Route, error) {
	methods, ok := s.Routes[r.URL.Path]
	if !ok {
		methods, ok = s.templateRoutes(r)
	}
	if !ok {
		return nil, domain.NotFound("no such endpoint: " + r.URL.Path)
	}
	rt, ok := methods[r.Method]
	if !ok {
		e := newError(http.StatusMethodNotAllowed, voiceagent.CodeMethodNotAllowed, r.Method+" is not allowed on "+r.URL.Path)
		e.Header = http.Header{"Allow": {allowed(methods)}}
		return nil, e
	}
	return rt, nil
}

// templateRoutes finds the routes of a path with parameters ("{name}"
// segments) that r's path matches, and sets r's path values to its
// segments.
func (s *API) templateRoutes(r *http.Request) (map[string]*Route, bool) {
	segs := strings.Split(r.URL.Path, "/")
	for _, tmpl := range s.templates {
		tsegs := strings.Split(tmpl, "/")
		if len(tsegs) != len(segs) {
			continue
		}
		values := map[string]string{}
		for i, ts := range tsegs {
			if name, ok := strings.CutPrefix(ts, "{"); ok && strings.HasSuffix(name, "}") && segs[i] != "" {
				values[strings.TrimSuffix(name, "}")] = segs[i]
			} else if ts != segs[i] {
				values = nil
				break
			}
		}
		if values != nil {
			for name, v := range values {
				r.SetPathValue(name, v)
			}
			return s.Routes[tmpl], true
		}
	}
	return nil, false
}

func allowed(methods map[string]*Route) string {
	var ms []string
	for m := range methods {
		ms = append(ms, m)
	}
	slices.Sort(ms)
	return strings.Join(ms, ", ")
}

// Ctx is what a handler gets: the request, who made it, its body, and the
// server.
type Ctx struct {
	API *API
	// Tx is the state under the lock the route asks for: a read Tx for
	// a GET, a write Tx otherwise. Typed operations take it.
	Tx        *platform.Tx
	Request   *http.Request
	Route     *Route
	Principal *Principal // nil on unauthenticated routes
	RequestID string
	Body      []byte
	// Now is the simulated time when the request arrived: its tenant's
	// time once the caller is known (the base time before, and for
	// requests of no tenant).
	Now time.Time
	// Tenant is the caller's tenant ("" none; see Principal.Tenant).
	Tenant   string
	ClientIP string
	q        url.Values          // the parsed query, once asked for
	writer   http.ResponseWriter // the request's writer, for LongPoll's deadlines
	idem     *idemRequest        // the request's Idempotency-Key, when it has one
}

// Query returns a query parameter. The query is parsed once per request.
func (rc *Ctx) Query(name string) string {
	if rc.Request.URL.RawQuery == "" {
		return "" // without parsing (and a map) for nothing
	}
	return rc.query().Get(name)
}

// query is the request's query, parsed on first use (the one place that
// parses it).
func (rc *Ctx) query() url.Values {
	if rc.q == nil {
		rc.q = rc.Request.URL.Query()
	}
	return rc.q
}

// onlyQuery refuses a query naming a parameter that is not one of names
// with 400 bad_request naming it: a filter a route does not know would
// otherwise be ignored, and a test asserting on it would pass by mistake.
func (rc *Ctx) onlyQuery(names []string) error {
	var unknown []string
	for name := range rc.query() {
		if !slices.Contains(names, name) {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) == 0 {
		return nil
	}
	slices.Sort(unknown)
	takes := "no query parameter"
	if len(names) > 0 {
		takes = strings.Join(names, ", ")
	}
	return domain.New(voiceagent.CodeBadRequest, fmt.Sprintf("unknown query parameter %s: this route takes %s",
		strings.Join(unknown, ", "), takes))
}

// RequireQuery returns a query parameter or a bad_request error.
func (rc *Ctx) RequireQuery(name string) (string, error) {
	v := rc.Query(name)
	if v == "" {
		return "", domain.MissingParam(name)
	}
	return v, nil
}

// IntQuery parses an integer query parameter in [lo, hi], def when absent.
func (rc *Ctx) IntQuery(name string, def, lo, hi int) (int, error) {
	v := rc.Query(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, domain.InvalidField(name, "must be an integer from %d to %d", lo, hi)
	}
	return n, nil
}

// ServeHTTP implements http.Handler: the one pipeline every request takes.
//
// Order: request id; route lookup (404/405); injected faults that act before
// the handler; body size limit (413); authentication (401); scopes (403);
// rate limits (429); idempotency (a duplicate of a request still running
// waits for it); the handler in a Tx, with, for a request with an
// Idempotency-Key, its record looked up first (replay or 409) and written
// after, its response encoded before the Tx ends; the usage log; faults
// that act after the handler (dropped or truncated responses); the request
// journal.
func (s *API) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	reqID := s.IDs.UUID()
	w.Header()[headerRequestID] = []string{reqID} // the canonical name: no need for Set's
	if s.cors != nil && strings.HasPrefix(r.URL.Path, APIPrefix+"/") && s.cors.apply(w, r) {
		return // a preflight, already served: not an API request, so not journaled
	}
	resp, rt, rc, fault := s.handle(w, r, reqID)
	var p *Principal
	var body []byte
	if rc != nil {
		p, body = rc.Principal, rc.Body
	}
	rec := newJournalEntry(r, rt, reqID, start)
	if p != nil {
		if p.Key != nil {
			rec.KeyPrefix = p.Key.Prefix
		}
		rec.BusinessID = p.Tenant
	}
	rec.Status = resp.Status
	rec.Replayed = resp.Header.Get(HeaderIdempotentReplayed) == "true"
	if fault != nil {
		rec.FaultID, rec.Fault = fault.ID, fault.outcome(resp)
	}
	mangled := fault != nil && fault.mangles()
	// The usage log and the journal are written before the response, so a
	// client that has its response finds its request in both.
	// Every API request is journaled, unknown paths under /api included (a
	// client calling a wrong path shows up there); nothing else is (the
	// admin API, the index, a browser's /favicon.ico).
	if IsAPIPath(r.URL.Path) && (rt == nil || rt.Auth != AuthAdmin) {
		rec.DurationMS = float64(time.Since(start).Microseconds()) / 1000
		s.Journal.add(newJournalRecord(rec, r, body, resp))
		if p != nil && resp.Status > 0 {
			s.Usage.Record(rc, resp)
		}
	}
	s.logRequest(r, &rec, resp.Code, start)
	if mangled {
		fault.apply(w, resp)
	} else {
		writeResponse(w, resp)
	}
	if mangled {
		// Abort the connection: the client sees no response, or half of one.
		panic(http.ErrAbortHandler)
	}
}

// headerRequestID names every response's request id, in net/http's
// canonical form.
const headerRequestID = "X-Request-Id"

// HeaderIdempotentReplayed marks a response replayed from an idempotency record.
const HeaderIdempotentReplayed = "Idempotent-Replayed"

// logRequest writes a request's journal line to the WithLogger logger at
// debug level (admin requests included): one line of what the journal
// keeps, and the error code of an error response, so never a key (its prefix
// only), a body, a header value, nor a secret query value, and the method,
// path and query cut as the journal cuts them (MaxJournalField). A request
// a fault rule acted on names the rule (fault=fault_3) and, when the rule
// dropped or truncated the response, what it did (fault_outcome).
func (s *API) logRequest(r *http.Request, rec *admin.JournalEntry, code string, start time.Time) {
	if !s.Config.Logger.Enabled(r.Context(), slog.LevelDebug) {
		return
	}
	attrs := []slog.Attr{
		slog.String("request_id", rec.RequestID), slog.String("method", rec.Method), slog.String("path", rec.Path),
		slog.String("query", rec.Query), slog.Int("status", rec.Status),
	}
	if code != "" {
		attrs = append(attrs, slog.String("error_code", code))
	}
	attrs = append(attrs, slog.String("key_prefix", rec.KeyPrefix), slog.Bool("replayed", rec.Replayed))
	if rec.FaultID != "" {
		attrs = append(attrs, slog.String("fault", rec.FaultID))
		if rec.Fault != "" {
			attrs = append(attrs, slog.String("fault_outcome", string(rec.Fault)))
		}
	}
	attrs = append(attrs, slog.Duration("duration", time.Since(start)))
	s.Config.Logger.LogAttrs(r.Context(), slog.LevelDebug, "mockserver request", attrs...)
}

// handle runs the pipeline up to the encoded response. rc, nil when the
// request did not get that far, holds the request body it read and the
// caller once known.
func (s *API) handle(w http.ResponseWriter, r *http.Request, reqID string) (resp *Response, rt *Route, rc *Ctx, fault *faultEntry) {
	defer func() {
		if v := recover(); v != nil {
			s.Config.Logger.Error("mockserver: handler panic", "panic", v, "stack", string(debug.Stack()))
			resp = ErrorResponse(domain.Internal())
		}
	}()
	if IsAdminPath(r.URL.Path) {
		if apiErr := s.guardAdmin(r); apiErr != nil {
			return ErrorResponse(apiErr), nil, nil, nil
		}
	}
	rt, apiErr := s.handlerFor(r)
	if apiErr != nil {
		return ErrorResponse(apiErr), nil, nil, nil
	}
	if rt.Auth != AuthAdmin {
		fault = s.FaultSet.Match(admin.FaultTargetRequest, r.Method, r.URL.Path, "", unscopedRules)
		if fault != nil {
			if resp, done := fault.beforeOn(w, r, s.draining); done {
				return resp, rt, nil, fault
			}
		}
	}
	rc = &Ctx{API: s, Request: r, Route: rt, RequestID: reqID, Now: s.Clocks.Base().Now(), ClientIP: clientIP(r), writer: w}
	if r.Body != nil && r.Method != http.MethodGet {
		limit := s.Config.MaxBodyBytes
		if rt.MaxBody > 0 {
			limit = rt.MaxBody
		}
		if r.ContentLength > limit {
			// Refused on its declared length, before a byte of it is read.
			return ErrorResponse(bodyTooLarge(limit)), rt, rc, fault
		}
		read, err := s.readBody(w, r, limit)
		if err != nil {
			var tooBig *http.MaxBytesError
			switch {
			case errors.As(err, &tooBig):
				return ErrorResponse(bodyTooLarge(limit)), rt, rc, fault
			case s.draining.Err() != nil:
				return ErrorResponse(domain.New(voiceagent.CodeServiceUnavailable,
					"the server is shutting down and stopped reading the request body before its end; nothing was done")), rt, rc, fault
			}
			return ErrorResponse(domain.Invalid("reading the request body: %v", err)), rt, rc, fault
		}
		rc.Body = read
	}
	if apiErr := s.authenticate(rc); apiErr != nil {
		return ErrorResponse(apiErr), rt, rc, fault
	}
	if fault == nil && rc.Tenant != "" {
		// The caller's tenant's own rules act once the caller is known.
		if fault = s.FaultSet.Match(admin.FaultTargetRequest, r.Method, r.URL.Path, rc.Tenant, scopedRules); fault != nil {
			if resp, done := fault.beforeOn(w, r, s.draining); done {
				return resp, rt, rc, fault
			}
		}
	}
	if apiErr := rc.checkQuery(); apiErr != nil {
		return ErrorResponse(apiErr), rt, rc, fault
	}
	if h, apiErr := s.Limits.check(rc); apiErr != nil {
		return ErrorResponse(apiErr), rt, rc, fault
	} else if h != nil {
		// On a copy: the response may be an idempotency record that
		// concurrent replays read.
		defer func() { resp = resp.withHeader(h) }()
	}
	if r.Method == http.MethodPost && rt.Auth != AuthAdmin {
		if keys, ok := r.Header["Idempotency-Key"]; ok { // present, even empty: do refuses ""
			return s.Idem.do(rc, keys[0], func() *Response { return s.run(rc) }), rt, rc, fault
		}
	}
	return s.run(rc), rt, rc, fault
}

// bodyTooLarge is the response to a request body over limit bytes, whether
// its Content-Length says so or its reading reached the bound. It closes
// the connection, so that the rest of the body is never read (net/http
// would otherwise read a small one to its end before responding).
func bodyTooLarge(limit int64) *Error {
	e := newError(http.StatusRequestEntityTooLarge, voiceagent.CodePayloadTooLarge,
		fmt.Sprintf("request body is larger than %d bytes", limit))
	e.Header = http.Header{"Connection": {"close"}}
	return e
}

// readBody reads the body of request r, served by w, up to limit bytes.
// When the server shuts down (Drain) while the body is still arriving, as
// from a client sending it slowly, the connection's read deadline moves to
// now, so that the read ends and the request is answered instead of being
// cut off when the shutdown's grace period ends.
func (s *API) readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	stop := context.AfterFunc(s.draining, func() {
		_ = http.NewResponseController(w).SetReadDeadline(time.Now())
	})
	defer stop()
	return io.ReadAll(http.MaxBytesReader(nil, r.Body, limit))
}

// run calls the handler with the Tx its route's lock gives (none for
// LockNone), and serves a cached route's GET from the read cache when the
// state has not changed since the response was cached. A request with an
// Idempotency-Key has its record looked up and written in the handler's
// Tx (IdempotencyStore.within).
func (s *API) run(rc *Ctx) *Response {
	mode := rc.Route.Lock
	if mode == LockAuto && rc.Request.Method != http.MethodGet {
		mode = LockWrite
	}
	switch mode {
	case LockAuto:
		rc.Tx = s.ReadTx()
	case LockWrite:
		rc.Tx = s.WriteTx()
	default:
		if rc.idem != nil {
			return s.runUnlocked(rc)
		}
		return s.handleAndEncode(rc)
	}
	defer func() {
		rc.Tx.End()
		rc.Tx = nil
	}()
	if rc.idem != nil {
		return s.Idem.within(rc.Tx, rc, func() *Response { return s.handleAndEncode(rc) })
	}
	if mode == LockAuto && rc.Route.Cached && rc.Request.Method == http.MethodGet {
		if k, ok := readKeyOf(rc); ok {
			version := rc.Tx.Version()
			if body, ok := s.reads.get(version, k); ok {
				return &Response{Status: http.StatusOK, Body: body}
			}
			resp := s.handleAndEncode(rc)
			if resp.Status == http.StatusOK && resp.Header == nil {
				s.reads.put(version, k, resp.Body)
			}
			return resp
		}
	}
	return s.handleAndEncode(rc)
}

// runUnlocked runs the handler of a route that takes its own locks
// (LockNone) for a request with an Idempotency-Key: there is no Tx of the
// change to share, so the key's record is looked up and written in write
// Txs of their own, before and after the handler.
func (s *API) runUnlocked(rc *Ctx) *Response {
	var resp *Response
	s.Write(func(tx *platform.Tx) { resp = s.Idem.lookup(tx, rc) })
	if resp != nil {
		return resp
	}
	resp = s.handleAndEncode(rc)
	s.Write(func(tx *platform.Tx) { s.Idem.record(tx, rc, resp) })
	return resp
}

// handleAndEncode calls the route's handler and encodes its response.
func (s *API) handleAndEncode(rc *Ctx) *Response {
	v, err := rc.Route.Handle(rc)
	if err != nil {
		if !isAPIError(err) {
			s.Config.Logger.Error("mockserver: handler error", "path", rc.Request.URL.Path, "error", err)
		}
		return ErrorResponse(err)
	}
	status, header := http.StatusOK, http.Header(nil) // a GET response rarely has headers of its own
	if rc.Request.Method != http.MethodGet {
		header = http.Header{} // kept, and given Idempotent-Replayed, by replays
	}
	if rs, ok := v.(*Respond); ok {
		status, v = rs.Status, rs.Body
		if header == nil && len(rs.Header) > 0 {
			header = http.Header{}
		}
		for k, vs := range rs.Header {
			header[k] = vs
		}
	}
	if raw, ok := v.(*RawBody); ok {
		if header == nil {
			header = http.Header{}
		}
		header.Set("Content-Type", raw.ContentType)
		return &Response{Status: status, Header: header, Body: raw.Body}
	}
	body, err := jsonview.EncodeJSON(v)
	if err != nil {
		s.Config.Logger.Error("mockserver: encoding response", "path", rc.Request.URL.Path, "error", err)
		return ErrorResponse(domain.Internal())
	}
	return &Response{Status: status, Header: header, Body: body}
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// String names an auth mode as Route.Auth does.
func (m AuthMode) String() string {
	switch m {
	case AuthKey:
		return "key"
	case AuthSession:
		return "session"
	case AuthKeyOrSession:
		return "key or session"
	case AuthNone:
		return "none"
	case AuthAdmin:
		return "admin"
	}
	return "unknown"
}

// API is the request pipeline of one server: the routes and what the
// pipeline keeps per request (rate limit buckets, idempotency records, the
// journal, fault rules, the usage log). It is an http.Handler.
type API struct {
	*platform.Platform

	// Routes finds a route by path, then method.
	Routes map[string]map[string]*Route
	// templates are the paths of Routes with parameters ("{name}"), sorted.
	templates []string
	// Limits are the rate limits' buckets.
	Limits *RateLimiter
	// Idem holds the idempotency records.
	Idem *IdempotencyStore
	// Journal is the request journal.
	Journal *Journal
	// FaultSet holds the fault injection rules.
	FaultSet *FaultSet
	// Usage is the usage log.
	Usage *UsageLog
	// selfDocs caches the documents the server serves about itself.
	selfDocs selfDocuments
	// reads caches the responses of the cached GET routes.
	reads readCache

	// draining ends when Drain is called: open long polls respond.
	draining context.Context
	drain    context.CancelFunc

	cors *corsPolicy // nil: the API serves no cross-origin request
}

// New returns the pipeline of engine p; each part registers how a reset
// drops its state.
func New(p *platform.Platform) *API {
	lim := p.Config.Limits
	a := &API{
		Platform: p,
		Journal:  newJournal(lim.JournalEntries, lim.JournalBytes),
		Usage:    newUsageLog(lim.UsagePerUser, lim.UsageEntries),
		FaultSet: newFaultSet(p.IDs.Float64),
		Limits:   newRateLimiter(p.Config.RateLimits, p.Config.RateScale, p.LimiterNow),
		Idem:     newIdempotencyStore(),
		cors:     newCORS(p.Config.CORSOrigins),
	}
	a.draining, a.drain = context.WithCancel(context.Background())
	p.OnReset(a.Usage.Reset)
	p.OnReset(a.Journal.Reset)
	p.OnReset(a.FaultSet.Reset)
	p.OnReset(a.Limits.Reset)
	p.OnReset(p.OutboxNotifier.Notify)
	p.OnRemoveTenant(a.removeTenant)
	return a
}

// removeTenant drops what the pipeline keeps of tenant outside the store
// (platform.RemoveTenant): its journal and usage entries, its fault rules
// and the rate-limit counters of its keys and sessions.
func (s *API) removeTenant(tx *platform.Tx, tenant string) {
	s.Journal.RemoveTenant(tenant)
	s.Usage.RemoveTenant(tenant)
	s.FaultSet.RemoveTenant(tenant)
	s.Limits.Clear(TenantCallers(tx, tenant))
}

// Handlers are the handlers of the pipeline's own admin routes, by operation (httpapi.Table).
func (s *API) Handlers() Handlers {
	return Handlers{
		"getClock":                s.adminClock,
		"getSchedule":             s.adminSchedule,
		"advanceClock":            s.adminAdvance,
		"clearFaults":             s.adminClearFaults,
		"listFaults":              s.adminListFaults,
		"addFault":                s.adminAddFault,
		"clearRateLimits":         s.adminClearRateLimits,
		"listRequests":            s.adminRequests,
		"reset":                   s.adminReset,
		"getHealth":               s.adminHealth,
		"getAdminOpenAPIDocument": s.adminOpenAPI,
		"getIndex":                s.adminIndex,
		"getAdminIndex":           s.adminIndex,
		"getAPIIndex":             s.adminIndex,
		"listTenants":             s.adminTenants,
	}
}

// idParams are the query parameters that name records by id: each is a
// UUID (the OpenAPI documents say format: uuid). On the admin API only
// business_id is one (fault and delivery ids have their own forms).
var (
	idParams      = []string{"id", "business_id", "agent_id", "lead_id"}
	adminIDParams = []string{"business_id"}
)

// checkQuery is the one check of query values before the handler: on the
// admin API a parameter the route's operation does not declare is 400
// bad_request (a filter it would ignore); an id parameter present but
// empty is 400 bad_request (GET /v1/calls?id= must
// not quietly list every call), an id that is not a UUID is 400
// invalid_request, and so is an empty value of any other optional
// parameter the route declares with a schema that refuses one (minLength:
// 1, an enum, a number, a timestamp: ?phone= must not list every lead). An
// empty required parameter is missing: the handler's 400 bad_request. A
// well-formed id the caller cannot see is the handler's 404.
func (rc *Ctx) checkQuery() error {
	if rc.Request.URL.RawQuery == "" {
		return nil
	}
	names := idParams
	if rc.Route.Auth == AuthAdmin {
		names = adminIDParams
		if err := rc.onlyQuery(rc.Route.declared); err != nil {
			return err
		}
	}
	q := rc.query()
	for _, name := range names {
		vs, ok := q[name]
		if !ok {
			continue
		}
		for _, v := range vs {
			switch {
			case v == "" && name == "id":
				return domain.New(voiceagent.CodeBadRequest,
					"the id query parameter is empty: send ?id=<uuid> to read one record, or leave it out to list")
			case v == "":
			case !IsUUID(v):
				return domain.InvalidField(name, "must be a UUID such as 7c9e6679-7425-40de-944b-e07fc1f90ae7, not %q", Truncate(v, 64))
			}
		}
	}
	for _, name := range rc.Route.nonEmpty {
		if slices.Contains(q[name], "") {
			return domain.InvalidField(name, "must not be empty: give a value, or leave the parameter out")
		}
	}
	return nil
}

// IsUUID reports whether s is a UUID in its canonical textual form:
// 8-4-4-4-12 hexadecimal digits.
func IsUUID(s string) bool {
	if len(s) != 36 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return false
			}
		default:
			if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F') {
				return false
			}
		}
	}
	return true
}

// IsAdminPath reports whether a request path is the admin API's: /_mock
// or anything under it, known route or not.
func IsAdminPath(path string) bool {
	return path == AdminPrefix || strings.HasPrefix(path, AdminPrefix+"/")
}

// IsAPIPath reports whether a request path is the API's: /api or anything
// under it, known route or not.
func IsAPIPath(path string) bool {
	return path == APIPrefix || strings.HasPrefix(path, APIPrefix+"/")
}

// adminRealm names the admin API in WWW-Authenticate challenges.
const adminRealm = `realm="voiceagent-mock admin"`

// guardAdmin is the one check of every admin API request, before its route
// is looked up, so that a web page can drive no part of a developer's
// local mock:
//
//   - with an admin token (WithAdminToken, -admin-token), the request must
//     carry it (Authorization: Bearer <token>, or as the password of Basic
//     auth, which a browser asks for): 401 otherwise. A page cannot know
//     the token, so with it any Host name is served;
//   - without one, the Host must be a loopback name (localhost, *.localhost,
//     127.0.0.0/8, ::1) or one of WithAdminHosts: 403 otherwise, which
//     defeats DNS rebinding (a page on evil.example whose name now points to
//     127.0.0.1 still sends Host: evil.example);
//   - a browser's cross-origin request (an Origin other than the request's
//     own, or Sec-Fetch-Site cross-site or same-site) is 403, which defeats
//     cross-site request forgery (a form or a no-cors fetch posting
//     text/plain);
//   - a body, or a Content-Type, must be JSON (application/json or
//     application/*+json): 415 otherwise.
func (s *API) guardAdmin(r *http.Request) error {
	if token := s.Config.AdminToken; token != "" {
		if !adminTokenMatches(r, token) {
			return withHeader(domain.Unauthorized("the admin API needs the admin token: Authorization: Bearer <token> (the server printed it at start, or it was set with -admin-token)"),
				http.Header{"Www-Authenticate": {"Bearer " + adminRealm + ", Basic " + adminRealm}})
		}
	} else if !s.adminHostAllowed(r.Host) {
		return domain.Forbidden("the admin API answers only loopback host names and the hosts it is configured for, not " +
			strconvQuote(r.Host) + " (a page on another site must not reach it through DNS rebinding)")
	}
	if origin := r.Header.Get("Origin"); origin != "" && !sameOrigin(origin, r.Host) {
		return domain.Forbidden("the admin API refuses cross-origin requests (Origin " + strconvQuote(origin) + ")")
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site == "cross-site" || site == "same-site" {
		return domain.Forbidden("the admin API refuses requests a page of another site made (Sec-Fetch-Site: " + site + ")")
	}
	ct := r.Header.Get("Content-Type")
	if (ct != "" || r.ContentLength != 0) && !isJSONMediaType(ct) {
		return newError(http.StatusUnsupportedMediaType, voiceagent.CodeInvalidRequest,
			"the admin API takes JSON bodies only (Content-Type: application/json), not "+strconvQuote(ct))
	}
	return nil
}

// adminTokenMatches reports whether r carries the admin token, as a bearer
// token or as the password of Basic auth, compared in constant time.
func adminTokenMatches(r *http.Request, token string) bool {
	got := ""
	if _, pass, ok := r.BasicAuth(); ok {
		got = pass
	} else if h := r.Header.Get("Authorization"); len(h) > 7 && strings.EqualFold(h[:7], "Bearer ") {
		got = strings.TrimSpace(h[7:])
	}
	if got == "" {
		return false
	}
	want, have := sha256.Sum256([]byte(token)), sha256.Sum256([]byte(got))
	return subtle.ConstantTimeCompare(want[:], have[:]) == 1
}

// adminHostAllowed reports whether the admin API serves a Host header
// value: a loopback name or address, one of the configured hosts, or no
// Host at all (an HTTP/1.0 client; browsers always send one).
func (s *API) adminHostAllowed(hostport string) bool {
	if hostport == "" {
		return true
	}
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.Trim(host, "[]"), ".")
	if IsLoopbackHost(host) {
		return true
	}
	for _, allowed := range s.Config.AdminHosts {
		if strings.EqualFold(allowed, host) || strings.EqualFold(allowed, hostport) {
			return true
		}
	}
	return false
}

// IsLoopbackHost reports whether a host name (without port) is a loopback
// name or address: localhost, a name under .localhost (RFC 6761), an
// address of 127.0.0.0/8, or ::1.
func IsLoopbackHost(host string) bool {
	host = strings.ToLower(host)
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// sameOrigin reports whether a browser's Origin header is the origin of
// the request's own Host (the dashboard the server serves).
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false // "null" (a sandboxed frame, a file) included
	}
	return strings.EqualFold(u.Host, host)
}

// isJSONMediaType reports whether a Content-Type is JSON.
func isJSONMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// strconvQuote quotes a header value for a message, cut to 200 bytes.
func strconvQuote(s string) string { return strconv.Quote(Truncate(s, 200)) }

// readCache caches the encoded responses of the GET routes marked Cached in
// Table, for as long as the state they were read from stands. An entry is
// filed under the path, the raw query, the caller and the tenant's time of
// the request; the cache holds the entries of one state version
// (platform.StateLock.Version), so a release of the write lock (a write
// request, a clock task, a reset, an admin helper) empties it.
type readCache struct {
	mu      sync.Mutex
	version uint64
	entries map[readKey][]byte
	bytes   int
}

// readKey names a cached response.
type readKey struct {
	path, query string
	// caller is the caller's key, or its user for a session.
	caller string
	// now is the tenant's time of the request, in Unix nanoseconds.
	now int64
}

// Bounds of the read cache: past either, it starts again empty.
const (
	readCacheEntries = 1024
	readCacheBytes   = 16 << 20
)

// readKeyOf returns the key of rc's response, and false when the request
// has no caller to file it under.
func readKeyOf(rc *Ctx) (readKey, bool) {
	p := rc.Principal
	if p == nil || p.User == nil {
		return readKey{}, false
	}
	caller := "s:" + p.User.ID
	if p.Key != nil {
		caller = "k:" + p.Key.ID
	}
	return readKey{path: rc.Request.URL.Path, query: rc.Request.URL.RawQuery, caller: caller, now: rc.Now.UnixNano()}, true
}

// get returns the body cached for k at state version v.
func (c *readCache) get(v uint64, k readKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != v {
		return nil, false
	}
	body, ok := c.entries[k]
	return body, ok
}

// put caches body for k, read at state version v. A body read at an older
// version than the cache's is not cached.
func (c *readCache) put(v uint64, k readKey, body []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v < c.version {
		return
	}
	if v > c.version || c.entries == nil || len(c.entries) >= readCacheEntries || c.bytes+len(body) > readCacheBytes {
		c.version, c.entries, c.bytes = v, map[readKey][]byte{}, 0
	}
	if len(body) > readCacheBytes {
		return
	}
	c.entries[k] = body
	c.bytes += len(body)
}

// Response is a finished HTTP response: status, headers and the encoded body.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
	// Code is the error code of an error response ("" for a success), for
	// the log.
	Code string
	// transient is Error.Transient of an error response.
	transient bool
}

// withHeader returns a copy of the response with h added to its headers.
func (r *Response) withHeader(h http.Header) *Response {
	c := &Response{Status: r.Status, Header: r.Header.Clone(), Body: r.Body, Code: r.Code, transient: r.transient}
	if c.Header == nil {
		c.Header = http.Header{}
	}
	for k, vs := range h {
		c.Header[k] = vs
	}
	return c
}

// Respond lets a handler choose the status and headers of a success.
type Respond struct {
	Status int
	Body   any
	Header http.Header
}

// Created responds 201 with body.
func Created(body any) *Respond { return &Respond{Status: http.StatusCreated, Body: body} }

// RawBody is a handler response sent as is, with its content type, instead of
// being encoded as JSON.
type RawBody struct {
	ContentType string
	Body        []byte
}

// defaultContentType is the Content-Type of responses that set none.
const defaultContentType = "application/json"

// defaultContentTypeHeader is the header value of defaultContentType,
// shared by every response rather than made for each (net/http only reads
// a header's values, and appends to a full slice copy it).
var defaultContentTypeHeader = []string{defaultContentType}

// A response of more than LargeResponseBytes must be read within
// LargeResponseTimeout of being ready: past it the connection is closed,
// so that a client that never reads cannot make the server hold a large
// response for the server's whole write timeout.
const (
	LargeResponseBytes   = 64 << 10
	LargeResponseTimeout = 10 * time.Second
)

// writeResponse writes a finished response, with the write deadline of a
// large one moved to LargeResponseTimeout from now.
func writeResponse(w http.ResponseWriter, resp *Response) {
	if len(resp.Body) > LargeResponseBytes {
		_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(LargeResponseTimeout))
	}
	h := w.Header()
	for k, vs := range resp.Header {
		h[k] = vs
	}
	if h.Get("Content-Type") == "" {
		h["Content-Type"] = defaultContentTypeHeader // shared, as resp.Header's values are
	}
	w.WriteHeader(resp.Status)
	_, _ = w.Write(resp.Body)
}
