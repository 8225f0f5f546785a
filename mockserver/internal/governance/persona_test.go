package governance

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

func TestLoadPersona(t *testing.T) {
	opener, override := "Hello? Who is this?", "Yes?"
	tests := []struct {
		name   string
		req    PersonaRequest
		failed bool
		first  string
		source string
	}{
		{name: "default greeting", req: PersonaRequest{Persona: Persona{LeadName: "Dana", Scenario: "a leaking tap"}},
			first: "Hi, this is Dana.", source: agents.FirstMessageFromDefault},
		{name: "the persona's opener", req: PersonaRequest{Persona: Persona{LeadName: "Dana", Scenario: "s", Opener: &opener}},
			first: opener, source: agents.FirstMessageFromOpener},
		{name: "first_message wins", req: PersonaRequest{Persona: Persona{LeadName: "Dana", Scenario: "s", Opener: &opener}, FirstMessage: &override},
			first: override, source: agents.FirstMessageFromOverride},
		{name: "the voice provider fails", req: PersonaRequest{Persona: Persona{LeadName: "Dana", Scenario: "s"}}, failed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			w.failed = tt.failed
			tt.req.SentPersona = map[string]any{"lead_name": tt.req.Persona.LeadName}
			tt.req.Voice = &store.Voice{Provider: "openai", VoiceID: "nova"}
			var res agents.PersonaLoaded
			var err error
			var as *store.Assistant
			w.p.Write(func(tx *platform.Tx) {
				res, err = w.gov.LoadPersona(tx, start, w.acct.Agent, &tt.req, w.providerFault)
				as = tx.Assistants[w.acct.Agent.VendorAssistantID]
			})
			a := w.agent()
			if tt.failed {
				apiError(t, err, voiceagent.CodeVendorError)
				assert.NotContains(t, a.InboundPrompt, "role-playing", "nothing changes")
				assert.Nil(t, a.Metadata["persona"])
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.first, res.FirstMessage)
			assert.Equal(t, tt.source, res.FirstMessageSource)
			assert.Contains(t, res.Prompt, "role-playing Dana")
			assert.Equal(t, res.Prompt, a.InboundPrompt)
			assert.Equal(t, res.Prompt, a.OutboundPrompt)
			assert.Equal(t, tt.first, a.OutboundFirstMessage)
			assert.Equal(t, store.Voice{Provider: "openai", VoiceID: "nova"}, a.Voice)
			assert.Equal(t, "Dana", a.Metadata["persona"].(map[string]any)["lead_name"])
			assert.Equal(t, res.Prompt, as.Prompt, "the assistant follows")
			assert.Equal(t, tt.first, as.FirstMessage)
		})
	}
}
