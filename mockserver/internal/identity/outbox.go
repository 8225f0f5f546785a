package identity

import (
	"context"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
)

// OutboxMessage is an email or SMS the platform sent to a person outside the
// API: signup codes and links, SDR emails, owner notifications.
type OutboxMessage struct {
	ID        string    `json:"id"`
	Channel   string    `json:"channel"`
	To        string    `json:"to"`
	From      string    `json:"from"`
	Subject   string    `json:"subject,omitempty"`
	Body      string    `json:"body"`
	OTPCode   string    `json:"otp_code,omitempty"`
	Link      string    `json:"link,omitempty"`
	CreatedAt time.Time `json:"created_at"`
}

// Outbox returns the messages sent to an address or number ("" for all),
// oldest first.
func (s *Service) Outbox(to string) []OutboxMessage {
	s.Mu.RLock()
	defer s.Mu.RUnlock()
	return s.outboxLocked(to)
}

func (s *Service) outboxLocked(to string) []OutboxMessage {
	out := []OutboxMessage{}
	for _, m := range s.Store.Outbox.Owned("outbox") {
		if to == "" || strings.EqualFold(m.To, to) {
			out = append(out, OutboxMessage{
				ID: m.ID, Channel: m.Channel, To: m.To, From: m.From, Subject: m.Subject,
				Body: m.Body, OTPCode: m.OTPCode, Link: m.Link, CreatedAt: m.CreatedAt,
			})
		}
	}
	return out
}

// WaitOutbox waits until a message to the address matches (nil: any), or
// ctx ends, and returns the newest matching one.
func (s *Service) WaitOutbox(ctx context.Context, to string, match func(OutboxMessage) bool) (OutboxMessage, bool) {
	var found OutboxMessage
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
	to := rc.Query("to")
	poll(func(ctx context.Context) { s.WaitOutbox(ctx, to, nil) })
	return map[string]any{"messages": s.Outbox(to)}, nil
}
