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

func TestCreateGetListWithDefaults(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()

	created, err := env.Client.Agents.Create(ctx, &agents.CreateParams{
		BusinessID: env.Account.BusinessID, Name: "Front desk", SystemPrompt: "Be kind.",
	})
	require.NoError(t, err)
	assert.NotEmpty(t, created.VendorAssistantID)
	assert.Equal(t, env.Account.BusinessID, created.BusinessID)

	a, err := env.Client.Agents.Get(ctx, created.ID)
	require.NoError(t, err)
	assert.Equal(t, "Hello! How can I help you today?", a.FirstMessage)
	require.NotNil(t, a.Model)
	assert.Equal(t, 0.7, a.Model.Temperature)
	require.NotNil(t, a.Prompts)
	assert.Equal(t, "Be kind.", *a.Prompts.Inbound.Prompt)

	list, err := env.Client.Agents.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, list, 2, "the intake agent and the new one")
	assert.Equal(t, created.ID, list[0].ID, "newest first")
	assert.Equal(t, env.Account.AgentID, list[1].ID)
	require.NotNil(t, list[1].PhoneNumber)
	assert.Equal(t, env.Account.PhoneNumber, *list[1].PhoneNumber)
}

func TestUpdateChangesOnlySentFieldsAndMergesMetadata(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	_, err := env.Client.Agents.Update(ctx, &agents.UpdateParams{ID: env.Account.AgentID, Metadata: map[string]any{"a": 1.0}})
	require.NoError(t, err)
	up, err := env.Client.Agents.Update(ctx, &agents.UpdateParams{
		ID: env.Account.AgentID, OutboundPrompt: voiceagent.String("Sell."),
		Metadata:     map[string]any{"b": 2.0},
		VendorConfig: map[string]any{"endCallPhrases": []string{"bye"}, "serverUrl": "https://evil.example"},
	})
	require.NoError(t, err)
	assert.True(t, up.Updated)
	assert.Equal(t, []string{"metadata", "outbound_prompt", "vendor_config"}, up.UpdatedFields)
	assert.Equal(t, []string{"serverUrl"}, up.IgnoredVendorConfigKeys)

	a, err := env.Client.Agents.Get(ctx, env.Account.AgentID)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"a": 1.0, "b": 2.0}, a.Metadata)
	assert.Equal(t, "Sell.", *a.Prompts.Outbound.Prompt)
	assert.NotContains(t, a.VendorConfig, "serverUrl")
	assert.Contains(t, a.VendorConfig, "endCallPhrases")
	assert.Equal(t, "Hello! How can I help you today?", a.FirstMessage, "unsent fields stay")
}

func TestErrors(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})

	_, err := env.Client.Agents.Get(ctx, other.AgentID)
	assert.ErrorIs(t, err, voiceagent.ErrNotFound, "another tenant's agent is not visible")

	_, err = env.Client.Agents.Create(ctx, &agents.CreateParams{BusinessID: other.BusinessID, Name: "x", SystemPrompt: "y"})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)

	_, err = env.Client.Agents.Create(ctx, &agents.CreateParams{BusinessID: env.Account.BusinessID, Name: "", SystemPrompt: "y"})
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	assert.Equal(t, voiceagent.CodeInvalidRequest, apiErr.Code)
	require.NotEmpty(t, apiErr.Details)
	assert.Equal(t, "/name", apiErr.Details[0].Path)
	assert.NotEmpty(t, apiErr.RequestID)

	readOnly := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"agents:read"}})
	_, err = env.ClientFor(readOnly.APIKey).Agents.Create(ctx, &agents.CreateParams{BusinessID: readOnly.BusinessID, Name: "x", SystemPrompt: "y"})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)

	_, err = env.ClientFor("voiceagent_live_nope").Agents.List(ctx, nil)
	assert.ErrorIs(t, err, voiceagent.ErrUnauthorized)
}

func TestVendorErrorAndStorageFailureRemoveNothingOrTheAssistant(t *testing.T) {
	env := testenv.New(t)
	ctx := context.Background()
	p := &agents.CreateParams{BusinessID: env.Account.BusinessID, Name: "x", SystemPrompt: "y"}

	before := env.Server.ProviderAssistants()
	env.Server.AddFault(mockserver.FaultRule{Path: "/v1/agents", Method: "POST", Target: mockserver.FaultTargetVoiceProvider, Status: 502, Times: 1})
	_, err := env.Client.Agents.Create(ctx, p)
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, voiceagent.CodeVendorError, apiErr.Code)
	assert.Equal(t, 502, apiErr.StatusCode)

	env.Server.AddFault(mockserver.FaultRule{Path: "/v1/agents", Method: "POST", Target: mockserver.FaultTargetStorage, Status: 500, Times: 1})
	_, err = env.Client.Agents.Create(ctx, p)
	require.ErrorIs(t, err, voiceagent.ErrInternal)
	assert.Equal(t, before, env.Server.ProviderAssistants(), "the assistant of the failed create was removed")

	list, err := env.Client.Agents.List(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, list, 1)
}

func TestVoices(t *testing.T) {
	env := testenv.New(t)
	voices, err := env.Client.Agents.ListVoices(context.Background())
	require.NoError(t, err)
	require.NotEmpty(t, voices)
	_, err = env.Client.Agents.Create(context.Background(), &agents.CreateParams{
		BusinessID: env.Account.BusinessID, Name: "x", SystemPrompt: "y", VoiceCatalogID: voices[1].ID,
	})
	require.NoError(t, err)
	_, err = env.Client.Agents.Create(context.Background(), &agents.CreateParams{
		BusinessID: env.Account.BusinessID, Name: "x", SystemPrompt: "y", VoiceCatalogID: "nope",
	})
	assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest)
}
