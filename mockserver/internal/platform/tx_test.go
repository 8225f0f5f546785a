package platform

import (
	"testing"
	"time"
)

func TestTxLocks(t *testing.T) {
	p := New(Config{Start: time.Date(2026, 1, 2, 19, 0, 0, 0, time.UTC)})
	p.Write(func(tx *Tx) {
		if !tx.Writable() {
			t.Error("Write gave a read Tx")
		}
		if p.Mu.TryRLock() {
			t.Error("Write does not hold the write lock")
			p.Mu.RUnlock()
		}
	})
	p.Read(func(tx *Tx) {
		if tx.Writable() {
			t.Error("Read gave a write Tx")
		}
		if p.Mu.TryLock() {
			t.Error("Read does not hold the read lock")
			p.Mu.Unlock()
		}
		if tx.Agents == nil {
			t.Error("a Tx does not reach the store's tables")
		}
	})
}

func TestScheduleTxRunsUnderTheWriteLock(t *testing.T) {
	start := time.Date(2026, 1, 2, 19, 0, 0, 0, time.UTC)
	p := New(Config{Start: start})
	var ran time.Time
	p.ScheduleTx("", start.Add(time.Minute), func(tx *Tx, now time.Time) {
		if !tx.Writable() || p.Mu.TryRLock() {
			t.Error("a task runs without the write lock")
		}
		ran = now
	})
	p.Clocks.Of("").Advance(2 * time.Minute)
	if !ran.Equal(start.Add(time.Minute)) {
		t.Errorf("task ran at %v, want %v", ran, start.Add(time.Minute))
	}
}
