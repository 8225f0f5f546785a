package mockserver

import (
	"sync"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/fixtures"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/hooks"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/identity"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
)

// The conversions between the helpers' types and the domains' own. A type
// with the same fields as its domain's converts with a Go conversion, which
// stops compiling when the two part; the others are copied field by field,
// and TestPublicTypesMatchDomains checks that they have the same fields.

func convertSlice[T, U any](in []T, f func(T) U) []U {
	if in == nil {
		return nil
	}
	out := make([]U, len(in))
	for i, v := range in {
		out[i] = f(v)
	}
	return out
}

func (f FaultRule) internal() httpapi.FaultRule {
	return httpapi.FaultRule{
		ID: f.ID, BusinessID: f.BusinessID, Method: f.Method, Path: f.Path, Target: f.Target,
		Status: f.Status, Code: f.Code, Message: f.Message, LatencyMS: f.LatencyMS, Drop: f.Drop,
		After: f.After, Truncate: f.Truncate, Probability: f.Probability, Times: f.Times,
		RetryAfter: f.RetryAfter, Fired: f.Fired,
	}
}

func faultRule(f httpapi.FaultRule) FaultRule {
	return FaultRule{
		ID: f.ID, BusinessID: f.BusinessID, Method: f.Method, Path: f.Path, Target: f.Target,
		Status: f.Status, Code: f.Code, Message: f.Message, LatencyMS: f.LatencyMS, Drop: f.Drop,
		After: f.After, Truncate: f.Truncate, Probability: f.Probability, Times: f.Times,
		RetryAfter: f.RetryAfter, Fired: f.Fired,
	}
}

// fillDelivery writes d into v, reusing v's attempts slice.
func fillDelivery(v *Delivery, d *hooks.Delivery) {
	attempts := v.Attempts[:0]
	*v = Delivery{
		ID: d.ID, Kind: d.Kind, MessageID: d.MessageID, SubscriptionID: d.SubscriptionID, CallID: d.CallID,
		ApprovalRequestID: d.ApprovalRequestID, BusinessID: d.BusinessID, EventID: d.EventID, Event: d.Event,
		ContentType: d.ContentType, Body: d.Body, Status: d.Status, NextAttemptAt: d.NextAttemptAt,
		ReplayOf: d.ReplayOf, Reason: d.Reason, CreatedAt: d.CreatedAt, tenant: d.Tenant(),
	}
	for _, a := range d.Attempts {
		attempts = append(attempts, DeliveryAttempt(a))
	}
	v.Attempts = attempts
}

func delivery(d hooks.Delivery) Delivery {
	var v Delivery
	if d.Attempts != nil {
		v.Attempts = make([]DeliveryAttempt, 0, len(d.Attempts))
	}
	fillDelivery(&v, &d)
	return v
}

func deliveries(ds []hooks.Delivery) []Delivery { return convertSlice(ds, delivery) }

// deliveryMatch adapts a match function of Deliveries to the domain's
// deliveries. The domain's scan gives it a scratch view; so does it.
func deliveryMatch(match func(*Delivery) bool) func(*hooks.Delivery) bool {
	if match == nil {
		return nil
	}
	var mu sync.Mutex
	var scratch Delivery
	return func(d *hooks.Delivery) bool {
		mu.Lock()
		defer mu.Unlock()
		fillDelivery(&scratch, d)
		return match(&scratch)
	}
}

func (e *JournalEntry) internal() httpapi.JournalEntry {
	return httpapi.JournalEntry{
		Seq: e.Seq, RequestID: e.RequestID, Method: e.Method, Path: e.Path, Query: e.Query, Status: e.Status,
		KeyPrefix: e.KeyPrefix, BusinessID: e.BusinessID, Time: e.Time, DurationMS: e.DurationMS,
		Replayed: e.Replayed, Fault: e.Fault, FaultID: e.FaultID,
		Request: httpapi.JournalMessage(e.Request), Response: httpapi.JournalMessage(e.Response),
	}
}

// matchable is the part of e a RequestFilter reads.
func (e *JournalEntry) matchable() *httpapi.JournalEntry {
	return &httpapi.JournalEntry{Seq: e.Seq, Method: e.Method, Path: e.Path, Status: e.Status, BusinessID: e.BusinessID}
}

func journalEntry(e *httpapi.JournalEntry) JournalEntry {
	return JournalEntry{
		Seq: e.Seq, RequestID: e.RequestID, Method: e.Method, Path: e.Path, Query: e.Query, Status: e.Status,
		KeyPrefix: e.KeyPrefix, BusinessID: e.BusinessID, Time: e.Time, DurationMS: e.DurationMS,
		Replayed: e.Replayed, Fault: e.Fault, FaultID: e.FaultID,
		Request: JournalMessage(e.Request), Response: JournalMessage(e.Response),
	}
}

// BodyIsJSON reports whether the message's body is shown as JSON: its
// Content-Type is JSON, and the body is whole (within JournalBodyCap) and
// parses.
func (m *JournalMessage) BodyIsJSON() bool { return (*httpapi.JournalMessage)(m).BodyIsJSON() }

// MarshalJSON encodes the message as GET /_mock/requests shows it: body is
// the decoded JSON value when BodyIsJSON, else the text as a string.
func (m JournalMessage) MarshalJSON() ([]byte, error) { return httpapi.JournalMessage(m).MarshalJSON() }

// UnmarshalJSON decodes a message as GET /_mock/requests shows it: a body
// that is a JSON value other than a string is kept as its (compact) text.
func (m *JournalMessage) UnmarshalJSON(b []byte) error {
	return (*httpapi.JournalMessage)(m).UnmarshalJSON(b)
}

func journalEntries(es []httpapi.JournalEntry) []JournalEntry {
	return convertSlice(es, func(e httpapi.JournalEntry) JournalEntry { return journalEntry(&e) })
}

// requestMatch adapts a match function of Requests to the journal's
// entries.
func requestMatch(match func(*JournalEntry) bool) func(*httpapi.JournalEntry) bool {
	if match == nil {
		return nil
	}
	return func(e *httpapi.JournalEntry) bool {
		v := journalEntry(e)
		return match(&v)
	}
}

func (f RequestFilter) internal() httpapi.RequestFilter { return httpapi.RequestFilter(f) }

func (f Fixtures) internal() fixtures.Fixtures {
	return fixtures.Fixtures{Accounts: convertSlice(f.Accounts, FixtureAccount.internal)}
}

func (a FixtureAccount) internal() fixtures.FixtureAccount {
	return fixtures.FixtureAccount{
		BusinessName: a.BusinessName, Email: a.Email, Scopes: val.Strings[string](a.Scopes),
		Leads: leadFixtures(a.Leads), Calls: callFixtures(a.Calls),
	}
}

func leadFixtures(ls []LeadFixture) []fixtures.LeadFixture {
	return convertSlice(ls, func(l LeadFixture) fixtures.LeadFixture { return fixtures.LeadFixture(l) })
}

func callFixtures(cs []CallFixture) []fixtures.CallFixture {
	return convertSlice(cs, func(c CallFixture) fixtures.CallFixture { return fixtures.CallFixture(c) })
}

func (in InboundCall) internal() telephony.InboundCall {
	return telephony.InboundCall{
		To: in.To, From: in.From, Caller: telephony.Caller(in.Caller), Answered: in.Answered,
		Voicemail: in.Voicemail, Duration: in.Duration,
	}
}

func (o AccountOptions) internal() identity.AccountOptions {
	return identity.AccountOptions{
		BusinessName: o.BusinessName, Email: o.Email, Scopes: val.Strings[string](o.Scopes),
		Operator: o.Operator, Partner: o.Partner,
	}
}

func tenant(t httpapi.TenantView) Tenant { return Tenant(t) }

func outboxMessage(m identity.OutboxMessage) OutboxMessage { return OutboxMessage(m) }

func promptAuditEntry(e telephony.PromptAuditEntry) PromptAuditEntry { return PromptAuditEntry(e) }
