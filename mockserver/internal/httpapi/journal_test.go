package httpapi

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// journalOf adds n requests to j, the i-th answered with a body of its
// own (of a size that varies, up to more than the cap), and returns the
// bodies the journal should show.
func journalOf(j *Journal, n int) []string {
	var want []string
	for i := range n {
		size := 1 + (i*7919)%(JournalBodyCap+500)
		body := []byte(fmt.Sprintf("%08d", i) + strings.Repeat("x", size))
		r := httptest.NewRequest(http.MethodGet, "/api/v1/leads", nil)
		r.Header.Set("X-Seq", fmt.Sprint(i))
		rec, texts := newJournalRecord(JournalEntry{RequestID: fmt.Sprint(i)}, r, nil, &Response{Status: 200, Body: body, plain: true})
		j.add(rec, texts)
		want = append(want, string(body[:min(len(body), JournalBodyCap)]))
	}
	return want
}

func TestTheJournalReusesItsBodyRingAndShowsEveryKeptBody(t *testing.T) {
	const budget = 512 << 10
	j := newJournal(10_000, budget)
	want := journalOf(j, 2_000)

	entries, bytes := j.Usage()
	assert.LessOrEqual(t, bytes, int64(budget))
	assert.Greater(t, entries, 20, "a budget's worth of entries is kept")
	assert.LessOrEqual(t, ringBytes(j), budget+ringChunk, "the ring holds about the budget")

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

// ringBytes is the size of the journal's body ring.
func ringBytes(j *Journal) int {
	n := 0
	for _, c := range j.bodies.chunks {
		n += len(c)
	}
	return n
}

func TestTheJournalBodyRingHoldsWhatTheKeptEntriesNeed(t *testing.T) {
	j := newJournal(100, DefaultJournalBytes)
	for i := range 20_000 {
		r := httptest.NewRequest(http.MethodPost, "/api/v1/calls", nil)
		rec, texts := newJournalRecord(JournalEntry{}, r, []byte(strings.Repeat("q", 500)), &Response{Status: 201, Body: []byte(fmt.Sprintf("%08d", i) + strings.Repeat("a", 800))})
		j.add(rec, texts)
	}
	entries, bytes := j.Usage()
	assert.Equal(t, 100, entries)
	assert.Less(t, bytes, int64(200<<10))
	assert.LessOrEqual(t, ringBytes(j), 512<<10, "the entries dropped by count free their texts: the ring holds a few times what they need, not the byte budget")
	assert.Equal(t, 100, j.log.Slots(), "slots for the entries kept")
	last := j.List(nil)
	assert.Equal(t, fmt.Sprintf("%08d", 19_999), last[len(last)-1].Response.Body[:8])
	assert.Equal(t, fmt.Sprintf("%08d", 19_900), last[0].Response.Body[:8])
}

func TestTheJournalBodyRingStartsSmall(t *testing.T) {
	j := newJournal(10_000, DefaultJournalBytes)
	rec, texts := newJournalRecord(JournalEntry{}, httptest.NewRequest(http.MethodGet, "/", nil), nil, &Response{Status: 204})
	j.add(rec, texts)
	assert.Empty(t, j.bodies.chunks, "no bodies, no chunk")
	assert.Empty(t, j.List(nil)[0].Response.Body)
	journalOf(j, 3)
	require.Len(t, j.bodies.chunks, 1)
	assert.Equal(t, firstRingChunk, len(j.bodies.chunks[0]), "a server that journals little keeps little")
	assert.Equal(t, 64, j.log.Slots())
	j.Reset()
	assert.Empty(t, j.bodies.chunks)
}

// TestTheJournalKeepsEntriesAsLargeAsItAllows journals requests with
// every text at its bound (headers of the request and of the answer,
// and both bodies past the cap), so that texts of one entry fall on
// both sides of a chunk's end, and checks that every kept entry reads
// back whole: an entry's texts never overwrite each other in the ring.
func TestTheJournalKeepsEntriesAsLargeAsItAllows(t *testing.T) {
	j := newJournal(50, 4*firstRingChunk)
	h := http.Header{}
	for i := range 40 {
		h.Set(fmt.Sprintf("X-H%02d", i), strings.Repeat("v", 1000))
	}
	for i := range 30 {
		r := httptest.NewRequest(http.MethodPost, "/api/v1/calls", nil)
		r.Header = h
		reqBody := []byte(fmt.Sprintf("%08d", i) + strings.Repeat("q", JournalBodyCap+i*101))
		respBody := []byte(fmt.Sprintf("%08d", i) + strings.Repeat("a", JournalBodyCap+i*37))
		j.add(newJournalRecord(JournalEntry{RequestID: fmt.Sprint(i)}, r, reqBody, &Response{Status: 201, Header: h, Body: respBody}))
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

// TestTheRedactionMemoAnswersAsRedactingAgain redacts windows holding
// secrets, more of them than the memo keeps and each several times,
// through a memo and directly: the texts are the same, and the memo
// keeps no secret (only hashes and redacted texts).
func TestTheRedactionMemoAnswersAsRedactingAgain(t *testing.T) {
	var m redactionMemo
	secret := func(i int) string { return fmt.Sprintf("whsec_%040d", i) }
	for round := range 3 {
		for i := range 2 * redactionMemoSize {
			window := []byte(fmt.Sprintf(`{"webhooks":[{"id":"w%d","secret":%q,"custom_headers":{"X-Key":"k%d"}}],"has_more":false}`, i, secret(i), i))
			for _, cut := range []bool{false, true} {
				want := redactValues(string(redactMembersOf(window, cut)))
				require.Equal(t, want, m.redacted(window, cut), "round %d window %d cut %v", round, i, cut)
				assert.NotContains(t, want, secret(i))
			}
		}
	}
	assert.LessOrEqual(t, len(m.m), redactionMemoSize)
	for _, text := range m.m {
		assert.NotContains(t, text, "whsec_0")
		assert.NotEmpty(t, text)
	}
}

// BenchmarkJournalAdd journals a small GET answer into a full journal:
// what every API request pays for its journal entry.
func BenchmarkJournalAdd(b *testing.B) {
	j := newJournal(10_000, DefaultJournalBytes)
	r := httptest.NewRequest(http.MethodGet, "/api/v1/agents", nil)
	r.Header.Set("Authorization", "Bearer "+KeyPrefix+strings.Repeat("k", 40))
	resp := &Response{Status: 200, Body: []byte(strings.Repeat("a", 300)), plain: true}
	for range 10_000 {
		j.add(newJournalRecord(JournalEntry{RequestID: "warm"}, r, nil, resp))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		j.add(newJournalRecord(JournalEntry{RequestID: "req"}, r, nil, resp))
	}
}
