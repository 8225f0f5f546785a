package runs

import "github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"

// Handlers are the handlers of its routes, by operation (httpapi.Table).
func (s *Service) Handlers() httpapi.Handlers {
	return httpapi.Handlers{
		"deleteCommunicationRun":   s.deleteRun,
		"getCommunicationRuns":     s.getRuns,
		"createCommunicationRun":   s.createRun,
		"previewCommunicationRun":  s.previewRun,
		"validateCommunicationRun": s.validateRun,
	}
}
