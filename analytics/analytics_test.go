package analytics_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/analytics"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/keys"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// ownerEmail is the dataset's owner (each test has its own server).
const ownerEmail = "owner@analytics.example"

// now is Tuesday 2026-03-10 16:00 UTC.
var now = time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)

var ctx = context.Background()

func ts(month time.Month, dayOfMonth, hour int) *time.Time {
	return voiceagent.Time(time.Date(2026, month, dayOfMonth, hour, 0, 0, 0, time.UTC))
}

// dataset is a business seeded with calls of several statuses and days and
// leads of every status, by two agents: A (the intake agent) and B.
type dataset struct {
	env     *testenv.Env
	biz     string
	a, b    string
	leadIDs []string // l1 ... l10, newest first
}

// seed stores, with the figures the tests expect worked out by hand:
//
//	call  created            agent  status     duration
//	c1    03-10 15:00        A      completed  120
//	c2    03-10 10:00        A      failed       0
//	c3    03-09 12:00        B      completed  300
//	c4    03-09 13:00        A      ended       60   (inbound)
//	c5    03-05 09:00        B      no-answer    0   (inbound)
//	c6    03-01 12:00        A      completed   90
//	c7    02-20 12:00        B      completed  200
//	c8    01-01 12:00        A      completed  100   (outside 30 days)
//
//	lead  created            status          source        agent
//	l1    03-10 14:00        new             inbound_call  A
//	l2    03-09 12:00        contacted       inbound_call  A
//	l3    03-08 12:00        qualified       web           B
//	l4    03-06 12:00        converted       web           B
//	l5    03-04 12:00        lost            inbound_call  A
//	l6    03-02 12:00        converted       inbound_call  A
//	l7    02-25 12:00        unqualified     sms           A
//	l8    02-20 12:00        spam            sms           B
//	l9    02-15 12:00        do_not_contact  web           A
//	l10   01-15 12:00        converted       web           A   (outside 30 days)
func seed(t *testing.T) *dataset {
	t.Helper()
	srv := mockserver.Start(t, mockserver.WithStartTime(now))
	env := testenv.With(t, srv, testenv.NewAccount(t, srv, mockserver.AccountOptions{Email: ownerEmail}))
	d := &dataset{env: env, biz: env.Account.BusinessID, a: env.Account.AgentID}
	b, err := env.Client.Agents.Create(ctx, &agents.CreateParams{BusinessID: d.biz, Name: "B Closer", SystemPrompt: "Close."})
	require.NoError(t, err)
	d.b = b.ID
	out := func(agent string, at *time.Time, status string, dur int) mockserver.CallFixture {
		return mockserver.CallFixture{AgentID: agent, To: "+15550001111", Status: status, Duration: dur, CreatedAt: at}
	}
	in := func(agent string, at *time.Time, status string, dur int) mockserver.CallFixture {
		return mockserver.CallFixture{AgentID: agent, Direction: "inbound", From: "+15550002222", Status: status, Duration: dur, CreatedAt: at}
	}
	_, err = env.Server.SeedCalls(d.biz, []mockserver.CallFixture{
		out(d.a, ts(3, 10, 15), "completed", 120),
		out(d.a, ts(3, 10, 10), "failed", 0),
		out(d.b, ts(3, 9, 12), "completed", 300),
		in(d.a, ts(3, 9, 13), "ended", 60),
		in(d.b, ts(3, 5, 9), "no-answer", 0),
		out(d.a, ts(3, 1, 12), "completed", 90),
		out(d.b, ts(2, 20, 12), "completed", 200),
		out(d.a, ts(1, 1, 12), "completed", 100),
	})
	require.NoError(t, err)
	lead := func(agent string, at *time.Time, status, source string) mockserver.LeadFixture {
		return mockserver.LeadFixture{AgentID: agent, CreatedAt: at, Status: status, Source: source, Email: "lead@example.com"}
	}
	d.leadIDs, err = env.Server.SeedLeads(d.biz, []mockserver.LeadFixture{
		lead(d.a, ts(3, 10, 14), "new", "inbound_call"),
		lead(d.a, ts(3, 9, 12), "contacted", "inbound_call"),
		lead(d.b, ts(3, 8, 12), "qualified", "web"),
		lead(d.b, ts(3, 6, 12), "converted", "web"),
		lead(d.a, ts(3, 4, 12), "lost", "inbound_call"),
		lead(d.a, ts(3, 2, 12), "converted", "inbound_call"),
		lead(d.a, ts(2, 25, 12), "unqualified", "sms"),
		lead(d.b, ts(2, 20, 12), "spam", "sms"),
		lead(d.a, ts(2, 15, 12), "do_not_contact", "web"),
		lead(d.a, ts(1, 15, 12), "converted", "web"),
	})
	require.NoError(t, err)
	// Another tenant's records never count.
	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	_, err = env.Server.SeedCalls(other.BusinessID, []mockserver.CallFixture{out("", ts(3, 10, 12), "completed", 999)})
	require.NoError(t, err)
	_, err = env.Server.SeedLeads(other.BusinessID, []mockserver.LeadFixture{{Status: "converted"}})
	require.NoError(t, err)
	return d
}

func TestDashboardMatchesTheSeededDataset(t *testing.T) {
	t.Parallel()
	d := seed(t)
	dash, err := d.env.Client.Analytics.Dashboard(ctx, nil)
	require.NoError(t, err)

	assert.Equal(t, analytics.Period{Days: 30, Since: now.Add(-30 * 24 * time.Hour)}, dash.Period)
	assert.Equal(t, 9, dash.Leads.Total)
	assert.Equal(t, map[string]int{"new": 1, "contacted": 1, "qualified": 1, "converted": 2, "lost": 1,
		"unqualified": 1, "spam": 1, "do_not_contact": 1}, dash.Leads.ByStatus)
	assert.Equal(t, 22.22, dash.Leads.ConversionRate, "2 of 9")
	require.Len(t, dash.Leads.Recent, 5)
	for i, l := range dash.Leads.Recent {
		assert.Equal(t, d.leadIDs[i], l.ID, "newest first")
	}
	assert.Equal(t, analytics.CallStats{Total: 7, Completed: 5, TotalDurationSeconds: 770, AvgDurationSeconds: 154}, dash.Calls,
		"completed and ended calls are completed; the average is over the five calls with a duration")
	assert.Equal(t, 2, dash.Agents.Total)
	assert.Equal(t, []analytics.TopAgent{
		{AgentID: d.a, Name: "Test Business Intake Agent", Count: 4, TotalDuration: 270, AvgDuration: 90},
		{AgentID: d.b, Name: "B Closer", Count: 3, TotalDuration: 500, AvgDuration: 250},
	}, dash.Agents.TopByCalls)

	wide, err := d.env.Client.Analytics.Dashboard(ctx, &analytics.Params{Days: 90})
	require.NoError(t, err)
	assert.Equal(t, 8, wide.Calls.Total)
	assert.Equal(t, 10, wide.Leads.Total)
	assert.Equal(t, 30.0, wide.Leads.ConversionRate, "3 of 10")
	narrow, err := d.env.Client.Analytics.Dashboard(ctx, &analytics.Params{Days: 1})
	require.NoError(t, err)
	assert.Equal(t, 2, narrow.Calls.Total, "c1 and c2")
	assert.Equal(t, 1, narrow.Leads.Total)
}

func TestCallsTimelineByDayAndWeek(t *testing.T) {
	t.Parallel()
	d := seed(t)
	rep, err := d.env.Client.Analytics.Calls(ctx, &analytics.CallsParams{Days: 7})
	require.NoError(t, err)
	assert.Equal(t, analytics.Period{Days: 7, Since: now.Add(-7 * 24 * time.Hour), GroupBy: "day"}, rep.Period)
	assert.Equal(t, analytics.CallsSummary{TotalCalls: 5, TotalDurationSeconds: 480, AvgDurationSeconds: 160}, rep.Summary)
	require.Len(t, rep.Timeline, 8, "03-03 to 03-10, empty days included")
	assert.Equal(t, "2026-03-03", rep.Timeline[0].Date)
	assert.Equal(t, analytics.TimelineEntry{Date: "2026-03-04", Statuses: map[string]int{}}, rep.Timeline[1])
	assert.Equal(t, analytics.TimelineEntry{Date: "2026-03-05", Total: 1, Statuses: map[string]int{"no-answer": 1}}, rep.Timeline[2])
	assert.Equal(t, analytics.TimelineEntry{Date: "2026-03-09", Total: 2, Completed: 2, TotalDuration: 360, AvgDurationSeconds: 180,
		Statuses: map[string]int{"completed": 1, "ended": 1}}, rep.Timeline[6])
	assert.Equal(t, analytics.TimelineEntry{Date: "2026-03-10", Total: 2, Completed: 1, TotalDuration: 120, AvgDurationSeconds: 120,
		Statuses: map[string]int{"completed": 1, "failed": 1}}, rep.Timeline[7])

	weeks, err := d.env.Client.Analytics.Calls(ctx, &analytics.CallsParams{GroupBy: analytics.GroupByWeek})
	require.NoError(t, err)
	var dates []string
	var totals []int
	for _, w := range weeks.Timeline {
		dates = append(dates, w.Date)
		totals = append(totals, w.Total)
	}
	assert.Equal(t, []string{"2026-02-02", "2026-02-09", "2026-02-16", "2026-02-23", "2026-03-02", "2026-03-09"}, dates, "Mondays")
	assert.Equal(t, []int{0, 0, 1, 1, 1, 4}, totals)
	assert.Equal(t, analytics.TimelineEntry{Date: "2026-03-09", Total: 4, Completed: 3, TotalDuration: 480, AvgDurationSeconds: 160,
		Statuses: map[string]int{"completed": 2, "failed": 1, "ended": 1}}, weeks.Timeline[5])

	onlyB, err := d.env.Client.Analytics.Calls(ctx, &analytics.CallsParams{AgentID: d.b})
	require.NoError(t, err)
	assert.Equal(t, analytics.CallsSummary{TotalCalls: 3, TotalDurationSeconds: 500, AvgDurationSeconds: 250}, onlyB.Summary)

	_, err = d.env.Client.Analytics.Calls(ctx, &analytics.CallsParams{GroupBy: "month"})
	assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest)
}

func TestFunnelRatesArePercentages(t *testing.T) {
	t.Parallel()
	d := seed(t)
	f, err := d.env.Client.Analytics.Funnel(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, 9, f.TotalLeads)
	assert.Equal(t, 1, f.Lost)
	assert.Equal(t, []analytics.FunnelStage{
		{Stage: "new", Count: 9, RateFromTop: 100, DropoffRate: 0},
		{Stage: "contacted", Count: 4, RateFromTop: 44.44, DropoffRate: 55.56},
		{Stage: "qualified", Count: 3, RateFromTop: 33.33, DropoffRate: 25},
		{Stage: "converted", Count: 2, RateFromTop: 22.22, DropoffRate: 33.33},
	}, f.Funnel)

	web, err := d.env.Client.Analytics.Funnel(ctx, &analytics.FunnelParams{Source: "web"})
	require.NoError(t, err)
	assert.Equal(t, "web", web.Period.Source)
	assert.Equal(t, 3, web.TotalLeads)
	assert.Equal(t, []analytics.FunnelStage{
		{Stage: "new", Count: 3, RateFromTop: 100},
		{Stage: "contacted", Count: 2, RateFromTop: 66.67, DropoffRate: 33.33},
		{Stage: "qualified", Count: 2, RateFromTop: 66.67, DropoffRate: 0},
		{Stage: "converted", Count: 1, RateFromTop: 33.33, DropoffRate: 50},
	}, web.Funnel)

	none, err := d.env.Client.Analytics.Funnel(ctx, &analytics.FunnelParams{Source: "billboard"})
	require.NoError(t, err)
	for _, st := range none.Funnel {
		assert.Equal(t, analytics.FunnelStage{Stage: st.Stage}, st, "an empty funnel has zero rates")
	}
}

func TestAgentsAndWeekly(t *testing.T) {
	t.Parallel()
	d := seed(t)
	ag, err := d.env.Client.Analytics.Agents(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, []analytics.AgentStats{
		{AgentID: d.a, AgentName: "Test Business Intake Agent", BusinessID: d.biz,
			Calls: analytics.CallStats{Total: 4, Completed: 3, AvgDurationSeconds: 90, TotalDurationSeconds: 270},
			Leads: analytics.LeadStats{Total: 6, Converted: 1, ConversionRate: 16.67}},
		{AgentID: d.b, AgentName: "B Closer", BusinessID: d.biz,
			Calls: analytics.CallStats{Total: 3, Completed: 2, AvgDurationSeconds: 250, TotalDurationSeconds: 500},
			Leads: analytics.LeadStats{Total: 3, Converted: 1, ConversionRate: 33.33}},
	}, ag.Agents)
	one, err := d.env.Client.Analytics.Agents(ctx, &analytics.AgentsParams{AgentID: d.b, Days: 7})
	require.NoError(t, err)
	require.Len(t, one.Agents, 1)
	assert.Equal(t, 2, one.Agents[0].Calls.Total, "c3 and c5")

	w, err := d.env.Client.Analytics.Weekly(ctx, nil)
	require.NoError(t, err)
	week := 7 * 24 * time.Hour
	assert.Equal(t, analytics.WeeklyPeriod{
		ThisWeek: analytics.Range{Start: now.Add(-week), End: now},
		LastWeek: analytics.Range{Start: now.Add(-2 * week), End: now.Add(-week)},
	}, w.Period)
	assert.Equal(t, analytics.WeeklyCalls{
		ThisWeek: analytics.WeekCalls{Total: 5, Completed: 3, AvgDuration: 160, TotalDuration: 480},
		LastWeek: analytics.WeekCalls{Total: 1, Completed: 1, AvgDuration: 90, TotalDuration: 90},
		Change:   analytics.CallsChange{Total: 400, Completed: 200, AvgDuration: 77.78},
	}, w.Calls)
	assert.Equal(t, analytics.WeeklyLeads{
		ThisWeek: analytics.WeekLeads{Total: 5, Converted: 1},
		LastWeek: analytics.WeekLeads{Total: 2, Converted: 1},
		Change:   analytics.LeadsChange{Total: 150, Converted: 0},
	}, w.Leads)
	assert.Equal(t, []analytics.WeeklyAgent{
		{AgentID: d.a, AgentName: "Test Business Intake Agent", TotalCalls: 3, TotalDurationSeconds: 180},
		{AgentID: d.b, AgentName: "B Closer", TotalCalls: 2, TotalDurationSeconds: 300},
	}, w.TopAgents)

	// A zero last week: the change is 100 (0 when both weeks are empty).
	d.env.Server.Advance(15 * 24 * time.Hour)
	w, err = d.env.Client.Analytics.Weekly(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, analytics.CallsChange{}, w.Calls.Change, "both weeks empty")
	_, err = d.env.Server.SeedCalls(d.biz, []mockserver.CallFixture{{To: "+15550003333", Duration: 10}})
	require.NoError(t, err)
	w, err = d.env.Client.Analytics.Weekly(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, analytics.CallsChange{Total: 100, Completed: 100, AvgDuration: 100}, w.Calls.Change)
}

func TestBusinessesAndScoping(t *testing.T) {
	t.Parallel()
	d := seed(t)
	// A second business of the same user: the account's key reaches both.
	second, err := d.env.Server.NewAccount(mockserver.AccountOptions{BusinessName: "Second", Email: ownerEmail})
	require.NoError(t, err)
	require.Equal(t, d.env.Account.UserID, second.UserID)
	_, err = d.env.Server.SeedCalls(second.BusinessID, []mockserver.CallFixture{{To: "+15550004444", Duration: 30, CreatedAt: ts(3, 9, 9)}})
	require.NoError(t, err)
	_, err = d.env.Server.SeedLeads(second.BusinessID, []mockserver.LeadFixture{{Status: "converted"}, {Status: "new"}})
	require.NoError(t, err)

	rep, err := d.env.Client.Analytics.Businesses(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, []analytics.BusinessStats{
		{BusinessID: d.biz, BusinessName: "Test Business",
			Calls: analytics.CallStats{Total: 7, Completed: 5, AvgDurationSeconds: 154, TotalDurationSeconds: 770},
			Leads: analytics.LeadStats{Total: 9, Converted: 2, ConversionRate: 22.22}},
		{BusinessID: second.BusinessID, BusinessName: "Second",
			Calls: analytics.CallStats{Total: 1, Completed: 1, AvgDurationSeconds: 30, TotalDurationSeconds: 30},
			Leads: analytics.LeadStats{Total: 2, Converted: 1, ConversionRate: 50}},
	}, rep.Businesses)

	all, err := d.env.Client.Analytics.Dashboard(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, 8, all.Calls.Total, "both businesses")
	assert.Equal(t, 3, all.Agents.Total)
	one, err := d.env.Client.Analytics.Dashboard(ctx, &analytics.Params{BusinessID: d.biz})
	require.NoError(t, err)
	assert.Equal(t, 7, one.Calls.Total)

	// A key limited to one business sees only it.
	sess := d.env.ClientFor("", voiceagent.WithSessionCookie(d.env.Account.Session))
	k, err := sess.Keys.Create(ctx, &keys.CreateParams{BusinessID: second.BusinessID,
		Scopes: []voiceagent.Scope{voiceagent.ScopeCallsRead, voiceagent.ScopeWorkspacesRead}})
	require.NoError(t, err)
	limited := d.env.ClientFor(k.Value)
	rep, err = limited.Analytics.Businesses(ctx, nil)
	require.NoError(t, err)
	require.Len(t, rep.Businesses, 1)
	assert.Equal(t, second.BusinessID, rep.Businesses[0].BusinessID)
	_, err = limited.Analytics.Dashboard(ctx, &analytics.Params{BusinessID: d.biz})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	_, err = limited.Analytics.Funnel(ctx, nil)
	assert.ErrorIs(t, err, voiceagent.ErrForbidden, "the funnel needs leads:read")
}

func TestScopesAndBadParameters(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, mockserver.WithStartTime(now))
	leadsOnly := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"leads:read"}})
	c := env.ClientFor(leadsOnly.APIKey)
	_, err := c.Analytics.Funnel(ctx, nil)
	require.NoError(t, err)
	for name, call := range map[string]func() error{
		"dashboard":  func() error { _, err := c.Analytics.Dashboard(ctx, nil); return err },
		"calls":      func() error { _, err := c.Analytics.Calls(ctx, nil); return err },
		"agents":     func() error { _, err := c.Analytics.Agents(ctx, nil); return err },
		"weekly":     func() error { _, err := c.Analytics.Weekly(ctx, nil); return err },
		"businesses": func() error { _, err := c.Analytics.Businesses(ctx, nil); return err },
	} {
		assert.ErrorIs(t, call(), voiceagent.ErrForbidden, name)
	}

	for _, days := range []int{-1, 91} {
		_, err = env.Client.Analytics.Dashboard(ctx, &analytics.Params{Days: days})
		assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest, "days %d", days)
	}
	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	_, err = env.Client.Analytics.Weekly(ctx, &analytics.WeeklyParams{BusinessID: other.BusinessID})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)

	// An empty business answers zeros, never a division by zero.
	dash, err := env.Client.Analytics.Dashboard(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, analytics.CallStats{}, dash.Calls)
	assert.Equal(t, 0.0, dash.Leads.ConversionRate)
	assert.Empty(t, dash.Leads.Recent)
	assert.NotNil(t, dash.Agents.TopByCalls)
}
