// Package jsonview encodes the mock server's answers and events: JSON
// without HTML escaping, in pooled buffers, and the helpers of the
// hand-written appenders of the hot list items (leads, agents and calls),
// which are tested byte for byte against encoding/json.
package jsonview

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sync"
	"time"
	"unicode/utf8"
)

// The items of the hottest lists (leads, agents, calls) are written by
// hand-written appenders: encoding a page of 100 leads with encoding/json
// (maps, then reflection over structs) was most of the cost of GET
// /v1/leads?limit=100 (see docs/mockserver.md, section Performance and
// load). An item view that writes its own JSON implements JSONAppender,
// which EncodeJSON prefers; the bytes are exactly what encoding/json
// writes for the same struct without HTML escaping, which
// TestAppendersMatchEncodingJSON and FuzzAppendJSONString check.

// JSONAppender is a value that appends its own JSON encoding to b.
type JSONAppender interface {
	AppendJSON(b []byte) []byte
}

// Stamp is a time.Time that encodes exactly as time.Time does (RFC 3339
// with nanoseconds, quoted), for views that encoding/json writes: as a
// TextMarshaler, whose output encoding/json does not scan and compact again
// as it does a time.Time's MarshalJSON.
type Stamp time.Time

// MarshalText implements encoding.TextMarshaler.
func (t Stamp) MarshalText() ([]byte, error) { return time.Time(t).MarshalText() }

// StampPtr is stamp for a nullable time.
func StampPtr(t *time.Time) *Stamp { return (*Stamp)(t) }

// AppendNullString appends s as a JSON string, or null when s is nil.
func AppendNullString(b []byte, s *string) []byte {
	if s == nil {
		return append(b, "null"...)
	}
	return AppendJSONString(b, *s)
}

// AppendNullTime appends t as time.Time's MarshalJSON does, or null.
func AppendNullTime(b []byte, t *Stamp) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	return AppendJSONTime(b, time.Time(*t))
}

// AppendJSONTime appends t as time.Time's MarshalJSON does: RFC 3339 with
// the nanoseconds' trailing zeros trimmed, quoted. UTC times of years 0001
// to 9999 (every stamp the store makes) take a direct path, about four
// times cheaper than time.Time.AppendFormat; others are formatted by
// package time.
func AppendJSONTime(b []byte, t time.Time) []byte {
	b = append(b, '"')
	secs := t.Unix()
	if t.Location() != time.UTC || secs < minFastUnix || secs > maxFastUnix {
		b = t.AppendFormat(b, time.RFC3339Nano)
		return append(b, '"')
	}
	days, sod := secs/86400, secs%86400
	if sod < 0 {
		days, sod = days-1, sod+86400
	}
	y, m, d := civilFromDays(days)
	b = append(b, byte('0'+y/1000), byte('0'+y/100%10), byte('0'+y/10%10), byte('0'+y%10), '-',
		byte('0'+m/10), byte('0'+m%10), '-', byte('0'+d/10), byte('0'+d%10), 'T')
	hh, mm, ss := sod/3600, sod/60%60, sod%60
	b = append(b, byte('0'+hh/10), byte('0'+hh%10), ':', byte('0'+mm/10), byte('0'+mm%10), ':',
		byte('0'+ss/10), byte('0'+ss%10))
	if ns := t.Nanosecond(); ns != 0 {
		var frac [10]byte
		frac[0] = '.'
		for i := 9; i >= 1; i-- {
			frac[i] = byte('0' + ns%10)
			ns /= 10
		}
		n := 10
		for frac[n-1] == '0' {
			n--
		}
		b = append(b, frac[:n]...)
	}
	return append(b, 'Z', '"')
}

// The Unix seconds of 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
const (
	minFastUnix = -62135596800
	maxFastUnix = 253402300799
)

// civilFromDays converts days since 1970-01-01 to a proleptic Gregorian
// date (H. Hinnant's algorithm).
func civilFromDays(days int64) (year, month, day int64) {
	z := days + 719468
	era := z / 146097
	if z < 0 && z%146097 != 0 {
		era--
	}
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	day = doy - (153*mp+2)/5 + 1
	month = mp + 3
	if mp >= 10 {
		month = mp - 9
	}
	year = yoe + era*400
	if month <= 2 {
		year++
	}
	return year, month, day
}

const hexDigits = "0123456789abcdef"

// AppendJSONString appends s as a JSON string exactly as encoding/json does
// with HTML escaping off: quotes, backslashes and control characters
// escaped, invalid UTF-8 replaced by U+FFFD, U+2028 and U+2029 escaped.
func AppendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// EncodeJSON encodes v without HTML escaping and with a trailing newline;
// a view that writes its own JSON (jsonAppender) does so. The encoding
// happens in a pooled buffer and the answer is an exact-size copy, so an
// answer costs one allocation of its own size instead of the garbage of a
// buffer grown by doubling.
func EncodeJSON(v any) ([]byte, error) {
	bp := Buffer()
	defer ReleaseBuffer(bp)
	b, err := encodeInto(bp, v)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(b), nil
}

// AppendValue appends v encoded as encoding/json encodes it without HTML
// escaping (as every answer is), for a view that has no appender of its
// own: a kept list item built once per change of its record. v must be
// encodable (a view of strings, numbers, times and such): an error is a
// programming error, and panics.
func AppendValue(b []byte, v any) []byte {
	out, err := appendEncoded(b, v)
	if err != nil {
		panic(fmt.Sprintf("jsonview: encoding a %T: %v", v, err))
	}
	return out[:len(out)-1] // the encoding's newline
}

// appendEncoded appends v as encoding/json encodes it without HTML
// escaping, followed by a newline: the one encoder every answer goes
// through.
func appendEncoded(b []byte, v any) ([]byte, error) {
	buf := bytes.NewBuffer(b)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// EncodePooled is encodeJSON without the copy: the answer lives in a
// pooled buffer that the caller hands back with releaseBuffer once the
// answer is written (GET answers, which nothing keeps).
func EncodePooled(v any) ([]byte, *[]byte, error) {
	bp := Buffer()
	b, err := encodeInto(bp, v)
	if err != nil {
		ReleaseBuffer(bp)
		return nil, nil, err
	}
	return b, bp, nil
}

// AppendPooled is EncodePooled for an answer that appendTo appends to a
// pooled buffer (followed by a newline, as every encoding is).
func AppendPooled(appendTo func(b []byte) []byte) ([]byte, *[]byte) {
	bp := Buffer()
	b := append(appendTo((*bp)[:0]), '\n')
	*bp = b[:0]
	return b, bp
}

// encodeInto encodes v into the buffer *bp (growing it as needed) and
// returns the encoding.
func encodeInto(bp *[]byte, v any) ([]byte, error) {
	var b []byte
	if a, ok := v.(JSONAppender); ok {
		b = append(a.AppendJSON((*bp)[:0]), '\n')
	} else {
		var err error
		if b, err = appendEncoded((*bp)[:0], v); err != nil {
			return nil, err
		}
	}
	*bp = b[:0]
	return b, nil
}

// Buffer is an empty buffer from the pool EncodePooled takes its
// buffers from, for bytes kept no longer than a request: hand it back
// with ReleaseBuffer.
func Buffer() *[]byte {
	bp := encodeBuffers.Get().(*[]byte)
	*bp = (*bp)[:0]
	return bp
}

// ReleaseBuffer returns an encoding buffer to the pool (unless it grew too
// big to keep).
func ReleaseBuffer(bp *[]byte) {
	if cap(*bp) <= maxPooledBuffer {
		encodeBuffers.Put(bp)
	}
}

// maxPooledBuffer bounds the encoding buffers kept for reuse (a page of
// 100 leads takes about 45 KiB).
const maxPooledBuffer = 256 << 10

var encodeBuffers = sync.Pool{New: func() any { return new([]byte) }}
