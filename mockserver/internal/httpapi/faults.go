package httpapi

import (
	"context"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
)

// faultEntry is a fault rule as the set keeps it (admin.FaultRule, POST
// /_mock/faults, WithFaults), with the tenant of its business. A rule injects
// a failure into matching requests. Matching: Method ("" any) and Path (exact, or a prefix when it
// ends with "*"; "" any; with or without the /api prefix), then Probability.
//
// With Target "request" (the default) the rule acts on the HTTP exchange:
// LatencyMS delays the response; Status responds with that status (and Code,
// default derived from the status) without running the handler; Drop closes
// the connection without a response (before the handler runs, or after it
// when After is set: the work happens and the response is lost); Truncate sends
// the handler's response cut in half and closes the connection. A 429 response
// carries Retry-After: 1 unless RetryAfter says otherwise (0 lets a test's
// client retry at once); RetryAfter also adds the header to other statuses.
// Answers made up by a fault are never remembered for idempotency replays.
//
// Other targets make a simulated dependency fail while the handler runs: the
// handler turns the failure into the response the real service gives (for
// example vendor_error for the voice provider).
//
// BusinessID scopes the rule to one tenant: it fires only on requests of
// the tenant that owns that business (by key or session), so parallel tests
// on one server each inject their own faults. A scoped request rule acts
// once the caller is known (after authentication); an unscoped one acts
// before.
type faultEntry struct {
	admin.FaultRule
	tenant string // BusinessID's tenant
}

// FaultSet holds the fault injection rules and matches requests to them.
type FaultSet struct {
	Mu    sync.Mutex
	Rules []*faultEntry
	seq   int
	// chance draws a number in [0, 1) for Probability: from the server's
	// id generator, so that WithIDSeed makes which requests fail repeatable.
	chance func() float64
}

// newFaultSet returns an empty set; chance draws the probability of
// probabilistic rules.
func newFaultSet(chance func() float64) *FaultSet {
	return &FaultSet{chance: chance}
}

// faultTargets are the targets a rule may name.

// normalize fills a rule's defaults: the request target, the /api prefix
// of its path, an upper-case method.
func normalizeFault(r *admin.FaultRule) {
	if r.Target == "" {
		r.Target = admin.FaultTargetRequest
	}
	r.Path = admin.APIPath(r.Path)
	r.Method = strings.ToUpper(r.Method)
}

// checkFault refuses a rule that could never fire or that does nothing: an
// unknown target, a request rule with no effect, a path (and method) no
// route of the API has, a status or probability out of range, a business
// that is not a UUID or does not exist. It returns the tenant of the rule's
// business ("" for none).
func (s *API) checkFault(r *admin.FaultRule) (tenant string, err error) {
	normalizeFault(r)
	if !slices.Contains(admin.FaultTargets(), r.Target) {
		return "", domain.InvalidField("target", "must be one of request, voice_provider, storage, sms_provider, dependency")
	}
	if r.Target == admin.FaultTargetRequest && r.Status == 0 && r.LatencyMS == 0 && !r.Drop && !r.Truncate && r.RetryAfter == nil {
		return "", domain.Invalid("the fault rule does nothing: give it a status, latency_ms, drop or truncate (or a dependency target)")
	}
	if r.Status != 0 && (r.Status < 400 || r.Status > 599) {
		return "", domain.InvalidField("status", "must be an error status from 400 to 599")
	}
	if r.Probability < 0 || r.Probability > 1 {
		return "", domain.InvalidField("probability", "must be above 0 and at most 1 (leave it out to fire always)")
	}
	if r.LatencyMS < 0 || r.Times < 0 {
		return "", domain.Invalid("latency_ms and times must not be negative")
	}
	if r.Path != "" || r.Method != "" {
		if !s.routeMatches(r.Method, r.Path) {
			what := r.Path
			if r.Method != "" {
				what = r.Method + " " + cmpOr(r.Path, "any path")
			}
			return "", domain.InvalidField("path", "no route of the API matches %s: the rule would never fire (see GET /api/openapi.yaml for the routes)", what)
		}
	}
	if r.BusinessID == "" {
		return "", nil
	}
	return s.TenantOfBusiness(r.BusinessID)
}

// routeMatches reports whether some route of the API (not the admin API)
// has method ("" any) and a path that pattern matches ("" any).
func (s *API) routeMatches(method, pattern string) bool {
	for path, methods := range s.Routes {
		if !strings.HasPrefix(path, APIPrefix+"/") || !admin.PathMatches(pattern, path) {
			continue
		}
		if method == "" {
			return true
		}
		if _, ok := methods[method]; ok {
			return true
		}
	}
	return false
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// add installs a checked rule.
func (fs *FaultSet) add(r admin.FaultRule, tenant string) admin.FaultRule {
	fs.Mu.Lock()
	defer fs.Mu.Unlock()
	fs.seq++
	if r.ID == "" {
		r.ID = "fault_" + strconv.Itoa(fs.seq)
	}
	r.Fired = 0
	fs.Rules = append(fs.Rules, &faultEntry{FaultRule: r, tenant: tenant})
	return r
}

// Remove removes the rule with the id and reports whether there was one.
func (fs *FaultSet) Remove(id string) bool {
	fs.Mu.Lock()
	defer fs.Mu.Unlock()
	for i, r := range fs.Rules {
		if r.ID == id {
			fs.Rules = slices.Delete(fs.Rules, i, i+1)
			return true
		}
	}
	return false
}

// RemoveTenant removes the rules scoped to tenant (a deleted tenant's).
func (fs *FaultSet) RemoveTenant(tenant string) {
	fs.Mu.Lock()
	defer fs.Mu.Unlock()
	fs.Rules = slices.DeleteFunc(fs.Rules, func(r *faultEntry) bool { return r.tenant == tenant })
}

// List returns the rules, oldest first.
func (fs *FaultSet) List() []admin.FaultRule {
	fs.Mu.Lock()
	defer fs.Mu.Unlock()
	out := make([]admin.FaultRule, 0, len(fs.Rules))
	for _, r := range fs.Rules {
		out = append(out, r.FaultRule)
	}
	return out
}

// Reset removes every rule.
func (fs *FaultSet) Reset() {
	fs.Mu.Lock()
	defer fs.Mu.Unlock()
	fs.Rules = nil
}

// Which rules a match considers: the unscoped ones (before the caller is
// known), a tenant's scoped ones (once it is), or both (in a handler).
type faultScope int

const (
	unscopedRules faultScope = iota
	scopedRules
	allRules
)

// Match returns a copy of the first rule for target that matches a request
// of tenant and fires (probability and remaining times permitting), or nil.
// scope says which rules it considers.
func (fs *FaultSet) Match(target admin.FaultTarget, method, path, tenant string, scope faultScope) *faultEntry {
	fs.Mu.Lock()
	defer fs.Mu.Unlock()
	for _, r := range fs.Rules {
		if r.Target != target || (r.Method != "" && r.Method != method) || !admin.PathMatches(r.Path, path) {
			continue
		}
		switch {
		case r.tenant == "" && scope == scopedRules:
			continue
		case r.tenant != "" && (scope == unscopedRules || r.tenant != tenant):
			continue
		}
		if r.Times > 0 && r.Fired >= r.Times {
			continue
		}
		if r.Probability > 0 && r.Probability < 1 && fs.chance() >= r.Probability {
			continue
		}
		r.Fired++
		c := *r
		return &c
	}
	return nil
}

// beforeOn is before for request r served by w: a latency first moves
// the connection's deadlines past it, since a made-up slow response, like a
// long poll, may outlast the server's timeouts.
func (f *faultEntry) beforeOn(w http.ResponseWriter, r *http.Request, draining context.Context) (resp *Response, done bool) {
	if f.LatencyMS > 0 {
		ExtendDeadlines(w, time.Duration(f.LatencyMS)*time.Millisecond)
	}
	return f.before(r.Context(), draining)
}

// before applies the parts of a request fault that act before the
// handler: the delay, cut short when the client goes away (ctx) or the
// server shuts down (draining), and a made-up response (done reports that
// the handler must not run).
func (f *faultEntry) before(ctx, draining context.Context) (resp *Response, done bool) {
	if f.LatencyMS > 0 {
		t := time.NewTimer(time.Duration(f.LatencyMS) * time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done(): // the client gave up: nobody reads the response
			t.Stop()
		case <-draining.Done(): // shutting down: the request is answered now
			t.Stop()
		}
	}
	if f.Status > 0 {
		return ErrorResponse(f.asError()), true
	}
	if f.Drop && !f.After {
		return &Response{Status: 0, Header: http.Header{}}, true
	}
	return nil, false
}

// asError is the error response of a fault with a status.
func (f *faultEntry) asError() *Error {
	status := f.Status
	if status == 0 {
		status = http.StatusServiceUnavailable
	}
	code := f.Code
	if code == "" {
		code = codeForStatus(status)
	}
	msg := f.Message
	if msg == "" {
		msg = "injected fault " + f.ID
	}
	e := newError(status, code, msg)
	e.Transient = f.Target != "" && f.Target != admin.FaultTargetRequest // a dependency's failure changes nothing
	switch {
	case f.RetryAfter != nil:
		e.Header = http.Header{"Retry-After": {strconv.Itoa(*f.RetryAfter)}}
	case status == http.StatusTooManyRequests:
		e.Header = http.Header{"Retry-After": {"1"}}
	}
	return e
}

// mangles reports whether the fault changes how the response is written.
func (f *faultEntry) mangles() bool { return f.Drop || f.Truncate }

// outcome is what the fault did to resp, the answer the pipeline made,
// naming what the client saw: the answer lost (dropped) or cut
// (truncated) over one made up with the rule's status, that over a delay
// alone; "" when it did none of these.
func (f *faultEntry) outcome(resp *Response) admin.FaultKind {
	switch {
	case f.Truncate && resp.Status > 0:
		return admin.FaultTruncated
	case f.mangles():
		return admin.FaultDropped
	case f.Status > 0:
		return admin.FaultStatus
	case f.LatencyMS > 0:
		return admin.FaultLatency
	}
	return ""
}

// apply writes resp as the fault says: nothing, or half of it; the caller
// then aborts the connection.
func (f *faultEntry) apply(w http.ResponseWriter, resp *Response) {
	if f.Truncate && resp.Status > 0 {
		h := w.Header()
		for k, vs := range resp.Header {
			h[k] = vs
		}
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(resp.Body)))
		w.WriteHeader(resp.Status)
		_, _ = w.Write(resp.Body[:len(resp.Body)/2])
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
	}
}

// DependencyFault reports whether a simulated dependency of the current
// request fails, as the domain error of a dependency's failure (nil when
// it responds).
func (rc *Ctx) DependencyFault(target admin.FaultTarget) *domain.Error {
	return rc.API.DependencyFaultAt(target, rc.Request.Method, rc.Request.URL.Path, rc.Tenant)
}

// DependencyFaultAt reports whether a simulated dependency fails for work
// of tenant on behalf of a request with method and path (work the clock
// runs for an earlier request, which has no Ctx), as the domain error of
// a dependency's failure (nil when it responds): Transient, with the
// fault's code and message, and the fault's response as its Cause, so
// that the response has the status the dependency failed with.
func (a *API) DependencyFaultAt(target admin.FaultTarget, method, path, tenant string) *domain.Error {
	f := a.FaultSet.Match(target, method, path, tenant, allRules)
	if f == nil {
		return nil
	}
	fe := f.asError()
	return &domain.Error{Code: fe.Code, Message: fe.Message, Transient: true, Cause: fe}
}

func codeForStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return voiceagent.CodeInvalidRequest
	case http.StatusUnauthorized:
		return voiceagent.CodeUnauthorized
	case http.StatusForbidden:
		return voiceagent.CodeForbidden
	case http.StatusNotFound:
		return voiceagent.CodeNotFound
	case http.StatusConflict:
		return voiceagent.CodeConflict
	case http.StatusTooManyRequests:
		return voiceagent.CodeRateLimited
	case http.StatusServiceUnavailable:
		return voiceagent.CodeServiceUnavailable
	}
	return voiceagent.CodeInternalError
}
