package governance

import "github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"

// Handlers are the handlers of its routes, by operation (httpapi.Table).
func (s *Service) Handlers() httpapi.Handlers {
	return httpapi.Handlers{
		"loadAgentPersona":     s.loadPersona,
		"getApprovalRequests":  s.getApprovalRequests,
		"requestApproval":      s.createApprovalRequest,
		"getGovernedUpdates":   s.getGovernedUpdates,
		"submitGovernedUpdate": s.governedUpdate,
		"decideGovernedUpdate": s.decideGovernedUpdate,
	}
}
