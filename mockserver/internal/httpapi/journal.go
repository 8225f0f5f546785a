package httpapi

import (
	"context"
	"crypto/sha256"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
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

// journalRecord is an entry as the journal keeps it until it is read: its
// headers, redacted, and its bodies, redacted and capped, as texts in the
// journal's body ring rather than as maps and strings of their own, which
// would cost every request more than the rest of its entry. The first
// read makes the maps and the strings (Journal.entry).
type journalRecord struct {
	JournalEntry
	// texts are, until the entry's maps and strings are made, the texts
	// in the ring: the headers of the request and of the answer (besides
	// Content-Type and X-Request-Id, which entry adds) as one header text
	// (appendHeaderText: reqPairs pairs the request's, then respPairs
	// the answer's), then the request's body and the answer's.
	texts               [3]bodyRef
	reqPairs, respPairs int
	made                bool // the entry's maps and strings are made
}

// The texts of a journalRecord.
const (
	headerText = iota
	requestText
	responseText
)

// journalTexts are the texts newJournalRecord makes for Journal.add to
// copy into the ring, and the pooled buffer the header text is in.
type journalTexts struct {
	texts  [3][]byte
	pooled *[]byte
}

// release hands the header text's buffer back, once add has copied it.
func (t journalTexts) release() { jsonview.ReleaseBuffer(t.pooled) }

// newJournalRecord is e, a request r (with body) and its answer, as the
// journal keeps them: secrets redacted, bodies capped. It returns the
// texts for Journal.add to copy (the answer's may be in its pooled
// buffer, so add must come before the answer is freed), to be released
// after.
func newJournalRecord(e JournalEntry, r *http.Request, body []byte, resp *Response) (rec journalRecord, t journalTexts) {
	rec = journalRecord{JournalEntry: e}
	t.pooled = jsonview.Buffer()
	t.texts[headerText], rec.reqPairs = appendHeaderText((*t.pooled)[:0], r.Header)
	t.texts[headerText], rec.respPairs = appendHeaderText(t.texts[headerText], resp.Header)
	*t.pooled = t.texts[headerText][:0] // the buffer as it grew
	rec.Request = JournalMessage{BodyBytes: len(body)}
	t.texts[requestText], rec.Request.Truncated = journalText(body, false)
	rec.Response = JournalMessage{BodyBytes: len(resp.Body)}
	switch {
	case resp.shared && resp.plain:
		// Bytes nobody changes: kept as they are, not copied.
		t.texts[responseText], rec.Response.Truncated = journalText(resp.Body, true)
		rec.texts[responseText], t.texts[responseText] = bodyRef{b: t.texts[responseText], kept: true}, nil
	case resp.shared:
		t.texts[responseText], rec.Response.Truncated = sharedRedactions.text(resp.Body)
	default:
		t.texts[responseText], rec.Response.Truncated = journalText(resp.Body, resp.plain)
	}
	return rec, t
}

// sharedRedactionMemo remembers the journal texts of the last shared
// answers that were not plain (a kept page of webhook subscriptions), by
// the memory of their bytes: a shared answer never changes, and the memo
// keeps the bytes it names, so no other answer comes to live there. An
// answer read again is journaled without hashing it (redactionMemo's
// cost: about 1 µs a KiB).
type sharedRedactionMemo struct{ memo[sharedAnswer, sharedText] }

// sharedAnswer names a shared answer by its memory.
type sharedAnswer struct {
	start *byte
	n     int
}

// sharedText is a shared answer's journal text, and the answer, kept so
// that its memory is not reused while the memo names it.
type sharedText struct {
	body, text []byte
	truncated  bool
}

// sharedRedactions is the journal's memo of shared answers.
var sharedRedactions sharedRedactionMemo

// text is journalText(body, false), remembered for body, a shared answer.
func (m *sharedRedactionMemo) text(body []byte) ([]byte, bool) {
	key := sharedAnswer{unsafe.SliceData(body), len(body)}
	if t, ok := m.get(key); ok {
		return t.text, t.truncated
	}
	text, truncated := journalText(body, false)
	m.put(key, sharedText{body: body, text: text, truncated: truncated}, redactionMemoSize)
	return text, truncated
}

// entry returns the record's entry, its maps and strings made (once): the
// answer's headers with those writeResponse adds. The caller holds the
// journal's lock.
func (j *Journal) entry(r *journalRecord) *JournalEntry {
	if !r.made {
		headers := r.texts[headerText].b
		r.Request.Header, headers = headerOfText(headers, r.reqPairs, 0)
		h, _ := headerOfText(headers, r.respPairs, 2)
		if h.Get("Content-Type") == "" {
			h["Content-Type"] = []string{defaultContentType}
		}
		h["X-Request-Id"] = []string{r.RequestID}
		r.Response.Header = h
		r.Request.Body, r.Response.Body = string(r.texts[requestText].b), string(r.texts[responseText].b)
		r.texts, r.made = [3]bodyRef{}, true
	}
	return &r.JournalEntry
}

// bytes is what the record counts against the journal's byte budget: its
// entry's Bytes and, until the entry is made, its texts.
func (r *journalRecord) bytes() int64 {
	n := r.JournalEntry.Bytes()
	for _, t := range r.texts {
		n += int64(len(t.b))
	}
	return n
}

// journalText is the text of a body as the journal keeps it: redacted
// (redactMembersOf, redactValues) unless plain says there is nothing to
// redact, then cut to JournalBodyCap bytes at a character boundary, and
// whether it is not the whole body. Only a window a little longer than
// the cap is searched for secret values, so that a secret cut at the
// boundary is still found whole. The text may share body's memory.
func journalText(body []byte, plain bool) (text []byte, truncated bool) {
	if len(body) == 0 {
		return nil, false
	}
	if plain {
		window := body[:min(len(body), JournalBodyCap+utf8.UTFMax)]
		return capText(window, len(window) < len(body))
	}
	window := body[:min(len(body), JournalBodyCap+256)]
	cut := len(window) < len(body)
	if plainForJournal(window) {
		return capText(window, cut) // nothing to redact: no copy to search
	}
	s := redactions.redacted(window, cut)
	return capText(unsafe.Slice(unsafe.StringData(s), len(s)), cut) // read only
}

// redactionMemo remembers the windows the journal redacted last, by
// SHA-256 (never a window itself: it may hold secrets), with their
// redacted texts, so that an answer holding secrets that a client reads
// again and again (a webhook subscription list, the OpenAPI document) is
// redacted once rather than on every read: redacting a 16 KiB window
// member by member costs about 200 µs, hashing it about 10.
type redactionMemo struct{ memo[redactionKey, string] }

// redactionKey is a window's hash and whether it was cut.
type redactionKey struct {
	sum [sha256.Size]byte
	cut bool
}

// redactionMemoSize is how many redactions the memo keeps.
const redactionMemoSize = 8

// redactions is the journal's memo: a pure function's, shared by the
// servers of a process.
var redactions redactionMemo

// redacted is redactValues(redactMembersOf(window, cut)), remembered.
func (m *redactionMemo) redacted(window []byte, cut bool) string {
	key := redactionKey{sha256.Sum256(window), cut}
	if text, ok := m.get(key); ok {
		return text
	}
	text := redactValues(string(redactMembersOf(window, cut)))
	m.put(key, text, redactionMemoSize)
	return text
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
const journalEntryOverhead = int64(unsafe.Sizeof(JournalEntry{}))

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

// Journal is a ring buffer of the last requests (admin routes excluded),
// bounded both in entries and in bytes (JournalEntry.Bytes): adding an
// entry drops the oldest ones until both bounds hold again. The newest
// entry is always kept.
type Journal struct {
	Mu sync.Mutex
	// log keeps the entries, numbered by their Seq from 1, within the
	// journal's bounds; an entry's cost counts its texts.
	log *ring.Log[journalRecord]
	// bodies holds the texts (headers and bodies) of the entries not
	// yet read.
	bodies   bodyRing
	maxBytes int64
	n        watch.Notifier
}

// newJournal returns a journal keeping the last size requests within
// maxBytes (DefaultJournalBytes when maxBytes <= 0).
func newJournal(size int, maxBytes int64) *Journal {
	if maxBytes <= 0 {
		maxBytes = DefaultJournalBytes
	}
	return &Journal{log: ring.New[journalRecord](size, maxBytes, 1, nil), bodies: newBodyRing(maxBytes), maxBytes: maxBytes}
}

// add keeps a record, copying its texts (newJournalRecord) into the ring,
// and releases them.
func (j *Journal) add(e journalRecord, t journalTexts) {
	j.keep(e, &t.texts)
	t.release()
	j.n.Notify()
}

// keep is add under the journal's lock: it drops the oldest entries the
// bounds (and the body ring) call for, then stores e.
func (j *Journal) keep(e journalRecord, texts *[3][]byte) {
	cost := e.bytes()
	for _, t := range texts {
		cost += int64(len(t))
	}
	j.Mu.Lock()
	defer j.Mu.Unlock()
	// The ring's chunk about to be written again holds the texts of
	// entries up to reused: they go first, whatever the bounds.
	var reused int64
	for i, t := range texts {
		if len(t) > 0 {
			var r int64
			e.texts[i], r = j.bodies.put(t, j.log.Next(), j.log.First())
			reused = max(reused, r)
		}
	}
	j.log.DropThrough(reused)
	for i, t := range texts {
		j.bodies.write(e.texts[i], t)
	}
	e.Seq = j.log.Next()
	j.log.Push(e, cost)
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
	j.bodies = newBodyRing(j.maxBytes)
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

// newJournalEntry is request r (answered by route rt, nil when none
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
