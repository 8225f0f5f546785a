package telephony

import (
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// This file is the seam between communication runs and approval requests
// (packages runs and governance), which place calls and send texts, and the
// call and SMS simulators (calls.go, sms.go): the touches go through
// PlaceOutboundCall and SendSMS like POST /v1/calls and POST /v1/sms/send,
// with a store.TouchRef that the call or message keeps, shows in its views
// and events (CallDetail, smsView) and hands back when it ends (the
// platform's CallEnded and TextDelivered hooks, to which packages runs and
// governance subscribe).

// How a touch ended (TouchEnd.Status); also the states of a run's touch
// that say so.
const (
	// TouchCompleted means the call completed or the text was delivered.
	TouchCompleted = "completed"
	// TouchFailed means the call or the text failed.
	TouchFailed = "failed"
)

// TouchEnd is how a touch's call or text ended.
type TouchEnd struct {
	Status   string // completed or failed
	Code     string // on failure: no_answer, busy, call_failed, sms_send_failed, ...
	Message  string
	Duration int // call seconds
	Summary  string
}

// CallTouchEnd is how a touch's call ended: completed with its duration and
// summary, or failed with the call's error.
func CallTouchEnd(c *store.Call) TouchEnd {
	end := TouchEnd{Status: TouchCompleted, Duration: c.Duration, Summary: c.Summary}
	if c.Status == store.CallFailed {
		end = TouchEnd{Status: TouchFailed, Code: c.Error, Message: "the call failed: " + c.Error, Duration: c.Duration}
	}
	return end
}

// TouchCall is a call a touch places.
type TouchCall struct {
	AgentID      string
	From         string // sending number, E.164
	To           string
	Name         string
	LeadID       string
	FirstMessage string // "" the agent's outbound greeting
	Context      string
	Ref          store.TouchRef
}

// TouchSMS is a text a touch sends through the SMS compliance path.
type TouchSMS struct {
	AgentID  string
	From     string
	To       string
	Message  string
	LeadID   string
	Timezone string // the target's, "" derived from the number
	Ref      store.TouchRef
}

// SMSComplianceCodes are refusals of the SMS compliance path: a touch they
// stop is skipped (never attempted), not failed.
var SMSComplianceCodes = []string{voiceagent.CodeNumberOnDNC, voiceagent.CodeNumberOptedOut, voiceagent.CodeContentBlocked, voiceagent.CodeTCPAViolation}

// touchLead is the lead a touch names, when it is a lead of the agent's
// business.
func touchLead(tx *platform.Tx, a *store.Agent, leadID string) *store.Lead {
	if l, ok := tx.Leads.Get(leadID); ok && l.Owner == a.Owner {
		return l
	}
	return nil
}

// PlaceTouchCall places a touch's call and returns its id.
func (s *Service) PlaceTouchCall(tx *platform.Tx, now time.Time, tc TouchCall) (string, *domain.Error) {
	a, ok := tx.Agents.Get(tc.AgentID)
	if !ok {
		return "", domain.NotFound("agent not found: " + tc.AgentID)
	}
	c, err := s.PlaceOutboundCall(tx, now, OutboundCall{
		Agent: a, To: tc.To, Name: tc.Name, Context: tc.Context, FirstMessage: tc.FirstMessage,
		Lead: touchLead(tx, a, tc.LeadID), From: tc.From, Ref: tc.Ref,
	})
	if err != nil {
		return "", err
	}
	return c.ID, nil
}

// SendTouchText sends a touch's text and returns its message sid.
func (s *Service) SendTouchText(tx *platform.Tx, now time.Time, tm TouchSMS) (string, *domain.Error) {
	a, ok := tx.Agents.Get(tm.AgentID)
	if !ok {
		return "", domain.NotFound("agent not found: " + tm.AgentID)
	}
	m, err := s.SendSMS(tx, now, SMSRequest{Agent: a, To: tm.To, Body: tm.Message,
		Lead: touchLead(tx, a, tm.LeadID), From: tm.From, Ref: tm.Ref, Timezone: tm.Timezone})
	if err != nil {
		return "", err
	}
	return m.MessageSID, nil
}
