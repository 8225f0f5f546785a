package mockserver

import (
	"slices"
	"strings"
)

// Route describes one endpoint the server serves: what Routes lists.
type Route struct {
	// Method is the HTTP method (GET, POST, PUT, PATCH or DELETE).
	Method string `json:"method"`
	// Path is the full path: under /api for the API (/api/v1/calls), under
	// /_mock for the admin API (/_mock/clock/advance).
	Path string `json:"path"`
	// Auth says who may call it: "key" (a bearer key), "session" (a
	// dashboard session only), "key or session", "none" (no credentials),
	// or "admin" (the admin API: no credentials, never journaled).
	Auth string `json:"auth"`
	// Scope is the scope requirement of a key ("calls:write", "workspaces:write
	// and agents:write"); empty when a valid key is enough or no key is
	// involved.
	Scope string `json:"scope,omitempty"`
	// Schema names the JSON Schema (package openapi) the body is validated
	// against; empty for routes without a body.
	Schema string `json:"schema,omitempty"`
	// Operation is the route's operationId in openapi/openapi.yaml or
	// openapi/admin.yaml.
	Operation string `json:"operation"`
	// RateLimit names the rate limit the route counts against (see the
	// guide's "Rate limits"); empty when none applies.
	RateLimit string `json:"rate_limit,omitempty"`
}

// Routes returns every endpoint the server serves, sorted by path and then
// method: the API's and the admin API's, as the route table
// (mockserver/internal/httpapi, Table) lists them. The README's endpoint
// tables, the user guide and the OpenAPI documents (internal/harness/conformance)
// are checked against it.
func (s *Server) Routes() []Route {
	s.inProcessOnly("Routes")
	var out []Route
	for path, methods := range s.httpapi.Routes {
		for method, rt := range methods {
			r := Route{Method: method, Path: path, Auth: rt.Auth.String(), Schema: rt.Schema, Operation: rt.Op}
			if rt.Scope != nil {
				r.Scope = rt.Scope.String()
			}
			if rt.Limit != nil {
				r.RateLimit = rt.Limit.Name
			}
			out = append(out, r)
		}
	}
	slices.SortFunc(out, func(a, b Route) int {
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Method, b.Method)
	})
	return out
}
