package telephony

import (
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/internal/wire"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// Defaults of a new agent (spec: the voice provider's default voice, a
// standard third-party model at temperature 0.7).
var (
	// DefaultVoice is the voice of an agent created without one.
	DefaultVoice = store.Voice{Provider: "11labs", VoiceID: "sarah"}
	// DefaultModel is the model of an agent created without one.
	DefaultModel = store.Model{Provider: "openai", Model: "gpt-4o-mini", Temperature: 0.7}
)

// DefaultGreeting is the first message of an agent that sets none.
const DefaultGreeting = "Hello! How can I help you today?"

// voiceCatalog is GET /v1/voices: the voices voice_catalog_id may name.
var voiceCatalog = []agents.CatalogVoice{
	{ID: "sarah", Name: "Sarah", Provider: "11labs", VoiceID: "sarah", Gender: "female", Accent: "american", Language: "en-US"},
	{ID: "james", Name: "James", Provider: "11labs", VoiceID: "james", Gender: "male", Accent: "british", Language: "en-GB"},
	{ID: "maria", Name: "Maria", Provider: "11labs", VoiceID: "maria", Gender: "female", Accent: "mexican", Language: "es-MX"},
	{ID: "alloy", Name: "Alloy", Provider: "openai", VoiceID: "alloy", Gender: "neutral", Accent: "american", Language: "en-US"},
	{ID: "nova", Name: "Nova", Provider: "openai", VoiceID: "nova", Gender: "female", Accent: "american", Language: "en-US"},
	{ID: "onyx", Name: "Onyx", Provider: "openai", VoiceID: "onyx", Gender: "male", Accent: "american", Language: "en-US"},
}

// voiceList is the answer of GET /v1/voices.
type voiceList struct {
	Voices []agents.CatalogVoice `json:"voices"`
}

// catalogVoice is the voice of the catalog with the id.
func catalogVoice(id string) (store.Voice, bool) {
	for _, v := range voiceCatalog {
		if v.ID == id {
			return store.Voice{Provider: v.Provider, VoiceID: v.VoiceID}, true
		}
	}
	return store.Voice{}, false
}

// vendorConfigKeys are the vendor_config settings passed through to the
// voice provider; every other key is dropped when sanitising (and listed in
// the answer's ignored_vendor_config_keys).
var vendorConfigKeys = []string{
	"startSpeakingPlan", "stopSpeakingPlan", "endCallPhrases", "endCallMessage",
	"transcriber", "analysisPlan", "artifactPlan", "backgroundDenoisingEnabled",
	"backgroundSpeechDenoisingPlan", "monitorPlan", "silenceTimeoutSeconds",
	"maxDurationSeconds", "voicemailDetection", "voicemailMessage", "backgroundSound",
	"responseDelaySeconds", "numWordsToInterruptAssistant",
}

// AgentOf returns an agent the caller reaches, or 404 (absent and not
// accessible look the same).
func AgentOf(rc *httpapi.Ctx, id string) (*store.Agent, error) {
	return httpapi.Reachable(rc, rc.Store.Agents, id, "agent")
}

func (s *Service) getAgents(rc *httpapi.Ctx) (any, error) {
	if id := rc.Query("id"); id != "" {
		a, err := AgentOf(rc, id)
		if err != nil {
			return nil, err
		}
		return AgentDetail(a), nil
	}
	owners, err := rc.ScopedBusinesses()
	if err != nil {
		return nil, err
	}
	n := 0
	for _, o := range owners {
		n += rc.Store.Agents.Count(o)
	}
	out := make([]AgentListView, 0, n)
	rc.Store.Agents.Scan(owners, httpapi.ZeroTime, func(a *store.Agent) bool {
		out = append(out, AgentListItem(a))
		return true
	})
	return agentList{Agents: out}, nil
}

// agentList is GET /v1/agents: every agent, unpaged.
type agentList struct {
	Agents []AgentListView `json:"agents"`
}

func (s *Service) createAgent(rc *httpapi.Ctx) (any, error) {
	var body struct {
		BusinessID     string         `json:"business_id"`
		Name           string         `json:"name"`
		SystemPrompt   string         `json:"system_prompt"`
		FirstMessage   *string        `json:"first_message"`
		VoiceCatalogID string         `json:"voice_catalog_id"`
		Voice          *store.Voice   `json:"voice"`
		Model          *store.Model   `json:"model"`
		Metadata       map[string]any `json:"metadata"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	if _, err := rc.Business(body.BusinessID); err != nil {
		return nil, err
	}
	a := &store.Agent{
		Name:           body.Name,
		Status:         "active",
		InboundPrompt:  body.SystemPrompt,
		FirstMessage:   DefaultGreeting,
		Voice:          DefaultVoice,
		Model:          DefaultModel,
		Metadata:       map[string]any{},
		LeadCollection: true,
	}
	if body.FirstMessage != nil {
		a.FirstMessage = *body.FirstMessage
	}
	if body.VoiceCatalogID != "" {
		v, ok := catalogVoice(body.VoiceCatalogID)
		if !ok {
			return nil, httpapi.InvalidField("voice_catalog_id", "unknown voice %q (see GET /v1/voices)", body.VoiceCatalogID)
		}
		a.Voice, a.VoiceCatalogID = v, body.VoiceCatalogID
	}
	if body.Voice != nil {
		a.Voice = *body.Voice
	}
	if body.Model != nil {
		a.Model = *body.Model
	}
	if body.Metadata != nil {
		a.Metadata = body.Metadata
	}
	if e := rc.DependencyFault(httpapi.FaultTargetVoiceProvider); e != nil {
		e.Code = wire.CodeVendorError
		e.Message = "the voice provider refused the assistant: " + e.Message
		return nil, e
	}
	// The agent's id is drawn before its assistant's, as it always was, so
	// that a seeded server (WithIDSeed) keeps giving the same ids; Insert
	// keeps it.
	a.ID = s.IDs.UUID()
	s.CreateAssistant(rc.Store, a)
	if e := rc.DependencyFault(httpapi.FaultTargetStorage); e != nil {
		// Storing failed: remove the assistant created at the provider.
		delete(rc.Store.Assistants, a.VendorAssistantID)
		return nil, httpapi.DependencyError(http.StatusInternalServerError, wire.CodeInternalError,
			"storing the agent failed; the assistant created at the voice provider was removed")
	}
	rc.Store.Agents.Insert(a, body.BusinessID, rc.Now)
	a.UpdatedAt = a.CreatedAt
	return httpapi.Created(agents.Created{
		ID: a.ID, Name: a.Name, BusinessID: a.Owner,
		VendorAssistantID: a.VendorAssistantID, CreatedAt: a.CreatedAt,
	}), nil
}

// UpdateAgent applies a PATCH /v1/agents body to an agent (also used by governed updates).
func (s *Service) UpdateAgent(rc *httpapi.Ctx) (any, error) {
	var body struct {
		ID                   string         `json:"id"`
		Name                 *string        `json:"name"`
		InboundPrompt        *string        `json:"inbound_prompt"`
		OutboundPrompt       *string        `json:"outbound_prompt"`
		SMSPrompt            *string        `json:"sms_prompt"`
		SystemPrompt         *string        `json:"system_prompt"`
		FirstMessage         *string        `json:"first_message"`
		OutboundFirstMessage *string        `json:"outbound_first_message"`
		OutboundLLM          any            `json:"outbound_llm"`
		SMSLLM               any            `json:"sms_llm"`
		VoiceCatalogID       *string        `json:"voice_catalog_id"`
		Voice                *store.Voice   `json:"voice"`
		Model                *store.Model   `json:"model"`
		Metadata             map[string]any `json:"metadata"`
		MaxDuration          *float64       `json:"max_duration"`
		VendorConfig         map[string]any `json:"vendor_config"`
		TransferEnabled      *bool          `json:"transfer_enabled"`
		TransferPhoneNumber  *string        `json:"transfer_phone_number"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	var sent map[string]any
	_ = httpapi.DecodeLoose(rc.Body, &sent)
	a, err := AgentOf(rc, body.ID)
	if err != nil {
		return nil, err
	}
	if body.VoiceCatalogID != nil {
		if _, ok := catalogVoice(*body.VoiceCatalogID); !ok {
			return nil, httpapi.InvalidField("voice_catalog_id", "unknown voice %q (see GET /v1/voices)", *body.VoiceCatalogID)
		}
	}
	syncsProvider := body.Name != nil || body.InboundPrompt != nil || body.SystemPrompt != nil ||
		body.FirstMessage != nil || body.Voice != nil || body.VoiceCatalogID != nil || body.Model != nil ||
		body.VendorConfig != nil || body.MaxDuration != nil
	if syncsProvider {
		if e := rc.DependencyFault(httpapi.FaultTargetVoiceProvider); e != nil {
			e.Code = wire.CodeVendorError
			e.Message = "the voice provider refused the update: " + e.Message
			return nil, e
		}
	}
	var ignored []string
	rc.Store.Agents.Update(a, func(a *store.Agent) {
		httpapi.Set(&a.Name, body.Name)
		httpapi.Set(&a.InboundPrompt, body.SystemPrompt) // legacy alias; inbound_prompt wins
		httpapi.Set(&a.InboundPrompt, body.InboundPrompt)
		httpapi.Set(&a.OutboundPrompt, body.OutboundPrompt)
		httpapi.Set(&a.SMSPrompt, body.SMSPrompt)
		httpapi.Set(&a.FirstMessage, body.FirstMessage)
		httpapi.Set(&a.OutboundFirstMessage, body.OutboundFirstMessage)
		if _, ok := sent["outbound_llm"]; ok {
			a.OutboundLLM = body.OutboundLLM
		}
		if _, ok := sent["sms_llm"]; ok {
			a.SMSLLM = body.SMSLLM
		}
		if body.VoiceCatalogID != nil {
			a.Voice, _ = catalogVoice(*body.VoiceCatalogID)
			a.VoiceCatalogID = *body.VoiceCatalogID
		}
		if body.Voice != nil {
			a.Voice = *body.Voice
		}
		if body.Model != nil {
			a.Model = *body.Model
		}
		if body.Metadata != nil {
			if a.Metadata == nil {
				a.Metadata = map[string]any{}
			}
			maps.Copy(a.Metadata, body.Metadata)
		}
		if body.MaxDuration != nil {
			a.MaxDuration = *body.MaxDuration
		}
		if body.VendorConfig != nil {
			if a.VendorConfig == nil {
				a.VendorConfig = map[string]any{}
			}
			for k, v := range body.VendorConfig {
				if slices.Contains(vendorConfigKeys, k) {
					a.VendorConfig[k] = v
				} else {
					ignored = append(ignored, k)
				}
			}
			slices.Sort(ignored)
		}
		if body.TransferEnabled != nil {
			a.TransferEnabled = *body.TransferEnabled
		}
		httpapi.Set(&a.TransferPhoneNumber, body.TransferPhoneNumber)
		a.UpdatedAt = rc.Now.UTC()
	})
	if syncsProvider {
		s.SyncAssistant(rc.Store, a)
	}
	fields := make([]string, 0, len(sent))
	for k := range sent {
		if k != "id" {
			fields = append(fields, k)
		}
	}
	slices.Sort(fields)
	return agents.Updated{
		ID: a.ID, Name: a.Name, BusinessID: a.Owner, VendorAssistantID: a.VendorAssistantID,
		Updated: true, UpdatedFields: fields, IgnoredVendorConfigKeys: ignored,
	}, nil
}

func (s *Service) listVoices(rc *httpapi.Ctx) (any, error) {
	return voiceList{Voices: voiceCatalog}, nil
}

// CreateAssistant creates an agent's twin at the simulated voice provider.
func (s *Service) CreateAssistant(st *store.Store, a *store.Agent) {
	a.VendorAssistantID = "asst_" + s.IDs.Token(12)
	st.Assistants[a.VendorAssistantID] = &store.Assistant{ID: a.VendorAssistantID}
	s.SyncAssistant(st, a)
}

// SyncAssistant copies what the provider uses (name, inbound prompt and
// greeting, voice, model, vendor settings) to the agent's assistant.
func (s *Service) SyncAssistant(st *store.Store, a *store.Agent) {
	as, ok := st.Assistants[a.VendorAssistantID]
	if !ok {
		return
	}
	as.Name, as.Prompt, as.FirstMessage = a.Name, a.InboundPrompt, a.FirstMessage
	as.Voice, as.Model, as.MaxDuration = a.Voice, a.Model, a.MaxDuration
	as.VendorConfig = maps.Clone(a.VendorConfig)
}

// AgentListView is an agent in GET /v1/agents: the members of
// agents.Agent.
type AgentListView struct {
	ID                string    `json:"id"`
	Name              string    `json:"name"`
	BusinessID        string    `json:"business_id"`
	VendorAssistantID string    `json:"vendor_assistant_id"`
	PhoneNumber       *string   `json:"phone_number"`
	Status            string    `json:"status"`
	CreatedAt         time.Time `json:"created_at"`
}

// agentDetailView is an agent in GET /v1/agents?id=.
type agentDetailView struct {
	AgentListView
	Prompts             map[string]any `json:"prompts"`
	Voice               store.Voice    `json:"voice"`
	VoiceCatalogID      *string        `json:"voice_catalog_id"`
	Model               store.Model    `json:"model"`
	FirstMessage        string         `json:"first_message"`
	Metadata            map[string]any `json:"metadata"`
	MaxDuration         float64        `json:"max_duration"`
	VendorConfig        map[string]any `json:"vendor_config"`
	TransferEnabled     bool           `json:"transfer_enabled"`
	TransferPhoneNumber *string        `json:"transfer_phone_number"`
	LeadCollection      bool           `json:"lead_collection"`
	UpdatedAt           time.Time      `json:"updated_at"`
}

// AgentListItem is an agent in GET /v1/agents.
func AgentListItem(a *store.Agent) AgentListView {
	return AgentListView{
		ID: a.ID, Name: a.Name, BusinessID: a.Owner, VendorAssistantID: a.VendorAssistantID,
		PhoneNumber: httpapi.Strp(a.PhoneNumber), Status: a.Status, CreatedAt: a.CreatedAt,
	}
}

// AgentDetail is an agent in GET /v1/agents?id=. The inbound prompt is read
// from the voice provider, as the real service does.
func AgentDetail(a *store.Agent) agentDetailView {
	return agentDetailView{
		AgentListView: AgentListItem(a),
		Prompts: map[string]any{
			"inbound":  map[string]any{"prompt": a.InboundPrompt, "llm": a.Model},
			"outbound": map[string]any{"prompt": httpapi.Nullable(a.OutboundPrompt), "llm": orDefault(a.OutboundLLM, a.Model), "first_message": httpapi.Nullable(a.OutboundFirstMessage)},
			"sms":      map[string]any{"prompt": httpapi.Nullable(a.SMSPrompt), "llm": orDefault(a.SMSLLM, a.Model)},
		},
		Voice:               a.Voice,
		VoiceCatalogID:      httpapi.Strp(a.VoiceCatalogID),
		Model:               a.Model,
		FirstMessage:        a.FirstMessage,
		Metadata:            maps.Clone(a.Metadata),
		MaxDuration:         a.MaxDuration,
		VendorConfig:        maps.Clone(a.VendorConfig),
		TransferEnabled:     a.TransferEnabled,
		TransferPhoneNumber: httpapi.Strp(a.TransferPhoneNumber),
		LeadCollection:      a.LeadCollection,
		UpdatedAt:           a.UpdatedAt,
	}
}

func orDefault(v any, def any) any {
	if v == nil {
		return def
	}
	return v
}

// ProviderAssistants returns how many assistants the simulated voice
// provider holds, so tests can check that a failed create left none behind.
func (s *Service) ProviderAssistants() int {
	s.Mu.RLock()
	defer s.Mu.RUnlock()
	return len(s.Store.Assistants)
}
