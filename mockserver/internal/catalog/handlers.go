package catalog

import "github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"

// Handlers are the handlers of its routes, by operation (httpapi.Table).
func (s *Service) Handlers() httpapi.Handlers {
	return httpapi.Handlers{
		"deleteKnowledge": s.deleteKnowledge,
		"getKnowledge":    s.getKnowledge,
		"upsertKnowledge": s.upsertKnowledge,
		"deleteProduct":   s.deleteProduct,
		"getProduct":      s.getProducts,
		"upsertProduct":   s.upsertProduct,
	}
}
