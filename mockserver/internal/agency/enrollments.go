package agency

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	sdk "github.com/voiceagent/voiceagent-go/agency"
	"github.com/voiceagent/voiceagent-go/internal/wire"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/identity"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// Enrollment session states.
const (
	sessDraft     = "draft"
	sessPreviewed = "previewed"
	sessApproved  = "approved"
	sessEnrolling = "enrolling"
	sessEnrolled  = "enrolled"
	sessRevoked   = "revoked"
)

// Per-client receipt states.
const (
	clientEnrolled = "enrolled"
	clientUpdated  = "updated"
	clientWaiting  = "waiting"
	clientConflict = "conflict"
)

// enrollmentCommands are the commands of POST /v1/agency-enrollments.
func (s *Service) enrollmentCommands() map[string]agencyCommand {
	return map[string]agencyCommand{
		"start_self_service":  {run: s.enrollStartSelfService},
		"finish_self_service": {run: s.enrollFinishSelfService},
		"owner_save":          {run: s.enrollOwnerSave},
		"create":              {run: s.enrollCreate, idempotent: true},
		"save":                {run: s.enrollSave},
		"preview":             {run: s.enrollPreview},
		"enroll":              {run: s.enrollCommit, idempotent: true},
		"claim_owner":         {run: s.enrollClaimOwner},
		"approve_owner":       {run: s.enrollApproveOwner},
		"rotate_owner_link":   {run: s.enrollRotateOwnerLink},
		"revoke":              {run: s.enrollRevoke},
	}
}

// sessionRef is the part most enrollment commands have.
type sessionRef struct {
	PartnerID        string `json:"partnerId"`
	SessionID        string `json:"sessionId"`
	ExpectedRevision string `json:"expectedRevision"`
}

// session resolves an agency-side enrollment command: the caller must be a
// member with one of roles.
func (cs *cmdState) session(rc *httpapi.Ctx, ref sessionRef, roles ...string) (*store.EnrollmentSession, error) {
	pt, err := cs.member(rc, ref.PartnerID, roles...)
	if err != nil {
		return nil, err
	}
	sess, ok := rc.Store.Enrollments.Get(ref.SessionID)
	if !ok || sess.Owner != pt.ID {
		return nil, httpapi.NotFound("enrollment session not found: " + ref.SessionID)
	}
	return sess, nil
}

// anySession resolves an owner-side command's session without a
// membership check (the owner is not an agency member).
func (cs *cmdState) anySession(rc *httpapi.Ctx, ref sessionRef) (*store.EnrollmentSession, error) {
	sess, ok := rc.Store.Enrollments.Get(ref.SessionID)
	pt, found := rc.Store.Partners.Get(ref.PartnerID)
	if !ok || !found || sess.Owner != pt.ID {
		return nil, httpapi.NotFound("enrollment session not found: " + ref.SessionID)
	}
	cs.partner = pt
	return sess, nil
}

// editableSession resolves an agency-side command (admin or operator) on a
// session that may still change.
func (cs *cmdState) editableSession(rc *httpapi.Ctx, ref sessionRef) (*store.EnrollmentSession, error) {
	sess, err := cs.session(rc, ref, roleAdmin, roleOperator)
	if err != nil {
		return nil, err
	}
	if !editable(sess) {
		return nil, errNotEditable(sess)
	}
	return sess, nil
}

// plainSessionCmd decodes a command that only names a session, resolves
// the session (editable, admin or operator) and checks dependencies.
func (cs *cmdState) plainSessionCmd(rc *httpapi.Ctx) (*store.EnrollmentSession, error) {
	_, sess, err := decodeSession(rc, cs.editableSession)
	if err != nil {
		return nil, err
	}
	return sess, ready(rc)
}

// decodeSession decodes a command that only names a session and resolves
// the session with resolve.
func decodeSession(rc *httpapi.Ctx, resolve func(*httpapi.Ctx, sessionRef) (*store.EnrollmentSession, error)) (sessionRef, *store.EnrollmentSession, error) {
	var body sessionRef
	if err := rc.Decode(&body); err != nil {
		return body, nil, err
	}
	sess, err := resolve(rc, body)
	return body, sess, err
}

// changed gives a changed session a new revision and answers the receipt
// with the session.
func (s *Service) changed(rc *httpapi.Ctx, cs *cmdState, sess *store.EnrollmentSession) map[string]any {
	s.touch(rc.Now, sess)
	return s.receipt(rc, cs, map[string]any{"session": sessionView(sess)})
}

// ownerSession resolves a command only the session's claimed owner may
// send.
func (cs *cmdState) ownerSession(rc *httpapi.Ctx, ref sessionRef) (*store.EnrollmentSession, error) {
	sess, err := cs.anySession(rc, ref)
	if err != nil {
		return nil, err
	}
	if sess.OwnerLink.Status != "claimed" || sess.OwnerLink.ClaimedBy != rc.Principal.User.ID {
		return nil, httpapi.Forbidden("only the owner who claimed the session's owner link may do this")
	}
	return sess, nil
}

// editable reports whether a session's entries and owner link may still
// change.
func editable(sess *store.EnrollmentSession) bool {
	return sess.State == sessDraft || sess.State == sessPreviewed || sess.State == sessApproved
}

// errNotEditable is the 409 of a command on a session that may no longer
// change.
func errNotEditable(sess *store.EnrollmentSession) *httpapi.Error {
	return errState("the enrollment session is %s", sess.State)
}

// touch gives a session a new revision after a change at now.
func (s *Service) touch(now time.Time, sess *store.EnrollmentSession) {
	sess.Revision, sess.UpdatedAt = s.IDs.UUID(), now.UTC()
}

// sessionFingerprint is the fingerprint of a session's content: the
// canonical JSON of {"offerVersionId", "entries"} with the entries as sent.
func sessionFingerprint(sess *store.EnrollmentSession) string {
	return fingerprint(map[string]any{"offerVersionId": sess.OfferVersionID, "entries": sess.Entries})
}

// setEntries stores entries (facts in canonical form) and recomputes the
// fingerprint; the session goes back to draft and loses its approval.
func setEntries(sess *store.EnrollmentSession, entries []store.EnrollmentEntry) {
	for i := range entries {
		entries[i].Facts = canonicalJSON(entries[i].Facts)
	}
	sess.Entries = entries
	sess.Fingerprint = sessionFingerprint(sess)
	sess.State, sess.Approval = sessDraft, nil
}

// checkEntries checks the entries of create and save: existing businesses
// are the agency's clients (and assigned to an operator), no business or
// external reference twice.
func checkEntries(rc *httpapi.Ctx, pt *store.Partner, entries []store.EnrollmentEntry) error {
	seen := map[string]bool{}
	for i, e := range entries {
		at := "/entries/" + strconv.Itoa(i)
		key, path := "b:"+e.BusinessID, at+"/businessId"
		if e.BusinessID == "" {
			key, path = "r:"+e.NewClient.ExternalRef, at+"/newClient/externalRef"
		} else if _, err := requireClient(rc, pt, e.BusinessID); err != nil {
			return err
		}
		if seen[key] {
			return httpapi.InvalidField(path, "names the same client as an earlier entry")
		}
		seen[key] = true
	}
	return nil
}

// issueOwnerLink gives a session a new owner link and emails it to the
// owner. The token is only in the email, never in an answer.
func (s *Service) issueOwnerLink(rc *httpapi.Ctx, pt *store.Partner, sess *store.EnrollmentSession) {
	token := "own_" + s.IDs.Token(24)
	sess.OwnerLink = store.OwnerLink{Status: "issued", TokenHash: sha256.Sum256([]byte(token)), IssuedAt: rc.Now.UTC()}
	link := appBaseURL + "/owner/enrollment?" + url.Values{"partnerId": {pt.ID}, "sessionId": {sess.ID}, "token": {token}}.Encode()
	s.SendOutbox(rc.Store, rc.Now, store.OutboxMessage{
		BusinessID: rc.Tenant, Channel: "email", To: sess.OwnerEmail, From: "no-reply@voiceagent.example",
		Subject: pt.Brand.Name + " asks you to review your phone agent setup",
		Body:    "Review and approve what " + pt.Brand.Name + " will set up for you: " + link,
		Link:    link,
	})
}

func (s *Service) enrollCreate(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body struct {
		PartnerID      string                  `json:"partnerId"`
		OfferVersionID string                  `json:"offerVersionId"`
		Entries        []store.EnrollmentEntry `json:"entries"`
		OwnerEmail     string                  `json:"ownerEmail"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	pt, err := cs.member(rc, body.PartnerID, roleAdmin, roleOperator)
	if err != nil {
		return nil, err
	}
	if _, err := offerVersionFor(rc.Store, body.OfferVersionID, pt.ID); err != nil {
		return nil, err
	}
	if err := checkEntries(rc, pt, body.Entries); err != nil {
		return nil, err
	}
	if err := ready(rc); err != nil {
		return nil, err
	}
	sess := &store.EnrollmentSession{
		OfferVersionID: body.OfferVersionID, OwnerEmail: strings.ToLower(body.OwnerEmail),
		CreatedBy: rc.Principal.User.ID, OwnerLink: store.OwnerLink{Status: "none"},
	}
	setEntries(sess, body.Entries)
	rc.Store.Enrollments.Insert(sess, pt.ID, rc.Now)
	s.touch(rc.Now, sess)
	if sess.OwnerEmail != "" {
		s.issueOwnerLink(rc, pt, sess)
	}
	return s.receipt(rc, cs, map[string]any{"session": sessionView(sess)}), nil
}

func (s *Service) enrollSave(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body struct {
		sessionRef
		Entries []store.EnrollmentEntry `json:"entries"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	sess, err := cs.editableSession(rc, body.sessionRef)
	if err != nil {
		return nil, err
	}
	if e := checkRevision(body.ExpectedRevision, sess.Revision); e != nil {
		return nil, e
	}
	if err := checkEntries(rc, cs.partner, body.Entries); err != nil {
		return nil, err
	}
	if err := ready(rc); err != nil {
		return nil, err
	}
	setEntries(sess, body.Entries)
	return s.changed(rc, cs, sess), nil
}

func (s *Service) enrollPreview(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	sess, err := cs.plainSessionCmd(rc)
	if err != nil {
		return nil, err
	}
	if sess.State == sessDraft {
		sess.State = sessPreviewed
	}
	s.touch(rc.Now, sess)
	plan := make([]planItemJSON, len(sess.Entries))
	for i, e := range sess.Entries {
		p := classifyEntry(rc.Store, sess.Owner, e)
		plan[i] = planItemJSON{
			Entry: i, Action: p.action, BusinessID: httpapi.Strp(p.businessID),
			ExternalRef: httpapi.Strp(p.externalRef), CurrentRevision: httpapi.Strp(p.current),
			Conflict: httpapi.Strp(p.detail),
		}
	}
	return s.receipt(rc, cs, map[string]any{"session": sessionView(sess), "fingerprint": sess.Fingerprint, "plan": plan}), nil
}

func (s *Service) enrollClaimOwner(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body struct {
		sessionRef
		Token string `json:"token"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	sess, err := cs.anySession(rc, body.sessionRef)
	if err != nil {
		return nil, err
	}
	if !editable(sess) {
		return nil, errNotEditable(sess)
	}
	link := &sess.OwnerLink
	if link.Status == "none" {
		return nil, errState("the enrollment session has no owner link")
	}
	sum := sha256.Sum256([]byte(body.Token))
	if subtle.ConstantTimeCompare(link.TokenHash[:], sum[:]) != 1 {
		return nil, httpapi.Forbidden("the owner link token is not valid (it may have been rotated)")
	}
	if link.Status == "claimed" {
		if link.ClaimedBy != rc.Principal.User.ID {
			return nil, errConflict("the owner link was already claimed by another user")
		}
		return s.receipt(rc, cs, map[string]any{"session": sessionView(sess)}), nil
	}
	if err := ready(rc); err != nil {
		return nil, err
	}
	link.Status, link.ClaimedBy, link.ClaimedAt = "claimed", rc.Principal.User.ID, rc.Now.UTC()
	return s.changed(rc, cs, sess), nil
}

// approve records the owner's approval of the session's fingerprint.
func (s *Service) approve(rc *httpapi.Ctx, cs *cmdState, sess *store.EnrollmentSession) map[string]any {
	a := &store.OwnerApproval{ID: s.IDs.UUID(), Fingerprint: sess.Fingerprint, ApprovedBy: rc.Principal.User.ID, ApprovedAt: rc.Now.UTC()}
	sess.Approval = a
	sess.ApprovalIDs = append(sess.ApprovalIDs, a.ID)
	sess.State = sessApproved
	s.touch(rc.Now, sess)
	return s.receipt(rc, cs, map[string]any{"session": sessionView(sess), "approvalId": a.ID})
}

func (s *Service) enrollApproveOwner(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body struct {
		sessionRef
		Fingerprint string `json:"fingerprint"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	sess, err := cs.ownerSession(rc, body.sessionRef)
	if err != nil {
		return nil, err
	}
	if sess.State != sessPreviewed {
		return nil, errState("the enrollment session is %s; the owner approves a previewed session", sess.State)
	}
	if e := checkRevision(body.ExpectedRevision, sess.Revision); e != nil {
		return nil, e
	}
	if e := checkFingerprint(body.Fingerprint, sess.Fingerprint); e != nil {
		return nil, e
	}
	if err := ready(rc); err != nil {
		return nil, err
	}
	return s.approve(rc, cs, sess), nil
}

func (s *Service) enrollRotateOwnerLink(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	body, sess, err := decodeSession(rc, cs.editableSession)
	if err != nil {
		return nil, err
	}
	switch {
	case sess.SelfService:
		return nil, errState("a self-service session belongs to the owner who started it; it has no owner link")
	case sess.OwnerEmail == "":
		return nil, errState("the enrollment session has no ownerEmail to send an owner link to")
	}
	if e := checkRevision(body.ExpectedRevision, sess.Revision); e != nil {
		return nil, e
	}
	if err := ready(rc); err != nil {
		return nil, err
	}
	s.issueOwnerLink(rc, cs.partner, sess)
	sess.Approval = nil
	if sess.State == sessApproved {
		sess.State = sessPreviewed
	}
	return s.changed(rc, cs, sess), nil
}

func (s *Service) enrollRevoke(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	sess, err := cs.plainSessionCmd(rc)
	if err != nil {
		return nil, err
	}
	sess.State, sess.Approval = sessRevoked, nil
	sess.OwnerLink.Status = "revoked"
	return s.changed(rc, cs, sess), nil
}

func (s *Service) enrollStartSelfService(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body struct {
		OfferVersionID string          `json:"offerVersionId"`
		Name           string          `json:"name"`
		Facts          json.RawMessage `json:"facts"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	v, err := offerVersionFor(rc.Store, body.OfferVersionID, "")
	if err != nil {
		return nil, err
	}
	pt, _ := rc.Store.Partners.Get(v.Owner)
	cs.partner = pt
	if err := ready(rc); err != nil {
		return nil, err
	}
	u := rc.Principal.User
	sess := rc.Store.Enrollments.Insert(&store.EnrollmentSession{
		OfferVersionID: v.ID, SelfService: true, OwnerEmail: u.Email, CreatedBy: u.ID,
		OwnerLink: store.OwnerLink{Status: "claimed", ClaimedBy: u.ID, ClaimedAt: rc.Now.UTC(), IssuedAt: rc.Now.UTC()},
	}, pt.ID, rc.Now)
	setEntries(sess, []store.EnrollmentEntry{{
		NewClient: &store.NewClient{Name: body.Name, ExternalRef: "self-service:" + sess.ID, OwnerEmail: u.Email},
		Facts:     body.Facts,
	}})
	s.touch(rc.Now, sess)
	return s.receipt(rc, cs, map[string]any{"session": sessionView(sess)}), nil
}

func (s *Service) enrollOwnerSave(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body struct {
		sessionRef
		Facts json.RawMessage `json:"facts"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	sess, err := cs.ownerSession(rc, body.sessionRef)
	if err != nil {
		return nil, err
	}
	switch {
	case !editable(sess):
		return nil, errNotEditable(sess)
	case len(sess.Entries) != 1:
		return nil, errState("owner_save changes the facts of a session with one client; this one has %d", len(sess.Entries))
	}
	if e := checkRevision(body.ExpectedRevision, sess.Revision); e != nil {
		return nil, e
	}
	if err := ready(rc); err != nil {
		return nil, err
	}
	entries := slices.Clone(sess.Entries)
	entries[0].Facts = body.Facts
	setEntries(sess, entries)
	return s.changed(rc, cs, sess), nil
}

func (s *Service) enrollFinishSelfService(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	_, sess, err := decodeSession(rc, cs.ownerSession)
	if err != nil {
		return nil, err
	}
	switch {
	case !sess.SelfService:
		return nil, errState("the enrollment session is not a self-service session")
	case sess.State != sessDraft && sess.State != sessPreviewed:
		return nil, errState("the enrollment session is %s", sess.State)
	}
	if err := ready(rc); err != nil {
		return nil, err
	}
	return s.approve(rc, cs, sess), nil
}

func (s *Service) enrollCommit(rc *httpapi.Ctx, cs *cmdState) (any, error) {
	var body struct {
		sessionRef
		Fingerprint string   `json:"fingerprint"`
		ApprovalIDs []string `json:"approvalIds"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	sess, err := cs.session(rc, body.sessionRef, roleAdmin, roleOperator)
	if err != nil {
		return nil, err
	}
	switch sess.State {
	case sessDraft:
		return nil, errState("the enrollment session was changed since its preview: preview it (and have the owner approve it) first")
	case sessEnrolling, sessEnrolled, sessRevoked:
		return nil, errNotEditable(sess)
	}
	if e := checkRevision(body.ExpectedRevision, sess.Revision); e != nil {
		return nil, e
	}
	if e := checkFingerprint(body.Fingerprint, sess.Fingerprint); e != nil {
		return nil, e
	}
	if sess.Approval == nil || sess.Approval.Fingerprint != sess.Fingerprint {
		return nil, httpapi.NewError(http.StatusForbidden, wire.CodeApprovalRequired,
			"the owner has not approved fingerprint "+sess.Fingerprint+" of this session")
	}
	if !slices.Contains(body.ApprovalIDs, sess.Approval.ID) {
		return nil, httpapi.NewError(http.StatusForbidden, wire.CodeApprovalRequired,
			"approvalIds must include the owner's approval "+sess.Approval.ID+" of this exact fingerprint")
	}
	for i, id := range body.ApprovalIDs {
		if !slices.Contains(sess.ApprovalIDs, id) {
			return nil, httpapi.InvalidField("/approvalIds/"+strconv.Itoa(i), "%s is not an approval of this session", id)
		}
	}
	v, err := offerVersionFor(rc.Store, sess.OfferVersionID, sess.Owner)
	if err != nil {
		return nil, err
	}
	if _, care := versionPackage(v, "care"); care && !rc.Principal.Has(wire.ScopeSMSWrite) {
		return nil, httpapi.Forbidden("the offer includes the care package, which needs the scope " + wire.ScopeSMSWrite)
	}
	for _, e := range sess.Entries {
		if e.BusinessID != "" {
			if _, err := requireClient(rc, cs.partner, e.BusinessID); err != nil {
				return nil, err
			}
		}
	}
	if err := ready(rc); err != nil {
		return nil, err
	}
	sess.EnrolledBy, sess.EnrolledAt, sess.Receipts = rc.Principal.User.ID, rc.Now.UTC(), nil
	for i := range sess.Entries {
		sess.Receipts = append(sess.Receipts, s.enrollEntry(rc, sess, v, i))
	}
	if s.settle(sess) {
		s.scheduleWaiting(rc.Tenant, sess.ID, rc.Now)
	}
	s.touch(rc.Now, sess)
	return &httpapi.Respond{Status: http.StatusAccepted, Body: s.receipt(rc, cs, map[string]any{
		"session": sessionView(sess), "clients": receiptViews(sess.Receipts),
	})}, nil
}

// planItemJSON is what enroll would do with one entry, as the preview's
// receipt shows it.
type planItemJSON struct {
	Entry           int     `json:"entry"`
	Action          string  `json:"action"`
	BusinessID      *string `json:"businessId"`
	ExternalRef     *string `json:"externalRef"`
	CurrentRevision *string `json:"currentRevision"`
	Conflict        *string `json:"conflict"`
}

// settle sets an enrolling session's state from its receipts and reports
// whether clients are still waiting.
func (s *Service) settle(sess *store.EnrollmentSession) (waiting bool) {
	waiting = slices.ContainsFunc(sess.Receipts, func(r *store.ClientReceipt) bool { return r.State == clientWaiting })
	sess.State = sessEnrolled
	if waiting {
		sess.State = sessEnrolling
	}
	return waiting
}

// scheduleWaiting retries the waiting clients of a session every
// agencyRetryEvery of tenant's clock until none waits.
func (s *Service) scheduleWaiting(tenant, sessID string, from time.Time) {
	s.Schedule(tenant, from.Add(agencyRetryEvery), func(now time.Time) {
		sess, ok := s.Store.Enrollments.Get(sessID)
		if !ok || sess.State != sessEnrolling {
			return
		}
		v, ok := s.Store.OfferVersions.Get(sess.OfferVersionID)
		if !ok {
			return
		}
		// The voice provider's faults are matched as on the enroll.
		rc := s.httpapi.ScheduledCtx(nil, nil, http.MethodPost, url.URL{Path: pathAgencyEnrollments}, nil, now)
		changed := false
		for i, r := range sess.Receipts {
			if r.State != clientWaiting {
				continue
			}
			nr := s.enrollEntry(rc, sess, v, r.Entry)
			nr.Attempts = r.Attempts + 1
			sess.Receipts[i] = nr
			changed = changed || nr.State != clientWaiting
		}
		if s.settle(sess) {
			s.scheduleWaiting(tenant, sessID, now)
		}
		if changed {
			sess.Revision, sess.UpdatedAt = s.IDs.UUID(), now.UTC()
		}
	})
}

// entryPlan is what enrolling one entry does.
type entryPlan struct {
	action      string // create_client, install, update, unchanged, conflict
	reason      string // for conflicts: stale_revision, reconciliation_required
	detail      string
	businessID  string
	externalRef string
	existing    string // the business an external reference already names
	current     string // the client's current facts revision
	inst        *store.Installation
}

// classifyEntry decides what enrolling an entry does, without doing it:
// the preview's plan and the enroll's receipts come from it.
func classifyEntry(st *store.Store, partnerID string, e store.EnrollmentEntry) entryPlan {
	expected := ""
	if e.ExpectedRevision != nil {
		expected = *e.ExpectedRevision
	}
	if e.BusinessID != "" {
		p := entryPlan{businessID: e.BusinessID}
		if inst := st.InstallationByBusiness[e.BusinessID]; inst != nil {
			p.inst, p.current = inst, inst.FactsRevision
		}
		switch {
		case expected != p.current:
			p.action, p.reason = clientConflict, wire.CodeStaleRevision
			p.detail = "the client's facts changed: expectedRevision " + orNone(expected) + " is not the current " + orNone(p.current)
		case p.inst == nil:
			p.action = "install"
		case fingerprint(e.Facts) == p.inst.FactsRevision:
			p.action = "unchanged"
		default:
			p.action = "update"
		}
		return p
	}
	p := entryPlan{action: "create_client", externalRef: e.NewClient.ExternalRef}
	if existing := st.ClientsByRef[partnerID+"\x00"+p.externalRef]; existing != "" {
		p.action, p.reason, p.existing = clientConflict, wire.CodeReconciliationRequired, existing
		p.detail = "a client with externalRef " + p.externalRef + " exists (business " + existing + "): enroll it by businessId"
	} else if expected != "" {
		p.action, p.reason = clientConflict, wire.CodeStaleRevision
		p.detail = "a new client has no facts revision: expectedRevision must be null"
	}
	return p
}

// orNone shows an absent revision as null in a message.
func orNone(rev string) string {
	if rev == "" {
		return "null"
	}
	return rev
}

// enrollEntry enrolls one entry of a session and returns its receipt: a
// new client is provisioned (business linked to the agency, intake agent,
// number) unless the voice provider is unavailable (waiting); an existing
// client is installed, or gets a pending update when its facts changed;
// stale revisions and known external references are conflicts.
func (s *Service) enrollEntry(rc *httpapi.Ctx, sess *store.EnrollmentSession, v *store.OfferVersion, i int) *store.ClientReceipt {
	st, now := rc.Store, rc.Now
	e := sess.Entries[i]
	p := classifyEntry(st, sess.Owner, e)
	r := &store.ClientReceipt{
		Entry: i, BusinessID: p.businessID, ExternalRef: p.externalRef, ExistingBusinessID: p.existing,
		Reason: p.reason, Detail: p.detail, Attempts: 1, UpdatedAt: now.UTC(),
	}
	switch p.action {
	case clientConflict:
		r.State = clientConflict
	case "unchanged":
		r.State, r.Reason, r.Detail, r.InstallationID = clientEnrolled, "unchanged", "already installed with these facts", p.inst.ID
	case "update":
		u := s.addFactsUpdate(now, p.inst, e.Facts)
		r.State, r.InstallationID, r.UpdateID = clientUpdated, p.inst.ID, u.ID
	case "install":
		b, _ := st.Businesses.Get(p.businessID)
		r.State, r.InstallationID = clientEnrolled, s.newInstallation(st, now, sess, v, b, intakeAgentOf(st, b.ID), e.Facts).ID
	default: // create_client
		if f := rc.DependencyFault(httpapi.FaultTargetVoiceProvider); f != nil {
			r.State, r.Reason = clientWaiting, "dependency_unavailable"
			r.Detail = "the voice provider is unavailable (" + f.Message + "); the client is provisioned when it returns"
			return r
		}
		pr := s.identity.Provision(st, now, identity.ProvisionSpec{
			BusinessName: e.NewClient.Name, Email: s.clientOwnerEmail(st, sess, e), PartnerID: sess.Owner, NoCredentials: true,
			Tenant: rc.Tenant,
		})
		st.ClientsByRef[sess.Owner+"\x00"+p.externalRef] = pr.Business.ID
		if _, member := pr.Business.Members[sess.EnrolledBy]; !member {
			st.AddMember(pr.Business, sess.EnrolledBy, store.RoleAdmin)
		}
		r.State, r.BusinessID = clientEnrolled, pr.Business.ID
		r.InstallationID = s.newInstallation(st, now, sess, v, pr.Business, pr.Agent, e.Facts).ID
	}
	return r
}

// clientOwnerEmail is who owns a new client: the entry's ownerEmail, else
// the session's, else the owner who claimed the link, else the enroller.
func (s *Service) clientOwnerEmail(st *store.Store, sess *store.EnrollmentSession, e store.EnrollmentEntry) string {
	if e.NewClient.OwnerEmail != "" {
		return e.NewClient.OwnerEmail
	}
	if sess.OwnerEmail != "" {
		return sess.OwnerEmail
	}
	for _, id := range []string{sess.OwnerLink.ClaimedBy, sess.EnrolledBy} {
		if u, ok := st.Users.Get(id); ok {
			return u.Email
		}
	}
	return "owner-" + sess.ID + "@clients.voiceagent.example"
}

// intakeAgentOf returns a business's intake agent (else its oldest agent).
func intakeAgentOf(st *store.Store, businessID string) *store.Agent {
	agents := st.Agents.Owned(businessID)
	for _, a := range agents {
		if a.Intake {
			return a
		}
	}
	if len(agents) > 0 {
		return agents[0]
	}
	return nil
}

// getAgencyEnrollments is GET /v1/agency-enrollments: a page of sessions
// (newest first, 20 a page, after = the last sessionId seen), or one with
// ?id=, which the session's claimed owner may read too. Owner-link tokens
// are never shown.
func (s *Service) getAgencyEnrollments(rc *httpapi.Ctx) (any, error) {
	pt, err := agencyRead(rc, true)
	if err != nil {
		return nil, err
	}
	if id := rc.Query("id"); id != "" {
		if pt != nil {
			sess, err := getByID(rc, rc.Store.Enrollments, pt.ID, "enrollment session")
			if err != nil {
				return nil, err
			}
			return sessionView(sess), nil
		}
		if uuid.Validate(id) == nil {
			if sess, ok := rc.Store.Enrollments.Get(id); ok && sess.OwnerLink.Status == "claimed" &&
				sess.OwnerLink.ClaimedBy == rc.Principal.User.ID && (rc.Query("partnerId") == "" || rc.Query("partnerId") == sess.Owner) {
				return sessionView(sess), nil
			}
		}
	}
	if pt == nil {
		_, err := agencyRead(rc, false)
		return nil, err
	}
	sessions, more, err := agencyPage(rc, rc.Store.Enrollments, pt.ID, agencySessionPage, sessionView)
	if err != nil {
		return nil, err
	}
	return map[string]any{"sessions": sessions, "has_more": more, "operations": operationsOf(rc.Store, pt.ID, "enrollments")}, nil
}

// sessionJSON is an enrollment session as reads and receipts show it, its
// members in the order of the OpenAPI document's EnrollmentSession.
type sessionJSON struct {
	SessionID      string                  `json:"sessionId"`
	PartnerID      string                  `json:"partnerId"`
	OfferVersionID string                  `json:"offerVersionId"`
	State          string                  `json:"state"`
	SelfService    bool                    `json:"selfService"`
	Revision       string                  `json:"revision"`
	Fingerprint    string                  `json:"fingerprint"`
	OwnerEmail     *string                 `json:"ownerEmail"`
	Entries        []store.EnrollmentEntry `json:"entries"`
	OwnerLink      ownerLinkJSON           `json:"ownerLink"`
	OwnerApproval  *sdk.OwnerApproval      `json:"ownerApproval"`
	Clients        []clientReceiptJSON     `json:"clients"`
	CreatedAt      time.Time               `json:"createdAt"`
	UpdatedAt      time.Time               `json:"updatedAt"`
	EnrolledAt     *time.Time              `json:"enrolledAt"`
}

// ownerLinkJSON is a session's owner link without its token.
type ownerLinkJSON struct {
	Status    string     `json:"status"`
	IssuedAt  *time.Time `json:"issuedAt"`
	ClaimedAt *time.Time `json:"claimedAt"`
	ClaimedBy *string    `json:"claimedBy"`
}

// sessionView is an enrollment session: entries with their facts, the
// owner link without its token, the owner approval and per-client receipts.
func sessionView(sess *store.EnrollmentSession) *sessionJSON {
	var approval *sdk.OwnerApproval
	if a := sess.Approval; a != nil {
		approval = &sdk.OwnerApproval{ApprovalID: a.ID, Fingerprint: a.Fingerprint, ApprovedBy: a.ApprovedBy, ApprovedAt: a.ApprovedAt}
	}
	l := sess.OwnerLink
	return &sessionJSON{
		SessionID: sess.ID, PartnerID: sess.Owner, OfferVersionID: sess.OfferVersionID, State: sess.State,
		SelfService: sess.SelfService, Revision: sess.Revision, Fingerprint: sess.Fingerprint,
		OwnerEmail: httpapi.Strp(sess.OwnerEmail), Entries: sess.Entries,
		OwnerLink: ownerLinkJSON{
			Status: l.Status, IssuedAt: stampOrNull(l.IssuedAt), ClaimedAt: stampOrNull(l.ClaimedAt),
			ClaimedBy: httpapi.Strp(l.ClaimedBy),
		},
		OwnerApproval: approval, Clients: receiptViews(sess.Receipts),
		CreatedAt: sess.CreatedAt, UpdatedAt: sess.UpdatedAt, EnrolledAt: stampOrNull(sess.EnrolledAt),
	}
}

// clientReceiptJSON is the outcome of one entry of an enroll (the OpenAPI
// document's EnrollmentClientReceipt), as sessions and the enroll's receipt
// show it.
type clientReceiptJSON struct {
	Entry              int       `json:"entry"`
	State              string    `json:"state"`
	Reason             *string   `json:"reason"`
	Detail             *string   `json:"detail"`
	BusinessID         *string   `json:"businessId"`
	ExternalRef        *string   `json:"externalRef"`
	ExistingBusinessID *string   `json:"existingBusinessId"`
	InstallationID     *string   `json:"installationId"`
	UpdateID           *string   `json:"updateId"`
	Attempts           int       `json:"attempts"`
	UpdatedAt          time.Time `json:"updatedAt"`
}

// receiptViews are the per-client receipts of an enroll.
func receiptViews(rs []*store.ClientReceipt) []clientReceiptJSON {
	out := make([]clientReceiptJSON, len(rs))
	for i, r := range rs {
		out[i] = clientReceiptJSON{
			Entry: r.Entry, State: r.State, Reason: httpapi.Strp(r.Reason), Detail: httpapi.Strp(r.Detail),
			BusinessID: httpapi.Strp(r.BusinessID), ExternalRef: httpapi.Strp(r.ExternalRef),
			ExistingBusinessID: httpapi.Strp(r.ExistingBusinessID), InstallationID: httpapi.Strp(r.InstallationID),
			UpdateID: httpapi.Strp(r.UpdateID), Attempts: r.Attempts, UpdatedAt: r.UpdatedAt,
		}
	}
	return out
}
