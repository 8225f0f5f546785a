package mockserver

import (
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/hooks"
)

// The types the Go admin helpers take and return are the admin API's
// bodies, defined once in package admin; these names are aliases of them,
// so that mockserver.FaultRule and admin.FaultRule are the same type. See
// package admin for their fields.
type (
	// Tenant is one tenant as Server.Tenants and GET /_mock/tenants show it.
	Tenant = admin.Tenant
	// AccountOptions says what NewAccount and SeedAccount create.
	AccountOptions = admin.AccountOptions
	// LeadFixture is a lead to store as given (Server.SeedLeads).
	LeadFixture = admin.LeadFixture
	// CallFixture is a finished call to store as given (Server.SeedCalls).
	CallFixture = admin.CallFixture
	// FixtureAccount is one account of a fixtures file.
	FixtureAccount = admin.FixtureAccount
	// Fixtures is the content of a fixtures file.
	Fixtures = admin.Fixtures
	// Caller is what an inbound caller says.
	Caller = admin.Caller
	// InboundCall is a caller ringing one of the platform's numbers.
	InboundCall = admin.InboundCall
	// InboundSMS is a person texting one of the platform's numbers.
	InboundSMS = admin.InboundSMS
	// InboundSMSResult is the outcome of an inbound text.
	InboundSMSResult = admin.InboundSMSResult
	// Delivery is a webhook delivery as the delivery log shows it.
	Delivery = admin.Delivery
	// DeliveryAttempt is one HTTP request of a delivery.
	DeliveryAttempt = admin.DeliveryAttempt
	// DeliveryFilter selects deliveries.
	DeliveryFilter = admin.DeliveryFilter
	// FaultRule injects a failure into matching requests.
	FaultRule = admin.FaultRule
	// JournalEntry is one API request as the journal keeps it.
	JournalEntry = admin.JournalEntry
	// JournalMessage is the headers and body of a journaled message.
	JournalMessage = admin.JournalMessage
	// RequestFilter selects journal entries.
	RequestFilter = admin.RequestFilter
	// OutboxMessage is an email or SMS the platform sent to a person.
	OutboxMessage = admin.OutboxMessage
	// PromptAuditEntry is one change of an agent's prompt.
	PromptAuditEntry = admin.PromptAuditEntry
	// ProviderCall is what the simulated voice provider received for a call.
	ProviderCall = admin.ProviderCall
	// Script is steps to add to a tenant's script.
	Script = admin.Script
	// CallStep is what the person on the other end of an outbound call does.
	CallStep = admin.CallStep
	// TextStep is what the carrier and the recipient do with an outbound text.
	TextStep = admin.TextStep
	// Turn is one line of a scripted transcript.
	Turn = admin.Turn
	// ScriptCaller is what the person on a scripted call tells the agent.
	ScriptCaller = admin.ScriptCaller
	// TextReply is a text the recipient of a scripted text sends back.
	TextReply = admin.TextReply
	// ScriptStep is a step of a tenant's script as GET /_mock/scripts shows it.
	ScriptStep = admin.ScriptStep
	// ScheduledTask is a piece of a tenant's pending work.
	ScheduledTask = admin.ScheduledTask

	// Consent is the SMS consent of a number towards a business.
	Consent = admin.Consent
	// FaultTarget is what a fault rule makes fail.
	FaultTarget = admin.FaultTarget
	// DeliveryKind is what a webhook delivery carries.
	DeliveryKind = admin.DeliveryKind
	// DeliveryStatus is the state of a webhook delivery.
	DeliveryStatus = admin.DeliveryStatus
	// Outcome is what the other end of a scripted call or text does.
	Outcome = admin.Outcome
)

// JournalBodyCap is how much of each request and response body a journal
// entry keeps: the first 16 KiB, marked Truncated when the body was longer.
const JournalBodyCap = admin.JournalBodyCap

// SMS consent states (POST /_mock/consent, Server.SetConsent).
const (
	ConsentOptedIn  = admin.ConsentOptedIn
	ConsentOptedOut = admin.ConsentOptedOut
	ConsentNone     = admin.ConsentNone
)

// Delivery states (Delivery.Status).
const (
	DeliveryPending   = admin.DeliveryPending
	DeliverySucceeded = admin.DeliverySucceeded
	DeliveryFailed    = admin.DeliveryFailed
	DeliveryCanceled  = admin.DeliveryCanceled
)

// Kinds of delivery (Delivery.Kind, DeliveryFilter.Kind).
const (
	DeliveryKindSubscription     = admin.DeliveryKindSubscription
	DeliveryKindCallWebhook      = admin.DeliveryKindCallWebhook
	DeliveryKindApprovalCallback = admin.DeliveryKindApprovalCallback
)

// Fault targets (FaultRule.Target).
const (
	FaultTargetRequest       = admin.FaultTargetRequest
	FaultTargetVoiceProvider = admin.FaultTargetVoiceProvider
	FaultTargetStorage       = admin.FaultTargetStorage
	FaultTargetSMSProvider   = admin.FaultTargetSMSProvider
	FaultTargetDependency    = admin.FaultTargetDependency
)

// WebhookRetrySchedule returns the wait before each attempt of a webhook
// delivery (subscription deliveries, per-call webhooks and approval
// callbacks alike), on the simulated clock: the first attempt immediately, then 5 seconds, 5
// minutes, 30 minutes, 2 hours, 5 hours, 10 hours and 10 hours after the
// previous failed attempt. After the eighth failure the delivery is failed
// (and replayable).
func WebhookRetrySchedule() []time.Duration { return hooks.WebhookRetrySchedule() }
