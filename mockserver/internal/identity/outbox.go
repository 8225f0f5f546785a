package identity

import (
	"context"
	"strings"

	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
)

// Outbox returns the messages sent to an address or number ("" for all),
// oldest first.
func (s *Service) Outbox(to string) []admin.OutboxMessage { return s.OutboxOf("", to) }

// OutboxOf returns the messages sent for the businesses of tenant ("" any
// tenant, and messages of none) to an address or number ("" for all),
// oldest first.
func (s *Service) OutboxOf(tenant, to string) []admin.OutboxMessage {
	tx := s.ReadTx()
	defer tx.End()
	out := []admin.OutboxMessage{}
	for _, m := range tx.Outbox.Owned("outbox") {
		if (to == "" || strings.EqualFold(m.To, to)) && (tenant == "" || tx.TenantOf(m.BusinessID) == tenant) {
			out = append(out, admin.OutboxMessage{
				ID: m.ID, BusinessID: m.BusinessID, Channel: admin.Channel(m.Channel), To: m.To, From: m.From, Subject: m.Subject,
				Body: m.Body, OTPCode: m.OTPCode, Link: m.Link, CreatedAt: m.CreatedAt,
			})
		}
	}
	return out
}

// WaitOutbox waits until a message to the address matches (nil: any), or
// ctx ends, and returns the newest matching one.
func (s *Service) WaitOutbox(ctx context.Context, to string, match func(admin.OutboxMessage) bool) (admin.OutboxMessage, bool) {
	var found admin.OutboxMessage
	ok := s.OutboxNotifier.Wait(ctx, func() bool {
		msgs := s.Outbox(to)
		for i := len(msgs) - 1; i >= 0; i-- {
			if match == nil || match(msgs[i]) {
				found = msgs[i]
				return true
			}
		}
		return false
	})
	return found, ok
}

func (s *Service) adminOutbox(rc *httpapi.Ctx) (any, error) {
	poll, err := rc.LongPoll()
	if err != nil {
		return nil, err
	}
	to, tenant := rc.Query("to"), ""
	if id := rc.Query("business_id"); id != "" {
		if tenant, err = rc.API.TenantOfBusiness(id); err != nil {
			return nil, err
		}
	}
	poll(func(ctx context.Context) {
		s.OutboxNotifier.Wait(ctx, func() bool { return len(s.OutboxOf(tenant, to)) > 0 })
	})
	return map[string]any{"messages": s.OutboxOf(tenant, to)}, nil
}
