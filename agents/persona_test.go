package agents_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

func TestLoadPersonaOpenerBecomesTheFirstMessage(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	p := &agents.PersonaParams{AgentID: env.Account.AgentID, Persona: agents.Persona{
		LeadName: "Sam Rivera", Scenario: "A leaking water heater flooded the basement.", Objective: "Book a visit today",
		PersonaTraits: []string{"impatient", "polite"}, FactsToReveal: []string{"the address is 12 Elm St"},
		FactsToWithhold: []string{"the budget"}, CallbackNumber: "+15551230003", Opener: voiceagent.String("Hi, my basement is flooding!"),
	}, Voice: &agents.Voice{Provider: "11labs", VoiceID: "james"}}
	got, err := env.Client.Agents.LoadPersona(ctx, p)
	require.NoError(t, err)
	assert.True(t, got.Loaded)
	assert.Equal(t, "Hi, my basement is flooding!", got.FirstMessage)
	assert.Equal(t, agents.FirstMessageFromOpener, got.FirstMessageSource)
	assert.Contains(t, got.Prompt, "Sam Rivera")
	assert.Contains(t, got.Prompt, "Scenario: A leaking water heater flooded the basement.")
	assert.Contains(t, got.Prompt, "Personality: impatient, polite")
	assert.Contains(t, got.Prompt, "Never reveal: the budget")
	assert.Contains(t, got.Prompt, "+15551230003")
	assert.Equal(t, "james", got.Voice.VoiceID)

	a, err := env.Client.Agents.Get(ctx, env.Account.AgentID)
	require.NoError(t, err)
	assert.Equal(t, "Hi, my basement is flooding!", a.FirstMessage, "the opener is the agent's first message")
	assert.Equal(t, "Hi, my basement is flooding!", *a.Prompts.Outbound.FirstMessage)
	assert.Equal(t, got.Prompt, *a.Prompts.Inbound.Prompt)
	assert.Equal(t, got.Prompt, *a.Prompts.Outbound.Prompt)
	assert.Equal(t, "james", a.Voice.VoiceID)
	persona, ok := a.Metadata["persona"].(map[string]any)
	require.True(t, ok, "the persona is kept in the agent's metadata")
	assert.Equal(t, "Sam Rivera", persona["lead_name"])

	// An explicit first_message overrides the opener; without either, a default.
	p.FirstMessage = voiceagent.String("Hello, is this the plumber?")
	got, err = env.Client.Agents.LoadPersona(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, "Hello, is this the plumber?", got.FirstMessage)
	assert.Equal(t, agents.FirstMessageFromOverride, got.FirstMessageSource)
	got, err = env.Client.Agents.LoadPersona(ctx, &agents.PersonaParams{AgentID: env.Account.AgentID,
		Persona: agents.Persona{LeadName: "Kim", Scenario: "Asks for a quote", PersonaTraits: "calm"},
		Model:   &agents.Model{Provider: "openai", Model: "gpt-4o", Temperature: 0.2}})
	require.NoError(t, err)
	assert.Equal(t, "Hi, this is Kim.", got.FirstMessage)
	assert.Equal(t, agents.FirstMessageFromDefault, got.FirstMessageSource)
	assert.Contains(t, got.Prompt, "Personality: calm")
	assert.Equal(t, 0.2, got.Model.Temperature)
	a, err = env.Client.Agents.Get(ctx, env.Account.AgentID)
	require.NoError(t, err)
	assert.Equal(t, "Hi, this is Kim.", a.FirstMessage)
	assert.Equal(t, "gpt-4o", a.Model.Model)
}

func TestLoadPersonaErrors(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	valid := agents.Persona{LeadName: "Sam", Scenario: "s"}

	var apiErr *voiceagent.Error
	_, err := env.Client.Agents.LoadPersona(ctx, &agents.PersonaParams{AgentID: env.Account.AgentID, Persona: agents.Persona{LeadName: "Sam"}})
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	assert.Equal(t, "/persona/scenario", apiErr.Details[0].Path, "scenario is required (min 1)")
	_, err = env.Client.Agents.LoadPersona(ctx, &agents.PersonaParams{AgentID: env.Account.AgentID, Persona: agents.Persona{Scenario: "s"}})
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "/persona/lead_name", apiErr.Details[0].Path, "lead_name must not be empty")
	_, err = env.Client.Agents.LoadPersona(ctx, &agents.PersonaParams{AgentID: env.Account.AgentID,
		Persona: agents.Persona{LeadName: "Sam", Scenario: "s", CallbackNumber: "555"}})
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "/persona/callback_number", apiErr.Details[0].Path)
	err = env.Client.Do(ctx, http.MethodPost, "/v1/agents/persona", nil,
		map[string]any{"agent_id": env.Account.AgentID, "persona": map[string]any{"lead_name": "Sam", "scenario": "s", "age": 40}}, nil)
	assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest, "unknown properties are rejected")
	err = env.Client.Do(ctx, http.MethodPost, "/v1/agents/persona", nil,
		map[string]any{"agent_id": env.Account.AgentID, "persona": map[string]any{"lead_name": "Sam"}}, nil)
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, "/persona", apiErr.Details[0].Path, "scenario is required")
	assert.Contains(t, apiErr.Message, "scenario")

	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	_, err = env.Client.Agents.LoadPersona(ctx, &agents.PersonaParams{AgentID: other.AgentID, Persona: valid})
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
	ro := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"agents:read"}})
	_, err = env.ClientFor(ro.APIKey).Agents.LoadPersona(ctx, &agents.PersonaParams{AgentID: ro.AgentID, Persona: valid})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)

	env.Server.AddFault(mockserver.FaultRule{Path: "/v1/agents/persona", Target: mockserver.FaultTargetVoiceProvider, Status: 502, Times: 1})
	_, err = env.Client.Agents.LoadPersona(ctx, &agents.PersonaParams{AgentID: env.Account.AgentID, Persona: valid})
	assert.ErrorIs(t, err, voiceagent.ErrVendor)
	a, err := env.Client.Agents.Get(ctx, env.Account.AgentID)
	require.NoError(t, err)
	assert.NotContains(t, a.Metadata, "persona", "a refused load changes nothing")
}
