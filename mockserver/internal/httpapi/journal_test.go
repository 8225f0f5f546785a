package httpapi

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
)

// journalOf adds n requests to j, the i-th served with a body of its
// own (of a size that varies, up to more than the cap), and returns the
// bodies the journal should show.
func journalOf(j *Journal, n int) []string {
	var want []string
	for i := range n {
		size := 1 + (i*7919)%(JournalBodyCap+500)
		body := []byte(fmt.Sprintf("%08d", i) + strings.Repeat("x", size))
		r := httptest.NewRequest(http.MethodGet, "/api/v1/leads", nil)
		r.Header.Set("X-Seq", fmt.Sprint(i))
		j.add(newJournalRecord(admin.JournalEntry{RequestID: fmt.Sprint(i)}, r, nil, &Response{Status: 200, Body: body}))
		want = append(want, string(body[:min(len(body), JournalBodyCap)]))
	}
	return want
}

func TestTheJournalShowsEveryKeptBody(t *testing.T) {
	const budget = 512 << 10
	j := newJournal(10_000, budget)
	want := journalOf(j, 2_000)

	entries, bytes := j.Usage()
	assert.LessOrEqual(t, bytes, int64(budget))
	assert.Greater(t, entries, 20, "a budget's worth of entries is kept")

	got := j.List(nil)
	require.Len(t, got, entries)
	for _, e := range got {
		i := int(e.Seq - 1)
		require.Equal(t, want[i], e.Response.Body, "entry %d", e.Seq)
		assert.Equal(t, len(want[i]) == JournalBodyCap, e.Response.Truncated)
		assert.Equal(t, fmt.Sprint(i), e.Request.Header.Get("X-Seq"))
		assert.Equal(t, e.RequestID, e.Response.Header.Get("X-Request-Id"))
		assert.Equal(t, "application/json", e.Response.Header.Get("Content-Type"))
	}

	// Entries read are kept made; more requests still read back right.
	want = append(want, journalOf(j, 500)...)
	for _, e := range j.List(nil) {
		require.Equal(t, want[e.Seq-1][8:], e.Response.Body[8:], "entry %d", e.Seq)
	}
}

func TestTheJournalKeepsItsNewestEntries(t *testing.T) {
	j := newJournal(100, platform.DefaultJournalBytes)
	for i := range 20_000 {
		r := httptest.NewRequest(http.MethodPost, "/api/v1/calls", nil)
		j.add(newJournalRecord(admin.JournalEntry{}, r, []byte(strings.Repeat("q", 500)), &Response{Status: 201, Body: []byte(fmt.Sprintf("%08d", i) + strings.Repeat("a", 800))}))
	}
	entries, bytes := j.Usage()
	assert.Equal(t, 100, entries)
	assert.Less(t, bytes, int64(200<<10))
	assert.LessOrEqual(t, j.log.Slots(), 4*100+65, "slots within a small multiple of the entries kept")
	last := j.List(nil)
	assert.Equal(t, fmt.Sprintf("%08d", 19_999), last[len(last)-1].Response.Body[:8])
	assert.Equal(t, fmt.Sprintf("%08d", 19_900), last[0].Response.Body[:8])
}

// TestTheJournalKeepsEachTenantsNewestApart: a busy tenant's requests push
// out its own oldest, never a quiet tenant's nor those of no tenant; the
// entries kept read in the order they came, numbered across tenants, and
// after= reads on from any of them.
func TestTheJournalKeepsEachTenantsNewestApart(t *testing.T) {
	j := newJournal(5, platform.DefaultJournalBytes)
	add := func(tenant string) {
		r := httptest.NewRequest(http.MethodGet, "/api/v1/leads", nil)
		j.add(newJournalRecord(admin.JournalEntry{BusinessID: tenant}, r, nil, &Response{Status: 200}))
	}
	add("quiet")
	add("")
	add("quiet")
	for i := range 1_000 {
		add("busy")
		if i == 500 {
			add("")
		}
	}
	add("quiet")
	got := j.List(nil)
	var tenants []string
	for i, e := range got {
		tenants = append(tenants, e.BusinessID)
		if i > 0 {
			assert.Greater(t, e.Seq, got[i-1].Seq, "in the order they came")
		}
	}
	assert.Equal(t, []string{"quiet", "", "quiet", "", "busy", "busy", "busy", "busy", "busy", "quiet"}, tenants)
	assert.Equal(t, []int64{1, 2, 3, 505}, []int64{got[0].Seq, got[1].Seq, got[2].Seq, got[3].Seq})
	assert.Equal(t, int64(1005), j.Latest())
	assert.Equal(t, int64(1005), got[len(got)-1].Seq)
	after := j.List(admin.RequestFilter{After: 3}.Match)
	require.Len(t, after, 7)
	assert.Equal(t, int64(505), after[0].Seq)
	quiet := j.List(admin.RequestFilter{BusinessID: "quiet"}.Match)
	assert.Len(t, quiet, 3, "the quiet tenant keeps every request")
}

// TestTheJournalKeepsEntriesAsLargeAsItAllows journals requests with
// every text at its bound (headers of the request and of the response,
// and both bodies past the cap) and checks that every kept entry reads
// back whole.
func TestTheJournalKeepsEntriesAsLargeAsItAllows(t *testing.T) {
	j := newJournal(50, 256<<10)
	h := http.Header{}
	for i := range 40 {
		h.Set(fmt.Sprintf("X-H%02d", i), strings.Repeat("v", 1000))
	}
	for i := range 30 {
		r := httptest.NewRequest(http.MethodPost, "/api/v1/calls", nil)
		r.Header = h
		reqBody := []byte(fmt.Sprintf("%08d", i) + strings.Repeat("q", JournalBodyCap+i*101))
		respBody := []byte(fmt.Sprintf("%08d", i) + strings.Repeat("a", JournalBodyCap+i*37))
		j.add(newJournalRecord(admin.JournalEntry{RequestID: fmt.Sprint(i)}, r, reqBody, &Response{Status: 201, Header: h, Body: respBody}))
	}
	got := j.List(nil)
	require.NotEmpty(t, got)
	for _, e := range got {
		i := e.Seq - 1
		assert.Equal(t, fmt.Sprintf("%08d", i)+strings.Repeat("q", JournalBodyCap-8), e.Request.Body, "entry %d", e.Seq)
		assert.Equal(t, fmt.Sprintf("%08d", i)+strings.Repeat("a", JournalBodyCap-8), e.Response.Body, "entry %d", e.Seq)
		assert.Greater(t, len(e.Request.Header), 10, "entry %d", e.Seq)
		for name, vs := range e.Request.Header {
			require.Equal(t, []string{strings.Repeat("v", 1000)}, vs, "entry %d %s", e.Seq, name)
		}
		for name, vs := range e.Response.Header {
			if name != "X-Request-Id" && name != "Content-Type" {
				require.Equal(t, []string{strings.Repeat("v", 1000)}, vs, "entry %d %s", e.Seq, name)
			}
		}
		assert.Equal(t, fmt.Sprint(i), e.Response.Header.Get("X-Request-Id"))
	}
}

// BenchmarkJournalAdd journals a small GET response into a full journal:
// what every API request pays for its journal entry.
func BenchmarkJournalAdd(b *testing.B) {
	j := newJournal(10_000, platform.DefaultJournalBytes)
	r := httptest.NewRequest(http.MethodGet, "/api/v1/agents", nil)
	r.Header.Set("Authorization", "Bearer "+KeyPrefix+strings.Repeat("k", 40))
	resp := &Response{Status: 200, Body: []byte(strings.Repeat("a", 300))}
	for range 10_000 {
		j.add(newJournalRecord(admin.JournalEntry{RequestID: "warm"}, r, nil, resp))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		j.add(newJournalRecord(admin.JournalEntry{RequestID: "req"}, r, nil, resp))
	}
}
