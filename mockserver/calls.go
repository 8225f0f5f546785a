package mockserver

import (
	"net/http"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

func (s *Server) callRoutes() []*route {
	return []*route{
		{method: http.MethodPost, path: "/api/v1/calls", scope: scope("calls:write"), schema: "callCreate", handle: s.createCall},
		{method: http.MethodGet, path: "/api/v1/calls", scope: scope("calls:read"), handle: s.getCalls},
		{method: http.MethodGet, path: "/api/v1/transcripts", scope: scope("calls:read"), handle: s.listTranscripts},
	}
}

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

func (s *Server) createCall(rc *reqCtx) (any, error) {
	var body callCreateBody
	if err := rc.decode(&body); err != nil {
		return nil, err
	}
	a, err := agentOf(rc, body.AgentID)
	if err != nil {
		return nil, err
	}
	if body.WebhookURL != "" {
		if err := s.checkTarget(body.WebhookURL); err != nil {
			return nil, errInvalidField("webhook_url", "%v", err)
		}
	}
	var lead *store.Lead
	if body.LeadID != "" {
		l, ok := rc.st.Leads.Get(body.LeadID)
		if !ok || l.Owner != a.Owner {
			return nil, errNotFound("lead not found: " + body.LeadID)
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
	c, apiErr := s.placeOutboundCall(rc.st, rc.now, outboundCall{
		agent: a, to: body.To, name: name, context: body.Context, firstMessage: first,
		webhookURL: body.WebhookURL, maxDuration: body.MaxDuration, lead: lead,
		providerFault: func() *apiError { return rc.dependencyFault(FaultTargetVoiceProvider) },
	})
	if apiErr != nil {
		return nil, apiErr
	}
	return created(map[string]any{
		"id": c.ID, "conversation_id": c.ConversationID, "status": c.Status, "agent_id": c.AgentID,
		"to": c.To, "name": nullable(c.Name), "created_at": c.CreatedAt,
	}), nil
}

// errMagicCallFailed is the carrier's refusal of the magic failing number.
func errMagicCallFailed(to string) *apiError {
	return newError(http.StatusInternalServerError, codeCallFailed,
		"the outbound call could not be placed: the carrier rejected "+to)
}

// outboundCall is an outbound call to place: what POST /v1/calls sends, and
// what the platform's own processes place (communication run touches,
// approval requests, the SDR pipeline).
type outboundCall struct {
	agent        *store.Agent
	to           string
	name         string
	context      string
	firstMessage string // "" the agent's outbound greeting
	webhookURL   string
	maxDuration  *int        // nil: the agent's, else 600
	lead         *store.Lead // nil: the business's lead with that number, if any
	from         string      // "" the agent's number (businessNumber)
	ref          store.TouchRef
	// providerFault reports a simulated voice provider failure (nil: none).
	providerFault func() *apiError
}

// placeOutboundCall places an outbound call: the magic failing number and
// the voice provider are checked, the call is stored queued with its
// enrichment variables and the clock takes it on. The caller holds the
// write lock.
func (s *Server) placeOutboundCall(st *store.Store, now time.Time, oc outboundCall) (*store.Call, *apiError) {
	if oc.to == magicCallFailed {
		return nil, errMagicCallFailed(oc.to)
	}
	if oc.providerFault != nil {
		if e := oc.providerFault(); e != nil {
			e.code = codeVendorError
			e.message = "the voice provider refused the call: " + e.message
			return nil, e
		}
	}
	a, lead, name := oc.agent, oc.lead, oc.name
	if lead == nil {
		lead = st.LeadByPhone(a.Owner, oc.to)
	}
	b, _ := st.Businesses.Get(a.Owner)
	maxDur := defaultMaxDuration
	switch {
	case oc.maxDuration != nil:
		maxDur = *oc.maxDuration
	case a.MaxDuration >= 1:
		maxDur = int(a.MaxDuration)
	}
	from := oc.from
	if from == "" {
		from = businessNumber(st, a)
	}

	c := &store.Call{
		ConversationID: "conv_" + s.ids.token(12),
		Status:         store.CallQueued,
		Direction:      store.DirectionOutbound,
		AgentID:        a.ID,
		AgentName:      a.Name,
		To:             oc.to,
		From:           from,
		Name:           name,
		Context:        oc.context,
		WebhookURL:     oc.webhookURL,
		MaxDuration:    maxDur,
		Ref:            oc.ref,
	}
	if lead != nil {
		c.LeadID = lead.ID
	}
	vars := callVariables(now, b, c.From, lead, name)
	if v, ok := vars["name"].(string); ok && c.Name == "" {
		c.Name = v
	}
	c.FirstMessage = fillVariables(outboundOpening(oc.firstMessage, a, b, c.Name), vars)
	prompt := firstNonEmpty(a.OutboundPrompt, a.InboundPrompt)
	if c.Context != "" {
		prompt += "\n\nContext: " + c.Context
	}
	c.Provider = store.ProviderCall{
		AssistantID: a.VendorAssistantID, From: c.From, To: c.To, FirstMessage: c.FirstMessage,
		Prompt: fillVariables(prompt, vars), Context: c.Context, Variables: vars, MaxDuration: maxDur,
	}
	c.ID = s.ids.uuid()
	c.Owner = a.Owner
	c.CreatedAt = st.Calls.Stamp(now)
	c.UpdatedAt = c.CreatedAt
	c.PlannedDuration = simulatedDuration(c.To)
	st.Calls.Put(c)

	switch c.To {
	case magicCallNoAnswer:
		s.scheduleCall(c.ID, now.Add(noAnswerRingTime), func(st *store.Store, c *store.Call, now time.Time) {
			s.failCall(st, now, c, "no_answer")
		})
	case magicCallBusy:
		s.scheduleCall(c.ID, now.Add(outboundRingTime), func(st *store.Store, c *store.Call, now time.Time) {
			s.failCall(st, now, c, "busy")
		})
	default:
		s.scheduleCall(c.ID, now.Add(outboundRingTime), s.answerOutbound)
	}
	return c, nil
}

// businessNumber is the number a call or text of an agent comes from: the
// agent's own, else the business's first number, else "".
func businessNumber(st *store.Store, a *store.Agent) string {
	if a.PhoneNumber != "" {
		return a.PhoneNumber
	}
	if nums := st.Numbers.Owned(a.Owner); len(nums) > 0 {
		return nums[0].PhoneNumber
	}
	return ""
}

// scheduleCall runs step on a call when the clock reaches at, unless the
// call is gone (reset) or already finished.
func (s *Server) scheduleCall(id string, at time.Time, step func(st *store.Store, c *store.Call, now time.Time)) {
	s.schedule(at, func(now time.Time) {
		if c, ok := s.st.Calls.Get(id); ok && !c.Ended() {
			step(s.st, c, now)
		}
	})
}

// answerOutbound: the callee picks up (queued -> in-progress, call.started);
// the conversation ends after the simulated duration, capped by
// max_duration.
func (s *Server) answerOutbound(st *store.Store, c *store.Call, now time.Time) {
	s.startCall(st, now, c)
	d := min(c.PlannedDuration, c.MaxDuration)
	s.scheduleCall(c.ID, now.Add(time.Duration(d)*time.Second), s.completeOutbound)
}

func (s *Server) startCall(st *store.Store, now time.Time, c *store.Call) {
	at := now.UTC()
	c.Status = store.CallInProgress
	c.StartedAt = &at
	c.UpdatedAt = later(c.UpdatedAt, now)
	s.emit(st, c.Owner, "call.started", now, callDetail(st, c))
}

// finishCall sets what every finished conversation has.
func (s *Server) finishCall(st *store.Store, now time.Time, c *store.Call, status string, duration int) {
	at := now.UTC()
	c.Status = status
	c.Duration = duration
	c.EndedAt = &at
	c.UpdatedAt = later(c.UpdatedAt, now)
	c.RecordingURL = recordingURLBase + c.ID + ".mp3"
	st.AddCallMinutes(c.Owner, duration)
}

func (s *Server) completeOutbound(st *store.Store, c *store.Call, now time.Time) {
	b, _ := st.Businesses.Get(c.Owner)
	capped := c.PlannedDuration > c.MaxDuration
	s.finishCall(st, now, c, store.CallCompleted, min(c.PlannedDuration, c.MaxDuration))
	c.Transcript, c.Summary = outboundConversation(c, b, capped)
	if note := s.callKnowledgeNote(st, c); note != "" {
		c.Summary += " " + note
	}
	c.Quality = qualityFor(c.To, 0, capped)
	c.EndedReason = "completed"
	if capped {
		c.EndedReason = "max_duration"
	}
	if l, ok := st.Leads.Get(c.LeadID); ok {
		s.touchLead(st, now, l, true)
	}
	ev := s.emit(st, c.Owner, "call.completed", now, callDetail(st, c))
	if c.WebhookURL != "" {
		s.enqueueCallWebhook(st, c, ev, webhooks.CallWebhook{
			Event: ev.Type, CallID: c.ID, Status: c.Status, Duration: c.Duration,
			RecordingURL: c.RecordingURL, Summary: c.Summary, Timestamp: ev.Timestamp,
		})
	}
	s.callEnded(st, now, c)
}

// failCall ends an outbound call that never connected.
func (s *Server) failCall(st *store.Store, now time.Time, c *store.Call, reason string) {
	at := now.UTC()
	c.Status = store.CallFailed
	c.Error = reason
	c.EndedReason = reason
	c.EndedAt = &at
	c.UpdatedAt = later(c.UpdatedAt, now)
	ev := s.emit(st, c.Owner, "call.failed", now, callDetail(st, c))
	if c.WebhookURL != "" {
		s.enqueueCallWebhook(st, c, ev, webhooks.CallWebhook{
			Event: ev.Type, CallID: c.ID, Status: c.Status, Error: reason, Timestamp: ev.Timestamp,
		})
	}
	s.callEnded(st, now, c)
}

func (s *Server) getCalls(rc *reqCtx) (any, error) {
	if id := rc.query("id"); id != "" {
		c, err := reachable(rc, rc.st.Calls, id, "call")
		if err != nil {
			return nil, err
		}
		return callDetail(rc.st, c), nil
	}
	pq, owners, err := rc.listQuery(50, 100)
	if err != nil {
		return nil, err
	}
	agentID, status := rc.query("agent_id"), rc.query("status")
	items, more := listPage(rc.st.Calls, owners, pq, func(c *store.Call) bool {
		return (agentID == "" || c.AgentID == agentID) && (status == "" || c.Status == status)
	}, func(c *store.Call) map[string]any { return callListItem(rc.st, c) })
	return map[string]any{"calls": items, "has_more": more}, nil
}

func (s *Server) listTranscripts(rc *reqCtx) (any, error) {
	pq, owners, err := rc.listQuery(20, 50)
	if err != nil {
		return nil, err
	}
	days, err := rc.intQuery("days", 30, 1, 90)
	if err != nil {
		return nil, err
	}
	since := rc.now.Add(-time.Duration(days) * 24 * time.Hour)
	agentID := rc.query("agent_id")
	out := []map[string]any{}
	more := false
	rc.st.Calls.Scan(owners, pq.after, func(c *store.Call) bool {
		if c.CreatedAt.Before(since) {
			return false // older calls are outside the window: stop
		}
		if c.Transcript == "" || (agentID != "" && c.AgentID != agentID) {
			return true
		}
		if len(out) == pq.limit {
			more = true
			return false
		}
		out = append(out, map[string]any{
			"call_id": c.ID, "conversation_id": c.ConversationID, "agent_id": c.AgentID,
			"agent_name": agentName(rc.st, c), "status": c.Status, "duration": c.Duration,
			"summary": nullable(c.Summary), "transcript": c.Transcript, "created_at": c.CreatedAt,
		})
		return true
	})
	return map[string]any{"transcripts": out, "has_more": more}, nil
}

// agentName is the agent's current name, or its name when the call was
// placed if the agent is gone.
func agentName(st *store.Store, c *store.Call) string {
	if a, ok := st.Agents.Get(c.AgentID); ok {
		return a.Name
	}
	return c.AgentName
}

// callListItem is a call in GET /v1/calls: the spec's list fields and the
// quickstart's direction and summary.
func callListItem(st *store.Store, c *store.Call) map[string]any {
	return map[string]any{
		"id": c.ID, "conversation_id": c.ConversationID, "status": c.Status,
		"duration": c.Duration, "agent_id": c.AgentID, "agent_name": agentName(st, c),
		"created_at": c.CreatedAt, "direction": c.Direction, "summary": nullable(c.Summary),
	}
}

// callDetail is a call in GET /v1/calls?id= and in call events.
func callDetail(st *store.Store, c *store.Call) map[string]any {
	v := callListItem(st, c)
	v["business_id"] = c.Owner
	v["lead_id"] = nullable(c.LeadID)
	v["recording_url"] = nullable(c.RecordingURL)
	v["transcript"] = nullable(c.Transcript)
	if c.Quality != nil {
		v["quality_dimensions"] = c.Quality
	} else {
		v["quality_dimensions"] = nil
	}
	v["to"] = c.To
	v["from"] = nullable(c.From)
	v["name"] = nullable(c.Name)
	v["context"] = nullable(c.Context)
	v["max_duration"] = c.MaxDuration
	v["error"] = nullable(c.Error)
	v["ended_reason"] = nullable(c.EndedReason)
	v["voicemail"] = nullable(c.Voicemail)
	v["started_at"] = c.StartedAt
	v["ended_at"] = c.EndedAt
	v["updated_at"] = c.UpdatedAt
	return touchRefFields(c.Ref, v)
}

const codeCallFailed = "call_failed"
