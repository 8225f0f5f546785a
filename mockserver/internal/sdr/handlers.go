package sdr

import "github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"

// Handlers are the handlers of its routes, by operation (httpapi.Table).
func (s *Service) Handlers() httpapi.Handlers {
	return httpapi.Handlers{
		"runSdrSchedulerNow": s.adminSDRCron,
		"sdrAction":          s.postSDRAction,
		"getSdrActivity":     s.getSDRActivity,
		"getSdrConfig":       s.getSDRConfig,
		"putSdrConfig":       s.putSDRConfig,
		"runSdrScheduler":    s.postSDRCron,
		"getSdrPipeline":     s.getSDRPipeline,
		"getSdrReport":       s.getSDRReport,
		"runSdr":             s.postSDRRun,
	}
}
