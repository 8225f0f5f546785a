package sdr

import (
	"container/heap"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
	sdrapi "github.com/voiceagent/voiceagent-go/sdr"
)

// segment is one of the outbound-sales segments (spec section 3), or
// manual review. Responses show it by name (String).
type segment uint8

// The segments, in the order of the SdrSegment enum of
// openapi/openapi.yaml, manual review last. Their rules are in
// docs/mockserver.md, section Segments.
const (
	segSpeedToLead segment = iota
	segFreshDemoCaller
	segWarmDemoCaller
	segCoolingDemo
	segNewTrialStuck
	segTrialGoingDark
	segTrialEnding
	segContactedNoReply
	segExhausted
	segChurnedRecent
	segCold
	segManualReview
	numSegments
)

// segmentNames are the segments' names, manual_review last.
var segmentNames = [numSegments]string{
	"speed_to_lead", "fresh_demo_caller", "warm_demo_caller", "cooling_demo", "new_trial_stuck",
	"trial_going_dark", "trial_ending", "contacted_no_reply", "exhausted", "churned_recent", "cold",
	"manual_review",
}

// String returns the segment's name.
func (g segment) String() string { return segmentNames[g] }

// parseSegment returns the segment with a name.
func parseSegment(name string) (segment, bool) {
	for i, n := range segmentNames {
		if n == name {
			return segment(i), true
		}
	}
	return 0, false
}

// segmentCounts counts leads per segment.
type segmentCounts [numSegments]int

// view is the counts by name, every segment included.
func (c *segmentCounts) view() map[sdrapi.Segment]int {
	m := make(map[sdrapi.Segment]int, numSegments)
	for i, n := range c {
		m[sdrapi.Segment(segment(i).String())] = n
	}
	return m
}

// hotSegments are the report's hot leads.
var hotSegments = []segment{segSpeedToLead, segFreshDemoCaller, segNewTrialStuck}

// Windows of the segmentation rules (see docs/mockserver.md, section
// Segments), the scheduled runner's interval, the delay before an SDR
// email is sent and the most dispatches of one run.
const (
	speedToLeadWindow   = time.Hour
	freshWindow         = val.Day
	warmWindow          = 3 * val.Day
	coolingWindow       = 14 * val.Day
	trialLength         = 14 * val.Day
	trialEndingWindow   = 3 * val.Day
	newTrialWindow      = 3 * val.Day
	goingDarkSilence    = 3 * val.Day
	churnWindow         = 30 * val.Day
	noReplyWindow       = 30 * val.Day
	sdrRunnerInterval   = 2 * time.Hour
	sdrEmailDelay       = 30 * time.Second
	maxDispatchesPerRun = 100
)

// segmentUrgency is what a segment adds to a lead's pipeline score.
var segmentUrgency = [numSegments]int{
	segSpeedToLead: 40, segTrialEnding: 35, segFreshDemoCaller: 30, segNewTrialStuck: 30,
	segWarmDemoCaller: 20, segContactedNoReply: 15, segTrialGoingDark: 15, segChurnedRecent: 10,
	segCoolingDemo: 10,
}

// segmentChannels is the order in which a segment's leads are reached;
// contacted_no_reply rotates instead (see nextChannels).
var segmentChannels = [numSegments][]string{
	segSpeedToLead:     {store.SDRCall, store.SDRSMS, store.SDREmail},
	segFreshDemoCaller: {store.SDRCall, store.SDRSMS, store.SDREmail},
	segWarmDemoCaller:  {store.SDRSMS, store.SDRCall, store.SDREmail},
	segCoolingDemo:     {store.SDREmail, store.SDRSMS, store.SDRCall},
	segNewTrialStuck:   {store.SDRCall, store.SDREmail, store.SDRSMS},
	segTrialGoingDark:  {store.SDREmail, store.SDRSMS, store.SDRCall},
	segTrialEnding:     {store.SDRCall, store.SDREmail, store.SDRSMS},
	segChurnedRecent:   {store.SDREmail, store.SDRSMS, store.SDRCall},
}

// channelRotation is contacted_no_reply's order: the channel after the last
// one used, round the circle.
var channelRotation = []string{store.SDRCall, store.SDRSMS, store.SDREmail}

// actionNone is next_action for leads the pipeline does not touch.
const actionNone = "none"

// Defaults of a business without an SDR configuration: nothing runs or
// dispatches by itself.
const (
	defaultMinTouchGapHours = 24
	defaultMaxTouches       = 5
	defaultHoursStart       = 9
	defaultHoursEnd         = 17
)

// SDRConfigOf returns a business's configuration, or the defaults (not
// stored) when it has none.
func SDRConfigOf(tx *platform.Tx, businessID string) *store.SDRConfig {
	if c, ok := tx.SDRConfigs[businessID]; ok {
		return c
	}
	return &store.SDRConfig{
		BusinessID: businessID, MinTouchGapHours: defaultMinTouchGapHours, MaxTouches: defaultMaxTouches,
		HoursStart: defaultHoursStart, HoursEnd: defaultHoursEnd,
	}
}

// sdrCtx is the pipeline of one business at one time: the state it reads
// and changes, through tx, and what evaluating its leads needs.
// The segment, cadence and run operations are its methods (or take it).
// Build it with newSDRCtx; it is valid only while tx is.
type sdrCtx struct {
	tx  *platform.Tx
	now time.Time
	b   *store.Business
	cfg *store.SDRConfig
	// The business's do-not-call lists and consent states, looked up once.
	dncNational, dncOwn map[string]bool
	consent             map[string]string
}

// newSDRCtx returns the pipeline of business b at now under configuration
// cfg, on the state tx holds.
func newSDRCtx(tx *platform.Tx, now time.Time, b *store.Business, cfg *store.SDRConfig) *sdrCtx {
	c := &sdrCtx{tx: tx, now: now, b: b, cfg: cfg}
	c.dncNational, c.dncOwn = tx.DNCLists(b.ID)
	c.consent = tx.ConsentStates(b.ID)
	return c
}

// sdrEval is one lead as the pipeline sees it now.
type sdrEval struct {
	lead    *store.Lead
	state   *store.SDRLead // nil: never touched, paused or skipped
	segment segment
	score   int
	next    string    // call, email, sms or none
	nextAt  time.Time // when the cadence allows the next touch (zero: now)
	// actionable: a next action, not paused, the cadence allows it now.
	actionable bool
}

// touches is the lead's count of dispatched touches.
func (e *sdrEval) touches() int {
	if e.state == nil {
		return 0
	}
	return e.state.TouchCount
}

// paused reports whether the lead's automated touches are paused.
func (e *sdrEval) paused() bool { return e.state != nil && e.state.Paused }

// isTrialLead reports whether a lead came from a trial signup: its source
// contains "trial" (trial, trial_signup, free_trial, ...).
func isTrialLead(l *store.Lead) bool {
	if l.Source == nil {
		return false
	}
	src := *l.Source
	for i := 0; i+len("trial") <= len(src); i++ {
		if strings.EqualFold(src[i:i+len("trial")], "trial") {
			return true
		}
	}
	return false
}

// lastActivity is the lead's latest interaction, or its creation.
func lastActivity(l *store.Lead) time.Time {
	if l.LastContactAt != nil && l.LastContactAt.After(l.CreatedAt) {
		return *l.LastContactAt
	}
	return l.CreatedAt
}

// engagedSince reports whether the lead interacted after t: an inbound call
// or text, a completed call, anything recorded on the lead after it.
func engagedSince(l *store.Lead, t time.Time) bool {
	return l.LastContactAt != nil && l.LastContactAt.After(t)
}

// reach says which channels may reach a lead: calls need a phone that is
// not on a do-not-call list; texts also need SMS consent (opted in);
// emails need an email.
type reach struct{ call, sms, email bool }

// has reports whether the lead may be reached on a channel.
func (r reach) has(channel string) bool { return perChannel(channel, r.call, r.sms, r.email) }

// perChannel picks the value of a channel (false for anything else).
func perChannel(channel string, call, sms, email bool) bool {
	switch channel {
	case store.SDRCall:
		return call
	case store.SDRSMS:
		return sms
	case store.SDREmail:
		return email
	}
	return false
}

// reachOf returns which channels may reach a lead.
func (c *sdrCtx) reachOf(l *store.Lead) reach {
	var r reach
	if l.Phone != nil && *l.Phone != "" && !c.dncNational[*l.Phone] && !c.dncOwn[*l.Phone] {
		r.call = true
		r.sms = c.consent[*l.Phone] == store.ConsentOptedIn
	}
	r.email = l.Email != nil && *l.Email != ""
	return r
}

// autoOn reports whether the configuration dispatches a channel by itself.
func autoOn(cfg *store.SDRConfig, channel string) bool {
	return perChannel(channel, cfg.AutoCall, cfg.AutoSMS, cfg.AutoEmail)
}

// segmentOf returns the segment of lead l, whose pipeline state is state
// (nil: none) and whose reach is r, by the rule table of
// docs/mockserver.md, section Segments: the first match wins.
func (c *sdrCtx) segmentOf(l *store.Lead, state *store.SDRLead, r reach) segment {
	touches := 0
	if state != nil {
		touches = state.TouchCount
	}
	age := c.now.Sub(l.CreatedAt)
	trial := isTrialLead(l)
	switch {
	case l.Status == store.LeadConverted || l.Status == store.LeadUnqualified ||
		l.Status == store.LeadSpam || l.Status == store.LeadDoNotContact:
		return segCold
	case touches >= c.cfg.MaxTouches:
		return segExhausted
	case !r.call && !r.email:
		return segManualReview
	case l.Status == store.LeadLost:
		if c.now.Sub(l.UpdatedAt) < churnWindow {
			return segChurnedRecent
		}
		return segCold
	case trial && age >= trialLength:
		if age < trialLength+churnWindow {
			return segChurnedRecent
		}
		return segCold
	case !trial && l.Status == store.LeadNew && touches == 0 && age < speedToLeadWindow:
		return segSpeedToLead
	case trial && age >= trialLength-trialEndingWindow:
		return segTrialEnding
	case touches > 0 && state.LastTouchAt != nil && !engagedSince(l, *state.LastTouchAt) &&
		c.now.Sub(*state.LastTouchAt) < noReplyWindow:
		return segContactedNoReply
	case trial && age < newTrialWindow && l.Status == store.LeadNew:
		return segNewTrialStuck
	case trial && c.now.Sub(lastActivity(l)) >= goingDarkSilence:
		return segTrialGoingDark
	}
	switch quiet := c.now.Sub(lastActivity(l)); {
	case quiet < freshWindow:
		return segFreshDemoCaller
	case quiet < warmWindow:
		return segWarmDemoCaller
	case quiet < coolingWindow:
		return segCoolingDemo
	}
	return segCold
}

// nextChannels returns the order in which a lead of a segment is reached.
func nextChannels(seg segment, state *store.SDRLead) []string {
	if seg != segContactedNoReply {
		return segmentChannels[seg]
	}
	start := 0
	if state != nil {
		for i, ch := range channelRotation {
			if ch == state.LastChannel {
				start = i + 1
			}
		}
	}
	out := make([]string, 0, len(channelRotation))
	for i := range channelRotation {
		out = append(out, channelRotation[(start+i)%len(channelRotation)])
	}
	return out
}

// nextAllowed returns when the cadence allows the next touch of a lead:
// min_touch_gap_hours after its last touch and after its last skip (zero:
// at once).
func nextAllowed(cfg *store.SDRConfig, state *store.SDRLead) time.Time {
	var at time.Time
	if state == nil {
		return at
	}
	gap := time.Duration(cfg.MinTouchGapHours) * time.Hour
	for _, t := range []*time.Time{state.LastTouchAt, state.SkippedAt} {
		if t != nil && t.Add(gap).After(at) {
			at = t.Add(gap)
		}
	}
	return at
}

// evaluate returns lead l as the pipeline sees it now: its segment, score,
// next action and when the cadence allows it.
func (c *sdrCtx) evaluate(l *store.Lead) sdrEval {
	state := c.tx.SDRLeads[l.ID]
	r := c.reachOf(l)
	e := sdrEval{lead: l, state: state, segment: c.segmentOf(l, state, r), next: actionNone}
	e.score = min(100, (l.Score*6+5)/10+segmentUrgency[e.segment])
	var manual string
	for _, ch := range nextChannels(e.segment, state) {
		if !r.has(ch) {
			continue
		}
		if autoOn(c.cfg, ch) {
			e.next = ch
			break
		}
		if manual == "" {
			manual = ch
		}
	}
	if e.next == actionNone && manual != "" {
		e.next = manual
	}
	if e.next != actionNone {
		e.nextAt = nextAllowed(c.cfg, state)
		e.actionable = !e.paused() && !c.now.Before(e.nextAt)
	}
	return e
}

// evalBefore is the pipeline's order: score, highest first, then the
// newest lead first.
func evalBefore(a, b *sdrEval) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	return a.lead.CreatedAt.After(b.lead.CreatedAt)
}

// topEvals keeps the first k evaluations in pipeline order: a heap whose
// root is the last kept, so n evaluations cost O(n log k).
type topEvals struct {
	k     int
	items []sdrEval
}

func (t *topEvals) Len() int           { return len(t.items) }
func (t *topEvals) Less(i, j int) bool { return evalBefore(&t.items[j], &t.items[i]) }
func (t *topEvals) Swap(i, j int)      { t.items[i], t.items[j] = t.items[j], t.items[i] }
func (t *topEvals) Push(x any)         { t.items = append(t.items, x.(sdrEval)) }
func (t *topEvals) Pop() any {
	last := t.items[len(t.items)-1]
	t.items = t.items[:len(t.items)-1]
	return last
}

// offer keeps e if it is among the first k so far.
func (t *topEvals) offer(e sdrEval) {
	if len(t.items) < t.k {
		heap.Push(t, e)
		return
	}
	if t.k > 0 && evalBefore(&e, &t.items[0]) {
		t.items[0] = e
		heap.Fix(t, 0)
	}
}

// sorted returns the kept evaluations in pipeline order.
func (t *topEvals) sorted() []sdrEval {
	out := make([]sdrEval, len(t.items))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(t).(sdrEval)
	}
	return out
}

// inBusinessHours reports whether now is within the configured hours in
// the business's time zone: [start, end) when start < end, overnight
// (from start, or before end) when start > end, all day when equal.
func inBusinessHours(cfg *store.SDRConfig, b *store.Business, now time.Time) bool {
	h := now.In(telephony.BusinessLocation(b)).Hour()
	switch {
	case cfg.HoursStart < cfg.HoursEnd:
		return h >= cfg.HoursStart && h < cfg.HoursEnd
	case cfg.HoursStart > cfg.HoursEnd:
		return h >= cfg.HoursStart || h < cfg.HoursEnd
	}
	return true
}
