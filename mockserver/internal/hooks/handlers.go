package hooks

import "github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"

// Handlers are the handlers of its routes, by operation (httpapi.Table).
func (s *Service) Handlers() httpapi.Handlers {
	return httpapi.Handlers{
		"listDeliveries":      s.adminDeliveries,
		"replayDelivery":      s.adminReplayDelivery,
		"emitEvent":           s.adminEmitEvent,
		"runReceiverChecks":   s.adminReceiverChecks,
		"listEvents":          s.listEvents,
		"replayEvents":        s.replayEvents,
		"deleteWebhook":       s.deleteWebhook,
		"getWebhooks":         s.getWebhooks,
		"upsertWebhook":       s.upsertWebhook,
		"rotateWebhookSecret": s.rotateWebhookSecret,
	}
}
