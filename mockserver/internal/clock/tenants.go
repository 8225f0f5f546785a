package clock

import (
	"context"
	"maps"
	"slices"
	"sync"
	"time"
)

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
// order). It returns the new base time.
func (t *Tenants) Advance(d time.Duration) time.Time {
	now := t.base.Advance(d)
	for _, c := range t.clocks() {
		c.Advance(d)
	}
	return now
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
			target := t.base.Now().Add(step)
			t.base.runUntil(target)
			for _, c := range t.clocks() {
				c.runUntil(c.Now().Add(step))
			}
		}
	}
}

// clocks returns the tenants' clocks.
func (t *Tenants) clocks() []*Clock {
	t.mu.Lock()
	defer t.mu.Unlock()
	return slices.Collect(maps.Values(t.tenants))
}
