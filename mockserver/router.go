package mockserver

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// authMode says who may call a route.
type authMode int

const (
	authKey          authMode = iota // a bearer key
	authSession                      // a dashboard session cookie only
	authKeyOrSession                 // either (sessions skip scope checks)
	authNone                         // nobody needs to authenticate
	authAdmin                        // the admin API: no key, never journaled as usage
)

// lockMode says how a handler holds the store lock.
type lockMode int

const (
	lockAuto  lockMode = iota // read lock for GET, write lock otherwise
	lockWrite                 // the write lock even for GET
	lockNone                  // the handler takes locks itself (clock moves, long polls)
)

// route is one method and path of the API with everything the pipeline
// needs to know about it.
type route struct {
	method, path string
	auth         authMode
	scope        scopeReq // nil: a valid key is enough
	schema       string   // name of the JSON Schema of the body ("" none)
	lock         lockMode
	// validationCode is the error code of body failures (default invalid_request).
	validationCode string
	handle         func(rc *reqCtx) (any, error)
}

// apiPrefix is where the API lives; adminPrefix is the admin API.
const (
	apiPrefix   = "/api"
	adminPrefix = "/_mock"
)

// handlerFor is what ServeHTTP dispatches: a known route, or an error.
func (s *Server) handlerFor(r *http.Request) (*route, *apiError) {
	methods, ok := s.routes[r.URL.Path]
	if !ok {
		return nil, errNotFound("no such endpoint: " + r.URL.Path)
	}
	rt, ok := methods[r.Method]
	if !ok {
		e := newError(http.StatusMethodNotAllowed, codeMethodNotAllowed, r.Method+" is not allowed on "+r.URL.Path)
		e.header = http.Header{"Allow": {allowed(methods)}}
		return nil, e
	}
	return rt, nil
}

func allowed(methods map[string]*route) string {
	var ms []string
	for m := range methods {
		ms = append(ms, m)
	}
	slices.Sort(ms)
	return strings.Join(ms, ", ")
}

// reqCtx is what a handler gets: the request, who made it, its body, and the
// server.
type reqCtx struct {
	s         *Server
	st        *store.Store // the store, locked as the route says
	r         *http.Request
	route     *route
	p         *principal // nil on unauthenticated routes
	requestID string
	body      []byte
	now       time.Time // the simulated time when the request arrived
	clientIP  string
	q         url.Values // the parsed query, once asked for
}

// query returns a query parameter. The query is parsed once per request.
func (rc *reqCtx) query(name string) string {
	if rc.q == nil {
		rc.q = rc.r.URL.Query()
	}
	return rc.q.Get(name)
}

// requireQuery returns a query parameter or a bad_request error.
func (rc *reqCtx) requireQuery(name string) (string, error) {
	v := rc.query(name)
	if v == "" {
		return "", errMissingParam(name)
	}
	return v, nil
}

// intQuery parses an integer query parameter in [lo, hi], def when absent.
func (rc *reqCtx) intQuery(name string, def, lo, hi int) (int, error) {
	v := rc.query(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, errInvalidField(name, "must be an integer from %d to %d", lo, hi)
	}
	return n, nil
}

// ServeHTTP implements http.Handler: the one pipeline every request takes.
//
// Order: request id; route lookup (404/405); injected faults that act before
// the handler; body size limit (413); authentication (401); scopes (403);
// rate limits (429); idempotency (replay or 409); the handler under the store
// lock, its answer encoded under the same lock; the idempotency record; the
// usage log; faults that act after the handler (dropped or truncated
// answers); the request journal.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	reqID := s.ids.uuid()
	w.Header().Set("X-Request-Id", reqID)
	rec := journalEntry{RequestID: reqID, Method: r.Method, Path: r.URL.Path, Query: redactQuery(r.URL.RawQuery), Time: start.UTC()}
	resp, rt, p, fault := s.handle(r, reqID)
	if p != nil && p.key != nil {
		rec.KeyPrefix = p.key.Prefix
	}
	rec.Status = resp.status
	rec.Replayed = resp.header.Get(headerIdempotentReplayed) == "true"
	mangled := fault != nil && fault.mangles()
	if mangled {
		rec.Fault = fault.outcome(resp)
	}
	// The usage log and the journal are written before the answer, so a
	// client that has its answer finds its request in both.
	// Every request but the admin API's is journaled, unknown paths included
	// (a client calling a wrong path shows up there).
	if (rt == nil && !strings.HasPrefix(r.URL.Path, adminPrefix+"/")) || (rt != nil && rt.auth != authAdmin) {
		rec.DurationMS = float64(time.Since(start).Microseconds()) / 1000
		s.journal.add(rec)
		if p != nil && resp.status > 0 {
			s.usage.record(s, p, r, resp)
		}
	}
	s.logRequest(r, &rec, start)
	if mangled {
		fault.apply(w, resp)
	} else {
		writeResponse(w, resp)
	}
	resp.free()
	if mangled {
		// Abort the connection: the client sees no answer, or half of one.
		panic(http.ErrAbortHandler)
	}
}

const headerIdempotentReplayed = "Idempotent-Replayed"

// logRequest writes a request's journal line to the WithLogger logger at
// debug level (admin requests included): what the journal keeps, so
// never a key (its prefix only), a body, a header value, nor a secret
// query value.
func (s *Server) logRequest(r *http.Request, rec *JournalEntry, start time.Time) {
	if !s.cfg.logger.Enabled(r.Context(), slog.LevelDebug) {
		return
	}
	s.cfg.logger.LogAttrs(r.Context(), slog.LevelDebug, "mockserver request",
		slog.String("request_id", rec.RequestID), slog.String("method", rec.Method), slog.String("path", rec.Path),
		slog.String("query", rec.Query), slog.Int("status", rec.Status), slog.String("key_prefix", rec.KeyPrefix),
		slog.Bool("replayed", rec.Replayed), slog.String("fault", rec.Fault),
		slog.Duration("duration", time.Since(start)))
}

// handle runs the pipeline up to the encoded answer.
func (s *Server) handle(r *http.Request, reqID string) (resp *response, rt *route, p *principal, fault *FaultRule) {
	defer func() {
		if v := recover(); v != nil {
			s.cfg.logger.Error("mockserver: handler panic", "panic", v, "stack", string(debug.Stack()))
			resp = errorResponse(errInternal())
		}
	}()
	rt, apiErr := s.handlerFor(r)
	if apiErr != nil {
		return errorResponse(apiErr), nil, nil, nil
	}
	if rt.auth != authAdmin {
		fault = s.faults.match("request", r.Method, r.URL.Path)
		if fault != nil {
			if resp, done := fault.before(r.Context()); done {
				return resp, rt, nil, fault
			}
		}
	}
	rc := &reqCtx{s: s, r: r, route: rt, requestID: reqID, now: s.clock.Now(), clientIP: clientIP(r)}
	if r.Body != nil && r.Method != http.MethodGet {
		body, err := io.ReadAll(http.MaxBytesReader(nil, r.Body, s.cfg.maxBodyBytes))
		if err != nil {
			var tooBig *http.MaxBytesError
			if errors.As(err, &tooBig) {
				return errorResponse(newError(http.StatusRequestEntityTooLarge, codePayloadTooLarge,
					fmt.Sprintf("request body is larger than %d bytes", s.cfg.maxBodyBytes))), rt, nil, fault
			}
			return errorResponse(errInvalid("reading the request body: %v", err)), rt, nil, fault
		}
		rc.body = body
	}
	if apiErr := s.authenticate(rc); apiErr != nil {
		return errorResponse(apiErr), rt, rc.p, fault
	}
	if h, apiErr := s.limits.check(rc); apiErr != nil {
		return errorResponse(apiErr), rt, rc.p, fault
	} else if h != nil {
		// On a copy: the answer may be an idempotency record that
		// concurrent replays read.
		defer func() { resp = resp.withHeader(h) }()
	}
	if r.Method == http.MethodPost && rt.auth != authAdmin {
		if key := r.Header.Get("Idempotency-Key"); key != "" {
			return s.idem.do(rc, key, func() *response { return s.run(rc) }), rt, rc.p, fault
		}
	}
	return s.run(rc), rt, rc.p, fault
}

// run calls the handler under the store lock and encodes its answer.
func (s *Server) run(rc *reqCtx) *response {
	mode := rc.route.lock
	if mode == lockAuto && rc.r.Method != http.MethodGet {
		mode = lockWrite
	}
	switch mode {
	case lockAuto:
		s.mu.RLock()
		defer s.mu.RUnlock()
	case lockWrite:
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	rc.st = s.st
	v, err := rc.route.handle(rc)
	if err != nil {
		var apiErr *apiError
		if errors.As(err, &apiErr) {
			return errorResponse(apiErr)
		}
		s.cfg.logger.Error("mockserver: handler error", "path", rc.r.URL.Path, "error", err)
		return errorResponse(errInternal())
	}
	status, header := http.StatusOK, http.Header(nil) // a GET answer rarely has headers of its own
	if rc.r.Method != http.MethodGet {
		header = http.Header{} // kept, and given Idempotent-Replayed, by replays
	}
	if rs, ok := v.(*respond); ok {
		status, v = rs.status, rs.body
		if header == nil && len(rs.header) > 0 {
			header = http.Header{}
		}
		for k, vs := range rs.header {
			header[k] = vs
		}
	}
	if raw, ok := v.(*rawBody); ok {
		if header == nil {
			header = http.Header{}
		}
		header.Set("Content-Type", raw.contentType)
		return &response{status: status, header: header, body: raw.body}
	}
	// A GET answer is written straight from a pooled buffer (nothing keeps
	// it); other answers may be kept for idempotent replays.
	var body []byte
	var pooled *[]byte
	if rc.r.Method == http.MethodGet {
		body, pooled, err = encodePooled(v)
	} else {
		body, err = encodeJSON(v)
	}
	if err != nil {
		s.cfg.logger.Error("mockserver: encoding answer", "path", rc.r.URL.Path, "error", err)
		return errorResponse(errInternal())
	}
	return &response{status: status, header: header, body: body, pooled: pooled}
}

func clientIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// secretParams are query parameters whose values never reach the journal.
var secretParams = []string{"token"}

// redactQuery is a raw query as the journal keeps it: as sent, or
// re-encoded with secret values replaced when it may hold one.
func redactQuery(raw string) string {
	secret := false
	for _, name := range secretParams {
		secret = secret || strings.Contains(raw, name)
	}
	if !secret {
		return raw
	}
	q, _ := url.ParseQuery(raw)
	for _, name := range secretParams {
		if _, ok := q[name]; ok {
			q.Set(name, "REDACTED")
		}
	}
	return q.Encode()
}

// String names an auth mode as Route.Auth does.
func (m authMode) String() string {
	switch m {
	case authKey:
		return "key"
	case authSession:
		return "session"
	case authKeyOrSession:
		return "key or session"
	case authNone:
		return "none"
	case authAdmin:
		return "admin"
	}
	return "unknown"
}
