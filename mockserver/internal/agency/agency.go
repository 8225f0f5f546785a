package agency

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

	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
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
	pathAgencyProfile       = httpapi.APIPrefix + "/v1/agency-profile"
	pathAgencyOffers        = httpapi.APIPrefix + "/v1/agency-offers"
	pathAgencyEnrollments   = httpapi.APIPrefix + "/v1/agency-enrollments"
	pathAgencyInstallations = httpapi.APIPrefix + "/v1/agency-installations"
)

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
	s        *Service
	st       *store.Store
	now      time.Time
	p        *httpapi.Principal
	path     string
	resource string
	action   string
	body     []byte
	// fault reports a failing simulated dependency (rc.dependencyFault in a
	// request, the fault rules directly on a retry).
	fault func(target string) *httpapi.Error
	// partner is the agency the command acted for, once resolved.
	partner *store.Partner
}

// errRetained is what cc.ready returns when a dependency is unavailable:
// the command is retained and retried.
type errRetained struct{ cause *httpapi.Error }

func (e *errRetained) Error() string { return "retained: " + e.cause.Error() }

// ready is called by every command once its guards passed and before it
// changes anything: a failing dependency retains the command.
func (cc *cmdCtx) ready() error {
	if e := cc.fault(httpapi.FaultTargetDependency); e != nil {
		return &errRetained{cause: e}
	}
	return nil
}

// Decode decodes the (already validated) body into dst.
func (cc *cmdCtx) Decode(dst any) error {
	if err := json.Unmarshal(cc.body, dst); err != nil {
		return httpapi.Invalid("request body does not match the expected shape: %v", err)
	}
	return nil
}

// user is the calling user.
func (cc *cmdCtx) user() *store.User { return cc.p.User }

// receipt is the answer of a command: the action, a receipt id, when it was
// recorded, and the resource views in extra.
func (cc *cmdCtx) receipt(extra map[string]any) map[string]any {
	m := map[string]any{"action": cc.action, "receiptId": cc.s.IDs.UUID(), "recordedAt": cc.now.UTC()}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// agencyPost is the handler of POST on an agency resource: it validates the
// command (schema, Idempotency-Key, extra scopes) and runs it; a command
// whose dependency is unavailable is retained and answered 503.
func (s *Service) agencyPost(resource string, cmds map[string]agencyCommand) func(rc *httpapi.Ctx) (any, error) {
	return func(rc *httpapi.Ctx) (any, error) {
		key := rc.Request.Header.Get("Idempotency-Key")
		if len(key) > agencyIdempotencyKeyMax {
			return nil, httpapi.InvalidField("Idempotency-Key", "must be at most %d characters on agency commands", agencyIdempotencyKeyMax)
		}
		var head struct {
			Action string `json:"action"`
		}
		if err := rc.Decode(&head); err != nil {
			return nil, err
		}
		cmd, ok := cmds[head.Action]
		if !ok {
			return nil, httpapi.InvalidField("/action", "unknown action %q", head.Action)
		}
		if cmd.idempotent && strings.TrimSpace(key) == "" {
			return nil, httpapi.InvalidField("Idempotency-Key",
				"the %s command needs a stable Idempotency-Key header (the same key on every retry of this command)", head.Action)
		}
		for _, sc := range cmd.scopes {
			if !rc.Principal.Has(sc) {
				return nil, httpapi.Forbidden(fmt.Sprintf("the %s command needs the scope %s", head.Action, sc))
			}
		}
		cc := &cmdCtx{
			s: s, st: rc.Store, now: rc.Now, p: rc.Principal, path: rc.Request.URL.Path, resource: resource,
			action: head.Action, body: rc.Body, fault: rc.DependencyFault,
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
func (s *Service) retain(cc *cmdCtx, cmd agencyCommand, cause *httpapi.Error) *httpapi.Error {
	op := &store.AgencyOperation{Resource: cc.resource, Action: cc.action, Status: "pending", Attempts: 1, UpdatedAt: cc.now.UTC()}
	op.ID = s.IDs.UUID()
	op.Owner = cc.operationOwner()
	op.CreatedAt = cc.st.AgencyOperations.Stamp(cc.now)
	cc.st.AgencyOperations.Put(op)
	s.scheduleRetry(op.ID, *cc, cmd, cc.now)
	e := httpapi.NewError(http.StatusServiceUnavailable, httpapi.CodeServiceUnavailable,
		"a dependency is unavailable ("+cause.Message+"); the command was retained as operation "+op.ID+
			" and is applied when the dependency returns: read the resource to see it")
	return e.With("operation", operationView(op))
}

// operationOwner is where a retained operation is listed: the agency, or
// the calling user before the agency exists.
func (cc *cmdCtx) operationOwner() string {
	if cc.partner != nil {
		return cc.partner.ID
	}
	return cc.p.User.ID
}

// scheduleRetry runs a retained command again every agencyRetryEvery until
// its dependency answers; the outcome (applied with its receipt, or
// rejected with the error its guards give then) is recorded on the
// operation.
func (s *Service) scheduleRetry(opID string, snapshot cmdCtx, cmd agencyCommand, from time.Time) {
	s.Schedule(from.Add(agencyRetryEvery), func(now time.Time) {
		op, ok := s.Store.AgencyOperations.Get(opID)
		if !ok || op.Status != "pending" {
			return
		}
		cc := snapshot
		cc.st, cc.now, cc.partner = s.Store, now, nil
		cc.fault = func(target string) *httpapi.Error {
			if f := s.httpapi.FaultSet.Match(target, http.MethodPost, cc.path); f != nil {
				return f.AsError()
			}
			return nil
		}
		op.Attempts++
		op.UpdatedAt = now.UTC()
		var v any
		var err error
		if cc.p.Key != nil && !cc.p.Key.Active {
			err = httpapi.Unauthorized("the key that sent the command was revoked")
		} else {
			v, err = cmd.run(&cc)
		}
		var ret *errRetained
		var apiErr *httpapi.Error
		switch {
		case errors.As(err, &ret):
			s.scheduleRetry(opID, snapshot, cmd, now)
			return
		case errors.As(err, &apiErr):
			op.Status, op.ErrorStatus, op.ErrorCode, op.ErrorMessage = "rejected", apiErr.Status, apiErr.Code, apiErr.Message
		case err != nil:
			op.Status, op.ErrorStatus, op.ErrorCode, op.ErrorMessage = "rejected", http.StatusInternalServerError, httpapi.CodeInternalError, err.Error()
		default:
			if rs, ok := v.(*httpapi.Respond); ok {
				v = rs.Body
			}
			op.Status = "applied"
			op.Result, _ = jsonview.EncodeJSON(v)
		}
		if owner := cc.operationOwner(); owner != op.Owner {
			// A retained bootstrap is listed under the agency it created.
			s.Store.AgencyOperations.Delete(op.ID)
			op.Owner = owner
			s.Store.AgencyOperations.Put(op)
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
	ops, _ := httpapi.ListPage(st.AgencyOperations, []string{owner}, httpapi.PageQuery{Limit: agencyOperationsShown},
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

func partnerMember(st *store.Store, p *httpapi.Principal, partnerID string, roles ...string) (*store.Partner, error) {
	pt, ok := st.Partners.Get(partnerID)
	var m *store.PartnerMember
	if ok {
		m = pt.Members[p.User.ID]
	}
	if m == nil {
		return nil, httpapi.Forbidden("current membership of agency " + partnerID + " is required")
	}
	if len(roles) > 0 && !slices.Contains(roles, m.Role) {
		return nil, httpapi.Forbidden(fmt.Sprintf("the %s role may not do this; it needs the role %s", m.Role, strings.Join(roles, " or ")))
	}
	return pt, nil
}

// requireClient checks that a business is a client of the agency and, for
// an operator, that the operator is assigned to it: 403 otherwise.
func (cc *cmdCtx) requireClient(pt *store.Partner, businessID string) (*store.Business, error) {
	b, ok := cc.st.Businesses.Get(businessID)
	if !ok || b.PartnerID != pt.ID {
		return nil, httpapi.Forbidden("business " + businessID + " is not a client of agency " + pt.ID)
	}
	if pt.Members[cc.p.User.ID].Role == store.PartnerRoleOperator {
		if _, assigned := b.Members[cc.p.User.ID]; !assigned {
			return nil, httpapi.Forbidden("the operator is not assigned to business " + businessID)
		}
	}
	return b, nil
}

// checkRevision is the expectedRevision guard: 409 stale_revision naming
// the current revision.
func checkRevision(expected, current string) *httpapi.Error {
	if expected == current {
		return nil
	}
	return httpapi.NewError(http.StatusConflict, codeStaleRevision,
		fmt.Sprintf("the record changed: expectedRevision %s is not the current revision %s; read it again", expected, current)).
		With("currentRevision", current)
}

// checkFingerprint is the fingerprint guard: 409 fingerprint_mismatch.
func checkFingerprint(got, want string) *httpapi.Error {
	if got == want {
		return nil
	}
	return httpapi.NewError(http.StatusConflict, codeFingerprintMismatch,
		fmt.Sprintf("fingerprint %s does not match the content's fingerprint %s: what was previewed is not what would be committed", got, want))
}

// errState is a command that the record's state does not allow: 409.
func errState(format string, args ...any) *httpapi.Error {
	return httpapi.NewError(http.StatusConflict, codeInvalidState, fmt.Sprintf(format, args...))
}

// errConflict is a 409 for duplicates and limits.
func errConflict(format string, args ...any) *httpapi.Error {
	return httpapi.NewError(http.StatusConflict, httpapi.CodeConflict, fmt.Sprintf(format, args...))
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
func agencyRead(rc *httpapi.Ctx, allowNonMember bool) (*store.Partner, error) {
	if e := rc.DependencyFault(httpapi.FaultTargetDependency); e != nil {
		return nil, httpapi.NewError(http.StatusServiceUnavailable, httpapi.CodeServiceUnavailable,
			"the agency evidence is unavailable ("+e.Message+"); it is not reported as empty: retry later")
	}
	pid := rc.Query("partnerId")
	if pid == "" {
		pid = rc.Principal.User.PartnerID
	} else if err := uuid.Validate(pid); err != nil {
		return nil, httpapi.InvalidField("partnerId", "must be a uuid")
	}
	if pid == "" {
		if allowNonMember {
			return nil, nil
		}
		return nil, httpapi.Forbidden("current membership of an agency is required (bootstrap one, or accept an invite)")
	}
	pt, err := partnerMember(rc.Store, rc.Principal, pid)
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
func agencyPage[T store.Record, V any](rc *httpapi.Ctx, t *store.Table[T], owner string, limit int, view func(T) V) ([]V, bool, error) {
	pq := httpapi.PageQuery{Limit: limit}
	if a := rc.Query("after"); a != "" {
		if err := uuid.Validate(a); err != nil {
			return nil, false, httpapi.InvalidField("after", "must be a uuid: the id of the last record of the previous page")
		}
		r, ok := t.Get(a)
		if !ok || r.RecordOwner() != owner {
			return nil, false, httpapi.InvalidField("after", "names no record of this list")
		}
		pq.After = r.RecordCreated()
	}
	items, more := httpapi.ListPage(t, []string{owner}, pq, nil, view)
	return items, more, nil
}

// getByID answers a ?id= read of one agency record: 400 for a malformed id,
// 404 for a record that is absent or another agency's.
func getByID[T store.Record](rc *httpapi.Ctx, t *store.Table[T], owner, what string) (T, error) {
	var zero T
	id := rc.Query("id")
	if err := uuid.Validate(id); err != nil {
		return zero, httpapi.InvalidField("id", "must be a uuid")
	}
	r, ok := t.Get(id)
	if !ok || r.RecordOwner() != owner {
		return zero, httpapi.NotFound(what + " not found: " + id)
	}
	return r, nil
}
