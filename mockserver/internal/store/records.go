package store

import (
	"encoding/json"
	"reflect"
	"sync/atomic"
	"time"
)

// Base carries the fields every record has and implements Record.
type Base struct {
	ID        string
	Owner     string // business id (or user id for per-user records)
	CreatedAt time.Time
}

// RecordID implements Record.
func (b *Base) RecordID() string { return b.ID }

// RecordOwner implements Record.
func (b *Base) RecordOwner() string { return b.Owner }

// RecordCreated implements Record.
func (b *Base) RecordCreated() time.Time { return b.CreatedAt }

// base implements Record: Insert and Update reach the fields through it.
func (b *Base) base() *Base { return b }

// User is a platform account. Owner is the user's own id.
type User struct {
	Base
	Email          string
	EmailConfirmed bool
	// PartnerID is set on users that act for a partner (agency).
	PartnerID string
	// Operator marks platform operators (may mint partner keys).
	Operator bool
}

// Member roles on a business.
const (
	RoleOwner  = "owner"
	RoleAdmin  = "admin"
	RoleMember = "member"
)

// Business is a workspace. Owner is the business's own id.
type Business struct {
	Base
	Name        string
	OwnerUserID string
	Members     map[string]string // user id -> role
	PartnerID   string            // the partner that created it, if any
	// Tenant is the root business of the account the business belongs to
	// (its own id for an account's first business): the tenant whose
	// clock, faults and filters apply to it.
	Tenant             string
	BusinessType       string
	Website            string
	Phone              string
	ForwardTo          string // owner forwarding number (ring-first routing)
	RingFirstSeconds   int
	SubscriptionStatus string
	TrialEndsAt        time.Time
	Timezone           string
}

// APIKey is a bearer key. Only a SHA-256 of the key is kept. Owner is the
// user the key acts as.
type APIKey struct {
	Base
	Hash       [32]byte
	Prefix     string
	Name       string
	Scopes     []string
	BusinessID string // "" means all of the owner's businesses
	PartnerID  string // partner keys have access only to that partner's businesses
	ExpiresAt  *time.Time
	Active     bool
	// CreatedBy is the user who minted the key (an operator minting a
	// partner key for another user); "" means the owner.
	CreatedBy string
	RevokedAt *time.Time
	// LastUsed is the unix nanoseconds of the last use (0: never); atomic
	// because it is written by reads that hold only the read lock.
	LastUsed atomic.Int64
}

// Session is a dashboard session (the voiceagent_session cookie). Owner is
// the user.
type Session struct {
	Base
	Token     string
	ExpiresAt time.Time
}

// AgentPrompt is one of an agent's prompts.
type AgentPrompt struct {
	Prompt       string `json:"prompt"`
	LLM          any    `json:"llm"`
	FirstMessage string `json:"first_message,omitempty"`
}

// Voice is an agent's voice configuration.
type Voice struct {
	Provider string `json:"provider"`
	VoiceID  string `json:"voiceId"`
}

// Model is an agent's language model configuration.
type Model struct {
	Provider    string  `json:"provider"`
	Model       string  `json:"model"`
	Temperature float64 `json:"temperature"`
}

// Agent is a voice agent. Owner is its business.
type Agent struct {
	Base
	Name                 string
	VendorAssistantID    string
	Status               string
	PhoneNumber          string
	InboundPrompt        string
	OutboundPrompt       string
	SMSPrompt            string
	FirstMessage         string
	OutboundFirstMessage string
	OutboundLLM          any
	SMSLLM               any
	Voice                Voice
	VoiceCatalogID       string
	Model                Model
	Metadata             map[string]any
	MaxDuration          int
	VendorConfig         map[string]any
	TransferEnabled      bool
	TransferPhoneNumber  string
	LeadCollection       bool
	Intake               bool // the intake agent provisioned with the business
	UpdatedAt            time.Time
}

// Number is a phone number assigned to an agent. Owner is its business.
type Number struct {
	Base
	PhoneNumber string
	AgentID     string
}

// UsageEntry is one line of the API usage log. Owner is the key's user.
// An entry never changes once in the log.
type UsageEntry struct {
	Base
	BusinessID string
	// Tenant is the tenant the request acted in ("" for none): whose
	// bounds the entry counts against.
	Tenant     string
	Endpoint   string
	Method     string
	CallID     string
	StatusCode int16
	CostCents  int32
	kept
}

// Event is one platform event. Owner is its business. Data is the JSON of
// the resource at the moment of the event.
type Event struct {
	Base
	Type      string
	Timestamp time.Time
	Data      json.RawMessage
	kept
}

// eventOverhead is what an event costs besides its type and data: the
// record, its id, its slots in the table's id index, owner list and
// retention log.
var eventOverhead = int64(reflect.TypeFor[Event]().Size()) + 36 + 96

// EventBytes is what an event counts against the event log's byte bound.
func EventBytes(ev *Event) int64 { return eventOverhead + int64(len(ev.Type)+len(ev.Data)) }

// OutboxMessage is an email or SMS the platform "sent" to a person outside
// the API (OTP codes, magic links, SDR emails). Owner is "outbox".
type OutboxMessage struct {
	Base
	// BusinessID is the business the message was sent for ("" for a
	// signup code, sent before any business exists).
	BusinessID string
	Channel    string // email or sms
	To         string
	From       string
	Subject    string
	Body       string
	OTPCode    string
	Link       string
	kept
}

// Assistant is an agent's twin at the simulated voice provider: what the
// provider would use on a live call.
type Assistant struct {
	ID           string
	Name         string
	Prompt       string
	FirstMessage string
	Voice        Voice
	Model        Model
	VendorConfig map[string]any
	MaxDuration  int
}
