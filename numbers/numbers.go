// Package numbers reads the phone numbers assigned to a key's agents.
package numbers

import (
	"context"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// Number is a phone number assigned to an agent.
type Number struct {
	ID          string    `json:"id"`
	PhoneNumber string    `json:"phone_number"`
	AgentID     string    `json:"agent_id"`
	BusinessID  string    `json:"business_id"`
	CreatedAt   time.Time `json:"created_at"`
}

// ListParams filter List.
type ListParams struct {
	// BusinessID limits the list to one business.
	BusinessID string `url:"business_id,omitempty"`
}

// Service is the numbers API. Get it from client.Client.Numbers.
type Service struct{ b *voiceagent.Backend }

// NewService returns the service on a backend.
func NewService(b *voiceagent.Backend) *Service { return &Service{b: b} }

// List returns the numbers of the key's businesses, newest first
// (numbers:read).
func (s *Service) List(ctx context.Context, p *ListParams, opts ...voiceagent.Option) ([]Number, error) {
	return voiceagent.ListItems[Number](ctx, s.b, "/v1/numbers", "numbers", p, opts...)
}
