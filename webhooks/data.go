package webhooks

import (
	"errors"
	"fmt"
	"strings"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// ErrEventFamily is returned by the typed accessors of [Event] ([Event.Call],
// [Event.Lead], ...) when the event is not of the accessor's family.
var ErrEventFamily = errors.New("webhooks: the event is not of this family")

// Quality holds a finished call's quality scores (1 to 10 each).
type Quality struct {
	Professionalism      int `json:"professionalism"`
	Empathy              int `json:"empathy"`
	InformationGathering int `json:"information_gathering"`
	Resolution           int `json:"resolution"`
}

// CallData is the data of call.* and voicemail.received events: the call
// as GET /v1/calls?id= shows it at the moment of the event. Absent values
// (null on the wire) are empty: StartedAt is zero until the call is
// answered, EndedAt until it ends.
type CallData struct {
	ID             string `json:"id"`
	ConversationID string `json:"conversation_id"`
	Status         string `json:"status"`
	Direction      string `json:"direction"`
	Duration       int    `json:"duration"`
	AgentID        string `json:"agent_id"`
	AgentName      string `json:"agent_name"`
	BusinessID     string `json:"business_id"`
	// LeadID is the lead the call is with, nil when there is none (as
	// calls.Call.LeadID).
	LeadID            *string  `json:"lead_id"`
	To                string   `json:"to"`
	From              string   `json:"from"`
	Name              string   `json:"name"`
	Summary           string   `json:"summary"`
	RecordingURL      string   `json:"recording_url"`
	Transcript        string   `json:"transcript"`
	QualityDimensions *Quality `json:"quality_dimensions"`
	// Context is the freeform context given when the call was placed.
	Context     string `json:"context"`
	MaxDuration int    `json:"max_duration"`
	Error       string `json:"error"`
	// EndedReason is completed, max_duration, transferred, voicemail,
	// no_answer or busy.
	EndedReason string `json:"ended_reason"`
	// Voicemail is the message an unanswered inbound caller left.
	Voicemail string    `json:"voicemail"`
	StartedAt time.Time `json:"started_at"`
	EndedAt   time.Time `json:"ended_at"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// TouchRef names the communication run touch or approval request that
	// placed the call, if any.
	voiceagent.TouchRef
}

// LeadData is the data of lead.* events: the lead as GET /v1/leads?id=
// shows it at the moment of the event. Absent values (null on the wire)
// are empty.
type LeadData struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	FirstName  string `json:"first_name"`
	LastName   string `json:"last_name"`
	Email      string `json:"email"`
	Phone      string `json:"phone"`
	Status     string `json:"status"`
	Source     string `json:"source"`
	AgentID    string `json:"agent_id"`
	AgentName  string `json:"agent_name"`
	BusinessID string `json:"business_id"`
	Zip        string `json:"zip"`
	Address    string `json:"address"`
	City       string `json:"city"`
	State      string `json:"state"`
	SourceURL  string `json:"source_url"`
	SourcePage string `json:"source_page"`
	Notes      string `json:"notes"`
	// Message is the last thing the lead said.
	Message   string `json:"message"`
	EventDate string `json:"event_date"`
	EventType string `json:"event_type"`
	// Score is 0 to 100 (lead.scored is emitted when it changes).
	Score            int `json:"score"`
	InteractionCount int `json:"interaction_count"`
	// Intent is booking, quote, support, cancellation, human or inquiry.
	Intent        string    `json:"intent"`
	LastContactAt time.Time `json:"last_contact_at"`
	CreatedAt     time.Time `json:"created_at"`
	UpdatedAt     time.Time `json:"updated_at"`
}

// MessageData is the data of sms.* events: one text message.
type MessageData struct {
	ID         string `json:"id"`
	MessageSID string `json:"message_sid"`
	// LeadID is the lead whose thread the text is in, nil when there is
	// none (as sms.Message.LeadID).
	LeadID     *string `json:"lead_id"`
	AgentID    string  `json:"agent_id"`
	BusinessID string  `json:"business_id"`
	// Direction is inbound or outbound.
	Direction string `json:"direction"`
	From      string `json:"from"`
	To        string `json:"to"`
	Body      string `json:"body"`
	// Status is sent, delivered, failed or received.
	Status    string    `json:"status"`
	Error     string    `json:"error"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// TouchRef names the communication run touch that sent the text, if any.
	voiceagent.TouchRef
}

// PhoneNumberData is the data of phone_number.* events: the number record
// of GET /v1/numbers.
type PhoneNumberData struct {
	ID          string    `json:"id"`
	PhoneNumber string    `json:"phone_number"`
	AgentID     string    `json:"agent_id"`
	BusinessID  string    `json:"business_id"`
	CreatedAt   time.Time `json:"created_at"`
}

// WorkspaceData is the data of workspace.* events: the business.
type WorkspaceData struct {
	ID                 string    `json:"id"`
	Name               string    `json:"name"`
	BusinessType       string    `json:"business_type"`
	Website            string    `json:"website"`
	SubscriptionStatus string    `json:"subscription_status"`
	TrialEndsAt        time.Time `json:"trial_ends_at"`
	PartnerID          string    `json:"partner_id"`
	// FailedStep is the provisioning step that failed (phone_number), on
	// workspace.provisioning_failed only.
	FailedStep string    `json:"failed_step"`
	CreatedAt  time.Time `json:"created_at"`
}

// HandoffData is the data of conversation.handoff: an inbound call the
// agent transferred to a person.
type HandoffData struct {
	CallID         string `json:"call_id"`
	ConversationID string `json:"conversation_id"`
	AgentID        string `json:"agent_id"`
	// LeadID is the caller's lead, nil when there is none (as
	// calls.Call.LeadID).
	LeadID *string `json:"lead_id"`
	// From is the caller's number.
	From string `json:"from"`
	// TransferTo is the number the call was transferred to.
	TransferTo string    `json:"transfer_to"`
	Reason     string    `json:"reason"`
	Timestamp  time.Time `json:"timestamp"`
}

// family decodes the event's data into v when the event type starts with
// one of prefixes (or equals one of them).
func family[T any](e *Event, name string, prefixes ...string) (*T, error) {
	for _, p := range prefixes {
		if string(e.Type) == p || (strings.HasSuffix(p, ".") && strings.HasPrefix(string(e.Type), p)) {
			var v T
			if err := e.DecodeData(&v); err != nil {
				return nil, err
			}
			return &v, nil
		}
	}
	return nil, fmt.Errorf("%w: %s is not a %s event", ErrEventFamily, e.Type, name)
}

// Call returns the call of a call.* or voicemail.received event.
func (e *Event) Call() (*CallData, error) {
	return family[CallData](e, "call", "call.", string(EventVoicemailReceived))
}

// Lead returns the lead of a lead.* event.
func (e *Event) Lead() (*LeadData, error) { return family[LeadData](e, "lead", "lead.") }

// Message returns the text message of an sms.* event.
func (e *Event) Message() (*MessageData, error) { return family[MessageData](e, "sms", "sms.") }

// PhoneNumber returns the number of a phone_number.* event.
func (e *Event) PhoneNumber() (*PhoneNumberData, error) {
	return family[PhoneNumberData](e, "phone number", "phone_number.")
}

// Handoff returns the transfer of a conversation.handoff event.
func (e *Event) Handoff() (*HandoffData, error) {
	return family[HandoffData](e, "handoff", string(EventConversationHandoff))
}

// Workspace returns the business of a workspace.* event.
func (e *Event) Workspace() (*WorkspaceData, error) {
	return family[WorkspaceData](e, "workspace", "workspace.")
}
