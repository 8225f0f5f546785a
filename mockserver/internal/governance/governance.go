package governance

import (
	"crypto/sha256"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"strings"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
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
	intentAgentPatch:       string(voiceagent.ScopeAgentsWrite),
	intentTranscriptSink:   string(voiceagent.ScopeWorkspacesWrite),
	intentEmergencyAddress: string(voiceagent.ScopeWorkspacesWrite),
}

// governedKnownFields are the schema's top-level properties; the others are
// kept as extra.
var governedKnownFields = []string{
	"intent", "business_id", "target", "payload", "idempotency_key", "actor", "authority",
	"dry_run", "queue_for_approval", "reason", "source_ref",
}

// GovernedRequest is a governed update as POST /v1/governed-updates
// sends it.
type GovernedRequest struct {
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
	// Sent is the body's members as sent: the idempotency key's
	// fingerprint is that of their JSON, and those the schema does not
	// name are kept as the update's extra.
	Sent map[string]any `json:"-"`
}

// governedTarget is what a governed update's target resolved to.
type governedTarget struct {
	business string
	agent    *store.Agent
	number   *store.Number
}

// Submitted is the outcome of a governed update's submission.
type Submitted struct {
	// Update is the stored update: this submission's, or the earlier one
	// with the same idempotency key when Replayed. Nil for a dry run.
	Update   *store.GovernedUpdate
	Replayed bool
	// Preview is the response of a dry run, nil otherwise.
	Preview map[string]any
	// Decision is the outcome of the stored update when it was submitted:
	// governedApplied, governedPending or governedRejected.
	Decision string
	// Body is the stored update as it was when it was submitted (applied
	// or pending approval), which a replay shows again.
	Body json.RawMessage
	// Rejection is the error of an update rejected when it was submitted
	// (nil otherwise): a replay gets it again.
	Rejection *domain.Error
}

func (s *Service) governedUpdate(rc *httpapi.Ctx) (any, error) {
	var req GovernedRequest
	if err := rc.Decode(&req); err != nil {
		return nil, err
	}
	_ = httpapi.DecodeLoose(rc.Body, &req.Sent)
	out, err := s.Submit(rc.Tx, rc.Now, rc.Actor(), &req, voiceProviderFault(rc))
	switch {
	case err != nil:
		return nil, err
	case out.Preview != nil:
		return out.Preview, nil
	}
	rs := &httpapi.Respond{Status: http.StatusOK, Body: out.Body}
	switch {
	case out.Rejection != nil:
		// The error response, as a response: a replay of it is marked.
		e := httpapi.ErrorResponse(out.Rejection)
		rs.Status, rs.Body = e.Status, json.RawMessage(e.Body)
	case out.Decision == governedPending:
		rs.Status = http.StatusAccepted
	}
	if out.Replayed {
		rs.Header = http.Header{httpapi.HeaderIdempotentReplayed: {"true"}}
	}
	return rs, nil
}

// voiceProviderFault returns the check of the voice provider's simulated
// failure for the request rc.
func voiceProviderFault(rc *httpapi.Ctx) func() *domain.Error {
	return func() *domain.Error { return rc.DependencyFault(admin.FaultTargetVoiceProvider) }
}

// Submit submits governed update req of who at now. The key needs the
// intent's scope; the target must be one who has access to (its business that
// of business_id when sent); an agent.patch payload must be a PATCH
// /v1/agents body (its errors under /payload). The authority decides the
// outcome (Decision): queued for approval when the request asks, applied
// when its mode may apply the intent directly, else rejected (forbidden,
// the update stored with its error, which is the Rejection). A dry run stores nothing and previews
// the change. A stored outcome is kept under its idempotency key: the same
// request again replays it, another request with the key is a conflict.
// A failure of the voice provider (providerFault, nil: none) while
// applying is returned, and nothing is stored, so that a retry runs again.
func (s *Service) Submit(tx *platform.Tx, now time.Time, who *domain.Actor, req *GovernedRequest, providerFault func() *domain.Error) (Submitted, error) {
	if need := governedScope[req.Intent]; !who.Has(voiceagent.Scope(need)) {
		return Submitted{}, domain.Forbidden("the intent " + req.Intent + " needs the scope " + need)
	}
	fp := sha256.Sum256(jsonview.MustMarshal(req.Sent)) // re-encoded: key order and spacing do not matter
	// replay finds the first outcome of the idempotency_key in a business.
	replay := func(business string) (Submitted, bool, error) {
		if req.DryRun {
			return Submitted{}, false, nil
		}
		g := tx.GovernedByKey[business+"\x00"+*req.IdempotencyKey]
		if g == nil {
			return Submitted{}, false, nil
		}
		if g.Fingerprint != fp {
			return Submitted{}, true, domain.New(voiceagent.CodeIdempotencyConflict,
				"this idempotency_key was already used for a different governed update of this business")
		}
		out := submitted(g)
		out.Replayed = true
		return out, true, nil
	}
	if req.BusinessID != nil {
		if err := reachBusiness(tx, who, *req.BusinessID); err != nil {
			return Submitted{}, err
		}
		if out, found, err := replay(*req.BusinessID); found {
			return out, err
		}
	}
	tgt, err := s.targetOf(tx, who, req)
	if err != nil {
		return Submitted{}, err
	}
	if req.BusinessID == nil {
		if out, found, err := replay(tgt.business); found {
			return out, err
		}
	}
	if req.Intent == intentAgentPatch {
		if _, err := agentPatchOf(tgt.agent.ID, req.Payload); err != nil {
			return Submitted{}, err
		}
	}
	allowed, why, err := authorize(now, who, req.Intent, req.Authority)
	if err != nil {
		return Submitted{}, err
	}
	decision := governedApplied
	switch {
	case req.QueueForApproval:
		decision = governedPending
	case !allowed:
		decision = governedRejected
	}
	if req.DryRun {
		out := map[string]any{
			"dry_run": true, "status": "dry_run", "would": decision, "intent": req.Intent,
			"business_id": tgt.business, "target": req.Target, "changes": changesOf(tx, req, tgt),
			"authority_sufficient": allowed, "allowed_authority_modes": governedAuthority[req.Intent],
		}
		if why != "" {
			out["rejection_reason"] = why
		}
		return Submitted{Preview: out}, nil
	}

	g := &store.GovernedUpdate{
		Intent: req.Intent, Status: decision, IdempotencyKey: *req.IdempotencyKey, Fingerprint: fp,
		Target: req.Target, Payload: req.Payload, Actor: req.Actor, Authority: req.Authority,
		QueueForApproval: req.QueueForApproval, Reason: req.Reason, SourceRef: req.SourceRef,
	}
	for k, v := range req.Sent {
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
		res, err := s.apply(tx, now, g, tgt, providerFault)
		if err != nil {
			return Submitted{}, err
		}
		g.Result = res
	}
	tx.GovernedUpdates.Insert(g, tgt.business, now)
	g.UpdatedAt = g.CreatedAt
	if decision == governedRejected {
		g.Error = map[string]any{"code": voiceagent.CodeForbidden, "message": why}
	} else {
		g.Answer = jsonview.MustMarshal(GovernedView(g))
	}
	tx.GovernedByKey[g.Owner+"\x00"+g.IdempotencyKey] = g
	return submitted(g), nil
}

// submitted is the outcome of stored update g as it was submitted. Only an
// update queued for approval changes its status later (Decide), so the
// decision is that one, or the update's status.
func submitted(g *store.GovernedUpdate) Submitted {
	out := Submitted{Update: g, Decision: g.Status, Body: g.Answer}
	switch {
	case g.QueueForApproval:
		out.Decision = governedPending
	case g.Status == governedRejected:
		out.Rejection = domain.Forbidden(val.Str(g.Error["message"])).
			With("governed_update_id", g.ID).With("allowed_authority_modes", governedAuthority[g.Intent])
	}
	return out
}

// reachBusiness checks that the business with the id exists (else 404)
// and that who has access to it (else 403).
func reachBusiness(tx *platform.Tx, who *domain.Actor, id string) error {
	if _, ok := tx.Businesses.Get(id); !ok {
		return domain.NotFound("business not found: " + id)
	}
	if who == nil || !who.Reaches(id) {
		return domain.Forbidden("this key has no access to business " + id)
	}
	return nil
}

// targetOf resolves the target and the business of a request of who. A
// missing business_id is taken from the target, or is the key's only
// business.
func (s *Service) targetOf(tx *platform.Tx, who *domain.Actor, req *GovernedRequest) (governedTarget, error) {
	var t governedTarget
	switch req.Intent {
	case intentAgentPatch:
		a, err := telephony.ReachedAgent(tx, who, val.Str(req.Target["agent_id"]))
		if err != nil {
			return t, err
		}
		t.agent, t.business = a, a.Owner
	case intentEmergencyAddress:
		id, phone := val.Str(req.Target["number_id"]), val.Str(req.Target["phone_number"])
		var n *store.Number
		if id != "" {
			n, _ = tx.Numbers.Get(id)
		}
		if phone != "" {
			byPhone := tx.NumbersByPhone[phone]
			if id != "" && byPhone != n {
				return t, domain.InvalidField("/target", "number_id and phone_number name different numbers")
			}
			n = byPhone
		}
		if n == nil || !who.Reaches(n.Owner) {
			return t, domain.NotFound("number not found: " + id + phone)
		}
		t.number, t.business = n, n.Owner
	default:
		if req.BusinessID != nil {
			t.business = *req.BusinessID
		} else if len(who.Businesses) == 1 {
			t.business = who.Businesses[0]
		} else {
			return t, domain.InvalidField("/business_id", "is required: the key reaches %d businesses", len(who.Businesses))
		}
	}
	if req.BusinessID != nil && *req.BusinessID != t.business {
		return t, domain.InvalidField("/business_id", "does not match the target's business (%s)", t.business)
	}
	return t, nil
}

// authorize evaluates the authority of a request of who at now for
// intent: whether it applies the change directly, and why not. Malformed
// authority (human_confirmed without who and when, a confirmation in the
// future) is a 400.
func authorize(now time.Time, who *domain.Actor, intent string, authority map[string]any) (bool, string, error) {
	mode := "none"
	if m := val.Str(authority["mode"]); m != "" {
		mode = m
	}
	switch mode {
	case "human_confirmed":
		if val.Str(authority["confirmed_by"]) == "" {
			return false, "", domain.InvalidField("/authority/confirmed_by", "is required when the mode is human_confirmed")
		}
		at, err := time.Parse(time.RFC3339Nano, val.Str(authority["confirmed_at"]))
		if err != nil {
			return false, "", domain.InvalidField("/authority/confirmed_at", "is required when the mode is human_confirmed")
		}
		if at.After(now) {
			return false, "", domain.InvalidField("/authority/confirmed_at", "is in the future")
		}
	case "dashboard_session":
		if who.SessionID == "" {
			return false, "authority mode dashboard_session needs a request made with a dashboard session, not a bearer key", nil
		}
	}
	if !slices.Contains(governedAuthority[intent], mode) {
		return false, "authority mode " + mode + " cannot apply " + intent + " directly; use one of " +
			strings.Join(governedAuthority[intent], ", ") + " or queue_for_approval", nil
	}
	return true, "", nil
}

// agentPatchOf is the change an agent.patch payload makes to the agent
// with the id: the payload must be a PATCH /v1/agents body for it, and
// the paths of its errors are under /payload.
func agentPatchOf(agentID string, payload map[string]any) (telephony.AgentPatch, error) {
	body := maps.Clone(payload)
	if body == nil {
		body = map[string]any{}
	}
	body["id"] = agentID
	var p telephony.AgentPatch
	if err := httpapi.ValidateUnder("agentUpdate", body, "/payload", "the agent.patch payload"); err != nil {
		return p, err
	}
	if err := json.Unmarshal(jsonview.MustMarshal(body), &p); err != nil {
		return p, domain.Invalid("the agent.patch payload does not match the expected shape: %v", err)
	}
	return p, nil
}

// apply makes the change of governed update g, applied at now to target
// t, and returns its result.
func (s *Service) apply(tx *platform.Tx, now time.Time, g *store.GovernedUpdate, t governedTarget, providerFault func() *domain.Error) (any, error) {
	switch g.Intent {
	case intentAgentPatch:
		p, err := agentPatchOf(t.agent.ID, g.Payload)
		if err != nil {
			return nil, err
		}
		res, err := s.telephony.UpdateAgent(tx, now, t.agent, p, providerFault)
		if e, ok := err.(*domain.Error); ok {
			return nil, e.Under("/payload", "the agent.patch payload")
		}
		return res, err
	case intentEmergencyAddress:
		ea := &store.EmergencyAddress{NumberID: t.number.ID, Address: maps.Clone(g.Payload), UpdatedAt: now.UTC(),
			UpdateID: g.ID, BusinessID: t.number.Owner}
		tx.EmergencyAddresses[t.number.ID] = ea
		return map[string]any{"number_id": t.number.ID, "phone_number": t.number.PhoneNumber,
			"emergency_address": ea.Address, "updated_at": ea.UpdatedAt}, nil
	default:
		sink := &store.TranscriptSink{URL: val.Str(g.Payload["url"]), Enabled: true, Format: "json",
			UpdatedAt: now.UTC(), UpdateID: g.ID}
		if v, ok := g.Payload["enabled"].(bool); ok {
			sink.Enabled = v
		}
		if f := val.Str(g.Payload["format"]); f != "" {
			sink.Format = f
		}
		tx.TranscriptSinks[t.business] = sink
		return map[string]any{"business_id": t.business, "transcript_sink": sink}, nil
	}
}

// changesOf previews what a dry run would change: the current value and
// the new one.
func changesOf(tx *platform.Tx, req *GovernedRequest, t governedTarget) map[string]any {
	switch req.Intent {
	case intentAgentPatch:
		fields := slices.Sorted(maps.Keys(req.Payload))
		return map[string]any{"agent_id": t.agent.ID, "fields": fields, "current": telephony.AgentDetail(t.agent)}
	case intentEmergencyAddress:
		var cur any
		if ea := tx.EmergencyAddresses[t.number.ID]; ea != nil {
			cur = ea.Address
		}
		return map[string]any{"number_id": t.number.ID, "phone_number": t.number.PhoneNumber, "current": cur, "new": req.Payload}
	default:
		var cur any
		if sink := tx.TranscriptSinks[t.business]; sink != nil {
			cur = sink
		}
		return map[string]any{"current": cur, "new": req.Payload}
	}
}

func (s *Service) getGovernedUpdates(rc *httpapi.Ctx) (any, error) {
	var match func(*store.GovernedUpdate) bool
	if status, intent := rc.Query("status"), rc.Query("intent"); status != "" || intent != "" {
		match = func(g *store.GovernedUpdate) bool {
			return (status == "" || g.Status == status) && (intent == "" || g.Intent == intent)
		}
	}
	return httpapi.ReadOrList(rc, rc.Tx.GovernedUpdates, "governed update", match, GovernedView, func(items []GovernedUpdate, more bool) any {
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
	g, err := httpapi.Reachable(rc, rc.Tx.GovernedUpdates, body.ID, "governed update")
	if err != nil {
		return nil, err
	}
	if err := s.Decide(rc.Tx, rc.Now, rc.Actor(), g, body.Decision, body.Note, voiceProviderFault(rc)); err != nil {
		return nil, err
	}
	return GovernedView(g), nil
}

// Decide records the decision of who at now on governed update g, which
// must be pending approval (else 409): "reject" rejects it; "approve"
// applies its change to its target, which who must still have access to, and the
// update is applied, or failed with the change's error (a failure of the
// voice provider, reported by providerFault, nil: none, included). The
// decision, its note, who and when are recorded in one change of g.
func (s *Service) Decide(tx *platform.Tx, now time.Time, who *domain.Actor, g *store.GovernedUpdate, decision string, note *string, providerFault func() *domain.Error) error {
	if g.Status != governedPending {
		return domain.New(voiceagent.CodeConflict, "the governed update is "+g.Status+", not pending_approval")
	}
	decide := func(status string, result any, failure map[string]any) error {
		tx.GovernedUpdates.Update(g, func(g *store.GovernedUpdate) {
			g.DecidedBy, g.DecidedAt, g.DecisionNote = who.UserID, val.UtcPtr(now), note
			g.UpdatedAt = now.UTC()
			g.Status, g.Result, g.Error = status, result, failure
		})
		return nil
	}
	if decision == "reject" {
		return decide(governedRejected, g.Result, g.Error)
	}
	var t governedTarget
	t.business = g.Owner
	var err error
	switch g.Intent {
	case intentAgentPatch:
		t.agent, err = telephony.ReachedAgent(tx, who, val.Str(g.Target["agent_id"]))
	case intentEmergencyAddress:
		t, err = s.targetOf(tx, who, &GovernedRequest{Intent: g.Intent, Target: g.Target})
	}
	var result any
	if err == nil {
		result, err = s.apply(tx, now, g, t, providerFault)
	}
	if err != nil {
		e, ok := err.(*domain.Error)
		if !ok {
			return err
		}
		return decide(governedFailed, result, map[string]any{"code": e.Code, "message": e.Message})
	}
	return decide(governedApplied, result, g.Error)
}

// GovernedUpdate is a governed update as the API shows it (GET
// /v1/governed-updates, the responses of the submit and the decision),
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
// strings: it is encoded before the Tx that read it ends.
func GovernedView(g *store.GovernedUpdate) GovernedUpdate {
	return GovernedUpdate{
		ID: g.ID, BusinessID: g.Owner, Intent: g.Intent, Status: g.Status,
		IdempotencyKey: g.IdempotencyKey, Target: g.Target, Payload: g.Payload,
		Actor: g.Actor, Authority: g.Authority, QueueForApproval: g.QueueForApproval,
		Reason: g.Reason, SourceRef: g.SourceRef, Extra: g.Extra, Result: g.Result,
		Error: g.Error, DecidedBy: val.Strp(g.DecidedBy), DecidedAt: g.DecidedAt,
		DecisionNote: g.DecisionNote, CreatedAt: g.CreatedAt, UpdatedAt: g.UpdatedAt,
	}
}
