package telephony_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

func ptr[T any](v T) *T { return &v }

// patchOf decodes a PATCH /v1/agents body (its id aside) as the handler does.
func patchOf(t *testing.T, body string) telephony.AgentPatch {
	t.Helper()
	var p telephony.AgentPatch
	require.NoError(t, json.Unmarshal([]byte(body), &p))
	return p
}

func TestUpdateAgent(t *testing.T) {
	failing := func() *domain.Error { return domain.New("bad_gateway", "down") }
	tests := []struct {
		name  string
		patch telephony.AgentPatch
		fault func() *domain.Error
		// check looks at the response and the agent after the update.
		check   func(t *testing.T, res agents.Updated, a *store.Agent, as *store.Assistant)
		wantErr string // the error's code, "" none
		path    string // its first detail's path
	}{
		{
			name:  "fields applied and synced",
			patch: telephony.AgentPatch{Name: ptr("Night desk"), InboundPrompt: ptr("Be brief."), FirstMessage: ptr("Hi!"), MaxDuration: ptr(120)},
			check: func(t *testing.T, res agents.Updated, a *store.Agent, as *store.Assistant) {
				assert.Equal(t, []string{"first_message", "inbound_prompt", "max_duration", "name"}, res.UpdatedFields)
				assert.Equal(t, "Night desk", a.Name)
				assert.Equal(t, "Be brief.", a.InboundPrompt)
				assert.Equal(t, 120, a.MaxDuration)
				assert.Equal(t, "Night desk", as.Name, "the assistant follows")
				assert.Equal(t, "Be brief.", as.Prompt)
				assert.Equal(t, "Hi!", as.FirstMessage)
				assert.True(t, a.UpdatedAt.Equal(start))
			},
		},
		{
			name:  "inbound_prompt wins over its legacy alias",
			patch: telephony.AgentPatch{SystemPrompt: ptr("old"), InboundPrompt: ptr("new")},
			check: func(t *testing.T, res agents.Updated, a *store.Agent, _ *store.Assistant) {
				assert.Equal(t, "new", a.InboundPrompt)
			},
		},
		{
			name:  "catalog voice",
			patch: telephony.AgentPatch{VoiceCatalogID: ptr("james")},
			check: func(t *testing.T, _ agents.Updated, a *store.Agent, as *store.Assistant) {
				assert.Equal(t, store.Voice{Provider: "11labs", VoiceID: "james"}, a.Voice)
				assert.Equal(t, "james", a.VoiceCatalogID)
				assert.Equal(t, a.Voice, as.Voice)
			},
		},
		{
			name:    "unknown catalog voice refused",
			patch:   telephony.AgentPatch{Name: ptr("Changed"), VoiceCatalogID: ptr("nobody")},
			wantErr: voiceagent.CodeInvalidRequest, path: "voice_catalog_id",
		},
		{
			name:  "metadata merged",
			patch: telephony.AgentPatch{Metadata: map[string]any{"tier": "gold"}},
			check: func(t *testing.T, _ agents.Updated, a *store.Agent, _ *store.Assistant) {
				assert.Equal(t, map[string]any{"region": "west", "tier": "gold"}, a.Metadata)
			},
		},
		{
			name:  "vendor_config keeps the provider's keys",
			patch: telephony.AgentPatch{VendorConfig: map[string]any{"silenceTimeoutSeconds": 20.0, "zeta": 1.0, "alpha": true}},
			check: func(t *testing.T, res agents.Updated, a *store.Agent, as *store.Assistant) {
				assert.Equal(t, []string{"alpha", "zeta"}, res.IgnoredVendorConfigKeys)
				assert.Equal(t, map[string]any{"silenceTimeoutSeconds": 20.0}, a.VendorConfig)
				assert.Equal(t, a.VendorConfig, as.VendorConfig)
			},
		},
		{
			name:  "model overrides by presence",
			patch: patchOf(t, `{"outbound_llm": "gpt-4o", "sms_llm": null}`),
			check: func(t *testing.T, res agents.Updated, a *store.Agent, _ *store.Assistant) {
				assert.Equal(t, "gpt-4o", a.OutboundLLM)
				assert.Nil(t, a.SMSLLM, "null clears")
				assert.Equal(t, []string{"outbound_llm", "sms_llm"}, res.UpdatedFields)
			},
		},
		{
			name:  "audit fields are listed, not kept",
			patch: patchOf(t, `{"owner_change_reason": "asked", "transfer_enabled": true}`),
			check: func(t *testing.T, res agents.Updated, a *store.Agent, _ *store.Assistant) {
				assert.Equal(t, []string{"owner_change_reason", "transfer_enabled"}, res.UpdatedFields)
				assert.True(t, a.TransferEnabled)
			},
		},
		{
			name:    "voice provider failure",
			patch:   telephony.AgentPatch{Name: ptr("Changed")},
			fault:   failing,
			wantErr: voiceagent.CodeVendorError,
		},
		{
			name:  "a change the provider does not use ignores its failure",
			patch: telephony.AgentPatch{OutboundPrompt: ptr("Call them back.")},
			fault: failing,
			check: func(t *testing.T, _ agents.Updated, a *store.Agent, _ *store.Assistant) {
				assert.Equal(t, "Call them back.", a.OutboundPrompt)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			a := w.acct.Agent
			before := a.Name
			w.p.Write(func(tx *platform.Tx) {
				tx.Agents.Update(a, func(a *store.Agent) { a.Metadata = map[string]any{"region": "west"} })
				res, err := w.tel.UpdateAgent(tx, start, a, tt.patch, tt.fault)
				as := tx.Assistants[a.VendorAssistantID]
				if tt.wantErr != "" {
					var e *domain.Error
					require.ErrorAs(t, err, &e)
					assert.Equal(t, tt.wantErr, e.Code)
					if tt.path != "" {
						require.NotEmpty(t, e.Details)
						assert.Equal(t, tt.path, e.Details[0].Path)
					}
					assert.Equal(t, before, a.Name, "a refused update changes nothing")
					assert.Equal(t, before, as.Name)
					return
				}
				require.NoError(t, err)
				assert.True(t, res.Updated)
				assert.Equal(t, a.ID, res.ID)
				tt.check(t, res, a, as)
			})
		})
	}
}

func TestAgentPatchDecodesPresence(t *testing.T) {
	p := patchOf(t, `{"id": "x", "name": "N", "sms_llm": null}`)
	assert.Equal(t, []string{"name", "sms_llm"}, p.Fields(), "the id is not a field")
	assert.True(t, p.SMSLLM.Sent)
	assert.Nil(t, p.SMSLLM.Value)
	assert.False(t, p.OutboundLLM.Sent)
	assert.Equal(t, []string{}, (&telephony.AgentPatch{}).Fields())
}
