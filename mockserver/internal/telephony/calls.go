package telephony

import (
	"net/http"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/internal/wire"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
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
			return nil, httpapi.InvalidField("webhook_url", "%v", err)
		}
	}
	var lead *store.Lead
	if body.LeadID != "" {
		l, ok := rc.Tx.Leads.Get(body.LeadID)
		if !ok || l.Owner != a.Owner {
			return nil, httpapi.NotFound("lead not found: " + body.LeadID)
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
		ProviderFault: func() *httpapi.Error { return rc.DependencyFault(httpapi.FaultTargetVoiceProvider) },
	})
	if apiErr != nil {
		return nil, apiErr
	}
	return httpapi.Created(calls.Created{
		ID: c.ID, ConversationID: c.ConversationID, Status: calls.Status(c.Status), AgentID: c.AgentID,
		To: c.To, Name: httpapi.Strp(c.Name), CreatedAt: c.CreatedAt,
	}), nil
}

// ErrMagicCallFailed is the carrier's refusal of the magic failing number.
func ErrMagicCallFailed(to string) *httpapi.Error {
	return httpapi.DependencyError(http.StatusInternalServerError, wire.CodeCallFailed,
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
	ProviderFault func() *httpapi.Error
}

// PlaceOutboundCall places an outbound call: the magic failing number and
// the voice provider are checked, the call is stored queued with its
// enrichment variables and the clock takes it on.
func (s *Service) PlaceOutboundCall(tx *platform.Tx, now time.Time, oc OutboundCall) (*store.Call, *httpapi.Error) {
	if oc.To == MagicCallFailed {
		return nil, ErrMagicCallFailed(oc.To)
	}
	if oc.ProviderFault != nil {
		if e := oc.ProviderFault(); e != nil {
			e.Code = wire.CodeVendorError
			e.Message = "the voice provider refused the call: " + e.Message
			return nil, e
		}
	}
	a, lead, name := oc.Agent, oc.Lead, oc.Name
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
	prompt := httpapi.FirstNonEmpty(a.OutboundPrompt, a.InboundPrompt)
	if c.Context != "" {
		prompt += "\n\nContext: " + c.Context
	}
	c.Provider = store.ProviderCall{
		AssistantID: a.VendorAssistantID, Prompt: fillVariables(prompt, vars), Variables: vars,
	}
	c.PlannedDuration = simulatedDuration(c.To)
	tx.Calls.Insert(c, a.Owner, now)
	c.UpdatedAt = c.CreatedAt

	switch c.To {
	case magicCallNoAnswer:
		s.scheduleCall(tx, c, now.Add(noAnswerRingTime), func(tx *platform.Tx, c *store.Call, now time.Time) {
			s.failCall(tx, now, c, "no_answer")
		})
	case magicCallBusy:
		s.scheduleCall(tx, c, now.Add(outboundRingTime), func(tx *platform.Tx, c *store.Call, now time.Time) {
			s.failCall(tx, now, c, "busy")
		})
	default:
		s.scheduleCall(tx, c, now.Add(outboundRingTime), s.answerOutbound)
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

// scheduleCall runs step on call c when its tenant's clock reaches at,
// unless the call is gone (reset) or already finished.
func (s *Service) scheduleCall(tx *platform.Tx, c *store.Call, at time.Time, step func(tx *platform.Tx, c *store.Call, now time.Time)) {
	id := c.ID
	s.Schedule(tx.TenantOf(c.Owner), at, func(tx *platform.Tx, now time.Time) {
		if c, ok := tx.Calls.Get(id); ok && !c.Ended() {
			step(tx, c, now)
		}
	})
}

// answerOutbound: the callee picks up (queued -> in-progress, call.started);
// the conversation ends after the simulated duration, capped by
// max_duration.
func (s *Service) answerOutbound(tx *platform.Tx, c *store.Call, now time.Time) {
	s.startCall(tx, now, c)
	d := min(c.PlannedDuration, c.MaxDuration)
	s.scheduleCall(tx, c, now.Add(time.Duration(d)*time.Second), s.completeOutbound)
}

func (s *Service) startCall(tx *platform.Tx, now time.Time, c *store.Call) {
	tx.Calls.Update(c, func(c *store.Call) {
		at := now.UTC()
		c.Status = store.CallInProgress
		c.StartedAt = &at
		c.UpdatedAt = httpapi.Later(c.UpdatedAt, now)
	})
	s.Emit(tx, c.Owner, "call.started", now, callDetail(tx, c))
}

// finishCall sets what every finished conversation has. It changes c:
// call it in Calls.Update's change function.
func finishCall(tx *platform.Tx, now time.Time, c *store.Call, status string, duration int) {
	at := now.UTC()
	c.Status = status
	c.Duration = duration
	c.EndedAt = &at
	c.UpdatedAt = httpapi.Later(c.UpdatedAt, now)
	c.Recorded = true
	tx.AddCallMinutes(c.Owner, duration)
}

func (s *Service) completeOutbound(tx *platform.Tx, c *store.Call, now time.Time) {
	b, _ := tx.Businesses.Get(c.Owner)
	capped := c.PlannedDuration > c.MaxDuration
	tx.Calls.Update(c, func(c *store.Call) {
		finishCall(tx, now, c, store.CallCompleted, min(c.PlannedDuration, c.MaxDuration))
		c.Transcript, c.Summary = outboundConversation(c, b, capped)
		if note := s.CallKnowledgeNote(tx, c); note != "" {
			c.Summary += " " + note
		}
		c.Quality = qualityFor(c.To, 0, capped)
		c.EndedReason = "completed"
		if capped {
			c.EndedReason = "max_duration"
		}
	})
	if l, ok := tx.Leads.Get(c.LeadID); ok {
		s.touchLead(tx, now, l, true)
	}
	ev := s.Emit(tx, c.Owner, "call.completed", now, callDetail(tx, c))
	if c.WebhookURL != "" {
		s.hooks.EnqueueCallWebhook(tx, c, ev, webhooks.CallWebhook{
			Event: ev.Type, CallID: c.ID, Status: c.Status, Duration: c.Duration,
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
		c.UpdatedAt = httpapi.Later(c.UpdatedAt, now)
	})
	ev := s.Emit(tx, c.Owner, "call.failed", now, callDetail(tx, c))
	if c.WebhookURL != "" {
		s.hooks.EnqueueCallWebhook(tx, c, ev, webhooks.CallWebhook{
			Event: ev.Type, CallID: c.ID, Status: c.Status, Error: reason, Timestamp: ev.Timestamp,
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
		Transcript: c.Transcript, Summary: httpapi.Strp(c.Summary), CreatedAt: c.CreatedAt,
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
		Direction: c.Direction, Summary: httpapi.Strp(c.Summary),
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
		Direction: c.Direction, Summary: httpapi.Strp(c.Summary), BusinessID: c.Owner,
		LeadID: httpapi.Strp(c.LeadID), RecordingURL: httpapi.Strp(RecordingURL(c)),
		Transcript: httpapi.Strp(c.Transcript), QualityDimensions: c.Quality, To: c.To,
		From: httpapi.Strp(c.From), Name: httpapi.Strp(c.Name),
		Context: httpapi.Strp(c.Context), MaxDuration: c.MaxDuration,
		Error: httpapi.Strp(c.Error), EndedReason: httpapi.Strp(c.EndedReason),
		Voicemail: httpapi.Strp(c.CallerInfo().Voicemail), StartedAt: c.StartedAt,
		EndedAt: c.EndedAt, UpdatedAt: c.UpdatedAt,
		TouchRef: voiceagent.TouchRef(c.Touch()),
	}
}
