package agency

import (
	"encoding/json"
	"net/http"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

func TestEnrollNeedsTheOwnersApprovalOfTheExactFingerprint(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		change func(tx *platform.Tx, sess *store.EnrollmentSession, in *enrollInput)
		status int
		code   string
	}{
		{name: "approved", status: http.StatusAccepted},
		{name: "changed since its preview", status: http.StatusConflict, code: voiceagent.CodeInvalidState,
			change: func(_ *platform.Tx, sess *store.EnrollmentSession, _ *enrollInput) { sess.State = sessDraft }},
		{name: "revoked", status: http.StatusConflict, code: voiceagent.CodeInvalidState,
			change: func(_ *platform.Tx, sess *store.EnrollmentSession, _ *enrollInput) { sess.State = sessRevoked }},
		{name: "stale revision", status: http.StatusConflict, code: voiceagent.CodeStaleRevision,
			change: func(_ *platform.Tx, _ *store.EnrollmentSession, in *enrollInput) { in.ExpectedRevision = "another" }},
		{name: "other fingerprint", status: http.StatusConflict, code: voiceagent.CodeFingerprintMismatch,
			change: func(_ *platform.Tx, _ *store.EnrollmentSession, in *enrollInput) {
				in.Fingerprint = fingerprint("other")
			}},
		{name: "no approval", status: http.StatusForbidden, code: voiceagent.CodeApprovalRequired,
			change: func(_ *platform.Tx, sess *store.EnrollmentSession, _ *enrollInput) { sess.Approval = nil }},
		{name: "approval of another fingerprint", status: http.StatusForbidden, code: voiceagent.CodeApprovalRequired,
			change: func(_ *platform.Tx, sess *store.EnrollmentSession, _ *enrollInput) {
				sess.Approval.Fingerprint = fingerprint("what the owner saw before")
			}},
		{name: "approval not named", status: http.StatusForbidden, code: voiceagent.CodeApprovalRequired,
			change: func(_ *platform.Tx, _ *store.EnrollmentSession, in *enrollInput) { in.ApprovalIDs = nil }},
		{name: "approval of another session", status: http.StatusBadRequest, code: voiceagent.CodeInvalidRequest,
			change: func(_ *platform.Tx, _ *store.EnrollmentSession, in *enrollInput) {
				in.ApprovalIDs = append(in.ApprovalIDs, "5d0c3a8e-0000-4000-8000-000000000000")
			}},
		{name: "archived offer", status: http.StatusConflict, code: voiceagent.CodeInvalidState,
			change: func(tx *platform.Tx, sess *store.EnrollmentSession, _ *enrollInput) {
				v, _ := tx.OfferVersions.Get(sess.OfferVersionID)
				o, _ := tx.Offers.Get(v.OfferID)
				o.State = offerArchived
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, 1)
			sess, appr := w.approvedSession(w.publish("Base"), "c1")
			in := w.enrollInputOf(sess, appr)
			w.p.Write(func(tx *platform.Tx) {
				if tc.change != nil {
					tc.change(tx, sess, &in)
				}
				state := sess.State
				r, err := w.s.enroll(tx, w.call(w.admin, "enrollments", "enroll"), in)
				if tc.code != "" {
					requireAPIError(t, err, tc.status, tc.code)
					assert.Equal(t, state, sess.State, "a refused enroll changes nothing")
					assert.Empty(t, sess.Receipts)
					return
				}
				require.NoError(t, err)
				assert.Equal(t, tc.status, response(r).(*httpapi.Respond).Status)
				assert.Equal(t, sessEnrolled, sess.State)
				require.Len(t, sess.Receipts, 1)
				assert.Equal(t, clientEnrolled, sess.Receipts[0].State)
				assert.Equal(t, w.tenant, tx.TenantOf(sess.Receipts[0].BusinessID), "a new client joins the agency's tenant")
			})
		})
	}
}

func TestOwnerApprovesOnlyWhatWasPreviewed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		change func(sess *store.EnrollmentSession, in *approveOwnerInput)
		code   string
	}{
		{name: "previewed"},
		{name: "not previewed", code: voiceagent.CodeInvalidState,
			change: func(sess *store.EnrollmentSession, _ *approveOwnerInput) { sess.State = sessDraft }},
		{name: "other fingerprint", code: voiceagent.CodeFingerprintMismatch,
			change: func(_ *store.EnrollmentSession, in *approveOwnerInput) {
				in.Fingerprint = fingerprint("other")
			}},
		{name: "stale revision", code: voiceagent.CodeStaleRevision,
			change: func(_ *store.EnrollmentSession, in *approveOwnerInput) { in.ExpectedRevision = "old" }},
		{name: "not the owner who claimed the link", code: voiceagent.CodeForbidden,
			change: func(sess *store.EnrollmentSession, _ *approveOwnerInput) {
				sess.OwnerLink.ClaimedBy = "someone else"
			}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, 2)
			sess, owner := w.previewedSession(w.publish("Base"), "c1")
			in := approveOwnerInput{
				sessionRef:  sessionRef{PartnerID: w.partner, SessionID: sess.ID, ExpectedRevision: sess.Revision},
				Fingerprint: sess.Fingerprint,
			}
			w.p.Write(func(tx *platform.Tx) {
				if tc.change != nil {
					tc.change(sess, &in)
				}
				_, err := w.s.approveOwner(tx, w.call(owner, "enrollments", "approve_owner"), in)
				if tc.code != "" {
					var apiErr *domain.Error
					require.ErrorAs(t, err, &apiErr)
					assert.Equal(t, tc.code, apiErr.Code, apiErr.Message)
					assert.Nil(t, sess.Approval, "a refused approval records nothing")
					return
				}
				require.NoError(t, err)
				assert.Equal(t, sessApproved, sess.State)
				require.NotNil(t, sess.Approval)
				assert.Equal(t, sess.Fingerprint, sess.Approval.Fingerprint)
			})
		})
	}
}

func TestInstallationStepsAreReviewedInOrder(t *testing.T) {
	t.Parallel()
	type step struct {
		approve bool
		spec    *installStep
		change  func(inst *store.Installation, in *installRef)
		code    string // "" when the step succeeds
	}
	preview := func(spec *installStep) step { return step{spec: spec} }
	approve := func(spec *installStep) step { return step{spec: spec, approve: true} }
	refused := func(s step, code string) step { s.code = code; return s }
	cases := []struct {
		name  string
		steps []step
		state string
	}{
		{name: "route then handoff", state: instLive,
			steps: []step{preview(routeStep), approve(routeStep), preview(handoffStep), approve(handoffStep)}},
		{name: "handoff before the route", state: instAwaitingRoute,
			steps: []step{refused(preview(handoffStep), voiceagent.CodeInvalidState)}},
		{name: "approve before preview", state: instAwaitingRoute,
			steps: []step{refused(approve(routeStep), voiceagent.CodeInvalidState)}},
		{name: "approve another fingerprint", state: instAwaitingRoute,
			steps: []step{preview(routeStep), refused(step{spec: routeStep, approve: true,
				change: func(_ *store.Installation, in *installRef) { in.Fingerprint = fingerprint("other") }}, voiceagent.CodeFingerprintMismatch)}},
		{name: "content changed since the preview", state: instAwaitingRoute,
			steps: []step{preview(routeStep), refused(step{spec: routeStep, approve: true,
				change: func(inst *store.Installation, _ *installRef) { inst.Facts = facts("night desk") }}, voiceagent.CodeFingerprintMismatch)}},
		{name: "stale revision", state: instAwaitingRoute,
			steps: []step{refused(step{spec: routeStep,
				change: func(_ *store.Installation, in *installRef) { in.ExpectedRevision = "old" }}, voiceagent.CodeStaleRevision)}},
		{name: "approved twice", state: instAwaitingHandoff,
			steps: []step{preview(routeStep), approve(routeStep), refused(preview(routeStep), voiceagent.CodeInvalidState)}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			w := newWorld(t, 3)
			inst := w.installed("c1")
			require.Equal(t, instAwaitingRoute, inst.State)
			w.p.Write(func(tx *platform.Tx) {
				for i, st := range tc.steps {
					in := installRef{PartnerID: w.partner, InstallationID: inst.ID, ExpectedRevision: inst.Revision}
					if st.approve {
						in.Fingerprint = st.spec.step(inst).Fingerprint // what was previewed
					}
					if st.change != nil {
						st.change(inst, &in)
					}
					revision := inst.Revision
					var err error
					if st.approve {
						_, err = w.s.approveStep(tx, w.call(w.admin, "installations", "approve"), approveStepInput{installRef: in, step: st.spec})
					} else {
						_, err = w.s.previewStep(tx, w.call(w.admin, "installations", "preview"), previewStepInput{installRef: in, step: st.spec})
					}
					if st.code != "" {
						requireAPIError(t, err, http.StatusConflict, st.code)
						assert.Equal(t, revision, inst.Revision, "step %d: a refused step changes nothing", i)
						continue
					}
					require.NoError(t, err, "step %d", i)
					assert.NotEqual(t, revision, inst.Revision, "step %d: a step gives a new revision", i)
				}
				assert.Equal(t, tc.state, inst.State)
			})
		})
	}
}

// ids are the ids of a receipt: uuids and 64 hex revisions and fingerprints.
var ids = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{64}`)

// sameButIDs asserts that two receipts are the same but for their ids.
func sameButIDs(t *testing.T, want, got []byte) {
	t.Helper()
	assert.JSONEq(t, ids.ReplaceAllString(string(want), "<id>"), ids.ReplaceAllString(string(got), "<id>"))
}

// A command retained while a dependency is down runs when the clock
// reaches its retry, with the time of the retry, and its operation records
// the receipt the command would have had then.
func TestRetainedCommandRunsWhenTheClockReachesIt(t *testing.T) {
	t.Parallel()
	in := inviteInput{Email: "new@agency.example", Role: roleOperator}

	direct := newWorld(t, 4)
	in.PartnerID = direct.partner
	direct.p.Clocks.Advance(agencyRetryEvery)
	var want []byte
	direct.p.Write(func(tx *platform.Tx) {
		r, err := direct.s.invite(tx, direct.call(direct.admin, "profile", "invite"), in)
		require.NoError(t, err)
		want, _ = jsonview.EncodeJSON(r)
	})

	w := newWorld(t, 4)
	in.PartnerID = w.partner
	var opID string
	w.p.Write(func(tx *platform.Tx) {
		var e *domain.Error
		e, opID = w.retainProfile(tx, "invite", in)
		assert.Equal(t, http.StatusServiceUnavailable, httpapi.Status(e))
		require.Len(t, operationsOf(tx, w.partner, "profile"), 1)
		pt, _ := tx.Partners.Get(w.partner)
		assert.Empty(t, pt.Invites, "a retained command changes nothing")
	})
	operation := func() store.AgencyOperation {
		var op store.AgencyOperation
		w.p.Read(func(tx *platform.Tx) {
			o, _ := tx.AgencyOperations.Get(opID)
			op = *o
		})
		return op
	}

	w.p.Clocks.Advance(agencyRetryEvery - time.Second)
	assert.Equal(t, "pending", operation().Status, "not run before its time")
	assert.Equal(t, 1, operation().Attempts)

	w.p.Clocks.Advance(time.Second)
	op := operation()
	require.Equal(t, "applied", op.Status)
	assert.Equal(t, 2, op.Attempts)
	assert.Equal(t, w.now(), op.UpdatedAt)
	sameButIDs(t, want, op.Result)
	var got struct {
		RecordedAt time.Time `json:"recordedAt"`
		Invite     struct {
			Email string `json:"email"`
		} `json:"invite"`
	}
	require.NoError(t, json.Unmarshal(op.Result, &got))
	assert.Equal(t, w.now(), got.RecordedAt, "run at the time of the retry")
	assert.Equal(t, in.Email, got.Invite.Email)
	w.p.Read(func(tx *platform.Tx) {
		pt, _ := tx.Partners.Get(w.partner)
		require.Len(t, pt.Invites, 1)
	})
}

// A retained command keeps its typed input (the input's JSON, which its
// retry decodes into the input's type), and one a document of an earlier
// version kept as its request's body (the input's members and the action)
// runs the same.
func TestRetainedCommandKeepsItsTypedInput(t *testing.T) {
	t.Parallel()
	for _, older := range []bool{false, true} {
		w := newWorld(t, 8)
		in := inviteInput{PartnerID: w.partner, Email: "kept@agency.example", Role: roleOperator}
		var opID string
		w.p.Write(func(tx *platform.Tx) {
			_, opID = w.retainProfile(tx, "invite", in)
			op, _ := tx.AgencyOperations.Get(opID)
			want, err := json.Marshal(in)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(op.Command.Input), "the input, not a request")
			assert.Equal(t, pathAgencyProfile, op.Command.Path)
			if older {
				body := `{"action":"invite","partnerId":"` + w.partner + `","email":"kept@agency.example","role":"operator"}`
				var cmd store.RetainedCommand
				require.NoError(t, json.Unmarshal([]byte(`{"Body":`+body+`,"Path":"`+pathAgencyProfile+`","Tenant":"`+w.tenant+
					`","UserID":"`+w.admin.UserID+`","Businesses":["`+w.admin.Businesses[0]+`"]}`), &cmd))
				assert.JSONEq(t, body, string(cmd.Input))
				op.Command = &cmd
			}
		})
		w.p.Clocks.Of(w.tenant).Advance(agencyRetryEvery)
		w.p.Read(func(tx *platform.Tx) {
			op, _ := tx.AgencyOperations.Get(opID)
			require.Equal(t, "applied", op.Status, "older %v: %s %s", older, op.ErrorCode, op.ErrorMessage)
			pt, _ := tx.Partners.Get(w.partner)
			require.Len(t, pt.Invites, 1)
			for _, inv := range pt.Invites {
				assert.Equal(t, "kept@agency.example", inv.Email)
			}
		})
	}
}

// A retained command is retried while its dependency stays down (the
// faults of its request's path and tenant), and rejected with the error
// its guards give when they no longer pass.
func TestRetainedCommandRetriesThenMeetsItsGuards(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 5)
	var in profileUpdateInput
	var opID string
	w.p.Write(func(tx *platform.Tx) {
		pt, _ := tx.Partners.Get(w.partner)
		in = profileUpdateInput{PartnerID: w.partner, ExpectedRevision: pt.Revision, Brand: store.AgencyBrand{Name: "Renamed"}, CommercialMode: "resale"}
		_, opID = w.retainProfile(tx, "update", in)
		require.Len(t, operationsOf(tx, w.partner, "profile"), 1)
	})
	_, err := w.api.AddFault(admin.FaultRule{Path: "/v1/agency-profile", Method: http.MethodPost, Target: admin.FaultTargetDependency, Times: 1})
	require.NoError(t, err)
	w.p.Clocks.Advance(agencyRetryEvery)
	var op store.AgencyOperation
	w.p.Read(func(tx *platform.Tx) { o, _ := tx.AgencyOperations.Get(opID); op = *o })
	assert.Equal(t, "pending", op.Status, "the dependency is still down")
	assert.Equal(t, 2, op.Attempts)

	// Another update lands first: the retained one is stale.
	w.p.Write(func(tx *platform.Tx) {
		_, err := w.s.updateProfile(tx, w.call(w.admin, "profile", "update"), in)
		require.NoError(t, err)
	})
	w.p.Clocks.Advance(agencyRetryEvery)
	w.p.Read(func(tx *platform.Tx) { o, _ := tx.AgencyOperations.Get(opID); op = *o })
	assert.Equal(t, "rejected", op.Status)
	assert.Equal(t, 3, op.Attempts)
	assert.Equal(t, http.StatusConflict, op.ErrorStatus)
	assert.Equal(t, voiceagent.CodeStaleRevision, op.ErrorCode)
}

// The clients of an enroll that wait for the voice provider are
// provisioned by the clock once it responds, in the agency's tenant.
func TestWaitingClientsAreProvisionedWhenTheProviderReturns(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 6)
	sess, appr := w.approvedSession(w.publish("Base"), "c1")
	w.p.Write(func(tx *platform.Tx) {
		c := w.call(w.admin, "enrollments", "enroll")
		c.deps = failing(admin.FaultTargetVoiceProvider)
		r, err := w.s.enroll(tx, c, w.enrollInputOf(sess, appr))
		require.NoError(t, err)
		assert.Equal(t, http.StatusAccepted, response(r).(*httpapi.Respond).Status)
	})
	require.Equal(t, sessEnrolling, sess.State)
	require.Equal(t, clientWaiting, sess.Receipts[0].State)

	// The provider fails once more, for the agency's tenant only.
	_, err := w.api.AddFault(admin.FaultRule{BusinessID: w.admin.Businesses[0], Path: "/v1/agency-enrollments",
		Target: admin.FaultTargetVoiceProvider, Times: 1})
	require.NoError(t, err)
	w.p.Clocks.Advance(agencyRetryEvery)
	w.p.Read(func(*platform.Tx) {
		assert.Equal(t, clientWaiting, sess.Receipts[0].State)
		assert.Equal(t, 2, sess.Receipts[0].Attempts)
	})

	revision := sess.Revision
	w.p.Clocks.Advance(agencyRetryEvery)
	w.p.Read(func(tx *platform.Tx) {
		r := sess.Receipts[0]
		assert.Equal(t, sessEnrolled, sess.State)
		assert.Equal(t, clientEnrolled, r.State)
		assert.Equal(t, 3, r.Attempts)
		assert.NotEqual(t, revision, sess.Revision)
		assert.Equal(t, w.tenant, tx.TenantOf(r.BusinessID), "the client joins the agency's tenant")
		_, ok := tx.Installations.Get(r.InstallationID)
		assert.True(t, ok)
	})
}

func TestGuards(t *testing.T) {
	t.Parallel()
	t.Run("revision", func(t *testing.T) {
		assert.Nil(t, checkRevision("r1", "r1"))
		e := checkRevision("r0", "r1")
		require.NotNil(t, e)
		assert.Equal(t, voiceagent.CodeStaleRevision, e.Code)
		assert.Equal(t, http.StatusConflict, httpapi.Status(e))
		assert.Contains(t, e.Message, "current revision r1")
	})
	t.Run("fingerprint", func(t *testing.T) {
		assert.Nil(t, checkFingerprint("f", "f"))
		e := checkFingerprint("f", "g")
		require.NotNil(t, e)
		assert.Equal(t, http.StatusConflict, httpapi.Status(e))
		assert.Equal(t, voiceagent.CodeFingerprintMismatch, e.Code)
	})
	t.Run("editable", func(t *testing.T) {
		for state, want := range map[string]bool{
			sessDraft: true, sessPreviewed: true, sessApproved: true,
			sessEnrolling: false, sessEnrolled: false, sessRevoked: false,
		} {
			assert.Equal(t, want, editable(&store.EnrollmentSession{State: state}), state)
		}
	})
}

// The agency's tasks are data: dropped from the tenant's clock and put
// back from their clock.Task values (Resume), a retained command is
// applied and the waiting clients of an enroll are provisioned, as the
// original tasks would have done.
func TestAgencyTasksAreRebuiltFromData(t *testing.T) {
	t.Parallel()
	w := newWorld(t, 7)
	sess, appr := w.approvedSession(w.publish("Base"), "c1")
	in := inviteInput{PartnerID: w.partner, Email: "rebuilt@agency.example", Role: "operator"}
	var opID string
	w.p.Write(func(tx *platform.Tx) {
		c := w.call(w.admin, "enrollments", "enroll")
		c.deps = failing(admin.FaultTargetVoiceProvider)
		_, err := w.s.enroll(tx, c, w.enrollInputOf(sess, appr))
		require.NoError(t, err)

		_, opID = w.retainProfile(tx, "invite", in)
	})
	require.Equal(t, clientWaiting, sess.Receipts[0].State)

	clk := w.p.Clocks.Of(w.tenant)
	tasks := clk.Tasks()
	var kinds []string
	for _, task := range tasks {
		kinds = append(kinds, task.Kind)
	}
	assert.Subset(t, kinds, []string{TaskRetryEnrollment, TaskRetryCommand})
	clk.Reset()
	for _, task := range tasks {
		require.NoError(t, w.p.Resume(w.tenant, task))
	}
	require.Equal(t, tasks, clk.Tasks())

	w.p.Clocks.Advance(agencyRetryEvery)
	w.p.Read(func(tx *platform.Tx) {
		assert.Equal(t, sessEnrolled, sess.State)
		assert.Equal(t, clientEnrolled, sess.Receipts[0].State)
		assert.Equal(t, 2, sess.Receipts[0].Attempts)
		op, ok := tx.AgencyOperations.Get(opID)
		require.True(t, ok)
		assert.Equal(t, "applied", op.Status, op.ErrorMessage)
		assert.Equal(t, 2, op.Attempts)
		pt, _ := tx.Partners.Get(w.partner)
		require.Len(t, pt.Invites, 1)
		assert.Equal(t, in.Email, pt.Invites[0].Email)
	})
}
