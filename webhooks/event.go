package webhooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/voiceagent/voiceagent-go/internal/wire"
)

// EventType is the type of an event: the "event" member of a delivery's
// body, for example "lead.created". The constants below are every type the
// platform sends; a string of another value is a type this SDK does not
// know (a newer platform's).
type EventType string

// String returns the type as it is on the wire.
func (t EventType) String() string { return string(t) }

// Event types of subscription deliveries: the 27 names a subscription may
// list in its events (spec section 6). [EventCallCompleted] and
// [EventCallFailed] are also the event names of the per-call webhook.
const (
	EventLeadCreated                 EventType = "lead.created"
	EventLeadScored                  EventType = "lead.scored"
	EventCallReceived                EventType = "call.received"
	EventCallStarted                 EventType = "call.started"
	EventCallCompleted               EventType = "call.completed"
	EventCallFailed                  EventType = "call.failed"
	EventSMSReceived                 EventType = "sms.received"
	EventSMSSent                     EventType = "sms.sent"
	EventSMSDelivered                EventType = "sms.delivered"
	EventSMSFailed                   EventType = "sms.failed"
	EventVoicemailReceived           EventType = "voicemail.received"
	EventDispatcherBriefingCreated   EventType = "dispatcher.briefing_created"
	EventDispatcherHandoffDispatched EventType = "dispatcher.handoff_dispatched"
	EventPhoneNumberAssigned         EventType = "phone_number.assigned"
	EventPhoneNumberReleased         EventType = "phone_number.released"
	EventPhoneNumberPurchased        EventType = "phone_number.purchased"
	EventWorkspacePaused             EventType = "workspace.paused"
	EventWorkspaceCanceled           EventType = "workspace.canceled"
	EventWorkspaceCreated            EventType = "workspace.created"
	EventWorkspaceProvisioningFailed EventType = "workspace.provisioning_failed"
	EventWorkspaceReady              EventType = "workspace.ready"
	EventWorkspaceTeardownCompleted  EventType = "workspace.teardown_completed"
	EventLeadEmailSent               EventType = "lead_email.sent"
	EventLeadEmailFailed             EventType = "lead_email.failed"
	EventCallbackScheduled           EventType = "callback.scheduled"
	EventCallbackCompleted           EventType = "callback.completed"
	EventConversationHandoff         EventType = "conversation.handoff"
)

var eventTypes = []EventType{
	EventLeadCreated, EventLeadScored,
	EventCallReceived, EventCallStarted, EventCallCompleted, EventCallFailed,
	EventSMSReceived, EventSMSSent, EventSMSDelivered, EventSMSFailed,
	EventVoicemailReceived,
	EventDispatcherBriefingCreated, EventDispatcherHandoffDispatched,
	EventPhoneNumberAssigned, EventPhoneNumberReleased, EventPhoneNumberPurchased,
	EventWorkspacePaused, EventWorkspaceCanceled, EventWorkspaceCreated,
	EventWorkspaceProvisioningFailed, EventWorkspaceReady, EventWorkspaceTeardownCompleted,
	EventLeadEmailSent, EventLeadEmailFailed,
	EventCallbackScheduled, EventCallbackCompleted,
	EventConversationHandoff,
}

// EventTypes returns the 27 event types a subscription may list, in the order
// of spec section 6. The slice is a fresh copy on every call.
func EventTypes() []EventType { return slices.Clone(eventTypes) }

// IsEventType reports whether s is one of the event types of [EventTypes].
func IsEventType(s string) bool { return slices.Contains(eventTypes, EventType(s)) }

// ErrInvalidPayload means a body is not the expected JSON: not an object,
// a required field missing, or a field of the wrong type.
var ErrInvalidPayload = errors.New("webhooks: invalid payload")

// Event is the standard body of a subscription delivery:
// {"id", "event", "business_id", "timestamp", "data": {...}}.
type Event struct {
	// ID is the event id.
	ID string `json:"id"`
	// Type is the event type, one of the Event constants.
	Type EventType `json:"event"`
	// BusinessID is the business the event belongs to.
	BusinessID string `json:"business_id"`
	// Timestamp is when the event happened (the platform's clock; on the mock
	// server the simulated clock, unlike the webhook-timestamp header).
	Timestamp time.Time `json:"timestamp"`
	// Data is the resource of the event (a call, lead, message, number,
	// workspace, ...), undecoded; see [Event.DecodeData].
	Data json.RawMessage `json:"data,omitempty"`
}

// DecodeData decodes the event's data into v, typically a pointer to the
// resource type of the event, for example *leads.Lead for lead.created.
func (e *Event) DecodeData(v any) error {
	if len(e.Data) == 0 {
		return fmt.Errorf("%w: event %s (%s) has no data", ErrInvalidPayload, e.ID, e.Type)
	}
	if err := json.Unmarshal(e.Data, v); err != nil {
		return fmt.Errorf("webhooks: decoding data of event %s (%s): %w", e.ID, e.Type, err)
	}
	return nil
}

// flexTime reads the timestamps of bodies leniently: an RFC 3339 / ISO 8601
// string (with or without fraction, "Z" or a numeric offset), a unix time in
// seconds as a number or numeric string, or null.
type flexTime time.Time

var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999Z0700",
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999Z0700",
	"2006-01-02 15:04:05.999999999",
}

func (t *flexTime) UnmarshalJSON(b []byte) error {
	if err := t.parse(b); err != nil {
		return err
	}
	// Keep to what time.Time can write back as JSON.
	if y := time.Time(*t).Year(); y < 0 || y > 9999 {
		*t = flexTime{}
		return fmt.Errorf("timestamp %s is outside years 0 to 9999", b)
	}
	return nil
}

func (t *flexTime) parse(b []byte) error {
	if bytes.Equal(b, []byte("null")) {
		*t = flexTime{}
		return nil
	}
	var s string
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if s == "" {
			*t = flexTime{}
			return nil
		}
	} else {
		s = string(b)
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e12 {
			return fmt.Errorf("timestamp %s out of range", s)
		}
		sec, frac := math.Modf(f)
		*t = flexTime(time.Unix(int64(sec), int64(frac*1e9)).UTC())
		return nil
	}
	for _, layout := range timeLayouts {
		if v, err := time.Parse(layout, s); err == nil {
			*t = flexTime(v)
			return nil
		}
	}
	return fmt.Errorf("timestamp %q is neither ISO 8601 nor unix seconds", s)
}

// probe tells the two body forms apart without decoding them fully.
type probe struct {
	Data   json.RawMessage `json:"data"`
	CallID json.RawMessage `json:"call_id"`
}

func (p probe) isCallWebhook() bool {
	return len(p.CallID) > 0 && !isNull(p.CallID) && (len(p.Data) == 0 || isNull(p.Data))
}

func isNull(b json.RawMessage) bool { return bytes.Equal(b, []byte("null")) }

// Parse decodes the standard body of a subscription delivery. It does not
// verify anything: use [ConstructEvent] (or [Verify] first) on bodies that
// came over the network. id and event are required; unknown fields are
// ignored. The error wraps [ErrInvalidPayload].
func Parse(body []byte) (*Event, error) {
	var w struct {
		ID         string          `json:"id"`
		Type       EventType       `json:"event"`
		BusinessID string          `json:"business_id"`
		Timestamp  flexTime        `json:"timestamp"`
		Data       json.RawMessage `json:"data"`
		CallID     json.RawMessage `json:"call_id"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidPayload, err)
	}
	if w.ID == "" || w.Type == "" {
		if (probe{Data: w.Data, CallID: w.CallID}).isCallWebhook() {
			return nil, fmt.Errorf("%w: this is a per-call webhook body; use ParseCallWebhook", ErrInvalidPayload)
		}
		return nil, fmt.Errorf("%w: the event body needs non-empty \"id\" and \"event\"", ErrInvalidPayload)
	}
	e := &Event{ID: w.ID, Type: w.Type, BusinessID: w.BusinessID, Timestamp: time.Time(w.Timestamp)}
	if len(w.Data) > 0 && !isNull(w.Data) {
		e.Data = w.Data
	}
	return e, nil
}

// ConstructEvent verifies a delivery with [Verify] (default options) and
// then decodes its body with [Parse]: the one call a receiver needs. body
// must be the raw request body and header the request's headers.
func ConstructEvent(body []byte, header http.Header, secrets ...string) (*Event, error) {
	if err := Verify(body, header, secrets); err != nil {
		return nil, err
	}
	return Parse(body)
}

// CallWebhook is the flat body the platform posts to the webhook_url given
// when a call was created (spec section 6):
//
//	call.completed: event, call_id, status, duration, recording_url, summary, timestamp
//	call.failed:    event, call_id, status, error, timestamp
type CallWebhook struct {
	// ID is the webhook-id header of the delivery (the body has no id). It
	// is set by [Handler]; [ParseCallWebhook] leaves it empty.
	ID string `json:"-"`
	// Event is [EventCallCompleted] or [EventCallFailed].
	Event EventType `json:"event"`
	// CallID is the id of the call.
	CallID string `json:"call_id"`
	// Status is the call status: completed or failed.
	Status string `json:"status"`
	// Duration is the length of the call in seconds (call.completed).
	Duration int `json:"duration"`
	// RecordingURL is the URL of the recording (call.completed).
	RecordingURL string `json:"recording_url"`
	// Summary is the summary of the conversation (call.completed).
	Summary string `json:"summary"`
	// Error is why the call failed, for example no_answer (call.failed).
	Error string `json:"error"`
	// Timestamp is when the call ended.
	Timestamp time.Time `json:"timestamp"`
}

// MarshalJSON writes the fields spec section 6 lists for the event: no
// error on call.completed, no duration, recording_url or summary on
// call.failed. The timestamp is written as the platform writes every time:
// RFC 3339 in UTC with nine fractional digits.
func (c CallWebhook) MarshalJSON() ([]byte, error) {
	if c.Event == EventCallFailed {
		return json.Marshal(struct {
			Event     EventType `json:"event"`
			CallID    string    `json:"call_id"`
			Status    string    `json:"status"`
			Error     string    `json:"error"`
			Timestamp wireTime  `json:"timestamp"`
		}{c.Event, c.CallID, c.Status, c.Error, wireTime(c.Timestamp)})
	}
	return json.Marshal(struct {
		Event        EventType `json:"event"`
		CallID       string    `json:"call_id"`
		Status       string    `json:"status"`
		Duration     int       `json:"duration"`
		RecordingURL string    `json:"recording_url"`
		Summary      string    `json:"summary"`
		Error        string    `json:"error,omitempty"`
		Timestamp    wireTime  `json:"timestamp"`
	}{c.Event, c.CallID, c.Status, c.Duration, c.RecordingURL, c.Summary, c.Error, wireTime(c.Timestamp)})
}

// wireTime is a time written as the platform writes one: RFC 3339 in UTC
// with nine fractional digits (wire.TimeLayout).
type wireTime time.Time

// MarshalJSON writes t as the platform does.
func (t wireTime) MarshalJSON() ([]byte, error) {
	b, err := wire.AppendTime(append(make([]byte, 0, 32), '"'), time.Time(t))
	return append(b, '"'), err
}

// ParseCallWebhook decodes the flat body of a per-call webhook. event and
// call_id are required; null values read as empty; a duration written as a
// whole float (12.0) is accepted. It does not verify anything. The error
// wraps [ErrInvalidPayload].
func ParseCallWebhook(body []byte) (*CallWebhook, error) {
	var w struct {
		Event        EventType       `json:"event"`
		CallID       string          `json:"call_id"`
		Status       string          `json:"status"`
		Duration     json.Number     `json:"duration"`
		RecordingURL *string         `json:"recording_url"`
		Summary      *string         `json:"summary"`
		Error        *string         `json:"error"`
		Timestamp    flexTime        `json:"timestamp"`
		Data         json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &w); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrInvalidPayload, err)
	}
	if w.Event == "" || w.CallID == "" {
		if len(w.Data) > 0 && !isNull(w.Data) {
			return nil, fmt.Errorf("%w: this is a standard event body; use Parse", ErrInvalidPayload)
		}
		return nil, fmt.Errorf("%w: the per-call webhook body needs non-empty \"event\" and \"call_id\"", ErrInvalidPayload)
	}
	c := &CallWebhook{
		Event:     w.Event,
		CallID:    w.CallID,
		Status:    w.Status,
		Timestamp: time.Time(w.Timestamp),
	}
	if w.Duration != "" {
		f, err := strconv.ParseFloat(string(w.Duration), 64)
		if err != nil || f != math.Trunc(f) || math.Abs(f) > math.MaxInt32 {
			return nil, fmt.Errorf("%w: duration %s is not a whole number of seconds", ErrInvalidPayload, w.Duration)
		}
		c.Duration = int(f)
	}
	for _, f := range []struct {
		dst *string
		src *string
	}{{&c.RecordingURL, w.RecordingURL}, {&c.Summary, w.Summary}, {&c.Error, w.Error}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	return c, nil
}
