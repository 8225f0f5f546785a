package sdr_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/events"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/leads"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/sdr"
)

// noonET is 12:00 in New York (the businesses' time zone): inside the
// default business hours (9 to 17) and outside SMS quiet hours.
var noonET = time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)

func newEnv(t *testing.T) *testenv.Env {
	t.Helper()
	return testenv.New(t, mockserver.WithStartTime(noonET))
}

var ctx = context.Background()

// apiErr returns err as an *voiceagent.Error.
func apiErr(t *testing.T, err error) *voiceagent.Error {
	t.Helper()
	var e *voiceagent.Error
	require.ErrorAs(t, err, &e)
	return e
}

// configure saves a configuration with every channel on.
func configure(t *testing.T, env *testenv.Env, p sdr.ConfigParams) *sdr.Config {
	t.Helper()
	p.BusinessID = env.Account.BusinessID
	cfg, err := env.Client.SDR.UpdateConfig(ctx, &p)
	require.NoError(t, err)
	return cfg
}

// inboundLead makes a caller ring the business and returns the lead the
// call created (the caller gains SMS consent).
func inboundLead(t *testing.T, env *testenv.Env, from string, said string) *leads.Lead {
	t.Helper()
	id, err := env.Server.InboundCall(mockserver.InboundCall{To: env.Account.PhoneNumber, From: from, Caller: mockserver.Caller{Said: said}, Duration: 60})
	require.NoError(t, err)
	env.Server.Advance(2 * time.Minute)
	c, err := env.Client.Calls.Get(ctx, id)
	require.NoError(t, err)
	require.NotNil(t, c.LeadID)
	l, err := env.Client.Leads.Get(ctx, *c.LeadID)
	require.NoError(t, err)
	return l
}

// pipelineLead returns one lead of the pipeline.
func pipelineLead(t *testing.T, env *testenv.Env, id string) sdr.Lead {
	t.Helper()
	p, err := env.Client.SDR.Pipeline(ctx, &sdr.PipelineParams{BusinessID: env.Account.BusinessID, Limit: 1000})
	require.NoError(t, err)
	for _, l := range p.Leads {
		if l.ID == id {
			return l
		}
	}
	t.Fatalf("lead %s is not in the pipeline", id)
	return sdr.Lead{}
}

func segmentOf(t *testing.T, env *testenv.Env, id string) sdr.Segment {
	t.Helper()
	return pipelineLead(t, env, id).Segment
}

func act(env *testenv.Env, leadID string, action sdr.Action) (*sdr.ActionResult, error) {
	return env.Client.SDR.Act(ctx, &sdr.ActionParams{BusinessID: env.Account.BusinessID, LeadID: leadID, Action: action})
}

func TestConfigDefaultsUpsertAndValidation(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	biz := env.Account.BusinessID

	def, err := env.Client.SDR.GetConfig(ctx, biz)
	require.NoError(t, err)
	assert.Equal(t, sdr.Config{
		BusinessID: biz, MinTouchGapHours: 24, MaxTouches: 5, BusinessHoursStart: 9, BusinessHoursEnd: 17,
		Timezone: "America/New_York",
	}, *def, "safe defaults: disabled, nothing automatic")

	cfg := configure(t, env, sdr.ConfigParams{AutoSMS: voiceagent.Bool(true), MaxTouches: voiceagent.Int(3)})
	assert.True(t, cfg.Configured)
	assert.True(t, cfg.AutoSMS)
	assert.Equal(t, 3, cfg.MaxTouches)
	assert.Equal(t, 24, cfg.MinTouchGapHours, "fields not sent keep the default")
	assert.Nil(t, cfg.NextRunAt, "disabled: no scheduled run")
	require.NotNil(t, cfg.CreatedAt)

	closer, err := env.Client.Agents.Create(ctx, &agents.CreateParams{BusinessID: biz, Name: "Closer", SystemPrompt: "Sell."})
	require.NoError(t, err)
	env.Server.Advance(time.Minute)
	cfg = configure(t, env, sdr.ConfigParams{
		Enabled: voiceagent.Bool(true), MinTouchGapHours: voiceagent.Int(0), AutoCall: voiceagent.Bool(true),
		AutoEmail: voiceagent.Bool(true), SDRAgentID: voiceagent.String(closer.ID),
		BusinessHoursStart: voiceagent.Int(0), BusinessHoursEnd: voiceagent.Int(23),
		EmailFromAccountID: voiceagent.String("sales@acme.example"),
	})
	assert.Equal(t, sdr.Config{
		BusinessID: biz, Enabled: true, MinTouchGapHours: 0, MaxTouches: 3, AutoCall: true, AutoEmail: true,
		AutoSMS: true, SDRAgentID: voiceagent.String(closer.ID), BusinessHoursStart: 0, BusinessHoursEnd: 23,
		EmailFromAccountID: voiceagent.String("sales@acme.example"), Configured: true, Timezone: "America/New_York",
		NextRunAt: voiceagent.Time(noonET.Add(time.Minute + 2*time.Hour)), CreatedAt: cfg.CreatedAt,
		UpdatedAt: voiceagent.Time(noonET.Add(time.Minute)),
	}, *cfg)
	again, err := env.Client.SDR.GetConfig(ctx, biz)
	require.NoError(t, err)
	assert.Equal(t, cfg, again)

	cleared := configure(t, env, sdr.ConfigParams{SDRAgentID: voiceagent.String("")})
	assert.Nil(t, cleared.SDRAgentID, "an empty sdr_agent_id clears it")

	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	for name, p := range map[string]sdr.ConfigParams{
		"hour 24":             {BusinessHoursEnd: voiceagent.Int(24)},
		"negative hour":       {BusinessHoursStart: voiceagent.Int(-1)},
		"max_touches 0":       {MaxTouches: voiceagent.Int(0)},
		"negative gap":        {MinTouchGapHours: voiceagent.Int(-2)},
		"another's agent":     {SDRAgentID: voiceagent.String(other.AgentID)},
		"agent not a uuid ok": {SDRAgentID: voiceagent.String("nope")},
	} {
		p.BusinessID = biz
		_, err := env.Client.SDR.UpdateConfig(ctx, &p)
		e := apiErr(t, err)
		assert.Equal(t, http.StatusBadRequest, e.StatusCode, name)
		assert.Equal(t, voiceagent.CodeInvalidRequest, e.Code, name)
		require.NotEmpty(t, e.Details, name)
	}

	_, err = env.Client.SDR.UpdateConfig(ctx, &sdr.ConfigParams{BusinessID: other.BusinessID, Enabled: voiceagent.Bool(true)})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden, "the caller is bound to its own businesses")
	_, err = env.Client.SDR.GetConfig(ctx, other.BusinessID)
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	_, err = env.Client.SDR.GetConfig(ctx, "00000000-0000-4000-8000-000000000000")
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
	_, err = env.Client.SDR.GetConfig(ctx, "")
	assert.ErrorIs(t, err, voiceagent.ErrBadRequest, "businessId is required")
}

func TestKeysNeedSDRScopesAndSessionsDoNot(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	noSDR := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"calls:read"}})
	readOnly := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"sdr:read"}})

	_, err := env.ClientFor(noSDR.APIKey).SDR.GetConfig(ctx, noSDR.BusinessID)
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)

	c := env.ClientFor(readOnly.APIKey)
	_, err = c.SDR.GetConfig(ctx, readOnly.BusinessID)
	require.NoError(t, err)
	_, err = c.SDR.Pipeline(ctx, &sdr.PipelineParams{BusinessID: readOnly.BusinessID})
	require.NoError(t, err)
	_, err = c.SDR.UpdateConfig(ctx, &sdr.ConfigParams{BusinessID: readOnly.BusinessID, Enabled: voiceagent.Bool(true)})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden, "PUT needs sdr:write")
	_, err = c.SDR.Run(ctx, &sdr.RunParams{BusinessID: readOnly.BusinessID})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden, "POST needs sdr:write")

	// A dashboard session skips the scope check, but not the business check.
	sess := env.ClientFor("", voiceagent.WithSessionCookie(noSDR.Session))
	cfg, err := sess.SDR.UpdateConfig(ctx, &sdr.ConfigParams{BusinessID: noSDR.BusinessID, Enabled: voiceagent.Bool(true)})
	require.NoError(t, err)
	assert.True(t, cfg.Enabled)
	_, err = sess.SDR.GetConfig(ctx, readOnly.BusinessID)
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)

	_, err = env.ClientFor("").SDR.GetConfig(ctx, noSDR.BusinessID)
	assert.ErrorIs(t, err, voiceagent.ErrUnauthorized)
}

// seeded is a fixed lead for the rule table: the fixture and the segment
// it must be in.
type seeded struct {
	name string
	lead mockserver.LeadFixture
	want sdr.Segment
}

func at(d time.Duration) *time.Time { return voiceagent.Time(noonET.Add(-d)) }

const hour, day = time.Hour, 24 * time.Hour

func TestEveryRuleOfTheSegmentTable(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	configure(t, env, sdr.ConfigParams{MaxTouches: voiceagent.Int(3)})
	require.NoError(t, env.Server.AddDNC("+15557770099", ""))
	phone := "+15557770001"
	email := "x@example.com"
	cases := []seeded{
		{"converted", mockserver.LeadFixture{Phone: phone, Status: "converted"}, sdr.SegmentCold},
		{"do not contact", mockserver.LeadFixture{Phone: phone, Status: "do_not_contact", CreatedAt: at(time.Minute)}, sdr.SegmentCold},
		{"spam", mockserver.LeadFixture{Email: email, Status: "spam"}, sdr.SegmentCold},
		{"unqualified", mockserver.LeadFixture{Email: email, Status: "unqualified"}, sdr.SegmentCold},
		{"touches reach max", mockserver.LeadFixture{Phone: phone, TouchCount: 3, LastTouchAt: at(hour)}, sdr.SegmentExhausted},
		{"no phone, no email", mockserver.LeadFixture{Name: "Nobody"}, sdr.SegmentManualReview},
		{"phone on DNC, no email", mockserver.LeadFixture{Phone: "+15557770099"}, sdr.SegmentManualReview},
		{"lost recently", mockserver.LeadFixture{Email: email, Status: "lost", CreatedAt: at(60 * day), UpdatedAt: at(29 * day)}, sdr.SegmentChurnedRecent},
		{"lost long ago", mockserver.LeadFixture{Email: email, Status: "lost", CreatedAt: at(60 * day), UpdatedAt: at(31 * day)}, sdr.SegmentCold},
		{"trial ended recently", mockserver.LeadFixture{Email: email, Source: "trial_signup", CreatedAt: at(20 * day)}, sdr.SegmentChurnedRecent},
		{"trial ended long ago", mockserver.LeadFixture{Email: email, Source: "trial", CreatedAt: at(45 * day)}, sdr.SegmentCold},
		{"new inbound lead", mockserver.LeadFixture{Phone: phone, Source: "inbound_call", CreatedAt: at(59 * time.Minute)}, sdr.SegmentSpeedToLead},
		{"trial ends in 3 days", mockserver.LeadFixture{Email: email, Source: "Free_Trial", CreatedAt: at(11 * day)}, sdr.SegmentTrialEnding},
		{"touched, no reply", mockserver.LeadFixture{Phone: phone, Status: "contacted", CreatedAt: at(5 * day), LastContactAt: at(5 * day), TouchCount: 1, LastTouchAt: at(2 * day), LastChannel: "email"}, sdr.SegmentContactedNoReply},
		{"touched, replied since", mockserver.LeadFixture{Phone: phone, Status: "contacted", CreatedAt: at(5 * day), LastContactAt: at(hour), TouchCount: 1, LastTouchAt: at(2 * day)}, sdr.SegmentFreshDemoCaller},
		{"touched over 30 days ago", mockserver.LeadFixture{Phone: phone, Status: "contacted", CreatedAt: at(40 * day), TouchCount: 1, LastTouchAt: at(31 * day)}, sdr.SegmentCold},
		{"new trial", mockserver.LeadFixture{Email: email, Source: "trial", CreatedAt: at(2 * day)}, sdr.SegmentNewTrialStuck},
		{"quiet trial", mockserver.LeadFixture{Email: email, Source: "trial", Status: "contacted", CreatedAt: at(5 * day)}, sdr.SegmentTrialGoingDark},
		{"active trial", mockserver.LeadFixture{Email: email, Source: "trial", Status: "contacted", CreatedAt: at(5 * day), LastContactAt: at(hour)}, sdr.SegmentFreshDemoCaller},
		{"new lead past the hour", mockserver.LeadFixture{Phone: phone, CreatedAt: at(2 * hour)}, sdr.SegmentFreshDemoCaller},
		{"caller two days ago", mockserver.LeadFixture{Phone: phone, Status: "contacted", CreatedAt: at(2 * day)}, sdr.SegmentWarmDemoCaller},
		{"caller a week ago", mockserver.LeadFixture{Phone: phone, Status: "qualified", CreatedAt: at(7 * day)}, sdr.SegmentCoolingDemo},
		{"caller a month ago", mockserver.LeadFixture{Phone: phone, CreatedAt: at(30 * day)}, sdr.SegmentCold},
	}
	fixtures := make([]mockserver.LeadFixture, len(cases))
	for i, c := range cases {
		fixtures[i] = c.lead
	}
	ids, err := env.Server.SeedLeads(env.Account.BusinessID, fixtures)
	require.NoError(t, err)

	p, err := env.Client.SDR.Pipeline(ctx, &sdr.PipelineParams{BusinessID: env.Account.BusinessID})
	require.NoError(t, err)
	got := map[string]sdr.Lead{}
	for _, l := range p.Leads {
		got[l.ID] = l
	}
	counts := map[sdr.Segment]int{}
	for i, c := range cases {
		assert.Equal(t, c.want, got[ids[i]].Segment, c.name)
		counts[c.want]++
	}
	assert.Equal(t, len(cases), p.Summary.TotalLeads)
	assert.Equal(t, 2, p.Summary.NeedsManual)
	for seg, n := range p.Summary.Segments {
		assert.Equal(t, counts[seg], n, seg)
	}
	assert.Len(t, p.Summary.Segments, 12, "every segment is counted, zeros included")

	// Leads the pipeline leaves alone have no next action.
	for _, i := range []int{0, 4, 5} {
		assert.Equal(t, sdr.ActionNone, got[ids[i]].NextAction, cases[i].name)
		assert.False(t, got[ids[i]].Actionable, cases[i].name)
	}
	// Next actions follow the segment's channels among the reachable ones.
	assert.Equal(t, sdr.ActionCall, got[ids[11]].NextAction, "speed to lead: call")
	assert.Equal(t, sdr.ActionEmail, got[ids[12]].NextAction, "trial ending without a phone: email")
	assert.Equal(t, sdr.ActionCall, got[ids[13]].NextAction, "no reply after an email: the rotation calls next")

	// The segment filter and the order: highest score first.
	hot, err := env.Client.SDR.Pipeline(ctx, &sdr.PipelineParams{BusinessID: env.Account.BusinessID, Segment: sdr.SegmentCold, Limit: 2})
	require.NoError(t, err)
	require.Len(t, hot.Leads, 2)
	assert.Equal(t, p.Summary, hot.Summary, "the summary counts every lead whatever the filter")
	for _, l := range hot.Leads {
		assert.Equal(t, sdr.SegmentCold, l.Segment)
	}
	assert.GreaterOrEqual(t, hot.Leads[0].Score, hot.Leads[1].Score)
	for i := 1; i < len(p.Leads); i++ {
		assert.GreaterOrEqual(t, p.Leads[i-1].Score, p.Leads[i].Score, "ordered by score")
	}

	_, err = env.Client.SDR.Pipeline(ctx, &sdr.PipelineParams{BusinessID: env.Account.BusinessID, Segment: "lukewarm"})
	assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest)
	_, err = env.Client.SDR.Pipeline(ctx, &sdr.PipelineParams{BusinessID: env.Account.BusinessID, Limit: 1001})
	assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest)
}

func TestLeadsMoveBetweenSegmentsAsTheClockAdvancesAndTouchesHappen(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	biz := env.Account.BusinessID
	configure(t, env, sdr.ConfigParams{MinTouchGapHours: voiceagent.Int(1), MaxTouches: voiceagent.Int(3)})

	l := inboundLead(t, env, "+15557770100", "Hi, this is Ada Byron, how much for a website? ada@example.com")
	first := pipelineLead(t, env, l.ID)
	assert.Equal(t, sdr.SegmentSpeedToLead, first.Segment)
	assert.Equal(t, sdr.ActionCall, first.NextAction, "hot leads are called (even with calls off, as a manual suggestion)")
	assert.True(t, first.Actionable)
	// score: 60% of the lead score (75: 10, name 15, email 15, phone 10,
	// one interaction 10, quote 15) + 40 for speed to lead.
	assert.Equal(t, 45+40, first.Score)

	env.Server.Advance(time.Hour)
	assert.Equal(t, sdr.SegmentFreshDemoCaller, segmentOf(t, env, l.ID))
	env.Server.Advance(day)
	assert.Equal(t, sdr.SegmentWarmDemoCaller, segmentOf(t, env, l.ID))
	env.Server.Advance(2 * day)
	assert.Equal(t, sdr.SegmentCoolingDemo, segmentOf(t, env, l.ID))

	// An email touch without a reply: contacted, no reply.
	res, err := act(env, l.ID, sdr.ActionEmail)
	require.NoError(t, err)
	assert.Equal(t, sdr.SegmentContactedNoReply, res.Segment)
	assert.Equal(t, 1, res.TouchCount)
	// The lead calls back: engaged after the touch, fresh again.
	_, err = env.Server.InboundCall(mockserver.InboundCall{To: env.Account.PhoneNumber, From: "+15557770100", Duration: 30})
	require.NoError(t, err)
	env.Server.Advance(2 * time.Minute)
	assert.Equal(t, sdr.SegmentFreshDemoCaller, segmentOf(t, env, l.ID))

	// A text (the inbound call gave consent) is a touch the lead has not
	// answered; after a call the lead picks up, it is engaged again.
	env.Server.Advance(time.Hour)
	_, err = act(env, l.ID, sdr.ActionSMS)
	require.NoError(t, err)
	assert.Equal(t, sdr.SegmentContactedNoReply, segmentOf(t, env, l.ID))
	env.Server.Advance(time.Hour)
	res, err = act(env, l.ID, sdr.ActionCall)
	require.NoError(t, err)
	assert.Equal(t, sdr.SegmentExhausted, res.Segment, "three touches reach max_touches")
	env.Server.Advance(10 * time.Minute)
	c, err := env.Client.Calls.Get(ctx, res.CallID)
	require.NoError(t, err)
	assert.Equal(t, calls.StatusCompleted, c.Status)
	assert.Equal(t, sdr.SegmentExhausted, segmentOf(t, env, l.ID), "exhausted whatever the engagement")

	// Raising max_touches brings the lead back: the completed call was a reply.
	configure(t, env, sdr.ConfigParams{MaxTouches: voiceagent.Int(4)})
	assert.Equal(t, sdr.SegmentFreshDemoCaller, segmentOf(t, env, l.ID))
	got, err := env.Client.Leads.Get(ctx, l.ID)
	require.NoError(t, err)
	assert.Equal(t, leads.StatusContacted, got.Status, "an outbound touch moved the new lead to contacted")

	// A lost lead churns, then goes cold.
	_, err = env.Client.Leads.Update(ctx, &leads.UpdateParams{ID: l.ID, Status: voiceagent.Ptr(leads.StatusLost)})
	require.NoError(t, err)
	assert.Equal(t, sdr.SegmentChurnedRecent, segmentOf(t, env, l.ID))
	env.Server.Advance(30 * day)
	assert.Equal(t, sdr.SegmentCold, segmentOf(t, env, l.ID))
	_ = biz
}

func TestTrialLeadsMoveThroughTheTrial(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ids, err := env.Server.SeedLeads(env.Account.BusinessID, []mockserver.LeadFixture{{Email: "t@example.com", Source: "trial_signup"}})
	require.NoError(t, err)
	id := ids[0]
	for _, step := range []struct {
		advance time.Duration
		want    sdr.Segment
	}{
		{0, sdr.SegmentNewTrialStuck},
		{3 * day, sdr.SegmentTrialGoingDark},
		{8 * day, sdr.SegmentTrialEnding},
		{3 * day, sdr.SegmentChurnedRecent},
		{30 * day, sdr.SegmentCold},
	} {
		env.Server.Advance(step.advance)
		assert.Equal(t, step.want, segmentOf(t, env, id), "after %s", step.advance)
	}
}

func TestCadenceLimitsRefuseWithNextAllowedAt(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	configure(t, env, sdr.ConfigParams{MinTouchGapHours: voiceagent.Int(24), MaxTouches: voiceagent.Int(2)})
	l := inboundLead(t, env, "+15557770200", "This is Grace Hopper, grace@example.com")
	touched := env.Server.Now()

	res, err := act(env, l.ID, sdr.ActionEmail)
	require.NoError(t, err)
	assert.True(t, res.Success)
	assert.NotEmpty(t, res.EmailID)

	env.Server.Advance(23 * time.Hour)
	_, err = act(env, l.ID, sdr.ActionSMS)
	e := apiErr(t, err)
	assert.Equal(t, http.StatusTooManyRequests, e.StatusCode)
	assert.Equal(t, voiceagent.CodeRateLimited, e.Code)
	require.NotNil(t, e.NextAllowedAt)
	assert.True(t, touched.Add(24*time.Hour).Equal(*e.NextAllowedAt), "%s", e.NextAllowedAt)
	assert.Equal(t, time.Hour, e.RetryAfter, "Retry-After counts to nextAllowedAt on the clock")
	lead := pipelineLead(t, env, l.ID)
	assert.False(t, lead.Actionable)
	require.NotNil(t, lead.NextActionAt)
	assert.True(t, e.NextAllowedAt.Equal(*lead.NextActionAt))

	// One second before: a retrying client still gets the 429 at once (the
	// wait is on the simulated clock, which a retry would not move).
	env.Server.Advance(time.Hour - time.Second)
	retrying := env.ClientFor(env.Account.APIKey, voiceagent.WithMaxRetries(2), voiceagent.WithRetryWait(time.Second, 30*time.Second))
	_, err = retrying.SDR.Act(ctx, &sdr.ActionParams{BusinessID: env.Account.BusinessID, LeadID: l.ID, Action: sdr.ActionSMS})
	assert.Equal(t, time.Second, apiErr(t, err).RetryAfter)
	tries := env.Server.Requests(func(r *mockserver.JournalEntry) bool { return r.Path == "/api/sdr/action" && r.Status == 429 })
	assert.Len(t, tries, 2, "one refusal each: not retried")

	env.Server.Advance(time.Second)
	res, err = act(env, l.ID, sdr.ActionSMS)
	require.NoError(t, err)
	assert.NotEmpty(t, res.MessageID)
	assert.Equal(t, 2, res.TouchCount)

	env.Server.Advance(48 * time.Hour)
	_, err = act(env, l.ID, sdr.ActionCall)
	e = apiErr(t, err)
	assert.Equal(t, http.StatusTooManyRequests, e.StatusCode)
	assert.Nil(t, e.NextAllowedAt, "max_touches never reopens")
	assert.Contains(t, e.Message, "max_touches")

	// Pause, resume and skip are not touches: no cadence applies.
	for _, a := range []sdr.Action{sdr.ActionPause, sdr.ActionResume, sdr.ActionSkip} {
		res, err := act(env, l.ID, a)
		require.NoError(t, err, a)
		assert.Equal(t, a, res.Action)
		assert.Equal(t, 2, res.TouchCount)
	}
	log, err := env.Client.SDR.ListActivity(ctx, &sdr.ActivityParams{BusinessID: env.Account.BusinessID, LeadID: l.ID})
	require.NoError(t, err)
	var actions []string
	for _, a := range log {
		actions = append(actions, string(a.Action)+map[bool]string{true: "", false: "!"}[a.Success])
	}
	assert.Equal(t, []string{"skip", "resume", "pause", "sms", "email"}, actions,
		"newest first; refused touches never reach the dispatch, so they are not logged")
}

func TestSkipDefersAndPauseHoldsTheRun(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	configure(t, env, sdr.ConfigParams{Enabled: voiceagent.Bool(true), AutoCall: voiceagent.Bool(true), MinTouchGapHours: voiceagent.Int(4)})
	a := inboundLead(t, env, "+15557770300", "This is Alan Turing")
	b := inboundLead(t, env, "+15557770301", "This is Edsger Dijkstra")

	_, err := act(env, a.ID, sdr.ActionSkip)
	require.NoError(t, err)
	_, err = act(env, b.ID, sdr.ActionPause)
	require.NoError(t, err)
	la, lb := pipelineLead(t, env, a.ID), pipelineLead(t, env, b.ID)
	assert.False(t, la.Actionable)
	require.NotNil(t, la.NextActionAt)
	assert.True(t, env.Server.Now().Add(4*time.Hour).Equal(*la.NextActionAt), "a skip waits out the touch gap")
	assert.True(t, lb.Paused)
	assert.Equal(t, sdr.SegmentSpeedToLead, lb.Segment, "a paused lead keeps its segment")

	run, err := env.Client.SDR.Run(ctx, &sdr.RunParams{BusinessID: env.Account.BusinessID})
	require.NoError(t, err)
	assert.Empty(t, run.Results)
	assert.Equal(t, 2, run.Skipped)
	assert.Equal(t, 1, run.SkippedByReason["cadence"])
	assert.Equal(t, 1, run.SkippedByReason["paused"])

	_, err = act(env, b.ID, sdr.ActionResume)
	require.NoError(t, err)
	run, err = env.Client.SDR.Run(ctx, &sdr.RunParams{BusinessID: env.Account.BusinessID})
	require.NoError(t, err)
	require.Len(t, run.Results, 1)
	assert.Equal(t, b.ID, run.Results[0].LeadID)
	assert.Equal(t, sdr.ActionCall, run.Results[0].Action)
}

func TestActionsDispatchThroughCallsSMSAndTheOutbox(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	biz := env.Account.BusinessID
	closer, err := env.Client.Agents.Create(ctx, &agents.CreateParams{BusinessID: biz, Name: "Closer", SystemPrompt: "Sell."})
	require.NoError(t, err)
	configure(t, env, sdr.ConfigParams{MinTouchGapHours: voiceagent.Int(0), SDRAgentID: voiceagent.String(closer.ID),
		EmailFromAccountID: voiceagent.String("sales@acme.example")})
	l := inboundLead(t, env, "+15557770400", "Hi, this is Linus Pauling. linus@example.com")

	// A call is a real simulated call by the SDR agent, linked to the lead.
	res, err := act(env, l.ID, sdr.ActionCall)
	require.NoError(t, err)
	require.NotEmpty(t, res.CallID)
	c, err := env.Client.Calls.Get(ctx, res.CallID)
	require.NoError(t, err)
	assert.Equal(t, closer.ID, c.AgentID)
	assert.Equal(t, "+15557770400", c.To)
	assert.Equal(t, env.Account.PhoneNumber, *c.From, "an agent without a number calls from the business's number")
	require.NotNil(t, c.LeadID)
	assert.Equal(t, l.ID, *c.LeadID)
	assert.Equal(t, calls.StatusQueued, c.Status)

	// A text goes through the SMS compliance path.
	res, err = act(env, l.ID, sdr.ActionSMS)
	require.NoError(t, err)
	msgs, err := env.Client.SMS.List(ctx, nil)
	require.NoError(t, err)
	require.NotEmpty(t, msgs.Data)
	assert.Equal(t, res.MessageID, msgs.Data[0].ID)
	assert.Contains(t, msgs.Data[0].Body, "Hi Linus,")
	assert.Equal(t, env.Account.PhoneNumber, msgs.Data[0].From, "the SDR agent has no number: the number's agent texts")
	assert.Contains(t, msgs.Data[0].Body, "Reply STOP")
	require.NoError(t, env.Server.SetConsent(biz, "+15557770400", mockserver.ConsentOptedOut))
	_, err = act(env, l.ID, sdr.ActionSMS)
	assert.ErrorIs(t, err, voiceagent.ErrNumberOptedOut)

	// An email is queued, then sent through the outbox (lead_email.sent).
	res, err = act(env, l.ID, sdr.ActionEmail)
	require.NoError(t, err)
	assert.Empty(t, env.Server.Outbox("linus@example.com"), "queued, not sent yet")
	env.Server.Advance(30 * time.Second)
	out := env.Server.Outbox("linus@example.com")
	require.Len(t, out, 1)
	assert.Equal(t, admin.ChannelEmail, out[0].Channel)
	assert.Equal(t, "sales@acme.example", out[0].From)
	assert.Equal(t, "Following up from Test Business", out[0].Subject)
	ev, err := env.Client.Events.List(ctx, &events.ListParams{Type: "lead_email.sent"})
	require.NoError(t, err)
	require.Len(t, ev.Data, 1)
	mail, err := ev.Data[0].LeadEmail()
	require.NoError(t, err)
	assert.Equal(t, res.EmailID, mail.ID)
	assert.Equal(t, l.ID, mail.LeadID)
	assert.Equal(t, "sent", mail.Status)
	require.NotNil(t, mail.SentAt)
	assert.True(t, env.Server.Now().Equal(*mail.SentAt))

	// The lead's do-not-call status and a number on the list refuse touches.
	bounce, err := env.Server.SeedLeads(biz, []mockserver.LeadFixture{
		{Email: "x@email-fails.example"}, {Phone: "+15557770499", Email: "y@example.com"},
		{Phone: "+15005550003"}, {Email: "z@example.com", Status: "do_not_contact"},
	})
	require.NoError(t, err)
	_, err = act(env, bounce[0], sdr.ActionEmail)
	require.NoError(t, err)
	env.Server.Advance(30 * time.Second)
	ev, err = env.Client.Events.List(ctx, &events.ListParams{Type: "lead_email.failed"})
	require.NoError(t, err)
	require.Len(t, ev.Data, 1, "an address at email-fails.example bounces")
	mail, err = ev.Data[0].LeadEmail()
	require.NoError(t, err)
	assert.Equal(t, "failed", mail.Status)
	assert.Contains(t, mail.Error, "bounced")
	assert.Empty(t, env.Server.Outbox("x@email-fails.example"))
	require.NoError(t, env.Server.AddDNC("+15557770499", biz))
	_, err = act(env, bounce[1], sdr.ActionCall)
	assert.ErrorIs(t, err, voiceagent.ErrNumberOnDNC)
	_, err = act(env, bounce[2], sdr.ActionCall)
	assert.ErrorIs(t, err, voiceagent.ErrCallFailed, "the magic failing number")
	_, err = act(env, bounce[3], sdr.ActionEmail)
	assert.ErrorIs(t, err, voiceagent.ErrNumberOnDNC)
	_, err = act(env, bounce[0], sdr.ActionCall)
	assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest, "no phone to call")

	log, err := env.Client.SDR.ListActivity(ctx, &sdr.ActivityParams{BusinessID: biz, LeadID: bounce[2]})
	require.NoError(t, err)
	require.Len(t, log, 1, "a failed dispatch is logged")
	assert.False(t, log[0].Success)
	assert.Contains(t, log[0].Detail, "call_failed")

	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	_, err = env.Client.SDR.Act(ctx, &sdr.ActionParams{BusinessID: other.BusinessID, LeadID: l.ID, Action: sdr.ActionSkip})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	_, err = env.Client.SDR.Act(ctx, &sdr.ActionParams{BusinessID: biz, LeadID: "00000000-0000-4000-8000-000000000000", Action: sdr.ActionSkip})
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
	_, err = env.Client.SDR.Act(ctx, &sdr.ActionParams{BusinessID: biz, LeadID: l.ID, Action: "fax"})
	assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest)
}

func TestRunDryRunChangesNothingAndReturnsTheSamePlan(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	biz := env.Account.BusinessID

	_, err := env.Client.SDR.Run(ctx, &sdr.RunParams{BusinessID: biz, DryRun: true})
	e := apiErr(t, err)
	assert.Equal(t, http.StatusBadRequest, e.StatusCode, "SDR is not enabled")
	assert.Contains(t, e.Message, "not enabled")

	configure(t, env, sdr.ConfigParams{Enabled: voiceagent.Bool(true), AutoCall: voiceagent.Bool(true),
		AutoEmail: voiceagent.Bool(true), AutoSMS: voiceagent.Bool(true), MinTouchGapHours: voiceagent.Int(24)})
	caller := inboundLead(t, env, "+15557770500", "This is Barbara Liskov, barbara@example.com")
	_, err = env.Server.SeedLeads(biz, []mockserver.LeadFixture{
		{Name: "Cora Cooling", Email: "cora@example.com", Status: "contacted", CreatedAt: at(5 * day)},
		{Name: "Wes Warm", Phone: "+15557770501", Consent: "opted_in", Status: "contacted", CreatedAt: at(2 * day)},
		{Name: "Fay Failing", Phone: "+15005550003", CreatedAt: at(3 * hour)},
		{Name: "Nora Nowhere"},
		{Name: "Exa Exhausted", Phone: "+15557770502", TouchCount: 5, LastTouchAt: at(day)},
	})
	require.NoError(t, err)
	before, err := env.Client.SDR.Pipeline(ctx, &sdr.PipelineParams{BusinessID: biz})
	require.NoError(t, err)

	dry, err := env.Client.SDR.Run(ctx, &sdr.RunParams{BusinessID: biz, DryRun: true})
	require.NoError(t, err)
	assert.True(t, dry.DryRun)
	assert.Equal(t, sdr.RunSummary{CallsQueued: 1, EmailsQueued: 1, SMSSent: 1, Escalated: 1, Failed: 1}, dry.Summary)
	require.Len(t, dry.Errors, 1)
	assert.Equal(t, voiceagent.CodeCallFailed, dry.Errors[0].Code)
	assert.Equal(t, caller.ID, dry.Results[0].LeadID, "the highest score goes first")

	after, err := env.Client.SDR.Pipeline(ctx, &sdr.PipelineParams{BusinessID: biz})
	require.NoError(t, err)
	assert.Equal(t, before, after, "a dry run changes nothing")
	log, err := env.Client.SDR.ListActivity(ctx, &sdr.ActivityParams{BusinessID: biz})
	require.NoError(t, err)
	assert.Empty(t, log)
	list, err := env.Client.Calls.List(ctx, &calls.ListParams{})
	require.NoError(t, err)
	assert.Len(t, list.Data, 1, "only the inbound call")

	run, err := env.Client.SDR.Run(ctx, &sdr.RunParams{BusinessID: biz})
	require.NoError(t, err)
	assert.False(t, run.DryRun)
	assert.Equal(t, dry.Summary, run.Summary)
	require.Len(t, run.Results, len(dry.Results))
	for i := range dry.Results {
		assert.Equal(t, dry.Results[i].LeadID, run.Results[i].LeadID)
		assert.Equal(t, dry.Results[i].Action, run.Results[i].Action)
		assert.Equal(t, dry.Results[i].Success, run.Results[i].Success)
	}
	assert.Equal(t, dry.Skipped, run.Skipped)
	list, err = env.Client.Calls.List(ctx, &calls.ListParams{})
	require.NoError(t, err)
	assert.Len(t, list.Data, 2, "the run placed the one call")
	log, err = env.Client.SDR.ListActivity(ctx, &sdr.ActivityParams{BusinessID: biz})
	require.NoError(t, err)
	assert.Len(t, log, 5, "three touches, one failure, one escalation")
	for _, a := range log {
		assert.Equal(t, "run", a.Trigger)
	}

	// Right after, the cadence holds everyone back, and the escalated lead
	// is not counted twice.
	again, err := env.Client.SDR.Run(ctx, &sdr.RunParams{BusinessID: biz})
	require.NoError(t, err)
	assert.Equal(t, sdr.RunSummary{Failed: 1}, again.Summary, "the failed call was no touch: it is tried again")
	assert.Equal(t, 3, again.SkippedByReason["cadence"])

	cfg, err := env.Client.SDR.GetConfig(ctx, biz)
	require.NoError(t, err)
	require.NotNil(t, cfg.LastRunAt)
	assert.Equal(t, "run", *cfg.LastRunTrigger)
}

func TestRunRespectsBusinessHoursAndChannels(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	biz := env.Account.BusinessID
	// 12:00 in New York: outside 13:00-17:00.
	configure(t, env, sdr.ConfigParams{Enabled: voiceagent.Bool(true), AutoCall: voiceagent.Bool(true),
		BusinessHoursStart: voiceagent.Int(13), BusinessHoursEnd: voiceagent.Int(17)})
	inboundLead(t, env, "+15557770600", "This is Ken Thompson")
	_, err := env.Server.SeedLeads(biz, []mockserver.LeadFixture{{Email: "e@example.com", CreatedAt: at(2 * hour)}})
	require.NoError(t, err)

	run, err := env.Client.SDR.Run(ctx, &sdr.RunParams{BusinessID: biz})
	require.NoError(t, err)
	assert.False(t, run.InBusinessHours)
	assert.Empty(t, run.Results)
	assert.Equal(t, 1, run.SkippedByReason["outside_business_hours"])
	assert.Equal(t, 1, run.SkippedByReason["channel_off"], "auto_email is off")

	env.Server.Advance(time.Hour)
	run, err = env.Client.SDR.Run(ctx, &sdr.RunParams{BusinessID: biz})
	require.NoError(t, err)
	assert.True(t, run.InBusinessHours)
	assert.Equal(t, 1, run.Summary.CallsQueued)

	// An overnight window (22 to 6) and an all-day one (start = end).
	configure(t, env, sdr.ConfigParams{BusinessHoursStart: voiceagent.Int(22), BusinessHoursEnd: voiceagent.Int(6)})
	run, err = env.Client.SDR.Run(ctx, &sdr.RunParams{BusinessID: biz, DryRun: true})
	require.NoError(t, err)
	assert.False(t, run.InBusinessHours)
	configure(t, env, sdr.ConfigParams{BusinessHoursStart: voiceagent.Int(8), BusinessHoursEnd: voiceagent.Int(8)})
	run, err = env.Client.SDR.Run(ctx, &sdr.RunParams{BusinessID: biz, DryRun: true})
	require.NoError(t, err)
	assert.True(t, run.InBusinessHours)
}

func TestScheduledRunnerFiresEveryTwoHoursWhileEnabled(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	biz := env.Account.BusinessID
	configure(t, env, sdr.ConfigParams{AutoEmail: voiceagent.Bool(true), MinTouchGapHours: voiceagent.Int(1),
		BusinessHoursStart: voiceagent.Int(0), BusinessHoursEnd: voiceagent.Int(0)})
	_, err := env.Server.SeedLeads(biz, []mockserver.LeadFixture{{Email: "s@example.com", Status: "contacted", CreatedAt: at(5 * day)}})
	require.NoError(t, err)

	env.Server.Advance(3 * time.Hour)
	log, err := env.Client.SDR.ListActivity(ctx, &sdr.ActivityParams{BusinessID: biz})
	require.NoError(t, err)
	assert.Empty(t, log, "disabled: no scheduled run")

	enabledAt := env.Server.Now()
	cfg := configure(t, env, sdr.ConfigParams{Enabled: voiceagent.Bool(true)})
	require.NotNil(t, cfg.NextRunAt)
	assert.True(t, enabledAt.Add(2*time.Hour).Equal(*cfg.NextRunAt))

	env.Server.Advance(2*time.Hour - time.Second)
	log, err = env.Client.SDR.ListActivity(ctx, &sdr.ActivityParams{BusinessID: biz})
	require.NoError(t, err)
	assert.Empty(t, log, "not before two hours")
	env.Server.Advance(time.Second)
	log, err = env.Client.SDR.ListActivity(ctx, &sdr.ActivityParams{BusinessID: biz})
	require.NoError(t, err)
	require.Len(t, log, 1)
	assert.Equal(t, "scheduled", log[0].Trigger)
	assert.Equal(t, sdr.ActionEmail, log[0].Action)
	assert.True(t, enabledAt.Add(2*time.Hour).Equal(log[0].CreatedAt))

	env.Server.Advance(2 * time.Hour)
	log, err = env.Client.SDR.ListActivity(ctx, &sdr.ActivityParams{BusinessID: biz})
	require.NoError(t, err)
	assert.Len(t, log, 2, "and again two hours later")
	cfg, err = env.Client.SDR.GetConfig(ctx, biz)
	require.NoError(t, err)
	assert.True(t, enabledAt.Add(6*time.Hour).Equal(*cfg.NextRunAt))
	assert.Equal(t, "scheduled", *cfg.LastRunTrigger)

	// Disabling stops it; enabling again starts a new cadence, never two.
	configure(t, env, sdr.ConfigParams{Enabled: voiceagent.Bool(false)})
	env.Server.Advance(time.Hour)
	configure(t, env, sdr.ConfigParams{Enabled: voiceagent.Bool(true)})
	env.Server.Advance(90 * time.Minute)
	log, err = env.Client.SDR.ListActivity(ctx, &sdr.ActivityParams{BusinessID: biz})
	require.NoError(t, err)
	assert.Len(t, log, 2, "the old runner stopped")
	env.Server.Advance(30 * time.Minute)
	log, err = env.Client.SDR.ListActivity(ctx, &sdr.ActivityParams{BusinessID: biz})
	require.NoError(t, err)
	assert.Len(t, log, 3, "the new one runs two hours after enabling")
}

func TestTheRunnerRouteTakesNoKeyOrSession(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	configure(t, env, sdr.ConfigParams{Enabled: voiceagent.Bool(true)})
	for name, opts := range map[string][]voiceagent.Option{
		"key":     nil,
		"session": {voiceagent.WithAPIKey(""), voiceagent.WithSessionCookie(env.Account.Session)},
		"nothing": {voiceagent.WithAPIKey("")},
		"guess":   {voiceagent.WithHeader("X-Voiceagent-Cron-Secret", "cron_guess")},
	} {
		err := env.Client.Do(ctx, http.MethodPost, "/sdr/cron", nil, map[string]any{}, nil, opts...)
		e := apiErr(t, err)
		assert.Equal(t, http.StatusUnauthorized, e.StatusCode, name)
	}
	var out struct {
		Runs []sdr.RunResult `json:"runs"`
	}
	err := env.Client.Do(ctx, http.MethodPost, "/sdr/cron", nil, map[string]any{}, &out,
		voiceagent.WithAPIKey(""), voiceagent.WithHeader("X-Voiceagent-Cron-Secret", env.Server.SDRCronSecret()))
	require.NoError(t, err)
	require.Len(t, out.Runs, 1)
	assert.Equal(t, env.Account.BusinessID, out.Runs[0].BusinessID)
	assert.Equal(t, "scheduled", out.Runs[0].Trigger)
}

func TestReportAndActivity(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	biz := env.Account.BusinessID
	configure(t, env, sdr.ConfigParams{MinTouchGapHours: voiceagent.Int(0)})
	_, err := env.Server.SeedLeads(biz, []mockserver.LeadFixture{
		{Name: "Old", Email: "old@example.com", CreatedAt: at(20 * day)},
		{Name: "Nobody", CreatedAt: at(3 * day)},
		{Name: "Trial", Email: "trial@example.com", Source: "trial", CreatedAt: at(day)},
	})
	require.NoError(t, err)
	l := inboundLead(t, env, "+15557770700", "This is Donald Knuth, don@example.com")
	_, err = act(env, l.ID, sdr.ActionCall)
	require.NoError(t, err)
	_, err = act(env, l.ID, sdr.ActionSMS)
	require.NoError(t, err)
	_, err = act(env, l.ID, sdr.ActionEmail)
	require.NoError(t, err)
	_, err = act(env, l.ID, sdr.ActionPause)
	require.NoError(t, err)
	env.Server.Advance(10 * time.Minute)

	rep, err := env.Client.SDR.Report(ctx, &sdr.ReportParams{BusinessID: biz})
	require.NoError(t, err)
	assert.Equal(t, sdr.PeriodWeek, rep.Period)
	assert.True(t, env.Server.Now().Add(-7*day).Equal(rep.Since))
	assert.Equal(t, map[sdr.Action]int{"call": 1, "email": 1, "sms": 1, "skip": 0, "pause": 1, "resume": 0, "escalate": 0}, rep.Actions)
	assert.Equal(t, 1, rep.Outcomes["call_completed"])
	assert.Equal(t, 1, rep.Outcomes["sms_delivered"])
	assert.Equal(t, 1, rep.Outcomes["email_sent"])
	assert.Equal(t, 3, rep.NewLeads, "two seeded in the week and the caller")
	assert.Equal(t, 2, rep.HotLeads, "the trial (new_trial_stuck) and the caller, fresh after the call it answered")
	assert.Equal(t, 1, rep.StaleLeads, "Nobody has no way to be reached")
	assert.Equal(t, 1, rep.Segments[sdr.SegmentCold])

	month, err := env.Client.SDR.Report(ctx, &sdr.ReportParams{BusinessID: biz, Period: sdr.PeriodMonth})
	require.NoError(t, err)
	assert.Equal(t, 4, month.NewLeads)
	today, err := env.Client.SDR.Report(ctx, &sdr.ReportParams{BusinessID: biz, Period: sdr.PeriodToday})
	require.NoError(t, err)
	assert.Equal(t, 1, today.NewLeads)
	assert.True(t, time.Date(2026, 3, 10, 4, 0, 0, 0, time.UTC).Equal(today.Since), "midnight in New York")
	_, err = env.Client.SDR.Report(ctx, &sdr.ReportParams{BusinessID: biz, Period: "year"})
	assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest)

	log, err := env.Client.SDR.ListActivity(ctx, &sdr.ActivityParams{BusinessID: biz, Limit: 2})
	require.NoError(t, err)
	require.Len(t, log, 2)
	assert.Equal(t, sdr.ActionPause, log[0].Action)
	assert.Equal(t, sdr.ActionEmail, log[1].Action)
	assert.Equal(t, "manual", log[0].Trigger)
	require.NotNil(t, log[1].EmailID)
	_, err = env.Client.SDR.ListActivity(ctx, &sdr.ActivityParams{BusinessID: biz, Limit: 201})
	assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest)
	_, err = env.Client.SDR.ListActivity(ctx, &sdr.ActivityParams{BusinessID: biz, LeadID: "00000000-0000-4000-8000-000000000000"})
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
	_, err = env.Client.SDR.ListActivity(ctx, &sdr.ActivityParams{})
	assert.ErrorIs(t, err, voiceagent.ErrBadRequest)
	assert.False(t, strings.Contains(log[0].Detail, "error"))
}

func TestRunSkipsQuietHoursTextsAndStopsAtTheRunLimit(t *testing.T) {
	t.Parallel()
	// 02:00 in New York: business hours all day, but texts wait for 08:00.
	env := testenv.New(t, mockserver.WithStartTime(time.Date(2026, 3, 10, 6, 0, 0, 0, time.UTC)))
	biz := env.Account.BusinessID
	configure(t, env, sdr.ConfigParams{Enabled: voiceagent.Bool(true), AutoSMS: voiceagent.Bool(true), AutoEmail: voiceagent.Bool(true),
		BusinessHoursStart: voiceagent.Int(0), BusinessHoursEnd: voiceagent.Int(0)})
	created := voiceagent.Time(env.Server.Now().Add(-2 * day))
	fixtures := []mockserver.LeadFixture{{Phone: "+15557770800", Consent: "opted_in", Status: "contacted", CreatedAt: created}}
	for i := range 101 {
		fixtures = append(fixtures, mockserver.LeadFixture{Email: fmt.Sprintf("l%d@example.com", i), Status: "contacted",
			CreatedAt: voiceagent.Time(env.Server.Now().Add(-5 * day))})
	}
	_, err := env.Server.SeedLeads(biz, fixtures)
	require.NoError(t, err)

	run, err := env.Client.SDR.Run(ctx, &sdr.RunParams{BusinessID: biz})
	require.NoError(t, err)
	assert.Equal(t, 100, run.Summary.EmailsQueued, "at most 100 dispatches a run")
	assert.Equal(t, 1, run.SkippedByReason["run_limit"])
	assert.Equal(t, 1, run.SkippedByReason["sms_quiet_hours"], "the warm caller's text waits")
	assert.Equal(t, 2, run.Skipped)
}

func TestBadBodiesAndBoundBusinesses(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	biz := env.Account.BusinessID
	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	for name, req := range map[string]struct {
		method, path string
		body         any
	}{
		"unknown config field": {http.MethodPut, "/sdr/config", map[string]any{"businessId": biz, "timezone": "UTC"}},
		"enabled not boolean":  {http.MethodPut, "/sdr/config", map[string]any{"businessId": biz, "enabled": "yes"}},
		"config without id":    {http.MethodPut, "/sdr/config", map[string]any{"enabled": true}},
		"dryRun not boolean":   {http.MethodPost, "/sdr/run", map[string]any{"businessId": biz, "dryRun": "yes"}},
		"action without lead":  {http.MethodPost, "/sdr/action", map[string]any{"businessId": biz, "action": "call"}},
		"business not a uuid":  {http.MethodPost, "/sdr/run", map[string]any{"businessId": "acme"}},
		"not an object":        {http.MethodPost, "/sdr/action", []int{1}},
	} {
		err := env.Client.Do(ctx, req.method, req.path, nil, req.body, nil)
		e := apiErr(t, err)
		assert.Equal(t, http.StatusBadRequest, e.StatusCode, name)
		assert.Equal(t, voiceagent.CodeInvalidRequest, e.Code, name)
	}
	_, err := env.Client.SDR.Run(ctx, &sdr.RunParams{BusinessID: other.BusinessID, DryRun: true})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	for _, read := range []func() error{
		func() error {
			_, err := env.Client.SDR.Pipeline(ctx, &sdr.PipelineParams{BusinessID: other.BusinessID})
			return err
		},
		func() error {
			_, err := env.Client.SDR.Report(ctx, &sdr.ReportParams{BusinessID: other.BusinessID})
			return err
		},
		func() error {
			_, err := env.Client.SDR.ListActivity(ctx, &sdr.ActivityParams{BusinessID: other.BusinessID})
			return err
		},
	} {
		assert.ErrorIs(t, read(), voiceagent.ErrForbidden)
	}
	// A lead of another business, named with the caller's own business.
	ids, err := env.Server.SeedLeads(other.BusinessID, []mockserver.LeadFixture{{Email: "o@example.com"}})
	require.NoError(t, err)
	_, err = act(env, ids[0], sdr.ActionEmail)
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
}
