// Package agency is the agency domain of the mock server: the agency
// profile, offers, enrollment sessions and installations, their commands and
// guards, and commands retained while a dependency is down.
package agency

import (
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/identity"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// Service is the agency domain of one server.
type Service struct {
	*platform.Platform
	httpapi   *httpapi.API
	identity  *identity.Service
	telephony *telephony.Service
}

// New returns the agency domain of engine p.
func New(p *platform.Platform, api *httpapi.API, id *identity.Service, tel *telephony.Service) *Service {
	s := &Service{Platform: p, httpapi: api, identity: id, telephony: tel}
	return s
}
