package admin

import (
	"bytes"
	"encoding/json"
	"mime"
	"reflect"
	"strings"
)

// journalEntryOverhead is what an entry costs besides the bytes of its
// strings: the struct itself, as the journal's ring stores it.
var journalEntryOverhead = int64(reflect.TypeFor[JournalEntry]().Size())

// Bytes returns what the entry counts against the journal's byte budget
// (mockserver.WithJournalBytes): the struct and every string it keeps,
// headers and bodies included.
func (e *JournalEntry) Bytes() int64 {
	n := len(e.RequestID) + len(e.Method) + len(e.Path) + len(e.Query) + len(e.KeyPrefix) + len(e.BusinessID) + len(e.Fault) + len(e.FaultID)
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

// BodyIsJSON reports whether the message's body is shown as JSON: its
// Content-Type is JSON, and the body is whole (within JournalBodyCap) and
// parses.
func (m *JournalMessage) BodyIsJSON() bool {
	return m.Body != "" && !m.Truncated && isJSONMediaType(m.Header.Get("Content-Type")) && json.Valid([]byte(m.Body))
}

// isJSONMediaType reports whether a Content-Type is JSON
// (application/json or application/*+json).
func isJSONMediaType(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil {
		return false
	}
	return mt == "application/json" || (strings.HasPrefix(mt, "application/") && strings.HasSuffix(mt, "+json"))
}

// MarshalJSON encodes the message as GET /_mock/requests shows it: body is
// the decoded JSON value when BodyIsJSON (so that jq .request.body.name
// reads into it), else the text as a string.
func (m JournalMessage) MarshalJSON() ([]byte, error) {
	type fields JournalMessage // the same members, without this method
	var body any
	switch {
	case m.BodyIsJSON():
		body = json.RawMessage(m.Body)
	case m.Body != "":
		body = m.Body
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(struct {
		fields
		Body any `json:"body,omitempty"`
	}{fields(m), body}); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// UnmarshalJSON decodes a message as MarshalJSON encodes it: a body that
// is a JSON value other than a string is kept as its (compact) text.
func (m *JournalMessage) UnmarshalJSON(b []byte) error {
	type fields JournalMessage
	var v struct {
		fields
		Body json.RawMessage `json:"body"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*m = JournalMessage(v.fields)
	if len(v.Body) > 0 && v.Body[0] == '"' {
		return json.Unmarshal(v.Body, &m.Body)
	}
	m.Body = string(v.Body)
	return nil
}

// APIPrefix is the path prefix of the API: a fault rule's or a request
// filter's path may leave it out.
const APIPrefix = "/api"

// APIPath returns p with the API's prefix: "/v1/calls" and "/api/v1/calls"
// both give "/api/v1/calls" ("" and "*" patterns stay as they are).
func APIPath(p string) string {
	if p == "" || p == APIPrefix || strings.HasPrefix(p, APIPrefix+"/") || strings.HasPrefix(p, APIPrefix+"*") {
		return p
	}
	if !strings.HasPrefix(p, "/") && p != "*" {
		p = "/" + p
	}
	return APIPrefix + p
}

// PathMatches reports whether a path matches a pattern as fault rules and
// request filters match them: exact, or a prefix when the pattern ends
// with "*"; "" matches every path.
func PathMatches(pattern, path string) bool {
	if pattern == "" {
		return true
	}
	if p, ok := strings.CutSuffix(pattern, "*"); ok {
		return strings.HasPrefix(path, p)
	}
	return pattern == path
}

// Match reports whether an entry passes the filter.
func (f RequestFilter) Match(e *JournalEntry) bool {
	return e.Seq > f.After &&
		(f.Method == "" || strings.EqualFold(e.Method, f.Method)) &&
		(f.Path == "" || PathMatches(APIPath(f.Path), e.Path)) &&
		(f.Status == 0 || e.Status == f.Status) &&
		(f.BusinessID == "" || e.BusinessID == f.BusinessID)
}
