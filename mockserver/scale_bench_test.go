package mockserver

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
)

// scaleStatuses are the lead statuses the scale fixture cycles through,
// so a status filter keeps one lead in five.
var scaleStatuses = []string{store.LeadNew, store.LeadContacted, store.LeadQualified, store.LeadConverted, store.LeadLost}

// scaleServer is a server with one tenant holding n leads and n finished
// calls (two agents, one call in two each; one call in four unanswered,
// all of them the second agent's), put straight into the store
// as inbound calls would leave them. It reports the heap each lead and
// each call takes (runtime.MemStats, after a collection, over the whole
// insertion: records, id and owner indexes, phone and email lookups).
func scaleServer(b *testing.B, n int) (s *Server, acct *Account, agents [2]string, perLead, perCall float64) {
	b.Helper()
	s = New(WithStartTime(afternoonET), WithRateLimits(false))
	b.Cleanup(s.Close)
	acct, err := s.NewAccount(AccountOptions{})
	if err != nil {
		b.Fatal(err)
	}
	agents = [2]string{acct.AgentID, acct.AgentID}
	tx := s.platform.WriteTx()
	defer tx.End()
	second := &store.Agent{Name: "Second agent", Status: "active"}
	tx.Agents.Insert(second, acct.BusinessID, afternoonET)
	agents[1] = second.ID
	start := afternoonET.Add(-time.Duration(n) * time.Second)

	heap := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := heap()
	for i := range n {
		at := start.Add(time.Duration(i) * time.Second)
		name := fmt.Sprintf("Caller Number%d", i)
		l := &store.Lead{
			Name: val.Strp(name), FirstName: val.Strp("Caller"), LastName: val.Strp(fmt.Sprintf("Number%d", i)),
			Email: val.Strp(fmt.Sprintf("caller%d@example.com", i)), Phone: val.Strp(fmt.Sprintf("+1555%07d", i)),
			Status: scaleStatuses[i%len(scaleStatuses)], Source: val.Strp(telephony.SourceInboundCall), AgentID: agents[i%2],
			Message: val.Strp("Hi, I would like a quote for a new water heater."), Intent: val.Strp(telephony.IntentQuote),
			Interactions: 1, Score: 60,
		}
		tx.Leads.Insert(l, acct.BusinessID, at)
		l.UpdatedAt, l.LastContactAt = l.CreatedAt, &l.CreatedAt
	}
	mid := heap()
	for i := range n {
		at := start.Add(time.Duration(i) * time.Second)
		c := &store.Call{
			ConversationID: "conv_" + s.platform.IDs.Token(12), Status: store.CallCompleted, Direction: store.DirectionInbound,
			AgentID: agents[i%2], AgentName: "Agent", To: acct.PhoneNumber, From: fmt.Sprintf("+1555%07d", i),
			Duration: 60 + i%240, Summary: "The caller asked for a quote; the agent took their details.",
			Transcript: "Agent: Hello! How can I help you today?\nCaller: I would like a quote.\nAgent: Sure, may I have your name?",
			Quality:    &store.QualityDimensions{Professionalism: 8, Empathy: 7, InformationGathering: 9, Resolution: 8},
		}
		if i%4 == 3 {
			c.Status = store.CallNoAnswer // half of the second agent's calls
		}
		tx.Calls.Insert(c, acct.BusinessID, at)
		c.UpdatedAt = c.CreatedAt
		c.Recorded = true
	}
	after := heap()
	return s, acct, agents, float64(mid-before) / float64(n), float64(after-mid) / float64(n)
}

// BenchmarkScale reads filtered pages of 100 (leads by status, calls by
// status and agent, from the newest and from the middle by cursor) from a
// tenant of 10,000 and of 1,000,000 leads and calls: the cost per page
// must stay the same (target: the 1,000,000 read within 2x of the 10,000
// one). Filters are applied while walking the owner's records newest
// first, so a page costs O(log n + limit/selectivity): the filters here
// keep one record in five (leads) and one in four (calls). The memory a stored lead and a stored call take is reported as
// B/lead and B/call (target: under 1 KiB a lead). Run it on purpose (it
// builds a 1,000,000-record store):
//
//	go test ./mockserver -run '^$' -bench BenchmarkScale -benchtime 2000x
func BenchmarkScale(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		var (
			s       *Server
			acct    *Account
			agents  [2]string
			perLead float64
			perCall float64
			mid     string
		)
		setup := func(b *testing.B) {
			if s == nil {
				s, acct, agents, perLead, perCall = scaleServer(b, n)
				tx := s.platform.ReadTx()
				l := tx.Leads.Owned(acct.BusinessID)
				mid = url.QueryEscape(l[len(l)/2].CreatedAt.Format(time.RFC3339Nano))
				tx.End()
			}
		}
		b.Run(fmt.Sprintf("%d/memory", n), func(b *testing.B) {
			setup(b)
			for range b.N {
			}
			b.ReportMetric(perLead, "B/lead")
			b.ReportMetric(perCall, "B/call")
		})
		for _, q := range []struct{ name, path string }{
			{"leads?status=qualified", "/api/v1/leads?limit=100&status=qualified"},
			{"leads?status=qualified&after=mid", "/api/v1/leads?limit=100&status=qualified&after={mid}"},
			{"calls?status=completed&agent_id", "/api/v1/calls?limit=100&status=completed&agent_id={agent}"},
			{"calls?agent_id&after=mid", "/api/v1/calls?limit=100&agent_id={agent}&after={mid}"},
		} {
			b.Run(fmt.Sprintf("%d/%s", n, q.name), func(b *testing.B) {
				setup(b)
				path := q.path
				for k, v := range map[string]string{"{mid}": mid, "{agent}": agents[1]} {
					path = strings.ReplaceAll(path, k, v)
				}
				auth := "Bearer " + acct.APIKey
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					req := httptest.NewRequest(http.MethodGet, path, nil)
					req.Header.Set("Authorization", auth)
					w := httptest.NewRecorder()
					s.ServeHTTP(w, req)
					if w.Code != http.StatusOK {
						b.Fatal(w.Code, w.Body.String())
					}
				}
			})
		}
	}
}
