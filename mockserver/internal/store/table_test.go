package store

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rec is a test record: a Base and a number.
type rec struct {
	Base
	n int
}

// mkrec returns a rec with its Base set.
func mkrec(id, owner string, created time.Time, n int) *rec {
	return &rec{Base: Base{ID: id, Owner: owner, CreatedAt: created}, n: n}
}

func TestStampIsStrictlyIncreasingPerOwnerEvenOnAFrozenClock(t *testing.T) {
	tb := NewTable[*rec]()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	a := mkrec("a", "biz", tb.Stamp("biz", now), 0)
	tb.Put(a)
	b := mkrec("b", "biz", tb.Stamp("biz", now), 0)
	tb.Put(b)
	assert.True(t, b.CreatedAt.After(a.CreatedAt))
	assert.Equal(t, now, a.CreatedAt)
	assert.True(t, tb.Stamp("biz", now.Add(-time.Hour)).After(b.CreatedAt))

	// Another owner's clock may be behind: its records keep their own time
	// rather than being pushed after the first owner's.
	earlier := now.Add(-24 * time.Hour)
	assert.Equal(t, earlier, tb.Stamp("other", earlier))
}

// threeOwners returns a table of one stamp group holding records 0 to 24
// of owners a, b and c in turn, made on a frozen clock at now.
func threeOwners(now time.Time) *Table[*rec] {
	tb := NewTable[*rec]()
	tb.SetStampGroup(func(string) string { return "one tenant" })
	for i := range 25 {
		owner := []string{"a", "b", "c"}[i%3]
		tb.Put(mkrec(fmt.Sprint(i), owner, tb.Stamp(owner, now), i))
	}
	return tb
}

// walkPages reads pages from the zero cursor until the last: page reads
// the page at a cursor, cursor gives the next one from a page's last
// record, and between runs after every page but the last. It returns the
// numbers of the records read, in order.
func walkPages(page func(cursor time.Time) ([]*rec, bool), cursor func(last *rec) time.Time, between func(page []*rec)) []int {
	var seen []int
	var at time.Time
	for {
		recs, more := page(at)
		for _, r := range recs {
			seen = append(seen, r.n)
		}
		if !more {
			return seen
		}
		at = cursor(recs[len(recs)-1])
		between(recs)
	}
}

func TestPageWalksTwoOwnersNewestFirstWithoutGapsOrRepeats(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tb := threeOwners(now)
	seen := walkPages(func(after time.Time) ([]*rec, bool) {
		return tb.Page([]string{"a", "b"}, after, 4, func(r *rec) bool { return r.n != 10 })
	}, func(last *rec) time.Time { return last.CreatedAt }, func([]*rec) {
		// A record added during the walk is newer than the cursor: not seen.
		tb.Put(mkrec("new"+fmt.Sprint(tb.Len()), "a", tb.Stamp("a", now), 1000))
	})
	var want []int
	for i := 24; i >= 0; i-- {
		if i%3 != 2 && i != 10 {
			want = append(want, i)
		}
	}
	assert.Equal(t, want, seen)
}

func TestPutReplacesAndDeleteRemoves(t *testing.T) {
	tb := NewTable[*rec]()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	r := mkrec("x", "a", tb.Stamp("a", now), 0)
	tb.Put(r)
	tb.Put(mkrec("x", "a", r.CreatedAt, 7))
	require.Equal(t, 1, tb.Len())
	require.Equal(t, 1, tb.Count("a"))
	got, ok := tb.Get("x")
	require.True(t, ok)
	assert.Equal(t, 7, got.n)
	assert.True(t, tb.Delete("x"))
	assert.False(t, tb.Delete("x"))
	assert.Equal(t, 0, tb.Count("a"))
	page, more := tb.Page([]string{"a"}, time.Time{}, 10, nil)
	assert.Empty(t, page)
	assert.False(t, more)
}

// BenchmarkPage shows that a page read does not grow with the table.
func BenchmarkPage(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			tb := NewTable[*rec]()
			now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			for i := range n {
				tb.Put(mkrec(fmt.Sprint(i), "biz", tb.Stamp("biz", now), i))
			}
			mid := tb.Owned("biz")[n/2].CreatedAt
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				page, _ := tb.Page([]string{"biz"}, mid, 100, func(r *rec) bool { return r.n%5 == 0 })
				if len(page) != 100 {
					b.Fatal(len(page))
				}
			}
		})
	}
}

func TestPageFromWalksTwoOwnersOldestFirstWithoutGapsOrRepeats(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tb := threeOwners(now)
	seen := walkPages(func(since time.Time) ([]*rec, bool) {
		return tb.PageFrom([]string{"a", "b"}, since, time.Time{}, 4, func(r *rec) bool { return r.n != 10 })
	}, func(last *rec) time.Time { return last.CreatedAt.Add(time.Nanosecond) }, func(page []*rec) {
		// A record deleted behind the cursor changes nothing ahead of it.
		tb.Delete(fmt.Sprint(page[0].n))
	})
	var want []int
	for i := range 25 {
		if i%3 != 2 && i != 10 {
			want = append(want, i)
		}
	}
	assert.Equal(t, want, seen)

	// A record added during the walk is newer than every other: the last
	// page shows it.
	tb2 := NewTable[*rec]()
	for i := range 3 {
		tb2.Put(mkrec(fmt.Sprint(i), "a", tb2.Stamp("a", now), i))
	}
	page, more := tb2.PageFrom([]string{"a"}, time.Time{}, time.Time{}, 2, nil)
	require.True(t, more)
	tb2.Put(mkrec("new", "a", tb2.Stamp("a", now), 99))
	page, more = tb2.PageFrom([]string{"a"}, page[1].CreatedAt.Add(time.Nanosecond), time.Time{}, 2, nil)
	assert.False(t, more)
	require.Len(t, page, 2)
	assert.Equal(t, []int{2, 99}, []int{page[0].n, page[1].n})
}
