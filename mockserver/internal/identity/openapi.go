package identity

import (
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/openapi"
)

// selfBaseURL is the base URL (ending with /api) the request reached the
// server under, so the served document's first server is this mock.
func selfBaseURL(rc *httpapi.Ctx) string { return rc.SelfURL() + httpapi.APIPrefix }

func (s *Service) getOpenAPIYAML(rc *httpapi.Ctx) (any, error) {
	b, err := openapi.Bundled(selfBaseURL(rc))
	if err != nil {
		return nil, err
	}
	return &httpapi.RawBody{ContentType: "application/yaml", Body: b}, nil
}

func (s *Service) getOpenAPIJSON(rc *httpapi.Ctx) (any, error) {
	b, err := openapi.BundledJSON(selfBaseURL(rc))
	if err != nil {
		return nil, err
	}
	return &httpapi.RawBody{ContentType: "application/json", Body: b}, nil
}
