package mockserver

import (
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	mrand "math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// config is the server's configuration: what New's options set.
type config struct {
	start            time.Time
	speed            float64 // 0: the clock moves only by Advance
	rateLimits       bool
	rateScale        float64
	idSeed           *uint64
	externalWebhooks bool
	logger           *slog.Logger
	maxBodyBytes     int64
	journalSize      int
	hooks            hookConfig

	approvalCallbackHosts []string // WithApprovalCallbackHosts (approvals.go)
}

// hookConfig is the configuration of subscription deliveries.
type hookConfig struct {
	timeout time.Duration
	logSize int
}

// schedule runs fn under the write lock once the clock reaches at.
func (s *Server) schedule(at time.Time, fn func(now time.Time)) (cancel func()) {
	return s.clock.Schedule(at, func(now time.Time) {
		s.mu.Lock()
		defer s.mu.Unlock()
		fn(now)
	})
}

// limiterNow is the time rate-limit windows are measured on: real time plus
// however far tests advanced the simulated clock, so a test can wait out a
// window or advance past it.
func (s *Server) limiterNow() time.Time { return time.Now().Add(s.clock.Offset()) }

// idGen makes ids and secrets from a ChaCha8 stream (a cryptographically
// strong generator): seeded from crypto/rand by default, from the seed with
// WithIDSeed so that runs repeat. (Reading crypto/rand for every id was a
// system call per id: two per request.)
type idGen struct {
	mu  sync.Mutex
	rng *mrand.ChaCha8
}

func newIDGen(seed *uint64) *idGen {
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
	return &idGen{rng: mrand.NewChaCha8(s)}
}

func (g *idGen) read(p []byte) {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, _ = g.rng.Read(p)
}

// uuid returns a new version 4 UUID.
func (g *idGen) uuid() string {
	var b [16]byte
	g.read(b[:])
	u, _ := uuid.FromBytes(b[:])
	u[6] = (u[6] & 0x0f) | 0x40
	u[8] = (u[8] & 0x3f) | 0x80
	return u.String()
}

// intn returns a number in [0, n).
func (g *idGen) intn(n int) int {
	var b [8]byte
	g.read(b[:])
	var v uint64
	for _, x := range b {
		v = v<<8 | uint64(x)
	}
	return int(v % uint64(n))
}

// float64 returns a number in [0, 1).
func (g *idGen) float64() float64 { return float64(g.intn(1<<53)) / (1 << 53) }

// token returns n random bytes as hex.
func (g *idGen) token(n int) string {
	b := make([]byte, n)
	g.read(b)
	return hex.EncodeToString(b)
}

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// base62 returns n random base62 characters.
func (g *idGen) base62(n int) string {
	out := make([]byte, 0, n)
	var buf [1]byte
	for len(out) < n {
		g.read(buf[:])
		if buf[0] < 248 { // 248 = 4*62: no modulo bias
			out = append(out, base62[buf[0]%62])
		}
	}
	return string(out)
}

// sendOutbox records a message to a person. The caller holds the write lock.
func (s *Server) sendOutbox(st *store.Store, now time.Time, m store.OutboxMessage) {
	m.ID = s.ids.uuid()
	m.Owner = "outbox"
	m.CreatedAt = st.Outbox.Stamp(now)
	st.Outbox.Put(&m)
	s.outbox.Notify()
}

// onReset registers fn with resetState: each part of the server that keeps
// state of its own registers how to drop it where it is created.
func (s *Server) onReset(fn func()) { s.resets = append(s.resets, fn) }

// resetState drops all state: it gives the server a new store, drops the
// clock's pending simulations and runs every registered reset, all under
// the write lock.
func (s *Server) resetState() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.st = store.New()
	s.clock.Reset()
	for _, fn := range s.resets {
		fn()
	}
}

// engineHooks are the typed hooks the domains subscribe to: a lower layer announces what happened, the domains that care react; no lower layer names its consumers.
type engineHooks struct {
	callEnded     []func(st *store.Store, now time.Time, c *store.Call)       // a call completed or failed
	textDelivered []func(st *store.Store, now time.Time, m *store.SMSMessage) // a text was delivered
	callKnowledge []func(st *store.Store, c *store.Call) string               // a note to add to a finished call's summary ("" none)
}

// onCallEnded subscribes fn to the end of every outbound call, completed or
// failed. Subscribers run in the order they subscribed, under the write
// lock.
func (s *Server) onCallEnded(fn func(st *store.Store, now time.Time, c *store.Call)) {
	s.on.callEnded = append(s.on.callEnded, fn)
}

// callEnded announces that call c completed or failed. The caller holds the
// write lock.
func (s *Server) callEnded(st *store.Store, now time.Time, c *store.Call) {
	for _, fn := range s.on.callEnded {
		fn(st, now, c)
	}
}

// onTextDelivered subscribes fn to the delivery of every text. Subscribers
// run in the order they subscribed, under the write lock.
func (s *Server) onTextDelivered(fn func(st *store.Store, now time.Time, m *store.SMSMessage)) {
	s.on.textDelivered = append(s.on.textDelivered, fn)
}

// textDelivered announces that text m was delivered. The caller holds the
// write lock.
func (s *Server) textDelivered(st *store.Store, now time.Time, m *store.SMSMessage) {
	for _, fn := range s.on.textDelivered {
		fn(st, now, m)
	}
}

// onCallKnowledge subscribes fn to finished calls' summaries: fn returns a
// note to add to call c's summary, or "".
func (s *Server) onCallKnowledge(fn func(st *store.Store, c *store.Call) string) {
	s.on.callKnowledge = append(s.on.callKnowledge, fn)
}

// callKnowledgeNote is what a finished call's summary adds: the subscribers'
// non-empty notes joined with " " ("" when none has one). The caller holds
// the store lock.
func (s *Server) callKnowledgeNote(st *store.Store, c *store.Call) string {
	var notes []string
	for _, fn := range s.on.callKnowledge {
		if note := fn(st, c); note != "" {
			notes = append(notes, note)
		}
	}
	return strings.Join(notes, " ")
}
