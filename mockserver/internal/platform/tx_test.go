package platform

import (
	"testing"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
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
