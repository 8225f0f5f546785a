package mockserver

import (
	"net/http"
	"sort"

	"github.com/voiceagent/voiceagent-go/openapi"
)

func (s *Server) openapiRoutes() []*route {
	return []*route{
		{method: http.MethodGet, path: apiPrefix + "/openapi.yaml", auth: authNone, lock: lockNone, handle: s.getOpenAPIYAML},
		{method: http.MethodGet, path: apiPrefix + "/v1/openapi.json", lock: lockNone, handle: s.getOpenAPIJSON},
	}
}

// rawBody is a handler answer sent as is, with its content type, instead of
// being encoded as JSON.
type rawBody struct {
	contentType string
	body        []byte
}

// selfBaseURL is the base URL (ending with /api) the request reached the
// server under, so the served document's first server is this mock.
func selfBaseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + apiPrefix
}

func (s *Server) getOpenAPIYAML(rc *reqCtx) (any, error) {
	b, err := openapi.Bundled(selfBaseURL(rc.r))
	if err != nil {
		return nil, err
	}
	return &rawBody{contentType: "application/yaml", body: b}, nil
}

func (s *Server) getOpenAPIJSON(rc *reqCtx) (any, error) {
	b, err := openapi.BundledJSON(selfBaseURL(rc.r))
	if err != nil {
		return nil, err
	}
	return &rawBody{contentType: "application/json", body: b}, nil
}

// RouteInfo describes one route the server serves, for tests that compare
// the server with the OpenAPI document.
type RouteInfo struct {
	// Method is the HTTP method, Path the full path (/api/v1/agents, /_mock/reset).
	Method, Path string
	// Auth is who may call it: key, session, key_or_session, none or admin.
	Auth string
	// Scope is the scope requirement of bearer keys ("" when any valid key
	// will do): a scope, "a and b" for allOf, "(a or b)" for anyOf.
	Scope string
	// Schema names the JSON Schema of package openapi the body is validated
	// against ("" when none, or when the handler picks one).
	Schema string
}

// Routes lists every route of the server, sorted by path then method.
func (s *Server) Routes() []RouteInfo {
	var out []RouteInfo
	for _, methods := range s.routes {
		for _, rt := range methods {
			ri := RouteInfo{Method: rt.method, Path: rt.path, Auth: rt.auth.String(), Schema: rt.schema}
			if rt.scope != nil {
				ri.Scope = rt.scope.String()
			}
			out = append(out, ri)
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Method < out[j].Method
	})
	return out
}

// String names an auth mode as RouteInfo does.
func (m authMode) String() string {
	switch m {
	case authKey:
		return "key"
	case authSession:
		return "session"
	case authKeyOrSession:
		return "key_or_session"
	case authNone:
		return "none"
	case authAdmin:
		return "admin"
	}
	return "unknown"
}
