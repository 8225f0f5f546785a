package telephony

import (
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // business and recipient time zones without the host's zoneinfo

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// callCreateBody is POST /v1/calls.
type callCreateBody struct {
	AgentID           string  `json:"agent_id"`
	To                string  `json:"to"`
	Name              *string `json:"name"`
	CustomerName      *string `json:"customer_name"`
	Context           string  `json:"context"`
	FirstMessageCamel *string `json:"firstMessage"`
	FirstMessage      *string `json:"first_message"`
	LeadID            string  `json:"lead_id"`
	WebhookURL        string  `json:"webhook_url"`
	MaxDuration       *int    `json:"max_duration"`
}

func (s *Service) createCall(rc *httpapi.Ctx) (any, error) {
	var body callCreateBody
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	a, err := AgentOf(rc, body.AgentID)
	if err != nil {
		return nil, err
	}
	if body.WebhookURL != "" {
		if err := s.hooks.CheckTarget(body.WebhookURL); err != nil {
			return nil, domain.InvalidField("webhook_url", "%v", err)
		}
	}
	var lead *store.Lead
	if body.LeadID != "" {
		l, ok := rc.Tx.Leads.Get(body.LeadID)
		if !ok || l.Owner != a.Owner {
			return nil, domain.NotFound("lead not found: " + body.LeadID)
		}
		lead = l
	}
	name := ""
	for _, n := range []*string{body.Name, body.CustomerName} {
		if n != nil {
			name = *n
		}
	}
	first := ""
	for _, m := range []*string{body.FirstMessageCamel, body.FirstMessage} {
		if m != nil {
			first = *m
		}
	}
	c, apiErr := s.PlaceOutboundCall(rc.Tx, rc.Now, OutboundCall{
		Agent: a, To: body.To, Name: name, Context: body.Context, FirstMessage: first,
		WebhookURL: body.WebhookURL, MaxDuration: body.MaxDuration, Lead: lead,
		ProviderFault: func() *domain.Error { return rc.DependencyFault(admin.FaultTargetVoiceProvider) },
	})
	if apiErr != nil {
		return nil, apiErr
	}
	return httpapi.Created(calls.Created{
		ID: c.ID, ConversationID: c.ConversationID, Status: calls.Status(c.Status), AgentID: c.AgentID,
		To: c.To, Name: val.Strp(c.Name), CreatedAt: c.CreatedAt,
	}), nil
}

// ErrMagicCallFailed is the carrier's refusal of the magic failing number.
func ErrMagicCallFailed(to string) *domain.Error {
	return domain.Dependency(voiceagent.CodeCallFailed,
		"the outbound call could not be placed: the carrier rejected "+to)
}

// OutboundCall is an outbound call to place: what POST /v1/calls sends, and
// what the platform's own processes place (communication run touches,
// approval requests, the SDR pipeline).
type OutboundCall struct {
	Agent        *store.Agent
	To           string
	Name         string
	Context      string
	FirstMessage string // "" the agent's outbound greeting
	WebhookURL   string
	MaxDuration  *int        // nil: the agent's, else 600
	Lead         *store.Lead // nil: the business's lead with that number, if any
	From         string      // "" the agent's number (BusinessNumber)
	Ref          store.TouchRef
	// ProviderFault reports a simulated voice provider failure (nil: none).
	ProviderFault func() *domain.Error
}

// PlaceOutboundCall places an outbound call: the tenant's script, the
// magic failing number and the voice provider are checked, the call is
// stored queued with its enrichment variables and the clock takes it on.
// The call follows the tenant's next script step for the number, if any,
// else the default simulation.
func (s *Service) PlaceOutboundCall(tx *platform.Tx, now time.Time, oc OutboundCall) (*store.Call, *domain.Error) {
	a := oc.Agent
	step := tx.NextStep(tx.TenantOf(a.Owner), store.StepCall, oc.To)
	refusal := callRefusal(step, oc.To)
	if refusal != nil && step == nil {
		return nil, refusal // the magic number: refused before the provider is asked
	}
	if oc.ProviderFault != nil {
		if e := oc.ProviderFault(); e != nil {
			e.Code = voiceagent.CodeVendorError
			e.Message = "the voice provider refused the call: " + e.Message
			return nil, e
		}
	}
	if refusal != nil {
		tx.UseStep(step, "", now) // a rejected step, used by the refused call
		return nil, refusal
	}
	lead, name := oc.Lead, oc.Name
	if lead == nil {
		lead = tx.LeadByPhone(a.Owner, oc.To)
	}
	b, _ := tx.Businesses.Get(a.Owner)
	maxDur := DefaultMaxDuration
	switch {
	case oc.MaxDuration != nil:
		maxDur = *oc.MaxDuration
	case a.MaxDuration >= 1:
		maxDur = a.MaxDuration
	}
	from := oc.From
	if from == "" {
		from = BusinessNumber(tx, a)
	}

	c := &store.Call{
		ConversationID: "conv_" + s.IDs.Token(12),
		Status:         store.CallQueued,
		Direction:      store.DirectionOutbound,
		AgentID:        a.ID,
		AgentName:      a.Name,
		To:             oc.To,
		From:           from,
		Name:           name,
		Context:        oc.Context,
		WebhookURL:     oc.WebhookURL,
		MaxDuration:    maxDur,
		Ref:            store.RefTo(oc.Ref),
	}
	if lead != nil {
		c.LeadID = lead.ID
	}
	vars := callVariables(now, b, c.From, lead, name)
	if c.Name == "" {
		c.Name = vars.Name
	}
	c.FirstMessage = fillVariables(outboundOpening(oc.FirstMessage, a, b, c.Name), vars)
	prompt := val.FirstNonEmpty(a.OutboundPrompt, a.InboundPrompt)
	if c.Context != "" {
		prompt += "\n\nContext: " + c.Context
	}
	c.Provider = store.ProviderCall{
		AssistantID: a.VendorAssistantID, Prompt: fillVariables(prompt, vars), Variables: vars,
	}
	c.PlannedDuration = simulatedDuration(c.To)
	outcome := callOutcome(c.To, step)
	ring := outboundRingTime
	if step != nil {
		c.Step = step.ID
		if step.Duration != nil {
			c.PlannedDuration = *step.Duration
		}
	}
	if outcome == store.StepNoAnswer {
		ring = noAnswerRingTime
	}
	if step != nil && step.RingSeconds != nil {
		ring = time.Duration(*step.RingSeconds) * time.Second
	}
	tx.Calls.Insert(c, a.Owner, now)
	c.UpdatedAt = c.CreatedAt
	if step != nil {
		tx.UseStep(step, c.ID, now)
	}

	switch outcome {
	case store.StepNoAnswer, store.StepBusy:
		s.scheduleCall(tx, c, now.Add(ring), TaskCallFail)
	case store.StepVoicemail:
		s.scheduleCall(tx, c, now.Add(ring), TaskCallVoicemail)
	default:
		s.scheduleCall(tx, c, now.Add(ring), TaskCallAnswer)
	}
	return c, nil
}

// BusinessNumber is the number a call or text of an agent comes from: the
// agent's own, else the business's first number, else "".
func BusinessNumber(tx *platform.Tx, a *store.Agent) string {
	if a.PhoneNumber != "" {
		return a.PhoneNumber
	}
	if nums := tx.Numbers.Owned(a.Owner); len(nums) > 0 {
		return nums[0].PhoneNumber
	}
	return ""
}

// Kinds of the simulated calls' tasks on the schedule (Subject: the call).
const (
	// TaskCallAnswer: the call is answered (outbound, or inbound after the
	// ring).
	TaskCallAnswer = "call.answer"
	// TaskCallFail: an outbound call fails (busy, no answer).
	TaskCallFail = "call.fail"
	// TaskCallVoicemail: an outbound call reaches a voicemail box.
	TaskCallVoicemail = "call.voicemail"
	// TaskCallMissed: nobody answers an inbound call.
	TaskCallMissed = "call.missed"
	// TaskCallEnd: the conversation ends.
	TaskCallEnd = "call.end"
)

// scheduleCall puts the next step of call c, of kind, on its tenant's
// clock at at (see defineCallTasks).
func (s *Service) scheduleCall(tx *platform.Tx, c *store.Call, at time.Time, kind string) {
	s.Schedule(tx.TenantOf(c.Owner), clock.Task{At: at, Kind: kind, Subject: c.ID})
}

// defineCallTasks defines the kinds of the calls' tasks: each runs its step
// on the call (Subject) unless the call is gone (reset) or already
// finished. A kind that is the step of more than one kind of call picks
// its step from the call: its direction, and whether it reached a
// voicemail box.
func (s *Service) defineCallTasks() {
	step := func(step func(tx *platform.Tx, c *store.Call, now time.Time)) platform.TaskFunc {
		return func(tx *platform.Tx, now time.Time, t clock.Task) {
			if c, ok := tx.Calls.Get(t.Subject); ok && !c.Ended() {
				step(tx, c, now)
			}
		}
	}
	s.DefineTask(TaskCallAnswer, step(func(tx *platform.Tx, c *store.Call, now time.Time) {
		if c.Direction == store.DirectionInbound {
			s.answerInbound(tx, c, now)
		} else {
			s.answerOutbound(tx, c, now)
		}
	}))
	s.DefineTask(TaskCallFail, step(func(tx *platform.Tx, c *store.Call, now time.Time) {
		step, _ := tx.Scripts.Get(c.Step)
		s.failCall(tx, now, c, callOutcome(c.To, step))
	}))
	s.DefineTask(TaskCallVoicemail, step(s.reachVoicemail))
	s.DefineTask(TaskCallMissed, step(s.missInbound))
	s.DefineTask(TaskCallEnd, step(func(tx *platform.Tx, c *store.Call, now time.Time) {
		switch {
		case c.Direction == store.DirectionInbound:
			s.endInbound(tx, c, now)
		case c.VoicemailMessage != "":
			s.endVoicemail(tx, c, now)
		default:
			s.completeOutbound(tx, c, now)
		}
	}))
}

// callOutcome is how an outbound call to number to goes: that of its
// script step when it follows one, else that of the magic numbers (no
// answer, busy), else it completes.
func callOutcome(to string, step *store.ScriptStep) string {
	if step != nil {
		return step.Outcome
	}
	switch to {
	case magicCallNoAnswer:
		return store.StepNoAnswer
	case magicCallBusy:
		return store.StepBusy
	}
	return store.StepCompleted
}

// answerOutbound: the callee picks up (queued -> in-progress, call.started);
// the conversation ends after the simulated duration, capped by
// max_duration.
func (s *Service) answerOutbound(tx *platform.Tx, c *store.Call, now time.Time) {
	s.startCall(tx, now, c)
	d := min(c.PlannedDuration, c.MaxDuration)
	s.scheduleCall(tx, c, now.Add(time.Duration(d)*time.Second), TaskCallEnd)
}

func (s *Service) startCall(tx *platform.Tx, now time.Time, c *store.Call) {
	tx.Calls.Update(c, func(c *store.Call) {
		at := now.UTC()
		c.Status = store.CallInProgress
		c.StartedAt = &at
		c.UpdatedAt = val.Later(c.UpdatedAt, now)
	})
	s.Emit(tx, c.Owner, webhooks.EventCallStarted, now, callDetail(tx, c))
}

// finishCall sets what every finished conversation has. It changes c:
// call it in Calls.Update's change function.
func finishCall(tx *platform.Tx, now time.Time, c *store.Call, status string, duration int) {
	at := now.UTC()
	c.Status = status
	c.Duration = duration
	c.EndedAt = &at
	c.UpdatedAt = val.Later(c.UpdatedAt, now)
	c.Recorded = true
	tx.AddCallMinutes(c.Owner, duration)
}

// completeOutbound ends an answered outbound call: the conversation of its
// script step when it has one, else the simulated one.
func (s *Service) completeOutbound(tx *platform.Tx, c *store.Call, now time.Time) {
	b, _ := tx.Businesses.Get(c.Owner)
	capped := c.PlannedDuration > c.MaxDuration
	step, _ := tx.Scripts.Get(c.Step)
	var info leadInfo
	if step != nil && step.Caller != nil {
		info = extractLead(store.CallerInput{Name: step.Caller.Name, Email: step.Caller.Email, Intent: step.Caller.Intent}, c.To)
	}
	tx.Calls.Update(c, func(c *store.Call) {
		finishCall(tx, now, c, store.CallCompleted, min(c.PlannedDuration, c.MaxDuration))
		c.Transcript, c.Summary = outboundConversation(c, b, capped)
		if step != nil && len(step.Transcript) > 0 {
			c.Transcript = scriptedTranscript(step.Transcript)
		}
		if step != nil && step.Summary != "" {
			c.Summary = step.Summary
		}
		if note := s.CallKnowledgeNote(tx, c); note != "" {
			c.Summary += " " + note
		}
		c.Quality = qualityFor(c.To, len(info.captured()), capped)
		c.EndedReason = "completed"
		if capped {
			c.EndedReason = "max_duration"
		}
	})
	if step != nil && step.Caller != nil {
		l := s.collectLead(tx, now, c.Owner, c.AgentID, c.To, info, sourceOutboundCall)
		if c.LeadID == "" {
			tx.Calls.Update(c, func(c *store.Call) { c.LeadID = l.ID })
		}
	} else if l, ok := tx.Leads.Get(c.LeadID); ok {
		s.touchLead(tx, now, l, true)
	}
	s.endOutbound(tx, c, now)
}

// reachVoicemail: the call reaches a voicemail box, and the agent leaves
// its message (queued -> in-progress, call.started); the call completes
// when the message ends, with ended_reason voicemail.
func (s *Service) reachVoicemail(tx *platform.Tx, c *store.Call, now time.Time) {
	s.startCall(tx, now, c)
	a, _ := tx.Agents.Get(c.AgentID)
	b, _ := tx.Businesses.Get(c.Owner)
	msg := voicemailMessage(a, b, c)
	tx.Calls.Update(c, func(c *store.Call) { c.VoicemailMessage = msg })
	s.scheduleCall(tx, c, now.Add(time.Duration(voicemailLength(c))*time.Second), TaskCallEnd)
}

// voicemailLength is how long the message an outbound call leaves on a
// voicemail box lasts, capped by max_duration, in seconds.
func voicemailLength(c *store.Call) int {
	return min(voicemailDuration(c.VoicemailMessage), c.MaxDuration)
}

// endVoicemail completes an outbound call that left its message on a
// voicemail box, with ended_reason voicemail.
func (s *Service) endVoicemail(tx *platform.Tx, c *store.Call, now time.Time) {
	step, _ := tx.Scripts.Get(c.Step)
	tx.Calls.Update(c, func(c *store.Call) {
		finishCall(tx, now, c, store.CallCompleted, voicemailLength(c))
		c.Transcript = "Agent: " + c.VoicemailMessage
		c.Summary = "Outbound call to " + val.FirstNonEmpty(c.Name, c.To) + " reached voicemail; the agent left a message."
		if step != nil && step.Summary != "" {
			c.Summary = step.Summary
		}
		c.EndedReason = "voicemail"
	})
	if l, ok := tx.Leads.Get(c.LeadID); ok {
		s.touchLead(tx, now, l, true)
	}
	s.endOutbound(tx, c, now)
}

// endOutbound announces a finished outbound call: call.completed, its
// per-call webhook and CallEnded.
func (s *Service) endOutbound(tx *platform.Tx, c *store.Call, now time.Time) {
	ev := s.Emit(tx, c.Owner, webhooks.EventCallCompleted, now, callDetail(tx, c))
	if c.WebhookURL != "" {
		s.hooks.EnqueueCallWebhook(tx, c, ev, webhooks.CallWebhook{
			Event: webhooks.EventType(ev.Type), CallID: c.ID, Status: c.Status, Duration: c.Duration,
			RecordingURL: RecordingURL(c), Summary: c.Summary, Timestamp: ev.Timestamp,
		})
	}
	s.CallEnded(tx, now, c)
}

// failCall ends an outbound call that never connected.
func (s *Service) failCall(tx *platform.Tx, now time.Time, c *store.Call, reason string) {
	tx.Calls.Update(c, func(c *store.Call) {
		at := now.UTC()
		c.Status = store.CallFailed
		c.Error = reason
		c.EndedReason = reason
		c.EndedAt = &at
		c.UpdatedAt = val.Later(c.UpdatedAt, now)
	})
	ev := s.Emit(tx, c.Owner, webhooks.EventCallFailed, now, callDetail(tx, c))
	if c.WebhookURL != "" {
		s.hooks.EnqueueCallWebhook(tx, c, ev, webhooks.CallWebhook{
			Event: webhooks.EventType(ev.Type), CallID: c.ID, Status: c.Status, Error: reason, Timestamp: ev.Timestamp,
		})
	}
	s.CallEnded(tx, now, c)
}

func (s *Service) getCalls(rc *httpapi.Ctx) (any, error) {
	if id := rc.Query("id"); id != "" {
		c, err := httpapi.Reachable(rc, rc.Tx.Calls, id, "call")
		if err != nil {
			return nil, err
		}
		return callDetail(rc.Tx, c), nil
	}
	pq, owners, err := rc.ListQuery(50, 100)
	if err != nil {
		return nil, err
	}
	agentID, status := rc.Query("agent_id"), rc.Query("status")
	recs, more := httpapi.PageRecords(rc.Tx.Calls, owners, pq, func(c *store.Call) bool {
		return (agentID == "" || c.AgentID == agentID) && (status == "" || c.Status == status)
	})
	items := make([]calls.Call, len(recs))
	for i, c := range recs {
		items[i] = callListItem(rc.Tx, c)
	}
	return callList{Calls: items, HasMore: more}, nil
}

// callList is a page of GET /v1/calls.
type callList struct {
	Calls   []calls.Call `json:"calls"`
	HasMore bool         `json:"has_more"`
}

func (s *Service) listTranscripts(rc *httpapi.Ctx) (any, error) {
	pq, owners, err := rc.ListQuery(20, 50)
	if err != nil {
		return nil, err
	}
	days, err := rc.IntQuery("days", 30, 1, 90)
	if err != nil {
		return nil, err
	}
	since := rc.Now.Add(-time.Duration(days) * 24 * time.Hour)
	agentID := rc.Query("agent_id")
	items := make([]calls.Transcript, 0, min(pq.Limit, 64))
	more := false
	rc.Tx.Calls.Scan(owners, pq.After, func(c *store.Call) bool {
		if c.CreatedAt.Before(since) {
			return false // older calls are outside the window: stop
		}
		if c.Transcript == "" || (agentID != "" && c.AgentID != agentID) {
			return true
		}
		if len(items) == pq.Limit {
			more = true
			return false
		}
		items = append(items, transcriptItem(rc.Tx, c))
		return true
	})
	return transcriptList{Transcripts: items, HasMore: more}, nil
}

// transcriptList is a page of GET /v1/transcripts.
type transcriptList struct {
	Transcripts []calls.Transcript `json:"transcripts"`
	HasMore     bool               `json:"has_more"`
}

// transcriptItem is a call's transcript as GET /v1/transcripts shows it.
func transcriptItem(tx *platform.Tx, c *store.Call) calls.Transcript {
	return calls.Transcript{
		CallID: c.ID, ConversationID: c.ConversationID, AgentID: c.AgentID,
		AgentName: agentName(tx, c), Status: calls.Status(c.Status), Duration: c.Duration,
		Transcript: c.Transcript, Summary: val.Strp(c.Summary), CreatedAt: c.CreatedAt,
	}
}

// agentName is the agent's current name, or its name when the call was
// placed if the agent is gone.
func agentName(tx *platform.Tx, c *store.Call) string {
	if a, ok := tx.Agents.Get(c.AgentID); ok {
		return a.Name
	}
	return c.AgentName
}

// callListItem is a call as GET /v1/calls shows it: the spec's list
// members and the quickstart's direction and summary.
func callListItem(tx *platform.Tx, c *store.Call) calls.Call {
	return calls.Call{
		ID: c.ID, ConversationID: c.ConversationID, Status: calls.Status(c.Status), Duration: c.Duration,
		AgentID: c.AgentID, AgentName: agentName(tx, c), CreatedAt: c.CreatedAt,
		Direction: c.Direction, Summary: val.Strp(c.Summary),
	}
}

// CallDetail is a call as GET /v1/calls?id=, GET /_mock/calls, POST
// /_mock/inbound-call and the data of call.* and voicemail.received events
// show it: every member of the OpenAPI document's CallDetail, null when
// unset (where calls.Call omits the members a list item lacks), the list
// item's members first in their order, and the reference members of a call
// placed by a communication run touch or an approval request only when set.
type CallDetail struct {
	ID                string                   `json:"id"`
	ConversationID    string                   `json:"conversation_id"`
	Status            string                   `json:"status"`
	Duration          int                      `json:"duration"`
	AgentID           string                   `json:"agent_id"`
	AgentName         string                   `json:"agent_name"`
	CreatedAt         time.Time                `json:"created_at"`
	Direction         string                   `json:"direction"`
	Summary           *string                  `json:"summary"`
	BusinessID        string                   `json:"business_id"`
	LeadID            *string                  `json:"lead_id"`
	RecordingURL      *string                  `json:"recording_url"`
	Transcript        *string                  `json:"transcript"`
	QualityDimensions *store.QualityDimensions `json:"quality_dimensions"`
	To                string                   `json:"to"`
	From              *string                  `json:"from"`
	Name              *string                  `json:"name"`
	Context           *string                  `json:"context"`
	MaxDuration       int                      `json:"max_duration"`
	Error             *string                  `json:"error"`
	EndedReason       *string                  `json:"ended_reason"`
	Voicemail         *string                  `json:"voicemail"`
	StartedAt         *time.Time               `json:"started_at"`
	EndedAt           *time.Time               `json:"ended_at"`
	UpdatedAt         time.Time                `json:"updated_at"`
	voiceagent.TouchRef
}

// callDetail is a call's detail view. Its nullable members are copies of
// the call's strings.
func callDetail(tx *platform.Tx, c *store.Call) CallDetail {
	return CallDetail{
		ID: c.ID, ConversationID: c.ConversationID, Status: c.Status, Duration: c.Duration,
		AgentID: c.AgentID, AgentName: agentName(tx, c), CreatedAt: c.CreatedAt,
		Direction: c.Direction, Summary: val.Strp(c.Summary), BusinessID: c.Owner,
		LeadID: val.Strp(c.LeadID), RecordingURL: val.Strp(RecordingURL(c)),
		Transcript: val.Strp(c.Transcript), QualityDimensions: c.Quality, To: c.To,
		From: val.Strp(c.From), Name: val.Strp(c.Name),
		Context: val.Strp(c.Context), MaxDuration: c.MaxDuration,
		Error: val.Strp(c.Error), EndedReason: val.Strp(c.EndedReason),
		Voicemail: val.Strp(c.CallerInfo().Voicemail), StartedAt: c.StartedAt,
		EndedAt: c.EndedAt, UpdatedAt: c.UpdatedAt,
		TouchRef: voiceagent.TouchRef(c.Touch()),
	}
}

// DefaultMaxDuration is the longest a call lasts, in seconds, when neither
// the request nor the agent sets max_duration (spec section 8).
const DefaultMaxDuration = 600

// RecordingURLBase is where finished calls' recordings are: the call's
// recording_url is this, the call's id and ".mp3".
const RecordingURLBase = "https://recordings.voiceagent.example/"

// RecordingURL is the recording_url of a call: RecordingURLBase, its id
// and ".mp3" when it has a recording, else "".
func RecordingURL(c *store.Call) string {
	if !c.Recorded {
		return ""
	}
	return RecordingURLBase + c.ID + ".mp3"
}

// Simulated call timings (docs/mockserver.md, section Call states).
const (
	outboundRingTime     = 2 * time.Second  // queued -> in-progress (or busy)
	noAnswerRingTime     = 30 * time.Second // how long an unanswered call rings
	inboundRingTime      = 2 * time.Second  // ringing -> in-progress
	minSimulatedDuration = 30               // seconds
	maxSimulatedDuration = 300              // seconds
)

// Magic call numbers (docs/mockserver.md, section Magic values).
const (
	magicCallNoAnswer = "+15005550001" // rings 30 seconds, then fails: no_answer
	magicCallBusy     = "+15005550002" // fails after the ring time: busy

	// MagicCallFailed is the number whose calls the carrier refuses:
	// POST /v1/calls responds 500 call_failed and stores nothing.
	MagicCallFailed = "+15005550003"
)

// hash32 is the deterministic source of everything "derived from the
// number": durations and quality scores.
func hash32(s string) uint32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	return h.Sum32()
}

// simulatedDuration is a conversation's length derived from a number: 30 to
// 300 seconds.
func simulatedDuration(number string) int {
	return minSimulatedDuration + int(hash32(number)%uint32(maxSimulatedDuration-minSimulatedDuration+1))
}

// qualityFor scores a finished conversation from 1 to 10 per dimension:
// a base derived from the other party's number, plus information gathering
// for each detail captured, and resolution lowered when the call was cut by
// max_duration.
func qualityFor(number string, captured int, capped bool) *store.QualityDimensions {
	h := hash32("quality:" + number)
	q := &store.QualityDimensions{
		Professionalism:      7 + int(h%4),
		Empathy:              6 + int((h>>4)%5),
		InformationGathering: min(10, 5+int((h>>8)%3)+captured),
		Resolution:           6 + int((h>>12)%5),
	}
	if capped {
		q.Resolution = 3
	}
	return q
}

var (
	locMu    sync.Mutex
	locCache = map[string]*time.Location{}
)

// location loads a time zone once; unknown names fall back to UTC.
func location(name string) *time.Location {
	locMu.Lock()
	defer locMu.Unlock()
	if l, ok := locCache[name]; ok {
		return l
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		l = time.UTC
	}
	locCache[name] = l
	return l
}

// BusinessLocation is a business's time zone (America/New_York by default).
func BusinessLocation(b *store.Business) *time.Location {
	if b == nil || b.Timezone == "" {
		return location("America/New_York")
	}
	return location(b.Timezone)
}

// timeOfDay is morning (05:00-11:59), afternoon (12:00-16:59) or evening
// (17:00-04:59) at t in loc.
func timeOfDay(t time.Time, loc *time.Location) string {
	switch h := t.In(loc).Hour(); {
	case h >= 5 && h < 12:
		return "morning"
	case h >= 12 && h < 17:
		return "afternoon"
	}
	return "evening"
}

// callVariables are the enrichment variables the agent's prompt receives.
// With a lead (lead_id, or a lead whose phone is the number called): name,
// lead_score, lead_status, interaction_count, days_since_first_contact and
// lead_source; always: business_name, business_phone and time_of_day; name
// also when the request gives one.
func callVariables(now time.Time, b *store.Business, from string, lead *store.Lead, name string) store.CallVariables {
	v := store.CallVariables{BusinessName: b.Name, BusinessPhone: from, TimeOfDay: timeOfDay(now, BusinessLocation(b)), Name: name}
	if lead != nil {
		if v.Name == "" && lead.Name != nil {
			v.Name = *lead.Name
		}
		v.Lead = true
		v.LeadScore, v.LeadStatus, v.InteractionCount = int32(lead.Score), lead.Status, int32(lead.Interactions)
		v.DaysSinceFirstContact = int32(now.Sub(lead.CreatedAt) / (24 * time.Hour))
		v.LeadSource = lead.Source
	}
	return v
}

// fillVariables replaces {{name}} placeholders in text with the variables.
func fillVariables(text string, v store.CallVariables) string {
	if !strings.Contains(text, "{{") {
		return text
	}
	vars := v.Map()
	pairs := make([]string, 0, 2*len(vars))
	for k, v := range vars {
		s := ""
		if v != nil {
			s = fmt.Sprint(v)
		}
		pairs = append(pairs, "{{"+k+"}}", s, "{{ "+k+" }}", s)
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// outboundOpening is the opening line of an outbound call: the request's
// firstMessage, else the agent's outbound greeting, else a generated one.
func outboundOpening(override string, a *store.Agent, b *store.Business, name string) string {
	switch {
	case override != "":
		return override
	case a.OutboundFirstMessage != "":
		return a.OutboundFirstMessage
	case name != "":
		return fmt.Sprintf("Hi %s, this is %s calling from %s.", name, a.Name, b.Name)
	}
	return fmt.Sprintf("Hi, this is %s calling from %s.", a.Name, b.Name)
}

// outboundConversation writes the transcript and summary of a completed
// outbound call.
func outboundConversation(c *store.Call, b *store.Business, capped bool) (transcript, summary string) {
	who := c.Name
	if who == "" {
		who = c.To
	}
	about := "a follow-up on their recent inquiry"
	if c.Context != "" {
		about = c.Context
	}
	lines := []string{
		"Agent: " + c.FirstMessage,
		"Caller: Hi, yes, this is " + val.FirstNonEmpty(c.Name, "me") + ".",
		"Agent: I'm calling about " + strings.TrimSuffix(about, ".") + ".",
		"Caller: Sure, that works for me.",
	}
	if capped {
		lines = append(lines, "Agent: We've reached the time limit for this call, so I'll follow up by text. Goodbye.")
		summary = fmt.Sprintf("Outbound call to %s about %s; the call reached its %d-second limit before wrapping up.",
			who, strings.TrimSuffix(about, "."), c.MaxDuration)
	} else {
		lines = append(lines,
			"Agent: Great, I've noted that. Is there anything else I can help with?",
			"Caller: No, that's all. Thanks!",
			"Agent: Thank you for your time. Goodbye from "+b.Name+"!")
		summary = fmt.Sprintf("Outbound call to %s about %s; the caller agreed and the agent noted the next step.",
			who, strings.TrimSuffix(about, "."))
	}
	return strings.Join(lines, "\n"), summary
}

// inboundConversation writes the transcript and summary of an answered
// inbound call from what the caller said and what lead collection found.
func inboundConversation(c *store.Call, a *store.Agent, b *store.Business, info leadInfo, transferTo string, capped bool) (transcript, summary string) {
	said := val.FirstNonEmpty(c.CallerInfo().Said, "Hi, I have a question.")
	lines := []string{"Agent: " + val.FirstNonEmpty(a.FirstMessage, DefaultGreeting), "Caller: " + said}
	if info.name != "" {
		lines = append(lines, "Agent: Thanks for calling "+b.Name+". May I have your name?", "Caller: It's "+info.name+".")
	} else {
		lines = append(lines, "Agent: Thanks for calling "+b.Name+". May I have your name?", "Caller: I'd rather not say.")
	}
	if info.email != "" {
		lines = append(lines, "Agent: And what's the best email to reach you?", "Caller: "+info.email+".")
	}
	who := val.FirstNonEmpty(info.name, c.From)
	switch {
	case capped:
		lines = append(lines, "Agent: We've reached the time limit for this call; someone will call you back. Goodbye.")
		summary = fmt.Sprintf("Inbound call from %s (%s); the call reached its %d-second limit before wrapping up.", who, info.intent, c.MaxDuration)
	case transferTo != "":
		lines = append(lines, "Agent: Of course. Let me transfer you to a member of our team now.")
		summary = fmt.Sprintf("Inbound call from %s (%s); the caller asked for a person and was transferred to %s.", who, info.intent, transferTo)
	default:
		lines = append(lines,
			"Agent: Thank you"+prefixed(", ", info.name)+". I've noted that you're calling about "+intentPhrase(info.intent)+"; someone will follow up shortly.",
			"Caller: Thanks, bye.")
		summary = fmt.Sprintf("Inbound call from %s about %s: %q.", who, intentPhrase(info.intent), truncate(said, 120))
	}
	if captured := info.captured(); len(captured) > 0 && transferTo == "" {
		summary += " Captured: " + strings.Join(captured, ", ") + "."
	}
	return strings.Join(lines, "\n"), summary
}

// voicemailDuration is the length of a voicemail: about two and a half
// words a second, at least 5 seconds.
func voicemailDuration(text string) int {
	return max(5, len(strings.Fields(text))*2/5)
}

func intentPhrase(intent string) string {
	switch intent {
	case intentBooking:
		return "booking an appointment"
	case IntentQuote:
		return "a price quote"
	case intentSupport:
		return "a problem that needs support"
	case intentCancel:
		return "a cancellation"
	case intentHuman:
		return "speaking with a person"
	}
	return "a general inquiry"
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
