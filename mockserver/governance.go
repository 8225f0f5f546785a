package mockserver

import (
	"crypto/sha256"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
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
	intentAgentPatch:       "agents:write",
	intentTranscriptSink:   "workspaces:write",
	intentEmergencyAddress: "workspaces:write",
}

// governedKnownFields are the schema's top-level properties; the others are
// kept as extra.
var governedKnownFields = []string{
	"intent", "business_id", "target", "payload", "idempotency_key", "actor", "authority",
	"dry_run", "queue_for_approval", "reason", "source_ref",
}

func (s *Server) governanceRoutes() []*route {
	return []*route{
		{method: http.MethodPost, path: "/api/v1/governed-updates", auth: authKeyOrSession,
			scope: anyOf(scope("agents:write"), scope("workspaces:write")), schema: "governedUpdateRequest", handle: s.governedUpdate},
		{method: http.MethodGet, path: "/api/v1/governed-updates", auth: authKeyOrSession,
			scope: anyOf(scope("agents:read"), scope("workspaces:read")), handle: s.getGovernedUpdates},
		{method: http.MethodPost, path: "/api/v1/governed-updates/decide", auth: authSession,
			schema: "governedUpdateDecision", handle: s.decideGovernedUpdate},
		{method: http.MethodPost, path: "/api/v1/approval-requests", scope: scope("approvals:write"),
			schema: "approvalChannelRequest", handle: s.createApprovalRequest},
		{method: http.MethodGet, path: "/api/v1/approval-requests", scope: scope("approvals:write"), handle: s.getApprovalRequests},
	}
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

func (s *Server) governedUpdate(rc *reqCtx) (any, error) {
	var body governedBody
	if err := rc.decode(&body); err != nil {
		return nil, err
	}
	if need := governedScope[body.Intent]; !rc.p.has(need) {
		return nil, errForbidden("the intent " + body.Intent + " needs the scope " + need)
	}
	var sent map[string]any
	_ = decodeLoose(rc.body, &sent)
	fp := sha256.Sum256(mustJSON(sent)) // re-encoded: key order and spacing do not matter
	// replay finds the first outcome of the idempotency_key in a business.
	replay := func(business string) (v any, found bool, err error) {
		if body.DryRun {
			return nil, false, nil
		}
		g := rc.st.GovernedByKey[business+"\x00"+*body.IdempotencyKey]
		if g == nil {
			return nil, false, nil
		}
		if g.Fingerprint != fp {
			return nil, true, newError(http.StatusConflict, codeIdempotencyConflict,
				"this idempotency_key was already used for a different governed update of this business")
		}
		return &respond{status: g.AnswerStatus, body: g.Answer, header: http.Header{headerIdempotentReplayed: {"true"}}}, true, nil
	}
	if body.BusinessID != nil {
		if _, err := rc.business(*body.BusinessID); err != nil {
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
		if err := agentPatchRequest(rc, tgt.agent.ID, body.Payload).decodeAs("agentUpdate", nil); err != nil {
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
			"business_id": tgt.business, "target": body.Target, "changes": s.governedChanges(rc.st, &body, tgt),
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
	g.ID = s.ids.uuid()
	g.Owner = tgt.business
	if decision == governedApplied {
		// A failing dependency (the voice provider) is not an outcome: nothing
		// is stored, so a retry with the same key runs again.
		res, err := s.applyGoverned(rc, g, tgt)
		if err != nil {
			return nil, err
		}
		g.Result = res
	}
	g.CreatedAt = rc.st.GovernedUpdates.Stamp(rc.now)
	g.UpdatedAt = g.CreatedAt
	status := http.StatusOK
	var answer any = governedView(g)
	switch decision {
	case governedPending:
		status = http.StatusAccepted
	case governedRejected:
		g.Error = map[string]any{"code": codeForbidden, "message": why}
		e := errForbidden(why).with("governed_update_id", g.ID).with("allowed_authority_modes", governedAuthority[g.Intent])
		status, answer = e.status, json.RawMessage(errorResponse(e).body)
	}
	g.AnswerStatus, g.Answer = status, mustJSON(answer)
	rc.st.GovernedUpdates.Put(g)
	rc.st.GovernedByKey[g.Owner+"\x00"+g.IdempotencyKey] = g
	return &respond{status: status, body: json.RawMessage(g.Answer)}, nil
}

// governedTargetOf resolves the target and the business of a request. A
// missing business_id is taken from the target, or is the key's only
// business.
func (s *Server) governedTargetOf(rc *reqCtx, b *governedBody) (governedTarget, error) {
	var t governedTarget
	switch b.Intent {
	case intentAgentPatch:
		a, err := agentOf(rc, str(b.Target["agent_id"]))
		if err != nil {
			return t, err
		}
		t.agent, t.business = a, a.Owner
	case intentEmergencyAddress:
		id, phone := str(b.Target["number_id"]), str(b.Target["phone_number"])
		var n *store.Number
		if id != "" {
			n, _ = rc.st.Numbers.Get(id)
		}
		if phone != "" {
			byPhone := rc.st.NumbersByPhone[phone]
			if id != "" && byPhone != n {
				return t, errInvalidField("/target", "number_id and phone_number name different numbers")
			}
			n = byPhone
		}
		if n == nil || !rc.p.reaches(n.Owner) {
			return t, errNotFound("number not found: " + id + phone)
		}
		t.number, t.business = n, n.Owner
	default:
		if b.BusinessID != nil {
			t.business = *b.BusinessID
		} else if len(rc.p.businesses) == 1 {
			t.business = rc.p.businesses[0]
		} else {
			return t, errInvalidField("/business_id", "is required: the key reaches %d businesses", len(rc.p.businesses))
		}
	}
	if b.BusinessID != nil && *b.BusinessID != t.business {
		return t, errInvalidField("/business_id", "does not match the target's business (%s)", t.business)
	}
	return t, nil
}

// governedAllowed evaluates the authority: whether it applies the change
// directly, and why not. Malformed authority (human_confirmed without who
// and when, a confirmation in the future) is a 400.
func (s *Server) governedAllowed(rc *reqCtx, b *governedBody) (bool, string, error) {
	mode := "none"
	if m := str(b.Authority["mode"]); m != "" {
		mode = m
	}
	switch mode {
	case "human_confirmed":
		if str(b.Authority["confirmed_by"]) == "" {
			return false, "", errInvalidField("/authority/confirmed_by", "is required when the mode is human_confirmed")
		}
		at, err := time.Parse(time.RFC3339Nano, str(b.Authority["confirmed_at"]))
		if err != nil {
			return false, "", errInvalidField("/authority/confirmed_at", "is required when the mode is human_confirmed")
		}
		if at.After(rc.now) {
			return false, "", errInvalidField("/authority/confirmed_at", "is in the future")
		}
	case "dashboard_session":
		if rc.p.session == nil {
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
func (s *Server) applyGoverned(rc *reqCtx, g *store.GovernedUpdate, t governedTarget) (any, error) {
	switch g.Intent {
	case intentAgentPatch:
		res, err := s.updateAgent(agentPatchRequest(rc, t.agent.ID, g.Payload))
		if err != nil {
			return nil, underPayload(err)
		}
		return res, nil
	case intentEmergencyAddress:
		ea := &store.EmergencyAddress{NumberID: t.number.ID, Address: maps.Clone(g.Payload), UpdatedAt: rc.now.UTC(),
			UpdateID: g.ID, BusinessID: t.number.Owner}
		rc.st.EmergencyAddresses[t.number.ID] = ea
		return map[string]any{"number_id": t.number.ID, "phone_number": t.number.PhoneNumber,
			"emergency_address": ea.Address, "updated_at": ea.UpdatedAt}, nil
	default:
		sink := &store.TranscriptSink{URL: str(g.Payload["url"]), Enabled: true, Format: "json",
			UpdatedAt: rc.now.UTC(), UpdateID: g.ID}
		if v, ok := g.Payload["enabled"].(bool); ok {
			sink.Enabled = v
		}
		if f := str(g.Payload["format"]); f != "" {
			sink.Format = f
		}
		rc.st.TranscriptSinks[g.Owner] = sink
		return map[string]any{"business_id": g.Owner, "transcript_sink": sink}, nil
	}
}

// governedChanges previews what a dry run would change: the current value
// and the new one.
func (s *Server) governedChanges(st *store.Store, b *governedBody, t governedTarget) map[string]any {
	switch b.Intent {
	case intentAgentPatch:
		fields := slices.Sorted(maps.Keys(b.Payload))
		return map[string]any{"agent_id": t.agent.ID, "fields": fields, "current": agentDetail(t.agent)}
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
func agentPatchRequest(rc *reqCtx, agentID string, payload map[string]any) *reqCtx {
	body := maps.Clone(payload)
	body["id"] = agentID
	sub := *rc
	sub.body = mustJSON(body)
	sub.route = &route{method: http.MethodPatch, path: "/api/v1/agents", schema: "agentUpdate"}
	return &sub
}

// underPayload moves the field paths of an agent update failure under
// /payload, where the governed update carried them.
func underPayload(err error) error {
	e, ok := err.(*apiError)
	if !ok || len(e.details) == 0 {
		return err
	}
	out := *e
	out.details = make([]fieldError, len(e.details))
	for i, d := range e.details {
		d.Path = "/payload" + strings.TrimSuffix(d.Path, "/")
		out.details[i] = d
	}
	out.message = "the agent.patch payload failed validation: " + out.details[0].Path + ": " + out.details[0].Message
	return &out
}

func (s *Server) getGovernedUpdates(rc *reqCtx) (any, error) {
	var match func(*store.GovernedUpdate) bool
	if status, intent := rc.query("status"), rc.query("intent"); status != "" || intent != "" {
		match = func(g *store.GovernedUpdate) bool {
			return (status == "" || g.Status == status) && (intent == "" || g.Intent == intent)
		}
	}
	return readOrList(rc, rc.st.GovernedUpdates, "governed update", "governed_updates", match, governedView)
}

// decideGovernedUpdate is a human's decision on a queued update (dashboard
// session only).
func (s *Server) decideGovernedUpdate(rc *reqCtx) (any, error) {
	var body struct {
		ID       string  `json:"id"`
		Decision string  `json:"decision"`
		Note     *string `json:"note"`
	}
	if err := rc.decode(&body); err != nil {
		return nil, err
	}
	g, err := reachable(rc, rc.st.GovernedUpdates, body.ID, "governed update")
	if err != nil {
		return nil, err
	}
	if g.Status != governedPending {
		return nil, newError(http.StatusConflict, codeConflict, "the governed update is "+g.Status+", not pending_approval")
	}
	g.DecidedBy, g.DecidedAt, g.DecisionNote = rc.p.user.ID, utcPtr(rc.now), body.Note
	g.UpdatedAt = rc.now.UTC()
	if body.Decision == "reject" {
		g.Status = governedRejected
		return governedView(g), nil
	}
	var t governedTarget
	t.business = g.Owner
	var apiErr error
	switch g.Intent {
	case intentAgentPatch:
		t.agent, apiErr = agentOf(rc, str(g.Target["agent_id"]))
	case intentEmergencyAddress:
		t, apiErr = s.governedTargetOf(rc, &governedBody{Intent: g.Intent, Target: g.Target})
	}
	if apiErr == nil {
		g.Result, apiErr = s.applyGoverned(rc, g, t)
	}
	if apiErr != nil {
		e, ok := apiErr.(*apiError)
		if !ok {
			return nil, apiErr
		}
		g.Status, g.Error = governedFailed, map[string]any{"code": e.code, "message": e.message}
		return governedView(g), nil
	}
	g.Status = governedApplied
	return governedView(g), nil
}

// governedView is a governed update as the API shows it.
func governedView(g *store.GovernedUpdate) map[string]any {
	return map[string]any{
		"id": g.ID, "business_id": g.Owner, "intent": g.Intent, "status": g.Status, "dry_run": false,
		"idempotency_key": g.IdempotencyKey, "target": g.Target, "payload": g.Payload,
		"actor": g.Actor, "authority": g.Authority, "queue_for_approval": g.QueueForApproval,
		"reason": g.Reason, "source_ref": g.SourceRef, "extra": g.Extra, "result": g.Result,
		"error": g.Error, "decided_by": nullable(g.DecidedBy), "decided_at": g.DecidedAt,
		"decision_note": g.DecisionNote, "created_at": g.CreatedAt, "updated_at": g.UpdatedAt,
	}
}
