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
