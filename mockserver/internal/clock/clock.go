// Package clock is the mock server's simulated time: a clock per tenant
// (Tenants), each the server's base time plus the tenant's own offset, with a
// scheduler of tasks that run when the clock reaches them. Tests move a
// tenant's clock, or every clock, with Advance; the standalone server can
// also let every clock follow real time at some speed.
package clock

import (
	"cmp"
	"container/heap"
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"
)

// End is the first time no clock reaches: every clock stays before it, so
// that every time the server shows, and what is reckoned from one (an
// expiry, a trial's end, a retry), encodes in RFC 3339, whose years end at
// 9999. A restore or an advance that would reach it is refused.
var End = time.Date(9000, 1, 1, 0, 0, 0, 0, time.UTC)

// CheckTime returns an *EndError when t is not before End: a time a clock
// may not show.
func CheckTime(t time.Time) error {
	if t.Before(End) {
		return nil
	}
	return &EndError{At: t}
}

// EndError is a time a clock may not reach: At is not before End.
type EndError struct {
	// At is the time refused.
	At time.Time
	// Tenant is the tenant whose clock would reach it ("" the base clock,
	// or a time of no clock).
	Tenant string
}

// Error implements error.
func (e *EndError) Error() string {
	msg := fmt.Sprintf("%s is not before %s, the last time a clock may reach", fmtTime(e.At), End.Format(time.RFC3339))
	if e.Tenant != "" {
		msg = "tenant " + e.Tenant + "'s clock would reach " + msg
	}
	return msg
}

// fmtTime is t in RFC 3339, or how far past year 9999 it is when it is too
// late for RFC 3339.
func fmtTime(t time.Time) string {
	if t.Year() > 9999 {
		return fmt.Sprintf("a time of year %d", t.Year())
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// Clock is a simulated clock with a scheduler. It is safe for concurrent use.
type Clock struct {
	mu     sync.RWMutex // read-locked by Now and Offset, on every request
	now    time.Time
	offset time.Duration // time moved by Advance (not by real-time following)
	tasks  taskHeap
	seq    uint64
	runMu  sync.Mutex // serializes the running of due tasks
}

// New returns a clock that reads start and does not move by itself.
func New(start time.Time) *Clock { return &Clock{now: start.UTC()} }

// Now returns the simulated time.
func (c *Clock) Now() time.Time {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.now
}

// Offset returns how far Advance has moved the clock in total, so that
// windows measured on real time (rate limits) can be moved by tests too.
func (c *Clock) Offset() time.Duration {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.offset
}

// Task is a piece of scheduled work as data: when it is due, what kind of
// work it is, and the record it acts on. GET /_mock/schedule lists a
// tenant's pending tasks.
type Task struct {
	// At is when the task is due.
	At time.Time
	// Kind names the work, such as "call.answer" or "delivery.attempt".
	Kind string
	// Subject is the id of the record the task acts on ("" when none).
	Subject string
	// N is a number the kind gives a meaning to (an attempt, a touch's
	// index), 0 when none.
	N int
}

// Schedule runs fn once the clock reaches t.At; fn receives the task's
// time and t. A task is never run synchronously by Schedule: one due now runs on
// the next Advance (Advance(0) runs it). Tasks run in time order, ties in
// scheduling order, one at a time. The returned func cancels the task if
// it has not run.
func (c *Clock) Schedule(t Task, fn func(now time.Time, t Task)) (cancel func()) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	qt := &task{Task: t, seq: c.seq, fn: fn}
	heap.Push(&c.tasks, qt)
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if qt.index >= 0 {
			heap.Remove(&c.tasks, qt.index)
		}
	}
}

// Tasks returns the pending tasks in the order they will run.
func (c *Clock) Tasks() []Task {
	c.mu.Lock()
	sorted := make([]*task, len(c.tasks))
	copy(sorted, c.tasks)
	c.mu.Unlock()
	slices.SortFunc(sorted, func(a, b *task) int {
		if d := a.At.Compare(b.At); d != 0 {
			return d
		}
		return cmp.Compare(a.seq, b.seq)
	})
	out := make([]Task, len(sorted))
	for i, t := range sorted {
		out[i] = t.Task
	}
	return out
}

// Pending returns how many tasks are waiting.
func (c *Clock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.tasks)
}

// Advance moves the clock forward by d (negative d counts as 0), running every
// task due on the way at its own time, including tasks those tasks schedule
// within the window. It returns the new time. It panics when the clock
// would reach End (see TryAdvance).
func (c *Clock) Advance(d time.Duration) time.Time {
	now, err := c.TryAdvance(d)
	if err != nil {
		panic("clock: Advance: " + err.Error())
	}
	return now
}

// TryAdvance is Advance, but it returns an *EndError and moves nothing
// when the clock would reach End.
func (c *Clock) TryAdvance(d time.Duration) (time.Time, error) {
	d = max(d, 0)
	c.mu.Lock()
	target := c.now.Add(d)
	if err := c.reaches(target); err != nil {
		c.mu.Unlock()
		return time.Time{}, err
	}
	c.offset += d
	c.mu.Unlock()
	return c.runUntil(target), nil
}

// reaches returns an *EndError when target is not before End, or when the
// addition that made it overflowed.
func (c *Clock) reaches(target time.Time) error {
	if target.Before(c.now) || !target.Before(End) {
		return &EndError{At: target}
	}
	return nil
}

// canAdvance reports what TryAdvance(d) would: nil, or an *EndError.
func (c *Clock) canAdvance(d time.Duration) error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.reaches(c.now.Add(max(d, 0)))
}

// Reset drops every pending task; the time stays.
func (c *Clock) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, t := range c.tasks {
		t.index = -1
	}
	c.tasks = nil
}

func (c *Clock) runUntil(target time.Time) time.Time {
	c.runMu.Lock()
	defer c.runMu.Unlock()
	for {
		c.mu.Lock()
		if len(c.tasks) == 0 || c.tasks[0].At.After(target) {
			if target.After(c.now) {
				c.now = target
			}
			now := c.now
			c.mu.Unlock()
			return now
		}
		t := heap.Pop(&c.tasks).(*task)
		if t.At.After(c.now) {
			c.now = t.At
		}
		now := c.now
		c.mu.Unlock()
		t.fn(now, t.Task)
	}
}

type task struct {
	Task
	seq   uint64
	fn    func(time.Time, Task)
	index int
}

type taskHeap []*task

func (h taskHeap) Len() int { return len(h) }
func (h taskHeap) Less(i, j int) bool {
	if !h[i].At.Equal(h[j].At) {
		return h[i].At.Before(h[j].At)
	}
	return h[i].seq < h[j].seq
}
func (h taskHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index, h[j].index = i, j
}
func (h *taskHeap) Push(x any) {
	t := x.(*task)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *taskHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	old[len(old)-1] = nil
	t.index = -1
	*h = old[:len(old)-1]
	return t
}

// Tenants is the time of a whole server: a base clock, and one clock per
// tenant that reads the base time plus the tenant's own offset. Moving one
// tenant's clock runs only that tenant's tasks, so tests in parallel on one
// server, each with its own tenant, never move each other's time. Moving
// the base moves every tenant with it. It is safe for concurrent use.
type Tenants struct {
	mu      sync.RWMutex // read-locked by Now, on every request
	base    *Clock
	tenants map[string]*Clock
}

// NewTenants returns the clocks of a server whose base time is start.
func NewTenants(start time.Time) *Tenants {
	return &Tenants{base: New(start), tenants: map[string]*Clock{}}
}

// Base returns the base clock: the time of work that belongs to no tenant
// (a signup before its account exists).
func (t *Tenants) Base() *Clock { return t.base }

// Of returns the clock of tenant ("" is the base clock). A tenant's clock is
// made on first use, reading the base time and with the base clock's
// offset, so a tenant that has never been moved reads the base time.
func (t *Tenants) Of(tenant string) *Clock {
	if tenant == "" {
		return t.base
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	c := t.tenants[tenant]
	if c == nil {
		t.base.mu.Lock()
		c = &Clock{now: t.base.now, offset: t.base.offset}
		t.base.mu.Unlock()
		t.tenants[tenant] = c
	}
	return c
}

// Now returns the time of tenant ("" the base time).
func (t *Tenants) Now(tenant string) time.Time {
	if tenant == "" {
		return t.base.Now()
	}
	t.mu.RLock()
	c := t.tenants[tenant]
	t.mu.RUnlock()
	if c == nil {
		return t.base.Now()
	}
	return c.Now()
}

// Advance moves the base time, and with it every tenant, forward by d,
// running every task due on the way (each clock's tasks in its own time
// order). It returns the new base time. It panics when a clock would reach
// End (see TryAdvance).
func (t *Tenants) Advance(d time.Duration) time.Time {
	now, err := t.TryAdvance(d)
	if err != nil {
		panic("clock: Advance: " + err.Error())
	}
	return now
}

// TryAdvance is Advance, but it returns an *EndError naming the tenant,
// and moves no clock, when one would reach End.
func (t *Tenants) TryAdvance(d time.Duration) (time.Time, error) {
	if err := t.base.canAdvance(d); err != nil {
		return time.Time{}, err
	}
	t.mu.RLock()
	for _, id := range slices.Sorted(maps.Keys(t.tenants)) {
		if err := t.tenants[id].canAdvance(d); err != nil {
			t.mu.RUnlock()
			err.(*EndError).Tenant = id
			return time.Time{}, err
		}
	}
	t.mu.RUnlock()
	now, err := t.base.TryAdvance(d)
	if err != nil {
		return time.Time{}, err
	}
	for _, c := range t.clocks() {
		// A tenant's clock moved meanwhile past what was checked stays
		// where it is rather than reach End.
		_, _ = c.TryAdvance(d)
	}
	return now, nil
}

// Pending returns how many tasks wait on every clock together.
func (t *Tenants) Pending() int {
	n := t.base.Pending()
	for _, c := range t.clocks() {
		n += c.Pending()
	}
	return n
}

// IDs returns the tenants that have a clock, sorted.
func (t *Tenants) IDs() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Sorted(maps.Keys(t.tenants))
}

// Reset drops every tenant's clock and the base clock's pending tasks; the
// base time stays.
func (t *Tenants) Reset() {
	t.mu.Lock()
	old := t.tenants
	t.tenants = map[string]*Clock{}
	t.mu.Unlock()
	for _, c := range old {
		c.Reset()
	}
	t.base.Reset()
}

// Set drops tenant's pending tasks and sets its time to now (the base
// clock for ""), as a restored snapshot has it. Its offset becomes the
// base clock's plus how far now is past the base time, so rate-limit
// windows move with it as they would after Advance. Set never runs a task.
// It panics when now is not before End: check a time with CheckTime
// first.
func (t *Tenants) Set(tenant string, now time.Time) {
	if err := CheckTime(now); err != nil {
		panic("clock: Set: " + err.Error())
	}
	now = now.UTC()
	if tenant == "" {
		c := t.base
		c.Reset()
		c.mu.Lock()
		c.offset += now.Sub(c.now)
		c.now = now
		c.mu.Unlock()
		return
	}
	c := t.Of(tenant)
	c.Reset()
	t.base.mu.Lock()
	offset := t.base.offset + now.Sub(t.base.now)
	t.base.mu.Unlock()
	c.mu.Lock()
	c.now, c.offset = now, offset
	c.mu.Unlock()
}

// Remove drops tenant's clock and its pending tasks: the tenant reads the
// base time again until its clock is next made.
func (t *Tenants) Remove(tenant string) {
	t.mu.Lock()
	c := t.tenants[tenant]
	delete(t.tenants, tenant)
	t.mu.Unlock()
	if c != nil {
		c.Reset()
	}
}

// Follow moves the base time, and every tenant with it, with real time at
// speed (1 = real time) until ctx ends, running due tasks as it goes.
func (t *Tenants) Follow(ctx context.Context, speed float64, tick time.Duration) {
	last := time.Now()
	tk := time.NewTicker(tick)
	defer tk.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case real := <-tk.C:
			step := time.Duration(float64(real.Sub(last)) * speed)
			last = real
			t.base.runUntil(beforeEnd(t.base.Now().Add(step)))
			for _, c := range t.clocks() {
				c.runUntil(beforeEnd(c.Now().Add(step)))
			}
		}
	}
}

// beforeEnd is target, or the last nanosecond before End when target is
// not before it: a clock following real time stops there.
func beforeEnd(target time.Time) time.Time {
	if !target.Before(End) {
		return End.Add(-time.Nanosecond)
	}
	return target
}

// clocks returns the tenants' clocks.
func (t *Tenants) clocks() []*Clock {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Collect(maps.Values(t.tenants))
}
