package httpapi

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/watch"
)

// JournalBodyCap is how much of each request and response body a journal
// entry keeps: the first 16 KiB (cut at a character boundary), marked
// truncated when the body was longer.
const JournalBodyCap = 16 << 10

// JournalEntry is one API request as the journal (GET /_mock/requests)
// keeps it: what was asked and answered, secrets redacted (see
// docs/mockserver.md, "Request journal").
type JournalEntry struct {
	// Seq numbers the entries from 1, in the order they were journaled.
	Seq       int64  `json:"seq"`
	RequestID string `json:"request_id"`
	Method    string `json:"method"`
	Path      string `json:"path"`
	Query     string `json:"query,omitempty"`
	Status    int    `json:"status"`
	KeyPrefix string `json:"key_prefix,omitempty"`
	// BusinessID is the caller's tenant: the root business of the
	// caller's account (empty for unauthenticated requests).
	BusinessID string    `json:"business_id,omitempty"`
	Time       time.Time `json:"time"`
	DurationMS float64   `json:"duration_ms"`
	Replayed   bool      `json:"idempotent_replayed,omitempty"`
	Fault      string    `json:"fault,omitempty"`
	// Request and Response are the headers and bodies sent and answered.
	Request  JournalMessage `json:"request"`
	Response JournalMessage `json:"response"`
}

// JournalMessage is the headers and body of a journaled request or answer.
type JournalMessage struct {
	Header http.Header `json:"headers"`
	// Body is the body as text, its first JournalBodyCap bytes.
	Body string `json:"body,omitempty"`
	// BodyBytes is the length of the whole body, truncated or not.
	BodyBytes int `json:"body_bytes"`
	// Truncated reports that Body holds only the start of the body.
	Truncated bool `json:"truncated,omitempty"`
}

// journalMessage is a request as the journal keeps it: secrets redacted,
// the body capped.
func journalMessage(h http.Header, body []byte) JournalMessage {
	m := JournalMessage{Header: redactHeaders(h, 0), BodyBytes: len(body)}
	m.Body, m.Truncated = journalBody(body)
	return m
}

// journalAnswer is an answer as the journal keeps it, with the headers
// writeResponse adds.
func journalAnswer(resp *Response, reqID string) JournalMessage {
	h := redactHeaders(resp.Header, 2)
	if h.Get("Content-Type") == "" {
		h["Content-Type"] = []string{"application/json"}
	}
	h["X-Request-Id"] = []string{reqID}
	m := JournalMessage{Header: h, BodyBytes: len(resp.Body)}
	m.Body, m.Truncated = journalBody(resp.Body)
	return m
}

// journalBody is the text of a body as the journal keeps it: redacted (see
// redactBody), then cut to JournalBodyCap bytes at a character boundary.
// Only a window a little longer than the cap is searched for secret
// values, so that a secret cut at the boundary is still found whole.
func journalBody(body []byte) (text string, truncated bool) {
	if len(body) == 0 {
		return "", false
	}
	window := body[:min(len(body), JournalBodyCap+256)]
	cut := len(window) < len(body)
	s := redactValues(string(redactMembersOf(window, cut)))
	if len(s) <= JournalBodyCap {
		return s, cut
	}
	n := JournalBodyCap
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}

// Bytes is about how much memory the entry holds: its strings, headers
// and bodies.
func (e *JournalEntry) Bytes() int {
	n := 200 + len(e.RequestID) + len(e.Method) + len(e.Path) + len(e.Query) + len(e.KeyPrefix) + len(e.BusinessID) + len(e.Fault)
	return n + e.Request.bytes() + e.Response.bytes()
}

func (m *JournalMessage) bytes() int {
	n := len(m.Body)
	for k, vs := range m.Header {
		n += len(k) + 16
		for _, v := range vs {
			n += len(v) + 16
		}
	}
	return n
}

// RequestFilter selects journal entries: the filters of GET
// /_mock/requests. Empty fields match everything.
type RequestFilter struct {
	// Method matches case-insensitively.
	Method string
	// Path is exact, or a prefix when it ends with "*", with or without
	// the /api prefix (as fault rules take it).
	Path string
	// Status is the answer's status code.
	Status int
	// BusinessID is the tenant of the request (JournalEntry.BusinessID).
	BusinessID string
	// After keeps only entries with a larger Seq (0: from the first).
	After int64
}

// Match reports whether an entry passes the filter.
func (f RequestFilter) Match(e *JournalEntry) bool {
	return e.Seq > f.After &&
		(f.Method == "" || strings.EqualFold(e.Method, f.Method)) &&
		(f.Path == "" || pathMatches(apiPath(f.Path), e.Path)) &&
		(f.Status == 0 || e.Status == f.Status) &&
		(f.BusinessID == "" || e.BusinessID == f.BusinessID)
}

// Journal is a ring buffer of the last requests (admin routes excluded).
type Journal struct {
	Mu   sync.Mutex
	Buf  []JournalEntry
	next int64 // sequence of the next entry
	n    watch.Notifier
}

// newJournal returns a journal keeping the last size requests.
func newJournal(size int) *Journal {
	return &Journal{Buf: make([]JournalEntry, max(size, 1)), next: 1}
}

func (j *Journal) add(e JournalEntry) {
	j.Mu.Lock()
	e.Seq = j.next
	j.Buf[j.next%int64(len(j.Buf))] = e
	j.next++
	j.Mu.Unlock()
	j.n.Notify()
}

// Reset empties the journal; sequence numbers start again from 1.
func (j *Journal) Reset() {
	j.Mu.Lock()
	j.Buf = make([]JournalEntry, len(j.Buf))
	j.next = 1
	j.Mu.Unlock()
	j.n.Notify()
}

// Latest returns the Seq of the newest entry (0 when none was journaled).
func (j *Journal) Latest() int64 {
	j.Mu.Lock()
	defer j.Mu.Unlock()
	return j.next - 1
}

// Size returns how many entries the journal keeps at most.
func (j *Journal) Size() int {
	j.Mu.Lock()
	defer j.Mu.Unlock()
	return len(j.Buf)
}

// List returns the kept entries, oldest first, that match.
func (j *Journal) List(match func(*JournalEntry) bool) []JournalEntry {
	out, _ := j.Find(match, -1, false)
	return out
}

// Find returns how many kept entries match and up to limit (negative: no
// limit) of them, oldest first: the first ones when first is set, the
// newest ones otherwise.
func (j *Journal) Find(match func(*JournalEntry) bool, limit int, first bool) ([]JournalEntry, int) {
	j.Mu.Lock()
	defer j.Mu.Unlock()
	oldest := max(j.next-int64(len(j.Buf)), 1)
	count := 0
	var seqs []int64
	for seq := oldest; seq < j.next; seq++ {
		e := &j.Buf[seq%int64(len(j.Buf))]
		if match != nil && !match(e) {
			continue
		}
		count++
		if limit < 0 || !first || len(seqs) < limit {
			seqs = append(seqs, seq)
		}
	}
	if limit >= 0 && len(seqs) > limit {
		seqs = seqs[len(seqs)-limit:]
	}
	out := make([]JournalEntry, len(seqs))
	for i, seq := range seqs {
		out[i] = j.Buf[seq%int64(len(j.Buf))]
	}
	return out, count
}

// Requests returns the journaled requests, oldest first, for which match
// (nil: all) reports true.
func (s *API) Requests(match func(*JournalEntry) bool) []JournalEntry {
	return s.Journal.List(match)
}

// WaitRequests waits until at least one journaled request matches, or ctx
// ends, and returns the matching ones. Requests already journaled count:
// to wait for new ones only, match with RequestFilter{After: seq}, seq
// being the Seq of the last entry seen (or LatestRequest before the
// requests are made).
func (s *API) WaitRequests(ctx context.Context, match func(*JournalEntry) bool) []JournalEntry {
	s.Journal.n.Wait(ctx, func() bool {
		_, n := s.Journal.Find(match, 0, true)
		return n > 0
	})
	return s.Journal.List(match)
}
