package identity

import (
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/openapi"
)

// selfBaseURL is the base URL (ending with /api) the request reached the
// server under, so the served document's first server is this mock.
func selfBaseURL(rc *httpapi.Ctx) string { return rc.SelfURL() + httpapi.APIPrefix }

func (s *Service) getOpenAPIYAML(rc *httpapi.Ctx) (any, error) {
	return rc.SelfDocument("openapi.yaml", "application/yaml", selfBaseURL(rc), openapi.Bundled)
}

func (s *Service) getOpenAPIJSON(rc *httpapi.Ctx) (any, error) {
	return rc.SelfDocument("openapi.json", "application/json", selfBaseURL(rc), openapi.BundledJSON)
}
