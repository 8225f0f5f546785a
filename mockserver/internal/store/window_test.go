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
