// Package platform is the engine every domain of the mock server shares: the
// state lock, the store, the tenants' simulated clocks, ids, the outbox, the event bus,
// and the typed hooks (a call ended, a text was delivered, a finished call's
// knowledge note) through which one domain reacts to another.
//
// It names no domain and no route: a lower layer announces what happened
// through a hook, and the domains that care subscribe when they are made.
package platform

import (
	"sync"
	"sync/atomic"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/watch"
)

// Platform is the state of one mock server and the engine that moves it.
// Every domain service embeds it.
type Platform struct {
	// Config is the server's configuration, fixed when it is made.
	Config Config

	// mu guards store, which is reached only through a Tx (ReadTx,
	// WriteTx, Schedule).
	mu StateLock
	// store is the whole state; ResetState replaces it.
	store *store.Store

	// Clocks are the simulated clocks and their schedulers: a base time
	// and one clock per tenant (see Now and Schedule).
	Clocks *clock.Tenants
	// IDs makes ids, keys, codes and secrets.
	IDs *IDGen
	// OutboxNotifier is notified of every message the platform sends to a
	// person.
	OutboxNotifier watch.Notifier
	// Bus carries every platform event to its subscribers.
	Bus *EventBus

	on        engineHooks
	resets    []func()
	newStates []func(tx *Tx)
	reseeds   []func(tx *Tx) int
}

// New returns the engine of a server with an empty store.
func New(cfg Config) *Platform {
	ids := newIDGen(cfg.IDSeed)
	p := &Platform{
		Config: cfg,
		store:  store.NewWithIDs(ids.UUID),
		Clocks: clock.NewTenants(cfg.Start),
		IDs:    ids,
		Bus:    newEventBus(),
	}
	p.boundLogs()
	return p
}

// StateLock is the lock that guards a server's state: a
// read-write lock that counts the releases of its write lock, so that a
// reader can tell whether the state changed since an earlier reading.
type StateLock struct {
	sync.RWMutex
	version atomic.Uint64
}

// Unlock releases the write lock and counts a change of the state.
func (l *StateLock) Unlock() {
	l.version.Add(1)
	l.RWMutex.Unlock()
}

// Version returns how many times the write lock was released. Two
// readings under the read lock with the same version saw the same state.
func (l *StateLock) Version() uint64 { return l.version.Load() }
