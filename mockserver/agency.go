package mockserver

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/voiceagent/voiceagent-go/internal/canonical"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// Error codes of the agency commands (409 and 403 refinements).
const (
	codeStaleRevision          = "stale_revision"
	codeFingerprintMismatch    = "fingerprint_mismatch"
	codeInvalidState           = "invalid_state"
	codeApprovalRequired       = "approval_required"
	codeReconciliationRequired = "reconciliation_required"
)

// Bounds and timings of the agency resources.
const (
	agencyIdempotencyKeyMax = 150              // the spec's bound on Idempotency-Key
	agencyRetryEvery        = 30 * time.Second // retained commands and waiting clients
	agencyOfferPage         = 50
	agencySessionPage       = 20
	agencyInstallationPage  = 50
	agencyOperationsShown   = 20
	agencyMembersMax        = 100
	agencyPendingInvitesMax = 100
	agencyInvitesShown      = 100
	agencyKeysShown         = 100
	agencyVersionsShown     = 10
	agencyUpdatesShown      = 20
	agencyScenarioRunsKept  = 10
	inviteTTL               = 7 * 24 * time.Hour
	appBaseURL              = "https://app.voiceagent.example"
)

// Paths of the four agency resources.
const (
	pathAgencyProfile       = apiPrefix + "/v1/agency-profile"
	pathAgencyOffers        = apiPrefix + "/v1/agency-offers"
	pathAgencyEnrollments   = apiPrefix + "/v1/agency-enrollments"
	pathAgencyInstallations = apiPrefix + "/v1/agency-installations"
)

func (s *Server) agencyRoutes() []*route {
	read, write := scope("workspaces:read"), scope("workspaces:write")
	return []*route{
		{method: http.MethodGet, path: pathAgencyProfile, scope: read, handle: s.getAgencyProfile},
		{method: http.MethodPost, path: pathAgencyProfile, scope: write, schema: "agencyProfileCommand",
			handle: s.agencyPost("profile", s.profileCommands())},
		{method: http.MethodGet, path: pathAgencyOffers, scope: read, handle: s.getAgencyOffers},
		{method: http.MethodPost, path: pathAgencyOffers, scope: write, schema: "agencyOfferCommand",
			handle: s.agencyPost("offers", s.offerCommands())},
		{method: http.MethodGet, path: pathAgencyEnrollments, scope: read, handle: s.getAgencyEnrollments},
		{method: http.MethodPost, path: pathAgencyEnrollments, scope: allOf(write, scope("agents:write")),
			schema: "agencyEnrollmentCommand", handle: s.agencyPost("enrollments", s.enrollmentCommands())},
		{method: http.MethodGet, path: pathAgencyInstallations, scope: read, handle: s.getAgencyInstallations},
		{method: http.MethodPost, path: pathAgencyInstallations, scope: write, schema: "agencyInstallationCommand",
			handle: s.agencyPost("installations", s.installationCommands())},
	}
}

// agencyCommand is one action of an agency resource.
type agencyCommand struct {
	// run checks the command's guards, calls cc.ready() before it changes
	// anything, then applies the command and returns its receipt.
	run func(cc *cmdCtx) (any, error)
	// idempotent commands refuse a request without Idempotency-Key.
	idempotent bool
	// scopes are needed beyond the route's.
	scopes []string
}

// cmdCtx is what an agency command runs with, in a request or when a
// retained command is retried on the clock.
type cmdCtx struct {
	s        *Server
	st       *store.Store
	now      time.Time
	p        *principal
	path     string
	resource string
	action   string
	body     []byte
	// fault reports a failing simulated dependency (rc.dependencyFault in a
	// request, the fault rules directly on a retry).
	fault func(target string) *apiError
	// partner is the agency the command acted for, once resolved.
	partner *store.Partner
}

// errRetained is what cc.ready returns when a dependency is unavailable:
// the command is retained and retried.
type errRetained struct{ cause *apiError }

func (e *errRetained) Error() string { return "retained: " + e.cause.Error() }

// ready is called by every command once its guards passed and before it
// changes anything: a failing dependency retains the command.
func (cc *cmdCtx) ready() error {
	if e := cc.fault(FaultTargetDependency); e != nil {
		return &errRetained{cause: e}
	}
	return nil
}

// decode decodes the (already validated) body into dst.
func (cc *cmdCtx) decode(dst any) error {
	if err := json.Unmarshal(cc.body, dst); err != nil {
		return errInvalid("request body does not match the expected shape: %v", err)
	}
	return nil
}

// user is the calling user.
func (cc *cmdCtx) user() *store.User { return cc.p.user }

// receipt is the answer of a command: the action, a receipt id, when it was
// recorded, and the resource views in extra.
func (cc *cmdCtx) receipt(extra map[string]any) map[string]any {
	m := map[string]any{"action": cc.action, "receiptId": cc.s.ids.uuid(), "recordedAt": cc.now.UTC()}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// agencyPost is the handler of POST on an agency resource: it validates the
// command (schema, Idempotency-Key, extra scopes) and runs it; a command
// whose dependency is unavailable is retained and answered 503.
func (s *Server) agencyPost(resource string, cmds map[string]agencyCommand) func(rc *reqCtx) (any, error) {
	return func(rc *reqCtx) (any, error) {
		key := rc.r.Header.Get("Idempotency-Key")
		if len(key) > agencyIdempotencyKeyMax {
			return nil, errInvalidField("Idempotency-Key", "must be at most %d characters on agency commands", agencyIdempotencyKeyMax)
		}
		var head struct {
			Action string `json:"action"`
		}
		if err := rc.decode(&head); err != nil {
			return nil, err
		}
		cmd, ok := cmds[head.Action]
		if !ok {
			return nil, errInvalidField("/action", "unknown action %q", head.Action)
		}
		if cmd.idempotent && strings.TrimSpace(key) == "" {
			return nil, errInvalidField("Idempotency-Key",
				"the %s command needs a stable Idempotency-Key header (the same key on every retry of this command)", head.Action)
		}
		for _, sc := range cmd.scopes {
			if !rc.p.has(sc) {
				return nil, errForbidden(fmt.Sprintf("the %s command needs the scope %s", head.Action, sc))
			}
		}
		cc := &cmdCtx{
			s: s, st: rc.st, now: rc.now, p: rc.p, path: rc.r.URL.Path, resource: resource,
			action: head.Action, body: rc.body, fault: rc.dependencyFault,
		}
		v, err := cmd.run(cc)
		var ret *errRetained
		if errors.As(err, &ret) {
			return nil, s.retain(cc, cmd, ret.cause)
		}
		return v, err
	}
}

// retain stores a command whose dependency is unavailable as a pending
// operation, schedules its retry and returns the 503 answer naming it.
func (s *Server) retain(cc *cmdCtx, cmd agencyCommand, cause *apiError) *apiError {
	op := &store.AgencyOperation{Resource: cc.resource, Action: cc.action, Status: "pending", Attempts: 1, UpdatedAt: cc.now.UTC()}
	op.ID = s.ids.uuid()
	op.Owner = cc.operationOwner()
	op.CreatedAt = cc.st.AgencyOperations.Stamp(cc.now)
	cc.st.AgencyOperations.Put(op)
	s.scheduleRetry(op.ID, *cc, cmd, cc.now)
	e := newError(http.StatusServiceUnavailable, codeServiceUnavailable,
		"a dependency is unavailable ("+cause.message+"); the command was retained as operation "+op.ID+
			" and is applied when the dependency returns: read the resource to see it")
	return e.with("operation", operationView(op))
}

// operationOwner is where a retained operation is listed: the agency, or
// the calling user before the agency exists.
func (cc *cmdCtx) operationOwner() string {
	if cc.partner != nil {
		return cc.partner.ID
	}
	return cc.p.user.ID
}

// scheduleRetry runs a retained command again every agencyRetryEvery until
// its dependency answers; the outcome (applied with its receipt, or
// rejected with the error its guards give then) is recorded on the
// operation.
func (s *Server) scheduleRetry(opID string, snapshot cmdCtx, cmd agencyCommand, from time.Time) {
	s.schedule(from.Add(agencyRetryEvery), func(now time.Time) {
		op, ok := s.st.AgencyOperations.Get(opID)
		if !ok || op.Status != "pending" {
			return
		}
		cc := snapshot
		cc.st, cc.now, cc.partner = s.st, now, nil
		cc.fault = func(target string) *apiError {
			if f := s.faults.match(target, http.MethodPost, cc.path); f != nil {
				return f.asError()
			}
			return nil
		}
		op.Attempts++
		op.UpdatedAt = now.UTC()
		var v any
		var err error
		if cc.p.key != nil && !cc.p.key.Active {
			err = errUnauthorized("the key that sent the command was revoked")
		} else {
			v, err = cmd.run(&cc)
		}
		var ret *errRetained
		var apiErr *apiError
		switch {
		case errors.As(err, &ret):
			s.scheduleRetry(opID, snapshot, cmd, now)
			return
		case errors.As(err, &apiErr):
			op.Status, op.ErrorStatus, op.ErrorCode, op.ErrorMessage = "rejected", apiErr.status, apiErr.code, apiErr.message
		case err != nil:
			op.Status, op.ErrorStatus, op.ErrorCode, op.ErrorMessage = "rejected", http.StatusInternalServerError, codeInternalError, err.Error()
		default:
			if rs, ok := v.(*respond); ok {
				v = rs.body
			}
			op.Status = "applied"
			op.Result, _ = encodeJSON(v)
		}
		if owner := cc.operationOwner(); owner != op.Owner {
			// A retained bootstrap is listed under the agency it created.
			s.st.AgencyOperations.Delete(op.ID)
			op.Owner = owner
			s.st.AgencyOperations.Put(op)
		}
	})
}

// operationView is a retained command as reads show it.
func operationView(op *store.AgencyOperation) map[string]any {
	v := map[string]any{
		"operationId": op.ID, "resource": op.Resource, "action": op.Action, "status": op.Status,
		"attempts": op.Attempts, "createdAt": op.CreatedAt, "updatedAt": op.UpdatedAt,
	}
	if len(op.Result) > 0 {
		v["result"] = json.RawMessage(op.Result)
	}
	if op.ErrorCode != "" {
		v["error"] = map[string]any{"status": op.ErrorStatus, "code": op.ErrorCode, "message": op.ErrorMessage}
	}
	return v
}

// operationsOf lists the latest retained commands of an agency (or user)
// on one resource, newest first.
func operationsOf(st *store.Store, owner, resource string) []map[string]any {
	ops, _ := listPage(st.AgencyOperations, []string{owner}, pageQuery{limit: agencyOperationsShown},
		func(op *store.AgencyOperation) bool { return op.Resource == resource }, operationView)
	return ops
}

// member resolves the agency a command acts for and checks that the
// calling user is a current member with one of roles (any role when none
// is given): 403 otherwise, also for an agency that does not exist.
func (cc *cmdCtx) member(partnerID string, roles ...string) (*store.Partner, error) {
	pt, err := partnerMember(cc.st, cc.p, partnerID, roles...)
	if err != nil {
		return nil, err
	}
	cc.partner = pt
	return pt, nil
}

func partnerMember(st *store.Store, p *principal, partnerID string, roles ...string) (*store.Partner, error) {
	pt, ok := st.Partners.Get(partnerID)
	var m *store.PartnerMember
	if ok {
		m = pt.Members[p.user.ID]
	}
	if m == nil {
		return nil, errForbidden("current membership of agency " + partnerID + " is required")
	}
	if len(roles) > 0 && !slices.Contains(roles, m.Role) {
		return nil, errForbidden(fmt.Sprintf("the %s role may not do this; it needs the role %s", m.Role, strings.Join(roles, " or ")))
	}
	return pt, nil
}

// requireClient checks that a business is a client of the agency and, for
// an operator, that the operator is assigned to it: 403 otherwise.
func (cc *cmdCtx) requireClient(pt *store.Partner, businessID string) (*store.Business, error) {
	b, ok := cc.st.Businesses.Get(businessID)
	if !ok || b.PartnerID != pt.ID {
		return nil, errForbidden("business " + businessID + " is not a client of agency " + pt.ID)
	}
	if pt.Members[cc.p.user.ID].Role == store.PartnerRoleOperator {
		if _, assigned := b.Members[cc.p.user.ID]; !assigned {
			return nil, errForbidden("the operator is not assigned to business " + businessID)
		}
	}
	return b, nil
}

// checkRevision is the expectedRevision guard: 409 stale_revision naming
// the current revision.
func checkRevision(expected, current string) *apiError {
	if expected == current {
		return nil
	}
	return newError(http.StatusConflict, codeStaleRevision,
		fmt.Sprintf("the record changed: expectedRevision %s is not the current revision %s; read it again", expected, current)).
		with("currentRevision", current)
}

// checkFingerprint is the fingerprint guard: 409 fingerprint_mismatch.
func checkFingerprint(got, want string) *apiError {
	if got == want {
		return nil
	}
	return newError(http.StatusConflict, codeFingerprintMismatch,
		fmt.Sprintf("fingerprint %s does not match the content's fingerprint %s: what was previewed is not what would be committed", got, want))
}

// errState is a command that the record's state does not allow: 409.
func errState(format string, args ...any) *apiError {
	return newError(http.StatusConflict, codeInvalidState, fmt.Sprintf(format, args...))
}

// errConflict is a 409 for duplicates and limits.
func errConflict(format string, args ...any) *apiError {
	return newError(http.StatusConflict, codeConflict, fmt.Sprintf(format, args...))
}

// fingerprint is the SHA-256 of the canonical JSON of v (see package
// internal/canonical), in 64 lowercase hex characters.
func fingerprint(v any) string {
	fp, err := canonical.Fingerprint(v)
	if err != nil {
		panic("mockserver: fingerprint of a value that is not JSON: " + err.Error())
	}
	return fp
}

// canonicalJSON returns the canonical JSON of a validated JSON document.
func canonicalJSON(raw json.RawMessage) json.RawMessage {
	b, err := canonical.JSON(raw)
	if err != nil {
		panic("mockserver: canonical form of invalid JSON: " + err.Error())
	}
	return b
}

// agencyRead starts every agency GET: a failing dependency is 503 (never an
// empty answer), partnerId (default: the caller's agency) must be a uuid,
// and the caller must be a current member. It returns the agency, or nil
// with no error when the caller is not a member and allowNonMember is set.
func agencyRead(rc *reqCtx, allowNonMember bool) (*store.Partner, error) {
	if e := rc.dependencyFault(FaultTargetDependency); e != nil {
		return nil, newError(http.StatusServiceUnavailable, codeServiceUnavailable,
			"the agency evidence is unavailable ("+e.message+"); it is not reported as empty: retry later")
	}
	pid := rc.query("partnerId")
	if pid == "" {
		pid = rc.p.user.PartnerID
	} else if err := uuid.Validate(pid); err != nil {
		return nil, errInvalidField("partnerId", "must be a uuid")
	}
	if pid == "" {
		if allowNonMember {
			return nil, nil
		}
		return nil, errForbidden("current membership of an agency is required (bootstrap one, or accept an invite)")
	}
	pt, err := partnerMember(rc.st, rc.p, pid)
	if err != nil {
		if allowNonMember {
			return nil, nil
		}
		return nil, err
	}
	return pt, nil
}

// agencyPage reads one page of an agency's records, newest first, after
// the record named by the after query parameter (a uuid).
func agencyPage[T store.Record, V any](rc *reqCtx, t *store.Table[T], owner string, limit int, view func(T) V) ([]V, bool, error) {
	pq := pageQuery{limit: limit}
	if a := rc.query("after"); a != "" {
		if err := uuid.Validate(a); err != nil {
			return nil, false, errInvalidField("after", "must be a uuid: the id of the last record of the previous page")
		}
		r, ok := t.Get(a)
		if !ok || r.RecordOwner() != owner {
			return nil, false, errInvalidField("after", "names no record of this list")
		}
		pq.after = r.RecordCreated()
	}
	items, more := listPage(t, []string{owner}, pq, nil, view)
	return items, more, nil
}

// getByID answers a ?id= read of one agency record: 400 for a malformed id,
// 404 for a record that is absent or another agency's.
func getByID[T store.Record](rc *reqCtx, t *store.Table[T], owner, what string) (T, error) {
	var zero T
	id := rc.query("id")
	if err := uuid.Validate(id); err != nil {
		return zero, errInvalidField("id", "must be a uuid")
	}
	r, ok := t.Get(id)
	if !ok || r.RecordOwner() != owner {
		return zero, errNotFound(what + " not found: " + id)
	}
	return r, nil
}
