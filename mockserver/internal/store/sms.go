package store

import "time"

// SMS message statuses.
const (
	SMSQueued    = "queued"
	SMSSent      = "sent"
	SMSDelivered = "delivered"
	SMSFailed    = "failed"
	SMSReceived  = "received"
)

// SMSMessage is one text in a conversation thread, outbound or inbound.
// Owner is its business.
type SMSMessage struct {
	Base
	MessageSID string
	LeadID     string
	AgentID    string
	Direction  string // inbound or outbound
	From, To   string
	Body       string
	Status     string
	Error      string
	UpdatedAt  time.Time
	// Ref is the run touch that sent the text.
	Ref TouchRef
	// Step is the id of the script step the text follows ("": none).
	Step string
}

// PromptAudit is one entry of the audit trail of prompt changes. Owner is
// the agent's business.
type PromptAudit struct {
	Base
	AgentID   string
	Field     string
	OldValue  string
	NewValue  string
	Reason    string
	ActorUser string
	ActorKey  string // the key's prefix, "" for a dashboard session
}

// SMS consent states of a number towards a business.
const (
	ConsentNone     = "none"
	ConsentOptedIn  = "opted_in"
	ConsentOptedOut = "opted_out"
)

// SetDNC puts a number on (or, with on false, takes it off) a business's
// do-not-call list; businessID "" is the national registry every business
// honours.
func (s *Store) SetDNC(businessID, phone string, on bool) {
	s.sch.mustWrite("SetDNC")
	m := s.tel().dnc[businessID]
	if m == nil {
		m = map[string]bool{}
		s.tel().dnc[businessID] = m
	}
	if on {
		m[phone] = true
	} else {
		delete(m, phone)
	}
}

// OnDNC reports whether a number is on the national registry or the
// business's own do-not-call list.
func (s *Store) OnDNC(businessID, phone string) bool {
	return s.tel().dnc[""][phone] || s.tel().dnc[businessID][phone]
}

// Consent returns a number's SMS consent towards a business (ConsentNone
// when never given).
func (s *Store) Consent(businessID, phone string) string {
	if c, ok := s.tel().consent[businessID][phone]; ok {
		return c
	}
	return ConsentNone
}

// SetConsent records a number's SMS consent towards a business.
func (s *Store) SetConsent(businessID, phone, state string) {
	s.sch.mustWrite("SetConsent")
	m := s.tel().consent[businessID]
	if m == nil {
		m = map[string]string{}
		s.tel().consent[businessID] = m
	}
	if state == ConsentNone {
		delete(m, phone)
		return
	}
	m[phone] = state
}
