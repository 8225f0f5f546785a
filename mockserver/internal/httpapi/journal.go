package httpapi

import (
	"bytes"
	"context"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/ring"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/watch"
)

// JournalBodyCap is how much of each request and response body a journal
// entry keeps: the first 16 KiB (cut at a character boundary), marked
// truncated when the body was longer.
const JournalBodyCap = 16 << 10

// Journal limits: what the journal keeps by default, and how much of a
// request line it keeps.
const (
	// DefaultJournalBytes is the default byte budget of the journal
	// (WithJournalBytes): 32 MiB of entries, each counted by Bytes.
	DefaultJournalBytes = 32 << 20
	// MaxJournalField is how many bytes of a request's method, path and
	// query the journal (and the -v log line) keeps; the rest is cut
	// and replaced by a marker saying how many bytes were cut.
	MaxJournalField = 2 << 10
)

// JournalEntry is one API request as the journal (GET /_mock/requests)
// keeps it: the request and the response, secrets redacted (see
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
	// Request and Response are the headers and bodies of the request and the response.
	Request  JournalMessage `json:"request"`
	Response JournalMessage `json:"response"`
}

// JournalMessage is the headers and body of a journaled request or response.
type JournalMessage struct {
	Header http.Header `json:"headers"`
	// Body is the body as text, its first JournalBodyCap bytes.
	Body string `json:"body,omitempty"`
	// BodyBytes is the length of the whole body, truncated or not.
	BodyBytes int `json:"body_bytes"`
	// Truncated reports that Body holds only the start of the body.
	Truncated bool `json:"truncated,omitempty"`
}

// journalRecord is an entry as the journal keeps it until it is read: its
// headers, redacted, as one header text, and its bodies, redacted and
// capped. The first read makes the entry's maps and strings
// (Journal.entry).
type journalRecord struct {
	JournalEntry
	// texts are, until the entry's maps and strings are made, the
	// headers of the request and of the response (besides Content-Type
	// and X-Request-Id, which entry adds) as one header text
	// (appendHeaderText: reqPairs pairs the request's, then respPairs
	// the response's), then the request's body and the response's.
	texts               [3][]byte
	reqPairs, respPairs int
	made                bool // the entry's maps and strings are made
}

// The texts of a journalRecord.
const (
	headerText = iota
	requestText
	responseText
)

// newJournalRecord is e, a request r (with body) and its response, as the
// journal keeps them: secrets redacted, bodies capped, in texts of the
// record's own.
func newJournalRecord(e JournalEntry, r *http.Request, body []byte, resp *Response) journalRecord {
	rec := journalRecord{JournalEntry: e}
	rec.texts[headerText], rec.reqPairs = appendHeaderText(nil, r.Header)
	rec.texts[headerText], rec.respPairs = appendHeaderText(rec.texts[headerText], resp.Header)
	rec.Request = JournalMessage{BodyBytes: len(body)}
	rec.texts[requestText], rec.Request.Truncated = journalText(body)
	rec.Response = JournalMessage{BodyBytes: len(resp.Body)}
	rec.texts[responseText], rec.Response.Truncated = journalText(resp.Body)
	return rec
}

// entry returns the record's entry, its maps and strings made (once): the
// response's headers with those writeResponse adds. The caller holds the
// journal's lock.
func (j *Journal) entry(r *journalRecord) *JournalEntry {
	if !r.made {
		headers := r.texts[headerText]
		r.Request.Header, headers = headerOfText(headers, r.reqPairs, 0)
		h, _ := headerOfText(headers, r.respPairs, 2)
		if h.Get("Content-Type") == "" {
			h["Content-Type"] = []string{defaultContentType}
		}
		h["X-Request-Id"] = []string{r.RequestID}
		r.Response.Header = h
		r.Request.Body, r.Response.Body = string(r.texts[requestText]), string(r.texts[responseText])
		r.texts, r.made = [3][]byte{}, true
	}
	return &r.JournalEntry
}

// bytes is what the record counts against the journal's byte budget: its
// entry's Bytes and, until the entry is made, its texts.
func (r *journalRecord) bytes() int64 {
	n := r.JournalEntry.Bytes()
	for _, t := range r.texts {
		n += int64(len(t))
	}
	return n
}

// journalText is the text of a body as the journal keeps it: redacted
// (redactMembersOf, redactValues), then cut to JournalBodyCap bytes at a
// character boundary, and whether it is not the whole body. Only a window
// a little longer than the cap is searched for secret values, so that a
// secret cut at the boundary is still found whole. The text shares no
// memory with body.
func journalText(body []byte) (text []byte, truncated bool) {
	if len(body) == 0 {
		return nil, false
	}
	window := body[:min(len(body), JournalBodyCap+256)]
	cut := len(window) < len(body)
	if plainForJournal(window) {
		text, truncated = capText(window, cut)
		return bytes.Clone(text), truncated
	}
	return capText([]byte(redactValues(string(redactMembersOf(window, cut)))), cut)
}

// capText is text, the (redacted) start of a body, cut to JournalBodyCap
// bytes at a character boundary, and whether it is not the whole body
// (cut: text already is not).
func capText(text []byte, cut bool) ([]byte, bool) {
	if len(text) <= JournalBodyCap {
		return text, cut
	}
	n := JournalBodyCap
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return text[:n], true
}

// journalEntryOverhead is what an entry costs besides the bytes of its
// strings: the struct itself, as the journal's ring stores it.
var journalEntryOverhead = int64(reflect.TypeFor[JournalEntry]().Size())

// Bytes is what the entry counts against the journal's byte budget
// (WithJournalBytes): the struct and every string it keeps, headers and
// bodies included. A field added to the entry adds its length here, so
// that entries of any size are counted by what they hold.
func (e *JournalEntry) Bytes() int64 {
	n := len(e.RequestID) + len(e.Method) + len(e.Path) + len(e.Query) + len(e.KeyPrefix) + len(e.BusinessID) + len(e.Fault)
	return journalEntryOverhead + int64(n+e.Request.bytes()+e.Response.bytes())
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
	// Status is the response's status code.
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

// Journal is a ring buffer of the last requests (admin routes excluded),
// bounded both in entries and in bytes (JournalEntry.Bytes): adding an
// entry drops the oldest ones until both bounds hold again. The newest
// entry is always kept.
type Journal struct {
	Mu sync.Mutex
	// log keeps the entries, numbered by their Seq from 1, within the
	// journal's bounds; an entry's cost counts its texts.
	log *ring.Log[journalRecord]
	n   watch.Notifier
}

// newJournal returns a journal keeping the last size requests within
// maxBytes (DefaultJournalBytes when maxBytes <= 0).
func newJournal(size int, maxBytes int64) *Journal {
	if maxBytes <= 0 {
		maxBytes = DefaultJournalBytes
	}
	return &Journal{log: ring.New[journalRecord](size, maxBytes, 1, nil)}
}

// add keeps a record, dropping the oldest entries the bounds call for.
func (j *Journal) add(e journalRecord) {
	cost := e.bytes()
	j.Mu.Lock()
	e.Seq = j.log.Next()
	j.log.Push(e, cost)
	j.Mu.Unlock()
	j.n.Notify()
}

// Usage returns how many entries the journal keeps and their bytes.
func (j *Journal) Usage() (entries int, bytes int64) {
	j.Mu.Lock()
	defer j.Mu.Unlock()
	return j.log.Len(), j.log.Bytes()
}

// Reset empties the journal; sequence numbers start again from 1.
func (j *Journal) Reset() {
	j.Mu.Lock()
	j.log.Reset(1)
	j.Mu.Unlock()
	j.n.Notify()
}

// Latest returns the Seq of the newest entry (0 when none was journaled).
func (j *Journal) Latest() int64 {
	j.Mu.Lock()
	defer j.Mu.Unlock()
	return j.log.Next() - 1
}

// Size returns how many entries the journal keeps at most.
func (j *Journal) Size() int {
	j.Mu.Lock()
	defer j.Mu.Unlock()
	return j.log.Cap()
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
	count := 0
	var seqs []int64
	j.log.Each(func(seq int64, r *journalRecord) bool {
		if match != nil && !match(j.entry(r)) {
			return true
		}
		count++
		if limit < 0 || !first || len(seqs) < limit {
			seqs = append(seqs, seq)
		}
		return true
	})
	if limit >= 0 && len(seqs) > limit {
		seqs = seqs[len(seqs)-limit:]
	}
	out := make([]JournalEntry, len(seqs))
	for i, seq := range seqs {
		out[i] = *j.entry(j.log.At(seq))
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

// newJournalEntry is request r (served by route rt, nil when none
// matched) as the journal and the log keep it: its method, path and query
// cut to MaxJournalField bytes, secret query values redacted, and no
// string sharing memory with the request (a kept substring would keep the
// whole request line alive).
func newJournalEntry(r *http.Request, rt *Route, reqID string, start time.Time) JournalEntry {
	e := JournalEntry{RequestID: reqID, Time: start.UTC()}
	if rt != nil {
		e.Method, e.Path = rt.Method, rt.Path // the route's own strings
	} else {
		e.Method, e.Path = Truncate(r.Method, MaxJournalField), Truncate(r.URL.Path, MaxJournalField)
	}
	if r.URL.RawQuery != "" {
		e.Query = Truncate(RedactQuery(r.URL.RawQuery), MaxJournalField)
	}
	return e
}

// Truncate returns s in a string of its own (sharing no memory with s),
// cut to at most limit bytes at a UTF-8 boundary and followed by a
// marker saying how many bytes were cut, when s is longer.
func Truncate(s string, limit int) string {
	if len(s) <= limit {
		return strings.Clone(s)
	}
	return string(appendTruncated(nil, s, limit))
}

// appendTruncated appends s to b as Truncate cuts it.
func appendTruncated[S ~string | ~[]byte](b []byte, s S, limit int) []byte {
	if len(s) <= limit {
		return append(b, s...)
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	b = append(append(b, s[:cut]...), "…["...)
	return append(strconv.AppendInt(b, int64(len(s)-cut), 10), " bytes cut]"...)
}

// secretParams are query parameters whose values neither the journal nor
// the log keeps. Names match case-insensitively after percent-decoding,
// as the server reads them: ?%74oken= is ?token=.
var secretParams = []string{"token", "access_token", "api_key", "password", "secret"}

// maxSecretParamLen bounds the names RedactQuery decodes: a longer name is
// none of secretParams, however it is encoded.
const maxSecretParamLen = 64

// RedactQuery is a raw query as the journal and the log keep it: as sent,
// but with the value of every secret parameter (secretParams, matched
// after percent-decoding) replaced by REDACTED. It is the one redaction of
// queries.
func RedactQuery(raw string) string {
	var out []byte // nil until a secret is found
	start := 0
	for i := 0; i <= len(raw); i++ {
		if i < len(raw) && raw[i] != '&' {
			continue
		}
		pair := raw[start:i]
		name, _, hasValue := strings.Cut(pair, "=")
		if hasValue && isSecretParam(name) {
			if out == nil {
				out = append(make([]byte, 0, len(raw)), raw[:start]...)
			}
			out = append(append(out, name...), "=REDACTED"...)
		} else if out != nil {
			out = append(out, pair...)
		}
		if out != nil && i < len(raw) {
			out = append(out, '&')
		}
		start = i + 1
	}
	if out == nil {
		return raw
	}
	return string(out)
}

// isSecretParam reports whether a raw (percent-encoded) query parameter
// name is one of secretParams.
func isSecretParam(name string) bool {
	if len(name) > maxSecretParamLen {
		return false
	}
	if strings.ContainsAny(name, "%+") {
		if dec, err := url.QueryUnescape(name); err == nil {
			name = dec
		}
	}
	for _, s := range secretParams {
		if strings.EqualFold(name, s) {
			return true
		}
	}
	return false
}
