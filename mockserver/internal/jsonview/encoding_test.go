package jsonview

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/leads"
)

// stdEncode is encoding/json's Encoder without HTML escaping: what
// EncodeJSON matches for everything but times.
func stdEncode(t testing.TB, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

func encode(t *testing.T, v any) string {
	t.Helper()
	b, err := EncodeJSON(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func str(s string) *string { return &s }

func TestEncodesAsEncodingJSONDoes(t *testing.T) {
	type embedded struct {
		Inner string `json:"inner"`
	}
	type view struct {
		embedded
		Name    *string         `json:"name"`
		Empty   []string        `json:"empty"`
		Omitted string          `json:"omitted,omitempty"`
		Raw     json.RawMessage `json:"raw"`
		Number  json.Number     `json:"number"`
		Quoted  int             `json:"quoted,string"`
		Map     map[string]any  `json:"map"`
		Bytes   []byte          `json:"bytes"`
		Float   float64         `json:"float"`
		Status  leads.Status    `json:"status"`
		private int
	}
	for name, v := range map[string]any{
		"html and separators": map[string]any{"s": "<a href=\"x\">&</a>\u2028\u2029 é \x00"},
		"struct": view{
			embedded: embedded{"in"}, Name: str("Ada"), Raw: json.RawMessage(` {"b": [1, 2]} `),
			Number: "12.50", Quoted: 7, Map: map[string]any{"z": 1.0, "a": nil, "m": []any{"x", true}},
			Bytes: []byte("hi"), Float: 1e21, Status: leads.StatusNew,
		},
		"nil values":  view{},
		"call":        calls.Call{ID: "c1", Status: calls.StatusQueued, To: "+15551230001"},
		"float forms": []float64{0, -0.5, 1e-7, 123456789, 1e20, 1.5e300},
	} {
		// The only difference allowed is the form of a time; these hold none
		// but zero times, which both write, so compare without them.
		got, want := encode(t, v), stdEncode(t, v)
		got = strings.ReplaceAll(got, `"0001-01-01T00:00:00.000000000Z"`, `"0001-01-01T00:00:00Z"`)
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", name, got, want)
		}
	}
}

// TestInvalidUTF8IsReplaced: invalid UTF-8 becomes U+FFFD, as with
// encoding/json, written as the character rather than as \ufffd.
func TestInvalidUTF8IsReplaced(t *testing.T) {
	if got := encode(t, "a\xffb"); got != "\"a\uFFFDb\"\n" {
		t.Errorf("got %q", got)
	}
}

func TestEveryTimeHasOneForm(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Fatal(err)
	}
	whole := time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)
	next := whole.Add(time.Nanosecond)
	local := whole.Add(5 * time.Millisecond).In(ny)
	v := map[string]any{
		"value":   whole,
		"pointer": &next,
		"nil":     (*time.Time)(nil),
		"nested":  []any{map[string]any{"at": local}},
		"struct":  struct{ At time.Time }{whole},
		"text":    "2026-03-10T16:00:00Z", // a string that looks like a time stays as given
	}
	got := encode(t, v)
	want := `{"nested":[{"at":"2026-03-10T16:00:00.005000000Z"}],"nil":null,"pointer":"2026-03-10T16:00:00.000000001Z",` +
		`"struct":{"At":"2026-03-10T16:00:00.000000000Z"},"text":"2026-03-10T16:00:00Z","value":"2026-03-10T16:00:00.000000000Z"}` + "\n"
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// String order is time order, and each reads back as the same time.
	a, b := encode(t, whole), encode(t, next)
	if !(a < b) {
		t.Errorf("%s does not sort before %s", a, b)
	}
	var back time.Time
	if err := json.Unmarshal([]byte(b), &back); err != nil || !back.Equal(next) {
		t.Errorf("%s reads back as %v, %v", b, back, err)
	}
	if _, err := EncodeJSON(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)); err == nil {
		t.Error("a year RFC 3339 cannot write was encoded")
	}
}

func TestNumbersAreWrittenAsNumbers(t *testing.T) {
	if got := encode(t, []json.Number{"1", "-2.5e3", ""}); got != "[1,-2.5e3,0]\n" {
		t.Errorf("got %s", got)
	}
	for _, bad := range []json.Number{"x", `"1"`, "1 2", "0x10"} {
		if _, err := Marshal(bad); err == nil {
			t.Errorf("%q encoded", bad)
		}
	}
}

// BenchmarkEncodeJSON encodes a page of 100 leads, as GET /v1/leads
// answers, with this encoder and with encoding/json.
func BenchmarkEncodeJSON(b *testing.B) {
	at := time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)
	page := struct {
		Leads   []leads.Lead `json:"leads"`
		HasMore bool         `json:"has_more"`
	}{HasMore: true}
	for i := range 100 {
		page.Leads = append(page.Leads, leads.Lead{
			ID: "0b5c6a7e-1111-4222-8333-444455556666", Name: str("Jane Doe"), Phone: str("+15551230001"),
			Status: leads.StatusNew, Source: str("sms"), BusinessID: "0b5c6a7e-1111-4222-8333-444455556666",
			CreatedAt: at.Add(time.Duration(i)), UpdatedAt: at, Message: str("Hello, is this the plumber?"),
		})
	}
	b.Run("jsonview", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := EncodeJSON(page); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding_json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			stdEncode(b, page)
		}
	})
}
