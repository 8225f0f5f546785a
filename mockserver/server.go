package mockserver

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

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

	// on are the typed hooks between the domains (engineHooks).
	on engineHooks

	// resets are what Reset runs, under the write lock, besides replacing
	// the store and dropping pending simulations (onReset).
	resets []func()

	stop     context.CancelFunc
	stopOnce sync.Once
}

// Option configures a Server.
type Option func(*options)

// options is what the options set: the engine's configuration, and the
// pipeline's fault rules and test routes.
type options struct {
	config
	faults      []FaultRule
	extraRoutes []*route // test-only routes (withRoutes)
}

// WithStartTime sets the simulated clock's starting time (default: the real
// time when the server is created).
func WithStartTime(t time.Time) Option { return func(c *options) { c.start = t } }

// WithRealtime makes the simulated clock follow real time at speed (1 = real
// time, 60 = a minute per second). By default the clock moves only when a
// test advances it.
func WithRealtime(speed float64) Option { return func(c *options) { c.speed = speed } }

// WithRateLimits switches the API's rate limits on (default) or off.
func WithRateLimits(on bool) Option { return func(c *options) { c.rateLimits = on } }

// WithRateLimitScale multiplies every rate limit by f (2 doubles them).
func WithRateLimitScale(f float64) Option { return func(c *options) { c.rateScale = f } }

// WithIDSeed makes generated ids, keys, OTP codes, tokens, secrets and the
// draws of probabilistic faults repeatable run to run. (Simulated durations
// are always repeatable: they derive from the phone numbers involved.)
func WithIDSeed(seed uint64) Option { return func(c *options) { c.idSeed = &seed } }

// WithExternalWebhooks lets the server deliver webhooks to hosts outside
// loopback (off by default).
func WithExternalWebhooks(on bool) Option { return func(c *options) { c.externalWebhooks = on } }

// WithFaults installs fault injection rules from the start.
func WithFaults(rules ...FaultRule) Option {
	return func(c *options) { c.faults = append(c.faults, rules...) }
}

// WithLogger logs each request at debug level and unexpected errors at error
// level (default: discard).
func WithLogger(l *slog.Logger) Option { return func(c *options) { c.logger = l } }

// WithMaxBodyBytes sets the request body limit (default 1 MiB).
func WithMaxBodyBytes(n int64) Option { return func(c *options) { c.maxBodyBytes = n } }

// WithJournalSize sets how many requests the journal keeps (default 10,000).
func WithJournalSize(n int) Option { return func(c *options) { c.journalSize = n } }

// WithApprovalCallbackHosts sets the hosts approval request callback_url may
// name (exact host names, or "*.example.com" for any subdomain). Loopback
// hosts are always allowed, over http too, for test receivers. The default
// list is empty: only loopback receivers. A host outside loopback is only
// ever connected to with WithExternalWebhooks(true); otherwise its callback
// is recorded as not_sent.
func WithApprovalCallbackHosts(hosts ...string) Option {
	return func(c *options) { c.approvalCallbackHosts = append(c.approvalCallbackHosts, hosts...) }
}

// WithDeliveryLogSize sets how many webhook deliveries the delivery log
// keeps (default 10,000): a ring buffer, the oldest dropped first.
func WithDeliveryLogSize(n int) Option { return func(c *options) { c.hooks.logSize = n } }

// WithWebhookTimeout bounds each outbound webhook attempt in real time
// (default 10s); a receiver slower than that fails the attempt.
func WithWebhookTimeout(d time.Duration) Option { return func(c *options) { c.hooks.timeout = d } }

// withRoutes adds routes to the server: a hook for this package's tests
// (a handler that panics, one that blocks), never exported.
func withRoutes(rts ...*route) Option {
	return func(c *options) { c.extraRoutes = append(c.extraRoutes, rts...) }
}

// New returns a Server with an empty store.
func New(opts ...Option) *Server {
	o := options{config: config{
		start:        time.Now(),
		rateLimits:   true,
		rateScale:    1,
		logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		maxBodyBytes: DefaultMaxBodyBytes,
		journalSize:  DefaultJournalSize,
	}}
	for _, opt := range opts {
		opt(&o)
	}
	cfg := o.config
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
	s.onReset(s.usage.reset)
	s.onReset(s.journal.reset)
	s.faults = newFaultSet(o.faults, s.ids.float64)
	s.onReset(s.faults.reset)
	s.limits = newRateLimiter(cfg.rateLimits, cfg.rateScale, s.limiterNow)
	s.onReset(s.limits.reset)
	s.idem = newIdempotencyStore()
	s.onReset(s.idem.reset)
	s.onReset(s.outbox.Notify)
	s.bus = newEventBus()
	s.startDeliveries()
	s.startRuns()
	s.startApprovals()
	s.startCatalog()
	s.routes = s.buildRoutes(o.extraRoutes)
	if cfg.speed > 0 {
		go s.clock.Follow(ctx, cfg.speed, 50*time.Millisecond)
	}
	return s
}

// buildRoutes lists every route of the server. Each resource file adds its
// routes through one function here.
func (s *Server) buildRoutes(extra []*route) map[string]map[string]*route {
	var all []*route
	for _, group := range [][]*route{
		s.adminRoutes(),
		s.accountAdminRoutes(),
		s.outboxRoutes(),
		s.agentRoutes(),
		s.numberRoutes(),
		s.signupRoutes(),
		s.keyRoutes(),
		s.webhookRoutes(),
		s.eventRoutes(),
		s.deliveryAdminRoutes(),
		s.callRoutes(),
		s.leadRoutes(),
		s.smsRoutes(),
		s.telephonyAdminRoutes(),
		s.agencyRoutes(),
		s.accountRoutes(),
		s.sdrRoutes(),
		s.analyticsRoutes(),
		s.fixtureAdminRoutes(),
		extra,
		s.catalogRoutes(),
		s.runRoutes(),
		s.governanceRoutes(),
		s.personaRoutes(),
		s.openapiRoutes(),
	} {
		all = append(all, group...)
	}
	m := map[string]map[string]*route{}
	for _, rt := range all {
		if m[rt.path] == nil {
			m[rt.path] = map[string]*route{}
		}
		if _, dup := m[rt.path][rt.method]; dup {
			panic("mockserver: duplicate route " + rt.method + " " + rt.path)
		}
		m[rt.path][rt.method] = rt
	}
	return m
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
func (s *Server) Reset() { s.resetState() }

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
