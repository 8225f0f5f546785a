// Package runs schedules communication runs: multi-touch sequences of calls
// and texts to leads, each touch at its own time inside its own window
// (POST /v1/communication-runs).
//
// Validate first, then Preview, then Create:
//
//	v, err := c.Runs.Validate(ctx, p)     // 200 with Valid, Errors, Warnings
//	pv, err := c.Runs.Preview(ctx, p)     // what would run, when, from which number
//	run, err := c.Runs.Create(ctx, p, voiceagent.WithIdempotencyKey(key))
//
// Create needs an Idempotency-Key: the SDK sends a generated one on every
// call, so a retry of the same call returns the same run; pass your own with
// voiceagent.WithIdempotencyKey to make a retry after a restart safe too.
//
// Touches run on the platform's clock at ScheduledAt (moved to the window's
// NotBefore when earlier). A call touch places a call from the run's number,
// as calls.Service.Create does; an SMS touch sends a text as
// sms.Service.Send does, through the SMS compliance path (do-not-call,
// consent, quiet hours, content), and is skipped when compliance refuses
// it. The calls and texts of touches, and their call.* and sms.* events,
// carry voiceagent.TouchRef (communication_run_id, external_ref, touch_id),
// so a partner matches events back to its own records.
//
// States of a run: scheduled (no touch started), running, then completed
// (every touch final and at least one completed) or failed (every touch
// final, none completed). States of a touch: scheduled, running (call placed
// or text sent), then completed, failed (the call or text failed) or
// skipped (never attempted: SMS compliance refused it).
package runs

import (
	"context"
	"iter"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/internal/idstyle"
)

// Channel is how a touch reaches its target.
type Channel string

// Channels of a touch.
const (
	ChannelCall Channel = "call"
	ChannelSMS  Channel = "sms"
)

// Run states.
const (
	StatusScheduled = "scheduled"
	StatusRunning   = "running"
	StatusCompleted = "completed"
	StatusFailed    = "failed"
)

// Touch states (scheduled, running, completed and failed as for runs, and):
const (
	// TouchSkipped: the touch was never attempted (SMS compliance refused it).
	TouchSkipped = "skipped"
	// TouchCanceled: the run was deleted before the touch started.
	TouchCanceled = "canceled"
)

// Target is who a touch reaches.
type Target struct {
	// Phone is called or texted (E.164). Required.
	Phone string `json:"phone"`
	// LeadID links the call or text to a lead of the business.
	LeadID *string `json:"lead_id,omitempty"`
	// Name is the name the agent uses on a call.
	Name  *string `json:"name,omitempty"`
	Email *string `json:"email,omitempty"`
	// Timezone is the recipient's IANA time zone: SMS quiet hours (08:00 to
	// 21:00 local) use it instead of the one derived from the number.
	Timezone *string `json:"timezone,omitempty"`
	State    *string `json:"state,omitempty"`
}

// TimingWindow bounds when a touch may run; a nil bound is open.
type TimingWindow struct {
	NotBefore *time.Time `json:"not_before,omitempty"`
	NotAfter  *time.Time `json:"not_after,omitempty"`
}

// TouchParams are one touch of CreateParams.
type TouchParams struct {
	// TouchID is your id of the touch, unique in the run. Required.
	TouchID string `json:"touch_id"`
	// Channel is ChannelCall or ChannelSMS. Required.
	Channel Channel `json:"channel"`
	// Target is who is called or texted. Required.
	Target Target `json:"target"`
	// ScheduledAt is when the touch is due. Required.
	ScheduledAt time.Time `json:"scheduled_at"`
	// TimingWindow bounds when the touch may run.
	TimingWindow *TimingWindow `json:"timing_window,omitempty"`
	// Context is passed to the agent on a call.
	Context map[string]any `json:"context,omitempty"`
	// Metadata is yours, echoed on reads and events.
	Metadata map[string]any `json:"metadata,omitempty"`
	// Message is the text of an SMS touch (required there, at most 1600
	// characters) or the opening line of a call touch.
	Message *string `json:"message,omitempty"`
	// SMSCategory classifies an SMS touch (ignored on calls).
	SMSCategory *string `json:"sms_category,omitempty"`
}

// CreateParams are the body of Validate, Preview and Create.
type CreateParams struct {
	// BusinessID owns the run. Required.
	BusinessID string `json:"business_id"`
	// ExternalRef is your reference of the run; events carry it. Required.
	ExternalRef string `json:"external_ref"`
	// AssignedNumberID is the sending number: an E.164 number of the
	// business or a number id. Default: the agent's number.
	AssignedNumberID *string `json:"assigned_number_id,omitempty"`
	// AgentID runs the touches. Default: the number's agent, else the
	// business's intake agent.
	AgentID *string `json:"agent_id,omitempty"`
	// Metadata is yours, echoed on reads.
	Metadata map[string]any `json:"metadata,omitempty"`
	// Touches are the calls and texts, at least one.
	Touches []TouchParams `json:"touches"`
}

// TouchError says why a touch failed or was skipped.
type TouchError struct {
	// Code is no_answer, busy, call_failed, sms_send_failed, number_on_dnc,
	// number_opted_out, content_blocked or tcpa_violation.
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Touch is a touch of a run with its state.
type Touch struct {
	TouchID      string         `json:"touch_id"`
	Channel      Channel        `json:"channel"`
	Target       Target         `json:"target"`
	ScheduledAt  time.Time      `json:"scheduled_at"`
	TimingWindow *TimingWindow  `json:"timing_window"`
	Context      map[string]any `json:"context"`
	Metadata     map[string]any `json:"metadata"`
	Message      *string        `json:"message"`
	SMSCategory  *string        `json:"sms_category"`
	// Status is scheduled, running, completed, failed, skipped or canceled.
	Status string `json:"status"`
	// ExecuteAt is when the touch runs: ScheduledAt moved into the window.
	ExecuteAt   time.Time  `json:"execute_at"`
	StartedAt   *time.Time `json:"started_at"`
	CompletedAt *time.Time `json:"completed_at"`
	// CallID is the call a call touch placed.
	CallID *string `json:"call_id"`
	// MessageSID is the text an SMS touch sent.
	MessageSID *string `json:"message_sid"`
	// Duration is the call's length in seconds.
	Duration *int `json:"duration"`
	// Summary is the call's summary.
	Summary *string     `json:"summary"`
	Error   *TouchError `json:"error"`
}

// Run is a communication run.
type Run struct {
	ID          string `json:"id"`
	BusinessID  string `json:"business_id"`
	ExternalRef string `json:"external_ref"`
	// Status is scheduled, running, completed or failed.
	Status string `json:"status"`
	// AgentID is the agent that runs the touches (resolved).
	AgentID string `json:"agent_id"`
	// AssignedNumberID is as sent.
	AssignedNumberID *string `json:"assigned_number_id"`
	// FromNumber and FromNumberID are the sending number (resolved).
	FromNumber   string         `json:"from_number"`
	FromNumberID string         `json:"from_number_id"`
	Metadata     map[string]any `json:"metadata"`
	Touches      []Touch        `json:"touches"`
	// TouchCounts counts the touches per status.
	TouchCounts    map[string]int `json:"touch_counts"`
	IdempotencyKey string         `json:"idempotency_key"`
	CreatedAt      time.Time      `json:"created_at"`
	UpdatedAt      time.Time      `json:"updated_at"`
	StartedAt      *time.Time     `json:"started_at"`
	CompletedAt    *time.Time     `json:"completed_at"`
}

// Touch returns the run's touch with the id, or nil.
func (r *Run) Touch(touchID string) *Touch {
	for i := range r.Touches {
		if r.Touches[i].TouchID == touchID {
			return &r.Touches[i]
		}
	}
	return nil
}

// Validation is the answer of Validate.
type Validation struct {
	// Valid is true when Errors is empty.
	Valid bool `json:"valid"`
	// Errors name each problem by JSON Pointer path (schema and rules).
	Errors []voiceagent.ErrorDetail `json:"errors"`
	// Warnings are accepted but worth knowing (a past ScheduledAt runs at once).
	Warnings []voiceagent.ErrorDetail `json:"warnings"`
	// Touches counts the touches of the body.
	Touches int `json:"touches"`
}

// PreviewTouch is a touch as Preview plans it.
type PreviewTouch struct {
	TouchID      string        `json:"touch_id"`
	Channel      Channel       `json:"channel"`
	To           string        `json:"to"`
	Name         *string       `json:"name"`
	ScheduledAt  time.Time     `json:"scheduled_at"`
	ExecuteAt    time.Time     `json:"execute_at"`
	TimingWindow *TimingWindow `json:"timing_window"`
	Message      *string       `json:"message"`
	SMSCategory  *string       `json:"sms_category"`
}

// PreviewSummary counts a preview's touches.
type PreviewSummary struct {
	Touches int       `json:"touches"`
	Calls   int       `json:"calls"`
	SMS     int       `json:"sms"`
	FirstAt time.Time `json:"first_at"`
	LastAt  time.Time `json:"last_at"`
}

// Preview is the answer of Preview: what Create would schedule.
type Preview struct {
	Valid        bool   `json:"valid"`
	BusinessID   string `json:"business_id"`
	ExternalRef  string `json:"external_ref"`
	AgentID      string `json:"agent_id"`
	FromNumber   string `json:"from_number"`
	FromNumberID string `json:"from_number_id"`
	// Touches are in the order they will run.
	Touches  []PreviewTouch           `json:"touches"`
	Summary  PreviewSummary           `json:"summary"`
	Warnings []voiceagent.ErrorDetail `json:"warnings"`
}

// Deleted is the answer of Delete.
type Deleted struct {
	Success bool   `json:"success"`
	ID      string `json:"id"`
	// CanceledTouches counts the touches that had not started.
	CanceledTouches int `json:"canceled_touches"`
}

// ListParams filter and page List.
type ListParams struct {
	BusinessID  string `url:"business_id,omitempty"`
	Status      string `url:"status,omitempty"`
	ExternalRef string `url:"external_ref,omitempty"`
	// Limit is the page size (default 50, at most 100).
	Limit int `url:"limit,omitempty"`
	// After is the cursor (Page.NextCursor) of the page to read.
	After string `url:"after,omitempty"`
}

// Service is the communication runs API. Validate, Preview, Get and List
// need communication-runs:read; Create and Delete communication-runs:write.
// Get it from client.Client.Runs.
type Service struct {
	r idstyle.Resource[Run]
}

// NewService returns the service on a backend.
func NewService(b *voiceagent.Backend) *Service {
	return &Service{idstyle.Resource[Run]{B: b, Path: "/v1/communication-runs", ListKey: "communication_runs",
		CreatedAt: func(r *Run) time.Time { return r.CreatedAt }}}
}

// Validate checks a run without creating it. Problems are in the answer,
// not an error; errors are access problems and bodies that are not JSON.
func (s *Service) Validate(ctx context.Context, p *CreateParams, opts ...voiceagent.Option) (*Validation, error) {
	return post[Validation](ctx, s, "/validate", p, opts)
}

// Preview returns what Create would schedule; an invalid run is an
// invalid_request error naming each problem in Details.
func (s *Service) Preview(ctx context.Context, p *CreateParams, opts ...voiceagent.Option) (*Preview, error) {
	return post[Preview](ctx, s, "/preview", p, opts)
}

// Create creates the run and schedules its touches. The same
// Idempotency-Key returns the same run.
func (s *Service) Create(ctx context.Context, p *CreateParams, opts ...voiceagent.Option) (*Run, error) {
	return s.r.Post(ctx, "", p, opts...)
}

// Get reads a run with its touches' states.
func (s *Service) Get(ctx context.Context, id string, opts ...voiceagent.Option) (*Run, error) {
	return s.r.Get(ctx, id, opts...)
}

// List reads one page of runs, newest first.
func (s *Service) List(ctx context.Context, p *ListParams, opts ...voiceagent.Option) (*voiceagent.Page[Run], error) {
	return s.r.List(ctx, p, opts...)
}

// All walks every run matching p, page by page.
func (s *Service) All(ctx context.Context, p *ListParams, opts ...voiceagent.Option) iter.Seq2[*Run, error] {
	return voiceagent.All(ctx, p, func(q *ListParams) *string { return &q.After }, s.List, opts...)
}

// Delete cancels the touches that have not started and removes the run; a
// touch already under way finishes.
func (s *Service) Delete(ctx context.Context, id string, opts ...voiceagent.Option) (*Deleted, error) {
	return idstyle.Delete[Deleted](ctx, s.r, id, opts...)
}

func post[T any](ctx context.Context, s *Service, suffix string, body any, opts []voiceagent.Option) (*T, error) {
	r := idstyle.Resource[T]{B: s.r.B, Path: s.r.Path}
	return r.Post(ctx, s.r.Path+suffix, body, opts...)
}
