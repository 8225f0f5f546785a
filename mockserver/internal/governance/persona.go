package governance

import (
	"maps"
	"strings"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
)

// Persona is a simulated lead an agent plays.
type Persona struct {
	LeadName        string   `json:"lead_name"`
	Scenario        string   `json:"scenario"`
	Objective       string   `json:"objective"`
	Script          string   `json:"script"`
	PersonaTraits   any      `json:"persona_traits"`
	FactsToReveal   []string `json:"facts_to_reveal"`
	FactsToWithhold []string `json:"facts_to_withhold"`
	CallbackNumber  string   `json:"callback_number"`
	Opener          *string  `json:"opener"`
}

// PersonaRequest is a persona to load, as POST /v1/agents/persona sends
// it.
type PersonaRequest struct {
	AgentID      string         `json:"agent_id"`
	Persona      Persona        `json:"persona"`
	FirstMessage *string        `json:"first_message"`
	Voice        *store.Voice   `json:"voice"`
	Model        map[string]any `json:"model"`
	// SentPersona is the persona's members as sent: the agent's metadata
	// keeps them.
	SentPersona map[string]any `json:"-"`
}

func (s *Service) loadPersona(rc *httpapi.Ctx) (any, error) {
	var req PersonaRequest
	if err := rc.Decode(&req); err != nil {
		return nil, err
	}
	var sent struct {
		Persona map[string]any `json:"persona"`
	}
	_ = httpapi.DecodeLoose(rc.Body, &sent)
	req.SentPersona = sent.Persona
	a, err := telephony.AgentOf(rc, req.AgentID)
	if err != nil {
		return nil, err
	}
	return s.LoadPersona(rc.Tx, rc.Now, a, &req, voiceProviderFault(rc))
}

// LoadPersona makes agent a play the simulated lead of req at now: its
// inbound and outbound prompts become the persona's prompt, its greetings
// the persona's opening line (first_message, else the opener, else "Hi,
// this is <lead_name>."), voice and model change when sent, and the
// persona is kept in the agent's metadata under "persona". The agent's
// assistant at the voice provider is updated; when providerFault (nil:
// none) reports that the provider fails, the error is returned as a
// vendor_error and nothing changes.
func (s *Service) LoadPersona(tx *platform.Tx, now time.Time, a *store.Agent, req *PersonaRequest, providerFault func() *domain.Error) (agents.PersonaLoaded, error) {
	if providerFault != nil {
		if e := providerFault(); e != nil {
			e.Code = voiceagent.CodeVendorError
			e.Message = "the voice provider refused the persona: " + e.Message
			return agents.PersonaLoaded{}, e
		}
	}
	p := req.Persona
	first, source := "Hi, this is "+p.LeadName+".", agents.FirstMessageFromDefault
	switch {
	case req.FirstMessage != nil:
		first, source = *req.FirstMessage, agents.FirstMessageFromOverride
	case p.Opener != nil:
		first, source = *p.Opener, agents.FirstMessageFromOpener
	}
	prompt := personaPrompt(&p)
	persona := maps.Clone(req.SentPersona)
	if persona == nil {
		persona = map[string]any{}
	}
	persona["loaded_at"] = now.UTC()
	tx.Agents.Update(a, func(a *store.Agent) {
		a.InboundPrompt, a.OutboundPrompt = prompt, prompt
		a.FirstMessage, a.OutboundFirstMessage = first, first
		if req.Voice != nil {
			a.Voice = *req.Voice
			a.VoiceCatalogID = ""
		}
		if m := req.Model; m != nil {
			val.Set(&a.Model.Provider, strPtr(m["provider"]))
			val.Set(&a.Model.Model, strPtr(m["model"]))
			if t, ok := m["temperature"].(float64); ok {
				a.Model.Temperature = t
			}
		}
		if a.Metadata == nil {
			a.Metadata = map[string]any{}
		}
		a.Metadata["persona"] = persona
		a.UpdatedAt = now.UTC()
	})
	s.telephony.SyncAssistant(tx, a)
	return agents.PersonaLoaded{
		AgentID: a.ID, VendorAssistantID: a.VendorAssistantID, Loaded: true,
		Persona: persona, FirstMessage: first, FirstMessageSource: source, Prompt: prompt,
		Voice:    agents.Voice{Provider: a.Voice.Provider, VoiceID: a.Voice.VoiceID},
		Model:    agents.Model{Provider: a.Model.Provider, Model: a.Model.Model, Temperature: a.Model.Temperature},
		LoadedAt: now.UTC(),
	}, nil
}

// personaPrompt is the prompt an agent plays a persona with.
func personaPrompt(p *Persona) string {
	var b strings.Builder
	b.WriteString("You are role-playing " + p.LeadName + ", a simulated lead in a test conversation. " +
		"Stay in character for the whole call.\n")
	b.WriteString("Scenario: " + p.Scenario + "\n")
	line := func(label, v string) {
		if v != "" {
			b.WriteString(label + ": " + v + "\n")
		}
	}
	line("Objective", p.Objective)
	switch t := p.PersonaTraits.(type) {
	case string:
		line("Personality", t)
	case []any:
		var traits []string
		for _, x := range t {
			traits = append(traits, val.Str(x))
		}
		line("Personality", strings.Join(traits, ", "))
	}
	line("Script", p.Script)
	line("Reveal these facts when asked", strings.Join(p.FactsToReveal, "; "))
	line("Never reveal", strings.Join(p.FactsToWithhold, "; "))
	if p.CallbackNumber != "" {
		line("If asked for a callback number, give", p.CallbackNumber)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// strPtr is a pointer to a string member of a decoded object, nil when
// absent or not a string.
func strPtr(v any) *string {
	if s, ok := v.(string); ok {
		return &s
	}
	return nil
}
