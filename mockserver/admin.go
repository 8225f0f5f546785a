package mockserver

import (
	"context"
	"net/http"
)

// The Go admin helpers: what the admin API (/_mock) does, for tests in Go.

// LoadFixtures provisions the accounts of f (as NewAccount) and stores
// their leads and calls. An invalid record stops the load with an error
// naming it; the accounts before it stay.
func (s *Server) LoadFixtures(f Fixtures) ([]*Account, error) {
	return s.accounts(s.fixtures.LoadFixtures(f))
}

// LoadFixturesFile reads a fixtures file (JSON, see Fixtures) and loads it.
func (s *Server) LoadFixturesFile(path string) ([]*Account, error) {
	return s.accounts(s.fixtures.LoadFixturesFile(path))
}

// SeedCalls stores finished calls in a business as given, oldest first,
// and returns their ids in the order given. It is all or nothing.
func (s *Server) SeedCalls(businessID string, calls []CallFixture) ([]string, error) {
	return s.fixtures.SeedCalls(businessID, calls)
}

// SeedLeads stores leads in a business as given, oldest first, and returns
// their ids in the order given. It is all or nothing: an invalid lead
// stores none.
func (s *Server) SeedLeads(businessID string, leads []LeadFixture) ([]string, error) {
	return s.fixtures.SeedLeads(businessID, leads)
}

// Deliveries returns the deliveries in the log that pass the filter, oldest
// first.
func (s *Server) Deliveries(f DeliveryFilter) []Delivery { return s.hooks.Deliveries(f) }

// EmitEvent records an event of a business with data (any JSON-able value;
// nil gives {}) as if the platform produced it now, and delivers it to the
// business's subscriptions: a driver for receiver tests (POST /_mock/events
// does the same). It returns the event id.
func (s *Server) EmitEvent(businessID string, eventType string, data any) (string, error) {
	return s.hooks.EmitEvent(businessID, eventType, data)
}

// ReplayDelivery sends any delivery again, whatever its status: a new
// delivery with the same message id (webhook-id) and body, with a fresh
// retry schedule, to the subscription as it is now (or to the call's
// webhook_url, or the approval request's callback_url, signed with its
// secret; the request's callback status follows the replay). A replay of a
// succeeded delivery is a duplicate by its webhook-id: what a receiver's
// deduplication must acknowledge without acting twice.
func (s *Server) ReplayDelivery(id string) (Delivery, error) { return s.hooks.ReplayDelivery(id) }

// WaitDeliveries waits until at least one delivery matches (nil: any), or
// ctx ends, and returns the matching ones, oldest first. Deliveries happen
// in the background: wait for them instead of sleeping. match must not keep
// the pointer it is given.
func (s *Server) WaitDeliveries(ctx context.Context, match func(*Delivery) bool) []Delivery {
	return s.hooks.WaitDeliveries(ctx, match)
}

// WaitDeliveryCount waits until at least n deliveries match (nil: any), or
// ctx ends, and returns the matching ones, oldest first.
func (s *Server) WaitDeliveryCount(ctx context.Context, n int, match func(*Delivery) bool) []Delivery {
	return s.hooks.WaitDeliveryCount(ctx, n, match)
}

// AddFault installs a fault injection rule and returns it with its id. A
// rule that does nothing, or names a path no route of the API has, is
// refused with an error (as POST /_mock/faults answers 400). With
// BusinessID set the rule fires only on requests of that business's
// tenant: Account.AddFault sets it for you.
func (s *Server) AddFault(f FaultRule) (FaultRule, error) { return s.httpapi.AddFault(f) }

// RemoveFault removes one fault injection rule and reports whether it
// existed.
func (s *Server) RemoveFault(id string) bool { return s.httpapi.FaultSet.Remove(id) }

// ClearFaults removes every fault injection rule.
func (s *Server) ClearFaults() { s.httpapi.ClearFaults() }

// Tenants returns every tenant of the server, oldest first, with its time.
func (s *Server) Tenants() []Tenant { return s.httpapi.Tenants() }

// Faults returns the fault injection rules, with how often each fired.
func (s *Server) Faults() []FaultRule { return s.httpapi.Faults() }

// Requests returns the journaled requests, oldest first, for which match
// (nil: all) reports true. Pass RequestFilter{...}.Match to filter as GET
// /_mock/requests does; len of the answer is the count to assert on.
func (s *Server) Requests(match func(*JournalEntry) bool) []JournalEntry {
	return s.httpapi.Requests(match)
}

// LatestRequestSeq returns the Seq of the newest journal entry (0 when none
// was journaled yet). Read it before the requests to wait for, and wait
// with RequestFilter{After: seq}.Match so that older ones do not count.
func (s *Server) LatestRequestSeq() int64 { return s.httpapi.Journal.Latest() }

// ServeHTTP implements http.Handler: the one pipeline every request takes.
//
// Order: request id; route lookup (404/405); injected faults that act before
// the handler; body size limit (413); authentication (401); scopes (403);
// rate limits (429); idempotency (replay or 409); the handler under the store
// lock, its answer encoded under the same lock; the idempotency record; the
// usage log; faults that act after the handler (dropped or truncated
// answers); the request journal.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.httpapi.ServeHTTP(w, r) }

// WaitRequests waits until at least one journaled request matches, or ctx
// ends, and returns the matching ones, oldest first. Requests already
// journaled count: to wait for new ones only, match with
// RequestFilter{After: seq}.Match, seq from LatestRequestSeq.
func (s *Server) WaitRequests(ctx context.Context, match func(*JournalEntry) bool) []JournalEntry {
	return s.httpapi.WaitRequests(ctx, match)
}

// NewAccount provisions a ready tenant without signup: a user, a business,
// an intake agent, a number, a key and a session. Every account is its own
// tenant, so parallel tests can share one server.
func (s *Server) NewAccount(opts AccountOptions) (*Account, error) {
	a, err := s.identity.NewAccount(opts)
	if err != nil {
		return nil, err
	}
	return s.account(a), nil
}

// SeedAccount is NewAccount for an account the server keeps: every Reset
// (and POST /_mock/reset without ?seed=none) provisions it again with the
// same ids, number, key and session, so a key handed out at start keeps
// working. The standalone binary's demo account is one; a server without
// seed accounts is left empty by a reset.
func (s *Server) SeedAccount(opts AccountOptions) (*Account, error) {
	a, err := s.identity.SeedAccount(opts)
	if err != nil {
		return nil, err
	}
	return s.account(a), nil
}

// Outbox returns the messages sent to an address or number ("" for all),
// oldest first.
func (s *Server) Outbox(to string) []OutboxMessage { return s.identity.Outbox(to) }

// WaitOutbox waits until a message to the address matches (nil: any), or
// ctx ends, and returns the newest matching one.
func (s *Server) WaitOutbox(ctx context.Context, to string, match func(OutboxMessage) bool) (OutboxMessage, bool) {
	return s.identity.WaitOutbox(ctx, to, match)
}

// SDRCronSecret returns the internal secret of POST /api/sdr/cron, the
// scheduled runner's route (generated once per store). Keys and sessions
// never open it.
func (s *Server) SDRCronSecret() string { return s.sdr.SDRCronSecret() }

// AddDNC puts a number on a business's do-not-call list, or on the national
// registry every business honours when businessID is "". Texts to it are
// refused with number_on_dnc; calls placed through the API are not checked
// (the spec leaves that to the caller).
func (s *Server) AddDNC(phone string, businessID string) error {
	return s.telephony.AddDNC(phone, businessID)
}

// Consent returns a number's SMS consent towards a business.
func (s *Server) Consent(businessID string, phone string) string {
	return s.telephony.Consent(businessID, phone)
}

// InboundCall makes a caller ring a platform number (see InboundCall and
// the package documentation's call states) and returns the call's id. Move
// the clock to let the call run.
func (s *Server) InboundCall(in InboundCall) (string, error) { return s.telephony.InboundCall(in) }

// InboundSMS makes a person text a platform number: consent, opt-out
// (STOP) and opt-in (START) as the package documentation says.
func (s *Server) InboundSMS(to string, from string, body string) (InboundSMS, error) {
	return s.telephony.InboundSMS(to, from, body)
}

// MinutesUsed returns the minutes a business's calls used (finished calls'
// durations, each rounded up to a whole minute).
func (s *Server) MinutesUsed(businessID string) int { return s.telephony.MinutesUsed(businessID) }

// PromptAudit returns the audit trail of an agent's prompt changes, oldest
// first.
func (s *Server) PromptAudit(agentID string) []PromptAuditEntry {
	return s.telephony.PromptAudit(agentID)
}

// ProviderAssistants returns how many assistants the simulated voice
// provider holds, so tests can check that a failed create left none behind.
func (s *Server) ProviderAssistants() int { return s.telephony.ProviderAssistants() }

// ProviderCall returns what the simulated voice provider received for a
// call.
func (s *Server) ProviderCall(callID string) (ProviderCall, bool) {
	return s.telephony.ProviderCall(callID)
}

// RemoveDNC takes a number off a do-not-call list (see AddDNC).
func (s *Server) RemoveDNC(phone string, businessID string) error {
	return s.telephony.RemoveDNC(phone, businessID)
}

// SetConsent sets a number's SMS consent towards a business: ConsentOptedIn,
// ConsentOptedOut or ConsentNone.
func (s *Server) SetConsent(businessID string, phone string, status string) error {
	return s.telephony.SetConsent(businessID, phone, status)
}
