package platform

import (
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// state is the store as a Tx embeds it: under a name other packages cannot
// write, so that no package outside this one makes a Tx from a store.
type state = store.Store

// Tx is the server's state while its lock is held. ReadTx and WriteTx take
// the lock and return one; End releases it. The pipeline begins one for
// each request (a read Tx for a GET, a write Tx otherwise) and the clock
// one for each task it runs, so a function that takes a *Tx is called
// under the lock: the parameter says what a comment used to.
//
// A Tx reaches the store's tables directly (tx.Agents, tx.Calls, ...). It
// must not be used after End.
type Tx struct {
	*state
	mu    *StateLock
	write bool
}

// ReadTx takes the read lock and returns a read Tx.
func (s *Platform) ReadTx() *Tx {
	s.mu.RLock()
	return &Tx{state: s.store, mu: &s.mu}
}

// WriteTx takes the write lock and returns a write Tx.
func (s *Platform) WriteTx() *Tx {
	s.mu.Lock()
	return &Tx{state: s.store, mu: &s.mu, write: true}
}

// End releases the lock tx holds.
func (tx *Tx) End() {
	if tx.write {
		tx.mu.Unlock()
	} else {
		tx.mu.RUnlock()
	}
	tx.state = nil
}

// Version returns how many write Txs have ended on this server: two
// reads that see the same version saw the same state.
func (tx *Tx) Version() uint64 { return tx.mu.Version() }

// Writable reports whether tx holds the write lock, so that the state may
// be changed through it.
func (tx *Tx) Writable() bool { return tx.write }

// Read calls fn with a read Tx.
func (s *Platform) Read(fn func(tx *Tx)) {
	tx := s.ReadTx()
	defer tx.End()
	fn(tx)
}

// Write calls fn with a write Tx.
func (s *Platform) Write(fn func(tx *Tx)) {
	tx := s.WriteTx()
	defer tx.End()
	fn(tx)
}
