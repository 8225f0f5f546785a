package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

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

func testLead(i int) *store.Lead {
	s := func(v string) *string { return &v }
	at := time.Date(2026, 6, 5, 14, 3, 4, i*1000+7, time.UTC)
	l := &store.Lead{Status: store.LeadNew, AgentID: "", Score: i, Interactions: i % 4}
	l.ID, l.Owner, l.CreatedAt, l.UpdatedAt = fmt.Sprint("lead-", i), "biz", at, at.Add(time.Second)
	if i%2 == 0 {
		w := awkwardStrings[i%len(awkwardStrings)]
		l.Name, l.FirstName, l.Email, l.Phone, l.Notes, l.Zip = s(w), s(w+"x"), s("a@b.c"), s("+15551230001"), s(w), s("")
		l.LastContactAt = &at
		l.Intent = s("quote")
	}
	if i%3 == 0 {
		l.AgentID = "agent-1"
	}
	return l
}

func TestAppendersMatchEncodingJSON(t *testing.T) {
	t.Parallel()
	st := store.New()
	a := &store.Agent{Name: "Agent \"One\"\n"}
	a.ID, a.Owner = "agent-1", "biz"
	st.Agents.Put(a)
	var page []telephony.LeadListView
	for i := range 40 {
		l := testLead(i)
		list, detail := telephony.LeadListItem(st, l), telephony.LeadDetail(st, l)
		assert.Equal(t, stdJSON(t, list), string(list.AppendJSON(nil)), "list view of lead %d", i)
		assert.Equal(t, stdJSON(t, detail), string(detail.AppendJSON(nil)), "detail view of lead %d", i)
		page = append(page, list)
	}
	agents := []telephony.AgentListView{telephony.AgentListItem(a)}
	a.PhoneNumber = "+15552000000"
	agents = append(agents, telephony.AgentListItem(a))
	for _, v := range agents {
		assert.Equal(t, stdJSON(t, v), string(v.AppendJSON(nil)))
	}
	_, inherits := any(telephony.AgentDetail(a)).(jsonview.JSONAppender)
	assert.False(t, inherits, "the detail view must not write itself as the list form")
	got, err := jsonview.EncodeJSON(jsonview.ListAnswer[telephony.AgentListView]{Key: "agents", Items: agents})
	require.NoError(t, err)
	assert.JSONEq(t, stdJSON(t, map[string]any{"agents": agents}), string(got))
	for _, items := range [][]telephony.LeadListView{nil, {}, page} {
		got, err := jsonview.EncodeJSON(jsonview.PageAnswer[telephony.LeadListView]{Key: "leads", Items: items, More: len(items) > 0})
		require.NoError(t, err)
		want := map[string]any{"leads": items, "has_more": len(items) > 0}
		if items == nil {
			want["leads"] = []telephony.LeadListView{}
		}
		assert.JSONEq(t, stdJSON(t, want), string(got))
	}
}

func FuzzAppendJSONString(f *testing.F) {
	for _, s := range awkwardStrings {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := string(jsonview.AppendJSONString(nil, s)), stdJSON(t, s); got != want {
			t.Fatalf("%q: got %s, encoding/json writes %s", s, got, want)
		}
	})
}

// BenchmarkLeadPageJSON encodes a page of 100 leads: the view's own
// appender against encoding/json over the same structs.
func BenchmarkLeadPageJSON(b *testing.B) {
	st := store.New()
	items := make([]telephony.LeadListView, 100)
	for i := range items {
		items[i] = telephony.LeadListItem(st, testLead(i))
	}
	page := jsonview.PageAnswer[telephony.LeadListView]{Key: "leads", Items: items, More: true}
	b.Run("appender", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			if _, err := jsonview.EncodeJSON(page); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		v := map[string]any{"leads": items, "has_more": true}
		for range b.N {
			if _, err := jsonview.EncodeJSON(v); err != nil {
				b.Fatal(err)
			}
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
		if got := jsonview.AppendJSONTime(nil, at); string(got) != string(want) {
			t.Fatalf("%v: got %s, time.Time writes %s", at, got, want)
		}
	})
}
