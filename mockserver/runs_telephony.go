package mockserver

import (
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// This file is the seam between communication runs and approval requests,
// which place calls and send texts, and the call and SMS simulators
// (calls.go, sms.go): the touches go through placeOutboundCall and sendSMS
// like POST /v1/calls and POST /v1/sms/send, with a store.TouchRef that the
// call or message keeps, shows in its events (touchRefFields) and hands
// back when it ends (touchCallEnded, touchTextDelivered).

// touchEnd is how a touch's call or text ended.
type touchEnd struct {
	Status   string // completed or failed
	Code     string // on failure: no_answer, busy, call_failed, sms_send_failed, ...
	Message  string
	Duration int // call seconds
	Summary  string
}

// touchCall is a call a touch places.
type touchCall struct {
	AgentID      string
	From         string // sending number, E.164
	To           string
	Name         string
	LeadID       string
	FirstMessage string // "" the agent's outbound greeting
	Context      string
	Ref          store.TouchRef
}

// touchSMS is a text a touch sends through the SMS compliance path.
type touchSMS struct {
	AgentID  string
	From     string
	To       string
	Message  string
	LeadID   string
	Timezone string // the target's, "" derived from the number
	Ref      store.TouchRef
}

// smsComplianceCodes are refusals of the SMS compliance path: a touch they
// stop is skipped (never attempted), not failed.
var smsComplianceCodes = []string{codeNumberOnDNC, codeNumberOptedOut, codeContentBlocked, codeTCPAViolation}

// touchLead is the lead a touch names, when it is a lead of the agent's
// business.
func touchLead(st *store.Store, a *store.Agent, leadID string) *store.Lead {
	if l, ok := st.Leads.Get(leadID); ok && l.Owner == a.Owner {
		return l
	}
	return nil
}

// placeTouchCall places a touch's call and returns its id. The caller holds
// the write lock.
func (s *Server) placeTouchCall(st *store.Store, now time.Time, tc touchCall) (string, *apiError) {
	a, ok := st.Agents.Get(tc.AgentID)
	if !ok {
		return "", errNotFound("agent not found: " + tc.AgentID)
	}
	c, err := s.placeOutboundCall(st, now, outboundCall{
		agent: a, to: tc.To, name: tc.Name, context: tc.Context, firstMessage: tc.FirstMessage,
		lead: touchLead(st, a, tc.LeadID), from: tc.From, ref: tc.Ref,
	})
	if err != nil {
		return "", err
	}
	return c.ID, nil
}

// sendTouchText sends a touch's text and returns its message sid. The
// caller holds the write lock.
func (s *Server) sendTouchText(st *store.Store, now time.Time, tm touchSMS) (string, *apiError) {
	a, ok := st.Agents.Get(tm.AgentID)
	if !ok {
		return "", errNotFound("agent not found: " + tm.AgentID)
	}
	m, err := s.sendSMS(st, now, smsRequest{agent: a, to: tm.To, body: tm.Message,
		lead: touchLead(st, a, tm.LeadID), from: tm.From, ref: tm.Ref, timezone: tm.Timezone})
	if err != nil {
		return "", err
	}
	return m.MessageSID, nil
}

// touchCallEnded hands the end of a call placed by a touch to its run or
// approval request. The caller holds the write lock.
func (s *Server) touchCallEnded(st *store.Store, now time.Time, c *store.Call) {
	if c.Ref == (store.TouchRef{}) {
		return
	}
	end := touchEnd{Status: touchCompleted, Duration: c.Duration, Summary: c.Summary}
	if c.Status == store.CallFailed {
		end = touchEnd{Status: touchFailed, Code: c.Error, Message: "the call failed: " + c.Error, Duration: c.Duration}
	}
	s.touchEnded(st, now, c.Ref, end)
}

// touchTextDelivered hands the delivery of a text sent by a touch to its
// run. The caller holds the write lock.
func (s *Server) touchTextDelivered(st *store.Store, now time.Time, m *store.SMSMessage) {
	if m.Ref != (store.TouchRef{}) {
		s.touchEnded(st, now, m.Ref, touchEnd{Status: touchCompleted})
	}
}

func (s *Server) touchEnded(st *store.Store, now time.Time, ref store.TouchRef, end touchEnd) {
	switch {
	case ref.ApprovalRequestID != "":
		s.approvalCallEnded(st, now, ref.ApprovalRequestID, end)
	case ref.CommunicationRunID != "":
		s.runTouchEnded(st, now, ref, end)
	}
}

// touchRefFields adds a call's or message's reference fields
// (communication_run_id, external_ref, touch_id, approval_request_id) to its
// view when they are set, so events match back to runs and approvals.
func touchRefFields(ref store.TouchRef, into map[string]any) map[string]any {
	for k, v := range map[string]string{
		"communication_run_id": ref.CommunicationRunID, "external_ref": ref.ExternalRef,
		"touch_id": ref.TouchID, "approval_request_id": ref.ApprovalRequestID,
	} {
		if v != "" {
			into[k] = v
		}
	}
	return into
}

// withKnowledge adds to a call's summary the knowledge entry the agent
// answered from: the one matching what the call was about (an outbound
// call's context, what an inbound caller said).
func withKnowledge(st *store.Store, c *store.Call, summary string) string {
	about := strings.Join([]string{c.Context, c.Caller.Said, c.Caller.Intent}, " ")
	if note := knowledgeNote(st, c.Owner, about); note != "" {
		return summary + " " + note
	}
	return summary
}
