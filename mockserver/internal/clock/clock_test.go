package clock

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAdvanceRunsTasksInOrderAtTheirTime(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := New(start)
	var got []string
	var times []time.Time
	c.Schedule(start.Add(10*time.Second), func(now time.Time) { got = append(got, "b"); times = append(times, now) })
	c.Schedule(start.Add(5*time.Second), func(now time.Time) {
		got = append(got, "a")
		times = append(times, now)
		// A task scheduled by a task, inside the window, runs too.
		c.Schedule(now.Add(time.Second), func(now time.Time) { got = append(got, "a2"); times = append(times, now) })
	})
	c.Schedule(start.Add(time.Hour), func(time.Time) { got = append(got, "late") })

	now := c.Advance(30 * time.Second)
	assert.Equal(t, start.Add(30*time.Second), now)
	assert.Equal(t, []string{"a", "a2", "b"}, got)
	assert.Equal(t, []time.Time{start.Add(5 * time.Second), start.Add(6 * time.Second), start.Add(10 * time.Second)}, times)
	assert.Equal(t, 1, c.Pending())
	assert.Equal(t, 30*time.Second, c.Offset())
}

func TestScheduleNeverRunsSynchronouslyAndCancelWorks(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := New(start)
	ran := 0
	c.Schedule(start, func(time.Time) { ran++ })
	cancel := c.Schedule(start, func(time.Time) { ran += 10 })
	require.Equal(t, 0, ran)
	cancel()
	c.Advance(0)
	assert.Equal(t, 1, ran)
	c.Reset()
	c.Schedule(start, func(time.Time) { ran++ })
	c.Reset()
	c.Advance(time.Second)
	assert.Equal(t, 1, ran)
}
