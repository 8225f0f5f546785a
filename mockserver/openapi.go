package mockserver

import (
	"net/http"

	"github.com/voiceagent/voiceagent-go/openapi"
)

func (s *Server) openapiRoutes() []*route {
	return []*route{
		{method: http.MethodGet, path: apiPrefix + "/openapi.yaml", auth: authNone, lock: lockNone, handle: s.getOpenAPIYAML},
		{method: http.MethodGet, path: apiPrefix + "/v1/openapi.json", lock: lockNone, handle: s.getOpenAPIJSON},
	}
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
