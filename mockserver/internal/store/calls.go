package store

import "time"

// Call directions.
const (
	DirectionInbound  = "inbound"
	DirectionOutbound = "outbound"
)

// Call statuses. Outbound calls go queued, in-progress, then completed or
// failed; inbound calls go ringing, in-progress, then ended, or ringing then
// no-answer.
const (
	CallQueued     = "queued"
	CallRinging    = "ringing"
	CallInProgress = "in-progress"
	CallCompleted  = "completed"
	CallFailed     = "failed"
	CallEnded      = "ended"
	CallNoAnswer   = "no-answer"
)

// QualityDimensions are a finished call's quality scores (1 to 10 each).
type QualityDimensions struct {
	Professionalism      int `json:"professionalism"`
	Empathy              int `json:"empathy"`
	InformationGathering int `json:"information_gathering"`
	Resolution           int `json:"resolution"`
}

// Call is a phone call, outbound or inbound. Owner is its business.
type Call struct {
	Base
	encodable
	ConversationID string
	Status         string
	Direction      string
	AgentID        string
	AgentName      string // the agent's name when the call was placed
	LeadID         string
	To, From       string
	Name           string
	Context        string
	FirstMessage   string
	WebhookURL     string
	MaxDuration    int
	// PlannedDuration is the simulated length of the conversation before the
	// max_duration cap.
	PlannedDuration int
	Duration        int
	Summary         string
	Transcript      string
	Quality         *QualityDimensions
	Error           string // reason of a failed call (no_answer, busy)
	EndedReason     string
	Voicemail       string
	StartedAt       *time.Time
	EndedAt         *time.Time
	UpdatedAt       time.Time
	// Caller is what an inbound caller says (set by the admin route).
	Caller CallerInput
	// Answered is false for an inbound call nobody picks up.
	Answered bool
	// Recorded is set when the call has a recording, whose URL derives
	// from the call's id (a flag, not a string per call).
	Recorded bool
	// Provider is what the simulated voice provider received.
	Provider ProviderCall
	// Ref is the run touch or approval request that placed the call.
	Ref TouchRef
}

// CallerInput is what an inbound caller tells the agent.
type CallerInput struct {
	Name   string `json:"name,omitempty"`
	Email  string `json:"email,omitempty"`
	Phone  string `json:"phone,omitempty"`
	Said   string `json:"said,omitempty"`
	Intent string `json:"intent,omitempty"`
}

// ProviderCall is what the simulated voice provider received for a call:
// the assistant, the numbers, the opening line, the prompt with the
// enrichment variables filled in, and the variables themselves.
type ProviderCall struct {
	AssistantID  string
	From, To     string
	FirstMessage string
	Prompt       string
	Context      string
	Variables    map[string]any
	MaxDuration  int
}

// Ended reports whether the call reached a final state.
func (c *Call) Ended() bool {
	switch c.Status {
	case CallCompleted, CallFailed, CallEnded, CallNoAnswer:
		return true
	}
	return false
}

// MinutesUsed returns the minutes a business's calls used: the sum of its
// finished calls' durations, each rounded up to a whole minute.
func (s *Store) MinutesUsed(businessID string) int { return s.tel().minutes[businessID] }

// AddCallMinutes counts a finished call's duration towards MinutesUsed.
func (s *Store) AddCallMinutes(businessID string, seconds int) {
	if seconds > 0 {
		s.tel().minutes[businessID] += (seconds + 59) / 60
	}
}
