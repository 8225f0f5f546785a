// Package runs is the communication runs domain of the mock server: runs
// validated, previewed and created, and their touches (calls and texts placed
// through telephony) followed to their end through the platform's hooks.
package runs

import (
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// Service is the runs domain of one server.
type Service struct {
	*platform.Platform
	telephony *telephony.Service
}

// New returns the runs domain of engine p; its touches go through tel.
func New(p *platform.Platform, tel *telephony.Service) *Service {
	s := &Service{Platform: p, telephony: tel}
	s.startRuns()
	return s
}
