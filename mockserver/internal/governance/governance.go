package governance

import (
	"crypto/sha256"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/internal/wire"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// Intents of governed updates, and the states of a governed update.
const (
	intentAgentPatch       = "agent.patch"
	intentEmergencyAddress = "phone.emergency_address.set"
	intentTranscriptSink   = "transcripts.sink.configure"

	governedApplied  = "applied"
	governedPending  = "pending_approval"
	governedRejected = "rejected"
	governedFailed   = "failed"
)

// governedAuthority lists, per intent, the authority modes that apply a
// change directly; any other mode (none included) is rejected unless the
// request queues the change for approval.
var governedAuthority = map[string][]string{
	intentAgentPatch:       {"agent_asserted", "human_confirmed", "dashboard_session", "system_policy"},
	intentTranscriptSink:   {"human_confirmed", "dashboard_session", "system_policy"},
	intentEmergencyAddress: {"human_confirmed", "dashboard_session"},
}

// governedScope is the scope each intent needs on a key (sessions hold every
// scope).
var governedScope = map[string]string{
	intentAgentPatch:       wire.ScopeAgentsWrite,
	intentTranscriptSink:   wire.ScopeWorkspacesWrite,
	intentEmergencyAddress: wire.ScopeWorkspacesWrite,
}

// governedKnownFields are the schema's top-level properties; the others are
// kept as extra.
var governedKnownFields = []string{
	"intent", "business_id", "target", "payload", "idempotency_key", "actor", "authority",
	"dry_run", "queue_for_approval", "reason", "source_ref",
}

type governedBody struct {
	Intent           string         `json:"intent"`
	BusinessID       *string        `json:"business_id"`
	Target           map[string]any `json:"target"`
	Payload          map[string]any `json:"payload"`
	IdempotencyKey   *string        `json:"idempotency_key"`
	Actor            map[string]any `json:"actor"`
	Authority        map[string]any `json:"authority"`
	DryRun           bool           `json:"dry_run"`
	QueueForApproval bool           `json:"queue_for_approval"`
	Reason           *string        `json:"reason"`
	SourceRef        *string        `json:"source_ref"`
}

// governedTarget is what a governed update's target resolved to.
type governedTarget struct {
	business string
	agent    *store.Agent
	number   *store.Number
}

func (s *Service) governedUpdate(rc *httpapi.Ctx) (any, error) {
	var body governedBody
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	if need := governedScope[body.Intent]; !rc.Principal.Has(need) {
		return nil, httpapi.Forbidden("the intent " + body.Intent + " needs the scope " + need)
	}
	var sent map[string]any
	_ = httpapi.DecodeLoose(rc.Body, &sent)
	fp := sha256.Sum256(httpapi.MustJSON(sent)) // re-encoded: key order and spacing do not matter
	// replay finds the first outcome of the idempotency_key in a business.
	replay := func(business string) (v any, found bool, err error) {
		if body.DryRun {
			return nil, false, nil
		}
		g := rc.Store.GovernedByKey[business+"\x00"+*body.IdempotencyKey]
		if g == nil {
			return nil, false, nil
		}
		if g.Fingerprint != fp {
			return nil, true, httpapi.NewError(http.StatusConflict, wire.CodeIdempotencyConflict,
				"this idempotency_key was already used for a different governed update of this business")
		}
		return &httpapi.Respond{Status: g.AnswerStatus, Body: g.Answer, Header: http.Header{httpapi.HeaderIdempotentReplayed: {"true"}}}, true, nil
	}
	if body.BusinessID != nil {
		if _, err := rc.Business(*body.BusinessID); err != nil {
			return nil, err
		}
		if v, found, err := replay(*body.BusinessID); found {
			return v, err
		}
	}
	tgt, err := s.governedTargetOf(rc, &body)
	if err != nil {
		return nil, err
	}
	if body.BusinessID == nil {
		if v, found, err := replay(tgt.business); found {
			return v, err
		}
	}
	if body.Intent == intentAgentPatch {
		if err := agentPatchRequest(rc, tgt.agent.ID, body.Payload).DecodeAs("agentUpdate", nil); err != nil {
			return nil, underPayload(err)
		}
	}
	allowed, why, err := s.governedAllowed(rc, &body)
	if err != nil {
		return nil, err
	}
	decision := governedApplied
	switch {
	case body.QueueForApproval:
		decision = governedPending
	case !allowed:
		decision = governedRejected
	}
	if body.DryRun {
		out := map[string]any{
			"dry_run": true, "status": "dry_run", "would": decision, "intent": body.Intent,
			"business_id": tgt.business, "target": body.Target, "changes": s.governedChanges(rc.Store, &body, tgt),
			"authority_sufficient": allowed, "allowed_authority_modes": governedAuthority[body.Intent],
		}
		if why != "" {
			out["rejection_reason"] = why
		}
		return out, nil
	}

	g := &store.GovernedUpdate{
		Intent: body.Intent, Status: decision, IdempotencyKey: *body.IdempotencyKey, Fingerprint: fp,
		Target: body.Target, Payload: body.Payload, Actor: body.Actor, Authority: body.Authority,
		QueueForApproval: body.QueueForApproval, Reason: body.Reason, SourceRef: body.SourceRef,
	}
	for k, v := range sent {
		if !slices.Contains(governedKnownFields, k) {
			if g.Extra == nil {
				g.Extra = map[string]any{}
			}
			g.Extra[k] = v
		}
	}
	g.ID = s.IDs.UUID() // before the change, which records it as its update id
	if decision == governedApplied {
		// A failing dependency (the voice provider) is not an outcome: nothing
		// is stored, so a retry with the same key runs again.
		res, err := s.applyGoverned(rc, g, tgt)
		if err != nil {
			return nil, err
		}
		g.Result = res
	}
	rc.Store.GovernedUpdates.Insert(g, tgt.business, rc.Now)
	g.UpdatedAt = g.CreatedAt
	status := http.StatusOK
	var answer any = GovernedView(g)
	switch decision {
	case governedPending:
		status = http.StatusAccepted
	case governedRejected:
		g.Error = map[string]any{"code": wire.CodeForbidden, "message": why}
		e := httpapi.Forbidden(why).With("governed_update_id", g.ID).With("allowed_authority_modes", governedAuthority[g.Intent])
		status, answer = e.Status, json.RawMessage(httpapi.ErrorResponse(e).Body)
	}
	g.AnswerStatus, g.Answer = status, httpapi.MustJSON(answer)
	rc.Store.GovernedByKey[g.Owner+"\x00"+g.IdempotencyKey] = g
	return &httpapi.Respond{Status: status, Body: json.RawMessage(g.Answer)}, nil
}

// governedTargetOf resolves the target and the business of a request. A
// missing business_id is taken from the target, or is the key's only
// business.
func (s *Service) governedTargetOf(rc *httpapi.Ctx, b *governedBody) (governedTarget, error) {
	var t governedTarget
	switch b.Intent {
	case intentAgentPatch:
		a, err := telephony.AgentOf(rc, httpapi.Str(b.Target["agent_id"]))
		if err != nil {
			return t, err
		}
		t.agent, t.business = a, a.Owner
	case intentEmergencyAddress:
		id, phone := httpapi.Str(b.Target["number_id"]), httpapi.Str(b.Target["phone_number"])
		var n *store.Number
		if id != "" {
			n, _ = rc.Store.Numbers.Get(id)
		}
		if phone != "" {
			byPhone := rc.Store.NumbersByPhone[phone]
			if id != "" && byPhone != n {
				return t, httpapi.InvalidField("/target", "number_id and phone_number name different numbers")
			}
			n = byPhone
		}
		if n == nil || !rc.Principal.Reaches(n.Owner) {
			return t, httpapi.NotFound("number not found: " + id + phone)
		}
		t.number, t.business = n, n.Owner
	default:
		if b.BusinessID != nil {
			t.business = *b.BusinessID
		} else if len(rc.Principal.Businesses) == 1 {
			t.business = rc.Principal.Businesses[0]
		} else {
			return t, httpapi.InvalidField("/business_id", "is required: the key reaches %d businesses", len(rc.Principal.Businesses))
		}
	}
	if b.BusinessID != nil && *b.BusinessID != t.business {
		return t, httpapi.InvalidField("/business_id", "does not match the target's business (%s)", t.business)
	}
	return t, nil
}

// governedAllowed evaluates the authority: whether it applies the change
// directly, and why not. Malformed authority (human_confirmed without who
// and when, a confirmation in the future) is a 400.
func (s *Service) governedAllowed(rc *httpapi.Ctx, b *governedBody) (bool, string, error) {
	mode := "none"
	if m := httpapi.Str(b.Authority["mode"]); m != "" {
		mode = m
	}
	switch mode {
	case "human_confirmed":
		if httpapi.Str(b.Authority["confirmed_by"]) == "" {
			return false, "", httpapi.InvalidField("/authority/confirmed_by", "is required when the mode is human_confirmed")
		}
		at, err := time.Parse(time.RFC3339Nano, httpapi.Str(b.Authority["confirmed_at"]))
		if err != nil {
			return false, "", httpapi.InvalidField("/authority/confirmed_at", "is required when the mode is human_confirmed")
		}
		if at.After(rc.Now) {
			return false, "", httpapi.InvalidField("/authority/confirmed_at", "is in the future")
		}
	case "dashboard_session":
		if rc.Principal.Session == nil {
			return false, "authority mode dashboard_session needs a request made with a dashboard session, not a bearer key", nil
		}
	}
	if !slices.Contains(governedAuthority[b.Intent], mode) {
		return false, "authority mode " + mode + " cannot apply " + b.Intent + " directly; use one of " +
			strings.Join(governedAuthority[b.Intent], ", ") + " or queue_for_approval", nil
	}
	return true, "", nil
}

// applyGoverned makes the change of an applied governed update and returns
// its result.
func (s *Service) applyGoverned(rc *httpapi.Ctx, g *store.GovernedUpdate, t governedTarget) (any, error) {
	switch g.Intent {
	case intentAgentPatch:
		res, err := s.telephony.UpdateAgent(agentPatchRequest(rc, t.agent.ID, g.Payload))
		if err != nil {
			return nil, underPayload(err)
		}
		return res, nil
	case intentEmergencyAddress:
		ea := &store.EmergencyAddress{NumberID: t.number.ID, Address: maps.Clone(g.Payload), UpdatedAt: rc.Now.UTC(),
			UpdateID: g.ID, BusinessID: t.number.Owner}
		rc.Store.EmergencyAddresses[t.number.ID] = ea
		return map[string]any{"number_id": t.number.ID, "phone_number": t.number.PhoneNumber,
			"emergency_address": ea.Address, "updated_at": ea.UpdatedAt}, nil
	default:
		sink := &store.TranscriptSink{URL: httpapi.Str(g.Payload["url"]), Enabled: true, Format: "json",
			UpdatedAt: rc.Now.UTC(), UpdateID: g.ID}
		if v, ok := g.Payload["enabled"].(bool); ok {
			sink.Enabled = v
		}
		if f := httpapi.Str(g.Payload["format"]); f != "" {
			sink.Format = f
		}
		rc.Store.TranscriptSinks[t.business] = sink
		return map[string]any{"business_id": t.business, "transcript_sink": sink}, nil
	}
}

// governedChanges previews what a dry run would change: the current value
// and the new one.
func (s *Service) governedChanges(st *store.Store, b *governedBody, t governedTarget) map[string]any {
	switch b.Intent {
	case intentAgentPatch:
		fields := slices.Sorted(maps.Keys(b.Payload))
		return map[string]any{"agent_id": t.agent.ID, "fields": fields, "current": telephony.AgentDetail(t.agent)}
	case intentEmergencyAddress:
		var cur any
		if ea := st.EmergencyAddresses[t.number.ID]; ea != nil {
			cur = ea.Address
		}
		return map[string]any{"number_id": t.number.ID, "phone_number": t.number.PhoneNumber, "current": cur, "new": b.Payload}
	default:
		var cur any
		if sink := st.TranscriptSinks[t.business]; sink != nil {
			cur = sink
		}
		return map[string]any{"current": cur, "new": b.Payload}
	}
}

// agentPatchRequest is the request PATCH /v1/agents would be for an
// agent.patch payload: the same caller, the payload with the agent's id.
func agentPatchRequest(rc *httpapi.Ctx, agentID string, payload map[string]any) *httpapi.Ctx {
	body := maps.Clone(payload)
	body["id"] = agentID
	sub := *rc
	sub.Body = httpapi.MustJSON(body)
	sub.Route = &httpapi.Route{Method: http.MethodPatch, Path: "/api/v1/agents", Schema: "agentUpdate"}
	return &sub
}

// underPayload moves the field paths of an agent update failure under
// /payload, where the governed update carried them.
func underPayload(err error) error {
	e, ok := err.(*httpapi.Error)
	if !ok || len(e.Details) == 0 {
		return err
	}
	out := *e
	out.Details = make([]httpapi.FieldError, len(e.Details))
	for i, d := range e.Details {
		d.Path = "/payload" + strings.TrimSuffix(d.Path, "/")
		out.Details[i] = d
	}
	out.Message = "the agent.patch payload failed validation: " + out.Details[0].Path + ": " + out.Details[0].Message
	return &out
}

func (s *Service) getGovernedUpdates(rc *httpapi.Ctx) (any, error) {
	var match func(*store.GovernedUpdate) bool
	if status, intent := rc.Query("status"), rc.Query("intent"); status != "" || intent != "" {
		match = func(g *store.GovernedUpdate) bool {
			return (status == "" || g.Status == status) && (intent == "" || g.Intent == intent)
		}
	}
	return httpapi.ReadOrList(rc, rc.Store.GovernedUpdates, "governed update", match, GovernedView, func(items []GovernedUpdate, more bool) any {
		return governedList{GovernedUpdates: items, HasMore: more}
	})
}

// governedList is a page of GET /v1/governed-updates.
type governedList struct {
	GovernedUpdates []GovernedUpdate `json:"governed_updates"`
	HasMore         bool             `json:"has_more"`
}

// decideGovernedUpdate is a human's decision on a queued update (dashboard
// session only).
func (s *Service) decideGovernedUpdate(rc *httpapi.Ctx) (any, error) {
	var body struct {
		ID       string  `json:"id"`
		Decision string  `json:"decision"`
		Note     *string `json:"note"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	g, err := httpapi.Reachable(rc, rc.Store.GovernedUpdates, body.ID, "governed update")
	if err != nil {
		return nil, err
	}
	if g.Status != governedPending {
		return nil, httpapi.NewError(http.StatusConflict, wire.CodeConflict, "the governed update is "+g.Status+", not pending_approval")
	}
	// The decision, recorded in one change of the update once the
	// outcome is known.
	decide := func(status string, result any, failure map[string]any) (any, error) {
		rc.Store.GovernedUpdates.Update(g, func(g *store.GovernedUpdate) {
			g.DecidedBy, g.DecidedAt, g.DecisionNote = rc.Principal.User.ID, httpapi.UtcPtr(rc.Now), body.Note
			g.UpdatedAt = rc.Now.UTC()
			g.Status, g.Result, g.Error = status, result, failure
		})
		return GovernedView(g), nil
	}
	if body.Decision == "reject" {
		return decide(governedRejected, g.Result, g.Error)
	}
	var t governedTarget
	t.business = g.Owner
	var apiErr error
	switch g.Intent {
	case intentAgentPatch:
		t.agent, apiErr = telephony.AgentOf(rc, httpapi.Str(g.Target["agent_id"]))
	case intentEmergencyAddress:
		t, apiErr = s.governedTargetOf(rc, &governedBody{Intent: g.Intent, Target: g.Target})
	}
	var result any
	if apiErr == nil {
		result, apiErr = s.applyGoverned(rc, g, t)
	}
	if apiErr != nil {
		e, ok := apiErr.(*httpapi.Error)
		if !ok {
			return nil, apiErr
		}
		return decide(governedFailed, result, map[string]any{"code": e.Code, "message": e.Message})
	}
	return decide(governedApplied, result, g.Error)
}

// GovernedUpdate is a governed update as the API shows it (GET
// /v1/governed-updates, the answers of the submit and the decision),
// members in the order of the OpenAPI document's GovernedUpdate.
type GovernedUpdate struct {
	ID               string         `json:"id"`
	BusinessID       string         `json:"business_id"`
	Intent           string         `json:"intent"`
	Status           string         `json:"status"`
	DryRun           bool           `json:"dry_run"`
	IdempotencyKey   string         `json:"idempotency_key"`
	Target           map[string]any `json:"target"`
	Payload          map[string]any `json:"payload"`
	Actor            map[string]any `json:"actor"`
	Authority        map[string]any `json:"authority"`
	QueueForApproval bool           `json:"queue_for_approval"`
	Reason           *string        `json:"reason"`
	SourceRef        *string        `json:"source_ref"`
	Extra            map[string]any `json:"extra"`
	Result           any            `json:"result"`
	Error            map[string]any `json:"error"`
	DecidedBy        *string        `json:"decided_by"`
	DecidedAt        *time.Time     `json:"decided_at"`
	DecisionNote     *string        `json:"decision_note"`
	CreatedAt        time.Time      `json:"created_at"`
	UpdatedAt        time.Time      `json:"updated_at"`
}

// GovernedView is a governed update as the API shows it (dry_run is always
// false: a dry run is never stored). The view shares the update's maps and
// strings: it is encoded under the store lock.
func GovernedView(g *store.GovernedUpdate) GovernedUpdate {
	return GovernedUpdate{
		ID: g.ID, BusinessID: g.Owner, Intent: g.Intent, Status: g.Status,
		IdempotencyKey: g.IdempotencyKey, Target: g.Target, Payload: g.Payload,
		Actor: g.Actor, Authority: g.Authority, QueueForApproval: g.QueueForApproval,
		Reason: g.Reason, SourceRef: g.SourceRef, Extra: g.Extra, Result: g.Result,
		Error: g.Error, DecidedBy: httpapi.Strp(g.DecidedBy), DecidedAt: g.DecidedAt,
		DecisionNote: g.DecisionNote, CreatedAt: g.CreatedAt, UpdatedAt: g.UpdatedAt,
	}
}
