package analytics

import (
	"cmp"
	"math"
	"net/http"
	"slices"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// Analytics (spec section 4): aggregates of the calls and leads of the
// key's businesses, computed from the store on every request.
func (s *Service) AnalyticsRoutes() []*httpapi.Route {
	get := func(path string, sc httpapi.ScopeReq, h func(*httpapi.Ctx) (any, error)) *httpapi.Route {
		return &httpapi.Route{Method: http.MethodGet, Path: httpapi.APIPrefix + "/v1/analytics/" + path, Scope: sc, Handle: h}
	}
	return []*httpapi.Route{
		get("dashboard", httpapi.Scope("calls:read"), s.analyticsDashboard),
		get("calls", httpapi.Scope("calls:read"), s.analyticsCalls),
		get("funnel", httpapi.Scope("leads:read"), s.analyticsFunnel),
		get("agents", httpapi.Scope("calls:read"), s.analyticsAgents),
		get("weekly", httpapi.Scope("calls:read"), s.analyticsWeekly),
		get("businesses", httpapi.Scope("workspaces:read"), s.analyticsBusinesses),
	}
}

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

func analyticsWindowOf(rc *httpapi.Ctx) (analyticsWindow, error) {
	days, err := rc.IntQuery("days", 30, 1, 90)
	if err != nil {
		return analyticsWindow{}, err
	}
	owners, err := rc.ScopedBusinesses()
	if err != nil {
		return analyticsWindow{}, err
	}
	return analyticsWindow{days: days, since: rc.Now.Add(-time.Duration(days) * httpapi.Day).UTC(), owners: owners}, nil
}

func (w analyticsWindow) period() map[string]any {
	return map[string]any{"days": w.days, "since": w.since}
}

// scanSince calls fn for the records of the owners created at or after
// since, newest first; the walk stops at the first older record, so a
// window costs what it holds, not what the table holds.
func scanSince[T store.Record](t *store.Table[T], owners []string, since time.Time, fn func(T)) {
	t.Scan(owners, httpapi.ZeroTime, func(r T) bool {
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

// leadAgg sums leads.
type leadAgg struct{ total, converted int }

func (a *leadAgg) add(l *store.Lead) {
	a.total++
	if l.Status == store.LeadConverted {
		a.converted++
	}
}

func (a *leadAgg) view() map[string]any {
	return map[string]any{"total": a.total, "converted": a.converted, "conversion_rate": percent(a.converted, a.total)}
}

// agentName of an agent id: the agent's current name, else the name a call
// recorded.
func agentNameOf(st *store.Store, id, recorded string) string {
	if a, ok := st.Agents.Get(id); ok {
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
func callsByAgent(st *store.Store, owners []string, since time.Time) map[string]*agentCalls {
	m := map[string]*agentCalls{}
	var last *agentCalls // consecutive calls are often one agent's: skip the lookup
	scanSince(st.Calls, owners, since, func(c *store.Call) {
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
func topAgents(st *store.Store, m map[string]*agentCalls, k int) []*agentCalls {
	list := make([]*agentCalls, 0, len(m))
	for _, a := range m {
		a.name = agentNameOf(st, a.id, a.name)
		list = append(list, a)
	}
	slices.SortFunc(list, func(a, b *agentCalls) int {
		return cmp.Or(cmp.Compare(b.agg.total, a.agg.total), cmp.Compare(b.agg.duration, a.agg.duration), cmp.Compare(a.id, b.id))
	})
	return list[:min(k, len(list))]
}

func (s *Service) analyticsDashboard(rc *httpapi.Ctx) (any, error) {
	w, err := analyticsWindowOf(rc)
	if err != nil {
		return nil, err
	}
	byStatus := make(map[string]int, len(store.LeadStatuses))
	for _, st := range store.LeadStatuses {
		byStatus[st] = 0
	}
	recent := []telephony.LeadListView{}
	var leads leadAgg
	scanSince(rc.Store.Leads, w.owners, w.since, func(l *store.Lead) {
		leads.add(l)
		byStatus[l.Status]++
		if len(recent) < analyticsRecentLeads {
			recent = append(recent, telephony.LeadListItem(rc.Store, l))
		}
	})
	perAgent := callsByAgent(rc.Store, w.owners, w.since)
	var calls callAgg
	for _, a := range perAgent {
		calls.total += a.agg.total
		calls.completed += a.agg.completed
		calls.duration += a.agg.duration
		calls.timed += a.agg.timed
	}
	agentsTotal := 0
	for _, o := range w.owners {
		agentsTotal += rc.Store.Agents.Count(o)
	}
	top := []map[string]any{}
	for _, a := range topAgents(rc.Store, perAgent, analyticsTopAgents) {
		top = append(top, map[string]any{
			"agent_id": a.id, "name": a.name, "count": a.agg.total,
			"total_duration": a.agg.duration, "avg_duration": a.agg.avg(),
		})
	}
	return map[string]any{
		"period": w.period(),
		"leads": map[string]any{
			"total": leads.total, "by_status": byStatus,
			"conversion_rate": percent(leads.converted, leads.total), "recent": recent,
		},
		"calls": map[string]any{
			"total": calls.total, "completed": calls.completed,
			"total_duration_seconds": calls.duration, "avg_duration_seconds": calls.avg(),
		},
		"agents": map[string]any{"total": agentsTotal, "top_by_calls": top},
	}, nil
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

func (s *Service) analyticsCalls(rc *httpapi.Ctx) (any, error) {
	w, err := analyticsWindowOf(rc)
	if err != nil {
		return nil, err
	}
	groupBy := httpapi.FirstNonEmpty(rc.Query("group_by"), "day")
	if groupBy != "day" && groupBy != "week" {
		return nil, httpapi.InvalidField("group_by", "must be day or week")
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
	scanSince(rc.Store.Calls, w.owners, w.since, func(c *store.Call) {
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
	timeline := make([]map[string]any, len(starts))
	for i, b := range starts {
		a := &buckets[i]
		timeline[i] = map[string]any{
			"date": b.Format(time.DateOnly), "total": a.total, "completed": a.completed,
			"total_duration": a.duration, "avg_duration_seconds": a.avg(), "statuses": a.statuses,
		}
	}
	period := w.period()
	period["group_by"] = groupBy
	return map[string]any{
		"period": period,
		"summary": map[string]any{
			"total_calls": sum.total, "total_duration_seconds": sum.duration, "avg_duration_seconds": sum.avg(),
		},
		"timeline": timeline,
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

func (s *Service) analyticsFunnel(rc *httpapi.Ctx) (any, error) {
	w, err := analyticsWindowOf(rc)
	if err != nil {
		return nil, err
	}
	source := rc.Query("source")
	counts := make([]int, len(funnelStages))
	total, lost := 0, 0
	scanSince(rc.Store.Leads, w.owners, w.since, func(l *store.Lead) {
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
	funnel := make([]map[string]any, len(funnelStages))
	for i, stage := range funnelStages {
		drop := 0.0
		if i > 0 {
			drop = percent(counts[i-1]-counts[i], counts[i-1])
		}
		funnel[i] = map[string]any{
			"stage": stage, "count": counts[i], "rate_from_top": percent(counts[i], counts[0]), "dropoff_rate": drop,
		}
	}
	period := w.period()
	if source != "" {
		period["source"] = source
	}
	return map[string]any{"period": period, "total_leads": total, "lost": lost, "funnel": funnel}, nil
}

func (s *Service) analyticsAgents(rc *httpapi.Ctx) (any, error) {
	w, err := analyticsWindowOf(rc)
	if err != nil {
		return nil, err
	}
	only := rc.Query("agent_id")
	perAgent := callsByAgent(rc.Store, w.owners, w.since)
	leads := map[string]*leadAgg{}
	scanSince(rc.Store.Leads, w.owners, w.since, func(l *store.Lead) {
		a := leads[l.AgentID]
		if a == nil {
			a = &leadAgg{}
			leads[l.AgentID] = a
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
		for _, a := range rc.Store.Agents.Owned(o) {
			if only != "" && a.ID != only {
				continue
			}
			r := row{agent: a}
			if c := perAgent[a.ID]; c != nil {
				r.calls = c.agg
			}
			if l := leads[a.ID]; l != nil {
				r.leads = *l
			}
			rows = append(rows, r)
		}
	}
	slices.SortStableFunc(rows, func(a, b row) int {
		return cmp.Or(cmp.Compare(b.calls.total, a.calls.total), cmp.Compare(a.agent.Name, b.agent.Name))
	})
	out := make([]map[string]any, len(rows))
	for i, r := range rows {
		out[i] = map[string]any{
			"agent_id": r.agent.ID, "agent_name": r.agent.Name, "business_id": r.agent.Owner,
			"calls": map[string]any{
				"total": r.calls.total, "completed": r.calls.completed,
				"avg_duration_seconds": r.calls.avg(), "total_duration_seconds": r.calls.duration,
			},
			"leads": r.leads.view(),
		}
	}
	return map[string]any{"period": w.period(), "agents": out}, nil
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

func (s *Service) analyticsWeekly(rc *httpapi.Ctx) (any, error) {
	owners, err := rc.ScopedBusinesses()
	if err != nil {
		return nil, err
	}
	now := rc.Now.UTC()
	thisStart, lastStart := now.Add(-7*httpapi.Day), now.Add(-14*httpapi.Day)
	var thisCalls, lastCalls callAgg
	scanWeeks(rc.Store.Calls, owners, lastStart, thisStart, lastCalls.add, thisCalls.add)
	var thisLeads, lastLeads leadAgg
	scanWeeks(rc.Store.Leads, owners, lastStart, thisStart, lastLeads.add, thisLeads.add)
	callWeek := func(a *callAgg) map[string]any {
		return map[string]any{"total": a.total, "completed": a.completed, "avg_duration": a.avg(), "total_duration": a.duration}
	}
	leadWeek := func(a *leadAgg) map[string]any {
		return map[string]any{"total": a.total, "converted": a.converted}
	}
	top := []map[string]any{}
	for _, a := range topAgents(rc.Store, callsByAgent(rc.Store, owners, thisStart), analyticsTopAgents) {
		top = append(top, map[string]any{
			"agent_id": a.id, "agent_name": a.name, "total_calls": a.agg.total, "total_duration_seconds": a.agg.duration,
		})
	}
	return map[string]any{
		"period": map[string]any{
			"this_week": map[string]any{"start": thisStart, "end": now},
			"last_week": map[string]any{"start": lastStart, "end": thisStart},
		},
		"calls": map[string]any{
			"this_week": callWeek(&thisCalls), "last_week": callWeek(&lastCalls),
			"change": map[string]any{
				"total":        percentChange(float64(thisCalls.total), float64(lastCalls.total)),
				"completed":    percentChange(float64(thisCalls.completed), float64(lastCalls.completed)),
				"avg_duration": percentChange(thisCalls.avg(), lastCalls.avg()),
			},
		},
		"leads": map[string]any{
			"this_week": leadWeek(&thisLeads), "last_week": leadWeek(&lastLeads),
			"change": map[string]any{
				"total":     percentChange(float64(thisLeads.total), float64(lastLeads.total)),
				"converted": percentChange(float64(thisLeads.converted), float64(lastLeads.converted)),
			},
		},
		"top_agents": top,
	}, nil
}

func (s *Service) analyticsBusinesses(rc *httpapi.Ctx) (any, error) {
	w, err := analyticsWindowOf(rc)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, 0, len(w.owners))
	for _, id := range w.owners {
		b, ok := rc.Store.Businesses.Get(id)
		if !ok {
			continue
		}
		var calls callAgg
		scanSince(rc.Store.Calls, []string{id}, w.since, calls.add)
		var leads leadAgg
		scanSince(rc.Store.Leads, []string{id}, w.since, leads.add)
		out = append(out, map[string]any{
			"business_id": b.ID, "business_name": b.Name,
			"calls": map[string]any{
				"total": calls.total, "completed": calls.completed, "avg_duration_seconds": calls.avg(),
				"total_duration_seconds": calls.duration,
			},
			"leads": leads.view(),
		})
	}
	return map[string]any{"period": w.period(), "businesses": out}, nil
}
