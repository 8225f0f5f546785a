package mockserver

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// snapBenchSeed stores n records in the account's business through
// SeedLeads and SeedCalls: n/2 leads, then n/2 finished inbound calls from
// the leads' numbers (linked to them), one second apart and ending before
// the tenant's time, in batches of 5,000.
func snapBenchSeed(b *testing.B, acct *Account, n int) {
	b.Helper()
	const batch = 5000
	half := n / 2
	start := acct.Now().Add(-time.Duration(2*half+1) * time.Second)
	for lo := 0; lo < half; lo += batch {
		leads := make([]LeadFixture, 0, batch)
		for i := lo; i < min(lo+batch, half); i++ {
			at := start.Add(time.Duration(i) * time.Second)
			leads = append(leads, LeadFixture{
				Name: fmt.Sprintf("Caller Number%d", i), FirstName: "Caller", LastName: fmt.Sprintf("Number%d", i),
				Email: fmt.Sprintf("caller%d@example.com", i), Phone: fmt.Sprintf("+1555%07d", i),
				Status: scaleStatuses[i%len(scaleStatuses)], Source: telephony.SourceInboundCall,
				Intent: telephony.IntentQuote, CreatedAt: &at,
			})
		}
		if _, err := acct.SeedLeads(leads); err != nil {
			b.Fatal(err)
		}
	}
	for lo := 0; lo < half; lo += batch {
		calls := make([]CallFixture, 0, batch)
		for i := lo; i < min(lo+batch, half); i++ {
			at := start.Add(time.Duration(half+i) * time.Second)
			calls = append(calls, CallFixture{
				Direction: "inbound", From: fmt.Sprintf("+1555%07d", i), Duration: 60 + i%240,
				Summary:    "The caller asked for a quote; the agent took their details.",
				Transcript: "Agent: Hello! How can I help you today?\nCaller: I would like a quote.",
				CreatedAt:  &at,
			})
		}
		if _, err := acct.SeedCalls(calls); err != nil {
			b.Fatal(err)
		}
	}
}

// snapBenchServer returns a server (closed when b ends) holding tenants
// accounts, each with perTenant records seeded by snapBenchSeed. It logs
// how long the seeding took.
func snapBenchServer(b *testing.B, tenants, perTenant int) (*Server, []*Account) {
	b.Helper()
	s := New(WithStartTime(afternoonET), WithRateLimits(false))
	b.Cleanup(s.Close)
	began := time.Now()
	accts := make([]*Account, tenants)
	for i := range accts {
		acct, err := s.NewAccount(AccountOptions{})
		if err != nil {
			b.Fatal(err)
		}
		snapBenchSeed(b, acct, perTenant)
		accts[i] = acct
	}
	b.Logf("seeded %d tenants of %d records in %v", tenants, perTenant, time.Since(began).Round(time.Millisecond))
	return s, accts
}

// snapRecords returns how many records a snapshot document holds: the
// records of its tables and its deliveries.
func snapRecords(b *testing.B, snap *Snapshot) int {
	b.Helper()
	var doc struct {
		Tenants []snapSection `json:"tenants"`
		Server  *snapSection  `json:"server"`
	}
	if err := json.Unmarshal(snap.JSON, &doc); err != nil {
		b.Fatal(err)
	}
	if doc.Server != nil {
		doc.Tenants = append(doc.Tenants, *doc.Server)
	}
	n := 0
	for _, sec := range doc.Tenants {
		for _, recs := range sec.Tables {
			n += len(recs)
		}
		n += len(sec.Deliveries)
	}
	return n
}

// snapSection is what snapRecords reads of a section.
type snapSection struct {
	Tables     map[string][]json.RawMessage `json:"tables"`
	Deliveries []json.RawMessage            `json:"deliveries"`
}

// BenchmarkCopy copies a tenant of about 1,000 records (500 leads and 500
// calls, and the account's own): a copy per test must take a few
// milliseconds. The copies stay on the server, as a test suite's do.
//
//	go test ./mockserver -run '^$' -bench BenchmarkCopy -benchtime 200x
func BenchmarkCopy(b *testing.B) {
	_, accts := snapBenchServer(b, 1, 1000)
	acct := accts[0]
	snap, err := acct.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	records := snapRecords(b, snap)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := acct.Copy(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(records), "records")
}

// BenchmarkSnapshot takes the snapshot of a tenant of about 100,000
// records (50,000 leads and 50,000 calls): target a couple of seconds.
//
//	go test ./mockserver -run '^$' -bench BenchmarkSnapshot -benchtime 5x
func BenchmarkSnapshot(b *testing.B) {
	_, accts := snapBenchServer(b, 1, 100_000)
	acct := accts[0]
	var snap *Snapshot
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		var err error
		if snap, err = acct.Snapshot(); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(snapRecords(b, snap)), "records")
	b.ReportMetric(float64(len(snap.JSON))/1e6, "MB/doc")
}

// BenchmarkRestore restores the same snapshot of a tenant of about
// 100,000 records again and again, each restore replacing the tenant:
// target a couple of seconds.
//
//	go test ./mockserver -run '^$' -bench BenchmarkRestore -benchtime 5x
func BenchmarkRestore(b *testing.B) {
	_, accts := snapBenchServer(b, 1, 100_000)
	acct := accts[0]
	snap, err := acct.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	records := snapRecords(b, snap)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := acct.Restore(snap); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(records), "records")
}

// BenchmarkStateFile writes the state file (WriteSnapshotFile) of a whole
// server of about 100,000 records: 10 tenants of 10,000.
//
//	go test ./mockserver -run '^$' -bench BenchmarkStateFile -benchtime 5x
func BenchmarkStateFile(b *testing.B) {
	s, _ := snapBenchServer(b, 10, 10_000)
	path := filepath.Join(b.TempDir(), "state.json")
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := s.WriteSnapshotFile(path); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	snap, err := s.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(snapRecords(b, snap)), "records")
	b.ReportMetric(float64(len(snap.JSON))/1e6, "MB/doc")
}
