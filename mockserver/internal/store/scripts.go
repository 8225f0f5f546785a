package store

import (
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/admin"
)

// Script step kinds and outcomes (POST /_mock/scripts).
const (
	StepCall = "call"
	StepText = "text"

	// StepAny is the To of a step that matches any number.
	StepAny = "*"

	StepCompleted = "completed"
	StepNoAnswer  = "no_answer"
	StepBusy      = "busy"
	StepVoicemail = "voicemail"
	StepRejected  = "rejected"
	StepDelivered = "delivered"
	StepFailed    = "failed"
)

// MaxPendingSteps is how many pending script steps a tenant holds at most:
// steps beyond it are refused, so that a script cannot grow without bound.
const MaxPendingSteps = 10_000

// ScriptStep is one step of a tenant's script: what the other end of the
// tenant's next outbound call or text to a number does. Owner is the
// tenant's root business. A step is pending until a call or text uses it.
type ScriptStep struct {
	Base
	Kind    string // StepCall or StepText
	To      string // E.164, or StepAny
	Outcome string

	// Call steps.
	RingSeconds *int // nil: the default ring time
	Duration    *int // nil: the duration derived from the number
	Transcript  []admin.Turn
	Summary     string
	Caller      *admin.ScriptCaller

	// Text steps.
	Reply *admin.TextReply

	// UsedBy is the id of the call or text that used the step ("" while
	// pending, and for a call rejected at creation, which stores nothing).
	UsedBy string
	// UsedAt is when the step was used, at the tenant's time (nil: pending).
	UsedAt *time.Time
}

// Pending reports whether the step has not been used.
func (s *ScriptStep) Pending() bool { return s.UsedAt == nil }

// PendingSteps returns how many steps of the tenant's script are pending.
func (s *Store) PendingSteps(tenant string) int {
	n := 0
	for _, st := range s.Scripts.Owned(tenant) {
		if st.Pending() {
			n++
		}
	}
	return n
}

// NextStep returns the step that the tenant's next outbound call or text
// (kind) to the number to follows, without using it: the oldest pending
// step for that number, else the oldest pending "*" step, else nil.
func (s *Store) NextStep(tenant, kind, to string) *ScriptStep {
	var anyStep *ScriptStep
	for _, st := range s.Scripts.Owned(tenant) {
		if !st.Pending() || st.Kind != kind {
			continue
		}
		if st.To == to {
			return st
		}
		if st.To == StepAny && anyStep == nil {
			anyStep = st
		}
	}
	return anyStep
}

// UseStep marks step st as used at now by the call or text usedBy ("" when
// none is stored).
func (s *Store) UseStep(st *ScriptStep, usedBy string, now time.Time) {
	s.Scripts.Update(st, func(st *ScriptStep) {
		at := now.UTC()
		st.UsedBy, st.UsedAt = usedBy, &at
	})
}
