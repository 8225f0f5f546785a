package telephony

import (
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// inboundCallLocked starts an inbound call: the call rings (call.received), the
// caller's number gains SMS consent (unless it opted out), and the clock of the
// number's tenant takes it on.
func (s *Service) inboundCallLocked(tx *platform.Tx, in admin.InboundCall) (*store.Call, *domain.Error) {
	n, ok := tx.NumbersByPhone[in.To]
	if !ok {
		return nil, domain.NotFound("no agent answers " + in.To + ": it is not a platform number")
	}
	now := s.Now(tx.TenantOf(n.Owner))
	a, ok := tx.Agents.Get(n.AgentID)
	if !ok {
		return nil, domain.NotFound("the number " + in.To + " has no agent")
	}
	b, _ := tx.Businesses.Get(n.Owner)
	c := &store.Call{
		ConversationID: "conv_" + s.IDs.Token(12),
		Status:         store.CallRinging,
		Direction:      store.DirectionInbound,
		AgentID:        a.ID,
		AgentName:      a.Name,
		To:             in.To,
		From:           in.From,
		Name:           in.Caller.Name,
		FirstMessage:   val.FirstNonEmpty(a.FirstMessage, DefaultGreeting),
		MaxDuration:    DefaultMaxDuration,
		Caller: &store.CallerInput{Name: in.Caller.Name, Email: in.Caller.Email, Phone: in.Caller.Phone,
			Said: in.Caller.Said, Intent: in.Caller.Intent, Voicemail: in.Voicemail},
		Answered:        in.Answered == nil || *in.Answered,
		PlannedDuration: in.Duration,
	}
	if a.MaxDuration >= 1 {
		c.MaxDuration = a.MaxDuration
	}
	if c.PlannedDuration <= 0 {
		c.PlannedDuration = simulatedDuration(in.From)
	}
	lead := tx.LeadByPhone(n.Owner, in.From)
	if lead != nil {
		c.LeadID = lead.ID
	}
	vars := callVariables(now, b, in.To, lead, in.Caller.Name)
	c.Provider = store.ProviderCall{
		AssistantID: a.VendorAssistantID, Prompt: fillVariables(a.InboundPrompt, vars), Variables: vars,
	}
	tx.Calls.Insert(c, n.Owner, now)
	c.UpdatedAt = c.CreatedAt
	if tx.Consent(n.Owner, in.From) != store.ConsentOptedOut {
		tx.SetConsent(n.Owner, in.From, store.ConsentOptedIn)
	}
	s.Emit(tx, c.Owner, webhooks.EventCallReceived, now, callDetail(tx, c))

	if !c.Answered {
		s.scheduleCall(tx, c, now.Add(noAnswerRingTime), TaskCallMissed)
		return c, nil
	}
	ring := inboundRingTime
	if b != nil && b.RingFirstSeconds > 0 {
		// Ring-first routing: the owner's phone rings first; the agent
		// answers when nobody picks up.
		ring = time.Duration(b.RingFirstSeconds) * time.Second
	}
	s.scheduleCall(tx, c, now.Add(ring), TaskCallAnswer)
	return c, nil
}

// answerInbound: the agent answers an inbound call after the ring
// (ringing -> in-progress, call.started); the conversation ends after the
// simulated duration, capped by max_duration.
func (s *Service) answerInbound(tx *platform.Tx, c *store.Call, now time.Time) {
	s.startCall(tx, now, c)
	d := min(c.PlannedDuration, c.MaxDuration)
	s.scheduleCall(tx, c, now.Add(time.Duration(d)*time.Second), TaskCallEnd)
}

// endInbound finishes an answered inbound call: transcript, summary,
// quality, recording, lead collection, a transfer when the caller asked for
// a person and the agent has transfer on (conversation.handoff), then
// call.completed.
func (s *Service) endInbound(tx *platform.Tx, c *store.Call, now time.Time) {
	a, _ := tx.Agents.Get(c.AgentID)
	if a == nil {
		a = &store.Agent{Name: c.AgentName, FirstMessage: c.FirstMessage}
	}
	b, _ := tx.Businesses.Get(c.Owner)
	info := extractLead(c.CallerInfo(), c.From)
	capped := c.PlannedDuration > c.MaxDuration
	transferTo := ""
	if !capped && info.intent == intentHuman && a.TransferEnabled && a.TransferPhoneNumber != "" {
		transferTo = a.TransferPhoneNumber
	}
	tx.Calls.Update(c, func(c *store.Call) {
		finishCall(tx, now, c, store.CallEnded, min(c.PlannedDuration, c.MaxDuration))
		c.Transcript, c.Summary = inboundConversation(c, a, b, info, transferTo, capped)
		if note := s.CallKnowledgeNote(tx, c); note != "" {
			c.Summary += " " + note
		}
		c.Quality = qualityFor(c.From, len(info.captured())-1, capped) // the caller's number is always known
		switch {
		case capped:
			c.EndedReason = "max_duration"
		case transferTo != "":
			c.EndedReason = "transferred"
		default:
			c.EndedReason = "completed"
		}
		if info.name != "" {
			c.Name = info.name
		}
	})
	lead := s.collectLead(tx, now, c.Owner, c.AgentID, c.From, info, SourceInboundCall)
	tx.Calls.Update(c, func(c *store.Call) { c.LeadID = lead.ID })
	if transferTo != "" {
		s.Emit(tx, c.Owner, webhooks.EventConversationHandoff, now, webhooks.HandoffData{
			CallID: c.ID, ConversationID: c.ConversationID, AgentID: c.AgentID,
			LeadID: val.Strp(lead.ID), From: c.From, TransferTo: transferTo,
			Reason: "the caller asked to speak with a person", Timestamp: now.UTC(),
		})
	}
	s.Emit(tx, c.Owner, webhooks.EventCallCompleted, now, callDetail(tx, c))
}

// missInbound ends an inbound call nobody answered: no-answer, with the
// voicemail when the caller left one (voicemail.received). The lead is
// collected either way, then call.failed.
func (s *Service) missInbound(tx *platform.Tx, c *store.Call, now time.Time) {
	in := c.CallerInfo()
	source := sourceMissedCall
	voicemail := in.Voicemail
	if voicemail != "" {
		source = sourceVoicemail
		in.Said = val.FirstNonEmpty(in.Said, voicemail)
	}
	info := extractLead(in, c.From)
	tx.Calls.Update(c, func(c *store.Call) {
		if voicemail != "" {
			finishCall(tx, now, c, store.CallNoAnswer, voicemailDuration(voicemail))
			c.Transcript = "Caller: " + voicemail
			c.EndedReason = "voicemail"
			c.Summary = "Voicemail from " + val.FirstNonEmpty(info.name, c.From) + ": " + truncate(voicemail, 160)
		} else {
			at := now.UTC()
			c.Status = store.CallNoAnswer
			c.EndedAt = &at
			c.UpdatedAt = val.Later(c.UpdatedAt, now)
			c.EndedReason = "no_answer"
		}
		if info.name != "" {
			c.Name = info.name
		}
	})
	lead := s.collectLead(tx, now, c.Owner, c.AgentID, c.From, info, source)
	tx.Calls.Update(c, func(c *store.Call) { c.LeadID = lead.ID })
	if voicemail != "" {
		s.Emit(tx, c.Owner, webhooks.EventVoicemailReceived, now, callDetail(tx, c))
	}
	s.Emit(tx, c.Owner, webhooks.EventCallFailed, now, callDetail(tx, c))
}
