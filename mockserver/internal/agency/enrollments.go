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

	voiceagent "github.com/voiceagent/voiceagent-go"
	sdk "github.com/voiceagent/voiceagent-go/agency"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/identity"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
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
		"start_self_service":  {input: inputOf[startSelfServiceInput]},
		"finish_self_service": {input: inputOf[finishSelfServiceInput]},
		"owner_save":          {input: inputOf[ownerSaveInput]},
		"create":              {input: inputOf[sessionCreateInput], idempotent: true},
		"save":                {input: inputOf[sessionSaveInput]},
		"preview":             {input: inputOf[sessionPreviewInput]},
		"enroll":              {input: inputOf[enrollInput], idempotent: true},
		"claim_owner":         {input: inputOf[claimOwnerInput]},
		"approve_owner":       {input: inputOf[approveOwnerInput]},
		"rotate_owner_link":   {input: inputOf[rotateOwnerLinkInput]},
		"revoke":              {input: inputOf[sessionRevokeInput]},
	}
}

// sessionRef is the part most enrollment commands have.
type sessionRef struct {
	PartnerID        string `json:"partnerId"`
	SessionID        string `json:"sessionId"`
	ExpectedRevision string `json:"expectedRevision"`
}

// session resolves an agency-side enrollment command: the sender must be a
// member with one of roles.
func (c *call) session(tx *platform.Tx, ref sessionRef, roles ...string) (*store.EnrollmentSession, error) {
	pt, err := c.member(tx, ref.PartnerID, roles...)
	if err != nil {
		return nil, err
	}
	sess, ok := tx.Enrollments.Get(ref.SessionID)
	if !ok || sess.Owner != pt.ID {
		return nil, domain.NotFound("enrollment session not found: " + ref.SessionID)
	}
	return sess, nil
}

// anySession resolves an owner-side command's session without a
// membership check (the owner is not an agency member).
func (c *call) anySession(tx *platform.Tx, ref sessionRef) (*store.EnrollmentSession, error) {
	sess, ok := tx.Enrollments.Get(ref.SessionID)
	pt, found := tx.Partners.Get(ref.PartnerID)
	if !ok || !found || sess.Owner != pt.ID {
		return nil, domain.NotFound("enrollment session not found: " + ref.SessionID)
	}
	c.partner = pt
	return sess, nil
}

// editableSession resolves an agency-side command (admin or operator) on a
// session that may still change.
func (c *call) editableSession(tx *platform.Tx, ref sessionRef) (*store.EnrollmentSession, error) {
	sess, err := c.session(tx, ref, roleAdmin, roleOperator)
	if err != nil {
		return nil, err
	}
	if !editable(sess) {
		return nil, errNotEditable(sess)
	}
	return sess, nil
}

// changed gives a changed session a new revision and returns the receipt
// with the session.
func (s *Service) changed(c *call, sess *store.EnrollmentSession) map[string]any {
	s.touch(c.now, sess)
	return s.receipt(c, map[string]any{"session": sessionView(sess)})
}

// ownerSession resolves a command only the session's claimed owner may
// send.
func (c *call) ownerSession(tx *platform.Tx, ref sessionRef) (*store.EnrollmentSession, error) {
	sess, err := c.anySession(tx, ref)
	if err != nil {
		return nil, err
	}
	if sess.OwnerLink.Status != "claimed" || sess.OwnerLink.ClaimedBy != c.by.UserID {
		return nil, domain.Forbidden("only the owner who claimed the session's owner link may do this")
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
func errNotEditable(sess *store.EnrollmentSession) *domain.Error {
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

// setEntries stores a copy of entries (facts in canonical form) and
// recomputes the fingerprint; the session goes back to draft and loses its
// approval.
func setEntries(sess *store.EnrollmentSession, entries []store.EnrollmentEntry) {
	entries = slices.Clone(entries)
	for i := range entries {
		entries[i].Facts = canonicalJSON(entries[i].Facts)
	}
	sess.Entries = entries
	sess.Fingerprint = sessionFingerprint(sess)
	sess.State, sess.Approval = sessDraft, nil
}

// checkEntries checks the entries of create and save: existing businesses
// are the agency's clients (and assigned to an operator userID), no
// business or external reference twice.
func checkEntries(tx *platform.Tx, userID string, pt *store.Partner, entries []store.EnrollmentEntry) error {
	seen := map[string]bool{}
	for i, e := range entries {
		at := "/entries/" + strconv.Itoa(i)
		key, path := "b:"+e.BusinessID, at+"/businessId"
		if e.BusinessID == "" {
			key, path = "r:"+e.NewClient.ExternalRef, at+"/newClient/externalRef"
		} else if _, err := requireClient(tx, userID, pt, e.BusinessID); err != nil {
			return err
		}
		if seen[key] {
			return domain.InvalidField(path, "names the same client as an earlier entry")
		}
		seen[key] = true
	}
	return nil
}

// issueOwnerLink gives a session a new owner link and emails it to the
// owner. The token is only in the email, never in a response.
func (s *Service) issueOwnerLink(tx *platform.Tx, c *call, pt *store.Partner, sess *store.EnrollmentSession) {
	token := "own_" + s.IDs.Token(24)
	sess.OwnerLink = store.OwnerLink{Status: "issued", TokenHash: sha256.Sum256([]byte(token)), IssuedAt: c.now.UTC()}
	link := appBaseURL + "/owner/enrollment?" + url.Values{"partnerId": {pt.ID}, "sessionId": {sess.ID}, "token": {token}}.Encode()
	s.SendOutbox(tx, c.now, store.OutboxMessage{
		BusinessID: c.by.Tenant, Channel: "email", To: sess.OwnerEmail, From: "no-reply@voiceagent.example",
		Subject: pt.Brand.Name + " asks you to review your phone agent setup",
		Body:    "Review and approve what " + pt.Brand.Name + " will set up for you: " + link,
		Link:    link,
	})
}

// sessionCreateInput is the input of create.
type sessionCreateInput struct {
	PartnerID      string                  `json:"partnerId"`
	OfferVersionID string                  `json:"offerVersionId"`
	Entries        []store.EnrollmentEntry `json:"entries"`
	OwnerEmail     string                  `json:"ownerEmail"`
}

func (in sessionCreateInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.createSession(tx, c, in)
}

// createSession creates a draft enrollment session of an offer version
// with entries (admin or operator), and with an ownerEmail issues the
// owner link.
func (s *Service) createSession(tx *platform.Tx, c *call, in sessionCreateInput) (map[string]any, error) {
	pt, err := c.member(tx, in.PartnerID, roleAdmin, roleOperator)
	if err != nil {
		return nil, err
	}
	if _, err := offerVersionFor(tx, in.OfferVersionID, pt.ID); err != nil {
		return nil, err
	}
	if err := checkEntries(tx, c.by.UserID, pt, in.Entries); err != nil {
		return nil, err
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	sess := &store.EnrollmentSession{
		OfferVersionID: in.OfferVersionID, OwnerEmail: strings.ToLower(in.OwnerEmail),
		CreatedBy: c.by.UserID, OwnerLink: store.OwnerLink{Status: "none"},
	}
	setEntries(sess, in.Entries)
	tx.Enrollments.Insert(sess, pt.ID, c.now)
	s.touch(c.now, sess)
	if sess.OwnerEmail != "" {
		s.issueOwnerLink(tx, c, pt, sess)
	}
	return s.receipt(c, map[string]any{"session": sessionView(sess)}), nil
}

// sessionSaveInput is the input of save.
type sessionSaveInput struct {
	sessionRef
	Entries []store.EnrollmentEntry `json:"entries"`
}

func (in sessionSaveInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.saveSession(tx, c, in)
}

// saveSession replaces the entries of an editable session at its
// revision; the session goes back to draft.
func (s *Service) saveSession(tx *platform.Tx, c *call, in sessionSaveInput) (map[string]any, error) {
	sess, err := c.editableSession(tx, in.sessionRef)
	if err != nil {
		return nil, err
	}
	if e := checkRevision(in.ExpectedRevision, sess.Revision); e != nil {
		return nil, e
	}
	if err := checkEntries(tx, c.by.UserID, c.partner, in.Entries); err != nil {
		return nil, err
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	setEntries(sess, in.Entries)
	return s.changed(c, sess), nil
}

// sessionPreviewInput is the input of preview.
type sessionPreviewInput sessionRef

func (in sessionPreviewInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.previewSession(tx, c, in)
}

// previewSession marks a draft session previewed and shows its
// fingerprint and what enrolling each entry would do.
func (s *Service) previewSession(tx *platform.Tx, c *call, in sessionPreviewInput) (map[string]any, error) {
	sess, err := c.editableSession(tx, sessionRef(in))
	if err != nil {
		return nil, err
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	if sess.State == sessDraft {
		sess.State = sessPreviewed
	}
	s.touch(c.now, sess)
	plan := make([]planItemJSON, len(sess.Entries))
	for i, e := range sess.Entries {
		p := classifyEntry(tx, sess.Owner, e)
		plan[i] = planItemJSON{
			Entry: i, Action: p.action, BusinessID: val.Strp(p.businessID),
			ExternalRef: val.Strp(p.externalRef), CurrentRevision: val.Strp(p.current),
			Conflict: val.Strp(p.detail),
		}
	}
	return s.receipt(c, map[string]any{"session": sessionView(sess), "fingerprint": sess.Fingerprint, "plan": plan}), nil
}

// claimOwnerInput is the input of claim_owner.
type claimOwnerInput struct {
	sessionRef
	Token string `json:"token"`
}

func (in claimOwnerInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.claimOwner(tx, c, in)
}

// claimOwner makes the sender the owner of an editable session whose owner
// link token it holds; claiming again is a no-op for the same user and a
// conflict for another.
func (s *Service) claimOwner(tx *platform.Tx, c *call, in claimOwnerInput) (map[string]any, error) {
	sess, err := c.anySession(tx, in.sessionRef)
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
	sum := sha256.Sum256([]byte(in.Token))
	if subtle.ConstantTimeCompare(link.TokenHash[:], sum[:]) != 1 {
		return nil, domain.Forbidden("the owner link token is not valid (it may have been rotated)")
	}
	if link.Status == "claimed" {
		if link.ClaimedBy != c.by.UserID {
			return nil, errConflict("the owner link was already claimed by another user")
		}
		return s.receipt(c, map[string]any{"session": sessionView(sess)}), nil
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	link.Status, link.ClaimedBy, link.ClaimedAt = "claimed", c.by.UserID, c.now.UTC()
	return s.changed(c, sess), nil
}

// approve records the owner's approval of the session's fingerprint.
func (s *Service) approve(c *call, sess *store.EnrollmentSession) map[string]any {
	a := &store.OwnerApproval{ID: s.IDs.UUID(), Fingerprint: sess.Fingerprint, ApprovedBy: c.by.UserID, ApprovedAt: c.now.UTC()}
	sess.Approval = a
	sess.ApprovalIDs = append(sess.ApprovalIDs, a.ID)
	sess.State = sessApproved
	s.touch(c.now, sess)
	return s.receipt(c, map[string]any{"session": sessionView(sess), "approvalId": a.ID})
}

// approveOwnerInput is the input of approve_owner.
type approveOwnerInput struct {
	sessionRef
	Fingerprint string `json:"fingerprint"`
}

func (in approveOwnerInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.approveOwner(tx, c, in)
}

// approveOwner records the claimed owner's approval of exactly the
// previewed content: the session at its revision, with its fingerprint.
func (s *Service) approveOwner(tx *platform.Tx, c *call, in approveOwnerInput) (map[string]any, error) {
	sess, err := c.ownerSession(tx, in.sessionRef)
	if err != nil {
		return nil, err
	}
	if sess.State != sessPreviewed {
		return nil, errState("the enrollment session is %s; the owner approves a previewed session", sess.State)
	}
	if e := checkRevision(in.ExpectedRevision, sess.Revision); e != nil {
		return nil, e
	}
	if e := checkFingerprint(in.Fingerprint, sess.Fingerprint); e != nil {
		return nil, e
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	return s.approve(c, sess), nil
}

// rotateOwnerLinkInput is the input of rotate_owner_link.
type rotateOwnerLinkInput sessionRef

func (in rotateOwnerLinkInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.rotateOwnerLink(tx, c, in)
}

// rotateOwnerLink issues a new owner link (the old one stops working) and
// drops the owner's approval.
func (s *Service) rotateOwnerLink(tx *platform.Tx, c *call, in rotateOwnerLinkInput) (map[string]any, error) {
	sess, err := c.editableSession(tx, sessionRef(in))
	if err != nil {
		return nil, err
	}
	switch {
	case sess.SelfService:
		return nil, errState("a self-service session belongs to the owner who started it; it has no owner link")
	case sess.OwnerEmail == "":
		return nil, errState("the enrollment session has no ownerEmail to send an owner link to")
	}
	if e := checkRevision(in.ExpectedRevision, sess.Revision); e != nil {
		return nil, e
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	s.issueOwnerLink(tx, c, c.partner, sess)
	sess.Approval = nil
	if sess.State == sessApproved {
		sess.State = sessPreviewed
	}
	return s.changed(c, sess), nil
}

// sessionRevokeInput is the input of revoke.
type sessionRevokeInput sessionRef

func (in sessionRevokeInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.revokeSession(tx, c, in)
}

// revokeSession revokes an editable session and its owner link.
func (s *Service) revokeSession(tx *platform.Tx, c *call, in sessionRevokeInput) (map[string]any, error) {
	sess, err := c.editableSession(tx, sessionRef(in))
	if err != nil {
		return nil, err
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	sess.State, sess.Approval = sessRevoked, nil
	sess.OwnerLink.Status = "revoked"
	return s.changed(c, sess), nil
}

// startSelfServiceInput is the input of start_self_service.
type startSelfServiceInput struct {
	OfferVersionID string          `json:"offerVersionId"`
	Name           string          `json:"name"`
	Facts          json.RawMessage `json:"facts"`
}

func (in startSelfServiceInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.startSelfService(tx, c, in)
}

// startSelfService starts a session an owner fills in alone: one new
// client, the owner link claimed by the sender.
func (s *Service) startSelfService(tx *platform.Tx, c *call, in startSelfServiceInput) (map[string]any, error) {
	v, err := offerVersionFor(tx, in.OfferVersionID, "")
	if err != nil {
		return nil, err
	}
	pt, _ := tx.Partners.Get(v.Owner)
	c.partner = pt
	if err := c.ready(); err != nil {
		return nil, err
	}
	u := c.user(tx)
	sess := tx.Enrollments.Insert(&store.EnrollmentSession{
		OfferVersionID: v.ID, SelfService: true, OwnerEmail: u.Email, CreatedBy: u.ID,
		OwnerLink: store.OwnerLink{Status: "claimed", ClaimedBy: u.ID, ClaimedAt: c.now.UTC(), IssuedAt: c.now.UTC()},
	}, pt.ID, c.now)
	setEntries(sess, []store.EnrollmentEntry{{
		NewClient: &store.NewClient{Name: in.Name, ExternalRef: "self-service:" + sess.ID, OwnerEmail: u.Email},
		Facts:     in.Facts,
	}})
	s.touch(c.now, sess)
	return s.receipt(c, map[string]any{"session": sessionView(sess)}), nil
}

// ownerSaveInput is the input of owner_save.
type ownerSaveInput struct {
	sessionRef
	Facts json.RawMessage `json:"facts"`
}

func (in ownerSaveInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.ownerSave(tx, c, in)
}

// ownerSave replaces the facts of the one client of an editable session:
// the claimed owner's command, at the session's revision.
func (s *Service) ownerSave(tx *platform.Tx, c *call, in ownerSaveInput) (map[string]any, error) {
	sess, err := c.ownerSession(tx, in.sessionRef)
	if err != nil {
		return nil, err
	}
	switch {
	case !editable(sess):
		return nil, errNotEditable(sess)
	case len(sess.Entries) != 1:
		return nil, errState("owner_save changes the facts of a session with one client; this one has %d", len(sess.Entries))
	}
	if e := checkRevision(in.ExpectedRevision, sess.Revision); e != nil {
		return nil, e
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	entries := slices.Clone(sess.Entries)
	entries[0].Facts = in.Facts
	setEntries(sess, entries)
	return s.changed(c, sess), nil
}

// finishSelfServiceInput is the input of finish_self_service.
type finishSelfServiceInput sessionRef

func (in finishSelfServiceInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.finishSelfService(tx, c, in)
}

// finishSelfService records the owner's approval of a self-service
// session's content, which needs no preview first.
func (s *Service) finishSelfService(tx *platform.Tx, c *call, in finishSelfServiceInput) (map[string]any, error) {
	sess, err := c.ownerSession(tx, sessionRef(in))
	if err != nil {
		return nil, err
	}
	switch {
	case !sess.SelfService:
		return nil, errState("the enrollment session is not a self-service session")
	case sess.State != sessDraft && sess.State != sessPreviewed:
		return nil, errState("the enrollment session is %s", sess.State)
	}
	if err := c.ready(); err != nil {
		return nil, err
	}
	return s.approve(c, sess), nil
}

// enrollInput is the input of enroll.
type enrollInput struct {
	sessionRef
	Fingerprint string   `json:"fingerprint"`
	ApprovalIDs []string `json:"approvalIds"`
}

func (in enrollInput) apply(s *Service, tx *platform.Tx, c *call) (any, error) {
	return s.enroll(tx, c, in)
}

// enroll enrolls every entry of a session the owner approved (see
// checkEnroll) and returns the receipt, accepted, with a receipt per
// client; clients waiting for the voice provider are retried every
// agencyRetryEvery.
func (s *Service) enroll(tx *platform.Tx, c *call, in enrollInput) (accepted, error) {
	sess, v, err := s.checkEnroll(tx, c, in)
	if err != nil {
		return accepted{}, err
	}
	if err := c.ready(); err != nil {
		return accepted{}, err
	}
	sess.EnrolledBy, sess.EnrolledAt, sess.EnrolledIn, sess.Receipts = c.by.UserID, c.now.UTC(), c.by.Tenant, nil
	for i := range sess.Entries {
		sess.Receipts = append(sess.Receipts, s.enrollEntry(tx, c, sess, v, i))
	}
	if s.settle(sess) {
		s.scheduleWaiting(sess, c.now)
	}
	s.touch(c.now, sess)
	return accepted{s.receipt(c, map[string]any{"session": sessionView(sess), "clients": receiptViews(sess.Receipts)})}, nil
}

// checkEnroll is the guard of enroll: the sender is an admin or an
// operator (assigned to every existing client of the session), the session
// was previewed and not enrolled or revoked, is at its revision and
// fingerprint, the owner approved that exact fingerprint and approvalIds
// include that approval (and only approvals of this session), the offer is
// not archived, and the care package's scope is held. It returns the
// session and the offer version to enroll.
func (s *Service) checkEnroll(tx *platform.Tx, c *call, in enrollInput) (*store.EnrollmentSession, *store.OfferVersion, error) {
	sess, err := c.session(tx, in.sessionRef, roleAdmin, roleOperator)
	if err != nil {
		return nil, nil, err
	}
	switch sess.State {
	case sessDraft:
		return nil, nil, errState("the enrollment session was changed since its preview: preview it (and have the owner approve it) first")
	case sessEnrolling, sessEnrolled, sessRevoked:
		return nil, nil, errNotEditable(sess)
	}
	if e := checkRevision(in.ExpectedRevision, sess.Revision); e != nil {
		return nil, nil, e
	}
	if e := checkFingerprint(in.Fingerprint, sess.Fingerprint); e != nil {
		return nil, nil, e
	}
	if sess.Approval == nil || sess.Approval.Fingerprint != sess.Fingerprint {
		return nil, nil, domain.New(voiceagent.CodeApprovalRequired,
			"the owner has not approved fingerprint "+sess.Fingerprint+" of this session")
	}
	if !slices.Contains(in.ApprovalIDs, sess.Approval.ID) {
		return nil, nil, domain.New(voiceagent.CodeApprovalRequired,
			"approvalIds must include the owner's approval "+sess.Approval.ID+" of this exact fingerprint")
	}
	for i, id := range in.ApprovalIDs {
		if !slices.Contains(sess.ApprovalIDs, id) {
			return nil, nil, domain.InvalidField("/approvalIds/"+strconv.Itoa(i), "%s is not an approval of this session", id)
		}
	}
	v, err := offerVersionFor(tx, sess.OfferVersionID, sess.Owner)
	if err != nil {
		return nil, nil, err
	}
	if _, care := versionPackage(v, "care"); care && !c.by.Has(voiceagent.ScopeSMSWrite) {
		return nil, nil, domain.Forbidden("the offer includes the care package, which needs the scope " + string(voiceagent.ScopeSMSWrite))
	}
	for _, e := range sess.Entries {
		if e.BusinessID != "" {
			if _, err := requireClient(tx, c.by.UserID, c.partner, e.BusinessID); err != nil {
				return nil, nil, err
			}
		}
	}
	return sess, v, nil
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

// scheduleWaiting retries the waiting clients of session sess
// agencyRetryEvery after from on the clock of the tenant that enrolled it
// (see retryEnrollment).
func (s *Service) scheduleWaiting(sess *store.EnrollmentSession, from time.Time) {
	s.Schedule(sess.EnrolledIn, clock.Task{At: from.Add(agencyRetryEvery), Kind: TaskRetryEnrollment, Subject: sess.ID})
}

// retryEnrollment is the task TaskRetryEnrollment: it retries the waiting
// clients of session t.Subject, every agencyRetryEvery until none waits.
func (s *Service) retryEnrollment(tx *platform.Tx, now time.Time, t clock.Task) {
	if sess, ok := tx.Enrollments.Get(t.Subject); ok && s.retryWaiting(tx, now, sess) {
		s.scheduleWaiting(sess, now)
	}
}

// retryWaiting enrolls again at now the waiting clients of an enrolling
// session, and reports whether some still wait. The voice provider's
// faults are matched as on the enroll's request, in the tenant that
// enrolled it.
func (s *Service) retryWaiting(tx *platform.Tx, now time.Time, sess *store.EnrollmentSession) (waiting bool) {
	if sess.State != sessEnrolling {
		return false
	}
	tenant := sess.EnrolledIn
	v, ok := tx.OfferVersions.Get(sess.OfferVersionID)
	if !ok {
		return false
	}
	// The retry acts for the user who enrolled, in that tenant.
	by := &domain.Actor{UserID: sess.EnrolledBy, Tenant: tenant}
	c := &call{now: now, by: by, deps: func(target admin.FaultTarget) *domain.Error {
		return s.httpapi.DependencyFaultAt(target, http.MethodPost, pathAgencyEnrollments, tenant)
	}}
	changed := false
	for i, r := range sess.Receipts {
		if r.State != clientWaiting {
			continue
		}
		nr := s.enrollEntry(tx, c, sess, v, r.Entry)
		nr.Attempts = r.Attempts + 1
		sess.Receipts[i] = nr
		changed = changed || nr.State != clientWaiting
	}
	waiting = s.settle(sess)
	if changed {
		s.touch(now, sess)
	}
	return waiting
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
func classifyEntry(tx *platform.Tx, partnerID string, e store.EnrollmentEntry) entryPlan {
	expected := ""
	if e.ExpectedRevision != nil {
		expected = *e.ExpectedRevision
	}
	if e.BusinessID != "" {
		p := entryPlan{businessID: e.BusinessID}
		if inst := tx.InstallationByBusiness[e.BusinessID]; inst != nil {
			p.inst, p.current = inst, inst.FactsRevision
		}
		switch {
		case expected != p.current:
			p.action, p.reason = clientConflict, voiceagent.CodeStaleRevision
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
	if existing := tx.ClientsByRef[partnerID+"\x00"+p.externalRef]; existing != "" {
		p.action, p.reason, p.existing = clientConflict, voiceagent.CodeReconciliationRequired, existing
		p.detail = "a client with externalRef " + p.externalRef + " exists (business " + existing + "): enroll it by businessId"
	} else if expected != "" {
		p.action, p.reason = clientConflict, voiceagent.CodeStaleRevision
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
// new client is provisioned (business linked to the agency and in its
// tenant, intake agent, number) unless the voice provider is unavailable
// (waiting); an existing client is installed, or gets a pending update
// when its facts changed; stale revisions and known external references
// are conflicts.
func (s *Service) enrollEntry(tx *platform.Tx, c *call, sess *store.EnrollmentSession, v *store.OfferVersion, i int) *store.ClientReceipt {
	now := c.now
	e := sess.Entries[i]
	p := classifyEntry(tx, sess.Owner, e)
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
		b, _ := tx.Businesses.Get(p.businessID)
		r.State, r.InstallationID = clientEnrolled, s.newInstallation(tx, now, sess, v, b, intakeAgentOf(tx, b.ID), e.Facts).ID
	default: // create_client
		if f := c.deps(admin.FaultTargetVoiceProvider); f != nil {
			r.State, r.Reason = clientWaiting, "dependency_unavailable"
			r.Detail = "the voice provider is unavailable (" + f.Message + "); the client is provisioned when it returns"
			return r
		}
		pr := s.identity.Provision(tx, now, identity.ProvisionSpec{
			BusinessName: e.NewClient.Name, Email: clientOwnerEmail(tx, sess, e), PartnerID: sess.Owner, NoCredentials: true,
			Tenant: c.by.Tenant,
		})
		tx.ClientsByRef[sess.Owner+"\x00"+p.externalRef] = pr.Business.ID
		if _, member := pr.Business.Members[sess.EnrolledBy]; !member {
			tx.AddMember(pr.Business, sess.EnrolledBy, store.RoleAdmin)
		}
		r.State, r.BusinessID = clientEnrolled, pr.Business.ID
		r.InstallationID = s.newInstallation(tx, now, sess, v, pr.Business, pr.Agent, e.Facts).ID
	}
	return r
}

// clientOwnerEmail is who owns a new client: the entry's ownerEmail, else
// the session's, else the owner who claimed the link, else the enroller.
func clientOwnerEmail(tx *platform.Tx, sess *store.EnrollmentSession, e store.EnrollmentEntry) string {
	if e.NewClient.OwnerEmail != "" {
		return e.NewClient.OwnerEmail
	}
	if sess.OwnerEmail != "" {
		return sess.OwnerEmail
	}
	for _, id := range []string{sess.OwnerLink.ClaimedBy, sess.EnrolledBy} {
		if u, ok := tx.Users.Get(id); ok {
			return u.Email
		}
	}
	return "owner-" + sess.ID + "@clients.voiceagent.example"
}

// intakeAgentOf returns a business's intake agent (else its oldest agent).
func intakeAgentOf(tx *platform.Tx, businessID string) *store.Agent {
	agents := tx.Agents.Owned(businessID)
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
			sess, err := getByID(rc, rc.Tx.Enrollments, pt.ID, "enrollment session")
			if err != nil {
				return nil, err
			}
			return sessionView(sess), nil
		}
		if uuid.Validate(id) == nil {
			if sess, ok := rc.Tx.Enrollments.Get(id); ok && sess.OwnerLink.Status == "claimed" &&
				sess.OwnerLink.ClaimedBy == rc.Principal.User.ID && (rc.Query("partnerId") == "" || rc.Query("partnerId") == sess.Owner) {
				return sessionView(sess), nil
			}
		}
	}
	if pt == nil {
		_, err := agencyRead(rc, false)
		return nil, err
	}
	sessions, more, err := agencyPage(rc, rc.Tx.Enrollments, pt.ID, agencySessionPage, sessionView)
	if err != nil {
		return nil, err
	}
	return map[string]any{"sessions": sessions, "has_more": more, "operations": operationsOf(rc.Tx, pt.ID, "enrollments")}, nil
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
		OwnerEmail: val.Strp(sess.OwnerEmail), Entries: sess.Entries,
		OwnerLink: ownerLinkJSON{
			Status: l.Status, IssuedAt: stampOrNull(l.IssuedAt), ClaimedAt: stampOrNull(l.ClaimedAt),
			ClaimedBy: val.Strp(l.ClaimedBy),
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
			Entry: r.Entry, State: r.State, Reason: val.Strp(r.Reason), Detail: val.Strp(r.Detail),
			BusinessID: val.Strp(r.BusinessID), ExternalRef: val.Strp(r.ExternalRef),
			ExistingBusinessID: val.Strp(r.ExistingBusinessID), InstallationID: val.Strp(r.InstallationID),
			UpdateID: val.Strp(r.UpdateID), Attempts: r.Attempts, UpdatedAt: r.UpdatedAt,
		}
	}
	return out
}
