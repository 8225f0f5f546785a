package platform

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

func TestTxHoldsTheLock(t *testing.T) {
	p := New(Config{Start: time.Date(2026, 1, 2, 19, 0, 0, 0, time.UTC)})
	tx := p.WriteTx()
	if !tx.Writable() {
		t.Error("WriteTx gave a read Tx")
	}
	if p.mu.TryRLock() {
		t.Error("a write Tx does not hold the write lock")
	}
	tx.End()
	if !p.mu.TryLock() {
		t.Fatal("End did not release the write lock")
	}
	p.mu.Unlock()

	tx = p.ReadTx()
	if tx.Writable() {
		t.Error("ReadTx gave a write Tx")
	}
	if p.mu.TryLock() {
		t.Error("a read Tx does not hold the read lock")
	}
	if tx.Agents == nil {
		t.Error("a Tx does not reach the store's tables")
	}
	tx.End()
	if !p.mu.TryLock() {
		t.Fatal("End did not release the read lock")
	}
	p.mu.Unlock()
}

func TestScheduleGivesAWriteTx(t *testing.T) {
	start := time.Date(2026, 1, 2, 19, 0, 0, 0, time.UTC)
	p := New(Config{Start: start})
	var ran time.Time
	p.DefineTask("test", func(tx *Tx, now time.Time, _ clock.Task) {
		if !tx.Writable() || p.mu.TryRLock() {
			t.Error("a task runs without the write lock")
		}
		ran = now
	})
	p.Schedule("", clock.Task{At: start.Add(time.Minute), Kind: "test"})
	p.Clocks.Of("").Advance(2 * time.Minute)
	if !ran.Equal(start.Add(time.Minute)) {
		t.Errorf("the task ran at %v, want %v", ran, start.Add(time.Minute))
	}
}

// A task's kind is defined once; Schedule panics on a kind nobody defined
// (a programming error), and Resume, which rebuilds a task from data,
// returns an error instead and schedules nothing.
func TestTaskKinds(t *testing.T) {
	p := New(Config{Start: time.Date(2026, 1, 2, 19, 0, 0, 0, time.UTC)})
	assert := func(ok bool, msg string) {
		t.Helper()
		if !ok {
			t.Error(msg)
		}
	}
	panics := func(f func()) (panicked bool) {
		defer func() { panicked = recover() != nil }()
		f()
		return false
	}
	var ran []clock.Task
	p.DefineTask("a.locked", func(tx *Tx, _ time.Time, task clock.Task) {
		assert(tx.Writable(), "a task runs with a write Tx")
		ran = append(ran, task)
	})
	p.DefineUnlockedTask("a.unlocked", func(tenant string, _ time.Time, task clock.Task) {
		assert(p.mu.TryLock(), "an unlocked task runs without the lock")
		p.mu.Unlock()
		assert(tenant == "t1", "an unlocked task gets its tenant")
		ran = append(ran, task)
	})
	assert(p.TaskDefined("a.locked") && p.TaskDefined("a.unlocked") && !p.TaskDefined("b"), "TaskDefined")
	assert(slices.Equal(p.TaskKinds(), []string{"a.locked", "a.unlocked"}), "TaskKinds")
	assert(panics(func() { p.DefineTask("a.locked", func(*Tx, time.Time, clock.Task) {}) }), "a kind defined twice panics")
	assert(panics(func() { p.DefineTask("", func(*Tx, time.Time, clock.Task) {}) }), "the empty kind panics")
	assert(panics(func() { p.Schedule("t1", clock.Task{Kind: "b"}) }), "scheduling an unknown kind panics")
	assert(p.Resume("t1", clock.Task{Kind: "b"}) != nil, "resuming an unknown kind is an error")
	assert(p.Clocks.Of("t1").Pending() == 0, "nothing of an unknown kind is scheduled")

	now := p.Now("t1")
	first := clock.Task{At: now.Add(time.Minute), Kind: "a.locked", Subject: "x", N: 1}
	second := clock.Task{At: now.Add(2 * time.Minute), Kind: "a.unlocked", Subject: "y", N: 2}
	if err := p.Resume("t1", second); err != nil {
		t.Fatal(err)
	}
	p.Schedule("t1", first)
	cancel := p.Schedule("t1", clock.Task{At: now.Add(time.Minute), Kind: "a.locked", Subject: "canceled"})
	cancel()
	p.Clocks.Of("t1").Advance(time.Hour)
	assert(slices.Equal(ran, []clock.Task{first, second}), "the tasks ran in time order with their own values")
}

// A write through a read Tx is refused by the store: it panics, saying so,
// and the state is as it was; the same write through a write Tx is done,
// and a reset's new store refuses it too.
func TestAWriteThroughAReadTxPanics(t *testing.T) {
	p := New(Config{Start: time.Date(2026, 1, 2, 19, 0, 0, 0, time.UTC)})
	write := func(tx *Tx) (msg string) {
		defer func() {
			if r := recover(); r != nil {
				msg = fmt.Sprint(r)
			}
		}()
		tx.Leads.Insert(&store.Lead{Base: store.Base{ID: "lead"}}, "biz", p.Now(""))
		return ""
	}
	const want = "store: Insert without the write lock: the state was written through a read Tx"
	p.Read(func(tx *Tx) {
		assert.Contains(t, write(tx), want)
		assert.Zero(t, tx.Leads.Len(), "nothing was written")
	})
	p.Write(func(tx *Tx) { assert.Empty(t, write(tx)) })
	p.Read(func(tx *Tx) { assert.Equal(t, 1, tx.Leads.Len()) })
	p.ResetState(false)
	p.Read(func(tx *Tx) { assert.Contains(t, write(tx), want, "after a reset") })
	p.Write(func(tx *Tx) { assert.Empty(t, write(tx), "after a reset") })
}
