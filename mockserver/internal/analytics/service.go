// Package analytics is the analytics domain of the mock server: the
// dashboard, calls, agents, weekly, funnel and businesses reads.
package analytics

import (
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
)

// Service is the analytics domain of one server.
type Service struct {
	*platform.Platform
}

// New returns the analytics domain of engine p.
func New(p *platform.Platform) *Service {
	s := &Service{Platform: p}
	return s
}
