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
	StartedAt       *time.Time
	EndedAt         *time.Time
	UpdatedAt       time.Time
	// Caller is what an inbound caller says (set by the admin route; nil
	// on outbound calls: CallerInfo).
	Caller *CallerInput
	// Answered is false for an inbound call nobody picks up.
	Answered bool
	// Recorded is set when the call has a recording, whose URL derives
	// from the call's id (a flag, not a string per call).
	Recorded bool
	// Provider is what the simulated voice provider received.
	Provider ProviderCall
	// Ref is the run touch or approval request that placed the call (nil:
	// none; Touch).
	Ref *TouchRef
	// Step is the id of the script step the call follows ("": the default
	// simulation).
	Step string
	// VoicemailMessage is the message an outbound call leaves once it
	// reached a voicemail box ("": it did not), kept from then so that
	// the call's end does not depend on later changes of its agent.
	VoicemailMessage string
}

// CallerInfo is what an inbound caller says (the zero value when the call
// has none).
func (c *Call) CallerInfo() CallerInput {
	if c.Caller == nil {
		return CallerInput{}
	}
	return *c.Caller
}

// Touch is the run touch or approval request that placed the call (the
// zero value when none did).
func (c *Call) Touch() TouchRef {
	if c.Ref == nil {
		return TouchRef{}
	}
	return *c.Ref
}

// RefTo is ref as Call.Ref keeps it: nil for the zero value.
func RefTo(ref TouchRef) *TouchRef {
	if ref == (TouchRef{}) {
		return nil
	}
	return &ref
}

// CallerInput is what an inbound caller tells the agent, or leaves as a
// voicemail when nobody answers. Only inbound calls have one, so what only
// they say costs outbound calls nothing.
type CallerInput struct {
	Name      string `json:"name,omitempty"`
	Email     string `json:"email,omitempty"`
	Phone     string `json:"phone,omitempty"`
	Said      string `json:"said,omitempty"`
	Intent    string `json:"intent,omitempty"`
	Voicemail string `json:"voicemail,omitempty"`
}

// ProviderCall is what the simulated voice provider received for a call
// besides what the call itself keeps (its numbers, opening line and
// context): the assistant, the prompt with the enrichment variables filled
// in, and the variables themselves.
type ProviderCall struct {
	AssistantID string
	Prompt      string
	Variables   CallVariables
}

// CallVariables are the enrichment variables a call's prompt receives,
// kept as fields: a map per call would cost more than the rest of the
// call. Map gives them as the provider sees them.
type CallVariables struct {
	BusinessName  string
	BusinessPhone string // "" is null
	TimeOfDay     string
	Name          string // "" is absent, or null when the call has a lead
	// The lead_* variables, present when Lead is set.
	LeadStatus            string
	LeadSource            *string
	LeadScore             int32
	InteractionCount      int32
	DaysSinceFirstContact int32
	// Lead is set when the call has a lead: name and the lead_* variables
	// are then present.
	Lead bool
}

// Map returns the variables by name, as the prompt's {{name}} placeholders
// and the provider see them: business_name, business_phone and
// time_of_day always; name when given or when the call has a lead;
// lead_score, lead_status, interaction_count, days_since_first_contact and
// lead_source with a lead.
func (v *CallVariables) Map() map[string]any {
	m := map[string]any{
		"business_name":  v.BusinessName,
		"business_phone": nil,
		"time_of_day":    v.TimeOfDay,
	}
	if v.BusinessPhone != "" {
		m["business_phone"] = v.BusinessPhone
	}
	if v.Name != "" {
		m["name"] = v.Name
	} else if v.Lead {
		m["name"] = nil
	}
	if v.Lead {
		m["lead_score"] = int(v.LeadScore)
		m["lead_status"] = v.LeadStatus
		m["interaction_count"] = int(v.InteractionCount)
		m["days_since_first_contact"] = int(v.DaysSinceFirstContact)
		m["lead_source"] = nil
		if v.LeadSource != nil {
			m["lead_source"] = *v.LeadSource
		}
	}
	return m
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
	s.sch.mustWrite("AddCallMinutes")
	if seconds > 0 {
		s.tel().minutes[businessID] += (seconds + 59) / 60
	}
}
