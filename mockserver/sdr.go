package mockserver

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// The outbound-sales pipeline (spec section 4) under /api/sdr: bearer keys
// with sdr:read or sdr:write, or a dashboard session.
func (s *Server) sdrRoutes() []*route {
	sdr := func(method, path, sc, schema string, h func(*reqCtx) (any, error)) *route {
		return &route{method: method, path: apiPrefix + "/sdr" + path, auth: authKeyOrSession, scope: scope(sc), schema: schema, handle: h}
	}
	return []*route{
		sdr(http.MethodGet, "/config", "sdr:read", "", s.getSDRConfig),
		sdr(http.MethodPut, "/config", "sdr:write", "sdrConfigUpsert", s.putSDRConfig),
		sdr(http.MethodGet, "/pipeline", "sdr:read", "", s.getSDRPipeline),
		sdr(http.MethodPost, "/action", "sdr:write", "sdrAction", s.postSDRAction),
		sdr(http.MethodPost, "/run", "sdr:write", "sdrRun", s.postSDRRun),
		sdr(http.MethodGet, "/report", "sdr:read", "", s.getSDRReport),
		sdr(http.MethodGet, "/activity", "sdr:read", "", s.getSDRActivity),
		// The scheduled runner: only the platform's internal secret opens it.
		{method: http.MethodPost, path: apiPrefix + "/sdr/cron", auth: authNone, handle: s.postSDRCron},
		{method: http.MethodPost, path: adminPrefix + "/sdr/cron", auth: authAdmin, lock: lockWrite, handle: s.adminSDRCron},
	}
}

// sdrBusiness reads the businessId query parameter: required (400
// bad_request), a business the caller reaches (404 unknown, 403 another's).
func sdrBusiness(rc *reqCtx) (*store.Business, error) {
	id, err := rc.requireQuery("businessId")
	if err != nil {
		return nil, err
	}
	return rc.business(id)
}

// sdrCtxFor is the evaluation context of a business now.
func sdrCtxFor(rc *reqCtx, b *store.Business) *sdrCtx {
	return newSDRCtx(rc.st, rc.now, b, sdrConfigOf(rc.st, b.ID))
}

func sdrConfigView(st *store.Store, c *store.SDRConfig) map[string]any {
	_, stored := st.SDRConfigs[c.BusinessID]
	v := map[string]any{
		"businessId":            c.BusinessID,
		"enabled":               c.Enabled,
		"min_touch_gap_hours":   c.MinTouchGapHours,
		"max_touches":           c.MaxTouches,
		"auto_call":             c.AutoCall,
		"auto_email":            c.AutoEmail,
		"auto_sms":              c.AutoSMS,
		"sdr_agent_id":          nullable(c.SDRAgentID),
		"business_hours_start":  c.HoursStart,
		"business_hours_end":    c.HoursEnd,
		"email_from_account_id": nullable(c.EmailFromAccountID),
		"configured":            stored,
		"next_run_at":           c.NextRunAt,
		"last_run_at":           c.LastRunAt,
		"last_run_trigger":      nullable(c.LastRunTrigger),
		"created_at":            nil,
		"updated_at":            nil,
	}
	if b, ok := st.Businesses.Get(c.BusinessID); ok {
		v["timezone"] = businessLocation(b).String()
	}
	if stored {
		v["created_at"], v["updated_at"] = c.CreatedAt, c.UpdatedAt
	}
	return v
}

func (s *Server) getSDRConfig(rc *reqCtx) (any, error) {
	b, err := sdrBusiness(rc)
	if err != nil {
		return nil, err
	}
	return sdrConfigView(rc.st, sdrConfigOf(rc.st, b.ID)), nil
}

// sdrConfigBody is PUT /sdr/config: absent fields keep their value.
type sdrConfigBody struct {
	BusinessID         string  `json:"businessId"`
	Enabled            *bool   `json:"enabled"`
	MinTouchGapHours   *int    `json:"min_touch_gap_hours"`
	MaxTouches         *int    `json:"max_touches"`
	AutoCall           *bool   `json:"auto_call"`
	AutoEmail          *bool   `json:"auto_email"`
	AutoSMS            *bool   `json:"auto_sms"`
	SDRAgentID         *string `json:"sdr_agent_id"`
	HoursStart         *int    `json:"business_hours_start"`
	HoursEnd           *int    `json:"business_hours_end"`
	EmailFromAccountID *string `json:"email_from_account_id"`
}

func (s *Server) putSDRConfig(rc *reqCtx) (any, error) {
	var body sdrConfigBody
	if err := rc.decode(&body); err != nil {
		return nil, err
	}
	b, err := rc.business(body.BusinessID)
	if err != nil {
		return nil, err
	}
	if body.SDRAgentID != nil && *body.SDRAgentID != "" {
		if a, ok := rc.st.Agents.Get(*body.SDRAgentID); !ok || a.Owner != b.ID {
			return nil, errInvalidField("/sdr_agent_id", "must be an agent of business %s", b.ID)
		}
	}
	cfg, stored := rc.st.SDRConfigs[b.ID]
	if !stored {
		cfg = sdrConfigOf(rc.st, b.ID)
		cfg.CreatedAt = rc.now.UTC()
		rc.st.SDRConfigs[b.ID] = cfg
	}
	wasEnabled := cfg.Enabled
	set(&cfg.Enabled, body.Enabled)
	set(&cfg.MinTouchGapHours, body.MinTouchGapHours)
	set(&cfg.MaxTouches, body.MaxTouches)
	set(&cfg.AutoCall, body.AutoCall)
	set(&cfg.AutoEmail, body.AutoEmail)
	set(&cfg.AutoSMS, body.AutoSMS)
	set(&cfg.SDRAgentID, body.SDRAgentID)
	set(&cfg.HoursStart, body.HoursStart)
	set(&cfg.HoursEnd, body.HoursEnd)
	set(&cfg.EmailFromAccountID, body.EmailFromAccountID)
	cfg.UpdatedAt = later(cfg.UpdatedAt, rc.now)
	switch {
	case cfg.Enabled && !wasEnabled:
		s.startSDRRunner(cfg, rc.now)
	case !cfg.Enabled:
		cfg.NextRunAt = nil
	}
	return sdrConfigView(rc.st, cfg), nil
}

// sdrLeadView is a lead in GET /sdr/pipeline.
func sdrLeadView(e *sdrEval) map[string]any {
	l := e.lead
	v := map[string]any{
		"id": l.ID, "name": l.Name, "email": l.Email, "phone": l.Phone, "status": l.Status,
		"source": l.Source, "segment": e.segment, "score": e.score, "touch_count": e.touches(),
		"last_touch": nil, "last_channel": nil, "next_action": e.next, "next_action_at": nil,
		"actionable": e.actionable, "paused": e.paused(), "created_at": l.CreatedAt, "updated_at": l.UpdatedAt,
	}
	if e.state != nil && e.state.LastTouchAt != nil {
		v["last_touch"] = e.state.LastTouchAt
		v["last_channel"] = nullable(e.state.LastChannel)
	}
	if !e.nextAt.IsZero() {
		v["next_action_at"] = e.nextAt
	}
	return v
}

func (s *Server) getSDRPipeline(rc *reqCtx) (any, error) {
	b, err := sdrBusiness(rc)
	if err != nil {
		return nil, err
	}
	only, filtered := parseSegment(rc.query("segment"))
	if !filtered && rc.query("segment") != "" {
		return nil, errInvalidField("segment", "must be one of %s", strings.Join(segmentNames[:], ", "))
	}
	limit, err := rc.intQuery("limit", 100, 1, 1000)
	if err != nil {
		return nil, err
	}
	c := sdrCtxFor(rc, b)
	var counts segmentCounts
	actionable := 0
	top := &topEvals{k: limit}
	leads := rc.st.Leads.Owned(b.ID)
	for _, l := range leads {
		e := c.evaluate(l)
		counts[e.segment]++
		if e.actionable {
			actionable++
		}
		if !filtered || e.segment == only {
			top.offer(e)
		}
	}
	kept := top.sorted()
	items := make([]map[string]any, len(kept))
	for i := range kept {
		items[i] = sdrLeadView(&kept[i])
	}
	return map[string]any{
		"businessId": b.ID,
		"enabled":    c.cfg.Enabled,
		"summary": map[string]any{
			"total_leads": len(leads), "actionable": actionable, "needs_manual": counts[segManualReview],
			"segments": counts.view(),
		},
		"leads": items,
	}, nil
}

// sdrOutcome is what one dispatch (or its dry-run prediction) gave.
type sdrOutcome struct {
	detail                     string
	callID, messageID, emailID string
	err                        *apiError // nil: success
}

// sdrAgent is the agent the pipeline calls and texts from: sdr_agent_id
// when it is an agent of the business, else the business's oldest agent.
func sdrAgent(st *store.Store, cfg *store.SDRConfig, businessID string) *store.Agent {
	if a, ok := st.Agents.Get(cfg.SDRAgentID); ok && a.Owner == businessID {
		return a
	}
	if agents := st.Agents.Owned(businessID); len(agents) > 0 {
		return agents[0]
	}
	return nil
}

// sdrTextAgent is the agent the pipeline texts from: the SDR agent when
// it has a number (or a messaging service), else the agent of the
// business's first number.
func sdrTextAgent(st *store.Store, cfg *store.SDRConfig, businessID string) *store.Agent {
	a := sdrAgent(st, cfg, businessID)
	if a == nil || a.PhoneNumber != "" {
		return a
	}
	if sid, _ := a.Metadata[messagingServiceKey].(string); sid != "" {
		return a
	}
	for _, n := range st.Numbers.Owned(businessID) {
		if owner, ok := st.Agents.Get(n.AgentID); ok {
			return owner
		}
	}
	return a
}

// sdrLines are what the pipeline's texts and emails say, per segment.
var sdrLines = [numSegments]string{
	segSpeedToLead:      "Thanks for reaching out! When is a good time for a quick call?",
	segFreshDemoCaller:  "Thanks for calling us. Do you have a minute to talk about what you need?",
	segWarmDemoCaller:   "Following up on your call: can we help you get started?",
	segCoolingDemo:      "We haven't heard from you in a while. Are you still looking for help?",
	segNewTrialStuck:    "Welcome to your trial! Can we help you set things up?",
	segTrialGoingDark:   "We noticed your trial has been quiet. Anything we can help with?",
	segTrialEnding:      "Your trial ends soon. Would you like help choosing a plan?",
	segContactedNoReply: "Just checking in on our last message. Is now a better time?",
	segChurnedRecent:    "We'd love to have you back. Can we answer any questions?",
}

// sdrGreeting is "Hi <first name>," or "Hi there,".
func sdrGreeting(l *store.Lead) string {
	switch {
	case l.FirstName != nil && *l.FirstName != "":
		return "Hi " + *l.FirstName + ","
	case l.Name != nil && *l.Name != "":
		return "Hi " + strings.Fields(*l.Name)[0] + ","
	}
	return "Hi there,"
}

func sdrLine(seg segment) string {
	return firstNonEmpty(sdrLines[seg], "Just checking in. Is there anything we can help with?")
}

// magicEmailFailsDomain: SDR emails to addresses at this domain bounce
// (lead_email.failed).
const magicEmailFailsDomain = "@email-fails.example"

// defaultSDRFrom is the sender of SDR emails without email_from_account_id.
const defaultSDRFrom = "sdr@voiceagent.example"

// sdrTouch dispatches one touch of a lead on a channel, or, in a dry run,
// predicts its outcome with the same checks and changes nothing. The
// caller holds the write lock (the read lock is enough for a dry run).
func (s *Server) sdrTouch(c *sdrCtx, l *store.Lead, channel string, seg segment, dry bool) sdrOutcome {
	switch channel {
	case store.SDRCall:
		return s.sdrCall(c, l, seg, dry)
	case store.SDRSMS:
		return s.sdrSMS(c, l, seg, dry)
	}
	return s.sdrEmail(c, l, seg, dry)
}

func (s *Server) sdrCall(c *sdrCtx, l *store.Lead, seg segment, dry bool) sdrOutcome {
	to := *l.Phone
	if c.st.OnDNC(l.Owner, to) {
		return sdrOutcome{err: newError(http.StatusBadRequest, codeNumberOnDNC, to+" is on the do-not-call list")}
	}
	a := sdrAgent(c.st, c.cfg, l.Owner)
	if a == nil {
		return sdrOutcome{err: errNotFound("the business has no agent to call from")}
	}
	if dry {
		if to == magicCallFailed {
			return sdrOutcome{err: errMagicCallFailed(to)}
		}
		return sdrOutcome{detail: fmt.Sprintf("would call %s from agent %s", to, a.Name)}
	}
	call, apiErr := s.placeOutboundCall(c.st, c.now, outboundCall{
		agent: a, to: to, lead: l, context: "Outbound sales follow-up (" + seg.String() + ")",
	})
	if apiErr != nil {
		return sdrOutcome{err: apiErr}
	}
	return sdrOutcome{detail: fmt.Sprintf("call %s queued to %s from agent %s", call.ID, to, a.Name), callID: call.ID}
}

func (s *Server) sdrSMS(c *sdrCtx, l *store.Lead, seg segment, dry bool) sdrOutcome {
	a := sdrTextAgent(c.st, c.cfg, l.Owner)
	if a == nil {
		return sdrOutcome{err: errNotFound("the business has no agent to text from")}
	}
	req := smsRequest{agent: a, to: *l.Phone, lead: l,
		body: sdrGreeting(l) + " it's " + c.b.Name + ". " + sdrLine(seg) + " Reply STOP to opt out."}
	if dry {
		if _, apiErr := smsPrecheck(c.st, c.now, req); apiErr != nil {
			return sdrOutcome{err: apiErr}
		}
		if req.to == magicSMSSendFails {
			return sdrOutcome{err: errCarrierRejected(req.to)}
		}
		return sdrOutcome{detail: "would text " + req.to}
	}
	m, apiErr := s.sendSMS(c.st, c.now, req)
	out := sdrOutcome{err: apiErr}
	if m != nil {
		out.messageID = m.ID
		out.detail = "text " + m.MessageSID + " sent to " + m.To
	}
	return out
}

func (s *Server) sdrEmail(c *sdrCtx, l *store.Lead, seg segment, dry bool) sdrOutcome {
	to := *l.Email
	if dry {
		return sdrOutcome{detail: "would email " + to}
	}
	m := &store.SDRMail{
		LeadID: l.ID, To: to, From: firstNonEmpty(c.cfg.EmailFromAccountID, defaultSDRFrom),
		Subject: "Following up from " + c.b.Name,
		Body:    sdrGreeting(l) + "\n\n" + sdrLine(seg) + "\n\n" + c.b.Name,
		Status:  store.SDREmailQueued,
	}
	m.ID = s.ids.uuid()
	m.Owner = l.Owner
	m.CreatedAt = c.st.SDRMails.Stamp(c.now)
	c.st.SDRMails.Put(m)
	id := m.ID
	s.schedule(c.now.Add(sdrEmailDelay), func(now time.Time) { s.sendSDRMail(s.st, now, id) })
	return sdrOutcome{detail: "email " + m.ID + " queued to " + to, emailID: m.ID}
}

// sendSDRMail sends a queued SDR email: to the outbox (lead_email.sent; a
// new lead becomes contacted), or, at the magic failing domain, it bounces
// (lead_email.failed). The caller holds the write lock.
func (s *Server) sendSDRMail(st *store.Store, now time.Time, id string) {
	m, ok := st.SDRMails.Get(id)
	if !ok || m.Status != store.SDREmailQueued {
		return
	}
	if strings.HasSuffix(strings.ToLower(m.To), magicEmailFailsDomain) {
		m.Status, m.Error = store.SDREmailFailed, "bounced: the recipient's mail server rejected the message"
		s.emit(st, m.Owner, "lead_email.failed", now, sdrMailView(m))
		return
	}
	at := now.UTC()
	m.Status, m.SentAt = store.SDREmailSent, &at
	s.sendOutbox(st, now, store.OutboxMessage{Channel: "email", To: m.To, From: m.From, Subject: m.Subject, Body: m.Body})
	if l, ok := st.Leads.Get(m.LeadID); ok && l.Status == store.LeadNew {
		l.Status = store.LeadContacted
		l.UpdatedAt = later(l.UpdatedAt, now)
		s.rescore(st, now, l)
	}
	s.emit(st, m.Owner, "lead_email.sent", now, sdrMailView(m))
}

// sdrMailView is an SDR email as lead_email.* events show it.
func sdrMailView(m *store.SDRMail) map[string]any {
	return map[string]any{
		"id": m.ID, "lead_id": m.LeadID, "business_id": m.Owner, "to": m.To, "from": m.From,
		"subject": m.Subject, "body": m.Body, "status": m.Status, "error": nullable(m.Error),
		"created_at": m.CreatedAt, "sent_at": m.SentAt,
	}
}

// logSDR records one entry of the activity log.
func (s *Server) logSDR(st *store.Store, now time.Time, l *store.Lead, action, trigger string, seg segment, out sdrOutcome) *store.SDRActivity {
	a := &store.SDRActivity{
		LeadID: l.ID, Action: action, Trigger: trigger, Success: out.err == nil, Detail: out.detail,
		CallID: out.callID, MessageID: out.messageID, EmailID: out.emailID, Segment: seg.String(),
	}
	if out.err != nil {
		a.Detail = out.err.code + ": " + out.err.message
		if out.detail != "" {
			a.Detail = out.detail + ": " + a.Detail
		}
	}
	a.ID = s.ids.uuid()
	a.Owner = l.Owner
	a.CreatedAt = st.SDRActivity.Stamp(now)
	st.SDRActivity.Put(a)
	return a
}

// recordTouch counts a dispatched touch on the lead's pipeline state.
func recordTouch(st *store.Store, now time.Time, l *store.Lead, channel string) *store.SDRLead {
	state := st.SDRLeadState(l.ID, true)
	at := now.UTC()
	state.TouchCount++
	state.LastTouchAt = &at
	state.LastChannel = channel
	state.EscalatedAt = nil
	return state
}

// errCadence is the 429 of a touch the cadence refuses.
func errCadence(msg string, next *time.Time, now time.Time) *apiError {
	e := newError(http.StatusTooManyRequests, codeRateLimited, msg)
	// Never retried by the SDK: the wait is on the simulated clock, which a
	// retry in real time would not move.
	e.header = http.Header{headerShouldRetry: {"false"}}
	if next != nil {
		e.with("nextAllowedAt", next.UTC())
		secs := int((next.Sub(now) + time.Second - 1) / time.Second)
		e.header.Set("Retry-After", strconv.Itoa(max(secs, 1)))
	}
	return e
}

type sdrActionBody struct {
	BusinessID string `json:"businessId"`
	LeadID     string `json:"leadId"`
	Action     string `json:"action"`
}

func (s *Server) postSDRAction(rc *reqCtx) (any, error) {
	var body sdrActionBody
	if err := rc.decode(&body); err != nil {
		return nil, err
	}
	b, err := rc.business(body.BusinessID)
	if err != nil {
		return nil, err
	}
	l, ok := rc.st.Leads.Get(body.LeadID)
	if !ok || l.Owner != b.ID {
		return nil, errNotFound("lead not found in business " + b.ID + ": " + body.LeadID)
	}
	c := sdrCtxFor(rc, b)
	e := c.evaluate(l)
	out := sdrOutcome{}
	switch body.Action {
	case store.SDRPause, store.SDRResume:
		state := rc.st.SDRLeadState(l.ID, true)
		state.Paused = body.Action == store.SDRPause
		out.detail = "automated touches paused"
		if !state.Paused {
			out.detail = "automated touches resumed"
		}
	case store.SDRSkip:
		state := rc.st.SDRLeadState(l.ID, true)
		at := rc.now.UTC()
		state.SkippedAt = &at
		out.detail = fmt.Sprintf("skipped: no touch for %d hours", c.cfg.MinTouchGapHours)
	default:
		if err := checkTouch(c, &e, body.Action); err != nil {
			return nil, err
		}
		out = s.sdrTouch(c, l, body.Action, e.segment, false)
		if out.err == nil {
			recordTouch(rc.st, rc.now, l, body.Action)
		}
	}
	act := s.logSDR(rc.st, rc.now, l, body.Action, store.SDRTriggerManual, e.segment, out)
	if out.err != nil {
		return nil, out.err
	}
	after := c.evaluate(l)
	v := map[string]any{
		"success": true, "action": body.Action, "leadId": l.ID, "detail": out.detail,
		"activityId": act.ID, "segment": after.segment, "touch_count": after.touches(),
	}
	for k, id := range map[string]string{"callId": out.callID, "messageId": out.messageID, "emailId": out.emailID} {
		if id != "" {
			v[k] = id
		}
	}
	return v, nil
}

// checkTouch is what a manual touch must pass before it is dispatched: a
// lead whose status allows contact, max_touches (429 without
// nextAllowedAt), min_touch_gap_hours (429 with nextAllowedAt), and the
// contact detail the channel needs (400).
func checkTouch(c *sdrCtx, e *sdrEval, channel string) *apiError {
	l := e.lead
	if l.Status == store.LeadDoNotContact {
		return newError(http.StatusBadRequest, codeNumberOnDNC, "the lead's status is do_not_contact")
	}
	if n := e.touches(); n >= c.cfg.MaxTouches {
		return errCadence(fmt.Sprintf("the lead has had %d touches, the configured max_touches is %d", n, c.cfg.MaxTouches), nil, c.now).
			with("max_touches", c.cfg.MaxTouches).with("touch_count", n)
	}
	if next := nextAllowed(c.cfg, e.state); c.now.Before(next) {
		return errCadence(fmt.Sprintf("min_touch_gap_hours is %d: the next touch of this lead is allowed at %s",
			c.cfg.MinTouchGapHours, next.UTC().Format(time.RFC3339)), &next, c.now)
	}
	switch channel {
	case store.SDRCall, store.SDRSMS:
		if l.Phone == nil || *l.Phone == "" {
			return errInvalidField("action", "the lead has no phone number to %s", map[string]string{store.SDRCall: "call", store.SDRSMS: "text"}[channel])
		}
	case store.SDREmail:
		if l.Email == nil || *l.Email == "" {
			return errInvalidField("action", "the lead has no email address")
		}
	}
	return nil
}

type sdrRunBody struct {
	BusinessID string `json:"businessId"`
	DryRun     bool   `json:"dryRun"`
}

func (s *Server) postSDRRun(rc *reqCtx) (any, error) {
	var body sdrRunBody
	if err := rc.decode(&body); err != nil {
		return nil, err
	}
	b, err := rc.business(body.BusinessID)
	if err != nil {
		return nil, err
	}
	c := sdrCtxFor(rc, b)
	if !c.cfg.Enabled {
		return nil, newError(http.StatusBadRequest, codeBadRequest,
			"SDR is not enabled for business "+b.ID+": PUT /sdr/config with enabled true first")
	}
	return s.runSDR(c, store.SDRTriggerRun, body.DryRun), nil
}

// sdrRunSummary counts what a run did.
type sdrRunSummary struct {
	CallsQueued  int `json:"calls_queued"`
	EmailsQueued int `json:"emails_queued"`
	SMSSent      int `json:"sms_sent"`
	Escalated    int `json:"escalated"`
	Failed       int `json:"failed"`
}

// sdrRunItem is one lead a run acted on.
type sdrRunItem struct {
	Success bool    `json:"success"`
	Action  string  `json:"action"`
	LeadID  string  `json:"leadId"`
	Detail  string  `json:"detail"`
	Segment segment `json:"segment"`
}

// sdrRunError is one failed dispatch of a run.
type sdrRunError struct {
	LeadID  string `json:"leadId"`
	Action  string `json:"action"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// sdrRunResult is the answer of POST /sdr/run.
type sdrRunResult struct {
	Success         bool           `json:"success"`
	BusinessID      string         `json:"businessId"`
	DryRun          bool           `json:"dryRun"`
	Trigger         string         `json:"trigger"`
	InBusinessHours bool           `json:"in_business_hours"`
	Summary         sdrRunSummary  `json:"summary"`
	Results         []sdrRunItem   `json:"results"`
	Skipped         int            `json:"skipped"`
	SkippedBy       map[string]int `json:"skipped_by_reason"`
	Errors          []sdrRunError  `json:"errors"`
}

// Reasons a run skips a lead with a next action.
const (
	skipPaused     = "paused"
	skipCadence    = "cadence"
	skipChannelOff = "channel_off"
	skipOutOfHours = "outside_business_hours"
	skipRunLimit   = "run_limit"
	skipQuietHours = "sms_quiet_hours"
)

// runSDR runs the pipeline of one business once: escalations first, then
// every lead with a next action in pipeline order (see the package
// documentation). A dry run computes the same plan and changes nothing.
// The caller holds the write lock (a dry run reads only).
func (s *Server) runSDR(c *sdrCtx, trigger string, dry bool) *sdrRunResult {
	res := &sdrRunResult{
		Success: true, BusinessID: c.b.ID, DryRun: dry, Trigger: trigger,
		InBusinessHours: inBusinessHours(c.cfg, c.b, c.now),
		Results:         []sdrRunItem{}, Errors: []sdrRunError{},
		SkippedBy: map[string]int{skipPaused: 0, skipCadence: 0, skipChannelOff: 0, skipOutOfHours: 0, skipRunLimit: 0, skipQuietHours: 0},
	}
	var cands []sdrEval
	for _, l := range c.st.Leads.Owned(c.b.ID) {
		e := c.evaluate(l)
		if e.segment != segManualReview && e.state != nil && e.state.EscalatedAt != nil && !dry {
			e.state.EscalatedAt = nil // left manual review: a later return counts again
		}
		if e.segment == segManualReview || e.next != actionNone {
			cands = append(cands, e)
		}
	}
	slices.SortFunc(cands, func(a, b sdrEval) int {
		switch {
		case evalBefore(&a, &b):
			return -1
		case evalBefore(&b, &a):
			return 1
		}
		return 0
	})
	dispatched := 0
	for i := range cands {
		e := &cands[i]
		l := e.lead
		if e.segment == segManualReview {
			if e.state != nil && e.state.EscalatedAt != nil {
				continue
			}
			res.Summary.Escalated++
			item := sdrRunItem{Success: true, Action: store.SDREscalate, LeadID: l.ID, Segment: e.segment,
				Detail: "no phone that may be called and no email: put on manual review"}
			res.Results = append(res.Results, item)
			if !dry {
				at := c.now.UTC()
				c.st.SDRLeadState(l.ID, true).EscalatedAt = &at
				s.logSDR(c.st, c.now, l, store.SDREscalate, trigger, e.segment, sdrOutcome{detail: item.Detail})
			}
			continue
		}
		reason := ""
		switch {
		case e.paused():
			reason = skipPaused
		case !e.actionable:
			reason = skipCadence
		case !autoOn(c.cfg, e.next):
			reason = skipChannelOff
		case !res.InBusinessHours:
			reason = skipOutOfHours
		case dispatched >= maxDispatchesPerRun:
			reason = skipRunLimit
		case e.next == store.SDRSMS && smsQuietHours(c, *l.Phone):
			reason = skipQuietHours
		}
		if reason != "" {
			res.Skipped++
			res.SkippedBy[reason]++
			continue
		}
		dispatched++
		out := s.sdrTouch(c, l, e.next, e.segment, dry)
		item := sdrRunItem{Success: out.err == nil, Action: e.next, LeadID: l.ID, Detail: out.detail, Segment: e.segment}
		if out.err != nil {
			res.Summary.Failed++
			item.Detail = out.err.message
			res.Errors = append(res.Errors, sdrRunError{LeadID: l.ID, Action: e.next, Code: out.err.code, Message: out.err.message})
		} else {
			switch e.next {
			case store.SDRCall:
				res.Summary.CallsQueued++
			case store.SDREmail:
				res.Summary.EmailsQueued++
			case store.SDRSMS:
				res.Summary.SMSSent++
			}
		}
		res.Results = append(res.Results, item)
		if !dry {
			if out.err == nil {
				recordTouch(c.st, c.now, l, e.next)
			}
			s.logSDR(c.st, c.now, l, e.next, trigger, e.segment, out)
		}
	}
	if !dry {
		at := c.now.UTC()
		c.cfg.LastRunAt, c.cfg.LastRunTrigger = &at, trigger
	}
	return res
}

// smsQuietHours reports whether a text to the number would fall in the
// recipient's quiet hours now (a run waits rather than fail).
func smsQuietHours(c *sdrCtx, to string) bool {
	if strings.HasPrefix(to, "+1500555") {
		return false // magic numbers answer as documented whatever the time
	}
	h := c.now.In(recipientLocation(to, c.b)).Hour()
	return h < quietHoursEnd || h >= quietHoursStart
}

// sdrPeriodStart is where a report period starts: today is since midnight
// in the business's time zone, week the last 7 days, month the last 30.
func sdrPeriodStart(period string, now time.Time, b *store.Business) (time.Time, bool) {
	switch period {
	case "today":
		local := now.In(businessLocation(b))
		return time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, local.Location()).UTC(), true
	case "week", "":
		return now.Add(-7 * day), true
	case "month":
		return now.Add(-30 * day), true
	}
	return time.Time{}, false
}

func (s *Server) getSDRReport(rc *reqCtx) (any, error) {
	b, err := sdrBusiness(rc)
	if err != nil {
		return nil, err
	}
	period := firstNonEmpty(rc.query("period"), "week")
	since, ok := sdrPeriodStart(period, rc.now, b)
	if !ok {
		return nil, errInvalidField("period", "must be today, week or month")
	}
	actions := map[string]int{}
	for _, a := range []string{store.SDRCall, store.SDREmail, store.SDRSMS, store.SDRSkip, store.SDRPause, store.SDRResume, store.SDREscalate} {
		actions[a] = 0
	}
	outcomes := map[string]int{}
	for _, o := range sdrOutcomeKeys {
		outcomes[o] = 0
	}
	rc.st.SDRActivity.Scan([]string{b.ID}, zeroTime, func(a *store.SDRActivity) bool {
		if a.CreatedAt.Before(since) {
			return false
		}
		actions[a.Action]++
		if o := sdrActivityOutcome(rc.st, a); o != "" {
			outcomes[o]++
		}
		return true
	})
	newLeads := 0
	rc.st.Leads.Scan([]string{b.ID}, zeroTime, func(l *store.Lead) bool {
		if l.CreatedAt.Before(since) {
			return false
		}
		newLeads++
		return true
	})
	c := sdrCtxFor(rc, b)
	var segments segmentCounts
	for _, l := range rc.st.Leads.Owned(b.ID) {
		segments[c.segmentOf(l, rc.st.SDRLeads[l.ID], c.reachOf(l))]++
	}
	hot := 0
	for _, seg := range hotSegments {
		hot += segments[seg]
	}
	return map[string]any{
		"businessId": b.ID, "period": period, "since": since, "until": rc.now.UTC(),
		"actions": actions, "outcomes": outcomes, "new_leads": newLeads,
		"hot_leads": hot, "stale_leads": segments[segManualReview], "segments": segments.view(),
	}, nil
}

// sdrOutcomeKeys are the outcome counts of the report.
var sdrOutcomeKeys = []string{
	"call_pending", "call_completed", "call_failed", "sms_sent", "sms_delivered", "sms_failed",
	"email_queued", "email_sent", "email_failed", "refused",
}

// sdrActivityOutcome is the outcome of one logged touch now: the state of
// the call, text or email it dispatched, or "refused" when the dispatch
// failed; "" for entries that are not touches.
func sdrActivityOutcome(st *store.Store, a *store.SDRActivity) string {
	switch a.Action {
	case store.SDRCall, store.SDRSMS, store.SDREmail:
	default:
		return ""
	}
	if !a.Success && a.MessageID == "" {
		return "refused"
	}
	switch {
	case a.CallID != "":
		c, ok := st.Calls.Get(a.CallID)
		switch {
		case !ok:
			return ""
		case c.Status == store.CallCompleted:
			return "call_completed"
		case c.Status == store.CallFailed:
			return "call_failed"
		}
		return "call_pending"
	case a.MessageID != "":
		if m, ok := st.SMSMessages.Get(a.MessageID); ok {
			return "sms_" + m.Status
		}
	case a.EmailID != "":
		if m, ok := st.SDRMails.Get(a.EmailID); ok {
			return "email_" + m.Status
		}
	}
	return ""
}

func sdrActivityView(a *store.SDRActivity) map[string]any {
	return map[string]any{
		"id": a.ID, "leadId": a.LeadID, "action": a.Action, "trigger": a.Trigger, "success": a.Success,
		"detail": a.Detail, "segment": nullable(a.Segment), "callId": nullable(a.CallID),
		"messageId": nullable(a.MessageID), "emailId": nullable(a.EmailID), "created_at": a.CreatedAt,
	}
}

func (s *Server) getSDRActivity(rc *reqCtx) (any, error) {
	b, err := sdrBusiness(rc)
	if err != nil {
		return nil, err
	}
	limit, err := rc.intQuery("limit", 50, 1, 200)
	if err != nil {
		return nil, err
	}
	leadID := rc.query("leadId")
	if leadID != "" {
		if l, ok := rc.st.Leads.Get(leadID); !ok || l.Owner != b.ID {
			return nil, errNotFound("lead not found in business " + b.ID + ": " + leadID)
		}
	}
	items, more := listPage(rc.st.SDRActivity, []string{b.ID}, pageQuery{limit: limit},
		func(a *store.SDRActivity) bool { return leadID == "" || a.LeadID == leadID }, sdrActivityView)
	return map[string]any{"businessId": b.ID, "activity": items, "has_more": more}, nil
}

// startSDRRunner starts the scheduled runner of a business whose SDR was
// just enabled: a run every two hours of the clock from now, while the
// configuration stays enabled (disabling stops it; enabling again starts a
// new one). The caller holds the write lock.
func (s *Server) startSDRRunner(cfg *store.SDRConfig, now time.Time) {
	cfg.RunnerGen++
	gen, businessID := cfg.RunnerGen, cfg.BusinessID
	var tick func(now time.Time)
	schedule := func(at time.Time) {
		next := at.UTC()
		cfg.NextRunAt = &next
		s.schedule(at, tick)
	}
	tick = func(now time.Time) {
		cur, ok := s.st.SDRConfigs[businessID]
		if !ok || cur != cfg || !cfg.Enabled || cfg.RunnerGen != gen {
			return
		}
		if b, ok := s.st.Businesses.Get(businessID); ok {
			s.runSDR(newSDRCtx(s.st, now, b, cfg), store.SDRTriggerScheduled, false)
		}
		schedule(now.Add(sdrRunnerInterval))
	}
	schedule(now.Add(sdrRunnerInterval))
}

// runScheduledAll runs the pipeline of every enabled business now, as the
// scheduled runner does, in business id order. The caller holds the write
// lock.
func (s *Server) runScheduledAll(st *store.Store, now time.Time) []*sdrRunResult {
	ids := make([]string, 0, len(st.SDRConfigs))
	for id, cfg := range st.SDRConfigs {
		if cfg.Enabled {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	out := make([]*sdrRunResult, 0, len(ids))
	for _, id := range ids {
		if b, ok := st.Businesses.Get(id); ok {
			out = append(out, s.runSDR(newSDRCtx(st, now, b, st.SDRConfigs[id]), store.SDRTriggerScheduled, false))
		}
	}
	return out
}

// headerCronSecret carries the scheduled runner's internal secret.
const headerCronSecret = "X-Voiceagent-Cron-Secret"

// SDRCronSecret returns the internal secret of POST /api/sdr/cron, the
// scheduled runner's route (generated once per store). Keys and sessions
// never open it.
func (s *Server) SDRCronSecret() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cronSecretLocked()
}

func (s *Server) cronSecretLocked() string {
	if s.st.SDRCronSecret == "" {
		s.st.SDRCronSecret = "cron_" + s.ids.token(24)
	}
	return s.st.SDRCronSecret
}

func (s *Server) postSDRCron(rc *reqCtx) (any, error) {
	got := rc.r.Header.Get(headerCronSecret)
	if got == "" || got != s.cronSecretLocked() {
		return nil, errUnauthorized("the scheduled runner is internal: it needs the platform's internal secret, not an API key or a session")
	}
	return map[string]any{"runs": s.runScheduledAll(rc.st, rc.now)}, nil
}

func (s *Server) adminSDRCron(rc *reqCtx) (any, error) {
	return map[string]any{"runs": s.runScheduledAll(rc.st, rc.now)}, nil
}
