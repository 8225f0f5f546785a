// Package governance is the governance domain of the mock server: governed
// updates, approval requests (their calls through telephony, their callbacks
// as a kind of delivery of the hooks engine) and persona loading.
package governance

import (
	"github.com/voiceagent/voiceagent-go/mockserver/internal/hooks"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// Service is the governance domain of one server.
type Service struct {
	*platform.Platform
	hooks     *hooks.Service
	telephony *telephony.Service
}

// New returns the governance domain of engine p; approval callbacks go through hk, approval calls through tel.
func New(p *platform.Platform, hk *hooks.Service, tel *telephony.Service) *Service {
	s := &Service{Platform: p, hooks: hk, telephony: tel}
	s.startApprovals()
	return s
}
