package platform

import (
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// state is the store as a Tx embeds it: under a name other packages cannot
// write, so that no package outside this one makes a Tx from a store.
type state = store.Store

// Tx is the server's state while its lock is held. The pipeline makes one
// for each request (a read Tx for a GET, a write Tx otherwise) and the
// clock one for each task it runs, so a function that takes a *Tx is called
// under the lock: the parameter says what a comment used to.
//
// A Tx reaches the store's tables directly (tx.Agents, tx.Calls, ...). It
// is valid only until the function it was given to returns.
type Tx struct {
	*state
	write bool
}

// Writable reports whether tx holds the write lock, so that the state may
// be changed through it.
func (tx *Tx) Writable() bool { return tx.write }

// Read calls fn with a read Tx, under the read lock.
func (s *Platform) Read(fn func(tx *Tx)) {
	s.Mu.RLock()
	defer s.Mu.RUnlock()
	fn(&Tx{state: s.Store})
}

// Write calls fn with a write Tx, under the write lock.
func (s *Platform) Write(fn func(tx *Tx)) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	fn(&Tx{state: s.Store, write: true})
}

// TxLocked returns a Tx for a caller that already holds the lock as write
// says (the pipeline, which takes the lock its route asks for).
func (s *Platform) TxLocked(write bool) *Tx { return &Tx{state: s.Store, write: write} }

// ScheduleTx runs fn with a write Tx once tenant's clock reaches at ("":
// the base clock, for work of no tenant). fn receives the tenant's time.
func (s *Platform) ScheduleTx(tenant string, at time.Time, fn func(tx *Tx, now time.Time)) (cancel func()) {
	return s.Clocks.Of(tenant).Schedule(at, func(now time.Time) {
		s.Write(func(tx *Tx) { fn(tx, now) })
	})
}
