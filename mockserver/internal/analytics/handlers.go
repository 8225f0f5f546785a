package analytics

import "github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"

// Handlers are the handlers of its routes, by operation (httpapi.Table).
func (s *Service) Handlers() httpapi.Handlers {
	return httpapi.Handlers{
		"analyticsAgents":     s.analyticsAgents,
		"analyticsBusinesses": s.analyticsBusinesses,
		"analyticsCalls":      s.analyticsCalls,
		"analyticsDashboard":  s.analyticsDashboard,
		"analyticsFunnel":     s.analyticsFunnel,
		"analyticsWeekly":     s.analyticsWeekly,
	}
}
