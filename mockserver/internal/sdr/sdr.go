package sdr

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
	sdrapi "github.com/voiceagent/voiceagent-go/sdr"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// sdrBusiness reads the businessId query parameter: required (400
// bad_request), a business the caller has access to (404 unknown, 403 another's).
func sdrBusiness(rc *httpapi.Ctx) (*store.Business, error) {
	id, err := rc.RequireQuery("businessId")
	if err != nil {
		return nil, err
	}
	return rc.Business(id)
}

// sdrCtxFor returns the pipeline of business b at the request's time.
func sdrCtxFor(rc *httpapi.Ctx, b *store.Business) *sdrCtx {
	return newSDRCtx(rc.Tx, rc.Now, b, SDRConfigOf(rc.Tx, b.ID))
}

// SDRConfigView is an SDR configuration as the API shows it (GET and PUT
// /sdr/config): a business without a stored configuration shows the
// defaults, not configured and without created_at and updated_at.
func SDRConfigView(tx *platform.Tx, c *store.SDRConfig) *sdrapi.Config {
	_, stored := tx.SDRConfigs[c.BusinessID]
	v := &sdrapi.Config{
		BusinessID:         c.BusinessID,
		Enabled:            c.Enabled,
		MinTouchGapHours:   c.MinTouchGapHours,
		MaxTouches:         c.MaxTouches,
		AutoCall:           c.AutoCall,
		AutoEmail:          c.AutoEmail,
		AutoSMS:            c.AutoSMS,
		SDRAgentID:         val.Strp(c.SDRAgentID),
		BusinessHoursStart: c.HoursStart,
		BusinessHoursEnd:   c.HoursEnd,
		EmailFromAccountID: val.Strp(c.EmailFromAccountID),
		Configured:         stored,
		NextRunAt:          c.NextRunAt,
		LastRunAt:          c.LastRunAt,
		LastRunTrigger:     val.Strp(c.LastRunTrigger),
	}
	if b, ok := tx.Businesses.Get(c.BusinessID); ok {
		v.Timezone = telephony.BusinessLocation(b).String()
	}
	if stored {
		// Copies: the configuration's stamps change in place.
		created, updated := c.CreatedAt, c.UpdatedAt
		v.CreatedAt, v.UpdatedAt = &created, &updated
	}
	return v
}

// getSDRConfig is GET /sdr/config.
func (s *Service) getSDRConfig(rc *httpapi.Ctx) (any, error) {
	b, err := sdrBusiness(rc)
	if err != nil {
		return nil, err
	}
	return SDRConfigView(rc.Tx, SDRConfigOf(rc.Tx, b.ID)), nil
}

// ConfigPatch is PUT /sdr/config: absent fields keep their value.
type ConfigPatch struct {
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

// putSDRConfig is PUT /sdr/config.
func (s *Service) putSDRConfig(rc *httpapi.Ctx) (any, error) {
	var patch ConfigPatch
	if err := rc.Decode(&patch); err != nil {
		return nil, err
	}
	b, err := rc.Business(patch.BusinessID)
	if err != nil {
		return nil, err
	}
	cfg, apiErr := s.UpdateConfig(rc.Tx, rc.Now, b, patch)
	if apiErr != nil {
		return nil, apiErr
	}
	return SDRConfigView(rc.Tx, cfg), nil
}

// UpdateConfig applies patch to the SDR configuration of business b at
// now, storing the configuration if it was not: an upsert. Enabling starts
// the scheduled runner, disabling stops it. An sdr_agent_id that is not an
// agent of b is refused (400) and nothing changes.
func (s *Service) UpdateConfig(tx *platform.Tx, now time.Time, b *store.Business, patch ConfigPatch) (*store.SDRConfig, *domain.Error) {
	if patch.SDRAgentID != nil && *patch.SDRAgentID != "" {
		if a, ok := tx.Agents.Get(*patch.SDRAgentID); !ok || a.Owner != b.ID {
			return nil, domain.InvalidField("/sdr_agent_id", "must be an agent of business %s", b.ID)
		}
	}
	cfg, stored := tx.SDRConfigs[b.ID]
	if !stored {
		cfg = SDRConfigOf(tx, b.ID)
		cfg.CreatedAt = now.UTC()
		tx.SDRConfigs[b.ID] = cfg
	}
	wasEnabled := cfg.Enabled
	val.Set(&cfg.Enabled, patch.Enabled)
	val.Set(&cfg.MinTouchGapHours, patch.MinTouchGapHours)
	val.Set(&cfg.MaxTouches, patch.MaxTouches)
	val.Set(&cfg.AutoCall, patch.AutoCall)
	val.Set(&cfg.AutoEmail, patch.AutoEmail)
	val.Set(&cfg.AutoSMS, patch.AutoSMS)
	val.Set(&cfg.SDRAgentID, patch.SDRAgentID)
	val.Set(&cfg.HoursStart, patch.HoursStart)
	val.Set(&cfg.HoursEnd, patch.HoursEnd)
	val.Set(&cfg.EmailFromAccountID, patch.EmailFromAccountID)
	cfg.UpdatedAt = val.Later(cfg.UpdatedAt, now)
	switch {
	case cfg.Enabled && !wasEnabled:
		s.startSDRRunner(tx, cfg, now)
	case !cfg.Enabled:
		cfg.NextRunAt = nil
	}
	return cfg, nil
}

// sdrLeadView is a lead in GET /sdr/pipeline.
func sdrLeadView(e *sdrEval) sdrapi.Lead {
	l := e.lead
	v := sdrapi.Lead{
		ID: l.ID, Name: l.Name, Email: l.Email, Phone: l.Phone, Status: l.Status,
		Source: l.Source, Segment: sdrapi.Segment(e.segment.String()), Score: e.score, TouchCount: e.touches(),
		NextAction: sdrapi.Action(e.next), Actionable: e.actionable, Paused: e.paused(), CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt,
	}
	if e.state != nil && e.state.LastTouchAt != nil {
		v.LastTouch = e.state.LastTouchAt
		v.LastChannel = val.Strp(e.state.LastChannel)
	}
	if !e.nextAt.IsZero() {
		at := e.nextAt
		v.NextActionAt = &at
	}
	return v
}

// getSDRPipeline is GET /sdr/pipeline.
func (s *Service) getSDRPipeline(rc *httpapi.Ctx) (any, error) {
	b, err := sdrBusiness(rc)
	if err != nil {
		return nil, err
	}
	only, filtered := parseSegment(rc.Query("segment"))
	if !filtered && rc.Query("segment") != "" {
		return nil, domain.InvalidField("segment", "must be one of %s", strings.Join(segmentNames[:], ", "))
	}
	limit, err := rc.IntQuery("limit", 100, 1, 1000)
	if err != nil {
		return nil, err
	}
	var segments []segment
	if filtered {
		segments = []segment{only}
	}
	return sdrCtxFor(rc, b).pipeline(segments, limit), nil
}

// pipeline returns the pipeline read: the summary counts every lead of the
// business; the list keeps the first limit leads of the segments given
// (none: every segment) in pipeline order.
func (c *sdrCtx) pipeline(segments []segment, limit int) *sdrapi.Pipeline {
	var counts segmentCounts
	actionable := 0
	top := &topEvals{k: limit}
	leads := c.tx.Leads.Owned(c.b.ID)
	for _, l := range leads {
		e := c.evaluate(l)
		counts[e.segment]++
		if e.actionable {
			actionable++
		}
		if len(segments) == 0 || slices.Contains(segments, e.segment) {
			top.offer(e)
		}
	}
	kept := top.sorted()
	items := make([]sdrapi.Lead, len(kept))
	for i := range kept {
		items[i] = sdrLeadView(&kept[i])
	}
	return &sdrapi.Pipeline{
		BusinessID: c.b.ID,
		Enabled:    c.cfg.Enabled,
		Summary: sdrapi.PipelineSummary{
			TotalLeads: len(leads), Actionable: actionable, NeedsManual: counts[segManualReview],
			Segments: counts.view(),
		},
		Leads: items,
	}
}

// sdrOutcome is what one dispatch (or its dry-run prediction) gave.
type sdrOutcome struct {
	detail                     string
	callID, messageID, emailID string
	err                        *domain.Error // nil: success
}

// sdrAgent is the agent the pipeline calls and texts from: sdr_agent_id
// when it is an agent of the business, else the business's oldest agent.
func sdrAgent(tx *platform.Tx, cfg *store.SDRConfig, businessID string) *store.Agent {
	if a, ok := tx.Agents.Get(cfg.SDRAgentID); ok && a.Owner == businessID {
		return a
	}
	if agents := tx.Agents.Owned(businessID); len(agents) > 0 {
		return agents[0]
	}
	return nil
}

// sdrTextAgent is the agent the pipeline texts from: the SDR agent when
// it has a number (or a messaging service), else the agent of the
// business's first number.
func sdrTextAgent(tx *platform.Tx, cfg *store.SDRConfig, businessID string) *store.Agent {
	a := sdrAgent(tx, cfg, businessID)
	if a == nil || a.PhoneNumber != "" {
		return a
	}
	if sid, _ := a.Metadata[telephony.MessagingServiceKey].(string); sid != "" {
		return a
	}
	for _, n := range tx.Numbers.Owned(businessID) {
		if owner, ok := tx.Agents.Get(n.AgentID); ok {
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

// sdrLine is what a text or email to a lead of a segment says.
func sdrLine(seg segment) string {
	return val.FirstNonEmpty(sdrLines[seg], "Just checking in. Is there anything we can help with?")
}

// magicEmailFailsDomain: SDR emails to addresses at this domain bounce
// (lead_email.failed).
const magicEmailFailsDomain = "@email-fails.example"

// defaultSDRFrom is the sender of SDR emails without email_from_account_id.
const defaultSDRFrom = "sdr@voiceagent.example"

// sdrTouch dispatches one touch of a lead on a channel, or, in a dry run,
// predicts its outcome with the same checks and changes nothing (a read
// Tx is enough for a dry run).
func (s *Service) sdrTouch(c *sdrCtx, l *store.Lead, channel string, seg segment, dry bool) sdrOutcome {
	switch channel {
	case store.SDRCall:
		return s.sdrCall(c, l, seg, dry)
	case store.SDRSMS:
		return s.sdrSMS(c, l, seg, dry)
	}
	return s.sdrEmail(c, l, seg, dry)
}

// sdrCall places (or predicts) a call to the lead, from the SDR agent.
func (s *Service) sdrCall(c *sdrCtx, l *store.Lead, seg segment, dry bool) sdrOutcome {
	to := *l.Phone
	if c.tx.OnDNC(l.Owner, to) {
		return sdrOutcome{err: domain.New(voiceagent.CodeNumberOnDNC, to+" is on the do-not-call list")}
	}
	a := sdrAgent(c.tx, c.cfg, l.Owner)
	if a == nil {
		return sdrOutcome{err: domain.NotFound("the business has no agent to call from")}
	}
	if dry {
		if err := telephony.CallRefusal(c.tx, a, to); err != nil {
			return sdrOutcome{err: err}
		}
		return sdrOutcome{detail: fmt.Sprintf("would call %s from agent %s", to, a.Name)}
	}
	call, apiErr := s.telephony.PlaceOutboundCall(c.tx, c.now, telephony.OutboundCall{
		Agent: a, To: to, Lead: l, Context: "Outbound sales follow-up (" + seg.String() + ")",
	})
	if apiErr != nil {
		return sdrOutcome{err: apiErr}
	}
	return sdrOutcome{detail: fmt.Sprintf("call %s queued to %s from agent %s", call.ID, to, a.Name), callID: call.ID}
}

// sdrSMS sends (or predicts) a text to the lead, from the agent
// sdrTextAgent picks.
func (s *Service) sdrSMS(c *sdrCtx, l *store.Lead, seg segment, dry bool) sdrOutcome {
	a := sdrTextAgent(c.tx, c.cfg, l.Owner)
	if a == nil {
		return sdrOutcome{err: domain.NotFound("the business has no agent to text from")}
	}
	req := telephony.SMSRequest{Agent: a, To: *l.Phone, Lead: l,
		Body: sdrGreeting(l) + " it's " + c.b.Name + ". " + sdrLine(seg) + " Reply STOP to opt out."}
	if dry {
		if _, apiErr := telephony.SMSPrecheck(c.tx, c.now, req); apiErr != nil {
			return sdrOutcome{err: apiErr}
		}
		if err := telephony.TextRefusal(c.tx, a, req.To); err != nil {
			return sdrOutcome{err: err}
		}
		return sdrOutcome{detail: "would text " + req.To}
	}
	m, apiErr := s.telephony.SendSMS(c.tx, c.now, req)
	out := sdrOutcome{err: apiErr}
	if m != nil {
		out.messageID = m.ID
		out.detail = "text " + m.MessageSID + " sent to " + m.To
	}
	return out
}

// sdrEmail queues an email to the lead (sent sdrEmailDelay later by
// sendSDRMail); a dry run predicts it.
func (s *Service) sdrEmail(c *sdrCtx, l *store.Lead, seg segment, dry bool) sdrOutcome {
	to := *l.Email
	if dry {
		return sdrOutcome{detail: "would email " + to}
	}
	m := &store.SDRMail{
		LeadID: l.ID, To: to, From: val.FirstNonEmpty(c.cfg.EmailFromAccountID, defaultSDRFrom),
		Subject: "Following up from " + c.b.Name,
		Body:    sdrGreeting(l) + "\n\n" + sdrLine(seg) + "\n\n" + c.b.Name,
		Status:  store.SDREmailQueued,
	}
	c.tx.SDRMails.Insert(m, l.Owner, c.now)
	s.Schedule(c.tx.TenantOf(l.Owner), clock.Task{At: c.now.Add(sdrEmailDelay), Kind: TaskSendEmail, Subject: m.ID})
	return sdrOutcome{detail: "email " + m.ID + " queued to " + to, emailID: m.ID}
}

// sendSDRMail sends a queued SDR email: to the outbox (lead_email.sent; a
// new lead becomes contacted), or, at the magic failing domain, it bounces
// (lead_email.failed).
func (s *Service) sendSDRMail(tx *platform.Tx, now time.Time, id string) {
	m, ok := tx.SDRMails.Get(id)
	if !ok || m.Status != store.SDREmailQueued {
		return
	}
	if strings.HasSuffix(strings.ToLower(m.To), magicEmailFailsDomain) {
		m.Status, m.Error = store.SDREmailFailed, "bounced: the recipient's mail server rejected the message"
		s.Emit(tx, m.Owner, webhooks.EventLeadEmailFailed, now, sdrMailView(m))
		return
	}
	at := now.UTC()
	m.Status, m.SentAt = store.SDREmailSent, &at
	s.SendOutbox(tx, now, store.OutboxMessage{BusinessID: m.Owner, Channel: "email", To: m.To, From: m.From, Subject: m.Subject, Body: m.Body})
	if l, ok := tx.Leads.Get(m.LeadID); ok && l.Status == store.LeadNew {
		tx.Leads.Update(l, func(l *store.Lead) {
			l.Status = store.LeadContacted
			l.UpdatedAt = val.Later(l.UpdatedAt, now)
		})
		s.telephony.Rescore(tx, now, l)
	}
	s.Emit(tx, m.Owner, webhooks.EventLeadEmailSent, now, sdrMailView(m))
}

// sdrMail is an SDR email as the lead_email.sent and lead_email.failed
// events show it, members in the order of the OpenAPI document's
// LeadEmail.
type sdrMail struct {
	ID         string     `json:"id"`
	LeadID     string     `json:"lead_id"`
	BusinessID string     `json:"business_id"`
	To         string     `json:"to"`
	From       string     `json:"from"`
	Subject    string     `json:"subject"`
	Body       string     `json:"body"`
	Status     string     `json:"status"`
	Error      *string    `json:"error"`
	CreatedAt  time.Time  `json:"created_at"`
	SentAt     *time.Time `json:"sent_at"`
}

// sdrMailView is an SDR email as lead_email.* events show it. It shares
// the email's strings: the event encodes it at once, before the Tx ends.
func sdrMailView(m *store.SDRMail) sdrMail {
	return sdrMail{
		ID: m.ID, LeadID: m.LeadID, BusinessID: m.Owner, To: m.To, From: m.From,
		Subject: m.Subject, Body: m.Body, Status: m.Status, Error: val.NullIfEmpty(&m.Error),
		CreatedAt: m.CreatedAt, SentAt: m.SentAt,
	}
}

// logSDR records one entry of the activity log.
func logSDR(tx *platform.Tx, now time.Time, l *store.Lead, action, trigger string, seg segment, out sdrOutcome) *store.SDRActivity {
	a := &store.SDRActivity{
		LeadID: l.ID, Action: action, Trigger: trigger, Success: out.err == nil, Detail: out.detail,
		CallID: out.callID, MessageID: out.messageID, EmailID: out.emailID, Segment: seg.String(),
	}
	if out.err != nil {
		a.Detail = out.err.Code + ": " + out.err.Message
		if out.detail != "" {
			a.Detail = out.detail + ": " + a.Detail
		}
	}
	return tx.SDRActivity.Insert(a, l.Owner, now)
}

// recordTouch counts a dispatched touch on the lead's pipeline state.
func recordTouch(tx *platform.Tx, now time.Time, l *store.Lead, channel string) *store.SDRLead {
	state := tx.SDRLeadState(l.ID, true)
	at := now.UTC()
	state.TouchCount++
	state.LastTouchAt = &at
	state.LastChannel = channel
	state.EscalatedAt = nil
	return state
}

// errCadence is the 429 of a touch the cadence refuses.
func errCadence(msg string, next *time.Time, now time.Time) *domain.Error {
	e := domain.New(voiceagent.CodeRateLimited, msg)
	// Final, never retried by the SDK: the wait is on the simulated clock,
	// which a retry in real time would not move.
	e.Final = true
	if next != nil {
		e.With("nextAllowedAt", next.UTC())
		e.RetryAfter = max(next.Sub(now), time.Second)
	}
	return e
}

// sdrActionBody is POST /sdr/action.
type sdrActionBody struct {
	BusinessID string `json:"businessId"`
	LeadID     string `json:"leadId"`
	Action     string `json:"action"`
}

// postSDRAction is POST /sdr/action.
func (s *Service) postSDRAction(rc *httpapi.Ctx) (any, error) {
	var body sdrActionBody
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	b, err := rc.Business(body.BusinessID)
	if err != nil {
		return nil, err
	}
	l, ok := rc.Tx.Leads.Get(body.LeadID)
	if !ok || l.Owner != b.ID {
		return nil, domain.NotFound("lead not found in business " + b.ID + ": " + body.LeadID)
	}
	res, apiErr := s.act(sdrCtxFor(rc, b), l, body.Action)
	if apiErr != nil {
		return nil, apiErr
	}
	return res, nil
}

// act applies a manual action to lead l of the pipeline: pause, resume or
// skip it, or touch it now on a channel, within the cadence (checkTouch).
// A touch refused before it is dispatched changes nothing; a dispatch that
// fails is logged, and its error returned.
func (s *Service) act(c *sdrCtx, l *store.Lead, action string) (*sdrapi.ActionResult, *domain.Error) {
	e := c.evaluate(l)
	out := sdrOutcome{}
	switch action {
	case store.SDRPause, store.SDRResume:
		state := c.tx.SDRLeadState(l.ID, true)
		state.Paused = action == store.SDRPause
		out.detail = "automated touches paused"
		if !state.Paused {
			out.detail = "automated touches resumed"
		}
	case store.SDRSkip:
		state := c.tx.SDRLeadState(l.ID, true)
		at := c.now.UTC()
		state.SkippedAt = &at
		out.detail = fmt.Sprintf("skipped: no touch for %d hours", c.cfg.MinTouchGapHours)
	default:
		if err := checkTouch(c, &e, action); err != nil {
			return nil, err
		}
		out = s.sdrTouch(c, l, action, e.segment, false)
		if out.err == nil {
			recordTouch(c.tx, c.now, l, action)
		}
	}
	act := logSDR(c.tx, c.now, l, action, store.SDRTriggerManual, e.segment, out)
	if out.err != nil {
		return nil, out.err
	}
	after := c.evaluate(l)
	return &sdrapi.ActionResult{
		Success: true, Action: sdrapi.Action(action), LeadID: l.ID, Detail: out.detail,
		ActivityID: act.ID, Segment: sdrapi.Segment(after.segment.String()), TouchCount: after.touches(),
		CallID: out.callID, MessageID: out.messageID, EmailID: out.emailID, // omitted when empty
	}, nil
}

// checkTouch returns why a manual touch of the evaluated lead e on channel
// may not be dispatched now (nil: it may): a lead whose status allows
// contact, max_touches (429 without
// nextAllowedAt), min_touch_gap_hours (429 with nextAllowedAt), and the
// contact detail the channel needs (400).
func checkTouch(c *sdrCtx, e *sdrEval, channel string) *domain.Error {
	l := e.lead
	if l.Status == store.LeadDoNotContact {
		return domain.New(voiceagent.CodeNumberOnDNC, "the lead's status is do_not_contact")
	}
	if n := e.touches(); n >= c.cfg.MaxTouches {
		return errCadence(fmt.Sprintf("the lead has had %d touches, the configured max_touches is %d", n, c.cfg.MaxTouches), nil, c.now).
			With("max_touches", c.cfg.MaxTouches).With("touch_count", n)
	}
	if next := nextAllowed(c.cfg, e.state); c.now.Before(next) {
		return errCadence(fmt.Sprintf("min_touch_gap_hours is %d: the next touch of this lead is allowed at %s",
			c.cfg.MinTouchGapHours, next.UTC().Format(time.RFC3339)), &next, c.now)
	}
	switch channel {
	case store.SDRCall, store.SDRSMS:
		if l.Phone == nil || *l.Phone == "" {
			return domain.InvalidField("action", "the lead has no phone number to %s", map[string]string{store.SDRCall: "call", store.SDRSMS: "text"}[channel])
		}
	case store.SDREmail:
		if l.Email == nil || *l.Email == "" {
			return domain.InvalidField("action", "the lead has no email address")
		}
	}
	return nil
}

// sdrRunBody is POST /sdr/run.
type sdrRunBody struct {
	BusinessID string `json:"businessId"`
	DryRun     bool   `json:"dryRun"`
}

// postSDRRun is POST /sdr/run: one run of an enabled pipeline, or its dry
// run.
func (s *Service) postSDRRun(rc *httpapi.Ctx) (any, error) {
	var body sdrRunBody
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	b, err := rc.Business(body.BusinessID)
	if err != nil {
		return nil, err
	}
	c := sdrCtxFor(rc, b)
	if !c.cfg.Enabled {
		return nil, domain.New(voiceagent.CodeBadRequest,
			"SDR is not enabled for business "+b.ID+": PUT /sdr/config with enabled true first")
	}
	return s.runSDR(c, store.SDRTriggerRun, body.DryRun), nil
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
// every lead with a next action in pipeline order (see docs/mockserver.md,
// section Runs). A dry run computes the same plan and changes nothing (a
// read Tx is enough for it).
func (s *Service) runSDR(c *sdrCtx, trigger string, dry bool) *sdrapi.RunResult {
	res := &sdrapi.RunResult{
		Success: true, BusinessID: c.b.ID, DryRun: dry, Trigger: trigger,
		InBusinessHours: inBusinessHours(c.cfg, c.b, c.now),
		Results:         []sdrapi.RunItem{}, Errors: []sdrapi.RunError{},
		SkippedByReason: map[string]int{skipPaused: 0, skipCadence: 0, skipChannelOff: 0, skipOutOfHours: 0, skipRunLimit: 0, skipQuietHours: 0},
	}
	var cands []sdrEval
	for _, l := range c.tx.Leads.Owned(c.b.ID) {
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
			item := sdrapi.RunItem{Success: true, Action: store.SDREscalate, LeadID: l.ID, Segment: sdrapi.Segment(e.segment.String()),
				Detail: "no phone that may be called and no email: put on manual review"}
			res.Results = append(res.Results, item)
			if !dry {
				at := c.now.UTC()
				c.tx.SDRLeadState(l.ID, true).EscalatedAt = &at
				logSDR(c.tx, c.now, l, store.SDREscalate, trigger, e.segment, sdrOutcome{detail: item.Detail})
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
			res.SkippedByReason[reason]++
			continue
		}
		dispatched++
		out := s.sdrTouch(c, l, e.next, e.segment, dry)
		item := sdrapi.RunItem{Success: out.err == nil, Action: sdrapi.Action(e.next), LeadID: l.ID, Detail: out.detail, Segment: sdrapi.Segment(e.segment.String())}
		if out.err != nil {
			res.Summary.Failed++
			item.Detail = out.err.Message
			res.Errors = append(res.Errors, sdrapi.RunError{LeadID: l.ID, Action: sdrapi.Action(e.next), Code: out.err.Code, Message: out.err.Message})
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
				recordTouch(c.tx, c.now, l, e.next)
			}
			logSDR(c.tx, c.now, l, e.next, trigger, e.segment, out)
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
		return false // magic numbers behave as documented whatever the time
	}
	h := c.now.In(telephony.RecipientLocation(to, c.b)).Hour()
	return h < telephony.QuietHoursEnd || h >= telephony.QuietHoursStart
}

// sdrPeriodStart is where a report period starts: today is since midnight
// in the business's time zone, week the last 7 days, month the last 30.
func sdrPeriodStart(period string, now time.Time, b *store.Business) (time.Time, bool) {
	switch period {
	case "today":
		local := now.In(telephony.BusinessLocation(b))
		return time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, local.Location()).UTC(), true
	case "week", "":
		return now.Add(-7 * val.Day), true
	case "month":
		return now.Add(-30 * val.Day), true
	}
	return time.Time{}, false
}

// getSDRReport is GET /sdr/report.
func (s *Service) getSDRReport(rc *httpapi.Ctx) (any, error) {
	b, err := sdrBusiness(rc)
	if err != nil {
		return nil, err
	}
	period := val.FirstNonEmpty(rc.Query("period"), "week")
	since, ok := sdrPeriodStart(period, rc.Now, b)
	if !ok {
		return nil, domain.InvalidField("period", "must be today, week or month")
	}
	return sdrCtxFor(rc, b).report(period, since), nil
}

// report returns the report of the period that started at since: its
// actions, their outcomes, new leads, and the segments now.
func (c *sdrCtx) report(period string, since time.Time) *sdrapi.Report {
	actions := map[sdrapi.Action]int{}
	for _, a := range []string{store.SDRCall, store.SDREmail, store.SDRSMS, store.SDRSkip, store.SDRPause, store.SDRResume, store.SDREscalate} {
		actions[sdrapi.Action(a)] = 0
	}
	outcomes := map[string]int{}
	for _, o := range sdrOutcomeKeys {
		outcomes[o] = 0
	}
	c.tx.SDRActivity.Scan([]string{c.b.ID}, val.ZeroTime, func(a *store.SDRActivity) bool {
		if a.CreatedAt.Before(since) {
			return false
		}
		actions[sdrapi.Action(a.Action)]++
		if o := sdrActivityOutcome(c.tx, a); o != "" {
			outcomes[o]++
		}
		return true
	})
	newLeads := 0
	c.tx.Leads.Scan([]string{c.b.ID}, val.ZeroTime, func(l *store.Lead) bool {
		if l.CreatedAt.Before(since) {
			return false
		}
		newLeads++
		return true
	})
	var segments segmentCounts
	for _, l := range c.tx.Leads.Owned(c.b.ID) {
		segments[c.segmentOf(l, c.tx.SDRLeads[l.ID], c.reachOf(l))]++
	}
	hot := 0
	for _, seg := range hotSegments {
		hot += segments[seg]
	}
	return &sdrapi.Report{
		BusinessID: c.b.ID, Period: period, Since: since, Until: c.now.UTC(),
		Actions: actions, Outcomes: outcomes, NewLeads: newLeads,
		HotLeads: hot, StaleLeads: segments[segManualReview], Segments: segments.view(),
	}
}

// sdrOutcomeKeys are the outcome counts of the report.
var sdrOutcomeKeys = []string{
	"call_pending", "call_completed", "call_failed", "sms_sent", "sms_delivered", "sms_failed",
	"email_queued", "email_sent", "email_failed", "refused",
}

// sdrActivityOutcome is the outcome of one logged touch now: the state of
// the call, text or email it dispatched, or "refused" when the dispatch
// failed; "" for entries that are not touches.
func sdrActivityOutcome(tx *platform.Tx, a *store.SDRActivity) string {
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
		c, ok := tx.Calls.Get(a.CallID)
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
		if m, ok := tx.SMSMessages.Get(a.MessageID); ok {
			return "sms_" + m.Status
		}
	case a.EmailID != "":
		if m, ok := tx.SDRMails.Get(a.EmailID); ok {
			return "email_" + m.Status
		}
	}
	return ""
}

// sdrActivityView is an entry of GET /sdr/activity.
func sdrActivityView(a *store.SDRActivity) sdrapi.Activity {
	return sdrapi.Activity{
		ID: a.ID, LeadID: a.LeadID, Action: sdrapi.Action(a.Action), Trigger: a.Trigger, Success: a.Success,
		Detail: a.Detail, Segment: val.Strp(sdrapi.Segment(a.Segment)), CallID: val.Strp(a.CallID),
		MessageID: val.Strp(a.MessageID), EmailID: val.Strp(a.EmailID), CreatedAt: a.CreatedAt,
	}
}

// getSDRActivity is GET /sdr/activity: the activity log, newest first,
// one lead's or the business's.
func (s *Service) getSDRActivity(rc *httpapi.Ctx) (any, error) {
	b, err := sdrBusiness(rc)
	if err != nil {
		return nil, err
	}
	limit, err := rc.IntQuery("limit", 50, 1, 200)
	if err != nil {
		return nil, err
	}
	leadID := rc.Query("leadId")
	if leadID != "" {
		if l, ok := rc.Tx.Leads.Get(leadID); !ok || l.Owner != b.ID {
			return nil, domain.NotFound("lead not found in business " + b.ID + ": " + leadID)
		}
	}
	items, more := httpapi.ListPage(rc.Tx.SDRActivity, []string{b.ID}, httpapi.PageQuery{Limit: limit},
		func(a *store.SDRActivity) bool { return leadID == "" || a.LeadID == leadID }, sdrActivityView)
	return activityList{Activity: items, HasMore: more, BusinessID: b.ID}, nil
}

// activityList is GET /sdr/activity: a page of a business's activity log.
type activityList struct {
	Activity   []sdrapi.Activity `json:"activity"`
	HasMore    bool              `json:"has_more"`
	BusinessID string            `json:"businessId"`
}

// Kinds of the SDR pipeline's tasks on the schedule.
const (
	// TaskSendEmail sends a queued SDR email (Subject).
	TaskSendEmail = "sdr.email"
	// TaskRunPipeline is the scheduled runner's next run for a business
	// (Subject).
	TaskRunPipeline = "sdr.run"
)

// startSDRRunner starts the scheduled runner of a business whose SDR was
// just enabled at now: a run every two hours of the clock from now, while
// the configuration stays enabled (disabling stops it; enabling again
// starts a new one, of the next generation).
func (s *Service) startSDRRunner(tx *platform.Tx, cfg *store.SDRConfig, now time.Time) {
	cfg.RunnerGen++
	s.scheduleSDRRun(tx, cfg, now.Add(sdrRunnerInterval))
}

// scheduleSDRRun puts the next run of cfg's current runner on its tenant's
// clock at at: Subject is the business, N the runner's generation.
func (s *Service) scheduleSDRRun(tx *platform.Tx, cfg *store.SDRConfig, at time.Time) {
	next := at.UTC()
	cfg.NextRunAt = &next
	s.Schedule(tx.TenantOf(cfg.BusinessID), clock.Task{At: at, Kind: TaskRunPipeline, Subject: cfg.BusinessID, N: cfg.RunnerGen})
}

// runSDRTask is the task TaskRunPipeline: the scheduled runner of
// generation t.N runs the pipeline of business t.Subject and schedules its
// next run, unless the configuration was disabled or a newer runner
// replaced it since.
func (s *Service) runSDRTask(tx *platform.Tx, now time.Time, t clock.Task) {
	cfg, ok := tx.SDRConfigs[t.Subject]
	if !ok || !cfg.Enabled || cfg.RunnerGen != t.N {
		return
	}
	if b, ok := tx.Businesses.Get(t.Subject); ok {
		s.runSDR(newSDRCtx(tx, now, b, cfg), store.SDRTriggerScheduled, false)
	}
	s.scheduleSDRRun(tx, cfg, now.Add(sdrRunnerInterval))
}

// runScheduledAll runs the pipeline of every enabled business now, as the
// scheduled runner does, in business id order.
func (s *Service) runScheduledAll(tx *platform.Tx) []*sdrapi.RunResult {
	ids := make([]string, 0, len(tx.SDRConfigs))
	for id, cfg := range tx.SDRConfigs {
		if cfg.Enabled {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	out := make([]*sdrapi.RunResult, 0, len(ids))
	for _, id := range ids {
		if b, ok := tx.Businesses.Get(id); ok {
			// Each business runs at its tenant's time: its business hours
			// and cadence are those of the clock its tests advanced.
			out = append(out, s.runSDR(newSDRCtx(tx, s.Now(b.Tenant), b, tx.SDRConfigs[id]), store.SDRTriggerScheduled, false))
		}
	}
	return out
}

// HeaderCronSecret carries the scheduled runner's internal secret.
const HeaderCronSecret = "X-Voiceagent-Cron-Secret"

// SDRCronSecret returns the internal secret of POST /api/sdr/cron, the
// scheduled runner's route (generated once per store). Keys and sessions
// never open it.
func (s *Service) SDRCronSecret() (secret string) {
	s.Write(func(tx *platform.Tx) { secret = s.cronSecret(tx) })
	return secret
}

// cronSecret returns the scheduled runner's secret, made on first use.
func (s *Service) cronSecret(tx *platform.Tx) string {
	if tx.SDRCronSecret == "" {
		tx.SDRCronSecret = "cron_" + s.IDs.Token(24)
	}
	return tx.SDRCronSecret
}

// postSDRCron is POST /api/sdr/cron, the scheduled runner's route: every
// enabled business runs once.
func (s *Service) postSDRCron(rc *httpapi.Ctx) (any, error) {
	got := rc.Request.Header.Get(HeaderCronSecret)
	if got == "" || got != s.cronSecret(rc.Tx) {
		return nil, domain.Unauthorized("the scheduled runner is internal: it needs the platform's internal secret, not an API key or a session")
	}
	return map[string]any{"runs": s.runScheduledAll(rc.Tx)}, nil
}

// adminSDRCron is POST /_mock/sdr/cron: what the scheduled runner's route
// does, through the admin API.
func (s *Service) adminSDRCron(rc *httpapi.Ctx) (any, error) {
	return map[string]any{"runs": s.runScheduledAll(rc.Tx)}, nil
}
