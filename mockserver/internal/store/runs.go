package store

import "time"

// TouchRef ties a call or a text to what placed it: a touch of a
// communication run, or an approval request. Empty for other calls and
// texts.
type TouchRef struct {
	CommunicationRunID string
	ExternalRef        string
	TouchID            string
	ApprovalRequestID  string
}

// RunTarget is who a touch of a communication run reaches.
type RunTarget struct {
	Phone    string  `json:"phone"`
	LeadID   *string `json:"lead_id"`
	Name     *string `json:"name"`
	Email    *string `json:"email"`
	Timezone *string `json:"timezone"`
	State    *string `json:"state"`
}

// TimingWindow bounds when a touch may happen; nil bounds are open.
type TimingWindow struct {
	NotBefore *time.Time `json:"not_before"`
	NotAfter  *time.Time `json:"not_after"`
}

// TouchError says why a touch failed or was skipped.
type TouchError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// RunTouch is one scheduled call or text of a communication run, with its
// execution state. A touch is part of its run: a change of a touch is a
// change of the run.
type RunTouch struct {
	TouchID      string
	Channel      string // call or sms
	Target       RunTarget
	ScheduledAt  time.Time
	TimingWindow *TimingWindow
	Context      map[string]any
	Metadata     map[string]any
	Message      *string
	SMSCategory  *string

	Status      string    // scheduled, running, completed, failed, skipped, canceled
	ExecuteAt   time.Time // scheduled_at moved into the window
	StartedAt   *time.Time
	CompletedAt *time.Time
	CallID      string
	MessageSID  string
	Duration    *int
	Summary     string
	Error       *TouchError
}

// CommunicationRun is a scheduled multi-touch run of calls and texts. Owner
// is its business.
type CommunicationRun struct {
	Base
	ExternalRef      string
	AssignedNumberID *string // as sent
	FromNumberID     string  // the resolved sending number
	FromNumber       string
	AgentID          string // the resolved agent
	AgentIDSent      *string
	Metadata         map[string]any
	Touches          []*RunTouch
	Status           string // scheduled, running, completed, failed
	IdempotencyKey   string
	UpdatedAt        time.Time
	StartedAt        *time.Time
	CompletedAt      *time.Time
}
