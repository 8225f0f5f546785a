package agents

import (
	"context"
	"net/http"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// Persona is a simulated lead an agent plays in a test conversation.
type Persona struct {
	// LeadName is the lead's name. Required.
	LeadName string `json:"lead_name"`
	// Scenario is the situation of the conversation. Required.
	Scenario  string `json:"scenario"`
	Objective string `json:"objective,omitempty"`
	Script    string `json:"script,omitempty"`
	// PersonaTraits is a string or a []string.
	PersonaTraits   any      `json:"persona_traits,omitempty"`
	FactsToReveal   []string `json:"facts_to_reveal,omitempty"`
	FactsToWithhold []string `json:"facts_to_withhold,omitempty"`
	// CallbackNumber is the number the persona gives (E.164).
	CallbackNumber string `json:"callback_number,omitempty"`
	// Opener is the persona's opening line; it becomes the agent's first
	// message unless PersonaParams.FirstMessage overrides it.
	Opener *string `json:"opener,omitempty"`
}

// PersonaParams load a persona into an agent.
type PersonaParams struct {
	// AgentID is the agent that plays the persona. Required.
	AgentID string `json:"agent_id"`
	// Persona is required.
	Persona Persona `json:"persona"`
	// FirstMessage overrides the opener.
	FirstMessage *string `json:"first_message,omitempty"`
	// Voice and Model, when set, replace the agent's.
	Voice *Voice `json:"voice,omitempty"`
	Model *Model `json:"model,omitempty"`
}

// First message sources of PersonaLoaded.
const (
	FirstMessageFromOverride = "first_message"
	FirstMessageFromOpener   = "opener"
	FirstMessageFromDefault  = "default"
)

// PersonaLoaded is the answer of LoadPersona.
type PersonaLoaded struct {
	AgentID           string `json:"agent_id"`
	VendorAssistantID string `json:"vendor_assistant_id"`
	Loaded            bool   `json:"loaded"`
	// Persona is the persona as stored in the agent's metadata["persona"].
	Persona map[string]any `json:"persona"`
	// FirstMessage is the agent's greeting now; FirstMessageSource says
	// where it came from (first_message, opener, or default "Hi, this is
	// <lead_name>.").
	FirstMessage       string    `json:"first_message"`
	FirstMessageSource string    `json:"first_message_source"`
	Prompt             string    `json:"prompt"`
	Voice              Voice     `json:"voice"`
	Model              Model     `json:"model"`
	LoadedAt           time.Time `json:"loaded_at"`
}

// LoadPersona makes an agent play a persona (agents:write): its inbound and
// outbound prompts become the persona's prompt and its greetings the
// persona's opening line. It is meant for test agents: to restore an agent,
// update its prompts and greetings.
func (s *Service) LoadPersona(ctx context.Context, p *PersonaParams, opts ...voiceagent.Option) (*PersonaLoaded, error) {
	return voiceagent.Send[PersonaLoaded](ctx, s.b, http.MethodPost, "/v1/agents/persona", nil, p, opts...)
}
