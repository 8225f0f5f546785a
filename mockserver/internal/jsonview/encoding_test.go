package jsonview

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// The appenders of the hot list views are tested against the SDK's types in
// package telephony (TestAppendersMatchEncodingJSON); the fuzz targets here
// hold the string and time encoders they are built from to encoding/json.

// stdJSON is what encoding/json writes for v without HTML escaping.
func stdJSON(t testing.TB, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return strings.TrimSuffix(buf.String(), "\n")
}

// awkwardStrings are strings whose JSON encoding needs every escape.
var awkwardStrings = []string{
	"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f\x7f",
	"<html> & 'amp'", "é ü 日本語 🎉", "\u2028\u2029", "bad \xff\xfe utf8 \xc3", "\xed\xa0\x80",
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range awkwardStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(AppendJSONString(nil, s)), stdJSON(t, s); got != want {
			t.Fatalf("%q: got %s, encoding/json writes %s", s, got, want)
		}
	})
}

func FuzzAppendJSONTime(f *testing.F) {
	for _, t := range []time.Time{
		time.Unix(0, 0), time.Date(2026, 6, 5, 14, 3, 4, 120000000, time.UTC), time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 999999999, time.UTC), time.Date(2000, 2, 29, 12, 0, 0, 1, time.UTC),
		time.Date(1969, 12, 31, 23, 59, 59, 5, time.UTC), time.Date(1600, 3, 1, 0, 0, 0, 0, time.UTC),
	} {
		f.Add(t.Unix(), int64(t.Nanosecond()), false)
	}
	f.Add(int64(1_780_000_000), int64(0), true)
	f.Fuzz(func(t *testing.T, secs, nanos int64, zoned bool) {
		at := time.Unix(secs, nanos).UTC()
		if zoned {
			at = at.In(time.FixedZone("X", 5*3600+30*60))
		}
		want, err := at.MarshalJSON()
		if err != nil {
			return // a year time.Time refuses to encode
		}
		if got := AppendJSONTime(nil, at); string(got) != string(want) {
			t.Fatalf("%v: got %s, time.Time writes %s", at, got, want)
		}
	})
}

func TestAppendValueIsEncodingJSONWithoutHTMLEscapingAndNewline(t *testing.T) {
	type view struct {
		Body  string     `json:"body"`
		Lead  *string    `json:"lead_id"`
		At    time.Time  `json:"at"`
		Extra *time.Time `json:"extra,omitempty"`
	}
	v := view{Body: "<b>Tom & Jerry</b>\n", At: time.Date(2026, 3, 10, 16, 0, 0, 5, time.UTC)}
	got := AppendValue([]byte("prefix,"), v)
	require.Equal(t, "prefix,"+stdJSON(t, v), string(got))
	require.False(t, strings.HasSuffix(string(got), "\n"))
	require.Panics(t, func() { AppendValue(nil, func() {}) }, "a view that cannot be encoded is a programming error")
}
