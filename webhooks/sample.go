package webhooks

import (
	"encoding/json"
	"time"
)

// SampleRecords are a business's records a sample takes its values from
// (see [SampleData]); every field left empty gets a plausible value, the
// same on every call.
type SampleRecords struct {
	// BusinessID is the business of the event.
	BusinessID string
	// BusinessName is the business's name.
	BusinessName string
	// AgentID and AgentName are the business's agent.
	AgentID   string
	AgentName string
	// PhoneNumberID and PhoneNumber are the business's number record: its
	// id and the E.164 number.
	PhoneNumberID string
	PhoneNumber   string
	// Call is the business's latest call as GET /v1/calls?id= shows it (the
	// data of call.* events); nil: a sample call.
	Call json.RawMessage
	// Lead is the business's latest lead as GET /v1/leads?id= shows it (the
	// data of lead.* events); nil: a sample lead.
	Lead json.RawMessage
	// At is when the event happens; zero: 2026-01-05T15:04:05Z.
	At time.Time
}

// SampleBusinessID is the business of the samples whose [SampleRecords]
// name none.
const SampleBusinessID = "5b0e7c1a-4f3d-4c55-9a64-2f1d7c9e8a01"

// Values of the samples where SampleRecords leave a field empty.
const (
	sampleAgentID       = "a9d3c8e2-7b41-4e0f-8c2d-6e5f4a3b2c10"
	sampleNumberID      = "c4e8f2a6-1b3d-4f57-9e0a-8d6c4b2a0f12"
	sampleCallID        = "0f6e4d2c-8a1b-4c3d-9e5f-7a6b5c4d3e21"
	sampleLeadID        = "7e5d3c1b-9f2a-4b8c-8d7e-6f5a4b3c2d30"
	sampleMessageID     = "3c1a9e7d-5b3f-4d2e-8f1a-0b9c8d7e6f41"
	sampleEmailID       = "9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c52"
	sampleBusinessName  = "Acme Plumbing"
	sampleAgentName     = "Front desk"
	sampleNumber        = "+15551230001"
	sampleCaller        = "+15551239876"
	sampleTransferTo    = "+15551230099"
	sampleConversation  = "conv_0f6e4d2c"
	sampleMessageSID    = "SM0f6e4d2c8a1b4c3d9e5f7a6b5c4d3e21"
	sampleRecordingHost = "https://recordings.voiceagent.example/"
)

// sampleTime is the time of a sample whose SampleRecords give none.
var sampleTime = time.Date(2026, time.January, 5, 15, 4, 5, 0, time.UTC)

// SampleData returns data of the documented shape of event type t: the
// call detail for call.*, voicemail.received, dispatcher.briefing_created
// and callback.*; the lead detail for lead.*; the text for sms.*; the
// number record for phone_number.*; the business for workspace.* (with
// failed_step on workspace.provisioning_failed); the email for
// lead_email.*; the transfer for conversation.handoff and
// dispatcher.handoff_dispatched. Values come from r where it has them
// (its call and lead are used as they are, with the status of the event
// where the event implies one) and are plausible otherwise. A type not in
// [EventTypes] gets an empty object. The mock server's POST /_mock/events
// without data and the receiver checks of package webhookstest send these.
func SampleData(t EventType, r SampleRecords) json.RawMessage {
	r = r.withDefaults()
	var v any
	switch t {
	case EventCallReceived, EventCallStarted, EventCallCompleted, EventCallFailed,
		EventVoicemailReceived, EventDispatcherBriefingCreated,
		EventCallbackScheduled, EventCallbackCompleted:
		v = r.call(t)
	case EventLeadCreated, EventLeadScored:
		v = r.lead()
	case EventSMSReceived, EventSMSSent, EventSMSDelivered, EventSMSFailed:
		v = r.message(t)
	case EventPhoneNumberAssigned, EventPhoneNumberReleased, EventPhoneNumberPurchased:
		v = map[string]any{
			"id": r.PhoneNumberID, "phone_number": r.PhoneNumber, "agent_id": r.AgentID,
			"business_id": r.BusinessID, "created_at": stamp(r.At),
		}
	case EventWorkspacePaused, EventWorkspaceCanceled, EventWorkspaceCreated,
		EventWorkspaceProvisioningFailed, EventWorkspaceReady, EventWorkspaceTeardownCompleted:
		v = r.workspace(t)
	case EventLeadEmailSent, EventLeadEmailFailed:
		v = r.email(t)
	case EventConversationHandoff, EventDispatcherHandoffDispatched:
		v = map[string]any{
			"call_id": field(r.Call, "id", sampleCallID), "conversation_id": field(r.Call, "conversation_id", sampleConversation),
			"agent_id": r.AgentID, "lead_id": field(r.Lead, "id", sampleLeadID),
			"from": field(r.Call, "from", sampleCaller), "transfer_to": sampleTransferTo,
			"reason": "the caller asked for a person", "timestamp": stamp(r.At),
		}
	default:
		v = map[string]any{}
	}
	b, _ := json.Marshal(v) // maps of JSON values: cannot fail
	return b
}

// withDefaults fills the empty fields of r.
func (r SampleRecords) withDefaults() SampleRecords {
	def := func(s *string, v string) {
		if *s == "" {
			*s = v
		}
	}
	def(&r.BusinessID, SampleBusinessID)
	def(&r.BusinessName, sampleBusinessName)
	def(&r.AgentID, sampleAgentID)
	def(&r.AgentName, sampleAgentName)
	def(&r.PhoneNumberID, sampleNumberID)
	def(&r.PhoneNumber, sampleNumber)
	if r.At.IsZero() {
		r.At = sampleTime
	}
	return r
}

// stamp writes t as the platform writes every time.
func stamp(t time.Time) wireTime { return wireTime(t) }

// field returns member name of the JSON object raw, or def when raw is not
// an object with a non-null member of that name.
func field(raw json.RawMessage, name string, def any) any {
	var m map[string]any
	if json.Unmarshal(raw, &m) != nil || m[name] == nil {
		return def
	}
	return m[name]
}

// object decodes raw, a record of the business, or returns nil.
func object(raw json.RawMessage) map[string]any {
	var m map[string]any
	if len(raw) == 0 || json.Unmarshal(raw, &m) != nil {
		return nil
	}
	return m
}

// call is the call of a call event: the business's latest call with the
// status the event implies, or a sample call.
func (r SampleRecords) call(t EventType) map[string]any {
	ended := stamp(r.At)
	started := stamp(r.At.Add(-95 * time.Second))
	status, reason, duration := "completed", any("completed"), 95
	var endedAt, startedAt, errText, voicemail, summary, recording any = ended, started, nil, nil, "The caller booked a drain cleaning for Tuesday at 9am.", sampleRecordingHost + sampleCallID + ".mp3"
	switch t {
	case EventCallReceived, EventCallbackScheduled:
		status, reason, duration, endedAt, startedAt, summary, recording = "ringing", nil, 0, nil, nil, nil, nil
	case EventCallStarted:
		status, reason, duration, endedAt, summary, recording = "in-progress", nil, 0, nil, nil, nil
	case EventCallFailed:
		status, reason, duration, endedAt, startedAt, summary, recording = "failed", "no_answer", 0, ended, nil, nil, nil
		errText = "no_answer"
	case EventVoicemailReceived:
		status, reason, duration, startedAt, summary, recording = "failed", "voicemail", 0, nil, nil, nil
		errText, voicemail = "no_answer", "Hi, this is Sam. My kitchen sink is leaking; please call me back."
	}
	if m := object(r.Call); m != nil {
		m["status"] = status
		return m
	}
	return map[string]any{
		"id": sampleCallID, "conversation_id": sampleConversation, "status": status,
		"direction": "inbound", "duration": duration, "agent_id": r.AgentID, "agent_name": r.AgentName,
		"business_id": r.BusinessID, "lead_id": field(r.Lead, "id", sampleLeadID),
		"to": r.PhoneNumber, "from": sampleCaller, "name": "Sam Carter",
		"summary": summary, "recording_url": recording, "transcript": nil, "quality_dimensions": nil,
		"context": nil, "max_duration": 600, "error": errText, "ended_reason": reason, "voicemail": voicemail,
		"started_at": startedAt, "ended_at": endedAt,
		"created_at": stamp(r.At.Add(-2 * time.Minute)), "updated_at": stamp(r.At),
	}
}

// lead is the business's latest lead, or a sample lead.
func (r SampleRecords) lead() map[string]any {
	if m := object(r.Lead); m != nil {
		return m
	}
	return map[string]any{
		"id": sampleLeadID, "name": "Sam Carter", "first_name": "Sam", "last_name": "Carter",
		"email": "sam.carter@example.com", "phone": sampleCaller, "status": "new", "source": "phone",
		"agent_id": r.AgentID, "agent_name": r.AgentName, "business_id": r.BusinessID,
		"zip": "94107", "address": nil, "city": "San Francisco", "state": "CA",
		"source_url": nil, "source_page": nil, "notes": nil,
		"message": "My kitchen sink is leaking.", "event_date": nil, "event_type": nil,
		"score": 72, "interaction_count": 1, "intent": "booking",
		"last_contact_at": stamp(r.At), "created_at": stamp(r.At.Add(-time.Minute)), "updated_at": stamp(r.At),
	}
}

// message is the text of an sms event.
func (r SampleRecords) message(t EventType) map[string]any {
	direction, status, from, to, body := "outbound", "sent", r.PhoneNumber, sampleCaller, "Hi Sam, we can come Tuesday at 9am. Reply YES to confirm."
	var errText any
	switch t {
	case EventSMSReceived:
		direction, status, from, to, body = "inbound", "received", sampleCaller, r.PhoneNumber, "YES"
	case EventSMSDelivered:
		status = "delivered"
	case EventSMSFailed:
		status, errText = "failed", "the carrier refused the message"
	}
	if p, ok := field(r.Lead, "phone", nil).(string); ok && p != "" {
		if direction == "inbound" {
			from = p
		} else {
			to = p
		}
	}
	return map[string]any{
		"id": sampleMessageID, "message_sid": sampleMessageSID, "lead_id": field(r.Lead, "id", sampleLeadID),
		"agent_id": r.AgentID, "business_id": r.BusinessID, "direction": direction,
		"from": from, "to": to, "body": body, "status": status, "error": errText,
		"created_at": stamp(r.At), "updated_at": stamp(r.At),
	}
}

// workspace is the business of a workspace event.
func (r SampleRecords) workspace(t EventType) map[string]any {
	status := map[EventType]string{
		EventWorkspacePaused: "paused", EventWorkspaceCanceled: "canceled",
		EventWorkspaceTeardownCompleted: "canceled", EventWorkspaceProvisioningFailed: "trialing",
	}[t]
	if status == "" {
		status = "trialing"
	}
	m := map[string]any{
		"id": r.BusinessID, "name": r.BusinessName, "business_type": "plumbing",
		"website": "https://acme-plumbing.example.com", "subscription_status": status,
		"trial_ends_at": stamp(r.At.Add(14 * 24 * time.Hour)), "created_at": stamp(r.At),
	}
	if t == EventWorkspaceProvisioningFailed {
		m["failed_step"] = "phone_number"
	}
	return m
}

// email is the email of a lead_email event.
func (r SampleRecords) email(t EventType) map[string]any {
	status, errText, sent := "sent", any(nil), any(stamp(r.At))
	if t == EventLeadEmailFailed {
		status, errText, sent = "failed", "the recipient's server refused the message (bounced)", nil
	}
	return map[string]any{
		"id": sampleEmailID, "lead_id": field(r.Lead, "id", sampleLeadID), "business_id": r.BusinessID,
		"to": field(r.Lead, "email", "sam.carter@example.com"), "from": "hello@acme-plumbing.example.com",
		"subject": "Your drain cleaning quote", "body": "Hi Sam, here is the quote we discussed.",
		"status": status, "error": errText, "created_at": stamp(r.At), "sent_at": sent,
	}
}
