package identity

import (
	"net/http"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/openapi"
)

// selfBaseURL is the base URL (ending with /api) the request reached the
// server under, so the served document's first server is this mock.
func selfBaseURL(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + httpapi.APIPrefix
}

func (s *Service) getOpenAPIYAML(rc *httpapi.Ctx) (any, error) {
	b, err := openapi.Bundled(selfBaseURL(rc.Request))
	if err != nil {
		return nil, err
	}
	return &httpapi.RawBody{ContentType: "application/yaml", Body: b}, nil
}

func (s *Service) getOpenAPIJSON(rc *httpapi.Ctx) (any, error) {
	b, err := openapi.BundledJSON(selfBaseURL(rc.Request))
	if err != nil {
		return nil, err
	}
	return &httpapi.RawBody{ContentType: "application/json", Body: b}, nil
}
