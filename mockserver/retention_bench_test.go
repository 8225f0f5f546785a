package mockserver

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/voiceagent/voiceagent-go/webhooks"
)

// recordBytes creates n records with make (the i-th by make(i)) on a
// server whose own logs (journal, usage log, event log, outbox) are kept at
// one entry unless opts say otherwise, and returns the live heap each
// record added (after a collection): the record, its indexes and what its
// creation keeps besides the logs (timers on the clock).
func recordBytes(b *testing.B, n int, opts []Option, make func(s *Server, acct *Account, i int)) float64 {
	b.Helper()
	opts = append([]Option{WithStartTime(afternoonET), WithRateLimits(false), WithJournalSize(1), WithUsageLogSize(1, 1),
		WithEventLogSize(1, 1), WithOutboxSize(1)}, opts...)
	s := New(opts...)
	b.Cleanup(s.Close)
	acct, err := s.NewAccount(AccountOptions{})
	if err != nil {
		b.Fatal(err)
	}
	make(s, acct, -1) // warm: first-use allocations are not a record's
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	for i := range n {
		make(s, acct, i)
	}
	return float64(int64(heap())-int64(before)) / float64(n)
}

// serve sends one request, with header (name, value pairs) besides its
// key, through the pipeline and fails unless it responses want.
func serve(b *testing.B, s *Server, key, method, path, body string, want int, header ...string) {
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, req)
	if w.Code != want {
		b.Fatalf("%s %s: %d %s", method, path, w.Code, w.Body)
	}
}

// BenchmarkRecordBytes reports the live heap that each record users create
// takes, made as users make them (see docs/architecture.md): a call placed with POST /v1/calls (with its
// pending progress on the clock), a text sent with POST /v1/sms/send, an
// inbound text from a new number (a lead and the message), a lead alone
// (as a fixture: name, phone, email, source and notes), and an event
// (the event log is bounded: at most 32 MiB). The server's own logs are
// kept at their smallest so that only records count. Run it on purpose:
//
//	go test ./mockserver -run '^$' -bench BenchmarkRecordBytes -benchtime 1x
func BenchmarkRecordBytes(b *testing.B) {
	const n = 5000
	for _, tc := range []struct {
		name string
		opts []Option
		make func(s *Server, acct *Account, i int)
	}{
		{"call", nil, func(s *Server, acct *Account, i int) {
			serve(b, s, acct.APIKey, http.MethodPost, "/api/v1/calls",
				fmt.Sprintf(`{"agent_id":%q,"to":"+1555%07d","name":"Caller %d"}`, acct.AgentID, i+1, i), http.StatusCreated)
		}},
		{"text", nil, func(s *Server, acct *Account, i int) {
			if i < 0 {
				if err := s.SetConsent(acct.BusinessID, "+15551230001", ConsentOptedIn); err != nil {
					b.Fatal(err)
				}
			}
			serve(b, s, acct.APIKey, http.MethodPost, "/api/v1/sms/send",
				fmt.Sprintf(`{"from_agent_id":%q,"to":"+15551230001","message":"Your appointment %d is confirmed."}`, acct.AgentID, i), http.StatusOK)
		}},
		{"inbound-text-lead", nil, func(s *Server, acct *Account, i int) {
			if _, err := s.InboundSMS(InboundSMS{To: acct.PhoneNumber, From: fmt.Sprintf("+1555%07d", i+1), Body: "Hi, I would like a quote"}); err != nil {
				b.Fatal(err)
			}
		}},
		{"lead", nil, func(s *Server, acct *Account, i int) {
			if _, err := s.SeedLeads(acct.BusinessID, []LeadFixture{{
				Name: fmt.Sprintf("Caller %d", i), Phone: fmt.Sprintf("+1555%07d", i+1),
				Email: fmt.Sprintf("caller%d@example.com", i+1), Source: "inbound_call", Notes: "Wants a quote for a kitchen remodel",
			}}); err != nil {
				b.Fatal(err)
			}
		}},
		{"event", []Option{WithEventLogSize(10_000, 10_000)}, func(s *Server, acct *Account, i int) {
			if _, err := s.EmitEvent(acct.BusinessID, "lead.created", map[string]any{"id": fmt.Sprintf("lead-%d", i), "status": "new"}); err != nil {
				b.Fatal(err)
			}
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			per := recordBytes(b, n, tc.opts, tc.make)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
			}
			b.ReportMetric(per, "B/record")
		})
	}
}

// BenchmarkTenantLogsAtTheirCaps reports what one tenant's logs hold at
// their default caps (docs/mockserver.md, Limits and retention): a tenant
// drives its event log and its delivery log (a subscription to a loopback
// receiver), its request journal and usage log, and its idempotency records
// past their caps; then a second tenant does the same, and the first once
// more. It reports the live heap each tenant added (MiB/tenant, after a
// collection, the records its requests made included: none but the
// subscription), the bytes its caps count (counted-MiB/tenant), and the
// heap the first tenant's second round added (MiB/refill: its caps hold,
// so about none). Run it on purpose:
//
//	go test ./mockserver -run '^$' -bench BenchmarkTenantLogsAtTheirCaps -benchtime 1x
func BenchmarkTenantLogsAtTheirCaps(b *testing.B) {
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) }))
	b.Cleanup(receiver.Close)
	s := New(WithStartTime(afternoonET), WithRateLimits(false))
	b.Cleanup(s.Close)
	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	const rounds = 12_000 // past every count cap (at most 10,000, or 20,000 events)
	fill := func(acct *Account) {
		for i := range rounds {
			for _, typ := range []webhooks.EventType{webhooks.EventLeadCreated, webhooks.EventLeadScored} {
				if _, err := s.EmitEvent(acct.BusinessID, typ, map[string]any{"id": fmt.Sprintf("lead-%d", i), "name": "Caller", "status": "new", "notes": strings.Repeat("n", 120)}); err != nil {
					b.Fatal(err)
				}
			}
			serve(b, s, acct.APIKey, http.MethodGet, "/api/v1/agents", "", http.StatusOK)
			serve(b, s, acct.APIKey, http.MethodPost, "/api/v1/calls", `{"agent_id":"00000000-0000-4000-8000-000000000000","to":"+15551230077"}`,
				http.StatusNotFound, "Idempotency-Key", fmt.Sprint("call-", i))
		}
		// Every delivery has its attempt before the heap is read.
		for len(s.Deliveries(DeliveryFilter{Tenant: acct.BusinessID, Status: DeliveryPending})) > 0 {
			time.Sleep(50 * time.Millisecond)
		}
	}
	counted := func() float64 {
		u := s.LogUsage()
		return float64(u.JournalBytes+u.IdempotencyBytes+u.EventBytes+u.DeliveryBytes) / (1 << 20)
	}
	newTenant := func() *Account {
		acct, err := s.NewAccount(AccountOptions{})
		if err != nil {
			b.Fatal(err)
		}
		serve(b, s, acct.APIKey, http.MethodPost, "/api/v1/webhooks",
			fmt.Sprintf(`{"business_id":%q,"webhook_url":%q,"events":["lead.created"]}`, acct.BusinessID, receiver.URL), http.StatusCreated)
		return acct
	}
	before := heap()
	first := newTenant()
	fill(first)
	one := heap()
	countedOne := counted()
	fill(newTenant())
	two := heap()
	fill(first)
	again := heap()
	u := s.LogUsage()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
	}
	const mib = 1 << 20
	b.ReportMetric(float64(int64(one)-int64(before))/mib, "MiB/tenant")
	b.ReportMetric(float64(int64(two)-int64(one))/mib, "MiB/2nd-tenant")
	b.ReportMetric(float64(int64(again)-int64(two))/mib, "MiB/refill")
	b.ReportMetric(countedOne, "counted-MiB/tenant")
	b.ReportMetric(float64(u.Events)/2, "events/tenant")
	b.ReportMetric(float64(u.Deliveries)/2, "deliveries/tenant")
	b.ReportMetric(float64(u.JournalEntries)/2, "journal/tenant")
	b.ReportMetric(float64(u.IdempotencyRecords)/2, "idempotency/tenant")
}
