package telephony

import (
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
	"github.com/voiceagent/voiceagent-go/numbers"
)

func (s *Service) listNumbers(rc *httpapi.Ctx) (any, error) {
	owners, err := rc.ScopedBusinesses()
	if err != nil {
		return nil, err
	}
	out := []numbers.Number{}
	rc.Tx.Numbers.Scan(owners, val.ZeroTime, func(n *store.Number) bool {
		out = append(out, NumberView(n))
		return true
	})
	return numberList{Numbers: out}, nil
}

// numberList is GET /v1/numbers: every number, unpaged.
type numberList struct {
	Numbers []numbers.Number `json:"numbers"`
}

// NumberView is a phone number as GET /v1/numbers and the
// phone_number.assigned event show it.
func NumberView(n *store.Number) numbers.Number {
	return numbers.Number{
		ID: n.ID, PhoneNumber: n.PhoneNumber, AgentID: n.AgentID,
		BusinessID: n.Owner, CreatedAt: n.CreatedAt,
	}
}
