package agency

import (
	"encoding/json"
	"errors"
	"maps"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/hooks"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/identity"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// worldStart is the simulated time every world starts at.
var worldStart = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// world is a server's state and its agency domain, wired as mockserver.New
// wires them, without HTTP: an agency bootstrapped by admin, whose tenant
// is tenant.
type world struct {
	t       *testing.T
	p       *platform.Platform
	api     *httpapi.API
	s       *Service
	admin   *domain.Actor
	partner string
	tenant  string
}

// newWorld returns a world whose ids are drawn from seed.
func newWorld(t *testing.T, seed uint64) *world {
	t.Helper()
	p := platform.New(platform.Config{Start: worldStart, IDSeed: &seed})
	api := httpapi.New(p)
	hk := hooks.New(p)
	tel := telephony.New(p, hk)
	id := identity.New(p, api, tel)
	w := &world{t: t, p: p, api: api, s: New(p, api, id, tel)}
	// The routes are bound so that fault rules name them; only the agency's
	// handlers run here.
	handlers := httpapi.Handlers{}
	for _, rt := range httpapi.Table {
		handlers[rt.Op] = func(*httpapi.Ctx) (any, error) { return nil, domain.NotFound("not in this test") }
	}
	maps.Copy(handlers, w.s.Handlers())
	api.Bind(nil, handlers)
	w.admin = w.account("admin@agency.example", "Agency HQ")
	w.tenant = w.admin.Tenant
	require.NotEmpty(t, w.tenant)
	w.p.Write(func(tx *platform.Tx) {
		r, err := w.s.bootstrap(tx, w.call(w.admin, "profile", "bootstrap"), bootstrapInput{Brand: store.AgencyBrand{Name: "Acme Agency"}})
		require.NoError(t, err)
		w.partner = r.Profile.PartnerID
	})
	return w
}

// account provisions a user with a business of its own and returns the
// actor of its session.
func (w *world) account(email, business string) *domain.Actor {
	var p *domain.Actor
	w.p.Write(func(tx *platform.Tx) {
		pr := w.s.identity.Provision(tx, w.p.Now(""), identity.ProvisionSpec{BusinessName: business, Email: email, NoCredentials: true})
		p = &domain.Actor{UserID: pr.User.ID, Businesses: []string{pr.Business.ID}, Tenant: tx.TenantOf(pr.Business.ID)}
	})
	return p
}

// now is the world's tenant's time.
func (w *world) now() time.Time { return w.p.Now(w.tenant) }

// call is a command of by on resource at the tenant's time, with every
// dependency up.
func (w *world) call(by *domain.Actor, resource, action string) *call {
	return &call{now: w.now(), by: by, deps: noFaults, resource: resource, action: action}
}

// retainProfile runs the admin's profile command action with input in
// while the dependency is down, and retains it as agencyPost does. It
// returns the command's error and the id of its operation.
func (w *world) retainProfile(tx *platform.Tx, action string, in input) (*domain.Error, string) {
	w.t.Helper()
	c := w.call(w.admin, "profile", action)
	c.deps = failing(admin.FaultTargetDependency)
	_, err := in.apply(w.s, tx, c)
	var ret *errRetained
	require.ErrorAs(w.t, err, &ret)
	e := w.s.retain(tx, c, in, ret.cause)
	ops := operationsOf(tx, w.partner, "profile")
	require.NotEmpty(w.t, ops)
	return e, ops[0].OperationID
}

// noFaults is the dependencies of a command when every one responds.
func noFaults(admin.FaultTarget) *domain.Error { return nil }

// failing is the dependencies of a command when target fails.
func failing(target admin.FaultTarget) faults {
	return func(t admin.FaultTarget) *domain.Error {
		if t == target {
			return domain.New("bad_gateway", string(target)+" is down")
		}
		return nil
	}
}

// publish publishes an offer with packages and returns its version.
func (w *world) publish(name string, packages ...string) *store.OfferVersion {
	w.t.Helper()
	pkgs := []map[string]string{}
	for _, k := range packages {
		pkgs = append(pkgs, map[string]string{"key": k, "version": "1", "variant": "standard"})
	}
	draft, _ := json.Marshal(map[string]any{"name": name, "packages": pkgs})
	var v *store.OfferVersion
	w.p.Write(func(tx *platform.Tx) {
		saved, err := w.s.saveOffer(tx, w.call(w.admin, "offers", "save"), offerSaveInput{offerRef: offerRef{PartnerID: w.partner}, Draft: draft})
		require.NoError(w.t, err)
		o := saved["offer"].(*offerJSON)
		pv, err := w.s.previewOffer(tx, w.call(w.admin, "offers", "preview"), offerPreviewInput{PartnerID: w.partner, OfferID: o.OfferID})
		require.NoError(w.t, err)
		o = pv["offer"].(*offerJSON)
		pub, err := w.s.publishOffer(tx, w.call(w.admin, "offers", "publish"), offerPublishInput{
			offerRef:    offerRef{PartnerID: w.partner, OfferID: o.OfferID, ExpectedRevision: o.Revision},
			Fingerprint: o.Fingerprint,
		})
		require.NoError(w.t, err)
		v, _ = tx.OfferVersions.Get(*pub["offer"].(*offerJSON).PublishedVersionID)
	})
	return v
}

// facts are a client's facts with routing and a fallback.
func facts(routing string) json.RawMessage {
	return json.RawMessage(`{"profile":{"hours":"9-5"},"routing":{"to":"` + routing + `"},"fallback":{"mode":"voicemail"}}`)
}

// previewedSession creates a session of v with one new client, owned by a
// claimed owner, and previews it. It returns the session and its owner.
func (w *world) previewedSession(v *store.OfferVersion, ref string) (*store.EnrollmentSession, *domain.Actor) {
	w.t.Helper()
	email := "owner-" + ref + "@client.example"
	owner := w.account(email, "Owner "+ref)
	var sess *store.EnrollmentSession
	w.p.Write(func(tx *platform.Tx) {
		r, err := w.s.createSession(tx, w.call(w.admin, "enrollments", "create"), sessionCreateInput{
			PartnerID: w.partner, OfferVersionID: v.ID, OwnerEmail: email,
			Entries: []store.EnrollmentEntry{{NewClient: &store.NewClient{Name: "Client " + ref, ExternalRef: ref}, Facts: facts("front desk")}},
		})
		require.NoError(w.t, err)
		sess, _ = tx.Enrollments.Get(r["session"].(*sessionJSON).SessionID)
		// The owner link's token is only in an email: the owner claims it here.
		sess.OwnerLink.Status, sess.OwnerLink.ClaimedBy = "claimed", owner.UserID
		_, err = w.s.previewSession(tx, w.call(w.admin, "enrollments", "preview"), sessionPreviewInput{PartnerID: w.partner, SessionID: sess.ID})
		require.NoError(w.t, err)
	})
	return sess, owner
}

// approvedSession is a previewed session its owner approved, and the
// approval's id.
func (w *world) approvedSession(v *store.OfferVersion, ref string) (*store.EnrollmentSession, string) {
	w.t.Helper()
	sess, owner := w.previewedSession(v, ref)
	var approval string
	w.p.Write(func(tx *platform.Tx) {
		r, err := w.s.approveOwner(tx, w.call(owner, "enrollments", "approve_owner"), approveOwnerInput{
			sessionRef:  sessionRef{PartnerID: w.partner, SessionID: sess.ID, ExpectedRevision: sess.Revision},
			Fingerprint: sess.Fingerprint,
		})
		require.NoError(w.t, err)
		approval = r["approvalId"].(string)
	})
	return sess, approval
}

// enrollInputOf is the enroll of an approved session.
func (w *world) enrollInputOf(sess *store.EnrollmentSession, approvalID string) enrollInput {
	return enrollInput{
		sessionRef:  sessionRef{PartnerID: w.partner, SessionID: sess.ID, ExpectedRevision: sess.Revision},
		Fingerprint: sess.Fingerprint, ApprovalIDs: []string{approvalID},
	}
}

// installed enrolls a new client and returns its installation.
func (w *world) installed(ref string) *store.Installation {
	w.t.Helper()
	v := w.publish("Offer " + ref)
	sess, appr := w.approvedSession(v, ref)
	var inst *store.Installation
	w.p.Write(func(tx *platform.Tx) {
		_, err := w.s.enroll(tx, w.call(w.admin, "enrollments", "enroll"), w.enrollInputOf(sess, appr))
		require.NoError(w.t, err)
		var ok bool
		inst, ok = tx.Installations.Get(sess.Receipts[0].InstallationID)
		require.True(w.t, ok)
	})
	return inst
}

// requireAPIError asserts that err is an API error with status and code.
func requireAPIError(t *testing.T, err error, status int, code string) {
	t.Helper()
	var apiErr *domain.Error
	require.True(t, errors.As(err, &apiErr), "got %v, want a %d %s", err, status, code)
	require.Equal(t, status, httpapi.Status(apiErr), apiErr.Message)
	require.Equal(t, code, apiErr.Code, apiErr.Message)
}
