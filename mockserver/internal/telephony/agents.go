package telephony

import (
	"encoding/json"
	"maps"
	"slices"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
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

// voiceList is the response of GET /v1/voices.
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
// the response's ignored_vendor_config_keys).
var vendorConfigKeys = []string{
	"startSpeakingPlan", "stopSpeakingPlan", "endCallPhrases", "endCallMessage",
	"transcriber", "analysisPlan", "artifactPlan", "backgroundDenoisingEnabled",
	"backgroundSpeechDenoisingPlan", "monitorPlan", "silenceTimeoutSeconds",
	"maxDurationSeconds", "voicemailDetection", "voicemailMessage", "backgroundSound",
	"responseDelaySeconds", "numWordsToInterruptAssistant",
}

// AgentOf returns an agent the caller has access to, or 404 (absent and not
// accessible look the same).
func AgentOf(rc *httpapi.Ctx, id string) (*store.Agent, error) {
	return httpapi.Reachable(rc, rc.Tx.Agents, id, "agent")
}

// ReachedAgent returns the agent with the id when who has access to
// its business, else 404 (absent and not accessible look the same), as
// AgentOf does for a request's caller.
func ReachedAgent(tx *platform.Tx, who *domain.Actor, id string) (*store.Agent, error) {
	a, ok := tx.Agents.Get(id)
	if !ok || who == nil || !who.Reaches(a.Owner) {
		return nil, domain.NotFound("agent not found: " + id)
	}
	return a, nil
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
		n += rc.Tx.Agents.Count(o)
	}
	out := make([]AgentListView, 0, n)
	rc.Tx.Agents.Scan(owners, val.ZeroTime, func(a *store.Agent) bool {
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
			return nil, domain.InvalidField("voice_catalog_id", "unknown voice %q (see GET /v1/voices)", body.VoiceCatalogID)
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
	if e := rc.DependencyFault(admin.FaultTargetVoiceProvider); e != nil {
		e.Code = voiceagent.CodeVendorError
		e.Message = "the voice provider refused the assistant: " + e.Message
		return nil, e
	}
	// The agent's id is drawn before its assistant's, as it always was, so
	// that a seeded server (WithIDSeed) keeps giving the same ids; Insert
	// keeps it.
	a.ID = s.IDs.UUID()
	s.CreateAssistant(rc.Tx, a)
	if e := rc.DependencyFault(admin.FaultTargetStorage); e != nil {
		// Storing failed: remove the assistant created at the provider.
		delete(rc.Tx.Assistants, a.VendorAssistantID)
		return nil, domain.Dependency(voiceagent.CodeInternalError,
			"storing the agent failed; the assistant created at the voice provider was removed")
	}
	rc.Tx.Agents.Insert(a, body.BusinessID, rc.Now)
	a.UpdatedAt = a.CreatedAt
	return httpapi.Created(agents.Created{
		ID: a.ID, Name: a.Name, BusinessID: a.Owner,
		VendorAssistantID: a.VendorAssistantID, CreatedAt: a.CreatedAt,
	}), nil
}

// AgentPatch is a change to an agent: the members of a PATCH /v1/agents
// body, its id aside. A nil member (an unsent Present) leaves the agent's
// value as it is.
type AgentPatch struct {
	Name                 *string      `json:"name"`
	InboundPrompt        *string      `json:"inbound_prompt"`
	OutboundPrompt       *string      `json:"outbound_prompt"`
	SMSPrompt            *string      `json:"sms_prompt"`
	SystemPrompt         *string      `json:"system_prompt"` // legacy alias of inbound_prompt, which wins
	FirstMessage         *string      `json:"first_message"`
	OutboundFirstMessage *string      `json:"outbound_first_message"`
	OutboundLLM          Present      `json:"outbound_llm"`
	SMSLLM               Present      `json:"sms_llm"`
	VoiceCatalogID       *string      `json:"voice_catalog_id"`
	Voice                *store.Voice `json:"voice"`
	Model                *store.Model `json:"model"`
	// Metadata is merged into the agent's metadata.
	Metadata    map[string]any `json:"metadata"`
	MaxDuration *int           `json:"max_duration"`
	// VendorConfig is merged into the agent's vendor settings, keeping
	// only the settings passed to the voice provider.
	VendorConfig        map[string]any `json:"vendor_config"`
	TransferEnabled     *bool          `json:"transfer_enabled"`
	TransferPhoneNumber *string        `json:"transfer_phone_number"`
	// The owner's audit trail: accepted and listed as updated, not stored.
	OwnerChangeSummary *string `json:"owner_change_summary"`
	OwnerChangeReason  *string `json:"owner_change_reason"`
	OverrideOwnerEdits *bool   `json:"override_owner_edits"`
}

// Present is a member whose presence matters even when its value is null:
// decoding sets Sent when the member is in the JSON, whatever its value.
type Present struct {
	Sent  bool
	Value any
}

// Sent returns a Present sent with value v.
func Sent(v any) Present { return Present{Sent: true, Value: v} }

// UnmarshalJSON implements json.Unmarshaler; encoding/json calls it for
// a member in the JSON only, null included.
func (p *Present) UnmarshalJSON(b []byte) error {
	p.Sent = true
	return json.Unmarshal(b, &p.Value)
}

// Fields returns the names of the members p sets, sorted: the
// updated_fields of the response.
func (p *AgentPatch) Fields() []string {
	members := []struct {
		name string
		sent bool
	}{
		{"first_message", p.FirstMessage != nil},
		{"inbound_prompt", p.InboundPrompt != nil},
		{"max_duration", p.MaxDuration != nil},
		{"metadata", p.Metadata != nil},
		{"model", p.Model != nil},
		{"name", p.Name != nil},
		{"outbound_first_message", p.OutboundFirstMessage != nil},
		{"outbound_llm", p.OutboundLLM.Sent},
		{"outbound_prompt", p.OutboundPrompt != nil},
		{"override_owner_edits", p.OverrideOwnerEdits != nil},
		{"owner_change_reason", p.OwnerChangeReason != nil},
		{"owner_change_summary", p.OwnerChangeSummary != nil},
		{"sms_llm", p.SMSLLM.Sent},
		{"sms_prompt", p.SMSPrompt != nil},
		{"system_prompt", p.SystemPrompt != nil},
		{"transfer_enabled", p.TransferEnabled != nil},
		{"transfer_phone_number", p.TransferPhoneNumber != nil},
		{"vendor_config", p.VendorConfig != nil},
		{"voice", p.Voice != nil},
		{"voice_catalog_id", p.VoiceCatalogID != nil},
	}
	out := []string{}
	for _, m := range members {
		if m.sent {
			out = append(out, m.name)
		}
	}
	return out
}

// syncsProvider reports whether p changes what the voice provider uses.
func (p *AgentPatch) syncsProvider() bool {
	return p.Name != nil || p.InboundPrompt != nil || p.SystemPrompt != nil ||
		p.FirstMessage != nil || p.Voice != nil || p.VoiceCatalogID != nil || p.Model != nil ||
		p.VendorConfig != nil || p.MaxDuration != nil
}

func (s *Service) updateAgent(rc *httpapi.Ctx) (any, error) {
	var p AgentPatch
	if err := rc.Decode(&p); err != nil {
		return nil, err
	}
	var ref struct {
		ID string `json:"id"`
	}
	_ = httpapi.DecodeLoose(rc.Body, &ref)
	a, err := AgentOf(rc, ref.ID)
	if err != nil {
		return nil, err
	}
	return s.UpdateAgent(rc.Tx, rc.Now, a, p, voiceProviderFault(rc))
}

// voiceProviderFault returns the check of the voice provider's simulated
// failure for the request rc.
func voiceProviderFault(rc *httpapi.Ctx) func() *domain.Error {
	return func() *domain.Error { return rc.DependencyFault(admin.FaultTargetVoiceProvider) }
}

// UpdateAgent applies patch p to agent a at now and returns the response
// of PATCH /v1/agents. An unknown voice_catalog_id is refused (400, path
// voice_catalog_id) and nothing changes. A change the voice provider uses
// (name, inbound prompt, greeting, voice, model, vendor settings, maximum
// duration) is copied to the agent's assistant; when providerFault (nil:
// none) reports that the provider fails, the error is returned as a
// vendor_error and nothing changes. Metadata is merged, and of
// vendor_config only the settings passed to the provider are kept, the
// others named in ignored_vendor_config_keys.
func (s *Service) UpdateAgent(tx *platform.Tx, now time.Time, a *store.Agent, p AgentPatch, providerFault func() *domain.Error) (agents.Updated, error) {
	if p.VoiceCatalogID != nil {
		if _, ok := catalogVoice(*p.VoiceCatalogID); !ok {
			return agents.Updated{}, domain.InvalidField("voice_catalog_id", "unknown voice %q (see GET /v1/voices)", *p.VoiceCatalogID)
		}
	}
	syncs := p.syncsProvider()
	if syncs && providerFault != nil {
		if e := providerFault(); e != nil {
			e.Code = voiceagent.CodeVendorError
			e.Message = "the voice provider refused the update: " + e.Message
			return agents.Updated{}, e
		}
	}
	var ignored []string
	tx.Agents.Update(a, func(a *store.Agent) {
		val.Set(&a.Name, p.Name)
		val.Set(&a.InboundPrompt, p.SystemPrompt)
		val.Set(&a.InboundPrompt, p.InboundPrompt)
		val.Set(&a.OutboundPrompt, p.OutboundPrompt)
		val.Set(&a.SMSPrompt, p.SMSPrompt)
		val.Set(&a.FirstMessage, p.FirstMessage)
		val.Set(&a.OutboundFirstMessage, p.OutboundFirstMessage)
		if p.OutboundLLM.Sent {
			a.OutboundLLM = p.OutboundLLM.Value
		}
		if p.SMSLLM.Sent {
			a.SMSLLM = p.SMSLLM.Value
		}
		if p.VoiceCatalogID != nil {
			a.Voice, _ = catalogVoice(*p.VoiceCatalogID)
			a.VoiceCatalogID = *p.VoiceCatalogID
		}
		val.Set(&a.Voice, p.Voice)
		val.Set(&a.Model, p.Model)
		if p.Metadata != nil {
			if a.Metadata == nil {
				a.Metadata = map[string]any{}
			}
			maps.Copy(a.Metadata, p.Metadata)
		}
		val.Set(&a.MaxDuration, p.MaxDuration)
		if p.VendorConfig != nil {
			if a.VendorConfig == nil {
				a.VendorConfig = map[string]any{}
			}
			for k, v := range p.VendorConfig {
				if slices.Contains(vendorConfigKeys, k) {
					a.VendorConfig[k] = v
				} else {
					ignored = append(ignored, k)
				}
			}
			slices.Sort(ignored)
		}
		val.Set(&a.TransferEnabled, p.TransferEnabled)
		val.Set(&a.TransferPhoneNumber, p.TransferPhoneNumber)
		a.UpdatedAt = now.UTC()
	})
	if syncs {
		s.SyncAssistant(tx, a)
	}
	return agents.Updated{
		ID: a.ID, Name: a.Name, BusinessID: a.Owner, VendorAssistantID: a.VendorAssistantID,
		Updated: true, UpdatedFields: p.Fields(), IgnoredVendorConfigKeys: ignored,
	}, nil
}

func (s *Service) listVoices(rc *httpapi.Ctx) (any, error) {
	return voiceList{Voices: voiceCatalog}, nil
}

// CreateAssistant creates an agent's twin at the simulated voice provider.
// The agent is found by its assistant: create it before the agent is
// stored, or in Agents.Update.
func (s *Service) CreateAssistant(tx *platform.Tx, a *store.Agent) {
	a.VendorAssistantID = "asst_" + s.IDs.Token(12)
	tx.Assistants[a.VendorAssistantID] = &store.Assistant{ID: a.VendorAssistantID}
	s.SyncAssistant(tx, a)
}

// SyncAssistant copies what the provider uses (name, inbound prompt and
// greeting, voice, model, vendor settings) to the agent's assistant.
func (s *Service) SyncAssistant(tx *platform.Tx, a *store.Agent) {
	as, ok := tx.Assistants[a.VendorAssistantID]
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
	MaxDuration         int            `json:"max_duration"`
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
		PhoneNumber: val.Strp(a.PhoneNumber), Status: a.Status, CreatedAt: a.CreatedAt,
	}
}

// AgentDetail is an agent in GET /v1/agents?id=. The inbound prompt is read
// from the voice provider, as the real service does.
func AgentDetail(a *store.Agent) agentDetailView {
	return agentDetailView{
		AgentListView: AgentListItem(a),
		Prompts: map[string]any{
			"inbound":  map[string]any{"prompt": a.InboundPrompt, "llm": a.Model},
			"outbound": map[string]any{"prompt": val.Nullable(a.OutboundPrompt), "llm": orDefault(a.OutboundLLM, a.Model), "first_message": val.Nullable(a.OutboundFirstMessage)},
			"sms":      map[string]any{"prompt": val.Nullable(a.SMSPrompt), "llm": orDefault(a.SMSLLM, a.Model)},
		},
		Voice:               a.Voice,
		VoiceCatalogID:      val.Strp(a.VoiceCatalogID),
		Model:               a.Model,
		FirstMessage:        a.FirstMessage,
		Metadata:            maps.Clone(a.Metadata),
		MaxDuration:         a.MaxDuration,
		VendorConfig:        maps.Clone(a.VendorConfig),
		TransferEnabled:     a.TransferEnabled,
		TransferPhoneNumber: val.Strp(a.TransferPhoneNumber),
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
	tx := s.ReadTx()
	defer tx.End()
	return len(tx.Assistants)
}
