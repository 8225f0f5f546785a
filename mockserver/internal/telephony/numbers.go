package telephony

import (
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
)

func (s *Service) listNumbers(rc *httpapi.Ctx) (any, error) {
	owners, err := rc.ScopedBusinesses()
	if err != nil {
		return nil, err
	}
	out := []map[string]any{}
	rc.Store.Numbers.Scan(owners, httpapi.ZeroTime, func(n *store.Number) bool {
		out = append(out, NumberView(n))
		return true
	})
	return map[string]any{"numbers": out}, nil
}

// NumberView is a phone number record.
func NumberView(n *store.Number) map[string]any {
	return map[string]any{
		"id": n.ID, "phone_number": n.PhoneNumber, "agent_id": n.AgentID,
		"business_id": n.Owner, "created_at": n.CreatedAt,
	}
}
