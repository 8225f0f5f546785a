package store

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestALogTableKeepsTheNewestPerOwnerAndInAll drives a usage-style log
// table (no id index) past both of its bounds, with owners that write at
// different rates, and checks what it keeps: the newest records of each
// owner, the newest in all, and a retention queue that stays near the
// records kept.
func TestALogTableKeepsTheNewestPerOwnerAndInAll(t *testing.T) {
	const perOwner, total = 50, 120
	n := 0
	tb := NewLogTable[*UsageEntry]()
	tb.SetIDSource(func() string { n++; return "u" + strconv.Itoa(n) })
	tb.SetRetention(Retention[*UsageEntry]{PerOwner: perOwner, Total: total})
	put := map[string][]*UsageEntry{}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 5_000 {
		owner := "busy"
		if i%3 == 0 {
			owner = "quiet" + strconv.Itoa(i%9)
		}
		e := tb.Insert(&UsageEntry{Endpoint: "/v1/leads"}, owner, at.Add(time.Duration(i)*time.Second))
		put[owner] = append(put[owner], e)
	}

	require.LessOrEqual(t, tb.Len(), total)
	kept := 0
	for owner, all := range put {
		var got []*UsageEntry
		tb.Scan([]string{owner}, time.Time{}, func(e *UsageEntry) bool { got = append([]*UsageEntry{e}, got...); return true })
		assert.LessOrEqual(t, len(got), perOwner, owner)
		if len(got) > 0 {
			assert.Equal(t, all[len(all)-len(got):], got, "%s keeps its newest", owner)
		}
		for _, e := range all {
			assert.Equal(t, tb.holds(e), len(got) > 0 && !e.CreatedAt.Before(got[0].CreatedAt), "%s %s", owner, e.ID)
		}
		kept += len(got)
	}
	assert.Equal(t, tb.Len(), kept)
	assert.LessOrEqual(t, len(tb.ret.queue)-tb.ret.head, 2*total+1024, "the queue stays near the records kept")
}
