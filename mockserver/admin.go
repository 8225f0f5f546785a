package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
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
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f Fixtures
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, invalidFixtures(path, err)
	}
	accts, err := s.LoadFixtures(f)
	if err != nil {
		return accts, fmt.Errorf("%s: %w", path, err)
	}
	return accts, nil
}

// SeedCalls stores finished calls in a business as given, oldest first,
// and returns their ids in the order given. It is all or nothing.
func (s *Server) SeedCalls(businessID string, calls []CallFixture) ([]string, error) {
	ids, err := s.fixtures.SeedCalls(businessID, calls)
	return ids, publicError(err)
}

// SeedLeads stores leads in a business as given, oldest first, and returns
// their ids in the order given. It is all or nothing: an invalid lead
// stores none.
func (s *Server) SeedLeads(businessID string, leads []LeadFixture) ([]string, error) {
	ids, err := s.fixtures.SeedLeads(businessID, leads)
	return ids, publicError(err)
}

// Deliveries returns the deliveries in the log that pass the filter, oldest
// first.
func (s *Server) Deliveries(f DeliveryFilter) []Delivery {
	return s.hooks.Deliveries(f)
}

// EmitEvent records an event of a business with data (any JSON-able value;
// nil gives {}) as if the platform produced it now, and delivers it to the
// business's subscriptions: a driver for receiver tests (POST /_mock/events
// does the same). It returns the event id.
func (s *Server) EmitEvent(businessID string, eventType string, data any) (string, error) {
	id, err := s.hooks.EmitEvent(businessID, eventType, data)
	return id, publicError(err)
}

// ReplayDelivery sends any delivery again, whatever its status: a new
// delivery with the same message id (webhook-id) and body, with a fresh
// retry schedule, to the subscription as it is now (or to the call's
// webhook_url, or the approval request's callback_url, signed with its
// secret; the request's callback status follows the replay). A replay of a
// succeeded delivery is a duplicate by its webhook-id: what a receiver's
// deduplication must acknowledge without acting twice.
func (s *Server) ReplayDelivery(id string) (Delivery, error) {
	d, err := s.hooks.ReplayDelivery(id)
	if err != nil {
		return Delivery{}, publicError(err)
	}
	return d, nil
}

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
// refused with an *Error (as POST /_mock/faults responds 400). With
// BusinessID set the rule fires only on requests of that business's
// tenant: Account.AddFault sets it for you.
func (s *Server) AddFault(f FaultRule) (FaultRule, error) {
	r, err := s.httpapi.AddFault(f)
	if err != nil {
		return FaultRule{}, publicError(err)
	}
	return r, nil
}

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
// /_mock/requests does; the length of the result is the count to assert on.
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
// lock, its response encoded under the same lock; the idempotency record; the
// usage log; faults that act after the handler (dropped or truncated
// responses); the request journal.
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
		return nil, publicError(err)
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
		return nil, publicError(err)
	}
	return s.account(a), nil
}

// Outbox returns the messages sent to an address or number ("" for all),
// oldest first.
func (s *Server) Outbox(to string) []OutboxMessage {
	return s.identity.Outbox(to)
}

// WaitOutbox waits until a message to the address matches (nil: any), or
// ctx ends, and returns the newest matching one.
func (s *Server) WaitOutbox(ctx context.Context, to string, match func(OutboxMessage) bool) (OutboxMessage, bool) {
	return s.identity.WaitOutbox(ctx, to, match)
}

// SDRCronSecret returns the internal secret of POST /api/sdr/cron, the
// scheduled runner's route (generated once per store). Keys and sessions
// never open it.
func (s *Server) SDRCronSecret() string { return s.sdr.SDRCronSecret() }

// AddDoNotCall puts a number on a business's do-not-call list, or on the
// national registry every business honours when businessID is "". Texts
// to it are refused with number_on_dnc; calls placed through the API are
// not checked (the spec leaves that to the caller).
func (s *Server) AddDoNotCall(businessID, phone string) error {
	return publicError(s.telephony.AddDNC(phone, businessID))
}

// RemoveDoNotCall takes a number off a do-not-call list (see
// AddDoNotCall).
func (s *Server) RemoveDoNotCall(businessID, phone string) error {
	return publicError(s.telephony.RemoveDNC(phone, businessID))
}

// AddDNC is AddDoNotCall with its arguments the other way round.
//
// Deprecated: use AddDoNotCall(businessID, phone), whose arguments come in
// the order of every other helper.
func (s *Server) AddDNC(phone string, businessID string) error {
	return s.AddDoNotCall(businessID, phone)
}

// Consent returns a number's SMS consent towards a business.
func (s *Server) Consent(businessID string, phone string) Consent {
	return Consent(s.telephony.Consent(businessID, phone))
}

// InboundCall makes a caller ring a platform number (see InboundCall and
// the package documentation's call states) and returns the call's id. Move
// the clock to let the call run.
func (s *Server) InboundCall(in InboundCall) (string, error) {
	id, err := s.telephony.InboundCall(in)
	return id, publicError(err)
}

// InboundSMS makes a person text a platform number: consent, opt-out
// (STOP) and opt-in (START) as the package documentation says.
func (s *Server) InboundSMS(in InboundSMS) (InboundSMSResult, error) {
	r, err := s.telephony.InboundSMS(in.To, in.From, in.Body)
	return r, publicError(err)
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

// RemoveDNC is RemoveDoNotCall with its arguments the other way round.
//
// Deprecated: use RemoveDoNotCall(businessID, phone), whose arguments come
// in the order of every other helper.
func (s *Server) RemoveDNC(phone string, businessID string) error {
	return s.RemoveDoNotCall(businessID, phone)
}

// SetConsent sets a number's SMS consent towards a business: ConsentOptedIn,
// ConsentOptedOut or ConsentNone.
func (s *Server) SetConsent(businessID string, phone string, status Consent) error {
	return publicError(s.telephony.SetConsent(businessID, phone, string(status)))
}
