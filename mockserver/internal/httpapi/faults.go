package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/voiceagent/voiceagent-go/internal/wire"
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

// FaultSet holds the fault injection rules and matches requests to them.
type FaultSet struct {
	Mu    sync.Mutex
	Rules []*FaultRule
	seq   int
	// chance draws a number in [0, 1) for Probability: from the server's
	// id generator, so that WithIDSeed makes which requests fail repeatable.
	chance func() float64
}

// newFaultSet returns a set holding rules; chance draws the probability of probabilistic rules.
func newFaultSet(rules []FaultRule, chance func() float64) *FaultSet {
	fs := &FaultSet{chance: chance}
	for _, r := range rules {
		fs.add(r)
	}
	return fs
}

func (fs *FaultSet) add(r FaultRule) FaultRule {
	fs.Mu.Lock()
	defer fs.Mu.Unlock()
	fs.seq++
	if r.ID == "" {
		r.ID = "fault_" + strconv.Itoa(fs.seq)
	}
	if r.Target == "" {
		r.Target = FaultTargetRequest
	}
	if r.Path != "" && !strings.HasPrefix(r.Path, APIPrefix+"/") {
		r.Path = APIPrefix + r.Path
	}
	r.Method = strings.ToUpper(r.Method)
	r.Fired = 0
	fs.Rules = append(fs.Rules, &r)
	return r
}

// List returns the rules, oldest first.
func (fs *FaultSet) List() []FaultRule {
	fs.Mu.Lock()
	defer fs.Mu.Unlock()
	out := make([]FaultRule, 0, len(fs.Rules))
	for _, r := range fs.Rules {
		out = append(out, *r)
	}
	return out
}

// Reset removes every rule.
func (fs *FaultSet) Reset() {
	fs.Mu.Lock()
	defer fs.Mu.Unlock()
	fs.Rules = nil
}

// Match returns a copy of the first rule for target that matches and fires
// (probability and remaining times permitting), or nil.
func (fs *FaultSet) Match(target, method, path string) *FaultRule {
	fs.Mu.Lock()
	defer fs.Mu.Unlock()
	for _, r := range fs.Rules {
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
func (f *FaultRule) before(ctx context.Context) (resp *Response, done bool) {
	if f.LatencyMS > 0 {
		t := time.NewTimer(time.Duration(f.LatencyMS) * time.Millisecond)
		select {
		case <-t.C:
		case <-ctx.Done(): // the client gave up: nobody reads the answer
			t.Stop()
		}
	}
	if f.Status > 0 {
		return ErrorResponse(f.AsError()), true
	}
	if f.Drop && !f.After {
		return &Response{Status: 0, Header: http.Header{}}, true
	}
	return nil, false
}

// AsError is the error answer of a fault with a status.
func (f *FaultRule) AsError() *Error {
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
	e := NewError(status, code, msg)
	e.Transient = f.Target != "" && f.Target != FaultTargetRequest // a dependency's failure changes nothing
	switch {
	case f.RetryAfter != nil:
		e.Header = http.Header{"Retry-After": {strconv.Itoa(*f.RetryAfter)}}
	case status == http.StatusTooManyRequests:
		e.Header = http.Header{"Retry-After": {"1"}}
	}
	return e
}

// mangles reports whether the fault changes how the answer is written.
func (f *FaultRule) mangles() bool { return f.Drop || f.Truncate }

// outcome is the journal's word for what apply does to resp.
func (f *FaultRule) outcome(resp *Response) string {
	if f.Truncate && resp.Status > 0 {
		return "truncated"
	}
	return "dropped"
}

// apply writes resp as the fault says: nothing, or half of it; the caller
// then aborts the connection.
func (f *FaultRule) apply(w http.ResponseWriter, resp *Response) {
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
// request fails, as an API error for the handler to return.
func (rc *Ctx) DependencyFault(target string) *Error {
	f := rc.API.FaultSet.Match(target, rc.Request.Method, rc.Request.URL.Path)
	if f == nil {
		return nil
	}
	return f.AsError()
}

func codeForStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return wire.CodeInvalidRequest
	case http.StatusUnauthorized:
		return wire.CodeUnauthorized
	case http.StatusForbidden:
		return wire.CodeForbidden
	case http.StatusNotFound:
		return wire.CodeNotFound
	case http.StatusConflict:
		return wire.CodeConflict
	case http.StatusTooManyRequests:
		return wire.CodeRateLimited
	case http.StatusServiceUnavailable:
		return wire.CodeServiceUnavailable
	}
	return wire.CodeInternalError
}
