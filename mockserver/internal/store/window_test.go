package store

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestPageBetweenKeepsTheWindowAndStopsAtItsStart(t *testing.T) {
	tb := NewTable[*rec]()
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 20 {
		tb.Put(mkrec(fmt.Sprint(i), "u", epoch.Add(time.Duration(i)*time.Minute), i))
	}
	since, before := epoch.Add(5*time.Minute), epoch.Add(12*time.Minute)
	ns := func(rs []*rec) []int {
		out := []int{}
		for _, r := range rs {
			out = append(out, r.n)
		}
		return out
	}
	page, more := tb.PageBetween([]string{"u"}, since, before, 4, nil)
	assert.Equal(t, []int{11, 10, 9, 8}, ns(page), "before is exclusive")
	assert.True(t, more)
	page, more = tb.PageBetween([]string{"u"}, since, page[3].CreatedAt, 4, nil)
	assert.Equal(t, []int{7, 6, 5}, ns(page), "since is inclusive")
	assert.False(t, more, "nothing more inside the window")

	visited := 0
	page, more = tb.PageBetween([]string{"u"}, since, time.Time{}, 100, func(r *rec) bool { visited++; return r.n%2 == 0 })
	assert.Equal(t, []int{18, 16, 14, 12, 10, 8, 6}, ns(page))
	assert.False(t, more)
	assert.Equal(t, 15, visited, "records older than since are never visited")

	page, _ = tb.PageBetween([]string{"u"}, time.Time{}, time.Time{}, 3, nil)
	assert.Equal(t, []int{19, 18, 17}, ns(page), "no bounds: Page")
}

func TestPageFromKeepsTheWindowAndStopsAtItsEnd(t *testing.T) {
	tb := NewTable[*rec]()
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 20 {
		tb.Put(mkrec(fmt.Sprint(i), "u", epoch.Add(time.Duration(i)*time.Minute), i))
	}
	ns := func(rs []*rec) []int {
		out := []int{}
		for _, r := range rs {
			out = append(out, r.n)
		}
		return out
	}
	since, before := epoch.Add(5*time.Minute), epoch.Add(12*time.Minute)
	page, more := tb.PageFrom([]string{"u"}, since, before, 4, nil)
	assert.Equal(t, []int{5, 6, 7, 8}, ns(page), "since is inclusive")
	assert.True(t, more)
	page, more = tb.PageFrom([]string{"u"}, page[3].CreatedAt.Add(time.Nanosecond), before, 4, nil)
	assert.Equal(t, []int{9, 10, 11}, ns(page), "before is exclusive")
	assert.False(t, more, "nothing more inside the window")

	visited := 0
	page, more = tb.PageFrom([]string{"u"}, time.Time{}, before, 100, func(r *rec) bool { visited++; return r.n%2 == 0 })
	assert.Equal(t, []int{0, 2, 4, 6, 8, 10}, ns(page))
	assert.False(t, more)
	assert.Equal(t, 12, visited, "records from before on are never matched")

	page, _ = tb.PageFrom([]string{"u"}, time.Time{}, time.Time{}, 3, nil)
	assert.Equal(t, []int{0, 1, 2}, ns(page), "no bounds: the oldest")
}
