package admin

// Outcome is what the other end of a scripted outbound call or text does:
// CallStep.Outcome (OutcomeCompleted, OutcomeNoAnswer, OutcomeBusy,
// OutcomeVoicemail, OutcomeRejected), TextStep.Outcome (OutcomeDelivered,
// OutcomeFailed) and ScriptStep.Outcome (any of them). The spelling is the
// admin API's: no_answer, not the call status no-answer.
type Outcome string

// The outcomes of call steps.
const (
	// OutcomeCompleted is a call answered, then the conversation.
	OutcomeCompleted Outcome = "completed"
	// OutcomeNoAnswer is a call nobody answers (it rings 30 seconds by
	// default, then fails with no_answer).
	OutcomeNoAnswer Outcome = "no_answer"
	// OutcomeBusy is a call that fails as busy.
	OutcomeBusy Outcome = "busy"
	// OutcomeVoicemail is a call that reaches voicemail: the agent leaves
	// its message and the call completes with ended_reason voicemail.
	OutcomeVoicemail Outcome = "voicemail"
	// OutcomeRejected is a call the provider refuses: POST /v1/calls
	// responds 500 call_failed and nothing is stored.
	OutcomeRejected Outcome = "rejected"
)

// The outcomes of text steps.
const (
	// OutcomeDelivered is a text the carrier delivers.
	OutcomeDelivered Outcome = "delivered"
	// OutcomeFailed is a text the carrier refuses: the send responds 500
	// sms_send_failed and the text is logged as failed.
	OutcomeFailed Outcome = "failed"
)

// CallOutcomes are the outcomes a CallStep may have.
func CallOutcomes() []Outcome {
	return []Outcome{OutcomeCompleted, OutcomeNoAnswer, OutcomeBusy, OutcomeVoicemail, OutcomeRejected}
}

// TextOutcomes are the outcomes a TextStep may have.
func TextOutcomes() []Outcome { return []Outcome{OutcomeDelivered, OutcomeFailed} }

// StepKind is the kind of a script step: StepCall or StepText.
type StepKind string

// The kinds of script steps.
const (
	StepCall StepKind = "call"
	StepText StepKind = "text"
)

// StepStatus is whether a script step was used: StepPending or StepUsed.
type StepStatus string

// The statuses of script steps.
const (
	// StepPending is a step no call or text has used yet.
	StepPending StepStatus = "pending"
	// StepUsed is a step a call or text used.
	StepUsed StepStatus = "used"
)

// Role is who says a line of a scripted transcript: RoleAgent or
// RoleCaller.
type Role string

// The roles of a transcript's lines.
const (
	RoleAgent  Role = "agent"
	RoleCaller Role = "caller"
)

// FaultTarget is what a fault rule makes fail: the HTTP exchange itself
// (FaultTargetRequest), or a simulated dependency that a handler consults
// (the voice provider, the agent store, the SMS carrier, a generic
// downstream dependency).
type FaultTarget string

// The targets of fault rules.
const (
	FaultTargetRequest       FaultTarget = "request"
	FaultTargetVoiceProvider FaultTarget = "voice_provider"
	FaultTargetStorage       FaultTarget = "storage"
	FaultTargetSMSProvider   FaultTarget = "sms_provider"
	FaultTargetDependency    FaultTarget = "dependency"
)

// FaultTargets are every FaultTarget, in the order the admin API lists
// them.
func FaultTargets() []FaultTarget {
	return []FaultTarget{FaultTargetRequest, FaultTargetVoiceProvider, FaultTargetStorage, FaultTargetSMSProvider, FaultTargetDependency}
}

// DeliveryKind is what a webhook delivery carries (Delivery.Kind).
type DeliveryKind string

// The kinds of delivery.
const (
	// DeliveryKindSubscription is an event rendered for a subscription.
	DeliveryKindSubscription DeliveryKind = "subscription"
	// DeliveryKindCallWebhook is the per-call webhook of a call (the
	// webhook_url of POST /v1/calls).
	DeliveryKindCallWebhook DeliveryKind = "call_webhook"
	// DeliveryKindApprovalCallback is the decision of an approval request
	// posted to its callback_url (POST /v1/approval-requests).
	DeliveryKindApprovalCallback DeliveryKind = "approval_callback"
)

// DeliveryStatus is the state of a webhook delivery (Delivery.Status).
type DeliveryStatus string

// The states of a delivery.
const (
	// DeliveryPending is a delivery with an attempt due or running.
	DeliveryPending DeliveryStatus = "pending"
	// DeliverySucceeded is a delivery a receiver accepted with a 2xx.
	DeliverySucceeded DeliveryStatus = "succeeded"
	// DeliveryFailed is a delivery whose every attempt failed; it can be
	// replayed.
	DeliveryFailed DeliveryStatus = "failed"
	// DeliveryCanceled is a subscription's delivery stopped because the
	// subscription was deleted or deactivated.
	DeliveryCanceled DeliveryStatus = "canceled"
)

// Consent is the SMS consent of a number towards a business.
type Consent string

// The consent states.
const (
	ConsentOptedIn  Consent = "opted_in"
	ConsentOptedOut Consent = "opted_out"
	ConsentNone     Consent = "none"
)

// Channel is how an outbox message was sent: ChannelEmail or ChannelSMS.
type Channel string

// The channels of outbox messages.
const (
	ChannelEmail Channel = "email"
	ChannelSMS   Channel = "sms"
)

// FaultKind is what the fault rule that acted on a request did to its
// answer (JournalEntry.Fault), naming what the client saw.
type FaultKind string

// The kinds of fault a journal entry shows.
const (
	// FaultStatus is an answer made up with the rule's status (after its
	// latency, if it has one).
	FaultStatus FaultKind = "status"
	// FaultLatency is the handler's answer, delayed.
	FaultLatency FaultKind = "latency"
	// FaultDropped is no answer: the connection was closed.
	FaultDropped FaultKind = "dropped"
	// FaultTruncated is half of the answer, then the connection closed.
	FaultTruncated FaultKind = "truncated"
)
