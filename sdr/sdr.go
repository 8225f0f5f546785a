// Package sdr drives the outbound-sales pipeline (the automated SDR) of a
// business: its configuration, the segmented pipeline of leads, manual
// actions on one lead, pipeline runs, the report and the activity log.
//
// The pipeline lives under {base}/sdr (no /v1). It accepts a bearer key
// (sdr:read for reads, sdr:write for writes) or a dashboard session
// (voiceagent.WithSessionCookie; sessions skip the scope check). Every call
// names a business, and the caller must reach it (403 otherwise).
//
// Every lead sits in one segment ([SegmentSpeedToLead] ... [SegmentCold]) or
// on [SegmentManualReview]; the segment decides the next action, which the
// cadence (min_touch_gap_hours, max_touches) allows or holds back. A touch
// refused by the cadence is a 429 whose *voiceagent.Error carries
// NextAllowedAt.
package sdr

import (
	"context"
	"net/http"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// Segment is where a lead stands in the pipeline.
type Segment string

// The eleven segments and manual review.
const (
	SegmentSpeedToLead      Segment = "speed_to_lead"
	SegmentFreshDemoCaller  Segment = "fresh_demo_caller"
	SegmentWarmDemoCaller   Segment = "warm_demo_caller"
	SegmentCoolingDemo      Segment = "cooling_demo"
	SegmentNewTrialStuck    Segment = "new_trial_stuck"
	SegmentTrialGoingDark   Segment = "trial_going_dark"
	SegmentTrialEnding      Segment = "trial_ending"
	SegmentContactedNoReply Segment = "contacted_no_reply"
	SegmentExhausted        Segment = "exhausted"
	SegmentChurnedRecent    Segment = "churned_recent"
	SegmentCold             Segment = "cold"
	SegmentManualReview     Segment = "manual_review"
)

// Action is what the pipeline does with a lead.
type Action string

// Actions of Act (the first six), and the ones runs and the pipeline
// report.
const (
	ActionCall   Action = "call"
	ActionEmail  Action = "email"
	ActionSMS    Action = "sms"
	ActionSkip   Action = "skip"
	ActionPause  Action = "pause"
	ActionResume Action = "resume"
	// ActionEscalate: a run put the lead on manual review.
	ActionEscalate Action = "escalate"
	// ActionNone is the next action of leads the pipeline leaves alone.
	ActionNone Action = "none"
)

// Report periods.
const (
	PeriodToday = "today"
	PeriodWeek  = "week"
	PeriodMonth = "month"
)

// Config is a business's pipeline configuration. A business that never
// saved one reads the defaults, with Configured false.
type Config struct {
	BusinessID         string  `json:"businessId"`
	Enabled            bool    `json:"enabled"`
	MinTouchGapHours   int     `json:"min_touch_gap_hours"`
	MaxTouches         int     `json:"max_touches"`
	AutoCall           bool    `json:"auto_call"`
	AutoEmail          bool    `json:"auto_email"`
	AutoSMS            bool    `json:"auto_sms"`
	SDRAgentID         *string `json:"sdr_agent_id"`
	BusinessHoursStart int     `json:"business_hours_start"`
	BusinessHoursEnd   int     `json:"business_hours_end"`
	EmailFromAccountID *string `json:"email_from_account_id"`
	// Configured reports whether the business saved a configuration.
	Configured bool `json:"configured"`
	// Timezone is the zone business hours are read in.
	Timezone string `json:"timezone"`
	// NextRunAt is the scheduled runner's next run (nil when disabled).
	NextRunAt *time.Time `json:"next_run_at"`
	// LastRunAt and LastRunTrigger describe the last run that dispatched.
	LastRunAt      *time.Time `json:"last_run_at"`
	LastRunTrigger *string    `json:"last_run_trigger"`
	CreatedAt      *time.Time `json:"created_at"`
	UpdatedAt      *time.Time `json:"updated_at"`
}

// ConfigParams are the fields of PUT /sdr/config: only the fields set are
// sent; the others keep their value (or the default).
type ConfigParams struct {
	// BusinessID is the business. Required.
	BusinessID       string `json:"businessId"`
	Enabled          *bool  `json:"enabled,omitempty"`
	MinTouchGapHours *int   `json:"min_touch_gap_hours,omitempty"`
	MaxTouches       *int   `json:"max_touches,omitempty"`
	AutoCall         *bool  `json:"auto_call,omitempty"`
	AutoEmail        *bool  `json:"auto_email,omitempty"`
	AutoSMS          *bool  `json:"auto_sms,omitempty"`
	// SDRAgentID is the agent that calls and texts ("" clears it).
	SDRAgentID *string `json:"sdr_agent_id,omitempty"`
	// BusinessHoursStart and BusinessHoursEnd are hours 0 to 23.
	BusinessHoursStart *int    `json:"business_hours_start,omitempty"`
	BusinessHoursEnd   *int    `json:"business_hours_end,omitempty"`
	EmailFromAccountID *string `json:"email_from_account_id,omitempty"`
}

// PipelineParams select the leads of Pipeline.
type PipelineParams struct {
	// BusinessID is the business. Required.
	BusinessID string `url:"businessId"`
	// Segment keeps one segment's leads.
	Segment Segment `url:"segment,omitempty"`
	// Limit is how many leads to return (default 100, at most 1000).
	Limit int `url:"limit,omitempty"`
}

// Pipeline is the segmented pipeline of a business.
type Pipeline struct {
	BusinessID string          `json:"businessId"`
	Enabled    bool            `json:"enabled"`
	Summary    PipelineSummary `json:"summary"`
	// Leads are the selected leads, highest score first.
	Leads []Lead `json:"leads"`
}

// PipelineSummary counts every lead of the business, whatever the filter.
type PipelineSummary struct {
	TotalLeads int `json:"total_leads"`
	// Actionable leads have a next action the cadence allows now and are
	// not paused.
	Actionable int `json:"actionable"`
	// NeedsManual counts the leads on manual review.
	NeedsManual int `json:"needs_manual"`
	// Segments counts the leads of each segment.
	Segments map[Segment]int `json:"segments"`
}

// Lead is a lead as the pipeline sees it.
type Lead struct {
	ID          string     `json:"id"`
	Name        *string    `json:"name"`
	Email       *string    `json:"email"`
	Phone       *string    `json:"phone"`
	Status      string     `json:"status"`
	Source      *string    `json:"source"`
	Segment     Segment    `json:"segment"`
	Score       int        `json:"score"`
	TouchCount  int        `json:"touch_count"`
	LastTouch   *time.Time `json:"last_touch"`
	LastChannel *string    `json:"last_channel"`
	// NextAction is call, email, sms or none.
	NextAction Action `json:"next_action"`
	// NextActionAt is when the cadence allows the next touch (nil: now).
	NextActionAt *time.Time `json:"next_action_at"`
	Actionable   bool       `json:"actionable"`
	Paused       bool       `json:"paused"`
	CreatedAt    time.Time  `json:"created_at"`
	UpdatedAt    time.Time  `json:"updated_at"`
}

// ActionParams are the fields of POST /sdr/action. All are required.
type ActionParams struct {
	BusinessID string `json:"businessId"`
	LeadID     string `json:"leadId"`
	// Action is call, email, sms, skip, pause or resume.
	Action Action `json:"action"`
}

// ActionResult is the answer of Act.
type ActionResult struct {
	Success    bool    `json:"success"`
	Action     Action  `json:"action"`
	LeadID     string  `json:"leadId"`
	Detail     string  `json:"detail"`
	ActivityID string  `json:"activityId"`
	Segment    Segment `json:"segment"`
	TouchCount int     `json:"touch_count"`
	// CallID, MessageID and EmailID name what a touch dispatched.
	CallID    string `json:"callId,omitempty"`
	MessageID string `json:"messageId,omitempty"`
	EmailID   string `json:"emailId,omitempty"`
}

// RunParams are the fields of POST /sdr/run.
type RunParams struct {
	// BusinessID is the business. Required.
	BusinessID string `json:"businessId"`
	// DryRun previews the run: the same plan, nothing dispatched.
	DryRun bool `json:"dryRun,omitempty"`
}

// RunResult is what a run did (or, dry, would do).
type RunResult struct {
	Success         bool       `json:"success"`
	BusinessID      string     `json:"businessId"`
	DryRun          bool       `json:"dryRun"`
	Trigger         string     `json:"trigger"`
	InBusinessHours bool       `json:"in_business_hours"`
	Summary         RunSummary `json:"summary"`
	Results         []RunItem  `json:"results"`
	// Skipped counts leads with a next action the run did not take;
	// SkippedByReason breaks it down (paused, cadence, channel_off,
	// outside_business_hours, run_limit, sms_quiet_hours).
	Skipped         int            `json:"skipped"`
	SkippedByReason map[string]int `json:"skipped_by_reason"`
	Errors          []RunError     `json:"errors"`
}

// RunSummary counts a run's dispatches.
type RunSummary struct {
	CallsQueued  int `json:"calls_queued"`
	EmailsQueued int `json:"emails_queued"`
	SMSSent      int `json:"sms_sent"`
	Escalated    int `json:"escalated"`
	Failed       int `json:"failed"`
}

// RunItem is one lead a run acted on.
type RunItem struct {
	Success bool    `json:"success"`
	Action  Action  `json:"action"`
	LeadID  string  `json:"leadId"`
	Detail  string  `json:"detail"`
	Segment Segment `json:"segment"`
}

// RunError is one failed dispatch of a run.
type RunError struct {
	LeadID  string `json:"leadId"`
	Action  Action `json:"action"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ReportParams select the report.
type ReportParams struct {
	// BusinessID is the business. Required.
	BusinessID string `url:"businessId"`
	// Period is PeriodToday, PeriodWeek (default) or PeriodMonth.
	Period string `url:"period,omitempty"`
}

// Report sums a period of the pipeline.
type Report struct {
	BusinessID string    `json:"businessId"`
	Period     string    `json:"period"`
	Since      time.Time `json:"since"`
	Until      time.Time `json:"until"`
	// Actions counts the period's activity entries per action.
	Actions map[Action]int `json:"actions"`
	// Outcomes counts the current outcome of the period's touches
	// (call_pending, call_completed, call_failed, sms_sent, sms_delivered,
	// sms_failed, email_queued, email_sent, email_failed, refused).
	Outcomes map[string]int `json:"outcomes"`
	NewLeads int            `json:"new_leads"`
	// HotLeads counts the leads now in speed_to_lead, fresh_demo_caller
	// and new_trial_stuck; StaleLeads those on manual review.
	HotLeads   int             `json:"hot_leads"`
	StaleLeads int             `json:"stale_leads"`
	Segments   map[Segment]int `json:"segments"`
}

// ActivityParams select the activity log.
type ActivityParams struct {
	// BusinessID is the business. Required.
	BusinessID string `url:"businessId"`
	// LeadID keeps one lead's entries.
	LeadID string `url:"leadId,omitempty"`
	// Limit is the number of entries (default 50, at most 200).
	Limit int `url:"limit,omitempty"`
}

// Activity is one entry of the activity log.
type Activity struct {
	ID     string `json:"id"`
	LeadID string `json:"leadId"`
	Action Action `json:"action"`
	// Trigger is manual (Act), run (Run) or scheduled (the runner).
	Trigger   string    `json:"trigger"`
	Success   bool      `json:"success"`
	Detail    string    `json:"detail"`
	Segment   *Segment  `json:"segment"`
	CallID    *string   `json:"callId"`
	MessageID *string   `json:"messageId"`
	EmailID   *string   `json:"emailId"`
	CreatedAt time.Time `json:"created_at"`
}

// Service is the outbound-sales pipeline API. Get it from
// client.Client.SDR.
type Service struct{ b *voiceagent.Backend }

// NewService returns the service on a backend.
func NewService(b *voiceagent.Backend) *Service { return &Service{b: b} }

type businessQuery struct {
	BusinessID string `url:"businessId"`
}

// GetConfig returns a business's configuration, or the defaults when it
// has none (sdr:read).
func (s *Service) GetConfig(ctx context.Context, businessID string, opts ...voiceagent.Option) (*Config, error) {
	return voiceagent.Send[Config](ctx, s.b, http.MethodGet, "/sdr/config", businessQuery{businessID}, nil, opts...)
}

// UpdateConfig saves the fields set in p and returns the whole
// configuration (sdr:write). Enabling starts the two-hourly runner.
func (s *Service) UpdateConfig(ctx context.Context, p *ConfigParams, opts ...voiceagent.Option) (*Config, error) {
	return voiceagent.Send[Config](ctx, s.b, http.MethodPut, "/sdr/config", nil, p, opts...)
}

// Pipeline returns the segmented pipeline of a business (sdr:read).
func (s *Service) Pipeline(ctx context.Context, p *PipelineParams, opts ...voiceagent.Option) (*Pipeline, error) {
	return voiceagent.Send[Pipeline](ctx, s.b, http.MethodGet, "/sdr/pipeline", p, nil, opts...)
}

// Act takes one action on one lead (sdr:write). A touch (call, email, sms)
// the cadence refuses is a 429 *voiceagent.Error with NextAllowedAt (nil
// when max_touches is reached).
func (s *Service) Act(ctx context.Context, p *ActionParams, opts ...voiceagent.Option) (*ActionResult, error) {
	return voiceagent.Send[ActionResult](ctx, s.b, http.MethodPost, "/sdr/action", nil, p, opts...)
}

// Run runs the pipeline of a business now, or previews it with DryRun
// (sdr:write). It is a 400 when the pipeline is not enabled.
func (s *Service) Run(ctx context.Context, p *RunParams, opts ...voiceagent.Option) (*RunResult, error) {
	return voiceagent.Send[RunResult](ctx, s.b, http.MethodPost, "/sdr/run", nil, p, opts...)
}

// Report sums a period of the pipeline (sdr:read).
func (s *Service) Report(ctx context.Context, p *ReportParams, opts ...voiceagent.Option) (*Report, error) {
	return voiceagent.Send[Report](ctx, s.b, http.MethodGet, "/sdr/report", p, nil, opts...)
}

// ListActivity returns the newest entries of the activity log (sdr:read).
func (s *Service) ListActivity(ctx context.Context, p *ActivityParams, opts ...voiceagent.Option) ([]Activity, error) {
	return voiceagent.ListItems[Activity](ctx, s.b, "/sdr/activity", "activity", p, opts...)
}
