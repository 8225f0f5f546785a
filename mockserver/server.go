package mockserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/watch"
)

// Defaults of the server's limits.
const (
	DefaultMaxBodyBytes = 1 << 20 // request bodies over 1 MiB get 413
	DefaultJournalSize  = 10_000  // the request journal keeps the last 10,000 requests
)

// Server is an in-memory implementation of the whole API. It is an
// http.Handler serving the API under /api and the admin API under /_mock.
// Create it with New; it is safe for concurrent use.
type Server struct {
	cfg config

	// mu guards st: handlers run under it (read lock for GET, write lock
	// otherwise), and so does every scheduled simulation task.
	mu sync.RWMutex
	st *store.Store

	clock   *clock.Clock
	ids     *idGen
	routes  map[string]map[string]*route // path -> method -> route
	limits  *rateLimiter
	idem    *idempotencyStore
	journal *journal
	faults  *faultSet
	usage   *usageLog
	outbox  watch.Notifier
	bus     *eventBus
	hooks   *deliveryEngine

	// outbound posts to receivers (subscriptions, per-call webhooks).
	outbound outboundPoster

	stop     context.CancelFunc
	stopOnce sync.Once
}

type config struct {
	start            time.Time
	speed            float64 // 0: the clock moves only by Advance
	rateLimits       bool
	rateScale        float64
	idSeed           *uint64
	externalWebhooks bool
	faults           []FaultRule
	logger           *slog.Logger
	maxBodyBytes     int64
	journalSize      int
	hooks            hookConfig
	extraRoutes      []*route // test-only routes (withRoutes)

	approvalCallbackHosts []string // WithApprovalCallbackHosts (approvals.go)
}

// Option configures a Server.
type Option func(*config)

// WithStartTime sets the simulated clock's starting time (default: the real
// time when the server is created).
func WithStartTime(t time.Time) Option { return func(c *config) { c.start = t } }

// WithRealtime makes the simulated clock follow real time at speed (1 = real
// time, 60 = a minute per second). By default the clock moves only when a
// test advances it.
func WithRealtime(speed float64) Option { return func(c *config) { c.speed = speed } }

// WithRateLimits switches the API's rate limits on (default) or off.
func WithRateLimits(on bool) Option { return func(c *config) { c.rateLimits = on } }

// WithRateLimitScale multiplies every rate limit by f (2 doubles them).
func WithRateLimitScale(f float64) Option { return func(c *config) { c.rateScale = f } }

// WithIDSeed makes generated ids, keys, OTP codes, tokens, secrets and the
// draws of probabilistic faults repeatable run to run. (Simulated durations
// are always repeatable: they derive from the phone numbers involved.)
func WithIDSeed(seed uint64) Option { return func(c *config) { c.idSeed = &seed } }

// WithExternalWebhooks lets the server deliver webhooks to hosts outside
// loopback (off by default).
func WithExternalWebhooks(on bool) Option { return func(c *config) { c.externalWebhooks = on } }

// WithFaults installs fault injection rules from the start.
func WithFaults(rules ...FaultRule) Option {
	return func(c *config) { c.faults = append(c.faults, rules...) }
}

// WithLogger logs each request at debug level and unexpected errors at error
// level (default: discard).
func WithLogger(l *slog.Logger) Option { return func(c *config) { c.logger = l } }

// WithMaxBodyBytes sets the request body limit (default 1 MiB).
func WithMaxBodyBytes(n int64) Option { return func(c *config) { c.maxBodyBytes = n } }

// WithJournalSize sets how many requests the journal keeps (default 10,000).
func WithJournalSize(n int) Option { return func(c *config) { c.journalSize = n } }

// withRoutes adds routes to the server: a hook for this package's tests
// (a handler that panics, one that blocks), never exported.
func withRoutes(rts ...*route) Option {
	return func(c *config) { c.extraRoutes = append(c.extraRoutes, rts...) }
}

// New returns a Server with an empty store.
func New(opts ...Option) *Server {
	cfg := config{
		start:        time.Now(),
		rateLimits:   true,
		rateScale:    1,
		logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		maxBodyBytes: DefaultMaxBodyBytes,
		journalSize:  DefaultJournalSize,
	}
	for _, o := range opts {
		o(&cfg)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		cfg:     cfg,
		st:      store.New(),
		clock:   clock.New(cfg.start),
		ids:     newIDGen(cfg.idSeed),
		journal: newJournal(cfg.journalSize),

		usage: newUsageLog(),
		stop:  cancel,
	}
	s.faults = newFaultSet(cfg.faults, s.ids.float64)
	s.limits = newRateLimiter(cfg.rateLimits, cfg.rateScale, s.limiterNow)
	s.idem = newIdempotencyStore()
	s.bus = newEventBus()
	s.startDeliveries()
	s.routes = s.buildRoutes()
	if cfg.speed > 0 {
		go s.clock.Follow(ctx, cfg.speed, 50*time.Millisecond)
	}
	return s
}

// Close stops the server's background work (clock following, deliveries).
// It does not close listeners: that is the caller's (or Start's) job.
func (s *Server) Close() {
	s.stopOnce.Do(func() {
		s.stop()
		s.outbound.close()
	})
}

// Now returns the simulated time.
func (s *Server) Now() time.Time { return s.clock.Now() }

// Advance moves the simulated clock forward by d, running every simulated
// process that falls due on the way, and returns the new time.
func (s *Server) Advance(d time.Duration) time.Time { return s.clock.Advance(d) }

// Reset drops all state: records, pending simulations, idempotency keys,
// rate limit windows, the journal, the outbox and fault rules.
func (s *Server) Reset() {
	s.mu.Lock()
	s.st = store.New()
	s.resetDeliveryLog()
	s.clock.Reset()
	s.mu.Unlock()
	s.usage.reset()
	s.idem.reset()
	s.limits.reset()
	s.journal.reset()
	s.faults.reset()
	s.outbox.Notify()
}

// limiterNow is the time rate-limit windows are measured on: real time plus
// however far tests advanced the simulated clock, so a test can wait out a
// window or advance past it.
func (s *Server) limiterNow() time.Time { return time.Now().Add(s.clock.Offset()) }

// schedule runs fn under the write lock once the clock reaches at.
func (s *Server) schedule(at time.Time, fn func(now time.Time)) (cancel func()) {
	return s.clock.Schedule(at, func(now time.Time) {
		s.mu.Lock()
		defer s.mu.Unlock()
		fn(now)
	})
}

// TestServer is a Server listening on a loopback port for a test.
type TestServer struct {
	*Server
	// HTTP is the underlying httptest server.
	HTTP *httptest.Server
	// URL is the API's base URL (ending with /api), for client.WithBaseURL.
	URL string
	// AdminURL is the root of the admin API (ending with /_mock).
	AdminURL string
}

// Start starts a Server on a loopback port; it is closed when the test ends.
func Start(t testing.TB, opts ...Option) *TestServer {
	t.Helper()
	s := New(opts...)
	hs := httptest.NewServer(s)
	t.Cleanup(func() {
		s.Close()
		hs.Close()
	})
	return &TestServer{Server: s, HTTP: hs, URL: hs.URL + "/api", AdminURL: hs.URL + "/_mock"}
}

// idGen makes ids and secrets: random by default, repeatable with a seed.
type idGen struct {
	mu  sync.Mutex
	rng *mrand.ChaCha8 // nil: crypto/rand
}

func newIDGen(seed *uint64) *idGen {
	g := &idGen{}
	if seed != nil {
		var s [32]byte
		for i := range 4 {
			for j := range 8 {
				s[i*8+j] = byte(*seed >> (8 * j))
			}
		}
		g.rng = mrand.NewChaCha8(s)
	}
	return g
}

func (g *idGen) read(p []byte) {
	if g.rng == nil {
		_, _ = rand.Read(p)
		return
	}
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

// handlerFor is what ServeHTTP dispatches: a known route, or an error.
func (s *Server) handlerFor(r *http.Request) (*route, *apiError) {
	methods, ok := s.routes[r.URL.Path]
	if !ok {
		return nil, errNotFound("no such endpoint: " + r.URL.Path)
	}
	rt, ok := methods[r.Method]
	if !ok {
		e := newError(http.StatusMethodNotAllowed, codeMethodNotAllowed, r.Method+" is not allowed on "+r.URL.Path)
		e.header = http.Header{"Allow": {allowed(methods)}}
		return nil, e
	}
	return rt, nil
}
