package mockserver

import (
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/fixtures"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/hooks"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/identity"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// The types of the admin helpers and of their routes. They are defined with
// the domains that use them (internal packages); these names are the ones to
// use.

// Tenant is one tenant as Server.Tenants and GET /_mock/tenants show it:
// its root business, the business's name, the owner's email and the
// tenant's time.
type Tenant = httpapi.TenantView

// AccountOptions says what NewAccount creates. Empty fields get defaults:
// business "Test Business", a unique example email, and every scope of the
// API (the platform-only ones included).
type AccountOptions = identity.AccountOptions

// CallFixture is a finished call to store as given (Server.SeedCalls,
// fixtures files): no events, no webhooks; see the mockFixtureCall schema.
type CallFixture = fixtures.CallFixture

// Caller is what an inbound caller says. Name, Email and Phone are taken as
// given; when absent, lead collection looks for them in Said ("my name is
// Jane Doe", an email address, a +E.164 number). Intent is taken as given,
// or derived from keywords of Said (see the package documentation).
type Caller = telephony.Caller

// Delivery is a webhook delivery as the delivery log (GET /_mock/deliveries)
// shows it: one event rendered for one subscription, the per-call webhook
// of one call, or the callback of one approval request, and every attempt
// to post it.
type Delivery = hooks.Delivery

// DeliveryAttempt is one HTTP request of a delivery.
type DeliveryAttempt = hooks.DeliveryAttempt

// DeliveryFilter selects deliveries; empty fields match everything.
type DeliveryFilter = hooks.DeliveryFilter

// FaultRule injects a failure into matching requests (POST /_mock/faults,
// WithFaults). Matching: Method ("" any) and Path (exact, or a prefix when it
// ends with "*"; "" any; with or without the /api prefix), then Probability.
//
// With Target "request" (the default) the rule acts on the HTTP exchange:
// LatencyMS delays the answer; Status answers with that status (and Code,
// default derived from the status) without running the handler; Drop closes
// the connection without an answer (before the handler runs, or after it
// when After is set: the work happens and the answer is lost); Truncate sends
// the handler's answer cut in half and closes the connection. A 429 answer
// carries Retry-After: 1 unless RetryAfter says otherwise (0 lets a test's
// client retry at once); RetryAfter also adds the header to other statuses.
// Answers made up by a fault are never remembered for idempotency replays.
//
// Other targets make a simulated dependency fail while the handler runs: the
// handler turns the failure into the answer the real service gives (for
// example vendor_error for the voice provider).
type FaultRule = httpapi.FaultRule

// FixtureAccount is one account of a fixtures file: what POST
// /_mock/accounts takes, and the account's leads and calls.
type FixtureAccount = fixtures.FixtureAccount

// Fixtures is the content of a fixtures file (cmd/voiceagent-mock
// -fixtures, POST /_mock/fixtures, Server.LoadFixtures).
type Fixtures = fixtures.Fixtures

// InboundCall is a caller ringing one of the platform's numbers: the body
// of POST /_mock/inbound-call and the argument of Server.InboundCall.
type InboundCall = telephony.InboundCall

// InboundSMS is what POST /_mock/inbound-sms and Server.InboundSMS answer.
type InboundSMS = telephony.InboundSMS

// JournalEntry is one API request as the journal (GET /_mock/requests)
// keeps it: what was asked and answered, headers and bodies included
// (each body capped at JournalBodyCap), secrets redacted (see the guide's
// "Request journal").
type JournalEntry = httpapi.JournalEntry

// JournalMessage is the headers and body of a journaled request or answer.
type JournalMessage = httpapi.JournalMessage

// JournalBodyCap is how much of each request and response body a journal
// entry keeps: the first 16 KiB, marked Truncated when the body was longer.
const JournalBodyCap = httpapi.JournalBodyCap

// RequestFilter selects journal entries as the filters of GET
// /_mock/requests do: method, path (with or without /api; a trailing *
// matches a prefix), status, tenant and sequence. Empty fields match
// everything; pass its Match method to Requests and WaitRequests.
type RequestFilter = httpapi.RequestFilter

// LeadFixture is a lead to store as given (Server.SeedLeads, fixtures
// files): no events, no lead collection. Empty fields are absent; see the
// mockFixtureLead schema and the package documentation's Fixtures.
type LeadFixture = fixtures.LeadFixture

// OutboxMessage is an email or SMS the platform sent to a person outside the
// API: signup codes and links, SDR emails, owner notifications.
type OutboxMessage = identity.OutboxMessage

// PromptAuditEntry is one change of an agent's prompt in the audit trail
// (POST /v1/sms/update-prompt writes them).
type PromptAuditEntry = telephony.PromptAuditEntry

// ProviderCall is what the simulated voice provider received for a call:
// GET /_mock/provider-calls?call_id= and Server.ProviderCall. Tests read
// the enrichment variables the agent received here.
type ProviderCall = telephony.ProviderCall

// SMS consent states (POST /_mock/consent, Server.SetConsent).
const (
	ConsentOptedIn  = telephony.ConsentOptedIn
	ConsentOptedOut = telephony.ConsentOptedOut
	ConsentNone     = telephony.ConsentNone
)

// Delivery states (Delivery.Status).
const (
	DeliveryPending   = hooks.DeliveryPending
	DeliverySucceeded = hooks.DeliverySucceeded
	DeliveryFailed    = hooks.DeliveryFailed
	DeliveryCanceled  = hooks.DeliveryCanceled
)

// Kinds of delivery (Delivery.Kind, DeliveryFilter.Kind).
const (
	// DeliveryKindSubscription is an event rendered for a subscription.
	DeliveryKindSubscription = hooks.DeliveryKindSubscription
	// DeliveryKindCallWebhook is the per-call webhook of a call (the
	// webhook_url of POST /v1/calls).
	DeliveryKindCallWebhook = hooks.DeliveryKindCallWebhook
	// DeliveryKindApprovalCallback is the decision of an approval request
	// posted to its callback_url (POST /v1/approval-requests).
	DeliveryKindApprovalCallback = hooks.DeliveryKindApprovalCallback
)

// Fault targets (FaultRule.Target): the HTTP exchange itself, or a simulated
// dependency that a handler consults (the voice provider, the agent store,
// the SMS carrier, a generic downstream dependency).
const (
	FaultTargetRequest       = httpapi.FaultTargetRequest
	FaultTargetVoiceProvider = httpapi.FaultTargetVoiceProvider
	FaultTargetStorage       = httpapi.FaultTargetStorage
	FaultTargetSMSProvider   = httpapi.FaultTargetSMSProvider
	FaultTargetDependency    = httpapi.FaultTargetDependency
)

// Errors of ReplayDelivery.
var (
	ErrDeliveryNotFound      = hooks.ErrDeliveryNotFound
	ErrDeliveryNotReplayable = hooks.ErrDeliveryNotReplayable
)

// WebhookRetrySchedule returns the wait before each attempt of a webhook
// delivery (subscription deliveries, per-call webhooks and approval
// callbacks alike), on the simulated clock: the first attempt immediately, then 5 seconds, 5
// minutes, 30 minutes, 2 hours, 5 hours, 10 hours and 10 hours after the
// previous failed attempt. After the eighth failure the delivery is failed
// (and replayable).
func WebhookRetrySchedule() []time.Duration { return hooks.WebhookRetrySchedule() }
