// Package sdr is the outbound-sales pipeline (SDR) domain of the mock server:
// configuration, segments and next actions, the pipeline read, actions, runs,
// the scheduled runner, reports and activity.
package sdr

import (
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// Service is the sdr domain of one server.
type Service struct {
	*platform.Platform
	telephony *telephony.Service
}

// New returns the sdr domain of engine p; its calls and texts go through tel.
func New(p *platform.Platform, tel *telephony.Service) *Service {
	s := &Service{Platform: p, telephony: tel}
	s.DefineTask(TaskSendEmail, func(tx *platform.Tx, now time.Time, t clock.Task) { s.sendSDRMail(tx, now, t.Subject) })
	s.DefineTask(TaskRunPipeline, s.runSDRTask)
	return s
}
