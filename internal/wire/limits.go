package wire

import (
	"net/http"
	"strings"
	"time"
)

// Limit is one rate limit of spec section 8: at most Max requests per
// Window for the requests it matches, counted per API key (or per client IP
// when PerIP is set).
type Limit struct {
	// Name identifies the limit: "signup", "calls.create", "agents.create",
	// "agents.update", "sms.send", "analytics", "transcripts", "reads".
	Name string
	// Method is the HTTP method the limit applies to.
	Method string
	// Path is relative to the API base URL (which ends in /api), as
	// "/v1/calls": an exact path, a prefix when it ends with "/", and ""
	// for any path.
	Path string
	// Max is the number of requests allowed per Window.
	Max int
	// Window is the period Max applies to.
	Window time.Duration
	// PerIP reports that the limit is counted per client IP (signup), not
	// per key.
	PerIP bool
}

// Limits are the rate limits of spec section 8, first match wins (so the
// catch-all "reads" comes last). Writes the spec gives no limit for are
// not limited. Callers must not modify it.
var Limits = []Limit{
	{Name: "signup", Method: http.MethodPost, Path: "/v1/signup", Max: 5, Window: time.Hour, PerIP: true},
	{Name: "calls.create", Method: http.MethodPost, Path: "/v1/calls", Max: 60, Window: time.Minute},
	{Name: "agents.create", Method: http.MethodPost, Path: "/v1/agents", Max: 30, Window: time.Minute},
	{Name: "agents.update", Method: http.MethodPatch, Path: "/v1/agents", Max: 60, Window: time.Minute},
	{Name: "sms.send", Method: http.MethodPost, Path: "/v1/sms/send", Max: 60, Window: time.Minute},
	{Name: "analytics", Method: http.MethodGet, Path: "/v1/analytics/", Max: 120, Window: time.Minute},
	{Name: "transcripts", Method: http.MethodGet, Path: "/v1/transcripts", Max: 120, Window: time.Minute},
	{Name: "reads", Method: http.MethodGet, Path: "", Max: 300, Window: time.Minute},
}

// LimitFor returns the first of Limits that matches a request, and false
// when none does. path is relative to the API base URL ("/v1/calls", not
// "/api/v1/calls"); a query string (from '?') is ignored.
func LimitFor(method, path string) (Limit, bool) {
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	for _, l := range Limits {
		if l.Method == method && l.matches(path) {
			return l, true
		}
	}
	return Limit{}, false
}

// matches reports whether path falls under the limit's Path.
func (l Limit) matches(path string) bool {
	return l.Path == "" || l.Path == path || (strings.HasSuffix(l.Path, "/") && strings.HasPrefix(path, l.Path))
}
