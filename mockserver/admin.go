package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"

	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// The Go admin helpers: what the admin API (/_mock) does, for tests in Go.

// LoadFixtures provisions the accounts of f (as NewAccount) and stores
// their leads and calls. An invalid record stops the load with an error
// naming it; the accounts before it stay.
func (s *Server) LoadFixtures(f Fixtures) ([]*Account, error) {
	var v struct {
		Accounts []*admin.Account `json:"accounts"`
	}
	if err := s.admin(http.MethodPost, "/fixtures", nil, f, &v); err != nil {
		return nil, err
	}
	return s.accounts(v.Accounts, nil)
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
	if calls == nil {
		calls = []CallFixture{}
	}
	var v admin.SeededIDs
	err := s.admin(http.MethodPost, "/calls", nil, admin.SeedCalls{BusinessID: businessID, Calls: calls}, &v)
	return v.IDs, err
}

// SeedLeads stores leads in a business as given, oldest first, and returns
// their ids in the order given. It is all or nothing: an invalid lead
// stores none.
func (s *Server) SeedLeads(businessID string, leads []LeadFixture) ([]string, error) {
	if leads == nil {
		leads = []LeadFixture{}
	}
	var v admin.SeededIDs
	err := s.admin(http.MethodPost, "/leads", nil, admin.SeedLeads{BusinessID: businessID, Leads: leads}, &v)
	return v.IDs, err
}

// Deliveries returns the deliveries in the log that pass the filter, oldest
// first.
func (s *Server) Deliveries(f DeliveryFilter) []Delivery {
	ds, err := s.deliveries(context.Background(), f)
	must(err)
	return ds
}

// EmitEvent records an event of a business with data (any JSON-able value;
// nil gives the sample data of the type from the business's records,
// webhooks.SampleData) as if the platform produced it now, and delivers it to the
// business's subscriptions: a driver for receiver tests (POST /_mock/events
// does the same). It returns the event id.
func (s *Server) EmitEvent(businessID string, eventType webhooks.EventType, data any) (string, error) {
	body := map[string]any{"business_id": businessID, "event": eventType}
	if data != nil {
		body["data"] = data
	}
	var ev struct {
		ID string `json:"id"`
	}
	err := s.admin(http.MethodPost, "/events", nil, body, &ev)
	return ev.ID, err
}

// ReplayDelivery sends any delivery again, whatever its status: a new
// delivery with the same message id (webhook-id) and body, with a fresh
// retry schedule, to the subscription as it is now (or to the call's
// webhook_url, or the approval request's callback_url, signed with its
// secret; the request's callback status follows the replay). A replay of a
// succeeded delivery is a duplicate by its webhook-id: what a receiver's
// deduplication must acknowledge without acting twice.
func (s *Server) ReplayDelivery(id string) (Delivery, error) {
	var d Delivery
	err := s.admin(http.MethodPost, "/deliveries/replay", nil, map[string]string{"delivery_id": id}, &d)
	var e *Error
	if errors.As(err, &e) {
		switch e.Status {
		case http.StatusNotFound:
			e.err = ErrDeliveryNotFound
		case http.StatusConflict:
			e.err = ErrDeliveryNotReplayable
		}
	}
	return d, err
}

// WaitDeliveries waits until at least one delivery matches (nil: any), or
// ctx ends, and returns the matching ones, oldest first. Deliveries happen
// in the background: wait for them instead of sleeping. match must not keep
// the pointer it is given.
func (s *Server) WaitDeliveries(ctx context.Context, match func(*Delivery) bool) []Delivery {
	return s.WaitDeliveryCount(ctx, 1, match)
}

// WaitDeliveryCount waits until at least n deliveries match (nil: any), or
// ctx ends, and returns the matching ones, oldest first.
func (s *Server) WaitDeliveryCount(ctx context.Context, n int, match func(*Delivery) bool) []Delivery {
	return s.waitDeliveries(ctx, n, DeliveryFilter{}, match)
}

// waitDeliveries polls the deliveries f selects (GET /_mock/deliveries)
// until at least n of them match (nil: any), or ctx ends, and returns the
// matching ones. A delivery changes in place (its attempts, its status),
// so the log is read again rather than waited on by count.
func (s *Server) waitDeliveries(ctx context.Context, n int, f DeliveryFilter, match func(*Delivery) bool) []Delivery {
	out := []Delivery{}
	poll(ctx, func() bool {
		ds, err := s.deliveries(ctx, f)
		if err != nil && ctx.Err() != nil {
			return true
		}
		must(err)
		out = out[:0]
		for i := range ds {
			if match == nil || match(&ds[i]) {
				out = append(out, ds[i])
			}
		}
		return len(out) >= n
	})
	return out
}

// AddFault installs a fault injection rule and returns it with its id. A
// rule that does nothing, or names a path no route of the API has, is
// refused with an *Error (as POST /_mock/faults responds 400). With
// BusinessID set the rule fires only on requests of that business's
// tenant: Account.AddFault sets it for you.
func (s *Server) AddFault(f FaultRule) (FaultRule, error) {
	// The rule as POST /_mock/faults takes it: Fired is the server's count.
	body, err := json.Marshal(f)
	if err != nil {
		return FaultRule{}, err
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return FaultRule{}, err
	}
	delete(m, "fired")
	var r FaultRule
	if err := s.admin(http.MethodPost, "/faults", nil, m, &r); err != nil {
		return FaultRule{}, err
	}
	return r, nil
}

// RemoveFault removes one fault injection rule and reports whether it
// existed.
func (s *Server) RemoveFault(id string) bool {
	err := s.admin(http.MethodDelete, "/faults", url.Values{"id": {id}}, nil, nil)
	var e *Error
	if errors.As(err, &e) && e.Status == http.StatusNotFound {
		return false
	}
	must(err)
	return true
}

// ClearFaults removes every fault injection rule.
func (s *Server) ClearFaults() {
	s.mustAdmin(http.MethodDelete, "/faults", nil, nil, nil)
}

// Tenants returns every tenant of the server, oldest first, with its time.
func (s *Server) Tenants() []Tenant {
	var v struct {
		Tenants []Tenant `json:"tenants"`
	}
	s.mustAdmin(http.MethodGet, "/tenants", nil, nil, &v)
	return v.Tenants
}

// Faults returns the fault injection rules, with how often each fired.
func (s *Server) Faults() []FaultRule {
	var v struct {
		Faults []FaultRule `json:"faults"`
	}
	s.mustAdmin(http.MethodGet, "/faults", nil, nil, &v)
	return v.Faults
}

// Requests returns the journaled requests, oldest first, for which match
// (nil: all) reports true. Pass RequestFilter{...}.Match to filter as GET
// /_mock/requests does; the length of the result is the count to assert on.
func (s *Server) Requests(match func(*JournalEntry) bool) []JournalEntry {
	es, _, err := s.requests(context.Background(), "", match)
	must(err)
	return es
}

// LatestRequestSeq returns the Seq of the newest journal entry (0 when none
// was journaled yet). Read it before the requests to wait for, and wait
// with RequestFilter{After: seq}.Match so that older ones do not count.
func (s *Server) LatestRequestSeq() int64 {
	var v struct {
		LatestSeq int64 `json:"latest_seq"`
	}
	s.mustAdmin(http.MethodGet, "/requests", url.Values{"limit": {"0"}}, nil, &v)
	return v.LatestSeq
}

// ServeHTTP implements http.Handler: the one pipeline every request takes.
//
// Order: request id; route lookup (404/405); injected faults that act before
// the handler; body size limit (413); authentication (401); scopes (403);
// rate limits (429); idempotency (replay or 409); the handler under the store
// lock, its response encoded under the same lock; the idempotency record; the
// usage log; faults that act after the handler (dropped or truncated
// responses); the request journal.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.inProcessOnly("ServeHTTP")
	s.httpapi.ServeHTTP(w, r)
}

// WaitRequests waits until at least one journaled request matches, or ctx
// ends, and returns the matching ones, oldest first. Requests already
// journaled count: to wait for new ones only, match with
// RequestFilter{After: seq}.Match, seq from LatestRequestSeq.
func (s *Server) WaitRequests(ctx context.Context, match func(*JournalEntry) bool) []JournalEntry {
	return s.waitRequests(ctx, "", match)
}

// NewAccount provisions a ready tenant without signup: a user, a business,
// an intake agent, a number, a key and a session. Every account is its own
// tenant, so parallel tests can share one server.
func (s *Server) NewAccount(opts AccountOptions) (*Account, error) {
	a := &Account{srv: s}
	if err := s.admin(http.MethodPost, "/accounts", nil, opts, &a.Account); err != nil {
		return nil, err
	}
	return a, nil
}

// SeedAccount is NewAccount for an account the server keeps: every Reset
// (and POST /_mock/reset without ?seed=none) provisions it again with the
// same ids, number, key and session, so a key handed out at start keeps
// working. The standalone binary's demo account is one; a server without
// seed accounts is left empty by a reset.
func (s *Server) SeedAccount(opts AccountOptions) (*Account, error) {
	s.inProcessOnly("SeedAccount")
	a, err := s.identity.SeedAccount(opts)
	if err != nil {
		return nil, publicError(err)
	}
	return s.account(a), nil
}

// Outbox returns the messages sent to an address or number ("" for all),
// oldest first.
func (s *Server) Outbox(to string) []OutboxMessage {
	ms, err := s.outbox(context.Background(), to)
	must(err)
	return ms
}

// WaitOutbox waits until a message to the address matches (nil: any), or
// ctx ends, and returns the newest matching one.
func (s *Server) WaitOutbox(ctx context.Context, to string, match func(OutboxMessage) bool) (OutboxMessage, bool) {
	var found OutboxMessage
	ok := false
	poll(ctx, func() bool {
		ms, err := s.outbox(ctx, to)
		if err != nil && ctx.Err() != nil {
			return true
		}
		must(err)
		for i := len(ms) - 1; i >= 0; i-- {
			if match == nil || match(ms[i]) {
				found, ok = ms[i], true
				return true
			}
		}
		return false
	})
	return found, ok
}

// SDRCronSecret returns the internal secret of POST /api/sdr/cron, the
// scheduled runner's route (generated once per store). Keys and sessions
// never open it.
func (s *Server) SDRCronSecret() string {
	s.inProcessOnly("SDRCronSecret")
	return s.sdr.SDRCronSecret()
}

// AddDoNotCall puts a number on a business's do-not-call list, or on the
// national registry every business honours when businessID is "". Texts
// to it are refused with number_on_dnc; calls placed through the API are
// not checked (the spec leaves that to the caller).
func (s *Server) AddDoNotCall(businessID, phone string) error {
	return s.dnc(businessID, phone, true)
}

// RemoveDoNotCall takes a number off a do-not-call list (see
// AddDoNotCall).
func (s *Server) RemoveDoNotCall(businessID, phone string) error {
	return s.dnc(businessID, phone, false)
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
	var v struct {
		Status Consent `json:"status"`
	}
	s.mustAdmin(http.MethodGet, "/consent", url.Values{"business_id": {businessID}, "phone": {phone}}, nil, &v)
	return v.Status
}

// InboundCall makes a caller ring a platform number (see InboundCall and
// the package documentation's call states) and returns the call's id. Move
// the clock to let the call run.
func (s *Server) InboundCall(in InboundCall) (string, error) {
	var c struct {
		ID string `json:"id"`
	}
	err := s.admin(http.MethodPost, "/inbound-call", nil, in, &c)
	return c.ID, err
}

// InboundSMS makes a person text a platform number: consent, opt-out
// (STOP) and opt-in (START) as the package documentation says.
func (s *Server) InboundSMS(in InboundSMS) (InboundSMSResult, error) {
	var r InboundSMSResult
	err := s.admin(http.MethodPost, "/inbound-sms", nil, in, &r)
	return r, err
}

// MinutesUsed returns the minutes a business's calls used (finished calls'
// durations, each rounded up to a whole minute).
func (s *Server) MinutesUsed(businessID string) int {
	s.inProcessOnly("MinutesUsed")
	return s.telephony.MinutesUsed(businessID)
}

// PromptAudit returns the audit trail of an agent's prompt changes, oldest
// first.
func (s *Server) PromptAudit(agentID string) []PromptAuditEntry {
	var v struct {
		Entries []PromptAuditEntry `json:"entries"`
	}
	s.mustAdmin(http.MethodGet, "/prompt-audit", url.Values{"agent_id": {agentID}}, nil, &v)
	return v.Entries
}

// ProviderAssistants returns how many assistants the simulated voice
// provider holds, so tests can check that a failed create left none behind.
func (s *Server) ProviderAssistants() int {
	s.inProcessOnly("ProviderAssistants")
	return s.telephony.ProviderAssistants()
}

// ProviderCall returns what the simulated voice provider received for a
// call.
func (s *Server) ProviderCall(callID string) (ProviderCall, bool) {
	var c ProviderCall
	err := s.admin(http.MethodGet, "/provider-calls", url.Values{"call_id": {callID}}, nil, &c)
	var e *Error
	if errors.As(err, &e) && e.Status == http.StatusNotFound {
		return ProviderCall{}, false
	}
	must(err)
	return c, true
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
	return s.admin(http.MethodPost, "/consent", nil, map[string]any{"business_id": businessID, "phone": phone, "status": status}, nil)
}

// deliveries reads the delivery log through GET /_mock/deliveries: the
// server selects by f's query members (f.Tenant is its business_id), and
// f.Match by the rest (f.BusinessID, the exact business).
func (s *Server) deliveries(ctx context.Context, f DeliveryFilter) ([]Delivery, error) {
	q := query("kind", string(f.Kind), "subscription_id", f.SubscriptionID, "call_id", f.CallID,
		"approval_request_id", f.ApprovalRequestID, "business_id", f.Tenant, "event_id", f.EventID,
		"event", f.Event, "status", string(f.Status))
	if f.MinAttempts > 0 {
		q.Set("min_attempts", itoa(f.MinAttempts))
	}
	var v struct {
		Deliveries []Delivery `json:"deliveries"`
	}
	if err := s.api.do(ctx, http.MethodGet, "/deliveries", q, nil, &v); err != nil {
		return nil, err
	}
	out := v.Deliveries[:0]
	for i := range v.Deliveries {
		if f.Match(&v.Deliveries[i]) {
			out = append(out, v.Deliveries[i])
		}
	}
	return out, nil
}

// requests reads every journaled request of the tenant owning businessID
// ("" every tenant) through GET /_mock/requests, a page at a time, and
// returns those match (nil: all) keeps, oldest first, with the newest seq.
func (s *Server) requests(ctx context.Context, businessID string, match func(*JournalEntry) bool) ([]JournalEntry, int64, error) {
	out := []JournalEntry{}
	var after, latest int64
	for {
		var page struct {
			Requests  []JournalEntry `json:"requests"`
			LatestSeq int64          `json:"latest_seq"`
		}
		q := query("business_id", businessID, "after", itoa(after), "limit", "1000", "bodies", "text")
		if err := s.api.do(ctx, http.MethodGet, "/requests", q, nil, &page); err != nil {
			return nil, 0, err
		}
		latest = page.LatestSeq
		for i := range page.Requests {
			if match == nil || match(&page.Requests[i]) {
				out = append(out, page.Requests[i])
			}
		}
		if len(page.Requests) == 0 {
			return out, latest, nil
		}
		after = page.Requests[len(page.Requests)-1].Seq
		if after >= latest {
			return out, latest, nil
		}
	}
}

// waitRequests waits until a journaled request of the tenant owning
// businessID ("" any) matches, or ctx ends, and returns the matching ones:
// between reads it long-polls GET /_mock/requests for entries after the
// newest it saw.
func (s *Server) waitRequests(ctx context.Context, businessID string, match func(*JournalEntry) bool) []JournalEntry {
	for {
		es, latest, err := s.requests(ctx, businessID, match)
		if err != nil && ctx.Err() != nil {
			return []JournalEntry{}
		}
		must(err)
		if len(es) > 0 || ctx.Err() != nil {
			return es
		}
		q := query("business_id", businessID, "after", itoa(latest), "limit", "1", "wait", "10s")
		if err := s.api.do(ctx, http.MethodGet, "/requests", q, nil, nil); err != nil && ctx.Err() == nil {
			must(err)
		}
	}
}

// outbox reads the messages sent to to ("" all) through GET /_mock/outbox.
func (s *Server) outbox(ctx context.Context, to string) ([]OutboxMessage, error) {
	var v struct {
		Messages []OutboxMessage `json:"messages"`
	}
	err := s.api.do(ctx, http.MethodGet, "/outbox", query("to", to), nil, &v)
	return v.Messages, err
}

// dnc puts phone on a do-not-call list or takes it off (POST /_mock/dnc).
func (s *Server) dnc(businessID, phone string, on bool) error {
	body := map[string]any{"phone": phone, "on_list": on}
	if businessID != "" {
		body["business_id"] = businessID
	}
	return s.admin(http.MethodPost, "/dnc", nil, body, nil)
}

// ClearRateLimits drops rate-limit counters, as DELETE /_mock/rate-limits
// does, and returns how many it dropped: clientIP's when set (signup's
// count, 5 an hour per address, as the server sees it: 127.0.0.1 for a
// server in process), those of the keys and sessions of the tenant owning
// businessID when set, every counter when neither is.
func (s *Server) ClearRateLimits(clientIP, businessID string) (int, error) {
	var v struct {
		Cleared int `json:"cleared"`
	}
	err := s.admin(http.MethodDelete, "/rate-limits", query("client_ip", clientIP, "business_id", businessID), nil, &v)
	return v.Cleared, err
}
