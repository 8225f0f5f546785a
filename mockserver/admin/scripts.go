package admin

import "time"

// Script is steps to add to a tenant's script: what the people and carriers
// on the other end of the tenant's next outbound calls and texts do. It is
// the body of POST /_mock/scripts and the argument of mockserver.Server.AddScript and
// mockserver.Account.Script.
//
// Steps for a number are used in order by the tenant's next outbound calls
// or texts to it, whoever places them (the API, communication runs, the
// SDR pipeline, approval requests); steps whose To is "*" match any number
// once the number's own are used; with no step left, the default
// simulation and the magic numbers apply. Other tenants never see a
// tenant's steps.
type Script struct {
	// BusinessID is a business of the tenant (mockserver.Account.Script sets it).
	BusinessID string `json:"business_id"`
	// Calls are call steps, used by outbound calls.
	Calls []CallStep `json:"calls,omitempty"`
	// Texts are text steps, used by outbound texts.
	Texts []TextStep `json:"texts,omitempty"`
}

// CallStep is what the person on the other end of an outbound call does.
type CallStep struct {
	// To is the number called, E.164, or "*" for any number.
	To string `json:"to"`
	// Outcome is completed (answered, then the conversation), no_answer,
	// busy (failed, as the magic numbers fail), voicemail (the agent leaves
	// its message; the call completes with ended_reason voicemail) or
	// rejected (POST /v1/calls responds 500 call_failed, nothing stored).
	Outcome Outcome `json:"outcome"`
	// RingSeconds is how long the call rings before the outcome (nil: 2
	// seconds; 30 for no_answer).
	RingSeconds *int `json:"ring_seconds,omitempty"`
	// Duration is how long a completed conversation lasts, in seconds
	// (nil: derived from the number), capped by the call's max_duration.
	Duration *int `json:"duration,omitempty"`
	// Transcript is a completed call's conversation, rendered as Agent: and
	// Caller: lines (nil: the simulated one).
	Transcript []Turn `json:"transcript,omitempty"`
	// Summary is the call's summary ("": the simulated one).
	Summary string `json:"summary,omitempty"`
	// Caller is what the person tells the agent on a completed call: lead
	// collection creates or updates the lead of the number with it.
	Caller *ScriptCaller `json:"caller,omitempty"`
}

// Turn is one line of a scripted transcript.
type Turn struct {
	// Role is agent or caller.
	Role Role `json:"role"`
	// Text is what was said.
	Text string `json:"text"`
}

// ScriptCaller is what the person on a scripted call tells the agent.
type ScriptCaller struct {
	Name   string `json:"name,omitempty"`
	Email  string `json:"email,omitempty"`
	Intent string `json:"intent,omitempty"`
}

// TextStep is what the carrier and the recipient do with an outbound text.
type TextStep struct {
	// To is the recipient, E.164, or "*" for any number.
	To string `json:"to"`
	// Outcome is delivered, or failed (the send responds 500
	// sms_send_failed and the text is logged as failed).
	Outcome Outcome `json:"outcome"`
	// Reply is a text the recipient sends back (delivered only).
	Reply *TextReply `json:"reply,omitempty"`
}

// TextReply is a text the recipient of a scripted text sends back, with
// every effect of an inbound text (POST /_mock/inbound-sms) (STOP opts the number out, a lead is
// made or scored, sms.received).
type TextReply struct {
	// AfterSeconds is how long after delivery the reply arrives.
	AfterSeconds int `json:"after_seconds"`
	// Body is the reply's text.
	Body string `json:"body"`
}

// ScriptStep is a step of a tenant's script as GET /_mock/scripts shows
// it: the step as added, whether it was used, and by what.
type ScriptStep struct {
	ID string `json:"id"`
	// BusinessID is the tenant's root business.
	BusinessID  string        `json:"business_id"`
	Kind        StepKind      `json:"kind"`
	To          string        `json:"to"`
	Outcome     Outcome       `json:"outcome"`
	RingSeconds *int          `json:"ring_seconds,omitempty"`
	Duration    *int          `json:"duration,omitempty"`
	Transcript  []Turn        `json:"transcript,omitempty"`
	Summary     string        `json:"summary,omitempty"`
	Caller      *ScriptCaller `json:"caller,omitempty"`
	Reply       *TextReply    `json:"reply,omitempty"`
	// Status is StepPending or StepUsed.
	Status StepStatus `json:"status"`
	// UsedBy is the id of the call or text that used the step (nil while
	// pending, and for a call rejected at creation).
	UsedBy *string `json:"used_by"`
	// UsedAt is when the step was used, at the tenant's time.
	UsedAt    *time.Time `json:"used_at"`
	CreatedAt time.Time  `json:"created_at"`
}

// ScheduledTask is a piece of a tenant's pending work, as GET
// /_mock/schedule shows it: a simulated process's next step on the
// tenant's clock.
type ScheduledTask struct {
	// At is when the task falls due, at the tenant's time.
	At time.Time `json:"at"`
	// Kind names the work: call.answer, call.fail, call.voicemail,
	// call.missed, call.end, sms.delivery, sms.reply, delivery.attempt,
	// run.touch, sdr.email, sdr.run, approval.expire, agency.retry_command,
	// agency.retry_enrollment, signup.forget_challenge or magic_link.forget.
	Kind string `json:"kind"`
	// SubjectID is the record the task acts on (the call, the text, the
	// delivery, the run, ...).
	SubjectID string `json:"subject_id"`
	// N is the attempt of a delivery.attempt, the touch's index of a
	// run.touch and the generation of the SDR's scheduled runner of an
	// sdr.run (enabling the SDR again starts a new one); 0 otherwise.
	N int `json:"n,omitempty"`
}
