package runs

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
	runsapi "github.com/voiceagent/voiceagent-go/runs"
)

// States of a communication run and of its touches (see docs/mockserver.md, section Communication runs).
const (
	runScheduled = "scheduled"
	runRunning   = "running"
	runCompleted = "completed"
	runFailed    = "failed"

	touchScheduled = "scheduled"
	touchRunning   = "running"
	touchSkipped   = "skipped"
	touchCanceled  = "canceled"

	// maxRunSMSLength bounds an sms touch's message, as POST /v1/sms/send does.
	maxRunSMSLength = 1600
)

// startRuns defines the task of a run's touch and subscribes runs to the
// ends of the calls and texts their touches make (an approval request's
// call is not a run's).
func (s *Service) startRuns() {
	s.DefineTask(TaskRunTouch, s.runTouch)
	s.OnCallEnded(func(tx *platform.Tx, now time.Time, c *store.Call) {
		if ref := c.Touch(); ref.ApprovalRequestID == "" && ref.CommunicationRunID != "" {
			runTouchEnded(tx, now, ref, telephony.CallTouchEnd(c))
		}
	})
	s.OnTextDelivered(func(tx *platform.Tx, now time.Time, m *store.SMSMessage) {
		if m.Ref.ApprovalRequestID == "" && m.Ref.CommunicationRunID != "" {
			runTouchEnded(tx, now, m.Ref, telephony.TouchEnd{Status: telephony.TouchCompleted})
		}
	})
}

// runE164 is the E.164 form of touch targets and assigned numbers.
var runE164 = regexp.MustCompile(`^\+[1-9][0-9]{1,14}$`)

// RunInput is a communication run to plan: the communicationRunCreate
// body, decoded and valid against its schema.
type RunInput struct {
	BusinessID       string         `json:"business_id"`
	ExternalRef      string         `json:"external_ref"`
	AssignedNumberID *string        `json:"assigned_number_id"`
	AgentID          *string        `json:"agent_id"`
	Metadata         map[string]any `json:"metadata"`
	Touches          []TouchInput   `json:"touches"`
}

// TouchInput is one touch of a RunInput.
type TouchInput struct {
	TouchID      string              `json:"touch_id"`
	Channel      string              `json:"channel"`
	Target       store.RunTarget     `json:"target"`
	ScheduledAt  time.Time           `json:"scheduled_at"`
	TimingWindow *store.TimingWindow `json:"timing_window"`
	Context      map[string]any      `json:"context"`
	Metadata     map[string]any      `json:"metadata"`
	Message      *string             `json:"message"`
	SMSCategory  *string             `json:"sms_category"`
}

// Plan is a checked RunInput: the resolved agent and sending number, when
// each touch will run, and the problems found. A plan without Errors has an
// Agent and a Number.
type Plan struct {
	Input  RunInput
	Agent  *store.Agent
	Number *store.Number
	// ExecuteAt is when each touch of Input runs, by index: its
	// scheduled_at moved into its timing window, and not before the time
	// of planning.
	ExecuteAt []time.Time
	// Errors make the run invalid; Warnings do not.
	Errors   []domain.FieldError
	Warnings []domain.FieldError
}

func (p *Plan) fail(path, format string, args ...any) {
	p.Errors = append(p.Errors, domain.FieldError{Path: path, Message: fmt.Sprintf(format, args...)})
}

func (p *Plan) warn(path, format string, args ...any) {
	p.Warnings = append(p.Warnings, domain.FieldError{Path: path, Message: fmt.Sprintf(format, args...)})
}

// invalid is the 400 of preview and create for a plan with errors.
func (p *Plan) invalid() *domain.Error {
	msgs := make([]string, 0, 3)
	for i, e := range p.Errors {
		if i == 3 {
			break
		}
		msgs = append(msgs, e.Path+": "+e.Message)
	}
	e := domain.Invalid("the communication run is invalid: %s", strings.Join(msgs, "; "))
	e.Details = p.Errors
	return e
}

// PlanRun checks in beyond its schema at now and returns its plan. It does
// not check access: in.BusinessID must be a business the caller has access to.
// Every problem found is in the plan's Errors or Warnings; PlanRun changes
// nothing.
func PlanRun(tx *platform.Tx, now time.Time, in RunInput) *Plan {
	p := &Plan{Input: in}
	biz := in.BusinessID
	if in.AgentID != nil {
		if a, ok := tx.Agents.Get(*in.AgentID); ok && a.Owner == biz {
			p.Agent = a
		} else {
			p.fail("/agent_id", "is not an agent of business %s", biz)
		}
	}
	if in.AssignedNumberID != nil {
		v := *in.AssignedNumberID
		n, _ := tx.Numbers.Get(v)
		if strings.HasPrefix(v, "+") {
			n = tx.NumbersByPhone[v]
		}
		switch {
		case strings.HasPrefix(v, "+") && !runE164.MatchString(v):
			p.fail("/assigned_number_id", "must be an E.164 number or a number id")
		case n == nil || n.Owner != biz:
			p.fail("/assigned_number_id", "is not a number of business %s (give an E.164 number or a number id from GET /v1/numbers)", biz)
		default:
			p.Number = n
		}
	}
	if p.Agent == nil && p.Number != nil && in.AgentID == nil {
		if a, ok := tx.Agents.Get(p.Number.AgentID); ok && a.Owner == biz {
			p.Agent = a
		}
	}
	if p.Agent == nil && in.AgentID == nil {
		p.Agent = DefaultRunAgent(tx, biz)
		if p.Agent == nil {
			p.fail("/agent_id", "is required: business %s has no agent", biz)
		}
	}
	if p.Number == nil && in.AssignedNumberID == nil && p.Agent != nil {
		if n := tx.NumbersByPhone[p.Agent.PhoneNumber]; n != nil && n.Owner == biz {
			p.Number = n
		} else {
			p.fail("/assigned_number_id", "is required: agent %s has no phone number to call or text from", p.Agent.ID)
		}
	}
	p.planTouches(now)
	for i, t := range in.Touches {
		if t.Target.LeadID != nil {
			if l, ok := tx.Leads.Get(*t.Target.LeadID); !ok || l.Owner != biz {
				p.fail(fmt.Sprintf("/touches/%d/target/lead_id", i), "is not a lead of business %s", biz)
			}
		}
	}
	return p
}

// DefaultRunAgent returns the agent of a run without agent_id or number:
// the business's intake agent, else its oldest agent with a number (nil
// when it has neither).
func DefaultRunAgent(tx *platform.Tx, businessID string) *store.Agent {
	var withNumber *store.Agent
	for _, a := range tx.Agents.Owned(businessID) {
		if a.Intake {
			return a
		}
		if withNumber == nil && a.PhoneNumber != "" {
			withNumber = a
		}
	}
	return withNumber
}

// planTouches checks each touch and sets when it runs.
func (p *Plan) planTouches(now time.Time) {
	seen := map[string]int{}
	p.ExecuteAt = make([]time.Time, len(p.Input.Touches))
	for i, t := range p.Input.Touches {
		at := fmt.Sprintf("/touches/%d", i)
		if j, dup := seen[t.TouchID]; dup {
			p.fail(at+"/touch_id", "duplicate touch_id %q (also /touches/%d); touch ids must be unique in a run", t.TouchID, j)
		} else {
			seen[t.TouchID] = i
		}
		if !runE164.MatchString(t.Target.Phone) {
			p.fail(at+"/target/phone", "must be an E.164 number such as +15551230001")
		}
		if tz := t.Target.Timezone; tz != nil {
			if _, err := time.LoadLocation(*tz); err != nil || *tz == "" || *tz == "Local" {
				p.fail(at+"/target/timezone", "must be an IANA time zone such as America/New_York")
			}
		}
		switch t.Channel {
		case "sms":
			switch {
			case t.Message == nil || strings.TrimSpace(*t.Message) == "":
				p.fail(at+"/message", "is required for an sms touch")
			case len([]rune(*t.Message)) > maxRunSMSLength:
				p.fail(at+"/message", "must be at most %d characters", maxRunSMSLength)
			}
		case "call":
			if t.SMSCategory != nil {
				p.warn(at+"/sms_category", "is ignored on a call touch")
			}
		}
		exec := t.ScheduledAt.UTC()
		if w := t.TimingWindow; w != nil {
			if w.NotBefore != nil && w.NotAfter != nil && w.NotBefore.After(*w.NotAfter) {
				p.fail(at+"/timing_window", "not_before is after not_after")
				continue
			}
			if w.NotBefore != nil && exec.Before(*w.NotBefore) {
				exec = w.NotBefore.UTC()
				p.warn(at+"/scheduled_at", "is before timing_window.not_before; the touch runs at not_before")
			}
			if w.NotAfter != nil {
				switch {
				case w.NotAfter.Before(now):
					p.fail(at+"/timing_window/not_after", "is in the past; the touch could never run")
				case exec.After(*w.NotAfter):
					p.fail(at+"/scheduled_at", "is after timing_window.not_after")
				}
			}
		}
		if exec.Before(now) {
			p.warn(at+"/scheduled_at", "is in the past; the touch runs at once")
			exec = now.UTC()
		}
		p.ExecuteAt[i] = exec
	}
}

// decodeRun decodes and plans the body of validate, preview and create.
// Access problems (a business the key has no access to) are errors;
// everything else is in the plan.
func decodeRun(rc *httpapi.Ctx) (*Plan, error) {
	var in RunInput
	if err := rc.Decode(&in); err != nil {
		return nil, err
	}
	if _, err := rc.Business(in.BusinessID); err != nil {
		return nil, err
	}
	return PlanRun(rc.Tx, rc.Now, in), nil
}

// validateRun responds 200 with valid, errors and warnings: schema
// failures and rule failures alike are reported, not thrown. Only a body
// that is not JSON at all, and access errors, get an error response.
func (s *Service) validateRun(rc *httpapi.Ctx) (any, error) {
	if !json.Valid(rc.Body) {
		return nil, rc.Decode(nil)
	}
	p, err := decodeRun(rc)
	if err != nil {
		if apiErr, ok := err.(*domain.Error); ok && apiErr.Code == voiceagent.CodeInvalidRequest && len(apiErr.Details) > 0 {
			return runValidation(apiErr.Details, nil, 0), nil
		}
		return nil, err
	}
	return runValidation(p.Errors, p.Warnings, len(p.Input.Touches)), nil
}

func runValidation(errs, warns []domain.FieldError, touches int) runsapi.Validation {
	return runsapi.Validation{Valid: len(errs) == 0, Errors: errorDetails(errs), Warnings: errorDetails(warns), Touches: touches}
}

// errorDetails are field errors as the SDK's details: [] when none.
func errorDetails(errs []domain.FieldError) []voiceagent.ErrorDetail {
	out := make([]voiceagent.ErrorDetail, len(errs))
	for i, e := range errs {
		out[i] = voiceagent.ErrorDetail{Path: e.Path, Message: e.Message}
	}
	return out
}

// previewRun responds with what create would schedule, without scheduling
// it.
func (s *Service) previewRun(rc *httpapi.Ctx) (any, error) {
	p, err := decodeRun(rc)
	if err != nil {
		return nil, err
	}
	if len(p.Errors) > 0 {
		return nil, p.invalid()
	}
	return previewOf(p), nil
}

// previewOf is the preview of a plan without errors: its touches in
// execution order and their summary.
func previewOf(p *Plan) runPreview {
	v := runPreview{
		Valid: true, BusinessID: p.Input.BusinessID, ExternalRef: p.Input.ExternalRef, AgentID: p.Agent.ID,
		FromNumber: p.Number.PhoneNumber, FromNumberID: p.Number.ID,
		Touches: make([]previewTouch, len(p.Input.Touches)), Warnings: val.NonNil(p.Warnings),
	}
	var first, last time.Time
	for i, t := range p.Input.Touches {
		if t.Channel == "call" {
			v.Summary.Calls++
		} else {
			v.Summary.SMS++
		}
		at := p.ExecuteAt[i]
		if first.IsZero() || at.Before(first) {
			first = at
		}
		if at.After(last) {
			last = at
		}
		v.Touches[i] = previewTouch{
			TouchID: t.TouchID, Channel: t.Channel, To: t.Target.Phone, Name: t.Target.Name,
			ScheduledAt: t.ScheduledAt.UTC(), ExecuteAt: at, TimingWindow: t.TimingWindow,
			Message: t.Message, SMSCategory: t.SMSCategory,
		}
	}
	slices.SortStableFunc(v.Touches, func(a, b previewTouch) int {
		return time.Time(a.ExecuteAt).Compare(time.Time(b.ExecuteAt))
	})
	v.Summary.Touches, v.Summary.FirstAt, v.Summary.LastAt = len(v.Touches), first, last
	return v
}

// runPreview is the response of POST /v1/communication-runs/preview, members
// in the order of the OpenAPI document's CommunicationRunPreview.
type runPreview struct {
	Valid        bool                `json:"valid"`
	BusinessID   string              `json:"business_id"`
	ExternalRef  string              `json:"external_ref"`
	AgentID      string              `json:"agent_id"`
	FromNumber   string              `json:"from_number"`
	FromNumberID string              `json:"from_number_id"`
	Touches      []previewTouch      `json:"touches"`
	Summary      previewSummary      `json:"summary"`
	Warnings     []domain.FieldError `json:"warnings"`
}

// previewTouch is a touch as the preview shows it, in execution order.
type previewTouch struct {
	TouchID      string              `json:"touch_id"`
	Channel      string              `json:"channel"`
	To           string              `json:"to"`
	Name         *string             `json:"name"`
	ScheduledAt  time.Time           `json:"scheduled_at"`
	ExecuteAt    time.Time           `json:"execute_at"`
	TimingWindow *store.TimingWindow `json:"timing_window"`
	Message      *string             `json:"message"`
	SMSCategory  *string             `json:"sms_category"`
}

// previewSummary counts a preview's touches and gives when the first and
// the last run.
type previewSummary struct {
	Touches int       `json:"touches"`
	Calls   int       `json:"calls"`
	SMS     int       `json:"sms"`
	FirstAt time.Time `json:"first_at"`
	LastAt  time.Time `json:"last_at"`
}

// createRun stores the run and schedules its touches. The Idempotency-Key
// header is required (the pipeline replays the first response for it).
func (s *Service) createRun(rc *httpapi.Ctx) (any, error) {
	key := rc.Request.Header.Get("Idempotency-Key")
	if key == "" {
		e := domain.Invalid("the Idempotency-Key header is required to create a communication run (a retry with the same key returns the same run)")
		e.Details = []domain.FieldError{{Path: "Idempotency-Key", Message: "header is required"}}
		return nil, e
	}
	p, err := decodeRun(rc)
	if err != nil {
		return nil, err
	}
	if len(p.Errors) > 0 {
		return nil, p.invalid()
	}
	return httpapi.Created(RunView(s.CreateRun(rc.Tx, rc.Now, p, key))), nil
}

// TaskRunTouch is the kind of a run's touch on the schedule: Subject is
// the run, N the touch's index.
const TaskRunTouch = "run.touch"

// CreateRun stores the run of plan p, which has no errors, created at now
// under an idempotency key, and schedules each of its touches at its
// execution time on the tenant's clock. It returns the stored run.
func (s *Service) CreateRun(tx *platform.Tx, now time.Time, p *Plan, idempotencyKey string) *store.CommunicationRun {
	in := p.Input
	run := &store.CommunicationRun{
		ExternalRef: in.ExternalRef, AssignedNumberID: in.AssignedNumberID, AgentIDSent: in.AgentID,
		FromNumberID: p.Number.ID, FromNumber: p.Number.PhoneNumber, AgentID: p.Agent.ID,
		Metadata: in.Metadata, Status: runScheduled, IdempotencyKey: idempotencyKey,
	}
	for i, t := range in.Touches {
		run.Touches = append(run.Touches, &store.RunTouch{
			TouchID: t.TouchID, Channel: t.Channel, Target: t.Target, ScheduledAt: t.ScheduledAt.UTC(),
			TimingWindow: t.TimingWindow, Context: t.Context, Metadata: t.Metadata, Message: t.Message,
			SMSCategory: t.SMSCategory, Status: touchScheduled, ExecuteAt: p.ExecuteAt[i],
		})
	}
	tx.Runs.Insert(run, in.BusinessID, now)
	run.UpdatedAt = run.CreatedAt
	tenant := tx.TenantOf(in.BusinessID)
	for i, t := range run.Touches {
		s.Schedule(tenant, clock.Task{At: t.ExecuteAt, Kind: TaskRunTouch, Subject: run.ID, N: i})
	}
	return run
}

// runTouch is the task TaskRunTouch: it executes touch task.N of run
// task.Subject when the clock reaches it: it places the call or sends the
// text, with the touch's reference. A touch that is no longer scheduled
// (its run was deleted) does nothing.
func (s *Service) runTouch(tx *platform.Tx, now time.Time, task clock.Task) {
	run, ok := tx.Runs.Get(task.Subject)
	idx := task.N
	if !ok || idx < 0 || idx >= len(run.Touches) || run.Touches[idx].Status != touchScheduled {
		return
	}
	// The touch runs at its execute_at, which validation kept inside the
	// window, so the window is always open here.
	// A run's touches are part of it: every change of one is a change of
	// the run (Table.Update).
	t := run.Touches[idx]
	tx.Runs.Update(run, func(run *store.CommunicationRun) {
		t.Status, t.StartedAt = touchRunning, val.UtcPtr(now)
		run.UpdatedAt = now.UTC()
		if run.Status == runScheduled {
			run.Status, run.StartedAt = runRunning, val.UtcPtr(now)
		}
	})
	ref := store.TouchRef{CommunicationRunID: run.ID, ExternalRef: run.ExternalRef, TouchID: t.TouchID}
	tg := t.Target
	if t.Channel == "call" {
		var context string
		if len(t.Context) > 0 {
			context = string(jsonview.MustMarshal(t.Context))
		}
		id, err := s.telephony.PlaceTouchCall(tx, now, telephony.TouchCall{
			AgentID: run.AgentID, From: run.FromNumber, To: tg.Phone, Name: strValue(tg.Name),
			LeadID: strValue(tg.LeadID), FirstMessage: strValue(t.Message), Context: context, Ref: ref,
		})
		if err != nil {
			endTouch(tx, now, run, t, telephony.TouchFailed, telephony.TouchEnd{Code: err.Code, Message: err.Message})
			return
		}
		tx.Runs.Update(run, func(*store.CommunicationRun) { t.CallID = id })
		return
	}
	sid, err := s.telephony.SendTouchText(tx, now, telephony.TouchSMS{
		AgentID: run.AgentID, From: run.FromNumber, To: tg.Phone, Message: strValue(t.Message),
		LeadID: strValue(tg.LeadID), Timezone: strValue(tg.Timezone), Ref: ref,
	})
	if err != nil {
		status := telephony.TouchFailed
		if slices.Contains(telephony.SMSComplianceCodes, err.Code) {
			status = touchSkipped
		}
		endTouch(tx, now, run, t, status, telephony.TouchEnd{Code: err.Code, Message: err.Message})
		return
	}
	tx.Runs.Update(run, func(*store.CommunicationRun) { t.MessageSID = sid })
}

// runTouchEnded finishes the running touch of ref, whose call ended or
// text was delivered.
func runTouchEnded(tx *platform.Tx, now time.Time, ref store.TouchRef, end telephony.TouchEnd) {
	run, ok := tx.Runs.Get(ref.CommunicationRunID)
	if !ok {
		return // the run was deleted while the call was under way
	}
	for _, t := range run.Touches {
		if t.TouchID == ref.TouchID && t.Status == touchRunning {
			endTouch(tx, now, run, t, end.Status, end)
		}
	}
}

// endTouch moves a touch to a final state, and the run to its final state
// when every touch is final.
func endTouch(tx *platform.Tx, now time.Time, run *store.CommunicationRun, t *store.RunTouch, status string, end telephony.TouchEnd) {
	tx.Runs.Update(run, func(run *store.CommunicationRun) {
		t.Status, t.CompletedAt = status, val.UtcPtr(now)
		if end.Code != "" {
			t.Error = &store.TouchError{Code: end.Code, Message: end.Message}
		}
		if t.Channel == "call" && t.CallID != "" {
			t.Duration = &end.Duration
		}
		t.Summary = end.Summary
		run.UpdatedAt = now.UTC()
		completed := 0
		for _, x := range run.Touches {
			switch x.Status {
			case touchScheduled, touchRunning:
				return
			case telephony.TouchCompleted:
				completed++
			}
		}
		run.Status, run.CompletedAt = runFailed, val.UtcPtr(now)
		if completed > 0 {
			run.Status = runCompleted
		}
	})
}

func (s *Service) getRuns(rc *httpapi.Ctx) (any, error) {
	status, ref := rc.Query("status"), rc.Query("external_ref")
	if status != "" && !slices.Contains([]string{runScheduled, runRunning, runCompleted, runFailed}, status) {
		return nil, domain.InvalidField("status", "must be one of scheduled, running, completed, failed")
	}
	var match func(*store.CommunicationRun) bool
	if status != "" || ref != "" {
		match = func(r *store.CommunicationRun) bool {
			return (status == "" || r.Status == status) && (ref == "" || r.ExternalRef == ref)
		}
	}
	return httpapi.ReadOrList(rc, rc.Tx.Runs, "communication run", match, RunView, func(items []Run, more bool) any {
		return runList{CommunicationRuns: items, HasMore: more}
	})
}

// runList is a page of GET /v1/communication-runs.
type runList struct {
	CommunicationRuns []Run `json:"communication_runs"`
	HasMore           bool  `json:"has_more"`
}

// deleteRun cancels the touches that have not started and removes the run.
// A touch already running finishes (its call or text is under way).
func (s *Service) deleteRun(rc *httpapi.Ctx) (any, error) {
	run, err := httpapi.DeleteOwned(rc, rc.Tx.Runs, "communication run")
	if err != nil {
		return nil, err
	}
	canceled := 0
	// Out of the table already, but changed through Update as every kept
	// record is.
	rc.Tx.Runs.Update(run, func(run *store.CommunicationRun) {
		for _, t := range run.Touches {
			if t.Status == touchScheduled {
				t.Status, t.CompletedAt = touchCanceled, val.UtcPtr(rc.Now)
				canceled++
			}
		}
		run.UpdatedAt = rc.Now.UTC()
	})
	return runsapi.Deleted{Success: true, ID: run.ID, CanceledTouches: canceled}, nil
}

// Run is a communication run as the API shows it (GET
// /v1/communication-runs, the create's response), members in the order of
// the OpenAPI document's CommunicationRun.
type Run struct {
	ID               string         `json:"id"`
	BusinessID       string         `json:"business_id"`
	ExternalRef      string         `json:"external_ref"`
	Status           string         `json:"status"`
	AgentID          string         `json:"agent_id"`
	AssignedNumberID *string        `json:"assigned_number_id"`
	FromNumber       string         `json:"from_number"`
	FromNumberID     string         `json:"from_number_id"`
	Metadata         map[string]any `json:"metadata"`
	Touches          []Touch        `json:"touches"`
	TouchCounts      TouchCounts    `json:"touch_counts"`
	IdempotencyKey   string         `json:"idempotency_key"`
	CreatedAt        time.Time      `json:"created_at"`
	UpdatedAt        time.Time      `json:"updated_at"`
	StartedAt        *time.Time     `json:"started_at"`
	CompletedAt      *time.Time     `json:"completed_at"`
}

// TouchCounts counts a run's touches per status. canceled appears only
// when a touch was canceled (the run is being deleted).
type TouchCounts struct {
	Scheduled int `json:"scheduled"`
	Running   int `json:"running"`
	Completed int `json:"completed"`
	Failed    int `json:"failed"`
	Skipped   int `json:"skipped"`
	Canceled  int `json:"canceled,omitempty"`
}

// add counts a touch of the status.
func (c *TouchCounts) add(status string) {
	switch status {
	case touchScheduled:
		c.Scheduled++
	case touchRunning:
		c.Running++
	case telephony.TouchCompleted:
		c.Completed++
	case telephony.TouchFailed:
		c.Failed++
	case touchSkipped:
		c.Skipped++
	case touchCanceled:
		c.Canceled++
	}
}

// Touch is a touch of a run with its execution state, members in the
// order of the OpenAPI document's RunTouch.
type Touch struct {
	TouchID      string              `json:"touch_id"`
	Channel      string              `json:"channel"`
	Target       store.RunTarget     `json:"target"`
	ScheduledAt  time.Time           `json:"scheduled_at"`
	TimingWindow *store.TimingWindow `json:"timing_window"`
	Context      map[string]any      `json:"context"`
	Metadata     map[string]any      `json:"metadata"`
	Message      *string             `json:"message"`
	SMSCategory  *string             `json:"sms_category"`
	Status       string              `json:"status"`
	ExecuteAt    time.Time           `json:"execute_at"`
	StartedAt    *time.Time          `json:"started_at"`
	CompletedAt  *time.Time          `json:"completed_at"`
	CallID       *string             `json:"call_id"`
	MessageSID   *string             `json:"message_sid"`
	Duration     *int                `json:"duration"`
	Summary      *string             `json:"summary"`
	Error        *store.TouchError   `json:"error"`
}

// RunView is a communication run as the API shows it. The view shares the
// run's maps and strings: it is encoded before the Tx that read it ends.
func RunView(r *store.CommunicationRun) Run {
	v := Run{
		ID: r.ID, BusinessID: r.Owner, ExternalRef: r.ExternalRef, Status: r.Status,
		AgentID: r.AgentID, AssignedNumberID: r.AssignedNumberID,
		FromNumber: r.FromNumber, FromNumberID: r.FromNumberID, Metadata: r.Metadata,
		Touches: make([]Touch, len(r.Touches)), IdempotencyKey: r.IdempotencyKey,
		CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt,
		StartedAt: r.StartedAt, CompletedAt: r.CompletedAt,
	}
	for i, t := range r.Touches {
		v.Touches[i] = touchView(t)
		v.TouchCounts.add(t.Status)
	}
	return v
}

// touchView is a touch as its run's view shows it.
func touchView(t *store.RunTouch) Touch {
	return Touch{
		TouchID: t.TouchID, Channel: t.Channel, Target: t.Target,
		ScheduledAt: t.ScheduledAt, TimingWindow: t.TimingWindow,
		Context: t.Context, Metadata: t.Metadata, Message: t.Message, SMSCategory: t.SMSCategory,
		Status: t.Status, ExecuteAt: t.ExecuteAt, StartedAt: t.StartedAt,
		CompletedAt: t.CompletedAt, CallID: val.NullIfEmpty(&t.CallID),
		MessageSID: val.NullIfEmpty(&t.MessageSID), Duration: t.Duration,
		Summary: val.NullIfEmpty(&t.Summary), Error: t.Error,
	}
}

// strValue is *s, or "" for nil.
func strValue(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
