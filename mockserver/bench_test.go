package mockserver

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"testing"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// BenchmarkUsagePage reads a page of 100 usage entries (a leads-like list:
// per-owner records, newest first, cursor pagination) from a user's log of
// 10,000 and of 1,000,000 entries, three ways: the store's page read alone,
// the newest page through the whole HTTP pipeline (routing, auth, scopes,
// handler, JSON, journal, usage log; in-process, no sockets), and a page
// from the middle of the log by cursor. The cost per page must not grow
// with the log.
func BenchmarkUsagePage(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		s := New(WithRateLimits(false), WithStartTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)))
		acct, err := s.NewAccount(AccountOptions{Scopes: []voiceagent.Scope{"billing:read"}})
		if err != nil {
			b.Fatal(err)
		}
		mid := fillUsage(s, acct.UserID, n)
		auth := "Bearer " + acct.APIKey
		owner := acct.UserID

		b.Run(strconv.Itoa(n)+"/store", func(b *testing.B) {
			pq := httpapi.PageQuery{Limit: 100}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				page := s.httpapi.Usage.Page(owner, pq, nil)
				if len(page.Usage) != 100 || !page.HasMore {
					b.Fatalf("%d entries, more %t", len(page.Usage), page.HasMore)
				}
			}
		})
		for name, query := range map[string]string{
			"http":        "limit=100",
			"http-cursor": "limit=100&after=" + url.QueryEscape(mid.Format(time.RFC3339Nano)),
		} {
			b.Run(strconv.Itoa(n)+"/"+name, func(b *testing.B) {
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					req := httptest.NewRequest(http.MethodGet, "/api/v1/usage?"+query, nil)
					req.Header.Set("Authorization", auth)
					w := httptest.NewRecorder()
					s.ServeHTTP(w, req)
					if w.Code != http.StatusOK {
						b.Fatal(w.Code, w.Body.String())
					}
				}
			})
		}
		s.Close()
	}
}

// fillUsage gives a user's usage log n entries, one a second, and returns
// the created_at of the middle one.
func fillUsage(s *Server, owner string, n int) time.Time {
	at := s.Now().Add(-time.Duration(n) * time.Second)
	var mid time.Time
	s.httpapi.Usage.Update(func(t *store.Table[*store.UsageEntry]) {
		for i := range n {
			e := &store.UsageEntry{Endpoint: "/v1/leads", Method: http.MethodGet, StatusCode: http.StatusOK}
			e.ID = "u" + strconv.Itoa(i)
			e.Owner = owner
			e.CreatedAt = t.Stamp(owner, at.Add(time.Duration(i)*time.Second))
			t.Put(e)
			if i == n/2 {
				mid = e.CreatedAt
			}
		}
	})
	return mid
}

// BenchmarkStartWithAccount is what a server per test costs: a server on
// a loopback port, one account, and closing both (the figure the README
// quotes).
func BenchmarkStartWithAccount(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		srv := New()
		hs := httptest.NewServer(srv)
		if _, err := srv.NewAccount(AccountOptions{}); err != nil {
			b.Fatal(err)
		}
		hs.Close()
		srv.Close()
	}
}
