package mockserver

import (
	"fmt"
	"net/http"
	"testing"
	"time"
)

// bigBusiness is a server with one business holding n leads and n calls
// spread over the last 60 days, seeded through SeedLeads and SeedCalls.
func bigBusiness(b *testing.B, n int) (*Server, *Account) {
	b.Helper()
	s := New(WithStartTime(afternoonET), WithRateLimits(false))
	b.Cleanup(s.Close)
	acct, err := s.NewAccount(AccountOptions{})
	if err != nil {
		b.Fatal(err)
	}
	statuses := []string{"new", "contacted", "qualified", "converted", "lost", "unqualified", "spam", "do_not_contact"}
	span := 60 * 24 * time.Hour
	leads := make([]LeadFixture, n)
	calls := make([]CallFixture, n)
	for i := range n {
		created := afternoonET.Add(-span + span/time.Duration(n)*time.Duration(i))
		phone := fmt.Sprintf("+1555%07d", i)
		leads[i] = LeadFixture{
			Name: "Lead", Phone: phone, Email: fmt.Sprintf("lead%d@example.com", i),
			Status: statuses[i%len(statuses)], CreatedAt: &created,
		}
		if i%7 == 0 {
			leads[i].Source = "trial"
		}
		if i%5 == 0 {
			touched := created.Add(time.Hour)
			leads[i].TouchCount, leads[i].LastTouchAt, leads[i].LastChannel = 1+i%4, &touched, "email"
		}
		calls[i] = CallFixture{To: phone, Duration: 30 + i%300, CreatedAt: &created}
		if i%4 == 0 {
			calls[i] = CallFixture{To: phone, Status: "failed", CreatedAt: &created}
		}
	}
	start := time.Now()
	if _, err := s.SeedLeads(acct.BusinessID, leads); err != nil {
		b.Fatal(err)
	}
	if _, err := s.SeedCalls(acct.BusinessID, calls); err != nil {
		b.Fatal(err)
	}
	b.Logf("seeded %d leads and %d calls in %s", n, n, time.Since(start).Round(time.Millisecond))
	return s, acct
}

// BenchmarkSDRAndAnalytics100k reads the SDR pipeline (every lead
// segmented and scored, the first 100 by score kept) and the analytics
// dashboard of one business with 100,000 leads and 100,000 calls.
func BenchmarkSDRAndAnalytics100k(b *testing.B) {
	s, acct := bigBusiness(b, 100_000)
	biz := acct.BusinessID
	cfg := fmt.Sprintf(`{"businessId": %q, "enabled": true, "auto_call": true, "auto_email": true, "auto_sms": true}`, biz)
	b.Run("config", func(b *testing.B) {
		benchRequest(b, s, acct.APIKey, http.MethodPut, "/api/sdr/config", cfg, http.StatusOK)
	})
	for _, bench := range []struct{ name, method, path, body string }{
		{"pipeline", http.MethodGet, "/api/sdr/pipeline?businessId=" + biz, ""},
		{"pipeline/segment", http.MethodGet, "/api/sdr/pipeline?segment=cold&limit=1000&businessId=" + biz, ""},
		{"report", http.MethodGet, "/api/sdr/report?businessId=" + biz, ""},
		{"dashboard/30d", http.MethodGet, "/api/v1/analytics/dashboard", ""},
		{"dashboard/90d", http.MethodGet, "/api/v1/analytics/dashboard?days=90", ""},
		{"dashboard/7d", http.MethodGet, "/api/v1/analytics/dashboard?days=7", ""},
		{"calls/week", http.MethodGet, "/api/v1/analytics/calls?group_by=week&days=90", ""},
		{"weekly", http.MethodGet, "/api/v1/analytics/weekly", ""},
		{"run/dry", http.MethodPost, "/api/sdr/run", fmt.Sprintf(`{"businessId": %q, "dryRun": true}`, biz)},
	} {
		b.Run(bench.name, func(b *testing.B) {
			benchRequest(b, s, acct.APIKey, bench.method, bench.path, bench.body, http.StatusOK)
		})
	}
}
