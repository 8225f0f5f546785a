package mockserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
)

// benchServer is a server without rate limits and an account on it, with n
// finished calls and n leads seeded straight into the store.
func benchServer(b *testing.B, n int) (*Server, *Account, time.Time) {
	b.Helper()
	s := New(WithStartTime(afternoonET), WithRateLimits(false))
	b.Cleanup(s.Close)
	acct, err := s.NewAccount(AccountOptions{})
	if err != nil {
		b.Fatal(err)
	}
	tx := s.platform.WriteTx()
	defer tx.End()
	var mid time.Time
	for i := range n {
		now := afternoonET.Add(time.Duration(i) * time.Second)
		c := &store.Call{Status: store.CallCompleted, Direction: store.DirectionOutbound, AgentID: acct.AgentID,
			To: fmt.Sprintf("+1555%07d", i), Duration: 60, Transcript: "Agent: hi\nCaller: hi", Summary: "s"}
		tx.Calls.Insert(c, acct.BusinessID, now)
		l := &store.Lead{Status: store.LeadNew, Phone: val.Strp(c.To), AgentID: acct.AgentID}
		tx.Leads.Insert(l, acct.BusinessID, now)
		l.UpdatedAt = l.CreatedAt
		if i == n/2 {
			mid = c.CreatedAt
		}
	}
	return s, acct, mid
}

func benchGet(b *testing.B, s *Server, key, path string) {
	b.Helper()
	benchRequest(b, s, key, http.MethodGet, path, "", http.StatusOK)
}

// benchRequest sends the same request b.N times through the whole pipeline.
func benchRequest(b *testing.B, s *Server, key, method, path, body string, want int) {
	b.Helper()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != want {
			b.Fatal(w.Code, w.Body.String())
		}
	}
}

// BenchmarkListCalls reads a page of 50 calls from the middle of the
// business's history: the cost must not grow with the history.
func BenchmarkListCalls(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s, acct, mid := benchServer(b, n)
			benchGet(b, s, acct.APIKey, "/api/v1/calls?limit=50&after="+url.QueryEscape(mid.Format(time.RFC3339Nano)))
		})
	}
}

// BenchmarkListTranscripts reads a page of 50 transcripts.
func BenchmarkListTranscripts(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s, acct, mid := benchServer(b, n)
			benchGet(b, s, acct.APIKey, "/api/v1/transcripts?limit=50&days=90&after="+url.QueryEscape(mid.Format(time.RFC3339Nano)))
		})
	}
}

// BenchmarkLeadsByPhone filters leads by exact phone through the index.
func BenchmarkLeadsByPhone(b *testing.B) {
	for _, n := range []int{1_000, 100_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			s, acct, _ := benchServer(b, n)
			benchGet(b, s, acct.APIKey, "/api/v1/leads?phone="+url.QueryEscape(fmt.Sprintf("+1555%07d", n/3)))
		})
	}
}

// BenchmarkCreateCall places calls through the whole pipeline.
func BenchmarkCreateCall(b *testing.B) {
	s, acct, _ := benchServer(b, 0)
	body := fmt.Sprintf(`{"agent_id": %q, "to": "+15551230001", "name": "Jane", "context": "bench"}`, acct.AgentID)
	benchRequest(b, s, acct.APIKey, http.MethodPost, "/api/v1/calls", body, http.StatusCreated)
}

// BenchmarkSendSMS sends texts through the compliance checks.
func BenchmarkSendSMS(b *testing.B) {
	s, acct, _ := benchServer(b, 0)
	if err := s.SetConsent(acct.BusinessID, "+15551230001", ConsentOptedIn); err != nil {
		b.Fatal(err)
	}
	body := fmt.Sprintf(`{"from_agent_id": %q, "to": "+15551230001", "message": "Your appointment is confirmed."}`, acct.AgentID)
	benchRequest(b, s, acct.APIKey, http.MethodPost, "/api/v1/sms/send", body, http.StatusOK)
}
