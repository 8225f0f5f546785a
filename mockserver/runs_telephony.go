package mockserver

import (
	"hash/fnv"
	"net/http"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// This file is the seam between communication runs and approval requests
// (which place calls and send texts) and the call and SMS simulators. It
// defines what they need (touchTelephony) and a small stand-in
// implementation (simTelephony) used until the server's call and SMS
// simulators are wired in: telephonyForTouches is the one place to change.

// touchRef ties a call or a text to what asked for it. The simulators put
// its non-empty fields (communication_run_id, external_ref, touch_id,
// approval_request_id) into the call or message record and into the data of
// every call.* and sms.* event of it, so partners match events back.
type touchRef struct {
	RunID             string
	ExternalRef       string
	TouchID           string
	ApprovalRequestID string
}

// fields adds the reference's non-empty fields to event data.
func (r touchRef) fields(into map[string]any) map[string]any {
	for k, v := range map[string]string{
		"communication_run_id": r.RunID, "external_ref": r.ExternalRef,
		"touch_id": r.TouchID, "approval_request_id": r.ApprovalRequestID,
	} {
		if v != "" {
			into[k] = v
		}
	}
	return into
}

// touchEnd is how a call or text ended.
type touchEnd struct {
	Status   string // completed or failed
	Code     string // on failure: no_answer, busy, sms_send_failed, ...
	Message  string
	Duration int // call seconds
	Summary  string
}

// touchCall is an outbound call to place, with the fields of POST /v1/calls.
type touchCall struct {
	BusinessID   string
	AgentID      string
	From         string // sending number, E.164
	To           string
	Name         string
	LeadID       string
	FirstMessage string // "" the agent's outbound greeting
	Context      map[string]any
	Ref          touchRef
	// OnEnd is called once, under the store's write lock, when the call
	// completes or fails.
	OnEnd func(st *store.Store, now time.Time, end touchEnd)
}

// touchSMS is a text to send through the SMS compliance path (do-not-call,
// consent, content, consent-law checks), with the fields of POST
// /v1/sms/send.
type touchSMS struct {
	BusinessID string
	AgentID    string
	From       string
	To         string
	Message    string
	Category   string
	LeadID     string
	Timezone   string
	State      string
	Ref        touchRef
	// OnEnd is called once, under the store's write lock, when the text is
	// delivered or its delivery fails.
	OnEnd func(st *store.Store, now time.Time, end touchEnd)
}

// touchTelephony is what runs and approval requests need from calls and SMS.
// Both methods run under the store's write lock. An error means nothing was
// placed or sent (placeCall: call_failed; sendSMS: number_on_dnc,
// number_opted_out, content_blocked, tcpa_violation or sms_send_failed) and
// OnEnd is never called; otherwise OnEnd is called exactly once, later, on
// the clock.
type touchTelephony interface {
	placeCall(st *store.Store, now time.Time, c touchCall) (callID string, err *apiError)
	sendSMS(st *store.Store, now time.Time, m touchSMS) (messageSID string, err *apiError)
}

// telephonyForTouches is the telephony runs and approval requests use: the
// wiring point for the server's call and SMS simulators.
func (s *Server) telephonyForTouches() touchTelephony { return simTelephony{s} }

// smsComplianceCodes are refusals of the SMS compliance path: a touch they
// stop is skipped (never attempted), not failed.
var smsComplianceCodes = []string{"number_on_dnc", "number_opted_out", "content_blocked", "tcpa_violation"}

// simTelephony is a stand-in for the call and SMS simulators honouring the
// magic numbers of DESIGN.md: it keeps no call or message records, but
// emits the call.* and sms.* events (with the touchRef fields) and calls
// OnEnd on the clock.
type simTelephony struct{ s *Server }

func (t simTelephony) placeCall(st *store.Store, now time.Time, c touchCall) (string, *apiError) {
	s := t.s
	if c.To == "+15005550003" {
		return "", newError(http.StatusInternalServerError, "call_failed", "the outbound call could not be placed")
	}
	id := s.ids.uuid()
	base := func() map[string]any {
		return c.Ref.fields(map[string]any{
			"id": id, "call_id": id, "to": c.To, "from": c.From, "agent_id": c.AgentID,
			"business_id": c.BusinessID, "direction": "outbound",
		})
	}
	started := base()
	started["status"] = "in-progress"
	s.emit(st, c.BusinessID, "call.started", now, started)

	end := touchEnd{Status: "completed", Duration: simCallDuration(c.To)}
	switch c.To {
	case "+15005550001":
		end = touchEnd{Status: "failed", Code: "no_answer", Message: "nobody answered", Duration: 30}
	case "+15005550002":
		end = touchEnd{Status: "failed", Code: "busy", Message: "the line was busy", Duration: 5}
	}
	s.schedule(now.Add(time.Duration(end.Duration)*time.Second), func(at time.Time) {
		st := s.st
		data := base()
		data["timestamp"] = at
		if end.Status == "completed" {
			end.Summary = simCallSummary(st, c, end.Duration)
			data["status"], data["duration"], data["summary"] = "completed", end.Duration, end.Summary
			data["recording_url"] = "https://recordings.voiceagent.example/" + id + ".mp3"
			s.emit(st, c.BusinessID, "call.completed", at, data)
		} else {
			data["status"], data["error"] = "failed", end.Code
			s.emit(st, c.BusinessID, "call.failed", at, data)
		}
		if c.OnEnd != nil {
			c.OnEnd(st, at, end)
		}
	})
	return id, nil
}

// simCallDuration is 30 to 300 seconds, derived from the number.
func simCallDuration(to string) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(to))
	return 30 + int(h.Sum32()%271)
}

// simCallSummary summarises a simulated call; when the call's context
// matches a knowledge entry of the business, the summary cites it.
func simCallSummary(st *store.Store, c touchCall, secs int) string {
	who := c.Name
	if who == "" {
		who = c.To
	}
	var text []string
	for _, v := range c.Context {
		if str, ok := v.(string); ok {
			text = append(text, str)
		}
	}
	text = append(text, c.FirstMessage)
	sum := "Outbound call with " + who + " (" + (time.Duration(secs) * time.Second).String() + ")."
	if note := knowledgeNote(st, c.BusinessID, strings.Join(text, " ")); note != "" {
		sum += " " + note
	}
	return sum
}

func (t simTelephony) sendSMS(st *store.Store, now time.Time, m touchSMS) (string, *apiError) {
	s := t.s
	switch m.To {
	case "+15005550010":
		return "", newError(http.StatusBadRequest, "number_on_dnc", "the recipient is on the do-not-call list")
	case "+15005550011":
		return "", newError(http.StatusBadRequest, "number_opted_out", "the recipient has not opted in to texts")
	case "+15005550012":
		return "", newError(http.StatusInternalServerError, "sms_send_failed", "the carrier refused the message")
	case "+15005550013":
		return "", newError(http.StatusBadRequest, "tcpa_violation", "sending now would violate consent law")
	}
	sid := "SM" + s.ids.token(16)
	data := func(status string) map[string]any {
		return m.Ref.fields(map[string]any{
			"id": sid, "message_sid": sid, "to": m.To, "from": m.From, "agent_id": m.AgentID,
			"business_id": m.BusinessID, "body": m.Message, "direction": "outbound", "status": status,
		})
	}
	s.emit(st, m.BusinessID, "sms.sent", now, data("sent"))
	s.schedule(now.Add(simSMSDeliveryDelay), func(at time.Time) {
		st := s.st
		s.emit(st, m.BusinessID, "sms.delivered", at, data("delivered"))
		if m.OnEnd != nil {
			m.OnEnd(st, at, touchEnd{Status: "completed"})
		}
	})
	return sid, nil
}

// simSMSDeliveryDelay is how long a simulated text takes to be delivered.
const simSMSDeliveryDelay = 5 * time.Second
