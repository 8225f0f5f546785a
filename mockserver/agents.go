package mockserver

import (
	"maps"
	"net/http"
	"slices"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// Defaults of a new agent (spec: the voice provider's default voice, a
// standard third-party model at temperature 0.7).
var (
	defaultVoice = store.Voice{Provider: "11labs", VoiceID: "sarah"}
	defaultModel = store.Model{Provider: "openai", Model: "gpt-4o-mini", Temperature: 0.7}
)

// defaultGreeting is the first message of an agent that sets none.
const defaultGreeting = "Hello! How can I help you today?"

// voiceCatalog is GET /v1/voices: the voices voice_catalog_id may name.
var voiceCatalog = []map[string]any{
	{"id": "sarah", "name": "Sarah", "provider": "11labs", "voiceId": "sarah", "gender": "female", "accent": "american", "language": "en-US"},
	{"id": "james", "name": "James", "provider": "11labs", "voiceId": "james", "gender": "male", "accent": "british", "language": "en-GB"},
	{"id": "maria", "name": "Maria", "provider": "11labs", "voiceId": "maria", "gender": "female", "accent": "mexican", "language": "es-MX"},
	{"id": "alloy", "name": "Alloy", "provider": "openai", "voiceId": "alloy", "gender": "neutral", "accent": "american", "language": "en-US"},
	{"id": "nova", "name": "Nova", "provider": "openai", "voiceId": "nova", "gender": "female", "accent": "american", "language": "en-US"},
	{"id": "onyx", "name": "Onyx", "provider": "openai", "voiceId": "onyx", "gender": "male", "accent": "american", "language": "en-US"},
}

func catalogVoice(id string) (store.Voice, bool) {
	for _, v := range voiceCatalog {
		if v["id"] == id {
			return store.Voice{Provider: v["provider"].(string), VoiceID: v["voiceId"].(string)}, true
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

func (s *Server) agentRoutes() []*route {
	return []*route{
		{method: http.MethodGet, path: "/api/v1/agents", scope: scope("agents:read"), handle: s.getAgents},
		{method: http.MethodPost, path: "/api/v1/agents", scope: scope("agents:write"), schema: "agentCreate", handle: s.createAgent},
		{method: http.MethodPatch, path: "/api/v1/agents", scope: scope("agents:write"), schema: "agentUpdate", handle: s.updateAgent},
		{method: http.MethodGet, path: "/api/v1/voices", scope: scope("agents:read"), handle: s.listVoices},
	}
}

// agentOf returns an agent the caller reaches, or 404 (absent and not
// accessible look the same).
func agentOf(rc *reqCtx, id string) (*store.Agent, error) {
	return reachable(rc, rc.st.Agents, id, "agent")
}

func (s *Server) getAgents(rc *reqCtx) (any, error) {
	if id := rc.query("id"); id != "" {
		a, err := agentOf(rc, id)
		if err != nil {
			return nil, err
		}
		return agentDetail(a), nil
	}
	owners, err := rc.scopedBusinesses()
	if err != nil {
		return nil, err
	}
	out := []agentListView{}
	rc.st.Agents.Scan(owners, zeroTime, func(a *store.Agent) bool {
		out = append(out, agentListItem(a))
		return true
	})
	return listAnswer[agentListView]{key: "agents", items: out}, nil
}

func (s *Server) createAgent(rc *reqCtx) (any, error) {
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
	if err := rc.decode(&body); err != nil {
		return nil, err
	}
	if _, err := rc.business(body.BusinessID); err != nil {
		return nil, err
	}
	a := &store.Agent{
		Name:           body.Name,
		Status:         "active",
		InboundPrompt:  body.SystemPrompt,
		FirstMessage:   defaultGreeting,
		Voice:          defaultVoice,
		Model:          defaultModel,
		Metadata:       map[string]any{},
		LeadCollection: true,
	}
	if body.FirstMessage != nil {
		a.FirstMessage = *body.FirstMessage
	}
	if body.VoiceCatalogID != "" {
		v, ok := catalogVoice(body.VoiceCatalogID)
		if !ok {
			return nil, errInvalidField("voice_catalog_id", "unknown voice %q (see GET /v1/voices)", body.VoiceCatalogID)
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
	if e := rc.dependencyFault(FaultTargetVoiceProvider); e != nil {
		e.code = codeVendorError
		e.message = "the voice provider refused the assistant: " + e.message
		return nil, e
	}
	a.ID = s.ids.uuid()
	a.Owner = body.BusinessID
	s.createAssistant(rc.st, a)
	if e := rc.dependencyFault(FaultTargetStorage); e != nil {
		// Storing failed: remove the assistant created at the provider.
		delete(rc.st.Assistants, a.VendorAssistantID)
		return nil, newError(http.StatusInternalServerError, codeInternalError,
			"storing the agent failed; the assistant created at the voice provider was removed")
	}
	a.CreatedAt = rc.st.Agents.Stamp(rc.now)
	a.UpdatedAt = a.CreatedAt
	rc.st.Agents.Put(a)
	return created(map[string]any{
		"id": a.ID, "name": a.Name, "business_id": a.Owner,
		"vendor_assistant_id": a.VendorAssistantID, "created_at": a.CreatedAt,
	}), nil
}

func (s *Server) updateAgent(rc *reqCtx) (any, error) {
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
	if err := rc.decode(&body); err != nil {
		return nil, err
	}
	var sent map[string]any
	_ = decodeLoose(rc.body, &sent)
	a, err := agentOf(rc, body.ID)
	if err != nil {
		return nil, err
	}
	if body.VoiceCatalogID != nil {
		if _, ok := catalogVoice(*body.VoiceCatalogID); !ok {
			return nil, errInvalidField("voice_catalog_id", "unknown voice %q (see GET /v1/voices)", *body.VoiceCatalogID)
		}
	}
	syncsProvider := body.Name != nil || body.InboundPrompt != nil || body.SystemPrompt != nil ||
		body.FirstMessage != nil || body.Voice != nil || body.VoiceCatalogID != nil || body.Model != nil ||
		body.VendorConfig != nil || body.MaxDuration != nil
	if syncsProvider {
		if e := rc.dependencyFault(FaultTargetVoiceProvider); e != nil {
			e.code = codeVendorError
			e.message = "the voice provider refused the update: " + e.message
			return nil, e
		}
	}
	set(&a.Name, body.Name)
	set(&a.InboundPrompt, body.SystemPrompt) // legacy alias; inbound_prompt wins
	set(&a.InboundPrompt, body.InboundPrompt)
	set(&a.OutboundPrompt, body.OutboundPrompt)
	set(&a.SMSPrompt, body.SMSPrompt)
	set(&a.FirstMessage, body.FirstMessage)
	set(&a.OutboundFirstMessage, body.OutboundFirstMessage)
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
	var ignored []string
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
	set(&a.TransferPhoneNumber, body.TransferPhoneNumber)
	a.UpdatedAt = rc.now.UTC()
	if syncsProvider {
		s.syncAssistant(rc.st, a)
	}
	fields := make([]string, 0, len(sent))
	for k := range sent {
		if k != "id" {
			fields = append(fields, k)
		}
	}
	slices.Sort(fields)
	out := map[string]any{
		"id": a.ID, "name": a.Name, "business_id": a.Owner,
		"vendor_assistant_id": a.VendorAssistantID, "updated": true, "updated_fields": fields,
	}
	if len(ignored) > 0 {
		out["ignored_vendor_config_keys"] = ignored
	}
	return out, nil
}

func (s *Server) listVoices(rc *reqCtx) (any, error) {
	return map[string]any{"voices": voiceCatalog}, nil
}

// createAssistant creates an agent's twin at the simulated voice provider.
func (s *Server) createAssistant(st *store.Store, a *store.Agent) {
	a.VendorAssistantID = "asst_" + s.ids.token(12)
	st.Assistants[a.VendorAssistantID] = &store.Assistant{ID: a.VendorAssistantID}
	s.syncAssistant(st, a)
}

// syncAssistant copies what the provider uses (name, inbound prompt and
// greeting, voice, model, vendor settings) to the agent's assistant.
func (s *Server) syncAssistant(st *store.Store, a *store.Agent) {
	as, ok := st.Assistants[a.VendorAssistantID]
	if !ok {
		return
	}
	as.Name, as.Prompt, as.FirstMessage = a.Name, a.InboundPrompt, a.FirstMessage
	as.Voice, as.Model, as.MaxDuration = a.Voice, a.Model, a.MaxDuration
	as.VendorConfig = maps.Clone(a.VendorConfig)
}

// agentListView is an agent in GET /v1/agents; it writes its own JSON.
type agentListView struct{ agentFields }

// agentFields are the members of an agent's list form. (The detail view
// embeds these, not agentListView, so that it does not inherit the list
// view's appendJSON.)
type agentFields struct {
	ID                string  `json:"id"`
	Name              string  `json:"name"`
	BusinessID        string  `json:"business_id"`
	VendorAssistantID string  `json:"vendor_assistant_id"`
	PhoneNumber       *string `json:"phone_number"`
	Status            string  `json:"status"`
	CreatedAt         stamp   `json:"created_at"`
}

// agentDetailView is an agent in GET /v1/agents?id=.
type agentDetailView struct {
	agentFields
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
	UpdatedAt           stamp          `json:"updated_at"`
}

func (v agentListView) appendJSON(b []byte) []byte {
	b = append(b, `{"id":`...)
	b = appendJSONString(b, v.ID)
	b = append(b, `,"name":`...)
	b = appendJSONString(b, v.Name)
	b = append(b, `,"business_id":`...)
	b = appendJSONString(b, v.BusinessID)
	b = append(b, `,"vendor_assistant_id":`...)
	b = appendJSONString(b, v.VendorAssistantID)
	b = append(b, `,"phone_number":`...)
	b = appendNullString(b, v.PhoneNumber)
	b = append(b, `,"status":`...)
	b = appendJSONString(b, v.Status)
	b = append(b, `,"created_at":`...)
	b = appendJSONTime(b, time.Time(v.CreatedAt))
	return append(b, '}')
}

// agentListItem is an agent in GET /v1/agents.
func agentListItem(a *store.Agent) agentListView {
	return agentListView{agentFields{
		ID: a.ID, Name: a.Name, BusinessID: a.Owner, VendorAssistantID: a.VendorAssistantID,
		PhoneNumber: strp(a.PhoneNumber), Status: a.Status, CreatedAt: stamp(a.CreatedAt),
	}}
}

// agentDetail is an agent in GET /v1/agents?id=. The inbound prompt is read
// from the voice provider, as the real service does.
func agentDetail(a *store.Agent) agentDetailView {
	return agentDetailView{
		agentFields: agentListItem(a).agentFields,
		Prompts: map[string]any{
			"inbound":  map[string]any{"prompt": a.InboundPrompt, "llm": a.Model},
			"outbound": map[string]any{"prompt": nullable(a.OutboundPrompt), "llm": orDefault(a.OutboundLLM, a.Model), "first_message": nullable(a.OutboundFirstMessage)},
			"sms":      map[string]any{"prompt": nullable(a.SMSPrompt), "llm": orDefault(a.SMSLLM, a.Model)},
		},
		Voice:               a.Voice,
		VoiceCatalogID:      strp(a.VoiceCatalogID),
		Model:               a.Model,
		FirstMessage:        a.FirstMessage,
		Metadata:            maps.Clone(a.Metadata),
		MaxDuration:         a.MaxDuration,
		VendorConfig:        maps.Clone(a.VendorConfig),
		TransferEnabled:     a.TransferEnabled,
		TransferPhoneNumber: strp(a.TransferPhoneNumber),
		LeadCollection:      a.LeadCollection,
		UpdatedAt:           stamp(a.UpdatedAt),
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
func (s *Server) ProviderAssistants() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.st.Assistants)
}
