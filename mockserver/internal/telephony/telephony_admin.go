package telephony

import (
	"slices"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
)

// SMS consent states (POST /_mock/consent, Server.SetConsent).
const (
	// ConsentOptedIn means the number may be texted.
	ConsentOptedIn = store.ConsentOptedIn
	// ConsentOptedOut means the number replied STOP: texts are refused until it
	// texts START.
	ConsentOptedOut = store.ConsentOptedOut
	// ConsentNone means the number never gave consent: texts are refused.
	ConsentNone = store.ConsentNone
)

func (s *Service) adminInboundCall(rc *httpapi.Ctx) (any, error) {
	var in admin.InboundCall
	if err := rc.Decode(&in); err != nil {
		return nil, err
	}
	c, apiErr := s.inboundCallLocked(rc.Tx, in)
	if apiErr != nil {
		return nil, apiErr
	}
	return httpapi.Created(callDetail(rc.Tx, c)), nil
}

// InboundCall makes a caller ring a platform number (see the type
// admin.InboundCall and docs/mockserver.md, section Call states) and returns the
// call's id. Move the clock to let the call run.
func (s *Service) InboundCall(in admin.InboundCall) (string, error) {
	if err := httpapi.Validate("mockInboundCall", in); err != nil {
		return "", err
	}
	tx := s.WriteTx()
	defer tx.End()
	c, apiErr := s.inboundCallLocked(tx, in)
	if apiErr != nil {
		return "", apiErr
	}
	return c.ID, nil
}

type inboundSMSBody struct {
	To   string `json:"to"`
	From string `json:"from"`
	Body string `json:"body"`
}

func (s *Service) adminInboundSMS(rc *httpapi.Ctx) (any, error) {
	var in inboundSMSBody
	if err := rc.Decode(&in); err != nil {
		return nil, err
	}
	out, apiErr := s.inboundSMSLocked(rc.Tx, in.To, in.From, in.Body)
	if apiErr != nil {
		return nil, apiErr
	}
	return httpapi.Created(out), nil
}

// InboundSMS makes a person text a platform number: consent, opt-out
// (STOP) and opt-in (START) as docs/mockserver.md, section SMS, says.
func (s *Service) InboundSMS(to, from, body string) (admin.InboundSMSResult, error) {
	if err := httpapi.Validate("mockInboundSMS", inboundSMSBody{To: to, From: from, Body: body}); err != nil {
		return admin.InboundSMSResult{}, err
	}
	tx := s.WriteTx()
	defer tx.End()
	out, apiErr := s.inboundSMSLocked(tx, to, from, body)
	if apiErr != nil {
		return admin.InboundSMSResult{}, apiErr
	}
	return out, nil
}

type dncBody struct {
	Phone      string `json:"phone"`
	BusinessID string `json:"business_id,omitempty"`
	OnList     *bool  `json:"on_list,omitempty"`
}

func (s *Service) adminDNC(rc *httpapi.Ctx) (any, error) {
	var in dncBody
	if err := rc.Decode(&in); err != nil {
		return nil, err
	}
	on := in.OnList == nil || *in.OnList
	if err := s.setDNCLocked(rc.Tx, in.Phone, in.BusinessID, on); err != nil {
		return nil, err
	}
	return map[string]any{"phone": in.Phone, "business_id": val.Nullable(in.BusinessID), "on_list": on}, nil
}

func (s *Service) setDNCLocked(tx *platform.Tx, phone, businessID string, on bool) *domain.Error {
	if businessID != "" {
		if _, ok := tx.Businesses.Get(businessID); !ok {
			return domain.NotFound("business not found: " + businessID)
		}
	}
	tx.SetDNC(businessID, phone, on)
	return nil
}

// AddDNC puts a number on a business's do-not-call list, or on the national
// registry every business honours when businessID is "". Texts to it are
// refused with number_on_dnc; calls placed through the API are not checked
// (the spec leaves that to the caller).
func (s *Service) AddDNC(phone, businessID string) error { return s.setDNC(phone, businessID, true) }

// RemoveDNC takes a number off a do-not-call list (see AddDNC).
func (s *Service) RemoveDNC(phone, businessID string) error {
	return s.setDNC(phone, businessID, false)
}

func (s *Service) setDNC(phone, businessID string, on bool) error {
	if err := httpapi.Validate("mockDNC", dncBody{Phone: phone, BusinessID: businessID, OnList: &on}); err != nil {
		return err
	}
	tx := s.WriteTx()
	defer tx.End()
	if err := s.setDNCLocked(tx, phone, businessID, on); err != nil {
		return err
	}
	return nil
}

type consentBody struct {
	BusinessID string `json:"business_id"`
	Phone      string `json:"phone"`
	Status     string `json:"status"`
}

func (s *Service) adminSetConsent(rc *httpapi.Ctx) (any, error) {
	var in consentBody
	if err := rc.Decode(&in); err != nil {
		return nil, err
	}
	if _, ok := rc.Tx.Businesses.Get(in.BusinessID); !ok {
		return nil, domain.NotFound("business not found: " + in.BusinessID)
	}
	rc.Tx.SetConsent(in.BusinessID, in.Phone, in.Status)
	return in, nil
}

// SetConsent sets a number's SMS consent towards a business: ConsentOptedIn,
// ConsentOptedOut or ConsentNone.
func (s *Service) SetConsent(businessID, phone, status string) error {
	if err := httpapi.Validate("mockConsent", consentBody{BusinessID: businessID, Phone: phone, Status: status}); err != nil {
		return err
	}
	tx := s.WriteTx()
	defer tx.End()
	if _, ok := tx.Businesses.Get(businessID); !ok {
		return domain.NotFound("business not found: " + businessID)
	}
	tx.SetConsent(businessID, phone, status)
	return nil
}

// Consent returns a number's SMS consent towards a business.
func (s *Service) Consent(businessID, phone string) string {
	tx := s.ReadTx()
	defer tx.End()
	return tx.Consent(businessID, phone)
}

func (s *Service) adminGetConsent(rc *httpapi.Ctx) (any, error) {
	biz, err := rc.RequireQuery("business_id")
	if err != nil {
		return nil, err
	}
	phone, err := rc.RequireQuery("phone")
	if err != nil {
		return nil, err
	}
	return map[string]any{
		"business_id": biz, "phone": phone, "status": rc.Tx.Consent(biz, phone), "on_dnc": rc.Tx.OnDNC(biz, phone),
	}, nil
}

// ProviderCall returns what the simulated voice provider received for a
// call.
func (s *Service) ProviderCall(callID string) (admin.ProviderCall, bool) {
	tx := s.ReadTx()
	defer tx.End()
	c, ok := tx.Calls.Get(callID)
	if !ok {
		return admin.ProviderCall{}, false
	}
	return providerCallView(c), true
}

func providerCallView(c *store.Call) admin.ProviderCall {
	p := c.Provider
	return admin.ProviderCall{
		CallID: c.ID, AssistantID: p.AssistantID, From: c.From, To: c.To, FirstMessage: c.FirstMessage,
		Prompt: p.Prompt, Context: c.Context, Variables: p.Variables.Map(), MaxDuration: c.MaxDuration,
	}
}

func (s *Service) adminProviderCall(rc *httpapi.Ctx) (any, error) {
	id, err := rc.RequireQuery("call_id")
	if err != nil {
		return nil, err
	}
	c, ok := rc.Tx.Calls.Get(id)
	if !ok {
		return nil, domain.NotFound("call not found: " + id)
	}
	return providerCallView(c), nil
}

// PromptAudit returns the audit trail of an agent's prompt changes, oldest
// first.
func (s *Service) PromptAudit(agentID string) []admin.PromptAuditEntry {
	tx := s.ReadTx()
	defer tx.End()
	return promptAuditLocked(tx, agentID)
}

func promptAuditLocked(tx *platform.Tx, agentID string) []admin.PromptAuditEntry {
	out := []admin.PromptAuditEntry{}
	a, ok := tx.Agents.Get(agentID)
	if !ok {
		return out
	}
	for _, e := range tx.PromptAudits.Owned(a.Owner) {
		if e.AgentID == agentID {
			out = append(out, admin.PromptAuditEntry{
				ID: e.ID, AgentID: e.AgentID, BusinessID: e.Owner, Field: e.Field, OldValue: e.OldValue,
				NewValue: e.NewValue, Reason: e.Reason, ActorUserID: e.ActorUser, ActorKeyPrefix: e.ActorKey,
				CreatedAt: e.CreatedAt,
			})
		}
	}
	return out
}

func (s *Service) adminPromptAudit(rc *httpapi.Ctx) (any, error) {
	id, err := rc.RequireQuery("agent_id")
	if err != nil {
		return nil, err
	}
	return map[string]any{"entries": promptAuditLocked(rc.Tx, id)}, nil
}

// MinutesUsed returns the minutes a business's calls used (finished calls'
// durations, each rounded up to a whole minute).
func (s *Service) MinutesUsed(businessID string) int {
	tx := s.ReadTx()
	defer tx.End()
	return tx.MinutesUsed(businessID)
}

// callStates are the values of GET /_mock/calls?status=: a call state, or
// active for the calls still running (queued, ringing, in progress).
var callStates = []string{"active", store.CallQueued, store.CallRinging, store.CallInProgress, store.CallCompleted, store.CallFailed, store.CallEnded, store.CallNoAnswer}

// activeCall reports whether a call is still running.
func activeCall(c *store.Call) bool {
	return c.Status == store.CallQueued || c.Status == store.CallRinging || c.Status == store.CallInProgress
}

// adminCalls is GET /_mock/calls: the calls of every tenant (or of one
// business), newest first, as GET /v1/calls?id= shows each; for the
// dashboard and for suites that watch calls across accounts.
func (s *Service) adminCalls(rc *httpapi.Ctx) (any, error) {
	limit, err := rc.IntQuery("limit", 50, 1, 500)
	if err != nil {
		return nil, err
	}
	status := rc.Query("status")
	if status != "" && !slices.Contains(callStates, status) {
		return nil, domain.InvalidField("status", "must be one of %s", strings.Join(callStates, ", "))
	}
	var tenant string
	if id := rc.Query("business_id"); id != "" {
		// Any business of a tenant selects the tenant's calls.
		if tenant = rc.Tx.TenantOf(id); tenant == "" {
			return nil, domain.NotFound("business not found: " + id)
		}
	}
	page, more := rc.Tx.Calls.Page(rc.Tx.Calls.Owners(), time.Time{}, limit, func(c *store.Call) bool {
		return (tenant == "" || rc.Tx.TenantOf(c.Owner) == tenant) &&
			(status == "" || c.Status == status || (status == "active" && activeCall(c)))
	})
	out := make([]CallDetail, len(page))
	for i, c := range page {
		out[i] = callDetail(rc.Tx, c)
	}
	return map[string]any{"calls": out, "has_more": more}, nil
}
