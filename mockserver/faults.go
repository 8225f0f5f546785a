package mockserver

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Fault targets: the HTTP exchange itself, or a simulated dependency that a
// handler consults (the voice provider, the agent store, the SMS carrier, a
// generic downstream dependency).
const (
	FaultTargetRequest       = "request"
	FaultTargetVoiceProvider = "voice_provider"
	FaultTargetStorage       = "storage"
	FaultTargetSMSProvider   = "sms_provider"
	FaultTargetDependency    = "dependency"
)

// FaultRule injects a failure into matching requests (POST /_mock/faults,
// WithFaults). Matching: Method ("" any) and Path (exact, or a prefix when it
// ends with "*"; "" any; with or without the /api prefix), then Probability.
//
// With Target "request" (the default) the rule acts on the HTTP exchange:
// LatencyMS delays the answer; Status answers with that status (and Code,
// default derived from the status) without running the handler; Drop closes
// the connection without an answer (before the handler runs, or after it
// when After is set: the work happens and the answer is lost); Truncate sends
// the handler's answer cut in half and closes the connection. A 429 answer
// carries Retry-After: 1 unless RetryAfter says otherwise (0 lets a test's
// client retry at once); RetryAfter also adds the header to other statuses.
// Answers made up by a fault are never remembered for idempotency replays.
//
// Other targets make a simulated dependency fail while the handler runs: the
// handler turns the failure into the answer the real service gives (for
// example vendor_error for the voice provider).
type FaultRule struct {
	ID          string  `json:"id"`
	Method      string  `json:"method,omitempty"`
	Path        string  `json:"path,omitempty"`
	Target      string  `json:"target,omitempty"`
	Status      int     `json:"status,omitempty"`
	Code        string  `json:"code,omitempty"`
	Message     string  `json:"message,omitempty"`
	LatencyMS   int     `json:"latency_ms,omitempty"`
	Drop        bool    `json:"drop,omitempty"`
	After       bool    `json:"after,omitempty"`
	Truncate    bool    `json:"truncate,omitempty"`
	Probability float64 `json:"probability,omitempty"`
	Times       int     `json:"times,omitempty"`
	// RetryAfter is the Retry-After of the answer, in seconds.
	RetryAfter *int `json:"retry_after,omitempty"`
	Fired      int  `json:"fired"`
}

type faultSet struct {
	mu    sync.Mutex
	rules []*FaultRule
	seq   int
	// chance draws a number in [0, 1) for Probability: from the server's
	// id generator, so that WithIDSeed makes which requests fail repeatable.
	chance func() float64
}

func newFaultSet(rules []FaultRule, chance func() float64) *faultSet {
	fs := &faultSet{chance: chance}
	for _, r := range rules {
		fs.add(r)
	}
	return fs
}

func (fs *faultSet) add(r FaultRule) FaultRule {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.seq++
	if r.ID == "" {
		r.ID = "fault_" + strconv.Itoa(fs.seq)
	}
	if r.Target == "" {
		r.Target = FaultTargetRequest
	}
	if r.Path != "" && !strings.HasPrefix(r.Path, apiPrefix+"/") {
		r.Path = apiPrefix + r.Path
	}
	r.Method = strings.ToUpper(r.Method)
	r.Fired = 0
	fs.rules = append(fs.rules, &r)
	return r
}

func (fs *faultSet) list() []FaultRule {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	out := make([]FaultRule, 0, len(fs.rules))
	for _, r := range fs.rules {
		out = append(out, *r)
	}
	return out
}

func (fs *faultSet) reset() {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	fs.rules = nil
}

// match returns a copy of the first rule for target that matches and fires
// (probability and remaining times permitting), or nil.
func (fs *faultSet) match(target, method, path string) *FaultRule {
	fs.mu.Lock()
	defer fs.mu.Unlock()
	for _, r := range fs.rules {
		if r.Target != target || (r.Method != "" && r.Method != method) || !pathMatches(r.Path, path) {
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

func pathMatches(pattern, path string) bool {
	if pattern == "" {
		return true
	}
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(path, p)
	}
	return pattern == path
}

// before applies the parts of a request fault that act before the handler:
// the delay, and a made-up answer (done reports that the handler must not
// run).
func (f *FaultRule) before(ctx context.Context) (resp *response, done bool) {
	if f.LatencyMS > 0 {
		t := time.NewTimer(time.Duration(f.LatencyMS) * time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done(): // the client gave up: nobody reads the answer
			t.Stop()
		}
	}
	if f.Status > 0 {
		return errorResponse(f.asError()), true
	}
	if f.Drop && !f.After {
		return &response{status: 0, header: http.Header{}}, true
	}
	return nil, false
}

// asError is the error answer of a fault with a status.
func (f *FaultRule) asError() *apiError {
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
	switch {
	case f.RetryAfter != nil:
		e.header = http.Header{"Retry-After": {strconv.Itoa(*f.RetryAfter)}}
	case status == http.StatusTooManyRequests:
		e.header = http.Header{"Retry-After": {"1"}}
	}
	return e
}

// mangles reports whether the fault changes how the answer is written.
func (f *FaultRule) mangles() bool { return f.Drop || f.Truncate }

// outcome is the journal's word for what apply does to resp.
func (f *FaultRule) outcome(resp *response) string {
	if f.Truncate && resp.status > 0 {
		return "truncated"
	}
	return "dropped"
}

// apply writes resp as the fault says: nothing, or half of it; the caller
// then aborts the connection.
func (f *FaultRule) apply(w http.ResponseWriter, resp *response) {
	if f.Truncate && resp.status > 0 {
		h := w.Header()
		for k, vs := range resp.header {
			h[k] = vs
		}
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(resp.body)))
		w.WriteHeader(resp.status)
		_, _ = w.Write(resp.body[:len(resp.body)/2])
		if fl, ok := w.(http.Flusher); ok {
			fl.Flush()
		}
	}
}

// dependencyFault reports whether a simulated dependency of the current
// request fails, as an API error for the handler to return.
func (rc *reqCtx) dependencyFault(target string) *apiError {
	f := rc.s.faults.match(target, rc.r.Method, rc.r.URL.Path)
	if f == nil {
		return nil
	}
	return f.asError()
}

func codeForStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return codeInvalidRequest
	case http.StatusUnauthorized:
		return codeUnauthorized
	case http.StatusForbidden:
		return codeForbidden
	case http.StatusNotFound:
		return codeNotFound
	case http.StatusConflict:
		return codeConflict
	case http.StatusTooManyRequests:
		return codeRateLimited
	case http.StatusServiceUnavailable:
		return codeServiceUnavailable
	}
	return codeInternalError
}
