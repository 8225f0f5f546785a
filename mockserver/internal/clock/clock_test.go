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
	c.Schedule(Task{At: start.Add(10 * time.Second)}, func(now time.Time, _ Task) { got = append(got, "b"); times = append(times, now) })
	c.Schedule(Task{At: start.Add(5 * time.Second)}, func(now time.Time, _ Task) {
		got = append(got, "a")
		times = append(times, now)
		// A task scheduled by a task, inside the window, runs too.
		c.Schedule(Task{At: now.Add(time.Second)}, func(now time.Time, _ Task) { got = append(got, "a2"); times = append(times, now) })
	})
	c.Schedule(Task{At: start.Add(time.Hour)}, func(time.Time, Task) { got = append(got, "late") })

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
	c.Schedule(Task{At: start}, func(time.Time, Task) { ran++ })
	cancel := c.Schedule(Task{At: start}, func(time.Time, Task) { ran += 10 })
	require.Equal(t, 0, ran)
	cancel()
	c.Advance(0)
	assert.Equal(t, 1, ran)
	c.Reset()
	c.Schedule(Task{At: start}, func(time.Time, Task) { ran++ })
	c.Reset()
	c.Advance(time.Second)
	assert.Equal(t, 1, ran)
}

// Tasks lists the pending tasks as data in the order they will run (ties
// in scheduling order), without what ran or was cancelled.
func TestTasksListsPendingWorkInOrder(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := New(start)
	c.Schedule(Task{At: start.Add(time.Hour), Kind: "late", Subject: "c"}, func(time.Time, Task) {})
	c.Schedule(Task{At: start.Add(time.Minute), Kind: "first", Subject: "a"}, func(time.Time, Task) {})
	c.Schedule(Task{At: start.Add(time.Minute), Kind: "tie", Subject: "b", N: 2}, func(time.Time, Task) {})
	cancel := c.Schedule(Task{At: start.Add(time.Second), Kind: "cancelled"}, func(time.Time, Task) {})
	cancel()
	assert.Equal(t, []Task{
		{At: start.Add(time.Minute), Kind: "first", Subject: "a"},
		{At: start.Add(time.Minute), Kind: "tie", Subject: "b", N: 2},
		{At: start.Add(time.Hour), Kind: "late", Subject: "c"},
	}, c.Tasks())
	c.Advance(2 * time.Minute)
	assert.Equal(t, []Task{{At: start.Add(time.Hour), Kind: "late", Subject: "c"}}, c.Tasks())
	assert.Empty(t, New(start).Tasks())
}

// A task's func receives the task itself, so one func can serve every task
// of a kind.
func TestScheduleHandsTheTaskToItsFunc(t *testing.T) {
	start := time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)
	c := New(start)
	var got []Task
	fn := func(_ time.Time, t Task) { got = append(got, t) }
	a := Task{At: start.Add(time.Second), Kind: "k", Subject: "a", N: 1}
	b := Task{At: start.Add(2 * time.Second), Kind: "k", Subject: "b", N: 2}
	c.Schedule(b, fn)
	c.Schedule(a, fn)
	c.Advance(time.Minute)
	if len(got) != 2 || got[0] != a || got[1] != b {
		t.Fatalf("the funcs got %v, want %v then %v", got, a, b)
	}
}

// No clock reaches End: an advance that would is refused whole (no clock
// moves, no task runs) with an *EndError naming the tenant; Advance
// panics instead; Set refuses a time at End; one nanosecond before is
// fine.
func TestClocksStayBeforeEnd(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ts := NewTenants(start)
	ts.Set("late", End.Add(-time.Hour))
	ran := false
	ts.Of("late").Schedule(Task{At: End.Add(-time.Minute)}, func(time.Time, Task) { ran = true })

	_, err := ts.Of("late").TryAdvance(2 * time.Hour)
	var end *EndError
	require.ErrorAs(t, err, &end)
	assert.Equal(t, End.Add(time.Hour), end.At)
	assert.False(t, ran, "no task runs")
	assert.Equal(t, End.Add(-time.Hour), ts.Now("late"))

	_, err = ts.TryAdvance(2 * time.Hour)
	require.ErrorAs(t, err, &end)
	assert.Equal(t, "late", end.Tenant)
	assert.Contains(t, err.Error(), "tenant late's clock would reach")
	assert.Contains(t, err.Error(), "9000-01-01T00:00:00Z")
	assert.Equal(t, start, ts.Now(""), "the base did not move either")
	assert.Panics(t, func() { ts.Advance(2 * time.Hour) })
	assert.Panics(t, func() { ts.Of("late").Advance(2 * time.Hour) })
	assert.Panics(t, func() { ts.Set("other", End) })

	now, err := ts.Of("late").TryAdvance(time.Hour - time.Nanosecond)
	require.NoError(t, err)
	assert.Equal(t, End.Add(-time.Nanosecond), now)
	assert.True(t, ran)
	require.NoError(t, CheckTime(End.Add(-time.Nanosecond)))
	require.ErrorAs(t, CheckTime(time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)), &end)
	assert.Contains(t, end.Error(), "a time of year 10000")
}
