package analytics

import (
	"cmp"
	"math"
	"slices"
	"time"

	analyticsapi "github.com/voiceagent/voiceagent-go/analytics"
	"github.com/voiceagent/voiceagent-go/leads"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
)

// Sizes of the analytics lists.
const (
	analyticsRecentLeads = 5
	analyticsTopAgents   = 5
)

// analyticsWindow is the look-back of an analytics request: days (default
// 30, 1 to 90), the start of the window, and the businesses read.
type analyticsWindow struct {
	days   int
	since  time.Time
	owners []string
}

// analyticsWindowOf reads the window of a request: the days query
// parameter and the businesses the caller reads.
func analyticsWindowOf(rc *httpapi.Ctx) (analyticsWindow, error) {
	days, err := rc.IntQuery("days", 30, 1, 90)
	if err != nil {
		return analyticsWindow{}, err
	}
	owners, err := rc.ScopedBusinesses()
	if err != nil {
		return analyticsWindow{}, err
	}
	return analyticsWindow{days: days, since: rc.Now.Add(-time.Duration(days) * val.Day).UTC(), owners: owners}, nil
}

// period is the window as responses show it.
func (w analyticsWindow) period() analyticsapi.Period {
	return analyticsapi.Period{Days: w.days, Since: w.since}
}

// scanSince calls fn for the records of the owners created at or after
// since, newest first; the walk stops at the first older record, so a
// window costs what it holds, not what the table holds.
func scanSince[T store.Record](t *store.Table[T], owners []string, since time.Time, fn func(T)) {
	t.Scan(owners, val.ZeroTime, func(r T) bool {
		if r.RecordCreated().Before(since) {
			return false
		}
		fn(r)
		return true
	})
}

// round2 rounds to two decimals.
func round2(x float64) float64 { return math.Round(x*100) / 100 }

// percent is part/whole as a percentage with two decimals (0 when whole is 0).
func percent(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return round2(float64(part) * 100 / float64(whole))
}

// percentChange is the change from last to this in percent: 0 when both
// are 0, 100 when only last is 0.
func percentChange(this, last float64) float64 {
	switch {
	case last == 0 && this == 0:
		return 0
	case last == 0:
		return 100
	}
	return round2((this - last) * 100 / last)
}

// callAgg sums calls.
type callAgg struct {
	total, completed int
	duration         int // seconds, all calls
	timed            int // calls with a duration
	statuses         map[string]int
}

// connected reports whether a call was a finished conversation: completed
// (outbound) or ended (inbound).
func connected(c *store.Call) bool {
	return c.Status == store.CallCompleted || c.Status == store.CallEnded
}

// add counts a call.
func (a *callAgg) add(c *store.Call) {
	a.total++
	if connected(c) {
		a.completed++
	}
	if c.Duration > 0 {
		a.duration += c.Duration
		a.timed++
	}
	if a.statuses != nil {
		a.statuses[c.Status]++
	}
}

// avg is the average duration of the calls that have one, two decimals.
func (a *callAgg) avg() float64 {
	if a.timed == 0 {
		return 0
	}
	return round2(float64(a.duration) / float64(a.timed))
}

// stats are the sums as responses show them.
func (a *callAgg) stats() analyticsapi.CallStats {
	return analyticsapi.CallStats{Total: a.total, Completed: a.completed, TotalDurationSeconds: a.duration, AvgDurationSeconds: a.avg()}
}

// leadAgg sums leads.
type leadAgg struct{ total, converted int }

// add counts a lead.
func (a *leadAgg) add(l *store.Lead) {
	a.total++
	if l.Status == store.LeadConverted {
		a.converted++
	}
}

// stats are the sums as responses show them.
func (a *leadAgg) stats() analyticsapi.LeadStats {
	return analyticsapi.LeadStats{Total: a.total, Converted: a.converted, ConversionRate: percent(a.converted, a.total)}
}

// agentNameOf is the name of an agent id: the agent's current name, else
// the name a call recorded.
func agentNameOf(tx *platform.Tx, id, recorded string) string {
	if a, ok := tx.Agents.Get(id); ok {
		return a.Name
	}
	return recorded
}

// agentCalls sums calls per agent.
type agentCalls struct {
	id, name string
	agg      callAgg
}

// callsByAgent aggregates the window's calls per agent.
func callsByAgent(tx *platform.Tx, owners []string, since time.Time) map[string]*agentCalls {
	m := map[string]*agentCalls{}
	var last *agentCalls // consecutive calls are often one agent's: skip the lookup
	scanSince(tx.Calls, owners, since, func(c *store.Call) {
		a := last
		if a == nil || a.id != c.AgentID {
			a = m[c.AgentID]
		}
		if a == nil {
			a = &agentCalls{id: c.AgentID, name: c.AgentName}
			m[c.AgentID] = a
		}
		last = a
		a.agg.add(c)
	})
	return m
}

// topAgents returns the k agents with the most calls (then the longest
// total duration, then by id).
func topAgents(tx *platform.Tx, m map[string]*agentCalls, k int) []*agentCalls {
	list := make([]*agentCalls, 0, len(m))
	for _, a := range m {
		a.name = agentNameOf(tx, a.id, a.name)
		list = append(list, a)
	}
	slices.SortFunc(list, func(a, b *agentCalls) int {
		return cmp.Or(cmp.Compare(b.agg.total, a.agg.total), cmp.Compare(b.agg.duration, a.agg.duration), cmp.Compare(a.id, b.id))
	})
	return list[:min(k, len(list))]
}

// analyticsDashboard is GET /v1/analytics/dashboard.
func (s *Service) analyticsDashboard(rc *httpapi.Ctx) (any, error) {
	w, err := analyticsWindowOf(rc)
	if err != nil {
		return nil, err
	}
	byStatus := make(map[string]int, len(store.LeadStatuses))
	for _, tx := range store.LeadStatuses {
		byStatus[tx] = 0
	}
	recent := []leads.Lead{}
	var sums leadAgg
	scanSince(rc.Tx.Leads, w.owners, w.since, func(l *store.Lead) {
		sums.add(l)
		byStatus[l.Status]++
		if len(recent) < analyticsRecentLeads {
			recent = append(recent, recentLead(rc.Tx, l))
		}
	})
	perAgent := callsByAgent(rc.Tx, w.owners, w.since)
	var calls callAgg
	for _, a := range perAgent {
		calls.total += a.agg.total
		calls.completed += a.agg.completed
		calls.duration += a.agg.duration
		calls.timed += a.agg.timed
	}
	agentsTotal := 0
	for _, o := range w.owners {
		agentsTotal += rc.Tx.Agents.Count(o)
	}
	top := []analyticsapi.TopAgent{}
	for _, a := range topAgents(rc.Tx, perAgent, analyticsTopAgents) {
		top = append(top, analyticsapi.TopAgent{
			AgentID: a.id, Name: a.name, Count: a.agg.total, TotalDuration: a.agg.duration, AvgDuration: a.agg.avg(),
		})
	}
	return &analyticsapi.Dashboard{
		Period: w.period(),
		Leads: analyticsapi.DashboardLeads{
			Total: sums.total, ByStatus: byStatus, ConversionRate: percent(sums.converted, sums.total), Recent: recent,
		},
		Calls:  calls.stats(),
		Agents: analyticsapi.DashboardAgents{Total: agentsTotal, TopByCalls: top},
	}, nil
}

// recentLead is a lead of the dashboard's recent list: the list form of
// GET /v1/leads.
func recentLead(tx *platform.Tx, l *store.Lead) leads.Lead {
	v := telephony.LeadListItem(tx, l)
	return leads.Lead{
		ID: v.ID, Name: v.Name, FirstName: v.FirstName, LastName: v.LastName, Email: v.Email, Phone: v.Phone,
		Status: leads.Status(v.Status), Source: v.Source, AgentID: v.AgentID, AgentName: v.AgentName,
		BusinessID: v.BusinessID, CreatedAt: time.Time(v.CreatedAt), UpdatedAt: time.Time(v.UpdatedAt),
	}
}

// bucketStart is the start of a call's timeline bucket: its UTC day, or
// the Monday of its ISO week.
func bucketStart(t time.Time, groupBy string) time.Time {
	t = t.UTC()
	d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	if groupBy == "week" {
		d = d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	}
	return d
}

// analyticsCalls is GET /v1/analytics/calls: the window's calls, and a
// timeline of days or weeks.
func (s *Service) analyticsCalls(rc *httpapi.Ctx) (any, error) {
	w, err := analyticsWindowOf(rc)
	if err != nil {
		return nil, err
	}
	groupBy := val.FirstNonEmpty(rc.Query("group_by"), "day")
	if groupBy != "day" && groupBy != "week" {
		return nil, domain.InvalidField("group_by", "must be day or week")
	}
	agentID := rc.Query("agent_id")
	// One bucket per day or week from the window's start to now, oldest
	// first, zeros included.
	var starts []time.Time
	for b := bucketStart(w.since, groupBy); !b.After(rc.Now); {
		starts = append(starts, b)
		if groupBy == "week" {
			b = b.AddDate(0, 0, 7)
		} else {
			b = b.AddDate(0, 0, 1)
		}
	}
	buckets := make([]callAgg, len(starts))
	index := make(map[time.Time]int, len(starts))
	for i, b := range starts {
		index[b] = i
		buckets[i].statuses = map[string]int{}
	}
	var sum callAgg
	cur, curStart, curEnd := -1, time.Time{}, time.Time{} // the last bucket hit: calls come newest first
	scanSince(rc.Tx.Calls, w.owners, w.since, func(c *store.Call) {
		if agentID != "" && c.AgentID != agentID {
			return
		}
		sum.add(c)
		if cur < 0 || c.CreatedAt.Before(curStart) || !c.CreatedAt.Before(curEnd) {
			start := bucketStart(c.CreatedAt, groupBy)
			i, ok := index[start]
			if !ok {
				return
			}
			cur, curStart = i, start
			curEnd = start.AddDate(0, 0, 1)
			if groupBy == "week" {
				curEnd = start.AddDate(0, 0, 7)
			}
		}
		buckets[cur].add(c)
	})
	timeline := make([]analyticsapi.TimelineEntry, len(starts))
	for i, b := range starts {
		a := &buckets[i]
		timeline[i] = analyticsapi.TimelineEntry{
			Date: b.Format(time.DateOnly), Total: a.total, Completed: a.completed,
			TotalDuration: a.duration, AvgDurationSeconds: a.avg(), Statuses: a.statuses,
		}
	}
	period := w.period()
	period.GroupBy = groupBy
	return &analyticsapi.CallsReport{
		Period: period,
		Summary: analyticsapi.CallsSummary{
			TotalCalls: sum.total, TotalDurationSeconds: sum.duration, AvgDurationSeconds: sum.avg(),
		},
		Timeline: timeline,
	}, nil
}

// funnelStages are the funnel's stages, in order; a lead counts at every
// stage up to its status.
var funnelStages = []string{store.LeadNew, store.LeadContacted, store.LeadQualified, store.LeadConverted}

// funnelDepth is how far down the funnel a status is (0: new only).
func funnelDepth(status string) int {
	switch status {
	case store.LeadContacted:
		return 1
	case store.LeadQualified:
		return 2
	case store.LeadConverted:
		return 3
	}
	return 0
}

// analyticsFunnel is GET /v1/analytics/funnel.
func (s *Service) analyticsFunnel(rc *httpapi.Ctx) (any, error) {
	w, err := analyticsWindowOf(rc)
	if err != nil {
		return nil, err
	}
	source := rc.Query("source")
	counts := make([]int, len(funnelStages))
	total, lost := 0, 0
	scanSince(rc.Tx.Leads, w.owners, w.since, func(l *store.Lead) {
		if source != "" && (l.Source == nil || *l.Source != source) {
			return
		}
		total++
		if l.Status == store.LeadLost {
			lost++
		}
		for i := 0; i <= funnelDepth(l.Status); i++ {
			counts[i]++
		}
	})
	funnel := make([]analyticsapi.FunnelStage, len(funnelStages))
	for i, stage := range funnelStages {
		drop := 0.0
		if i > 0 {
			drop = percent(counts[i-1]-counts[i], counts[i-1])
		}
		funnel[i] = analyticsapi.FunnelStage{
			Stage: stage, Count: counts[i], RateFromTop: percent(counts[i], counts[0]), DropoffRate: drop,
		}
	}
	period := w.period()
	period.Source = source // omitted when empty
	return &analyticsapi.Funnel{Period: period, TotalLeads: total, Lost: lost, Funnel: funnel}, nil
}

// analyticsAgents is GET /v1/analytics/agents: every agent of the
// businesses, most calls first.
func (s *Service) analyticsAgents(rc *httpapi.Ctx) (any, error) {
	w, err := analyticsWindowOf(rc)
	if err != nil {
		return nil, err
	}
	only := rc.Query("agent_id")
	perAgent := callsByAgent(rc.Tx, w.owners, w.since)
	leadsByAgent := map[string]*leadAgg{}
	scanSince(rc.Tx.Leads, w.owners, w.since, func(l *store.Lead) {
		a := leadsByAgent[l.AgentID]
		if a == nil {
			a = &leadAgg{}
			leadsByAgent[l.AgentID] = a
		}
		a.add(l)
	})
	type row struct {
		agent *store.Agent
		calls callAgg
		leads leadAgg
	}
	var rows []row
	for _, o := range w.owners {
		for _, a := range rc.Tx.Agents.Owned(o) {
			if only != "" && a.ID != only {
				continue
			}
			r := row{agent: a}
			if c := perAgent[a.ID]; c != nil {
				r.calls = c.agg
			}
			if l := leadsByAgent[a.ID]; l != nil {
				r.leads = *l
			}
			rows = append(rows, r)
		}
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(b.calls.total, a.calls.total), cmp.Compare(a.agent.Name, b.agent.Name))
	})
	out := make([]analyticsapi.AgentStats, len(rows))
	for i, r := range rows {
		out[i] = analyticsapi.AgentStats{
			AgentID: r.agent.ID, AgentName: r.agent.Name, BusinessID: r.agent.Owner,
			Calls: r.calls.stats(), Leads: r.leads.stats(),
		}
	}
	return &analyticsapi.AgentsReport{Period: w.period(), Agents: out}, nil
}

// scanWeeks hands the records created since since to last when they are
// older than mid, to this otherwise.
func scanWeeks[T store.Record](t *store.Table[T], owners []string, since, mid time.Time, last, this func(T)) {
	scanSince(t, owners, since, func(r T) {
		if r.RecordCreated().Before(mid) {
			last(r)
		} else {
			this(r)
		}
	})
}

// analyticsWeekly is GET /v1/analytics/weekly: the last seven days against
// the seven before.
func (s *Service) analyticsWeekly(rc *httpapi.Ctx) (any, error) {
	owners, err := rc.ScopedBusinesses()
	if err != nil {
		return nil, err
	}
	now := rc.Now.UTC()
	thisStart, lastStart := now.Add(-7*val.Day), now.Add(-14*val.Day)
	var thisCalls, lastCalls callAgg
	scanWeeks(rc.Tx.Calls, owners, lastStart, thisStart, lastCalls.add, thisCalls.add)
	var thisLeads, lastLeads leadAgg
	scanWeeks(rc.Tx.Leads, owners, lastStart, thisStart, lastLeads.add, thisLeads.add)
	callWeek := func(a *callAgg) analyticsapi.WeekCalls {
		return analyticsapi.WeekCalls{Total: a.total, Completed: a.completed, AvgDuration: a.avg(), TotalDuration: a.duration}
	}
	leadWeek := func(a *leadAgg) analyticsapi.WeekLeads {
		return analyticsapi.WeekLeads{Total: a.total, Converted: a.converted}
	}
	top := []analyticsapi.WeeklyAgent{}
	for _, a := range topAgents(rc.Tx, callsByAgent(rc.Tx, owners, thisStart), analyticsTopAgents) {
		top = append(top, analyticsapi.WeeklyAgent{
			AgentID: a.id, AgentName: a.name, TotalCalls: a.agg.total, TotalDurationSeconds: a.agg.duration,
		})
	}
	return &analyticsapi.Weekly{
		Period: analyticsapi.WeeklyPeriod{
			ThisWeek: analyticsapi.Range{Start: thisStart, End: now},
			LastWeek: analyticsapi.Range{Start: lastStart, End: thisStart},
		},
		Calls: analyticsapi.WeeklyCalls{
			ThisWeek: callWeek(&thisCalls), LastWeek: callWeek(&lastCalls),
			Change: analyticsapi.CallsChange{
				Total:       percentChange(float64(thisCalls.total), float64(lastCalls.total)),
				Completed:   percentChange(float64(thisCalls.completed), float64(lastCalls.completed)),
				AvgDuration: percentChange(thisCalls.avg(), lastCalls.avg()),
			},
		},
		Leads: analyticsapi.WeeklyLeads{
			ThisWeek: leadWeek(&thisLeads), LastWeek: leadWeek(&lastLeads),
			Change: analyticsapi.LeadsChange{
				Total:     percentChange(float64(thisLeads.total), float64(lastLeads.total)),
				Converted: percentChange(float64(thisLeads.converted), float64(lastLeads.converted)),
			},
		},
		TopAgents: top,
	}, nil
}

// analyticsBusinesses is GET /v1/analytics/businesses.
func (s *Service) analyticsBusinesses(rc *httpapi.Ctx) (any, error) {
	w, err := analyticsWindowOf(rc)
	if err != nil {
		return nil, err
	}
	out := make([]analyticsapi.BusinessStats, 0, len(w.owners))
	for _, id := range w.owners {
		b, ok := rc.Tx.Businesses.Get(id)
		if !ok {
			continue
		}
		var calls callAgg
		scanSince(rc.Tx.Calls, []string{id}, w.since, calls.add)
		var sums leadAgg
		scanSince(rc.Tx.Leads, []string{id}, w.since, sums.add)
		out = append(out, analyticsapi.BusinessStats{
			BusinessID: b.ID, BusinessName: b.Name, Calls: calls.stats(), Leads: sums.stats(),
		})
	}
	return &analyticsapi.BusinessesReport{Period: w.period(), Businesses: out}, nil
}
