// Package platform is the engine every domain of the mock server shares: the
// state lock, the store, the tenants' simulated clocks, ids, the outbox, the event bus,
// and the typed hooks (a call ended, a text was delivered, a finished call's
// knowledge note) through which one domain reacts to another.
//
// It names no domain and no route: a lower layer announces what happened
// through a hook, and the domains that care subscribe when they are made.
package platform

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/hex"
	"log/slog"
	mrand "math/rand/v2"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/watch"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// Platform is the state of one mock server and the engine that moves it.
// Every domain service embeds it.
type Platform struct {
	// Config is the server's configuration, fixed when it is made.
	Config Config

	// mu is the state lock: ReadTx and WriteTx (and the tasks Schedule
	// runs) take it and hand out the store in a Tx.
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

	tasks     taskKinds
	on        engineHooks
	resets    []func()
	removals  []func(tx *Tx, tenant string)
	newStates []func(tx *Tx)
	reseeds   []func(tx *Tx) int
}

// New returns the engine of a server with an empty store.
func New(cfg Config) *Platform {
	cfg.Limits = cfg.Limits.OrDefault()
	ids := newIDGen(cfg.IDSeed)
	p := &Platform{
		Config: cfg,
		store:  newStore(ids),
		Clocks: clock.NewTenants(cfg.Start),
		IDs:    ids,
		Bus:    newEventBus(),
	}
	p.store.BeginWrite()
	p.boundLogs()
	p.store.EndWrite()
	return p
}

// newStore returns an empty store whose writes need a write Tx.
func newStore(ids *IDGen) *store.Store {
	st := store.NewWithIDs(ids.UUID)
	st.GuardWrites()
	return st
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
// must not be used after End. The store refuses a write through a read Tx
// (Insert, Update, Delete and the store's other writes panic): a handler
// that writes needs a write Tx.
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
	s.store.BeginWrite()
	return &Tx{state: s.store, mu: &s.mu, write: true}
}

// End releases the lock tx holds.
func (tx *Tx) End() {
	if tx.write {
		tx.state.EndWrite()
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

// EventBus is the one event bus: every platform event is recorded in the
// store's event log and handed to each subscriber (webhook deliveries,
// waiting tests).
type EventBus struct {
	mu   sync.Mutex
	subs []func(tx *Tx, ev *store.Event)
}

// newEventBus returns a bus without subscribers.
func newEventBus() *EventBus { return &EventBus{} }

// Subscribe adds fn, called with the emitter's write Tx for every event: it
// must not block.
func (b *EventBus) Subscribe(fn func(tx *Tx, ev *store.Event)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.subs = append(b.subs, fn)
}

// Emit records an event of a business at a simulated time, with data (the
// resource) encoded as it is now, and hands it to the subscribers.
func (s *Platform) Emit(tx *Tx, businessID string, eventType webhooks.EventType, at time.Time, data any) *store.Event {
	raw, err := jsonview.EncodeJSON(data)
	if err != nil {
		raw = []byte("null")
	}
	ev := tx.Events.Insert(&store.Event{Type: string(eventType), Timestamp: at.UTC(), Data: raw}, businessID, at)
	s.Bus.mu.Lock()
	subs := s.Bus.subs
	s.Bus.mu.Unlock()
	for _, fn := range subs {
		fn(tx, ev)
	}
	return ev
}

// Config is the server's configuration: what New's options set.
type Config struct {
	Start            time.Time
	Speed            float64 // 0: the clock moves only by Advance
	RateLimits       bool
	RateScale        float64
	IDSeed           *uint64
	ExternalWebhooks bool
	Logger           *slog.Logger
	MaxBodyBytes     int64
	Hooks            hookConfig
	Limits           Limits // what the server's own logs keep (New sets the defaults of zero fields)

	// AdminToken, when set, is required by the admin API (Authorization:
	// Bearer, or the password of Basic auth); AdminHosts are Host names
	// the admin API serves besides loopback ones (WithAdminHosts).
	AdminToken string
	AdminHosts []string

	ApprovalCallbackHosts []string // WithApprovalCallbackHosts (approvals.go)
	// CORSOrigins are the origins the API serves cross-origin (WithCORS),
	// normalized; none: CORS is off.
	CORSOrigins []string
}

// hookConfig is the configuration of subscription deliveries.
type hookConfig struct {
	Timeout time.Duration
	// CAs are certificates trusted for https receivers besides the
	// system's (WithWebhookCA, -webhook-ca).
	CAs []*x509.Certificate
	// Dial, when set, replaces the dialer's connect (the loopback guard
	// still runs first): a hook for tests that reach a named host.
	Dial func(ctx context.Context, network, address string) (net.Conn, error)
}

// Limits bound the logs the server keeps for itself (the records users
// create are state and are not bounded), each tenant's entries apart: a
// tenant's activity never pushes out another's entries, and requests and
// messages of no tenant (a signup, a request without a key) count together
// as one more. A zero field takes its default (the Default constants
// below); docs/mockserver.md, section Limits and retention, lists them.
type Limits struct {
	JournalEntries     int   // request journal entries kept per tenant
	JournalBytes       int64 // the request journal's bytes per tenant
	UsagePerUser       int   // usage log entries kept per user
	UsageEntries       int   // usage log entries kept per tenant
	EventsPerBusiness  int   // event log entries kept per business
	Events             int   // event log entries kept per tenant
	EventBytes         int64 // the event log's bytes per tenant (store.EventBytes)
	Deliveries         int   // delivery log entries kept per tenant
	DeliveryBytes      int64 // the delivery log's bytes per tenant (store.DeliveryBytes)
	IdempotencyRecords int   // idempotency records kept per tenant
	IdempotencyBytes   int64 // the idempotency records' bytes per tenant (store.IdempotencyBytes)
	Outbox             int   // outbox messages kept per tenant
}

// The defaults of Limits: what a server keeps of each tenant's logs
// unless an option says otherwise. This is the one place they are
// defined.
const (
	DefaultJournalEntries     = 10_000
	DefaultJournalBytes       = 8 << 20
	DefaultUsagePerUser       = 10_000
	DefaultUsageEntries       = 20_000
	DefaultEventsPerBusiness  = DefaultEvents // a business may hold its tenant's whole share
	DefaultEvents             = 20_000
	DefaultEventBytes         = 8 << 20
	DefaultDeliveries         = 10_000
	DefaultDeliveryBytes      = 8 << 20
	DefaultIdempotencyRecords = 10_000
	DefaultIdempotencyBytes   = 8 << 20
	DefaultOutbox             = 10_000
)

// OrDefault returns l with every field that is not positive set to its
// default.
func (l Limits) OrDefault() Limits {
	orDefault(&l.JournalEntries, DefaultJournalEntries)
	orDefault(&l.JournalBytes, DefaultJournalBytes)
	orDefault(&l.UsagePerUser, DefaultUsagePerUser)
	orDefault(&l.UsageEntries, DefaultUsageEntries)
	orDefault(&l.EventsPerBusiness, DefaultEventsPerBusiness)
	orDefault(&l.Events, DefaultEvents)
	orDefault(&l.EventBytes, DefaultEventBytes)
	orDefault(&l.Deliveries, DefaultDeliveries)
	orDefault(&l.DeliveryBytes, DefaultDeliveryBytes)
	orDefault(&l.IdempotencyRecords, DefaultIdempotencyRecords)
	orDefault(&l.IdempotencyBytes, DefaultIdempotencyBytes)
	orDefault(&l.Outbox, DefaultOutbox)
	return l
}

// orDefault sets *n to def when it is not positive.
func orDefault[N int | int64](n *N, def N) {
	if *n <= 0 {
		*n = def
	}
}

// boundLogs bounds the logs the store keeps for the server itself (the
// event log, the delivery log, the outbox, the idempotency records) as
// Config.Limits says; New and ResetState call it on each new store. The
// store counts each tenant's records apart (store.Retention).
func (s *Platform) boundLogs() {
	lim, st := s.Config.Limits, s.store
	st.Deliveries = store.NewDeliveryLog(lim.Deliveries, lim.DeliveryBytes)
	st.Events.SetRetention(store.Retention[*store.Event]{
		PerOwner: lim.EventsPerBusiness, PerTenant: lim.Events, BytesPerTenant: lim.EventBytes, Cost: store.EventBytes,
	})
	st.Outbox.SetRetention(store.Retention[*store.OutboxMessage]{PerTenant: lim.Outbox})
	st.Idempotency().SetRetention(store.Retention[*store.IdempotencyRecord]{
		PerTenant: lim.IdempotencyRecords, BytesPerTenant: lim.IdempotencyBytes, Cost: store.IdempotencyBytes,
	})
}

// Now returns tenant's simulated time ("": the base time).
func (s *Platform) Now(tenant string) time.Time { return s.Clocks.Now(tenant) }

// LimiterNow is the time tenant's rate-limit windows are measured on: real
// time plus however far tests advanced the tenant's clock, so a test can
// wait out a window or advance past it.
func (s *Platform) LimiterNow(tenant string) time.Time {
	return time.Now().Add(s.Clocks.Of(tenant).Offset())
}

// IDGen makes ids and secrets from a ChaCha8 stream (a cryptographically
// strong generator): seeded from crypto/rand by default, from the seed with
// WithIDSeed so that runs repeat. (Reading crypto/rand for every id was a
// system call per id: two per request.)
type IDGen struct {
	mu  sync.Mutex
	rng *mrand.ChaCha8
}

// newIDGen returns a generator seeded from seed, or from crypto/rand when seed is nil.
func newIDGen(seed *uint64) *IDGen {
	var s [32]byte
	if seed != nil {
		for i := range 4 {
			for j := range 8 {
				s[i*8+j] = byte(*seed >> (8 * j))
			}
		}
	} else {
		_, _ = rand.Read(s[:])
	}
	return &IDGen{rng: mrand.NewChaCha8(s)}
}

// Read fills p with random bytes.
func (g *IDGen) Read(p []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, _ = g.rng.Read(p)
}

// UUID returns a new version 4 UUID.
func (g *IDGen) UUID() string {
	var b [16]byte
	g.Read(b[:])
	u, _ := uuid.FromBytes(b[:])
	u[6] = (u[6] & 0x0f) | 0x40
	u[8] = (u[8] & 0x3f) | 0x80
	return u.String()
}

// Intn returns a number in [0, n).
func (g *IDGen) Intn(n int) int {
	var b [8]byte
	g.Read(b[:])
	var v uint64
	for _, x := range b {
		v = v<<8 | uint64(x)
	}
	return int(v % uint64(n))
}

// Float64 returns a number in [0, 1).
func (g *IDGen) Float64() float64 { return float64(g.Intn(1<<53)) / (1 << 53) }

// Token returns n random bytes as hex.
func (g *IDGen) Token(n int) string {
	b := make([]byte, n)
	g.Read(b)
	return hex.EncodeToString(b)
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// Base62 returns n random base62 characters.
func (g *IDGen) Base62(n int) string {
	out := make([]byte, 0, n)
	var buf [1]byte
	for len(out) < n {
		g.Read(buf[:])
		if buf[0] < 248 { // 248 = 4*62: no modulo bias
			out = append(out, base62[buf[0]%62])
		}
	}
	return string(out)
}

// SendOutbox records a message to a person.
func (s *Platform) SendOutbox(tx *Tx, now time.Time, m store.OutboxMessage) {
	tx.Outbox.Insert(&m, "outbox", now)
	s.OutboxNotifier.Notify()
}

// OnReset registers fn with resetState: each part of the server that keeps
// state of its own registers how to drop it where it is created.
func (s *Platform) OnReset(fn func()) { s.resets = append(s.resets, fn) }

// OnRemoveTenant registers fn with RemoveTenant: each part of the server
// that keeps a tenant's state outside the store (its journal entries, its
// fault rules, its keys' rate-limit counters) registers how to drop it
// where it is created. fn runs with RemoveTenant's write Tx, before the
// store drops the tenant's records, so it may read them.
func (s *Platform) OnRemoveTenant(fn func(tx *Tx, tenant string)) {
	s.removals = append(s.removals, fn)
}

// RemoveTenant removes tenant (a root business) from the server: what
// every part keeps of it (OnRemoveTenant), every record the store holds
// of it with their indexes (store.Remove), and its clock with its pending
// tasks. Its keys and sessions are then unknown.
func (s *Platform) RemoveTenant(tx *Tx, tenant string) {
	for _, fn := range s.removals {
		fn(tx, tenant)
	}
	tx.Remove(tenant)
	s.Clocks.Remove(tenant)
}

// OnNewState registers fn to prepare each new store: it runs at once on
// the present one and, after every reset, on the new one, with a write Tx.
func (s *Platform) OnNewState(fn func(tx *Tx)) {
	tx := s.WriteTx()
	defer tx.End()
	fn(tx)
	s.newStates = append(s.newStates, fn)
}

// OnReseed registers fn with ResetState as a seeder: it runs after every
// reset has, in the same write Tx, unless the reset is asked to leave
// the server empty, and returns how many accounts it provisioned. The seed
// accounts (mockserver's SeedAccount, the binary's demo account) come back
// this way.
func (s *Platform) OnReseed(fn func(tx *Tx) int) { s.reseeds = append(s.reseeds, fn) }

// ResetState drops all state: it gives the server a new store, drops the
// tenants' clocks and every pending simulation, and runs every registered
// reset, then, when reseed is set, every seeder; all in one write Tx,
// so no request sees the server between the two. It returns how many
// accounts the seeders provisioned.
func (s *Platform) ResetState(reseed bool) (seeded int) {
	tx := s.WriteTx()
	defer tx.End()
	s.store.Drop()
	s.store.EndWrite()
	s.store = newStore(s.IDs)
	s.store.BeginWrite()
	tx.state = s.store
	s.boundLogs()
	s.Clocks.Reset()
	for _, fn := range s.newStates {
		fn(tx)
	}
	for _, fn := range s.resets {
		fn()
	}
	if reseed {
		for _, fn := range s.reseeds {
			seeded += fn(tx)
		}
	}
	return seeded
}

// engineHooks are the typed hooks the domains subscribe to: a lower layer
// announces what happened, the domains that care react; no lower layer names
// its consumers.
type engineHooks struct {
	CallEnded     []func(tx *Tx, now time.Time, c *store.Call)       // a call completed or failed
	TextDelivered []func(tx *Tx, now time.Time, m *store.SMSMessage) // a text was delivered
	CallKnowledge []func(tx *Tx, c *store.Call) string               // a note to add to a finished call's summary ("" none)
}

// OnCallEnded subscribes fn to the end of every outbound call, completed or
// failed. Subscribers run in the order they subscribed, under the write
// lock.
func (s *Platform) OnCallEnded(fn func(tx *Tx, now time.Time, c *store.Call)) {
	s.on.CallEnded = append(s.on.CallEnded, fn)
}

// CallEnded announces that call c completed or failed.
func (s *Platform) CallEnded(tx *Tx, now time.Time, c *store.Call) {
	for _, fn := range s.on.CallEnded {
		fn(tx, now, c)
	}
}

// OnTextDelivered subscribes fn to the delivery of every text. Subscribers
// run in the order they subscribed, with the write Tx of the delivery.
func (s *Platform) OnTextDelivered(fn func(tx *Tx, now time.Time, m *store.SMSMessage)) {
	s.on.TextDelivered = append(s.on.TextDelivered, fn)
}

// TextDelivered announces that text m was delivered.
func (s *Platform) TextDelivered(tx *Tx, now time.Time, m *store.SMSMessage) {
	for _, fn := range s.on.TextDelivered {
		fn(tx, now, m)
	}
}

// OnCallKnowledge subscribes fn to finished calls' summaries: fn returns a
// note to add to call c's summary, or "".
func (s *Platform) OnCallKnowledge(fn func(tx *Tx, c *store.Call) string) {
	s.on.CallKnowledge = append(s.on.CallKnowledge, fn)
}

// CallKnowledgeNote is what a finished call's summary adds: the subscribers'
// non-empty notes joined with " " ("" when none has one).
func (s *Platform) CallKnowledgeNote(tx *Tx, c *store.Call) string {
	var notes []string
	for _, fn := range s.on.CallKnowledge {
		if note := fn(tx, c); note != "" {
			notes = append(notes, note)
		}
	}
	return strings.Join(notes, " ")
}
