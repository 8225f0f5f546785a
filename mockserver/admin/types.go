package admin

import (
	"net/http"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// The types the Go admin helpers take and return. Those that are also the
// bodies of admin routes carry the routes' JSON names, so a test in Go can
// decode a response of the admin API into them.

// Tenant is one tenant as mockserver.Server.Tenants and GET /_mock/tenants show it.
type Tenant struct {
	// BusinessID is the tenant's root business: the business of the
	// account that made the tenant.
	BusinessID string `json:"business_id"`
	// BusinessName is the root business's name.
	BusinessName string `json:"business_name"`
	// Email is the email of the root business's owner.
	Email string `json:"email"`
	// Now is the tenant's simulated time.
	Now time.Time `json:"now"`
	// Pending is how many scheduled tasks the tenant's clock holds.
	Pending int `json:"pending"`
}

// AccountOptions says what NewAccount and SeedAccount create: the body of
// POST /_mock/accounts. Empty fields get defaults: business "Test
// Business", a unique example email, and every scope of the API (the
// platform-only ones included).
type AccountOptions struct {
	// BusinessName is the name of the account's business.
	BusinessName string `json:"business_name,omitempty"`
	// Email is the email of the account's user.
	Email string `json:"email,omitempty"`
	// Scopes are the scopes of the account's key ("*" for all).
	Scopes []voiceagent.Scope `json:"scopes,omitempty"`
	// Operator makes the user a platform operator (may mint partner keys
	// with POST /v1/keys partner_id).
	Operator bool `json:"operator,omitempty"`
	// Partner makes the user act for a new partner (agency): the account
	// has its partner_id and referral_code, the business is linked to the
	// partner, and signups may name the code as referral_code.
	Partner bool `json:"partner,omitempty"`
}

// LeadFixture is a lead to store as given (mockserver.Server.SeedLeads, fixtures
// files): no events, no lead collection. Empty fields are absent; see the
// mockFixtureLead schema and the user guide's Fixtures.
type LeadFixture struct {
	// ID is the lead's id (default generated); it must not exist yet.
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	FirstName string `json:"first_name,omitempty"`
	LastName  string `json:"last_name,omitempty"`
	Email     string `json:"email,omitempty"`
	Phone     string `json:"phone,omitempty"`
	// Status is one of the eight lead statuses (default new).
	Status string `json:"status,omitempty"`
	Source string `json:"source,omitempty"`
	Notes  string `json:"notes,omitempty"`
	Intent string `json:"intent,omitempty"`
	// AgentID is an agent of the business (default its oldest agent).
	AgentID string `json:"agent_id,omitempty"`
	// CreatedAt defaults to now and may not be in the future; UpdatedAt
	// defaults to CreatedAt.
	CreatedAt        *time.Time `json:"created_at,omitempty"`
	UpdatedAt        *time.Time `json:"updated_at,omitempty"`
	LastContactAt    *time.Time `json:"last_contact_at,omitempty"`
	InteractionCount int        `json:"interaction_count,omitempty"`
	// Consent is the SMS consent of Phone towards the business:
	// ConsentOptedIn, ConsentOptedOut or ConsentNone.
	Consent Consent `json:"consent,omitempty"`
	// TouchCount, LastTouchAt, LastChannel and Paused are the lead's state
	// in the outbound-sales pipeline.
	TouchCount  int        `json:"touch_count,omitempty"`
	LastTouchAt *time.Time `json:"last_touch_at,omitempty"`
	LastChannel string     `json:"last_channel,omitempty"`
	Paused      bool       `json:"paused,omitempty"`
}

// CallFixture is a finished call to store as given (mockserver.Server.SeedCalls,
// fixtures files): no events, no webhooks; see the mockFixtureCall schema.
type CallFixture struct {
	// ID is the call's id (default generated); it must not exist yet.
	ID string `json:"id,omitempty"`
	// AgentID is an agent of the business (default its oldest agent).
	AgentID string `json:"agent_id,omitempty"`
	// Direction is outbound (default) or inbound.
	Direction string `json:"direction,omitempty"`
	// Status is completed, failed, ended or no-answer (default completed
	// outbound, ended inbound).
	Status string `json:"status,omitempty"`
	// To is required on outbound calls, From on inbound calls; the other
	// defaults to the agent's number.
	To   string `json:"to,omitempty"`
	From string `json:"from,omitempty"`
	Name string `json:"name,omitempty"`
	// Duration is in seconds; failed calls have none.
	Duration int `json:"duration,omitempty"`
	// Error is the reason of a failed call (default no_answer).
	Error      string `json:"error,omitempty"`
	Summary    string `json:"summary,omitempty"`
	Transcript string `json:"transcript,omitempty"`
	// LeadID links the call to a lead of the business; default the lead
	// whose phone is the other party's number, if any.
	LeadID string `json:"lead_id,omitempty"`
	// CreatedAt defaults to now and may not be in the future.
	CreatedAt *time.Time `json:"created_at,omitempty"`
}

// FixtureAccount is one account of a fixtures file: what POST
// /_mock/accounts takes, and the account's leads and calls.
type FixtureAccount struct {
	// BusinessName, Email and Scopes are as in AccountOptions.
	BusinessName string             `json:"business_name,omitempty"`
	Email        string             `json:"email,omitempty"`
	Scopes       []voiceagent.Scope `json:"scopes,omitempty"`
	// Leads are stored as mockserver.Server.SeedLeads stores them.
	Leads []LeadFixture `json:"leads,omitempty"`
	// Calls are stored as mockserver.Server.SeedCalls stores them.
	Calls []CallFixture `json:"calls,omitempty"`
}

// Fixtures is the content of a fixtures file (cmd/voiceagent-mock
// -fixtures, POST /_mock/fixtures, mockserver.Server.LoadFixtures).
type Fixtures struct {
	// Accounts are provisioned in order.
	Accounts []FixtureAccount `json:"accounts"`
}

// Caller is what an inbound caller says. Name, Email and Phone are taken as
// given; when absent, lead collection looks for them in Said ("my name is
// Jane Doe", an email address, a +E.164 number). Intent is taken as given,
// or derived from keywords of Said (see the user guide's Leads).
type Caller struct {
	Name   string `json:"name,omitempty"`
	Email  string `json:"email,omitempty"`
	Phone  string `json:"phone,omitempty"`
	Said   string `json:"said,omitempty"`
	Intent string `json:"intent,omitempty"`
}

// InboundCall is a caller ringing one of the platform's numbers: the body
// of POST /_mock/inbound-call and the argument of mockserver.Server.InboundCall.
type InboundCall struct {
	// To is the platform number called (an agent's number). Required.
	To string `json:"to"`
	// From is the caller's number, E.164. Required.
	From string `json:"from"`
	// Caller is what the caller tells the agent; lead collection extracts
	// the lead from it.
	Caller Caller `json:"caller"`
	// Answered is false when nobody picks up (default true): the call ends
	// as no-answer after 30 seconds of ringing.
	Answered *bool `json:"answered,omitempty"`
	// Voicemail is the message an unanswered caller leaves.
	Voicemail string `json:"voicemail,omitempty"`
	// Duration is how long an answered conversation lasts, in seconds
	// (default derived from the caller's number, 30 to 300), before the
	// agent's max_duration cap.
	Duration int `json:"duration,omitempty"`
}

// InboundSMS is a person texting one of the platform's numbers: the body
// of POST /_mock/inbound-sms and the argument of mockserver.Server.InboundSMS and
// mockserver.Account.InboundSMS.
type InboundSMS struct {
	// To is the platform number texted (mockserver.Account.InboundSMS: the account's
	// number when empty).
	To string `json:"to"`
	// From is the sender's number, E.164. Required.
	From string `json:"from"`
	// Body is the text: STOP opts out, START opts in, anything else
	// grants consent (unless the number opted out) and joins the lead's
	// thread.
	Body string `json:"body"`
}

// InboundSMSResult is the outcome of an inbound text: the response of POST
// /_mock/inbound-sms and what mockserver.Server.InboundSMS returns.
type InboundSMSResult struct {
	// MessageID is the logged inbound message.
	MessageID string `json:"message_id"`
	// LeadID is the lead whose thread holds it ("" when none: an opt-out
	// or opt-in keyword from a number without a lead creates none).
	LeadID string `json:"lead_id"`
	// Consent is the number's consent after the text: ConsentOptedIn or
	// ConsentOptedOut.
	Consent Consent `json:"consent"`
}

// Delivery is a webhook delivery as the delivery log (GET /_mock/deliveries)
// shows it: one event rendered for one subscription, the per-call webhook
// of one call, or the callback of one approval request, and every attempt
// to post it.
type Delivery struct {
	ID string `json:"id"`
	// Kind is DeliveryKindSubscription, DeliveryKindCallWebhook or
	// DeliveryKindApprovalCallback.
	Kind DeliveryKind `json:"kind"`
	// MessageID is the webhook-id header, the same on every attempt and on
	// replays: the event id for a subscription, the id of the first
	// delivery for a per-call webhook, the callback body's id for an
	// approval callback.
	MessageID string `json:"message_id"`
	// SubscriptionID is the subscription of a subscription delivery.
	SubscriptionID string `json:"subscription_id,omitempty"`
	// CallID is the call of a per-call webhook.
	CallID string `json:"call_id,omitempty"`
	// ApprovalRequestID is the approval request of an approval callback.
	ApprovalRequestID string `json:"approval_request_id,omitempty"`
	// BusinessID is the business the delivery was made for.
	BusinessID string `json:"business_id"`
	// EventID is the event delivered (for a per-call webhook, the
	// call.completed or call.failed event of the log; for an approval
	// callback, the id of its approval.decided body, which the event log
	// does not hold).
	EventID string `json:"event_id"`
	// Event is the event's type (call.completed, lead.created, ...).
	Event string `json:"event"`
	// ContentType is the Content-Type of the request body.
	ContentType string `json:"content_type"`
	// Body is the request body, byte for byte as sent (and signed).
	Body string `json:"body"`
	// Status is DeliveryPending, DeliverySucceeded, DeliveryFailed
	// (replayable) or DeliveryCanceled (subscriptions only, in practice).
	Status DeliveryStatus `json:"status"`
	// Attempts are the requests made so far, oldest first.
	Attempts []DeliveryAttempt `json:"attempts"`
	// NextAttemptAt is the simulated time of the next attempt, if any.
	NextAttemptAt *time.Time `json:"next_attempt_at"`
	// ReplayOf is the delivery this one replays.
	ReplayOf string `json:"replay_of,omitempty"`
	// Reason says why a delivery was canceled, or why it failed at once
	// (a receiver the server may not call).
	Reason string `json:"reason,omitempty"`
	// CreatedAt is the simulated time the delivery was made.
	CreatedAt time.Time `json:"created_at"`
	// Tenant is the root business of the tenant owning BusinessID: what
	// DeliveryFilter.Tenant matches.
	Tenant string `json:"tenant"`
}

// DeliveryAttempt is one HTTP request of a delivery.
type DeliveryAttempt struct {
	// Attempt numbers the attempts of a delivery from 1.
	Attempt int `json:"attempt"`
	// At is the simulated time of the attempt.
	At time.Time `json:"at"`
	// SentAt is the wall-clock time of the attempt (its webhook-timestamp).
	SentAt time.Time `json:"sent_at"`
	// URL and Method are the request's.
	URL    string `json:"url"`
	Method string `json:"method"`
	// RequestHeaders are the headers sent; custom header values read
	// "[redacted]".
	RequestHeaders map[string]string `json:"request_headers"`
	// StatusCode is the receiver's status, 0 when none came.
	StatusCode int `json:"status_code"`
	// Error says why the attempt failed.
	Error string `json:"error,omitempty"`
	// DurationMS is how long the request took, in milliseconds of real
	// time.
	DurationMS float64 `json:"duration_ms"`
	// Response is the start (4 KiB) of the receiver's response body.
	Response string `json:"response,omitempty"`
}

// DeliveryFilter selects deliveries; empty fields match everything.
type DeliveryFilter struct {
	// Kind is DeliveryKindSubscription, DeliveryKindCallWebhook or
	// DeliveryKindApprovalCallback.
	Kind              DeliveryKind
	SubscriptionID    string
	CallID            string
	ApprovalRequestID string
	BusinessID        string
	// Tenant keeps the deliveries of every business of a tenant (its root
	// business id: GET /_mock/deliveries?business_id= names any business
	// of the tenant).
	Tenant  string
	EventID string
	Event   string
	Status  DeliveryStatus
	// MinAttempts keeps deliveries with at least this many attempts made.
	MinAttempts int
}

// Match reports whether a delivery passes the filter, so a filter can be
// given to WaitDeliveries: srv.WaitDeliveries(ctx, f.Match).
func (f DeliveryFilter) Match(d *Delivery) bool {
	return (f.Kind == "" || d.Kind == f.Kind) &&
		(f.SubscriptionID == "" || d.SubscriptionID == f.SubscriptionID) &&
		(f.CallID == "" || d.CallID == f.CallID) &&
		(f.ApprovalRequestID == "" || d.ApprovalRequestID == f.ApprovalRequestID) &&
		(f.BusinessID == "" || d.BusinessID == f.BusinessID) &&
		(f.Tenant == "" || d.Tenant == f.Tenant) &&
		(f.EventID == "" || d.EventID == f.EventID) &&
		(f.Event == "" || d.Event == f.Event) &&
		(f.Status == "" || d.Status == f.Status) &&
		len(d.Attempts) >= f.MinAttempts
}

// FaultRule injects a failure into matching requests: the body and the
// response of POST /_mock/faults, and the argument of AddFault and
// WithFaults. Matching: Method ("" any) and Path (exact, or a prefix when
// it ends with "*"; "" any; with or without the /api prefix), then
// Probability.
//
// With Target FaultTargetRequest (the default) the rule acts on the HTTP
// exchange: LatencyMS delays the response; Status responds with that
// status (and Code, default derived from the status) without running the
// handler; Drop closes the connection without a response (before the
// handler runs, or after it when After is set: the work happens and the
// response is lost); Truncate sends the handler's response cut in half
// and closes the connection. A 429 response carries Retry-After: 1 unless
// RetryAfter says otherwise (0 lets a test's client retry at once);
// RetryAfter also adds the header to other statuses. Responses made up by
// a fault are never remembered for idempotency replays.
//
// Other targets make a simulated dependency fail while the handler runs:
// the handler turns the failure into the response the real service gives
// (for example vendor_error for the voice provider).
type FaultRule struct {
	// ID is the rule's id, set when the rule is added.
	ID string `json:"id"`
	// BusinessID scopes the rule to one tenant: it fires only on requests
	// of the tenant that owns that business (by key or session), so
	// parallel tests on one server each inject their own faults. A scoped
	// request rule acts once the caller is known (after authentication);
	// an unscoped one acts before. mockserver.Account.AddFault sets it.
	BusinessID string `json:"business_id,omitempty"`
	// Method and Path select the requests (see the type's documentation).
	Method string `json:"method,omitempty"`
	Path   string `json:"path,omitempty"`
	// Target is what fails: one of the FaultTarget constants (default
	// FaultTargetRequest).
	Target FaultTarget `json:"target,omitempty"`
	// Status is the error status to respond with, 400 to 599.
	Status int `json:"status,omitempty"`
	// Code and Message are the error's code and message (defaults derived
	// from the status). Code is one of the API's codes (the Code constants
	// of package voiceagent), as the real service would answer.
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	// LatencyMS delays the response by that many milliseconds of real
	// time.
	LatencyMS int `json:"latency_ms,omitempty"`
	// Drop closes the connection without a response; After drops it after
	// the handler ran.
	Drop  bool `json:"drop,omitempty"`
	After bool `json:"after,omitempty"`
	// Truncate sends half of the handler's response and closes the
	// connection.
	Truncate bool `json:"truncate,omitempty"`
	// Probability is the chance, above 0 and at most 1, that a matching
	// request fires the rule; the zero value (unset) means always. POST
	// /_mock/faults refuses an explicit "probability": 0, a rule that
	// would never fire.
	Probability float64 `json:"probability,omitempty"`
	// Times is how many times the rule fires before it stops (0: no
	// limit).
	Times int `json:"times,omitempty"`
	// RetryAfter is the Retry-After of the response, in seconds.
	RetryAfter *int `json:"retry_after,omitempty"`
	// Fired is how many times the rule fired.
	Fired int `json:"fired"`
}

// JournalEntry is one API request as the journal (GET /_mock/requests)
// keeps it: the request and the response, headers and bodies included
// (each body capped at JournalBodyCap), secrets redacted (see the guide's
// "Request journal").
type JournalEntry struct {
	// Seq numbers the entries from 1, in the order they were journaled.
	Seq int64 `json:"seq"`
	// RequestID is the request's X-Request-Id.
	RequestID string `json:"request_id"`
	// Method and Path are the request's (Path with the /api prefix), and
	// Query its query string, secret values redacted.
	Method string `json:"method"`
	Path   string `json:"path"`
	Query  string `json:"query,omitempty"`
	// Status is the response's status code.
	Status int `json:"status"`
	// KeyPrefix is the prefix of the key the request was made with.
	KeyPrefix string `json:"key_prefix,omitempty"`
	// BusinessID is the caller's tenant: the root business of the
	// caller's account (empty for unauthenticated requests).
	BusinessID string `json:"business_id,omitempty"`
	// Time is when the request came, in real time.
	Time time.Time `json:"time"`
	// DurationMS is how long the server took, in milliseconds.
	DurationMS float64 `json:"duration_ms"`
	// Replayed reports that the response was an idempotency replay.
	Replayed bool `json:"idempotent_replayed,omitempty"`
	// Fault is what the fault rule that acted on the request did to its
	// answer: FaultStatus, FaultLatency, FaultDropped or FaultTruncated
	// ("" when no rule acted).
	Fault FaultKind `json:"fault,omitempty"`
	// FaultID is the id of the fault rule that acted on the request, if
	// any (whatever it did: a status, a latency, a drop, a truncation).
	FaultID string `json:"fault_id,omitempty"`
	// Request and Response are the headers and bodies sent and received.
	Request  JournalMessage `json:"request"`
	Response JournalMessage `json:"response"`
}

// JournalMessage is the headers and body of a journaled request or
// response. In JSON (GET /_mock/requests, MarshalJSON) its body is the
// decoded JSON value when BodyIsJSON, else a string.
type JournalMessage struct {
	// Header is the message's headers, secrets redacted.
	Header http.Header `json:"headers"`
	// Body is the body as text, its first JournalBodyCap bytes.
	Body string `json:"body,omitempty"`
	// BodyBytes is the length of the whole body, truncated or not.
	BodyBytes int `json:"body_bytes"`
	// Truncated reports that Body holds only the start of the body.
	Truncated bool `json:"truncated,omitempty"`
}

// JournalBodyCap is how much of each request and response body a journal
// entry keeps: the first 16 KiB, marked Truncated when the body was longer.
const JournalBodyCap = 16 << 10

// RequestFilter selects journal entries as the filters of GET
// /_mock/requests do. Empty fields match everything; pass its Match method
// to Requests and WaitRequests.
type RequestFilter struct {
	// Method matches case-insensitively.
	Method string
	// Path is exact, or a prefix when it ends with "*", with or without
	// the /api prefix (as fault rules take it).
	Path string
	// Status is the response's status code.
	Status int
	// BusinessID is the tenant of the request (JournalEntry.BusinessID).
	BusinessID string
	// After keeps only entries with a larger Seq (0: from the first).
	After int64
}

// OutboxMessage is an email or SMS the platform sent to a person outside the
// API: signup codes and links, SDR emails, owner notifications.
type OutboxMessage struct {
	ID string `json:"id"`
	// BusinessID is the business the message was sent for (absent for a
	// signup code, sent before the business exists).
	BusinessID string `json:"business_id,omitempty"`
	// Channel is email or sms.
	Channel Channel `json:"channel"`
	To      string  `json:"to"`
	From    string  `json:"from"`
	Subject string  `json:"subject,omitempty"`
	Body    string  `json:"body"`
	// OTPCode is the one-time code the message carries, if any.
	OTPCode string `json:"otp_code,omitempty"`
	// Link is the link the message carries, if any.
	Link string `json:"link,omitempty"`
	// CreatedAt is the simulated time the message was sent.
	CreatedAt time.Time `json:"created_at"`
}

// PromptAuditEntry is one change of an agent's prompt in the audit trail
// (POST /v1/sms/update-prompt writes them).
type PromptAuditEntry struct {
	ID         string `json:"id"`
	AgentID    string `json:"agent_id"`
	BusinessID string `json:"business_id"`
	// Field is the prompt changed (sms_prompt).
	Field    string `json:"field"`
	OldValue string `json:"old_value"`
	NewValue string `json:"new_value"`
	Reason   string `json:"reason"`
	// ActorUserID is the user the change was made as; ActorKeyPrefix the
	// key's prefix ("" for a dashboard session).
	ActorUserID    string `json:"actor_user_id"`
	ActorKeyPrefix string `json:"actor_key_prefix"`
	// CreatedAt is the simulated time of the change.
	CreatedAt time.Time `json:"created_at"`
}

// ProviderCall is what the simulated voice provider received for a call:
// GET /_mock/provider-calls?call_id= and mockserver.Server.ProviderCall. Tests read
// the enrichment variables the agent received here.
type ProviderCall struct {
	CallID      string `json:"call_id"`
	AssistantID string `json:"assistant_id"`
	From        string `json:"from"`
	To          string `json:"to"`
	// FirstMessage is the opening line, with {{variables}} filled in.
	FirstMessage string `json:"first_message"`
	// Prompt is the prompt the assistant runs with (the outbound prompt for
	// outbound calls, the inbound one for inbound calls), with the context
	// appended and {{variables}} filled in.
	Prompt string `json:"prompt"`
	// Context is the call's context, as given to POST /v1/calls.
	Context string `json:"context,omitempty"`
	// Variables are the enrichment variables: name, lead_score, lead_status,
	// interaction_count, days_since_first_contact and lead_source when the
	// call has a lead; business_name, business_phone and time_of_day always.
	Variables map[string]any `json:"variables"`
	// MaxDuration is the call's cap, in seconds.
	MaxDuration int `json:"max_duration"`
}

// Account is a ready tenant as POST /_mock/accounts responds with it: its
// key, business, intake agent, number, user and dashboard session.
type Account struct {
	APIKey      string `json:"api_key"`
	BusinessID  string `json:"business_id"`
	AgentID     string `json:"agent_id"`
	PhoneNumber string `json:"phone_number"`
	UserID      string `json:"user_id"`
	// Session is a dashboard session token (the voiceagent_session cookie),
	// for key management: voiceagent.WithSessionCookie(acct.Session).
	Session string `json:"session"`
	// PartnerID and ReferralCode are set for AccountOptions.Partner.
	PartnerID    string `json:"partner_id,omitempty"`
	ReferralCode string `json:"referral_code,omitempty"`
}

// AccountCopy is a copy of a tenant as POST /_mock/accounts/copy responds
// with it: the copy's account and the ids of the copied records.
type AccountCopy struct {
	Account
	// IDs maps every copied record's id (businesses, agents, numbers,
	// calls, leads, texts, events, deliveries, ...) to its copy's id.
	IDs map[string]string `json:"ids"`
}

// Schedule is a tenant's pending work as GET /_mock/schedule shows it: its
// time and its tasks in the order they will run.
type Schedule struct {
	BusinessID string          `json:"business_id"`
	Now        time.Time       `json:"now"`
	Tasks      []ScheduledTask `json:"tasks"`
}

// Clock is what GET /_mock/clock and POST /_mock/clock/advance respond
// with: a tenant's time (or the base time), and how many simulated
// processes wait on its clock (on every clock for the base).
type Clock struct {
	Now        time.Time `json:"now"`
	BusinessID string    `json:"business_id,omitempty"`
	Pending    int       `json:"pending"`
}

// SeedLeads is the body of POST /_mock/leads: leads to store in an
// existing business as given (mockserver.Server.SeedLeads).
type SeedLeads struct {
	BusinessID string        `json:"business_id"`
	Leads      []LeadFixture `json:"leads"`
}

// SeedCalls is the body of POST /_mock/calls: finished calls to store in an
// existing business as given (mockserver.Server.SeedCalls).
type SeedCalls struct {
	BusinessID string        `json:"business_id"`
	Calls      []CallFixture `json:"calls"`
}

// SeededIDs is the answer of POST /_mock/leads and POST /_mock/calls: the
// ids of the stored records, in the order given.
type SeededIDs struct {
	IDs []string `json:"ids"`
}
