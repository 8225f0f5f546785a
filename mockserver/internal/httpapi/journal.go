package httpapi

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/voiceagent/voiceagent-go/account"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/ring"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/watch"
)

// JournalBodyCap is how much of each body a journal entry keeps
// (admin.JournalBodyCap).
const JournalBodyCap = admin.JournalBodyCap

// MaxJournalField is how many bytes of a request's method, path and query
// the journal (and the -v log line) keeps; the rest is cut and replaced by
// a marker saying how many bytes were cut. What the journal keeps of each
// tenant is bounded by platform.Limits.
const MaxJournalField = 2 << 10

// journalRecord is an entry as the journal keeps it until it is read: its
// headers, redacted, as one header text, and its bodies, redacted and
// capped. The first read makes the entry's maps and strings (entry).
type journalRecord struct {
	admin.JournalEntry
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
func newJournalRecord(e admin.JournalEntry, r *http.Request, body []byte, resp *Response) journalRecord {
	rec := journalRecord{JournalEntry: e}
	rec.texts[headerText], rec.reqPairs = appendHeaderText(nil, r.Header)
	rec.texts[headerText], rec.respPairs = appendHeaderText(rec.texts[headerText], resp.Header)
	rec.Request = admin.JournalMessage{BodyBytes: len(body)}
	rec.texts[requestText], rec.Request.Truncated = journalText(body)
	rec.Response = admin.JournalMessage{BodyBytes: len(resp.Body)}
	rec.texts[responseText], rec.Response.Truncated = journalText(resp.Body)
	return rec
}

// entry returns the record's entry, its maps and strings made (once): the
// response's headers with those writeResponse adds.
func (r *journalRecord) entry() *admin.JournalEntry {
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

// strings: the struct itself, as the journal's ring stores it.

// Journal keeps the last requests (admin routes excluded) of each tenant
// (admin.JournalEntry.BusinessID; requests of no tenant together), numbered in
// the order they came across tenants, each tenant's bounded both in
// entries and in bytes (admin.JournalEntry.Bytes): adding an entry drops the
// oldest of its tenant until both bounds hold again. A tenant's newest
// entry is always kept, and no tenant's requests push out another's. A
// Journal is safe for concurrent use.
type Journal struct {
	mu sync.Mutex
	// log keeps the entries, numbered by their Seq from 1, within the
	// journal's bounds; an entry's cost counts its texts.
	log *ring.Log[journalRecord]
	n   watch.Notifier
}

// newJournal returns a journal keeping the last size requests of each
// tenant within maxBytes.
func newJournal(size int, maxBytes int64) *Journal {
	return &Journal{log: ring.New[journalRecord](size, maxBytes, 1, nil)}
}

// add keeps a record, dropping the oldest entries of its tenant the bounds
// call for.
func (j *Journal) add(e journalRecord) {
	cost := e.bytes()
	j.mu.Lock()
	e.Seq = j.log.Next()
	j.log.Push(e.BusinessID, e, cost)
	j.mu.Unlock()
	j.n.Notify()
}

// Usage returns how many entries the journal keeps and their bytes.
func (j *Journal) Usage() (entries int, bytes int64) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.log.Len(), j.log.Bytes()
}

// Reset empties the journal; sequence numbers start again from 1.
func (j *Journal) Reset() {
	j.mu.Lock()
	j.log.Reset(1)
	j.mu.Unlock()
	j.n.Notify()
}

// RemoveTenant lets go of every entry of tenant (a deleted tenant's).
func (j *Journal) RemoveTenant(tenant string) {
	j.mu.Lock()
	j.log.RemoveBucket(tenant)
	j.mu.Unlock()
}

// Latest returns the Seq of the newest entry (0 when none was journaled).
func (j *Journal) Latest() int64 {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.log.Next() - 1
}

// Size returns how many entries the journal keeps at most of each tenant.
func (j *Journal) Size() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.log.Cap()
}

// List returns the kept entries, oldest first, that match.
func (j *Journal) List(match func(*admin.JournalEntry) bool) []admin.JournalEntry {
	out, _ := j.Find(match, -1, false, 0)
	return out
}

// Find returns how many kept entries match and up to limit (negative: no
// limit) of them, oldest first: the first ones when first is set, the
// newest ones otherwise. With maxBytes > 0 the entries listed count at
// most that many bytes (admin.JournalEntry.Bytes) together, the first entry
// excepted: the list stops before the entry that would pass the bound,
// keeping the first ones or the newest ones as it would have.
func (j *Journal) Find(match func(*admin.JournalEntry) bool, limit int, first bool, maxBytes int64) ([]admin.JournalEntry, int) {
	j.mu.Lock()
	defer j.mu.Unlock()
	count := 0
	var recs []*journalRecord
	j.log.Each(func(_ int64, r *journalRecord) bool {
		if match != nil && !match(r.entry()) {
			return true
		}
		count++
		if limit < 0 || !first || len(recs) < limit {
			recs = append(recs, r)
		}
		return true
	})
	if limit >= 0 && len(recs) > limit {
		recs = recs[len(recs)-limit:]
	}
	if maxBytes > 0 {
		recs = withinBytes(recs, first, maxBytes)
	}
	out := make([]admin.JournalEntry, len(recs))
	for i, r := range recs {
		out[i] = *r.entry()
	}
	return out, count
}

// withinBytes returns the longest run of recs, from their start when first
// is set and from their end otherwise, whose entries count at most
// maxBytes together, and at least one entry.
func withinBytes(recs []*journalRecord, first bool, maxBytes int64) []*journalRecord {
	var total int64
	for n := range recs {
		i := n
		if !first {
			i = len(recs) - 1 - n
		}
		total += recs[i].entry().Bytes()
		if total > maxBytes && n > 0 {
			if first {
				return recs[:n]
			}
			return recs[len(recs)-n:]
		}
	}
	return recs
}

// Requests returns the journaled requests, oldest first, for which match
// (nil: all) reports true.
func (s *API) Requests(match func(*admin.JournalEntry) bool) []admin.JournalEntry {
	return s.Journal.List(match)
}

// WaitRequests waits until at least one journaled request matches, or ctx
// ends, and returns the matching ones. Requests already journaled count:
// to wait for new ones only, match with admin.RequestFilter{After: seq}, seq
// being the Seq of the last entry seen (or LatestRequest before the
// requests are made).
func (s *API) WaitRequests(ctx context.Context, match func(*admin.JournalEntry) bool) []admin.JournalEntry {
	s.Journal.n.Wait(ctx, func() bool {
		_, n := s.Journal.Find(match, 0, true, 0)
		return n > 0
	})
	return s.Journal.List(match)
}

// newJournalEntry is request r (served by route rt, nil when none
// matched) as the journal and the log keep it: its method, path and query
// cut to MaxJournalField bytes, secret query values redacted, and no
// string sharing memory with the request (a kept substring would keep the
// whole request line alive).
func newJournalEntry(r *http.Request, rt *Route, reqID string, start time.Time) admin.JournalEntry {
	e := admin.JournalEntry{RequestID: reqID, Time: start.UTC()}
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

// secretNameParts are what the name of a header or a query parameter
// carrying a credential holds (case-insensitively): X-Api-Key,
// access_token, X-Client-Secret, Authorization, X-Session-Id; "auth" only
// as a word of its own (X-Auth-Token, not author).
var secretNameParts = []string{"key", "token", "secret", "passw", "credential", "session", "authorization", "auth"}

// IsSecretName reports whether a header or query parameter name says that
// its value is a credential, so that neither the journal, the delivery
// log nor the log keeps the value: a name holding key, token, secret,
// passw, credential, session or authorization, or the word auth (between
// '-', '_' or '.'), case-insensitively. Idempotency-Key names a request,
// not a credential, and is kept. It runs on every header of every
// request, so it scans the name once, without allocating.
func IsSecretName(name string) bool {
	if strings.EqualFold(name, "Idempotency-Key") || strings.EqualFold(name, "idempotency_key") {
		return false
	}
	for i := range len(name) {
		c := name[i] | 0x20 // a letter in lower case
		for _, part := range secretNameParts {
			if part[0] != c || len(name)-i < len(part) || !strings.EqualFold(name[i:i+len(part)], part) {
				continue
			}
			if part != "auth" || isWordBoundary(name, i-1) && isWordBoundary(name, i+len(part)) {
				return true
			}
		}
	}
	return false
}

// isWordBoundary reports whether index i of name is outside it or one of
// the separators of a name's words: '-', '_', '.'.
func isWordBoundary(name string, i int) bool {
	return i < 0 || i >= len(name) || name[i] == '-' || name[i] == '_' || name[i] == '.'
}

// maxSecretParamLen bounds the names isSecretParam decodes: a longer name
// is matched as it is sent.
const maxSecretParamLen = 256

// RedactQuery is a raw query as the journal, the delivery log and the log
// keep it: as sent, but with the value of every parameter whose name is
// secret (IsSecretName, after percent-decoding) replaced by REDACTED. It
// is the one redaction of queries.
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

// RedactURL is a URL as the delivery log keeps it: its query redacted as
// RedactQuery redacts it.
func RedactURL(raw string) string {
	base, query, ok := strings.Cut(raw, "?")
	if !ok {
		return raw
	}
	query, fragment, hasFragment := strings.Cut(query, "#")
	out := base + "?" + RedactQuery(query)
	if hasFragment {
		out += "#" + fragment
	}
	return out
}

// isSecretParam reports whether a raw (percent-encoded) query parameter
// name is secret (IsSecretName), matched after percent-decoding as the
// server reads it: ?%74oken= is ?token=.
func isSecretParam(name string) bool {
	if len(name) <= maxSecretParamLen && strings.ContainsAny(name, "%+") {
		if dec, err := url.QueryUnescape(name); err == nil {
			name = dec
		}
	}
	return IsSecretName(name)
}

// What the journal never keeps: the secrets a request or its response may
// carry are replaced before an entry is stored, so neither GET
// /_mock/requests, the dashboard nor a Go test reading the journal sees
// them. The rules are in docs/mockserver.md, section "Request journal".

// redactedValue replaces a secret in a body or a header value.
const redactedValue = "[redacted]"

// secretMembers are JSON members whose values the journal never keeps, at
// any depth of a body: every string and number inside them is replaced
// (object member names are kept, so custom_headers still shows which
// headers were set). The outbox is where tests read OTP codes; the
// journal does not repeat them.
var secretMembers = []string{"custom_headers", "otp_code", "password", "replay_token", "secret", "secrets", "session", "token"}

// maySecretMember reports whether a body may name one of secretMembers: a
// quoted name, or a \u escape (a member name may be written with escapes).
// One pass over the quotes: most bodies have none of the names, and the
// journal checks every body.
func maySecretMember(body []byte) bool {
	if bytes.IndexByte(body, '\\') >= 0 && bytes.Contains(body, []byte(`\u`)) {
		return true
	}
	for {
		i := bytes.IndexByte(body, '"')
		if i < 0 {
			return false
		}
		body = body[i+1:]
		if len(body) == 0 {
			return false
		}
		switch body[0] {
		case 'c', 'o', 'p', 'r', 's', 't':
			for _, m := range secretMembers {
				if len(body) > len(m) && body[len(m)] == '"' && string(body[:len(m)]) == m {
					return true
				}
			}
		}
	}
}

// Secret values recognised wherever they appear, in bodies and header
// values: API keys (their shown prefix is kept) and signing secrets.
// Secret parameters of URLs (the signup's dashboard_magic_link) are found
// by secretParamValues.
var (
	keyValue   = regexp.MustCompile(`voiceagent_live_[0-9A-Za-z]{40}`)
	signingKey = regexp.MustCompile(`whsec_[0-9A-Za-z+/]+=*`)
)

// mayHoldSecretValue reports whether s may hold a value redactValues
// replaces: each has an underscore (keys, signing secrets) or an equals
// sign (URL parameters), which most header values lack.
func mayHoldSecretValue(s string) bool {
	return strings.IndexByte(s, '_') >= 0 || strings.IndexByte(s, '=') >= 0
}

// holdsSecretValue reports whether redactValues would change s.
func holdsSecretValue(s []byte) bool {
	if bytes.IndexByte(s, '_') < 0 && bytes.IndexByte(s, '=') < 0 {
		return false
	}
	if bytes.Contains(s, []byte(KeyPrefix)) && keyValue.Match(s) || bytes.Contains(s, []byte("whsec_")) && signingKey.Match(s) {
		return true
	}
	return holdsSecretParam(s)
}

// holdsSecretParam reports whether s holds a URL parameter whose value
// redactValues replaces (nextSecretParam).
func holdsSecretParam(s []byte) bool { return nextSecretParam(s, 0) >= 0 }

// What ends a URL parameter's value in a text (a body, a header value),
// and what ends its name.
const (
	paramValueEnds = "&\"'\t\n\f\r \\#"
	paramNameEnds  = paramValueEnds + "=?"
)

// nextSecretParam returns the index of the '=' of the first URL parameter
// of s, at from or after, whose name is secret (isSecretParam): a name
// right after '?' or '&', then '=' and a character of a value; -1 when
// there is none. It jumps from equals sign to equals sign.
func nextSecretParam[S string | []byte](s S, from int) int {
	for from < len(s) {
		i := indexByte(s[from:], '=')
		if i < 0 {
			return -1
		}
		i += from
		from = i + 1
		if i+1 >= len(s) || strings.IndexByte(paramValueEnds, s[i+1]) >= 0 {
			continue
		}
		start := i
		for start > 0 && strings.IndexByte(paramNameEnds, s[start-1]) < 0 {
			start--
		}
		if start == i || start == 0 || (s[start-1] != '?' && s[start-1] != '&') {
			continue
		}
		if isSecretParam(string(s[start:i])) {
			return i
		}
	}
	return -1
}

// indexByte is strings.IndexByte or bytes.IndexByte, as s is.
func indexByte[S string | []byte](s S, c byte) int {
	switch v := any(s).(type) {
	case string:
		return strings.IndexByte(v, c)
	case []byte:
		return bytes.IndexByte(v, c)
	}
	return -1
}

// redactParams replaces the value of every URL parameter of s whose name
// is secret (nextSecretParam) by REDACTED.
func redactParams(s string) string {
	i := nextSecretParam(s, 0)
	if i < 0 {
		return s
	}
	var b strings.Builder
	last := 0
	for i >= 0 {
		end := i + 1
		for end < len(s) && strings.IndexByte(paramValueEnds, s[end]) < 0 {
			end++
		}
		b.WriteString(s[last : i+1])
		b.WriteString("REDACTED")
		last = end
		i = nextSecretParam(s, end)
	}
	b.WriteString(s[last:])
	return b.String()
}

// plainForJournal reports whether the journal keeps b as it is: b names
// none of secretMembers and holds none of the values redactValues
// replaces.
func plainForJournal(b []byte) bool {
	return !maySecretMember(b) && !holdsSecretValue(b)
}

// redactValues replaces the secret values that keyValue and signingKey
// recognise in s, and the values of secret URL parameters (redactParams).
func redactValues(s string) string {
	if !mayHoldSecretValue(s) {
		return s
	}
	if strings.Contains(s, KeyPrefix) {
		s = keyValue.ReplaceAllStringFunc(s, func(k string) string { return k[:KeyShownLen] + redactedValue })
	}
	if strings.Contains(s, "whsec_") {
		s = signingKey.ReplaceAllString(s, "whsec_"+redactedValue)
	}
	return redactParams(s)
}

// redactMembersOf is body with the values of secretMembers replaced when
// it may name one. cut says body is the start of a longer body: a JSON
// text that ends early is redacted up to where it ends. A body naming a
// member that is not valid JSON is replaced whole. The secret values
// redactValues finds are left to the caller.
func redactMembersOf(body []byte, cut bool) []byte {
	if !maySecretMember(body) {
		return body
	}
	out, err := redactMembers(body, cut)
	if err != nil {
		return []byte(redactedValue + " (not valid JSON, and may name a secret member)")
	}
	return out
}

// redactMembers rewrites a JSON text with the values of secretMembers
// replaced, keeping the order of members (the text comes out compact).
// With cut, the text may end early: the token it ends in is kept as it is
// unless it is a secret member's.
func redactMembers(body []byte, cut bool) ([]byte, error) {
	type frame struct {
		object, wantKey, secret bool
		n                       int // values (members) written so far
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var out bytes.Buffer
	var stack []frame
	pending := false // the next value is a secret member's
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if !cut || !errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, err
			}
			if !pending && (len(stack) == 0 || !stack[len(stack)-1].secret) {
				out.Write(body[dec.InputOffset():])
			}
			break
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			out.WriteByte(byte(d))
			stack = stack[:len(stack)-1]
			continue
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if top != nil && top.object && top.wantKey {
			name, _ := tok.(string)
			if top.n > 0 {
				out.WriteByte(',')
			}
			top.n++
			writeJSONString(&out, name)
			out.WriteByte(':')
			top.wantKey = false
			pending = top.secret || slices.Contains(secretMembers, name)
			continue
		}
		secret := pending || (top != nil && top.secret)
		pending = false
		if top != nil {
			if top.object {
				top.wantKey = true
			} else {
				if top.n > 0 {
					out.WriteByte(',')
				}
				top.n++
			}
		}
		switch v := tok.(type) {
		case json.Delim:
			out.WriteByte(byte(v))
			stack = append(stack, frame{object: v == '{', wantKey: v == '{', secret: secret})
		case string:
			if secret {
				v = redactedValue
			}
			writeJSONString(&out, v)
		case json.Number:
			if secret {
				writeJSONString(&out, redactedValue)
			} else {
				out.WriteString(v.String())
			}
		case bool:
			if v {
				out.WriteString("true")
			} else {
				out.WriteString("false")
			}
		case nil:
			out.WriteString("null")
		}
	}
	return out.Bytes(), nil
}

// writeJSONString writes s as a JSON string, without escaping HTML
// characters (the journal shows bodies as they were).
func writeJSONString(out *bytes.Buffer, s string) {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	out.Truncate(out.Len() - 1)
}

// appendHeaderText appends to text the name and the value of each value
// of h as the journal keeps them (see appendRedactedValue), each one
// preceded by its length (headerLen), and returns it with the number of
// pairs appended. A name or a redacted value is cut as Truncate cuts it
// at MaxJournalField bytes, and the pairs stop before the text appended
// would pass maxHeaderText bytes. The journal keeps headers as such texts
// (headerOfText reads them back).
func appendHeaderText(text []byte, h http.Header) ([]byte, int) {
	start, pairs := len(text), 0
	for name, vs := range h {
		for _, v := range vs {
			before := len(text)
			text = appendTruncated(binary.LittleEndian.AppendUint32(text, 0), name, MaxJournalField)
			text = endHeaderString(text, before)
			at := len(text)
			text = appendRedactedValue(binary.LittleEndian.AppendUint32(text, 0), name, v)
			if redacted := text[at+headerLen:]; len(redacted) > MaxJournalField {
				// Cut after redacting, so that no secret is cut in two.
				text = appendTruncated(text[:at+headerLen], string(redacted), MaxJournalField)
			}
			text = endHeaderString(text, at)
			if len(text)-start > maxHeaderText {
				return text[:before], pairs
			}
			pairs++
		}
	}
	return text, pairs
}

// maxHeaderText bounds the header text of a request or a response the
// journal keeps (16 KiB).
const maxHeaderText = JournalBodyCap

// endHeaderString writes the length of the string appended to text after
// its length's place at at.
func endHeaderString(text []byte, at int) []byte {
	binary.LittleEndian.PutUint32(text[at:], uint32(len(text)-at-headerLen))
	return text
}

// headerLen is the size of the length before each string of a header
// text.
const headerLen = 4

// headerOfText makes pairs name and value pairs of a header text
// (appendHeaderText) a header, with room for extra more names, and
// returns the rest of the text.
func headerOfText(text []byte, pairs, extra int) (http.Header, []byte) {
	h := make(http.Header, pairs+extra)
	next := func() string {
		n := int(binary.LittleEndian.Uint32(text))
		s := string(text[headerLen : headerLen+n])
		text = text[headerLen+n:]
		return s
	}
	for range pairs {
		name := next()
		h[name] = append(h[name], next())
	}
	return h, text
}

// appendRedactedValue appends a header value as the journal keeps it:
// credentials replaced (Authorization and Proxy-Authorization keep their
// scheme and a key's shown prefix, cookies their names, X-PAYMENT
// nothing, any other header whose name is secret by IsSecretName a key's
// shown prefix at most), and the secret values redactValues finds
// replaced in every other header.
func appendRedactedValue(text []byte, name, v string) []byte {
	switch name {
	case "Authorization", "Proxy-Authorization":
		return appendRedactedCredentials(text, v)
	case "Cookie", "Set-Cookie":
		return append(text, redactCookies(v, name == "Set-Cookie")...)
	case "X-Payment":
		return append(text, redactedValue...)
	}
	if IsSecretName(name) {
		if v = strings.TrimSpace(v); isKeyValue(v) {
			text = append(text, v[:KeyShownLen]...)
		}
		return append(text, redactedValue...)
	}
	return append(text, redactValues(v)...)
}

// appendRedactedCredentials appends an Authorization value with its
// scheme and, for an API key, its shown prefix kept.
func appendRedactedCredentials(text []byte, v string) []byte {
	scheme, cred, ok := strings.Cut(v, " ")
	if !ok {
		return append(text, redactedValue...)
	}
	text = append(append(text, scheme...), ' ')
	if cred = strings.TrimSpace(cred); isKeyValue(cred) {
		text = append(text, cred[:KeyShownLen]...)
	}
	return append(text, redactedValue...)
}

// isKeyValue reports whether s is an API key and nothing else (keyValue
// matching all of s), without a regular expression: it is checked on
// every request's Authorization header.
func isKeyValue(s string) bool {
	if len(s) != len(KeyPrefix)+KeyRandomLen || !strings.HasPrefix(s, KeyPrefix) {
		return false
	}
	for i := len(KeyPrefix); i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// redactCookies keeps the names of a Cookie value, or the name and the
// attributes of a Set-Cookie value, never a cookie's value.
func redactCookies(v string, set bool) string {
	parts := strings.Split(v, ";")
	for i, p := range parts {
		name, _, ok := strings.Cut(p, "=")
		if !ok || (set && i > 0 && isCookieAttribute(name)) {
			continue // Path=/, Expires=..., Max-Age=...: not secrets
		}
		parts[i] = name + "=" + redactedValue
	}
	return strings.Join(parts, ";")
}

// isCookieAttribute reports whether name is an attribute of a Set-Cookie
// value rather than a cookie.
func isCookieAttribute(name string) bool {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "path", "domain", "expires", "max-age", "samesite", "priority":
		return true
	}
	return false
}

// usagePrices is what an authenticated request costs in the usage log, in
// cents: a placed call 10, a sent SMS 1, everything else 0.
var usagePrices = map[usageRoute]int{
	{http.MethodPost, "/v1/calls"}:    10,
	{http.MethodPost, "/v1/sms/send"}: 1,
}

// usageRoute is a method and an endpoint (a route's path without the API
// prefix).
type usageRoute struct{ method, endpoint string }

// UsageLog keeps one entry per authenticated API request, per user: the
// newest perUser entries of each user, and the newest perTenant of each
// tenant (UsageEntry.Tenant, the tenant the request acted in). A UsageLog
// is safe for concurrent use, and has a lock of its own because reads
// (which hold only the store's read lock) write to it.
//
// A request only queues its entry (an append to the queue); the queue goes
// into the table, in the order it was queued, when it is long
// (maxPendingUsage) and before every read, so that requests do not wait on
// each other's table inserts and a read sees every request already served.
type UsageLog struct {
	mu                 sync.RWMutex
	t                  *store.Table[*store.UsageEntry]
	perUser, perTenant int
	queue              usageQueue
}

// usageQueue is the usage log's queue of entries not yet in its table. It
// is safe for concurrent use.
type usageQueue struct {
	mu      sync.Mutex
	entries []pendingUsage
}

// push queues q and reports whether the queue is full (maxPendingUsage).
func (uq *usageQueue) push(q pendingUsage) (full bool) {
	uq.mu.Lock()
	defer uq.mu.Unlock()
	uq.entries = append(uq.entries, q)
	return len(uq.entries) >= maxPendingUsage
}

// take empties the queue and returns what it held, oldest first.
func (uq *usageQueue) take() []pendingUsage {
	uq.mu.Lock()
	defer uq.mu.Unlock()
	queued := uq.entries
	if len(queued) > 0 {
		uq.entries = make([]pendingUsage, 0, len(queued))
	}
	return queued
}

// len returns how many entries are queued.
func (uq *usageQueue) len() int {
	uq.mu.Lock()
	defer uq.mu.Unlock()
	return len(uq.entries)
}

// pendingUsage is a queued entry and its owner; the entry's CreatedAt
// holds the time it was made at until the table stamps it.
type pendingUsage struct {
	e     *store.UsageEntry
	owner string
}

// maxPendingUsage is how many entries wait in the queue at most before the
// request that queues one more moves them all into the table.
const maxPendingUsage = 256

// newUsageLog returns an empty usage log keeping perUser entries per user
// and perTenant per tenant.
func newUsageLog(perUser, perTenant int) *UsageLog {
	u := &UsageLog{perUser: perUser, perTenant: perTenant}
	u.Reset()
	return u
}

// usageTenant is the tenant a usage entry counts for.
func usageTenant(e *store.UsageEntry) string { return e.Tenant }

// Reset empties the log.
func (u *UsageLog) Reset() {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.queue.take()
	u.t = store.NewLogTable[*store.UsageEntry]()
	u.t.SetRetention(store.Retention[*store.UsageEntry]{PerOwner: u.perUser, PerTenant: u.perTenant, Tenant: usageTenant})
}

// RemoveTenant removes every entry of tenant (a deleted tenant's), those
// still queued included.
func (u *UsageLog) RemoveTenant(tenant string) {
	u.Update(func(t *store.Table[*store.UsageEntry]) {
		t.DeleteFunc(func(e *store.UsageEntry) bool { return e.Tenant == tenant })
	})
}

// Record adds an authenticated request and its response to the log, at the
// request's time on its tenant's clock (rc.Now). The entry's id is the
// request's id (its X-Request-Id), so an entry, the request's journal
// entry and the client's error name one request; the entry keeps the
// route's own strings, none of the request's.
func (u *UsageLog) Record(rc *Ctx, resp *Response) {
	p, rt := rc.Principal, rc.Route
	endpoint := strings.TrimPrefix(rt.Path, APIPrefix)
	e := &store.UsageEntry{
		Base:       store.Base{ID: rc.RequestID, CreatedAt: rc.Now},
		Tenant:     p.Tenant,
		Endpoint:   endpoint,
		Method:     rt.Method,
		StatusCode: int16(resp.Status),
	}
	if p.Key != nil {
		e.BusinessID = p.Key.BusinessID
	}
	if resp.Status < 300 && rt.Method != http.MethodGet { // reads cost nothing
		e.CostCents = int32(usagePrices[usageRoute{rt.Method, endpoint}])
		if rt.Method == http.MethodPost && endpoint == "/v1/calls" {
			var created struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(resp.Body, &created) == nil {
				e.CallID = created.ID
			}
		}
	}
	if u.queue.push(pendingUsage{e, p.OwnerID()}) {
		u.Update(func(*store.Table[*store.UsageEntry]) {})
	}
}

// Update calls fn with the table holding every entry queued so far,
// under the log's exclusive lock: fn may add entries of its own (a
// benchmark filling the log).
func (u *UsageLog) Update(fn func(t *store.Table[*store.UsageEntry])) {
	u.mu.Lock()
	defer u.mu.Unlock()
	insertQueued(u.t, u.queue.take())
	fn(u.t)
}

// Flushed calls read with the table holding every entry queued so far,
// under the log's lock: shared with other reads when nothing is queued (a
// request served before this read queued its entry before its response).
func (u *UsageLog) Flushed(read func(t *store.Table[*store.UsageEntry])) {
	if u.queue.len() > 0 {
		u.Update(read)
		return
	}
	u.mu.RLock()
	defer u.mu.RUnlock()
	read(u.t)
}

// insertQueued inserts queued entries into table t, in the order they were
// queued.
func insertQueued(t *store.Table[*store.UsageEntry], queued []pendingUsage) {
	// Each run of entries of one owner (a load test's one user: the whole
	// queue) goes in at once.
	run := make([]*store.UsageEntry, 0, len(queued))
	for i, q := range queued {
		run = append(run, q.e)
		if i+1 == len(queued) || queued[i+1].owner != q.owner {
			t.InsertRun(q.owner, run)
			run = run[:0]
		}
	}
}

// UsagePage is a page of GET /v1/usage.
type UsagePage struct {
	Usage   []account.UsageEntry `json:"usage"`
	HasMore bool                 `json:"has_more"`
}

// Page returns one page of a user's usage log, newest first, as GET
// /v1/usage shows it, read under the log's lock.
func (u *UsageLog) Page(owner string, pq PageQuery, match func(*store.UsageEntry) bool) UsagePage {
	var page UsagePage
	u.Flushed(func(t *store.Table[*store.UsageEntry]) {
		page.Usage, page.HasMore = ListPage(t, []string{owner}, pq, match, usageView)
	})
	return page
}

// usageView is a usage log entry as the API shows it.
func usageView(e *store.UsageEntry) account.UsageEntry {
	return account.UsageEntry{
		ID: e.ID, Endpoint: e.Endpoint, Method: e.Method, StatusCode: int(e.StatusCode),
		CallID: val.Strp(e.CallID), CostCents: int(e.CostCents), CreatedAt: e.CreatedAt,
	}
}
