// Package agents manages voice agents: their inbound, outbound and SMS
// prompts, voice and model, and the voice catalog (GET /v1/voices).
package agents

import (
	"context"
	"net/http"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// Voice is an agent's voice: a provider and the provider's voice id.
type Voice struct {
	Provider string `json:"provider"`
	VoiceID  string `json:"voiceId"`
}

// Model is an agent's language model.
type Model struct {
	Provider    string  `json:"provider"`
	Model       string  `json:"model"`
	Temperature float64 `json:"temperature"`
}

// Prompt is one of an agent's prompts with its model.
type Prompt struct {
	Prompt       *string `json:"prompt"`
	LLM          *Model  `json:"llm"`
	FirstMessage *string `json:"first_message,omitempty"`
}

// Prompts are an agent's three prompts.
type Prompts struct {
	Inbound  Prompt `json:"inbound"`
	Outbound Prompt `json:"outbound"`
	SMS      Prompt `json:"sms"`
}

// Agent is a voice agent. The list form fills the fields up to CreatedAt;
// Get fills the rest.
type Agent struct {
	ID                string    `json:"id"`
	Name              string    `json:"name"`
	BusinessID        string    `json:"business_id"`
	VendorAssistantID string    `json:"vendor_assistant_id"`
	PhoneNumber       *string   `json:"phone_number"`
	Status            string    `json:"status"`
	CreatedAt         time.Time `json:"created_at"`

	Prompts             *Prompts       `json:"prompts,omitempty"`
	Voice               *Voice         `json:"voice,omitempty"`
	VoiceCatalogID      *string        `json:"voice_catalog_id,omitempty"`
	Model               *Model         `json:"model,omitempty"`
	FirstMessage        string         `json:"first_message,omitempty"`
	Metadata            map[string]any `json:"metadata,omitempty"`
	MaxDuration         int            `json:"max_duration,omitempty"`
	VendorConfig        map[string]any `json:"vendor_config,omitempty"`
	TransferEnabled     bool           `json:"transfer_enabled,omitempty"`
	TransferPhoneNumber *string        `json:"transfer_phone_number,omitempty"`
	LeadCollection      bool           `json:"lead_collection,omitempty"`
	UpdatedAt           *time.Time     `json:"updated_at,omitempty"`
}

// CreateParams are the fields of POST /v1/agents.
type CreateParams struct {
	// BusinessID must be a business the key reaches. Required.
	BusinessID string `json:"business_id"`
	// Name is the display name. Required.
	Name string `json:"name"`
	// SystemPrompt is the inbound prompt. Required.
	SystemPrompt string `json:"system_prompt"`
	// FirstMessage is the inbound greeting (default "Hello! How can I help you today?").
	FirstMessage *string `json:"first_message,omitempty"`
	// VoiceCatalogID names a voice of ListVoices.
	VoiceCatalogID string `json:"voice_catalog_id,omitempty"`
	// Voice overrides the provider default voice.
	Voice *Voice `json:"voice,omitempty"`
	// Model overrides the default model (temperature 0.7).
	Model *Model `json:"model,omitempty"`
	// Metadata is stored with the agent.
	Metadata map[string]any `json:"metadata,omitempty"`
}

// Created is the answer of Create.
type Created struct {
	ID                string    `json:"id"`
	Name              string    `json:"name"`
	BusinessID        string    `json:"business_id"`
	VendorAssistantID string    `json:"vendor_assistant_id"`
	CreatedAt         time.Time `json:"created_at"`
}

// UpdateParams are the fields of PATCH /v1/agents: only the fields set are
// sent, and only those change. Use SetNull to send an explicit null.
type UpdateParams struct {
	voiceagent.NullFields `json:"-"`

	// ID of the agent. Required.
	ID                   string  `json:"id"`
	Name                 *string `json:"name,omitempty"`
	InboundPrompt        *string `json:"inbound_prompt,omitempty"`
	OutboundPrompt       *string `json:"outbound_prompt,omitempty"`
	SMSPrompt            *string `json:"sms_prompt,omitempty"`
	SystemPrompt         *string `json:"system_prompt,omitempty"`
	FirstMessage         *string `json:"first_message,omitempty"`
	OutboundFirstMessage *string `json:"outbound_first_message,omitempty"`
	OutboundLLM          *Model  `json:"outbound_llm,omitempty"`
	SMSLLM               *Model  `json:"sms_llm,omitempty"`
	VoiceCatalogID       *string `json:"voice_catalog_id,omitempty"`
	Voice                *Voice  `json:"voice,omitempty"`
	Model                *Model  `json:"model,omitempty"`
	// Metadata is merged into the existing metadata, not replaced.
	Metadata map[string]any `json:"metadata,omitempty"`
	// MaxDuration caps the agent's calls, in whole seconds from 1 to
	// 3600; a call's own max_duration overrides it.
	MaxDuration  *int           `json:"max_duration,omitempty"`
	VendorConfig map[string]any `json:"vendor_config,omitempty"`
	// TransferEnabled and TransferPhoneNumber configure call transfer.
	TransferEnabled     *bool   `json:"transfer_enabled,omitempty"`
	TransferPhoneNumber *string `json:"transfer_phone_number,omitempty"`
	OwnerChangeSummary  *string `json:"owner_change_summary,omitempty"`
	OwnerChangeReason   *string `json:"owner_change_reason,omitempty"`
	OverrideOwnerEdits  *bool   `json:"override_owner_edits,omitempty"`
}

// Updated is the answer of Update.
type Updated struct {
	ID                string   `json:"id"`
	Name              string   `json:"name"`
	BusinessID        string   `json:"business_id"`
	VendorAssistantID string   `json:"vendor_assistant_id"`
	Updated           bool     `json:"updated"`
	UpdatedFields     []string `json:"updated_fields"`
	// IgnoredVendorConfigKeys lists vendor_config keys the sanitiser dropped.
	IgnoredVendorConfigKeys []string `json:"ignored_vendor_config_keys,omitempty"`
}

// CatalogVoice is a voice of the catalog.
type CatalogVoice struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Provider string `json:"provider"`
	VoiceID  string `json:"voiceId"`
	Gender   string `json:"gender"`
	Accent   string `json:"accent"`
	Language string `json:"language"`
}

// ListParams filter List.
type ListParams struct {
	// BusinessID limits the list to one business.
	BusinessID string `url:"business_id,omitempty"`
}

// Service is the agents API. Get it from client.Client.Agents.
type Service struct{ b *voiceagent.Backend }

// NewService returns the service on a backend.
func NewService(b *voiceagent.Backend) *Service { return &Service{b: b} }

// List returns the agents of the key's businesses, newest first
// (agents:read).
func (s *Service) List(ctx context.Context, p *ListParams, opts ...voiceagent.Option) ([]Agent, error) {
	return voiceagent.ListItems[Agent](ctx, s.b, "/v1/agents", "agents", p, opts...)
}

// Get returns one agent with its prompts, voice and model (agents:read).
func (s *Service) Get(ctx context.Context, id string, opts ...voiceagent.Option) (*Agent, error) {
	return voiceagent.Send[Agent](ctx, s.b, http.MethodGet, "/v1/agents", voiceagent.IDQuery{ID: id}, nil, opts...)
}

// Create creates an agent with lead collection built in (agents:write).
func (s *Service) Create(ctx context.Context, p *CreateParams, opts ...voiceagent.Option) (*Created, error) {
	return voiceagent.Send[Created](ctx, s.b, http.MethodPost, "/v1/agents", nil, p, opts...)
}

// Update changes the fields set in p (agents:write).
func (s *Service) Update(ctx context.Context, p *UpdateParams, opts ...voiceagent.Option) (*Updated, error) {
	return voiceagent.Send[Updated](ctx, s.b, http.MethodPatch, "/v1/agents", nil, p, opts...)
}

// ListVoices returns the voice catalog for CreateParams.VoiceCatalogID
// (agents:read).
func (s *Service) ListVoices(ctx context.Context, opts ...voiceagent.Option) ([]CatalogVoice, error) {
	return voiceagent.ListItems[CatalogVoice](ctx, s.b, "/v1/voices", "voices", nil, opts...)
}
