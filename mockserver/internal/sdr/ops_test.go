package sdr

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/internal/wire"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
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
			assert.Equal(t, channel, res.Action)
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
		var apiErr *httpapi.Error
		require.ErrorAs(t, err, &apiErr, "touch at %v", at)
		assert.Equal(t, http.StatusTooManyRequests, apiErr.Status)
		assert.Equal(t, wire.CodeRateLimited, apiErr.Code)
		assert.Equal(t, "false", apiErr.Header.Get(httpapi.HeaderShouldRetry))
		assert.Equal(t, next.Format(time.RFC3339), errorMembers(t, apiErr)["nextAllowedAt"], "touch at %v", at)
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
	var apiErr *httpapi.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusTooManyRequests, apiErr.Status)
	assert.NotContains(t, errorMembers(t, apiErr), "nextAllowedAt", "max_touches gives no time")
	assert.Equal(t, 2.0, errorMembers(t, apiErr)["max_touches"])
	assert.Empty(t, apiErr.Header.Get("Retry-After"))
}

// errorMembers are the members of the "error" object of e's response.
func errorMembers(t *testing.T, e *httpapi.Error) map[string]any {
	t.Helper()
	var env struct {
		Error map[string]any `json:"error"`
	}
	require.NoError(t, json.Unmarshal(httpapi.ErrorResponse(e).Body, &env))
	return env.Error
}
