package mockserver

import (
	"net/http"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

func (s *Server) numberRoutes() []*route {
	return []*route{
		{method: http.MethodGet, path: "/api/v1/numbers", scope: scope("numbers:read"), handle: s.listNumbers},
	}
}

func (s *Server) listNumbers(rc *reqCtx) (any, error) {
	owners, err := rc.scopedBusinesses()
	if err != nil {
		return nil, err
	}
	out := []map[string]any{}
	rc.st.Numbers.Scan(owners, zeroTime, func(n *store.Number) bool {
		out = append(out, numberView(n))
		return true
	})
	return map[string]any{"numbers": out}, nil
}

// numberView is a phone number record.
func numberView(n *store.Number) map[string]any {
	return map[string]any{
		"id": n.ID, "phone_number": n.PhoneNumber, "agent_id": n.AgentID,
		"business_id": n.Owner, "created_at": n.CreatedAt,
	}
}
