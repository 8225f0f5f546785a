package store

import "time"

// SDR channels and the actions of POST /sdr/action.
const (
	SDRCall     = "call"
	SDREmail    = "email"
	SDRSMS      = "sms"
	SDRSkip     = "skip"
	SDRPause    = "pause"
	SDRResume   = "resume"
	SDREscalate = "escalate" // recorded by runs for leads they put on manual review
)

// Triggers of SDR activity.
const (
	SDRTriggerManual    = "manual"    // POST /sdr/action
	SDRTriggerRun       = "run"       // POST /sdr/run
	SDRTriggerScheduled = "scheduled" // the two-hourly runner
)

// Statuses of SDR emails.
const (
	SDREmailQueued = "queued"
	SDREmailSent   = "sent"
	SDREmailFailed = "failed"
)

// SDRConfig is the outbound-sales configuration of one business. A business
// without one uses the defaults (see mockserver's documentation).
type SDRConfig struct {
	BusinessID         string
	Enabled            bool
	MinTouchGapHours   int
	MaxTouches         int
	AutoCall           bool
	AutoEmail          bool
	AutoSMS            bool
	SDRAgentID         string
	HoursStart         int
	HoursEnd           int
	EmailFromAccountID string
	CreatedAt          time.Time
	UpdatedAt          time.Time
	// RunnerGen identifies the scheduled runner of the current enabled
	// period: disabling and re-enabling starts a new one, and the old one
	// stops at its next tick.
	RunnerGen int
	// NextRunAt is when the scheduled runner runs next (nil: disabled).
	NextRunAt *time.Time
	// LastRunAt and LastRunTrigger describe the last run that dispatched
	// (not dry runs).
	LastRunAt      *time.Time
	LastRunTrigger string
}

// SDRLead is the pipeline's state of one lead. Leads never touched have
// none.
type SDRLead struct {
	LeadID      string
	TouchCount  int
	LastTouchAt *time.Time
	LastChannel string
	Paused      bool
	// SkippedAt is the last skip: the lead waits min_touch_gap_hours from it.
	SkippedAt *time.Time
	// EscalatedAt is when a run put the lead on manual review (so the next
	// run does not count it again); cleared when it leaves manual review.
	EscalatedAt *time.Time
}

// SDRActivity is one entry of a business's SDR activity log. Owner is the
// business. An entry never changes once logged.
type SDRActivity struct {
	Base
	LeadID  string
	Action  string
	Trigger string
	Success bool
	Detail  string
	// CallID, MessageID and EmailID link a touch to what it dispatched.
	CallID, MessageID, EmailID string
	// Segment is the lead's segment when the action was taken.
	Segment string
}

// SDRMail is an email the pipeline sent to a lead. Owner is the business.
type SDRMail struct {
	Base
	LeadID  string
	To      string
	From    string
	Subject string
	Body    string
	Status  string
	Error   string
	SentAt  *time.Time
}

// SDRTables hold the outbound-sales pipeline's records.
type SDRTables struct {
	// SDRConfigs are the configurations, by business id.
	SDRConfigs map[string]*SDRConfig
	// SDRLeads are the pipeline's lead states, by lead id.
	SDRLeads    map[string]*SDRLead
	SDRActivity *Table[*SDRActivity]
	SDRMails    *Table[*SDRMail]
	// SDRCronSecret is the internal secret of the scheduled runner's route
	// ("" until first needed).
	SDRCronSecret string
}

func newSDRTables() SDRTables {
	return SDRTables{
		SDRConfigs:  map[string]*SDRConfig{},
		SDRLeads:    map[string]*SDRLead{},
		SDRActivity: NewTable[*SDRActivity](),
		SDRMails:    NewTable[*SDRMail](),
	}
}

// SDRLeadState returns a lead's pipeline state, creating it when asked.
func (s *Store) SDRLeadState(leadID string, create bool) *SDRLead {
	st := s.SDRLeads[leadID]
	if st == nil && create {
		s.sch.mustWrite("SDRLeadState")
		st = &SDRLead{LeadID: leadID}
		s.SDRLeads[leadID] = st
	}
	return st
}

// DNCLists returns the national do-not-call registry and a business's own
// list (nil when empty), for loops that check many numbers. Read only.
func (s *Store) DNCLists(businessID string) (national, own map[string]bool) {
	return s.tel().dnc[""], s.tel().dnc[businessID]
}

// ConsentStates returns a business's SMS consent by number (nil when
// none), for loops that check many numbers. Read only.
func (s *Store) ConsentStates(businessID string) map[string]string {
	return s.tel().consent[businessID]
}
