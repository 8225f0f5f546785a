// Package sms sends texts from an agent's number, reads conversation
// threads, and updates an agent's SMS prompt.
//
// Every text passes the platform's checks before it leaves: the recipient
// must not be on a do-not-call list (number_on_dnc), must have opted in and
// not opted out (number_opted_out), the content must pass the compliance
// check (content_blocked), and consent law must allow it, for example no
// texts during the recipient's quiet hours (tcpa_violation). Compare errors
// with errors.Is against voiceagent.ErrNumberOnDNC and friends.
package sms

import (
	"context"
	"iter"
	"net/http"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// FromMessagingService is the From of a text sent through a messaging
// service rather than the agent's own number.
const FromMessagingService = "messaging_service"

// Message statuses.
const (
	StatusSent      = "sent"
	StatusDelivered = "delivered"
	StatusFailed    = "failed"
	StatusReceived  = "received"
)

// Message directions.
const (
	DirectionInbound  = "inbound"
	DirectionOutbound = "outbound"
)

// SendParams are the fields of POST /v1/sms/send.
type SendParams struct {
	// To is the recipient, E.164. Required.
	To string `json:"to"`
	// FromAgentID is the agent whose number sends the text. Required.
	FromAgentID string `json:"from_agent_id"`
	// Message is the text, 1 to 1600 characters. Required.
	Message string `json:"message"`
	// LeadID puts the text in that lead's conversation thread (default: the
	// thread of the lead whose phone is To, if any).
	LeadID *string `json:"lead_id,omitempty"`
}

// Sent is the answer of Send.
type Sent struct {
	Success    bool   `json:"success"`
	MessageSID string `json:"message_sid"`
	To         string `json:"to"`
	// From is the sending number, or FromMessagingService.
	From string `json:"from"`
	// ID is the message's id in the thread.
	ID string `json:"id"`
	// LeadID is the thread the text joined: its lead, nil when it has none.
	LeadID *string `json:"lead_id"`
	// Status is the text's status (sent, then delivered).
	Status string `json:"status"`
}

// Message is one text of a conversation thread.
type Message struct {
	ID         string    `json:"id"`
	MessageSID string    `json:"message_sid"`
	LeadID     *string   `json:"lead_id"`
	AgentID    string    `json:"agent_id"`
	BusinessID string    `json:"business_id"`
	Direction  string    `json:"direction"`
	From       string    `json:"from"`
	To         string    `json:"to"`
	Body       string    `json:"body"`
	Status     string    `json:"status"`
	Error      *string   `json:"error"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
	// TouchRef names the communication run touch that sent the text, if any.
	voiceagent.TouchRef
}

// ListParams filter List and All.
type ListParams struct {
	// LeadID keeps one lead's thread.
	LeadID string `url:"lead_id,omitempty"`
	// Phone keeps texts to or from this number.
	Phone string `url:"phone,omitempty"`
	// AgentID keeps one agent's texts.
	AgentID string `url:"agent_id,omitempty"`
	// Direction keeps inbound or outbound texts.
	Direction string `url:"direction,omitempty"`
	// BusinessID keeps one business's texts.
	BusinessID string `url:"business_id,omitempty"`
	// Limit is the page size (default 50, at most 100).
	Limit int `url:"limit,omitempty"`
	// After is the cursor: the created_at of the last message seen.
	After string `url:"after,omitempty"`
}

// UpdatePromptParams are the fields of POST /v1/sms/update-prompt.
type UpdatePromptParams struct {
	// AgentID is the agent to update. Required.
	AgentID string `json:"agent_id"`
	// SMSPrompt is the new SMS prompt. Required.
	SMSPrompt string `json:"sms_prompt"`
	// Reason is written to the audit trail.
	Reason *string `json:"reason,omitempty"`
}

// PromptUpdated is the answer of UpdatePrompt.
type PromptUpdated struct {
	Success bool   `json:"success"`
	AgentID string `json:"agent_id"`
	Message string `json:"message"`
}

// Service is the SMS API. Get it from client.Client.SMS.
type Service struct{ b *voiceagent.Backend }

// NewService returns the service on a backend.
func NewService(b *voiceagent.Backend) *Service { return &Service{b: b} }

// Send sends a text from the agent's number after the do-not-call, consent,
// consent-law and content checks, and logs it in the lead's thread
// (sms:write).
func (s *Service) Send(ctx context.Context, p *SendParams, opts ...voiceagent.Option) (*Sent, error) {
	return voiceagent.Send[Sent](ctx, s.b, http.MethodPost, "/v1/sms/send", nil, p, opts...)
}

// UpdatePrompt replaces an agent's SMS prompt; the change is written to an
// audit trail (agents:write).
func (s *Service) UpdatePrompt(ctx context.Context, p *UpdatePromptParams, opts ...voiceagent.Option) (*PromptUpdated, error) {
	return voiceagent.Send[PromptUpdated](ctx, s.b, http.MethodPost, "/v1/sms/update-prompt", nil, p, opts...)
}

// List returns one page of texts, newest first (sms:read).
func (s *Service) List(ctx context.Context, p *ListParams, opts ...voiceagent.Option) (*voiceagent.Page[Message], error) {
	return voiceagent.ListPage(ctx, s.b, "/v1/sms/messages", "messages", p, func(m *Message) time.Time { return m.CreatedAt }, opts...)
}

// All walks every text matching p, page by page, newest first.
func (s *Service) All(ctx context.Context, p *ListParams, opts ...voiceagent.Option) iter.Seq2[*Message, error] {
	return voiceagent.All(ctx, p, func(q *ListParams) *string { return &q.After }, s.List, opts...)
}

// Thread returns a lead's whole conversation thread, oldest first, as a
// conversation reads.
func (s *Service) Thread(ctx context.Context, leadID string, opts ...voiceagent.Option) ([]Message, error) {
	var out []Message
	for m, err := range s.All(ctx, &ListParams{LeadID: leadID, Limit: 100}, opts...) {
		if err != nil {
			return nil, err
		}
		out = append(out, *m)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}
