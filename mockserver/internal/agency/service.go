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
	// commands are the commands of each resource, by resource and action.
	commands map[string]map[string]agencyCommand
}

// New returns the agency domain of engine p.
func New(p *platform.Platform, api *httpapi.API, id *identity.Service, tel *telephony.Service) *Service {
	s := &Service{Platform: p, httpapi: api, identity: id, telephony: tel}
	s.commands = map[string]map[string]agencyCommand{
		"enrollments":   s.enrollmentCommands(),
		"installations": s.installationCommands(),
		"offers":        s.offerCommands(),
		"profile":       s.profileCommands(),
	}
	s.DefineTask(TaskRetryCommand, s.retryCommand)
	s.DefineTask(TaskRetryEnrollment, s.retryEnrollment)
	return s
}
