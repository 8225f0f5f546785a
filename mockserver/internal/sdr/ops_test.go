package sdr

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/internal/wire"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	sdrapi "github.com/voiceagent/voiceagent-go/sdr"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// TestSegments places single leads, each in a world of its own, at a
// fixed time after their creation.
func TestSegments(t *testing.T) {
	const phone, email = "+15550142001", "pat@example.com"
	touched := func(n int, ago time.Duration, channel string) *store.SDRLead {
		at := start.Add(ago)
		return &store.SDRLead{TouchCount: n, LastTouchAt: &at, LastChannel: channel}
	}
	for _, tc := range []struct {
		name    string
		lead    leadSpec
		age     time.Duration // now is start+age
		optIn   bool          // the phone opted in to texts
		dnc     bool          // the phone is on the business's do-not-call list
		seg     segment
		next    string
		paused  bool
		actable bool
	}{
		{name: "a new lead within the hour", lead: leadSpec{phone: phone, email: email}, age: 10 * time.Minute,
			seg: segSpeedToLead, next: store.SDRCall, actable: true},
		{name: "a new lead after the hour", lead: leadSpec{phone: phone}, age: 2 * time.Hour,
			seg: segFreshDemoCaller, next: store.SDRCall, actable: true},
		{name: "an engaged lead, quiet for two days", lead: leadSpec{phone: phone, email: email, status: store.LeadContacted, lastContact: 3 * time.Hour},
			age: 3*time.Hour + 2*24*time.Hour, seg: segWarmDemoCaller, next: store.SDRCall, actable: true},
		{name: "a warm lead opted in to texts", lead: leadSpec{phone: phone, status: store.LeadContacted},
			age: 2 * 24 * time.Hour, optIn: true, seg: segWarmDemoCaller, next: store.SDRSMS, actable: true},
		{name: "a lead quiet for a week", lead: leadSpec{phone: phone, email: email}, age: 7 * 24 * time.Hour,
			seg: segCoolingDemo, next: store.SDREmail, actable: true},
		{name: "a paused lead", lead: leadSpec{phone: phone, state: &store.SDRLead{Paused: true}}, age: 10 * time.Minute,
			seg: segSpeedToLead, next: store.SDRCall, paused: true},
		{name: "a trial lead on its first day", lead: leadSpec{phone: phone, source: "free_trial"}, age: 24 * time.Hour,
			seg: segNewTrialStuck, next: store.SDRCall, actable: true},
		{name: "a trial lead within the hour", lead: leadSpec{phone: phone, source: "Trial_Signup"}, age: 10 * time.Minute,
			seg: segNewTrialStuck, next: store.SDRCall, actable: true},
		{name: "a trial ending", lead: leadSpec{phone: phone, email: email, source: "trial"}, age: 12 * 24 * time.Hour,
			seg: segTrialEnding, next: store.SDRCall, actable: true},
		{name: "a trial gone dark", lead: leadSpec{email: email, source: "trial", status: store.LeadContacted}, age: 5 * 24 * time.Hour,
			seg: segTrialGoingDark, next: store.SDREmail, actable: true},
		{name: "a trial over", lead: leadSpec{phone: phone, source: "trial"}, age: 20 * 24 * time.Hour,
			seg: segChurnedRecent, next: store.SDRCall, actable: true},
		{name: "a lead on the do-not-call list with an email", lead: leadSpec{phone: phone, email: email}, age: 10 * time.Minute,
			dnc: true, seg: segSpeedToLead, next: store.SDREmail, actable: true},
		{name: "a lead on the do-not-call list without an email", lead: leadSpec{phone: phone}, age: 10 * time.Minute,
			dnc: true, seg: segManualReview, next: actionNone},
		{name: "a lead that asked not to be contacted", lead: leadSpec{phone: phone, status: store.LeadDoNotContact}, age: 10 * time.Minute,
			seg: segCold, next: actionNone},
		{name: "a converted lead", lead: leadSpec{phone: phone, status: store.LeadConverted}, age: time.Hour,
			seg: segCold, next: actionNone},
		{name: "a lead touched once without reply", lead: leadSpec{phone: phone, email: email, state: touched(1, 30*time.Hour, store.SDRCall)},
			age: 32 * time.Hour, seg: segContactedNoReply, next: store.SDREmail, actable: false}, // no consent: sms is passed over; the gap is not over
		{name: "a lead touched as often as allowed", lead: leadSpec{phone: phone, state: touched(5, time.Hour, store.SDRCall)},
			age: 10 * 24 * time.Hour, seg: segExhausted, next: actionNone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			w.p.Write(func(tx *platform.Tx) {
				l := w.addLead(tx, tc.lead)
				if tc.optIn {
					tx.SetConsent(w.biz.ID, phone, store.ConsentOptedIn)
				}
				if tc.dnc {
					tx.SetDNC(w.biz.ID, phone, true)
				}
				c := w.ctx(tx, start.Add(tc.age))
				assert.Equal(t, tc.seg, c.segmentOf(l, tx.SDRLeads[l.ID], c.reachOf(l)), "segmentOf")
				e := c.evaluate(l)
				assert.Equal(t, tc.seg.String(), e.segment.String(), "evaluate's segment")
				assert.Equal(t, tc.next, e.next, "next action")
				assert.Equal(t, tc.paused, e.paused(), "paused")
				assert.Equal(t, tc.actable, e.actionable, "actionable")
			})
		})
	}
}

// TestSMSNeedsConsent: an opted-out phone is not reached by text, so the
// next channel is taken; opted in, the text comes first.
func TestSMSNeedsConsent(t *testing.T) {
	const phone = "+15550142002"
	for _, tc := range []struct {
		consent string
		next    string
	}{
		{store.ConsentOptedIn, store.SDRSMS},
		{store.ConsentOptedOut, store.SDRCall},
		{store.ConsentNone, store.SDRCall},
	} {
		w := newWorld(t)
		w.p.Write(func(tx *platform.Tx) {
			l := w.addLead(tx, leadSpec{phone: phone, status: store.LeadContacted})
			tx.SetConsent(w.biz.ID, phone, tc.consent)
			c := w.ctx(tx, start.Add(2*24*time.Hour)) // warm_demo_caller: sms, call, email
			assert.Equal(t, tc.next, c.evaluate(l).next, tc.consent)
		})
	}
}

func TestNextAllowed(t *testing.T) {
	cfg := &store.SDRConfig{MinTouchGapHours: 24}
	at := func(h int) *time.Time { v := start.Add(time.Duration(h) * time.Hour); return &v }
	for _, tc := range []struct {
		name  string
		state *store.SDRLead
		want  time.Time
	}{
		{"never touched", nil, time.Time{}},
		{"no touch nor skip", &store.SDRLead{Paused: true}, time.Time{}},
		{"touched", &store.SDRLead{LastTouchAt: at(0)}, start.Add(24 * time.Hour)},
		{"skipped after the touch", &store.SDRLead{LastTouchAt: at(0), SkippedAt: at(5)}, start.Add(29 * time.Hour)},
		{"skipped before the touch", &store.SDRLead{LastTouchAt: at(5), SkippedAt: at(0)}, start.Add(29 * time.Hour)},
	} {
		assert.Equal(t, tc.want, nextAllowed(cfg, tc.state), tc.name)
	}
}

// TestCadence: a manual touch within min_touch_gap_hours of the last is
// refused with 429 and nextAllowedAt; at the end of the gap it is allowed;
// max_touches refuses without nextAllowedAt.
func TestCadence(t *testing.T) {
	w := newWorld(t)
	var l *store.Lead
	w.p.Write(func(tx *platform.Tx) {
		l = w.addLead(tx, leadSpec{phone: "+15550142003", email: "pat@example.com"})
		maxTouches := 2
		_, err := w.sdr.UpdateConfig(tx, start, w.biz, ConfigPatch{MaxTouches: &maxTouches})
		require.Nil(t, err)
	})
	touch := func(at time.Time, channel string) (*store.SDRLead, error) {
		var state *store.SDRLead
		var err error
		w.p.Write(func(tx *platform.Tx) {
			res, apiErr := w.sdr.act(w.ctx(tx, at), l, channel)
			if apiErr != nil {
				err = apiErr
				return
			}
			assert.Equal(t, channel, string(res.Action))
			state = tx.SDRLeads[l.ID]
		})
		return state, err
	}
	state, err := touch(start, store.SDRCall)
	require.NoError(t, err)
	assert.Equal(t, 1, state.TouchCount)
	assert.Equal(t, start, *state.LastTouchAt)

	next := start.Add(24 * time.Hour)
	for _, at := range []time.Time{start.Add(time.Minute), next.Add(-time.Second)} {
		_, err = touch(at, store.SDREmail)
		var apiErr *domain.Error
		require.ErrorAs(t, err, &apiErr, "touch at %v", at)
		assert.Equal(t, http.StatusTooManyRequests, httpapi.Status(apiErr))
		assert.Equal(t, voiceagent.CodeRateLimited, apiErr.Code)
		assert.Equal(t, "false", httpapi.ErrorResponse(apiErr).Header.Get(httpapi.HeaderShouldRetry))
		assert.Equal(t, next.UTC().Format(wire.TimeLayout), errorMembers(t, apiErr)["nextAllowedAt"], "touch at %v", at)
	}
	w.p.Read(func(tx *platform.Tx) {
		assert.Equal(t, 1, tx.SDRLeads[l.ID].TouchCount, "a refused touch is not counted")
		assert.Equal(t, 1, tx.SDRActivity.Len(), "a refused touch is not logged")
	})

	state, err = touch(next, store.SDREmail)
	require.NoError(t, err, "the gap is over")
	assert.Equal(t, 2, state.TouchCount)
	assert.Equal(t, store.SDREmail, state.LastChannel)

	_, err = touch(next.Add(48*time.Hour), store.SDRCall)
	var apiErr *domain.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusTooManyRequests, httpapi.Status(apiErr))
	assert.NotContains(t, errorMembers(t, apiErr), "nextAllowedAt", "max_touches gives no time")
	assert.Equal(t, 2.0, errorMembers(t, apiErr)["max_touches"])
	assert.Empty(t, httpapi.ErrorResponse(apiErr).Header.Get("Retry-After"))
}

// errorMembers are the members of the "error" object of e's response.
func errorMembers(t *testing.T, e *domain.Error) map[string]any {
	t.Helper()
	var env struct {
		Error map[string]any `json:"error"`
	}
	require.NoError(t, json.Unmarshal(httpapi.ErrorResponse(e).Body, &env))
	return env.Error
}

// TestRunSDRDryRunChangesNothing: a dry run plans what a run does (a
// call to the new lead, an escalation of the lead nobody may reach) and
// changes nothing; the run does it, and a second run at once escalates no
// one again and waits for the cadence.
func TestRunSDRDryRunChangesNothing(t *testing.T) {
	w := newWorld(t)
	var fresh, stuck *store.Lead
	w.p.Write(func(tx *platform.Tx) {
		fresh = w.addLead(tx, leadSpec{phone: "+15550142010"})
		stuck = w.addLead(tx, leadSpec{phone: "+15550142011"})
		tx.SetDNC(w.biz.ID, "+15550142011", true)
		on := true
		_, err := w.sdr.UpdateConfig(tx, start, w.biz, ConfigPatch{Enabled: &on, AutoCall: &on})
		require.Nil(t, err)
	})
	now := start.Add(10 * time.Minute)
	run := func(dry bool) (res *sdrapi.RunResult) {
		w.p.Write(func(tx *platform.Tx) {
			res = w.sdr.runSDR(w.ctx(tx, now), store.SDRTriggerRun, dry)
		})
		return res
	}
	type outcome struct {
		escalated, calls, skipped, failed int
		actions                           []string
	}
	outcomeOf := func(res *sdrapi.RunResult) outcome {
		o := outcome{escalated: res.Summary.Escalated, calls: res.Summary.CallsQueued, skipped: res.Skipped, failed: res.Summary.Failed}
		for _, it := range res.Results {
			o.actions = append(o.actions, string(it.Action)+" "+it.LeadID)
		}
		return o
	}
	want := outcome{escalated: 1, calls: 1, actions: []string{store.SDRCall + " " + fresh.ID, store.SDREscalate + " " + stuck.ID}}

	dry := run(true)
	assert.True(t, dry.DryRun)
	assert.True(t, dry.InBusinessHours)
	assert.Equal(t, want, outcomeOf(dry))
	assert.Contains(t, dry.Results[0].Detail, "would call +15550142010")
	w.p.Read(func(tx *platform.Tx) {
		assert.Zero(t, tx.Calls.Len(), "a dry run places no call")
		assert.Zero(t, tx.SDRActivity.Len(), "a dry run logs nothing")
		assert.Empty(t, tx.SDRLeads, "a dry run records no touch or escalation")
		assert.Nil(t, tx.SDRConfigs[w.biz.ID].LastRunAt)
	})

	real := run(false)
	assert.False(t, real.DryRun)
	assert.Equal(t, want, outcomeOf(real))
	w.p.Read(func(tx *platform.Tx) {
		require.Equal(t, 1, tx.Calls.Len())
		for _, c := range tx.Calls.Owned(w.biz.ID) {
			assert.Equal(t, "+15550142010", c.To)
			assert.Equal(t, fresh.ID, c.LeadID)
			assert.Contains(t, real.Results[0].Detail, "call "+c.ID+" queued")
		}
		assert.Equal(t, 2, tx.SDRActivity.Len(), "the call and the escalation are logged")
		assert.Equal(t, 1, tx.SDRLeads[fresh.ID].TouchCount)
		assert.Equal(t, now, *tx.SDRLeads[stuck.ID].EscalatedAt)
		cfg := tx.SDRConfigs[w.biz.ID]
		require.NotNil(t, cfg.LastRunAt)
		assert.Equal(t, now, *cfg.LastRunAt)
		assert.Equal(t, store.SDRTriggerRun, cfg.LastRunTrigger)
	})

	again := run(false)
	assert.Equal(t, outcome{skipped: 1}, outcomeOf(again), "escalated once; the called lead waits for the gap")
	assert.Equal(t, 1, again.SkippedByReason[skipCadence])
}

// TestRunSDROutsideBusinessHours: at 03:00 in the business's time zone a
// run skips every lead it would touch, and says why.
func TestRunSDROutsideBusinessHours(t *testing.T) {
	w := newWorld(t)
	w.p.Write(func(tx *platform.Tx) {
		w.addLead(tx, leadSpec{phone: "+15550142012"})
		on := true
		_, err := w.sdr.UpdateConfig(tx, start, w.biz, ConfigPatch{Enabled: &on, AutoCall: &on})
		require.Nil(t, err)
		night := time.Date(2026, 3, 11, 7, 0, 0, 0, time.UTC) // 03:00 EDT
		res := w.sdr.runSDR(w.ctx(tx, night), store.SDRTriggerRun, false)
		assert.False(t, res.InBusinessHours)
		assert.Equal(t, 1, res.SkippedByReason[skipOutOfHours])
		assert.Empty(t, res.Results)
		assert.Zero(t, tx.Calls.Len())
	})
}

// TestUpdateConfigRefusesAnotherBusinessesAgent: sdr_agent_id must be an
// agent of the business; a refused patch stores nothing.
func TestUpdateConfigRefusesAnotherBusinessesAgent(t *testing.T) {
	w := newWorld(t)
	w.p.Write(func(tx *platform.Tx) {
		other := tx.InsertBusiness(&store.Business{Name: "Other"}, start)
		a := &store.Agent{Name: "Theirs"}
		tx.Agents.Insert(a, other.ID, start)
		on := true
		_, err := w.sdr.UpdateConfig(tx, start, w.biz, ConfigPatch{Enabled: &on, SDRAgentID: &a.ID})
		require.NotNil(t, err)
		assert.Equal(t, http.StatusBadRequest, httpapi.Status(err))
		assert.NotContains(t, tx.SDRConfigs, w.biz.ID)

		cfg, err := w.sdr.UpdateConfig(tx, start, w.biz, ConfigPatch{Enabled: &on, SDRAgentID: &w.agent.ID})
		require.Nil(t, err)
		assert.Same(t, cfg, tx.SDRConfigs[w.biz.ID])
		require.NotNil(t, cfg.NextRunAt, "enabling starts the scheduled runner")
		assert.Equal(t, start.Add(sdrRunnerInterval), *cfg.NextRunAt)
	})
}

// TestPipelineCountsEveryLeadAndListsTheSegmentAsked: the summary counts
// every lead; the list keeps the segments asked for, highest score first.
func TestPipelineCountsEveryLeadAndListsTheSegmentAsked(t *testing.T) {
	w := newWorld(t)
	w.p.Write(func(tx *platform.Tx) {
		fresh := w.addLead(tx, leadSpec{phone: "+15550142020"})
		w.addLead(tx, leadSpec{phone: "+15550142021", status: store.LeadConverted})
		stuck := w.addLead(tx, leadSpec{phone: "+15550142022"})
		tx.SetDNC(w.biz.ID, "+15550142022", true)
		c := w.ctx(tx, start.Add(10*time.Minute))

		all := c.pipeline(nil, 10)
		assert.Equal(t, 3, all.Summary.TotalLeads)
		assert.Equal(t, 1, all.Summary.Actionable)
		assert.Equal(t, 1, all.Summary.NeedsManual)
		assert.Equal(t, 1, all.Summary.Segments[sdrapi.SegmentSpeedToLead])
		assert.Equal(t, 1, all.Summary.Segments[sdrapi.SegmentCold])
		require.Len(t, all.Leads, 3)
		assert.Equal(t, fresh.ID, all.Leads[0].ID, "speed to lead scores highest")

		manual := c.pipeline([]segment{segManualReview}, 10)
		assert.Equal(t, 3, manual.Summary.TotalLeads, "the summary counts every lead")
		require.Len(t, manual.Leads, 1)
		assert.Equal(t, stuck.ID, manual.Leads[0].ID)
		assert.Len(t, c.pipeline(nil, 2).Leads, 2, "limit")
	})
}

// TestEmailIsSentOnTheClock: an email touch is queued, and sent (the new
// lead becomes contacted) or bounced when the tenant's clock reaches it.
func TestEmailIsSentOnTheClock(t *testing.T) {
	for _, tc := range []struct {
		email, status string
		leadStatus    string
		outbox        int
	}{
		{"pat@example.com", store.SDREmailSent, store.LeadContacted, 1},
		{"pat@email-fails.example", store.SDREmailFailed, store.LeadNew, 0},
	} {
		w := newWorld(t)
		var l *store.Lead
		var emailID string
		w.p.Write(func(tx *platform.Tx) {
			l = w.addLead(tx, leadSpec{email: tc.email})
			res, err := w.sdr.act(w.ctx(tx, start), l, store.SDREmail)
			require.Nil(t, err)
			emailID = res.EmailID
			m, ok := tx.SDRMails.Get(emailID)
			require.True(t, ok)
			assert.Equal(t, store.SDREmailQueued, m.Status)
		})
		w.p.Clocks.Of(w.biz.Tenant).Advance(sdrEmailDelay)
		w.p.Read(func(tx *platform.Tx) {
			m, _ := tx.SDRMails.Get(emailID)
			assert.Equal(t, tc.status, m.Status, tc.email)
			assert.Equal(t, tc.leadStatus, l.Status, tc.email)
			assert.Equal(t, tc.outbox, tx.Outbox.Len(), tc.email)
		})
	}
}
