package httpapi

import (
	"context"
	"sync"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/watch"
)

// JournalEntry is one API request as the journal (GET /_mock/requests)
// keeps it.
type JournalEntry struct {
	Seq       int64  `json:"seq"`
	RequestID string `json:"request_id"`
	Method    string `json:"method"`
	Path      string `json:"path"`
	Query     string `json:"query,omitempty"`
	Status    int    `json:"status"`
	KeyPrefix string `json:"key_prefix,omitempty"`
	// BusinessID is the caller's tenant: its account's root business.
	BusinessID string    `json:"business_id,omitempty"`
	Time       time.Time `json:"time"`
	DurationMS float64   `json:"duration_ms"`
	Replayed   bool      `json:"idempotent_replayed,omitempty"`
	Fault      string    `json:"fault,omitempty"`
}

type journalEntry = JournalEntry

// Journal is a ring buffer of the last requests (admin routes excluded).
type Journal struct {
	Mu   sync.Mutex
	Buf  []JournalEntry
	next int64 // sequence of the next entry
	n    watch.Notifier
}

// newJournal returns a journal keeping the last size requests.
func newJournal(size int) *Journal {
	return &Journal{Buf: make([]JournalEntry, max(size, 1))}
}

func (j *Journal) add(e JournalEntry) {
	j.Mu.Lock()
	e.Seq = j.next
	j.Buf[j.next%int64(len(j.Buf))] = e
	j.next++
	j.Mu.Unlock()
	j.n.Notify()
}

// Reset empties the journal.
func (j *Journal) Reset() {
	j.Mu.Lock()
	j.Buf = make([]JournalEntry, len(j.Buf))
	j.next = 0
	j.Mu.Unlock()
	j.n.Notify()
}

// List returns the kept entries, oldest first, that match.
func (j *Journal) List(match func(*JournalEntry) bool) []JournalEntry {
	j.Mu.Lock()
	defer j.Mu.Unlock()
	first := max(j.next-int64(len(j.Buf)), 0)
	out := []JournalEntry{}
	for seq := first; seq < j.next; seq++ {
		e := &j.Buf[seq%int64(len(j.Buf))]
		if match == nil || match(e) {
			out = append(out, *e)
		}
	}
	return out
}

// Requests returns the journaled requests, oldest first, for which match
// (nil: all) reports true.
func (s *API) Requests(match func(*JournalEntry) bool) []JournalEntry {
	return s.Journal.List(match)
}

// WaitRequests waits until at least one journaled request matches, or ctx
// ends, and returns the matching ones.
func (s *API) WaitRequests(ctx context.Context, match func(*JournalEntry) bool) []JournalEntry {
	var out []JournalEntry
	s.Journal.n.Wait(ctx, func() bool {
		out = s.Journal.List(match)
		return len(out) > 0
	})
	return out
}
