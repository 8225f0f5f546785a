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

// TestInsertRunKeepsWhatInsertOfEachKeeps drives two log tables with the
// same records: one by Insert of each, one by InsertRun of the runs of
// one owner in queues of every size (as the usage log moves its queue in),
// with clocks that repeat and go back, and checks after every queue that
// both hold the same records, stamped alike, and count them alike.
func TestInsertRunKeepsWhatInsertOfEachKeeps(t *testing.T) {
	const perOwner, total = 40, 100
	each, runs := NewLogTable[*UsageEntry](), NewLogTable[*UsageEntry]()
	for _, tb := range []*Table[*UsageEntry]{each, runs} {
		tb.SetRetention(Retention[*UsageEntry]{PerOwner: perOwner, Total: total})
	}
	owners := []string{"quiet1", "busy", "quiet2"}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	id := 0
	for queue := 1; id < 3_000; queue = queue%37 + 1 {
		var batch []*UsageEntry
		var batchOwners []string
		for range queue {
			id++
			owner := "busy" // runs of one owner, as a busy user makes
			if id%5 == 0 {
				owner = owners[(id/5)%len(owners)]
			}
			when := at.Add(time.Duration(id/3) * time.Second) // repeats
			if id%11 == 0 {
				when = when.Add(-time.Hour) // a clock set back
			}
			each.Insert(&UsageEntry{Base: Base{ID: strconv.Itoa(id)}, Endpoint: "/v1/leads"}, owner, when)
			batch = append(batch, &UsageEntry{Base: Base{ID: strconv.Itoa(id), CreatedAt: when}, Endpoint: "/v1/leads"})
			batchOwners = append(batchOwners, owner)
		}
		for start := 0; start < len(batch); {
			end := start + 1
			for end < len(batch) && batchOwners[end] == batchOwners[start] {
				end++
			}
			runs.InsertRun(batchOwners[start], batch[start:end])
			start = end
		}
		require.Equal(t, each.Len(), runs.Len(), "after record %d", id)
		for _, owner := range []string{"busy", "quiet1", "quiet2"} {
			require.Equal(t, stamps(each, owner), stamps(runs, owner), "%s after record %d", owner, id)
		}
	}
	assert.Equal(t, total, runs.Len(), "the bound in all was reached")
	assert.Len(t, runs.byOwner["busy"], perOwner, "the bound per owner was reached")
}

// stamps lists an owner's records in a table as id@created_at, oldest first.
func stamps(tb *Table[*UsageEntry], owner string) []string {
	var out []string
	for _, e := range tb.byOwner[owner] {
		out = append(out, e.ID+"@"+e.CreatedAt.Format(time.RFC3339Nano))
	}
	return out
}
