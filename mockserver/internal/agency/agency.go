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

	voiceagent "github.com/voiceagent/voiceagent-go"
	sdk "github.com/voiceagent/voiceagent-go/agency"
	"github.com/voiceagent/voiceagent-go/internal/canonical"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
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

// resourcePaths are the paths of the agency resources by name: the retries
// of a retained command meet the dependency faults of its resource's path.
var resourcePaths = map[string]string{
	"profile": pathAgencyProfile, "offers": pathAgencyOffers,
	"enrollments": pathAgencyEnrollments, "installations": pathAgencyInstallations,
}

// agencyCommand is one action of an agency resource.
type agencyCommand struct {
	// input returns a new, empty input of the command (a pointer to its
	// input type), which a request's body or a retained command's input
	// is decoded into.
	input func() input
	// idempotent commands refuse a request without Idempotency-Key.
	idempotent bool
	// scopes are needed beyond the route's.
	scopes []voiceagent.Scope
}

// input is the typed input of an agency command, decoded from the
// request's body: apply runs the command's operation with it, and a
// retained command keeps it to run it again.
type input interface {
	apply(s *Service, tx *platform.Tx, c *call) (any, error)
}

// inputOf returns a new input of type T, for the commands whose input is T.
func inputOf[T any, P interface {
	*T
	input
}]() input {
	return P(new(T))
}

// decode decodes the request's body into a new input of the command with
// rc.Decode, which is where the body is validated (see agencyPost).
func (cmd agencyCommand) decode(rc *httpapi.Ctx) (input, error) {
	in := cmd.input()
	if err := rc.Decode(in); err != nil {
		return nil, err
	}
	return in, nil
}

// load decodes the input a retained command keeps (RetainedCommand.Input,
// the JSON of the input it was given) into a new input of the command.
func (cmd agencyCommand) load(data []byte) (input, error) {
	in := cmd.input()
	if err := json.Unmarshal(data, in); err != nil {
		return nil, err
	}
	return in, nil
}

// faults reports whether a simulated dependency (a fault target) fails, as
// the domain error of its failure; nil when it responds.
type faults func(target admin.FaultTarget) *domain.Error

// call is what an agency operation runs with besides its input: when, who
// sent the command (by, whose tenant's clock and scoped faults apply), how
// the dependencies respond, which command it is, and the agency it acts
// for once a guard resolved it (where a retained command is listed).
type call struct {
	now      time.Time
	by       *domain.Actor
	deps     faults
	resource string
	action   string
	partner  *store.Partner
}

// user returns the record of the user who sent the command (nil when the
// account is gone, which retainedSender refuses before a retry runs).
func (c *call) user(tx *platform.Tx) *store.User {
	u, _ := tx.Users.Get(c.by.UserID)
	return u
}

// errRetained is what ready returns when a dependency is unavailable: the
// command is retained and retried.
type errRetained struct{ cause *domain.Error }

func (e *errRetained) Error() string { return "retained: " + e.cause.Error() }

// ready is called by every operation once its guards passed and before it
// changes anything: a failing dependency retains the command.
func (c *call) ready() error {
	if e := c.deps(admin.FaultTargetDependency); e != nil {
		return &errRetained{cause: e}
	}
	return nil
}

// header is what every receipt starts with: the action, a new receipt id
// and when it was recorded.
func (s *Service) header(c *call) sdk.ReceiptHeader {
	return sdk.ReceiptHeader{Action: c.action, ReceiptID: s.IDs.UUID(), RecordedAt: c.now.UTC()}
}

// receipt is the response to a command whose receipt has no wire type of
// its own here: the header's members and the resource views in extra.
func (s *Service) receipt(c *call, extra map[string]any) map[string]any {
	h := s.header(c)
	m := map[string]any{"action": h.Action, "receiptId": h.ReceiptID, "recordedAt": h.RecordedAt}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// agencyPost is the handler of POST on an agency resource: it checks the
// command (Idempotency-Key, schema, extra scopes), decodes its input and
// runs its operation; a command whose dependency is unavailable is
// retained and its response is 503.
//
// The body is validated against the route's schema once, by the command's
// decode: the action is read without validation to pick the command, and a
// refusal here first validates the body, so a body that fails validation
// gets that failure whatever else is wrong with the request (but an
// over-long Idempotency-Key).
func (s *Service) agencyPost(resource string, cmds map[string]agencyCommand) func(rc *httpapi.Ctx) (any, error) {
	return func(rc *httpapi.Ctx) (any, error) {
		key := rc.Request.Header.Get("Idempotency-Key")
		if len(key) > agencyIdempotencyKeyMax {
			return nil, domain.InvalidField("Idempotency-Key", "must be at most %d characters on agency commands", agencyIdempotencyKeyMax)
		}
		var head struct {
			Action string `json:"action"`
		}
		_ = httpapi.DecodeLoose(rc.Body, &head) // an invalid body fails rc.Decode below
		cmd, refusal := pick(rc.Actor(), cmds, head.Action, key)
		if refusal != nil {
			if err := rc.Decode(nil); err != nil {
				return nil, err
			}
			return nil, refusal
		}
		in, err := cmd.decode(rc)
		if err != nil {
			return nil, err
		}
		c := &call{now: rc.Now, by: rc.Actor(), deps: rc.DependencyFault, resource: resource, action: head.Action}
		v, err := in.apply(s, rc.Tx, c)
		var ret *errRetained
		if errors.As(err, &ret) {
			return nil, s.retain(rc.Tx, c, in, ret.cause)
		}
		if err != nil {
			return nil, err
		}
		return response(v), nil
	}
}

// accepted is the receipt of a command whose work may go on after the
// response: an enroll, whose clients may still wait for the voice
// provider.
type accepted struct{ receipt map[string]any }

// response is the response to a command that returned v: 202 Accepted
// with the receipt of an accepted command, else v.
func response(v any) any {
	if a, ok := v.(accepted); ok {
		return &httpapi.Respond{Status: http.StatusAccepted, Body: a.receipt}
	}
	return v
}

// pick returns the command of action, or why p may not run it: an unknown
// action, a missing Idempotency-Key (key) on a command that needs one, a
// scope the command needs beyond the route's.
func pick(by *domain.Actor, cmds map[string]agencyCommand, action, key string) (agencyCommand, *domain.Error) {
	cmd, ok := cmds[action]
	if !ok {
		return cmd, domain.InvalidField("/action", "unknown action %q", action)
	}
	if cmd.idempotent && strings.TrimSpace(key) == "" {
		return cmd, domain.InvalidField("Idempotency-Key",
			"the %s command needs a stable Idempotency-Key header (the same key on every retry of this command)", action)
	}
	for _, sc := range cmd.scopes {
		if !by.Has(sc) {
			return cmd, domain.Forbidden(fmt.Sprintf("the %s command needs the scope %s", action, sc))
		}
	}
	return cmd, nil
}

// retain stores the command of c with input in, whose dependency is
// unavailable, as a pending operation that keeps the command
// (store.RetainedCommand: the input and who sent it), schedules its retry
// and returns the service_unavailable error naming it.
func (s *Service) retain(tx *platform.Tx, c *call, in input, cause *domain.Error) *domain.Error {
	cmd := &store.RetainedCommand{
		Input: jsonview.MustMarshal(in), Path: resourcePaths[c.resource], Tenant: c.by.Tenant,
		UserID: c.by.UserID, KeyID: c.by.KeyID, SessionID: c.by.SessionID, Businesses: slices.Clone(c.by.Businesses),
	}
	op := tx.AgencyOperations.Insert(&store.AgencyOperation{
		Resource: c.resource, Action: c.action, Status: "pending", Attempts: 1, UpdatedAt: c.now.UTC(), Command: cmd,
	}, c.operationOwner(), c.now)
	s.scheduleRetry(op, c.now)
	e := domain.New(voiceagent.CodeServiceUnavailable,
		"a dependency is unavailable ("+cause.Message+"); the command was retained as operation "+op.ID+
			" and is applied when the dependency returns: read the resource to see it")
	return e.With("operation", operationView(op))
}

// operationOwner is where a retained operation is listed: the agency, or
// the calling user before the agency exists.
func (c *call) operationOwner() string {
	if c.partner != nil {
		return c.partner.ID
	}
	return c.by.UserID
}

// Kinds of the agency's tasks on the schedule.
const (
	// TaskRetryCommand runs a retained command (Subject: its operation)
	// again.
	TaskRetryCommand = "agency.retry_command"
	// TaskRetryEnrollment retries the waiting clients of an enrollment
	// session (Subject).
	TaskRetryEnrollment = "agency.retry_enrollment"
)

// scheduleRetry runs the retained command of operation op again
// agencyRetryEvery after from on its sender's tenant's clock (see
// retryCommand).
func (s *Service) scheduleRetry(op *store.AgencyOperation, from time.Time) {
	s.Schedule(op.Command.Tenant, clock.Task{At: from.Add(agencyRetryEvery), Kind: TaskRetryCommand, Subject: op.ID})
}

// retryCommand is the task TaskRetryCommand: it runs the retained command
// of operation t.Subject again (runRetained), and schedules the next retry
// while its dependency stays unavailable.
func (s *Service) retryCommand(tx *platform.Tx, now time.Time, t clock.Task) {
	op, ok := tx.AgencyOperations.Get(t.Subject)
	if ok && s.runRetained(tx, now, op) {
		s.scheduleRetry(op, now)
	}
}

// runRetained runs the retained command of operation op again at now and
// reports whether its dependency is still unavailable (it is retried
// later). Otherwise the outcome is recorded on the operation: applied with
// its receipt, or rejected with the error its guards give now. A command
// whose operation is no longer pending is not run.
func (s *Service) runRetained(tx *platform.Tx, now time.Time, op *store.AgencyOperation) (retry bool) {
	r := op.Command
	if op.Status != "pending" || r == nil {
		return false
	}
	op.Attempts++
	op.UpdatedAt = now.UTC()
	by, err := retainedSender(tx, r)
	c := &call{
		now: now, by: by, resource: op.Resource, action: op.Action,
		deps: func(target admin.FaultTarget) *domain.Error {
			return s.httpapi.DependencyFaultAt(target, http.MethodPost, r.Path, r.Tenant)
		},
	}
	var v any
	if err == nil {
		var in input
		if in, err = s.retainedInput(op); err == nil {
			v, err = in.apply(s, tx, c)
		}
	}
	var ret *errRetained
	var de *domain.Error
	switch {
	case errors.As(err, &ret):
		return true
	case errors.As(err, &de):
		op.Status, op.ErrorStatus, op.ErrorCode, op.ErrorMessage = "rejected", httpapi.Status(de), de.Code, de.Message
	case err != nil:
		op.Status, op.ErrorStatus, op.ErrorCode, op.ErrorMessage = "rejected", httpapi.StatusOf(voiceagent.CodeInternalError), voiceagent.CodeInternalError, err.Error()
	default:
		if a, ok := v.(accepted); ok {
			v = a.receipt
		}
		op.Status = "applied"
		op.Result, _ = jsonview.EncodeJSON(v)
	}
	op.Command = nil
	if by == nil {
		return false
	}
	if owner := c.operationOwner(); owner != op.Owner {
		// A retained bootstrap is listed under the agency it created.
		tx.AgencyOperations.Update(op, func(op *store.AgencyOperation) { op.Owner = owner })
	}
	return false
}

// retainedSender is the actor that sent retained command r, as the
// command runs again (with its key's scopes now), and an error when it may
// no longer run the command: its key was revoked, or (with no actor) its
// account is gone.
func retainedSender(tx *platform.Tx, r *store.RetainedCommand) (*domain.Actor, error) {
	if _, ok := tx.Users.Get(r.UserID); !ok {
		return nil, domain.Unauthorized("the account that sent the command no longer exists")
	}
	by := &domain.Actor{UserID: r.UserID, KeyID: r.KeyID, Businesses: r.Businesses, Tenant: r.Tenant}
	if _, ok := tx.Sessions.Get(r.SessionID); ok {
		by.SessionID = r.SessionID
	}
	if r.KeyID != "" {
		k, ok := tx.Keys.Get(r.KeyID) // keys are revoked, not deleted
		if !ok || !k.Active {
			return by, domain.Unauthorized("the key that sent the command was revoked")
		}
		by.Scopes = k.Scopes
	}
	return by, nil
}

// retainedInput returns the typed input of operation op's retained
// command, decoded from the JSON it keeps into the command's input type.
func (s *Service) retainedInput(op *store.AgencyOperation) (input, error) {
	cmd, ok := s.commands[op.Resource][op.Action]
	if !ok {
		return nil, fmt.Errorf("no %s command %q", op.Resource, op.Action)
	}
	return cmd.load(op.Command.Input)
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
func operationsOf(tx *platform.Tx, owner, resource string) []sdk.Operation {
	ops, _ := httpapi.ListPage(tx.AgencyOperations, []string{owner}, httpapi.PageQuery{Limit: agencyOperationsShown},
		func(op *store.AgencyOperation) bool { return op.Resource == resource }, operationView)
	return ops
}

// member resolves the agency a command acts for and checks that the
// sender is a current member with one of roles (any role when none is
// given): 403 otherwise, also for an agency that does not exist.
func (c *call) member(tx *platform.Tx, partnerID string, roles ...string) (*store.Partner, error) {
	pt, err := partnerMember(tx, c.by, partnerID, roles...)
	if err != nil {
		return nil, err
	}
	c.partner = pt
	return pt, nil
}

// partnerMember returns agency partnerID when by's user is a current member
// with one of roles (any role when none is given): 403 otherwise.
func partnerMember(tx *platform.Tx, by *domain.Actor, partnerID string, roles ...string) (*store.Partner, error) {
	pt, ok := tx.Partners.Get(partnerID)
	var m *store.PartnerMember
	if ok {
		m = pt.Members[by.UserID]
	}
	if m == nil {
		return nil, domain.Forbidden("current membership of agency " + partnerID + " is required")
	}
	if len(roles) > 0 && !slices.Contains(roles, m.Role) {
		return nil, domain.Forbidden(fmt.Sprintf("the %s role may not do this; it needs the role %s", m.Role, strings.Join(roles, " or ")))
	}
	return pt, nil
}

// requireClient checks that a business is a client of the agency and, for
// an operator (userID), that the operator is assigned to it: 403
// otherwise.
func requireClient(tx *platform.Tx, userID string, pt *store.Partner, businessID string) (*store.Business, error) {
	b, ok := tx.Businesses.Get(businessID)
	if !ok || b.PartnerID != pt.ID {
		return nil, domain.Forbidden("business " + businessID + " is not a client of agency " + pt.ID)
	}
	if pt.Members[userID].Role == store.PartnerRoleOperator {
		if _, assigned := b.Members[userID]; !assigned {
			return nil, domain.Forbidden("the operator is not assigned to business " + businessID)
		}
	}
	return b, nil
}

// checkRevision is the expectedRevision guard: 409 stale_revision naming
// the current revision.
func checkRevision(expected, current string) *domain.Error {
	if expected == current {
		return nil
	}
	return domain.New(voiceagent.CodeStaleRevision,
		fmt.Sprintf("the record changed: expectedRevision %s is not the current revision %s; read it again", expected, current)).
		With("currentRevision", current)
}

// checkFingerprint is the fingerprint guard: 409 fingerprint_mismatch.
func checkFingerprint(got, want string) *domain.Error {
	if got == want {
		return nil
	}
	return domain.New(voiceagent.CodeFingerprintMismatch,
		fmt.Sprintf("fingerprint %s does not match the content's fingerprint %s: what was previewed is not what would be committed", got, want))
}

// errState is a command that the record's state does not allow: 409.
func errState(format string, args ...any) *domain.Error {
	return domain.New(voiceagent.CodeInvalidState, fmt.Sprintf(format, args...))
}

// errConflict is a 409 for duplicates and limits.
func errConflict(format string, args ...any) *domain.Error {
	return domain.New(voiceagent.CodeConflict, fmt.Sprintf(format, args...))
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
// struct views' form of val.TimeOrNull.
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
// empty response), partnerId (default: the caller's agency) must be a uuid,
// and the caller must be a current member. It returns the agency, or nil
// with no error when the caller is not a member and allowNonMember is set.
func agencyRead(rc *httpapi.Ctx, allowNonMember bool) (*store.Partner, error) {
	if e := rc.DependencyFault(admin.FaultTargetDependency); e != nil {
		return nil, domain.New(voiceagent.CodeServiceUnavailable,
			"the agency evidence is unavailable ("+e.Message+"); it is not reported as empty: retry later")
	}
	pid := rc.Query("partnerId")
	if pid == "" {
		pid = rc.Principal.User.PartnerID
	} else if err := uuid.Validate(pid); err != nil {
		return nil, domain.InvalidField("partnerId", "must be a uuid")
	}
	if pid == "" {
		if allowNonMember {
			return nil, nil
		}
		return nil, domain.Forbidden("current membership of an agency is required (bootstrap one, or accept an invite)")
	}
	pt, err := partnerMember(rc.Tx, rc.Actor(), pid)
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
			return nil, false, domain.InvalidField("after", "must be a uuid: the id of the last record of the previous page")
		}
		r, ok := t.Get(a)
		if !ok || r.RecordOwner() != owner {
			return nil, false, domain.InvalidField("after", "names no record of this list")
		}
		pq.After = r.RecordCreated()
	}
	items, more := httpapi.ListPage(t, []string{owner}, pq, nil, view)
	return items, more, nil
}

// getByID returns the record a ?id= read names: 400 without an id (the
// pipeline refused a malformed one already), 404 for a record that is
// absent or another agency's.
func getByID[T store.Record](rc *httpapi.Ctx, t *store.Table[T], owner, what string) (T, error) {
	var zero T
	id := rc.Query("id")
	if id == "" {
		return zero, domain.InvalidField("id", "must be a uuid")
	}
	r, ok := t.Get(id)
	if !ok || r.RecordOwner() != owner {
		return zero, domain.NotFound(what + " not found: " + id)
	}
	return r, nil
}
