package mockserver

import (
	"context"
	"sync"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/watch"
)

// JournalEntry is one API request as the journal (GET /_mock/requests)
// keeps it.
type JournalEntry struct {
	Seq        int64     `json:"seq"`
	RequestID  string    `json:"request_id"`
	Method     string    `json:"method"`
	Path       string    `json:"path"`
	Query      string    `json:"query,omitempty"`
	Status     int       `json:"status"`
	KeyPrefix  string    `json:"key_prefix,omitempty"`
	Time       time.Time `json:"time"`
	DurationMS float64   `json:"duration_ms"`
	Replayed   bool      `json:"idempotent_replayed,omitempty"`
	Fault      string    `json:"fault,omitempty"`
}

type journalEntry = JournalEntry

// journal is a ring buffer of the last requests (admin routes excluded).
type journal struct {
	mu   sync.Mutex
	buf  []JournalEntry
	next int64 // sequence of the next entry
	n    watch.Notifier
}

func newJournal(size int) *journal {
	return &journal{buf: make([]JournalEntry, max(size, 1))}
}

func (j *journal) add(e JournalEntry) {
	j.mu.Lock()
	e.Seq = j.next
	j.buf[j.next%int64(len(j.buf))] = e
	j.next++
	j.mu.Unlock()
	j.n.Notify()
}

func (j *journal) reset() {
	j.mu.Lock()
	j.buf = make([]JournalEntry, len(j.buf))
	j.next = 0
	j.mu.Unlock()
	j.n.Notify()
}

// list returns the kept entries, oldest first, that match.
func (j *journal) list(match func(*JournalEntry) bool) []JournalEntry {
	j.mu.Lock()
	defer j.mu.Unlock()
	first := max(j.next-int64(len(j.buf)), 0)
	out := []JournalEntry{}
	for seq := first; seq < j.next; seq++ {
		e := &j.buf[seq%int64(len(j.buf))]
		if match == nil || match(e) {
			out = append(out, *e)
		}
	}
	return out
}

// Requests returns the journaled requests, oldest first, for which match
// (nil: all) reports true.
func (s *Server) Requests(match func(*JournalEntry) bool) []JournalEntry {
	return s.journal.list(match)
}

// WaitRequests waits until at least one journaled request matches, or ctx
// ends, and returns the matching ones.
func (s *Server) WaitRequests(ctx context.Context, match func(*JournalEntry) bool) []JournalEntry {
	var out []JournalEntry
	s.journal.n.Wait(ctx, func() bool {
		out = s.journal.list(match)
		return len(out) > 0
	})
	return out
}
