package agency

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	sdk "github.com/voiceagent/voiceagent-go/agency"
	"github.com/voiceagent/voiceagent-go/internal/canonical"
	"github.com/voiceagent/voiceagent-go/internal/wire"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
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
	// run decodes the body with rc.Decode before anything else (that is
	// where the body is validated, see agencyPost), checks the command's
	// guards, calls ready before it changes anything, then applies the
	// command and returns its receipt. It runs with the request's context,
	// or with one made for a retry of the retained command on the clock
	// (see scheduleRetry).
	run func(rc *httpapi.Ctx, cs *cmdState) (any, error)
	// idempotent commands refuse a request without Idempotency-Key.
	idempotent bool
	// scopes are needed beyond the route's.
	scopes []string
}

// cmdState is what a running agency command knows beyond its request
// context: the resource and action it runs, and the agency it acts for
// once a guard resolved it (where a retained command is listed).
type cmdState struct {
	resource, action string
	partner          *store.Partner
}

// errRetained is what ready returns when a dependency is unavailable: the
// command is retained and retried.
type errRetained struct{ cause *httpapi.Error }

func (e *errRetained) Error() string { return "retained: " + e.cause.Error() }

// ready is called by every command once its guards passed and before it
// changes anything: a failing dependency retains the command.
func ready(rc *httpapi.Ctx) error {
	if e := rc.DependencyFault(httpapi.FaultTargetDependency); e != nil {
		return &errRetained{cause: e}
	}
	return nil
}

// header is what every receipt starts with: the action, a new receipt id
// and when it was recorded.
func (s *Service) header(rc *httpapi.Ctx, cs *cmdState) sdk.ReceiptHeader {
	return sdk.ReceiptHeader{Action: cs.action, ReceiptID: s.IDs.UUID(), RecordedAt: rc.Now.UTC()}
}

// receipt is the answer of a command whose receipt has no wire type of its
// own here: the header's members and the resource views in extra.
func (s *Service) receipt(rc *httpapi.Ctx, cs *cmdState, extra map[string]any) map[string]any {
	h := s.header(rc, cs)
	m := map[string]any{"action": h.Action, "receiptId": h.ReceiptID, "recordedAt": h.RecordedAt}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// agencyPost is the handler of POST on an agency resource: it checks the
// command (Idempotency-Key, schema, extra scopes) and runs it; a command
// whose dependency is unavailable is retained and answered 503.
//
// The body is validated against the route's schema once, by the command's
// own rc.Decode: the action is read without validation to pick the
// command, and a refusal here first validates the body, so a body that
// fails validation answers that failure whatever else is wrong with the
// request (but an over-long Idempotency-Key).
func (s *Service) agencyPost(resource string, cmds map[string]agencyCommand) func(rc *httpapi.Ctx) (any, error) {
	return func(rc *httpapi.Ctx) (any, error) {
		key := rc.Request.Header.Get("Idempotency-Key")
		if len(key) > agencyIdempotencyKeyMax {
			return nil, httpapi.InvalidField("Idempotency-Key", "must be at most %d characters on agency commands", agencyIdempotencyKeyMax)
		}
		var head struct {
			Action string `json:"action"`
		}
		_ = httpapi.DecodeLoose(rc.Body, &head) // an invalid body fails rc.Decode below
		cmd, refusal := pick(rc, cmds, head.Action, key)
		if refusal != nil {
			if err := rc.Decode(nil); err != nil {
				return nil, err
			}
			return nil, refusal
		}
		cs := &cmdState{resource: resource, action: head.Action}
		v, err := cmd.run(rc, cs)
		var ret *errRetained
		if errors.As(err, &ret) {
			return nil, s.retain(rc, cs, cmd, ret.cause)
		}
		return v, err
	}
}

// pick returns the command of action, or why the request may not run it:
// an unknown action, a missing Idempotency-Key (key) on a command that
// needs one, a scope the command needs beyond the route's.
func pick(rc *httpapi.Ctx, cmds map[string]agencyCommand, action, key string) (agencyCommand, *httpapi.Error) {
	cmd, ok := cmds[action]
	if !ok {
		return cmd, httpapi.InvalidField("/action", "unknown action %q", action)
	}
	if cmd.idempotent && strings.TrimSpace(key) == "" {
		return cmd, httpapi.InvalidField("Idempotency-Key",
			"the %s command needs a stable Idempotency-Key header (the same key on every retry of this command)", action)
	}
	for _, sc := range cmd.scopes {
		if !rc.Principal.Has(sc) {
			return cmd, httpapi.Forbidden(fmt.Sprintf("the %s command needs the scope %s", action, sc))
		}
	}
	return cmd, nil
}

// retainedCmd is a retained command as its retries need it: the operation
// that records it, the command, and what of its request it runs with again.
type retainedCmd struct {
	opID             string
	cmd              agencyCommand
	resource, action string
	route            *httpapi.Route
	principal        *httpapi.Principal
	url              url.URL
	body             []byte
}

// retain stores a command whose dependency is unavailable as a pending
// operation, schedules its retry and returns the 503 answer naming it.
func (s *Service) retain(rc *httpapi.Ctx, cs *cmdState, cmd agencyCommand, cause *httpapi.Error) *httpapi.Error {
	op := rc.Store.AgencyOperations.Insert(&store.AgencyOperation{
		Resource: cs.resource, Action: cs.action, Status: "pending", Attempts: 1, UpdatedAt: rc.Now.UTC(),
	}, cs.operationOwner(rc.Principal), rc.Now)
	s.scheduleRetry(&retainedCmd{
		opID: op.ID, cmd: cmd, resource: cs.resource, action: cs.action,
		route: rc.Route, principal: rc.Principal, url: *rc.Request.URL, body: rc.Body,
	}, rc.Now)
	e := httpapi.NewError(http.StatusServiceUnavailable, wire.CodeServiceUnavailable,
		"a dependency is unavailable ("+cause.Message+"); the command was retained as operation "+op.ID+
			" and is applied when the dependency returns: read the resource to see it")
	return e.With("operation", operationView(op))
}

// operationOwner is where a retained operation is listed: the agency, or
// the calling user before the agency exists.
func (cs *cmdState) operationOwner(p *httpapi.Principal) string {
	if cs.partner != nil {
		return cs.partner.ID
	}
	return p.User.ID
}

// scheduleRetry runs a retained command again every agencyRetryEvery until
// its dependency answers; the outcome (applied with its receipt, or
// rejected with the error its guards give then) is recorded on the
// operation.
func (s *Service) scheduleRetry(r *retainedCmd, from time.Time) {
	s.Schedule(r.principal.Tenant, from.Add(agencyRetryEvery), func(now time.Time) {
		op, ok := s.Store.AgencyOperations.Get(r.opID)
		if !ok || op.Status != "pending" {
			return
		}
		rc := s.httpapi.ScheduledCtx(r.route, r.principal, http.MethodPost, r.url, r.body, now)
		cs := &cmdState{resource: r.resource, action: r.action}
		op.Attempts++
		op.UpdatedAt = now.UTC()
		var v any
		var err error
		if r.principal.Key != nil && !r.principal.Key.Active {
			err = httpapi.Unauthorized("the key that sent the command was revoked")
		} else {
			v, err = r.cmd.run(rc, cs)
		}
		var ret *errRetained
		var apiErr *httpapi.Error
		switch {
		case errors.As(err, &ret):
			s.scheduleRetry(r, now)
			return
		case errors.As(err, &apiErr):
			op.Status, op.ErrorStatus, op.ErrorCode, op.ErrorMessage = "rejected", apiErr.Status, apiErr.Code, apiErr.Message
		case err != nil:
			op.Status, op.ErrorStatus, op.ErrorCode, op.ErrorMessage = "rejected", http.StatusInternalServerError, wire.CodeInternalError, err.Error()
		default:
			if rs, ok := v.(*httpapi.Respond); ok {
				v = rs.Body
			}
			op.Status = "applied"
			op.Result, _ = jsonview.EncodeJSON(v)
		}
		if owner := cs.operationOwner(r.principal); owner != op.Owner {
			// A retained bootstrap is listed under the agency it created.
			s.Store.AgencyOperations.Update(op, func(op *store.AgencyOperation) { op.Owner = owner })
		}
	})
}

// operationView is a retained command as reads show it.
func operationView(op *store.AgencyOperation) sdk.Operation {
	v := sdk.Operation{
		OperationID: op.ID, Resource: op.Resource, Action: op.Action, Status: op.Status,
		Attempts: op.Attempts, CreatedAt: op.CreatedAt, UpdatedAt: op.UpdatedAt, Result: op.Result,
	}
	if op.ErrorCode != "" {
		v.Error = &sdk.OperationError{Status: op.ErrorStatus, Code: op.ErrorCode, Message: op.ErrorMessage}
	}
	return v
}

// operationsOf lists the latest retained commands of an agency (or user)
// on one resource, newest first.
func operationsOf(st *store.Store, owner, resource string) []sdk.Operation {
	ops, _ := httpapi.ListPage(st.AgencyOperations, []string{owner}, httpapi.PageQuery{Limit: agencyOperationsShown},
		func(op *store.AgencyOperation) bool { return op.Resource == resource }, operationView)
	return ops
}

// member resolves the agency a command acts for and checks that the
// calling user is a current member with one of roles (any role when none
// is given): 403 otherwise, also for an agency that does not exist.
func (cs *cmdState) member(rc *httpapi.Ctx, partnerID string, roles ...string) (*store.Partner, error) {
	pt, err := partnerMember(rc.Store, rc.Principal, partnerID, roles...)
	if err != nil {
		return nil, err
	}
	cs.partner = pt
	return pt, nil
}

// partnerMember returns agency partnerID when p's user is a current member
// with one of roles (any role when none is given): 403 otherwise.
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
func requireClient(rc *httpapi.Ctx, pt *store.Partner, businessID string) (*store.Business, error) {
	b, ok := rc.Store.Businesses.Get(businessID)
	if !ok || b.PartnerID != pt.ID {
		return nil, httpapi.Forbidden("business " + businessID + " is not a client of agency " + pt.ID)
	}
	userID := rc.Principal.User.ID
	if pt.Members[userID].Role == store.PartnerRoleOperator {
		if _, assigned := b.Members[userID]; !assigned {
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
	return httpapi.NewError(http.StatusConflict, wire.CodeStaleRevision,
		fmt.Sprintf("the record changed: expectedRevision %s is not the current revision %s; read it again", expected, current)).
		With("currentRevision", current)
}

// checkFingerprint is the fingerprint guard: 409 fingerprint_mismatch.
func checkFingerprint(got, want string) *httpapi.Error {
	if got == want {
		return nil
	}
	return httpapi.NewError(http.StatusConflict, wire.CodeFingerprintMismatch,
		fmt.Sprintf("fingerprint %s does not match the content's fingerprint %s: what was previewed is not what would be committed", got, want))
}

// errState is a command that the record's state does not allow: 409.
func errState(format string, args ...any) *httpapi.Error {
	return httpapi.NewError(http.StatusConflict, wire.CodeInvalidState, fmt.Sprintf(format, args...))
}

// errConflict is a 409 for duplicates and limits.
func errConflict(format string, args ...any) *httpapi.Error {
	return httpapi.NewError(http.StatusConflict, wire.CodeConflict, fmt.Sprintf(format, args...))
}

// timeOrNil is t in UTC, or nil (shown as null) when t is zero.
func timeOrNil(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = t.UTC()
	return &t
}

// stampOrNull is t in UTC, or nil (shown as null) when t is zero: the
// struct views' form of httpapi.TimeOrNull.
func stampOrNull(t time.Time) *time.Time {
	return timeOrNil(t)
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
		return nil, httpapi.NewError(http.StatusServiceUnavailable, wire.CodeServiceUnavailable,
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

// getByID answers a ?id= read of one agency record: 400 without an id (the
// pipeline refused a malformed one already), 404 for a record that is
// absent or another agency's.
func getByID[T store.Record](rc *httpapi.Ctx, t *store.Table[T], owner, what string) (T, error) {
	var zero T
	id := rc.Query("id")
	if id == "" {
		return zero, httpapi.InvalidField("id", "must be a uuid")
	}
	r, ok := t.Get(id)
	if !ok || r.RecordOwner() != owner {
		return zero, httpapi.NotFound(what + " not found: " + id)
	}
	return r, nil
}
