package mockserver

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/agency"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/analytics"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/catalog"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/dashboard"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/fixtures"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/governance"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/hooks"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/identity"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/runs"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/sdr"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// Defaults of the server's limits.
const (
	DefaultMaxBodyBytes = 1 << 20 // request bodies over 1 MiB get 413
	// DefaultJournalSize is how many requests of each tenant the request
	// journal keeps: the last 10,000.
	DefaultJournalSize = platform.DefaultJournalEntries
)

// Server is an in-memory implementation of the whole API. It is an
// http.Handler serving the API under /api and the admin API under /_mock.
// Create it with New; it is safe for concurrent use.
type Server struct {
	platform   *platform.Platform
	httpapi    *httpapi.API
	hooks      *hooks.Service
	telephony  *telephony.Service
	catalog    *catalog.Service
	identity   *identity.Service
	runs       *runs.Service
	governance *governance.Service
	agency     *agency.Service
	sdr        *sdr.Service
	analytics  *analytics.Service
	fixtures   *fixtures.Service

	stop     context.CancelFunc
	stopOnce sync.Once
	// baseURL is the API's base URL once Start listens, or of a server
	// reached with Connect ("" for a server that listens nowhere: Client
	// calls it in process).
	baseURL string
	// api is the client of the admin API every helper goes through: in
	// process for a server made with New, over the network for one
	// reached with Connect (whose platform and domains are nil).
	api *adminClient

	// loopback is the loopback port LoopbackURL opens, once.
	loopbackOnce sync.Once
	loopback     *httptest.Server
}

// Option configures a Server.
type Option func(*options)

// options is what the options set: the engine's configuration, and the
// pipeline's fault rules and test routes.
type options struct {
	platform.Config
	wall        func() time.Time // WithWallClock
	faults      []FaultRule
	extraRoutes []*httpapi.Route // test-only routes (withRoutes)
	errs        []error          // invalid options (CheckOptions)
}

// WithStartTime sets the simulated clock's starting time: the base time
// every tenant starts at (default: DaytimeStart of the wall clock's date).
// A time not before ClockEnd makes New panic (CheckOptions reports it).
func WithStartTime(t time.Time) Option {
	return func(c *options) {
		c.Start = t
		if err := clock.CheckTime(t); err != nil {
			c.errs = append(c.errs, fmt.Errorf("mockserver: WithStartTime: %w", err))
		}
	}
}

// ClockEnd is the first time no simulated clock reaches: every clock stays
// before it, so that every time the server shows encodes in RFC 3339. A
// restore or an advance that would reach it is refused.
var ClockEnd = clock.End

// WithRealtime makes the simulated clock follow real time at speed (1 = real
// time, 60 = a minute per second), starting at the wall clock's time unless
// WithStartTime says otherwise. By default the clock starts at
// DaytimeStart and moves only when a test advances it.
func WithRealtime(speed float64) Option { return func(c *options) { c.Speed = speed } }

// WithWallClock sets where the server reads the real time when it starts:
// the date of the default start (DaytimeStart), and the start of a
// WithRealtime clock. A test injects a wall clock to run the server as if
// it started at any hour (3 a.m. in New York, say); the default is
// time.Now.
func WithWallClock(now func() time.Time) Option { return func(c *options) { c.wall = now } }

// DaytimeStart is the default start of the simulated clock for a server
// whose wall clock reads wall: 19:00 UTC of wall's date (UTC), daytime in
// every US time zone (09:00 in Honolulu, 11:00 in Los Angeles, 14:00 in New
// York in winter), so a test that texts a consenting number right after it
// starts passes at any hour the suite runs; quiet hours apply only where a
// test moves its own clock into them.
func DaytimeStart(wall time.Time) time.Time {
	y, m, d := wall.UTC().Date()
	return time.Date(y, m, d, 19, 0, 0, 0, time.UTC)
}

// WithRateLimits switches the API's rate limits on (default) or off.
func WithRateLimits(on bool) Option { return func(c *options) { c.RateLimits = on } }

// WithRateLimitScale multiplies every rate limit by f (2 doubles them).
func WithRateLimitScale(f float64) Option { return func(c *options) { c.RateScale = f } }

// WithIDSeed makes generated ids, keys, OTP codes, tokens, secrets and the
// draws of probabilistic faults repeatable run to run. (Simulated durations
// are always repeatable: they derive from the phone numbers involved.)
func WithIDSeed(seed uint64) Option { return func(c *options) { c.IDSeed = &seed } }

// WithExternalWebhooks lets the server deliver webhooks to hosts outside
// loopback, and over http:// too (receivers in other containers, such as
// http://receiver:3000/hook in docker compose). Off by default: the server
// calls https:// and http:// receivers on loopback hosts only.
func WithExternalWebhooks(on bool) Option { return func(c *options) { c.ExternalWebhooks = on } }

// WithWebhookCA trusts certs, besides the system's roots, for https
// receivers (subscription deliveries, per-call webhooks, approval
// callbacks): a receiver whose certificate a private CA issued. Receivers
// on loopback hosts are not verified at all (test servers' self-signed
// certificates work as is).
func WithWebhookCA(certs ...*x509.Certificate) Option {
	return func(c *options) {
		for _, cert := range certs {
			if cert == nil {
				c.errs = append(c.errs, errors.New("mockserver: WithWebhookCA: a nil certificate"))
				continue
			}
			c.Hooks.CAs = append(c.Hooks.CAs, cert)
		}
	}
}

// WithCORS lets web pages on origins call the API under /api (an API
// explorer such as Swagger UI or Scalar, a web app in development): the
// server responds to their preflight requests and adds the CORS headers
// to the API's responses. An origin is scheme://host[:port]
// ("https://editor.swagger.io", "http://localhost:3000"), or "*" for any.
// Credentials are never allowed (keys travel in the Authorization header,
// which needs none), and the admin API (/_mock) stays same-origin. Off by
// default. An invalid origin makes New panic (CheckOptions reports it).
func WithCORS(origins ...string) Option {
	return func(c *options) {
		for _, o := range origins {
			n, err := httpapi.NormalizeOrigin(o)
			if err != nil {
				c.errs = append(c.errs, fmt.Errorf("mockserver: WithCORS: %w", err))
				continue
			}
			c.CORSOrigins = append(c.CORSOrigins, n)
		}
	}
}

// withOutboundDial replaces how the server connects to receivers: a hook
// for this package's tests (a named host served on loopback), never
// exported.
func withOutboundDial(dial func(ctx context.Context, network, address string) (net.Conn, error)) Option {
	return func(c *options) { c.Hooks.Dial = dial }
}

// WithFaults installs fault injection rules from the start. The rules are
// checked as POST /_mock/faults checks them, and New panics on one that
// could never fire (a path no route has, a rule with no effect). Rules
// scoped to a tenant (BusinessID) are added once the account exists:
// Account.AddFault.
func WithFaults(rules ...FaultRule) Option {
	return func(c *options) { c.faults = append(c.faults, rules...) }
}

// WithLogger logs each request at debug level and unexpected errors at error
// level (default: discard).
func WithLogger(l *slog.Logger) Option { return func(c *options) { c.Logger = l } }

// WithMaxBodyBytes sets the request body limit (default 1 MiB).
func WithMaxBodyBytes(n int64) Option { return func(c *options) { c.MaxBodyBytes = n } }

// WithJournalSize sets how many requests of each tenant the journal keeps
// (default 10,000; requests of no tenant count together); a tenant's
// oldest go first.
func WithJournalSize(n int) Option { return func(c *options) { c.Limits.JournalEntries = n } }

// WithApprovalCallbackHosts sets the hosts approval request callback_url may
// name (exact host names, or "*.example.com" for any subdomain). Loopback
// hosts are always allowed, over http too, for test receivers (listed
// hosts over http only with WithExternalWebhooks(true)). The default
// list is empty: only loopback receivers. A host outside loopback is only
// ever connected to with WithExternalWebhooks(true); otherwise its callback
// is recorded as not_sent.
func WithApprovalCallbackHosts(hosts ...string) Option {
	return func(c *options) { c.ApprovalCallbackHosts = append(c.ApprovalCallbackHosts, hosts...) }
}

// WithDeliveryLogSize sets how many webhook deliveries of each tenant the
// delivery log keeps (default 10,000); a tenant's oldest go first.
func WithDeliveryLogSize(n int) Option { return func(c *options) { c.Limits.Deliveries = n } }

// WithDeliveryLogBytes bounds each tenant's deliveries in the delivery log
// in bytes (default 8 MiB): each delivery counts its body and its attempts
// with their headers, errors and responses; a tenant's oldest go first.
func WithDeliveryLogBytes(n int64) Option { return func(c *options) { c.Limits.DeliveryBytes = n } }

// WithJournalBytes bounds each tenant's requests in the request journal in
// bytes (default 8 MiB): each entry counts its strings
// (JournalEntry.Bytes); a tenant's oldest go first. WithJournalSize bounds
// its entries.
func WithJournalBytes(n int64) Option { return func(c *options) { c.Limits.JournalBytes = n } }

// WithUsageLogSize sets how many usage log entries (GET /v1/usage) are
// kept per user (default 10,000) and per tenant (default 20,000); the
// oldest go first.
func WithUsageLogSize(perUser, perTenant int) Option {
	return func(c *options) { c.Limits.UsagePerUser, c.Limits.UsageEntries = perUser, perTenant }
}

// WithEventLogSize sets how many events the event log (GET /v1/events,
// replays) keeps per business and per tenant (default 20,000 each: a
// business may hold its tenant's whole share); the oldest go first.
func WithEventLogSize(perBusiness, perTenant int) Option {
	return func(c *options) { c.Limits.EventsPerBusiness, c.Limits.Events = perBusiness, perTenant }
}

// WithEventLogBytes bounds each tenant's events in the event log in bytes
// (default 8 MiB): each event counts its data; a tenant's oldest go first.
func WithEventLogBytes(n int64) Option { return func(c *options) { c.Limits.EventBytes = n } }

// WithIdempotencyLimit bounds each tenant's idempotency records: at most
// records records (default 10,000) and bytes bytes of responses (default
// 8 MiB); past either, the tenant's oldest are forgotten before their 24
// hours.
func WithIdempotencyLimit(records int, bytes int64) Option {
	return func(c *options) { c.Limits.IdempotencyRecords, c.Limits.IdempotencyBytes = records, bytes }
}

// WithOutboxSize sets how many messages of each tenant the outbox (GET
// /_mock/outbox: codes, links, texts, emails) keeps (default 10,000;
// messages of no business, such as signup codes, count together); a
// tenant's oldest go first.
func WithOutboxSize(n int) Option { return func(c *options) { c.Limits.Outbox = n } }

// WithAdminToken makes the admin API (/_mock) require token, as
// "Authorization: Bearer <token>" (or as the password of Basic auth, which
// a browser asks for). With a token the admin API serves any Host name;
// without one (the default, for a server on loopback) it serves only
// loopback names and WithAdminHosts. The standalone binary sets one when
// it listens beyond loopback.
func WithAdminToken(token string) Option { return func(c *options) { c.AdminToken = token } }

// WithAdminHosts adds Host names (a name, or name:port) the admin API
// serves without an admin token, besides loopback names: for a server
// reached by another name on a trusted network (a container's service
// name, a local proxy's). A name matches with any port, name:port only
// with that port. The standalone binary's -admin-hosts sets them for a
// server on loopback; beyond loopback it requires the token instead.
func WithAdminHosts(hosts ...string) Option {
	return func(c *options) { c.AdminHosts = append(c.AdminHosts, hosts...) }
}

// WithWebhookTimeout bounds each outbound webhook attempt in real time
// (default 10s); a receiver slower than that fails the attempt.
func WithWebhookTimeout(d time.Duration) Option { return func(c *options) { c.Hooks.Timeout = d } }

// withRoutes adds routes to the server: a hook for this package's tests
// (a handler that panics, one that blocks), never exported.
func withRoutes(rts ...*httpapi.Route) Option {
	return func(c *options) { c.extraRoutes = append(c.extraRoutes, rts...) }
}

// CheckOptions reports the options New would refuse (an origin WithCORS
// cannot use, a nil certificate), without making a server: a program that
// builds options from its input checks them first.
func CheckOptions(opts ...Option) error {
	_, err := applyOptions(opts)
	return err
}

// applyOptions applies opts over the defaults.
func applyOptions(opts []Option) (options, error) {
	o := options{wall: time.Now, Config: platform.Config{
		RateLimits:   true,
		RateScale:    1,
		Logger:       slog.New(slog.NewTextHandler(io.Discard, nil)),
		MaxBodyBytes: DefaultMaxBodyBytes,
	}}
	for _, opt := range opts {
		opt(&o)
	}
	if o.Start.IsZero() {
		if o.Speed > 0 {
			o.Start = o.wall()
		} else {
			o.Start = DaytimeStart(o.wall())
		}
	}
	return o, errors.Join(o.errs...)
}

// New returns a Server with an empty store. It panics on an invalid option
// (see CheckOptions).
func New(opts ...Option) *Server {
	o, err := applyOptions(opts)
	if err != nil {
		panic(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	p := platform.New(o.Config)
	s := &Server{platform: p, httpapi: httpapi.New(p), hooks: hooks.New(p), stop: cancel}
	s.api = &adminClient{root: inProcessRoot, token: o.AdminToken, http: &http.Client{Transport: inProcess{s}}}
	s.telephony = telephony.New(p, s.hooks)
	s.catalog = catalog.New(p)
	s.identity = identity.New(p, s.httpapi, s.telephony)
	s.runs = runs.New(p, s.telephony)
	s.governance = governance.New(p, s.hooks, s.telephony)
	s.agency = agency.New(p, s.httpapi, s.identity, s.telephony)
	s.sdr = sdr.New(p, s.telephony)
	s.analytics = analytics.New(p)
	s.fixtures = fixtures.New(p, s.identity)
	s.httpapi.Bind(o.extraRoutes, s.httpapi.Handlers(), s.identity.Handlers(), s.telephony.Handlers(),
		s.hooks.Handlers(), s.catalog.Handlers(), s.runs.Handlers(), s.governance.Handlers(),
		s.agency.Handlers(), s.sdr.Handlers(), s.analytics.Handlers(), s.fixtures.Handlers(), dashboard.Handlers())
	for _, f := range o.faults {
		if _, err := s.httpapi.AddFault(f); err != nil {
			panic("mockserver: WithFaults: " + publicError(err).Error())
		}
	}
	if o.Speed > 0 {
		go p.Clocks.Follow(ctx, o.Speed, 50*time.Millisecond)
	}
	return s
}

// Timeouts of the HTTP server HTTPServer makes (the standalone binary's).
const (
	// ReadHeaderTimeout bounds reading a request's headers.
	ReadHeaderTimeout = 10 * time.Second
	// ReadTimeout bounds reading a whole request, body included: a body
	// sent slower is cut off.
	ReadTimeout = 30 * time.Second
	// WriteTimeout bounds a request from its headers to the end of its
	// response. Long polls (?wait=, at most 60 s) and fault latencies move
	// their own deadlines to their wait plus 10 s.
	WriteTimeout = 2 * time.Minute
	// IdleTimeout closes keep-alive connections idle that long.
	IdleTimeout = 2 * time.Minute
)

// HTTPServer returns an http.Server that serves s as the standalone binary
// does: with ReadHeaderTimeout, ReadTimeout, WriteTimeout and IdleTimeout,
// and s.Drain registered with RegisterOnShutdown, so that its Shutdown
// answers every request in flight at once (long polls, fault latencies,
// slow bodies) instead of waiting for them. Set its Addr, or call its
// Serve with a listener.
func (s *Server) HTTPServer() *http.Server {
	s.inProcessOnly("HTTPServer")
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: ReadHeaderTimeout,
		ReadTimeout:       ReadTimeout,
		WriteTimeout:      WriteTimeout,
		IdleTimeout:       IdleTimeout,
	}
	hs.RegisterOnShutdown(s.Drain)
	return hs
}

// Drain prepares s for shutting down, so that every request in flight is
// answered at once: every open long poll (?wait= on the admin API)
// responds now, with what it has, and later ones respond without waiting;
// a fault's latency ends, and the request goes on as the rule says; a
// request body still arriving (a client sending it slowly) stops being
// read and its request is answered 503 service_unavailable. HTTPServer
// registers it with the HTTP server's shutdown; Start calls it when the
// test ends.
func (s *Server) Drain() {
	s.inProcessOnly("Drain")
	s.httpapi.Drain()
}

// LogUsage is what the logs the server keeps for itself hold at one moment:
// entries and the bytes they count against their caps (docs/mockserver.md,
// "Limits and retention"). The records users create are not in it.
type LogUsage struct {
	JournalEntries     int   // request journal entries
	JournalBytes       int64 // and their bytes (JournalEntry.Bytes)
	UsageEntries       int   // usage log entries
	IdempotencyRecords int   // idempotency records
	IdempotencyBytes   int64 // and their bytes
	Events             int   // event log entries
	EventBytes         int64 // and their bytes
	Deliveries         int   // delivery log entries
	DeliveryBytes      int64 // and their bytes
	Outbox             int   // outbox messages
}

// LogUsage reports what the server's own logs hold now: a load test watches
// them reach their caps and stay there.
func (s *Server) LogUsage() LogUsage {
	s.inProcessOnly("LogUsage")
	var u LogUsage
	u.JournalEntries, u.JournalBytes = s.httpapi.Journal.Usage()
	s.httpapi.Usage.Flushed(func(t *store.Table[*store.UsageEntry]) { u.UsageEntries = t.Len() })
	tx := s.platform.ReadTx()
	u.IdempotencyRecords, u.IdempotencyBytes = tx.Idempotency().Len(), tx.Idempotency().RetainedBytes()
	u.Events, u.EventBytes = tx.Events.Len(), tx.Events.RetainedBytes()
	u.Deliveries, u.DeliveryBytes = tx.Deliveries.Usage()
	u.Outbox = tx.Outbox.Len()
	tx.End()
	return u
}

// Close stops the server's background work (clock following, deliveries)
// and closes the loopback port LoopbackURL opened, if any. It closes no
// other listener: that is the caller's (or Start's) job. On a server
// reached with Connect it does nothing: that server runs on.
func (s *Server) Close() {
	s.stopOnce.Do(func() {
		if s.platform == nil {
			return
		}
		s.stop()
		s.hooks.Outbound.Close()
		if s.loopback != nil {
			s.httpapi.Drain()
			s.loopback.Close()
		}
	})
}

// LoopbackURL returns the root URL (http://127.0.0.1:port) of a loopback
// port serving s, opened at the first call and closed by Close, for
// clients that only a network can carry (Account.Client given an HTTP
// client with a transport of its own). A server started with Start, or
// reached with Connect, returns its own URL.
func (s *Server) LoopbackURL() string {
	if s.baseURL != "" {
		return strings.TrimSuffix(s.baseURL, "/api")
	}
	s.loopbackOnce.Do(func() { s.loopback = httptest.NewServer(s) })
	return s.loopback.URL
}

// Now returns the base simulated time: the time of a tenant that has never
// moved its own clock (see Account.Now).
func (s *Server) Now() time.Time { return s.clock("") }

// Advance moves the base simulated time, and every tenant's clock with it,
// forward by d, running every simulated process that falls due on the way,
// and returns the new base time. To move one test's time without touching
// the others', use Account.Advance. It panics when d is negative or longer
// than 400 days, or when a clock would reach 9000-01-01T00:00:00Z, where
// POST /_mock/clock/advance answers 400: time never moves back, and a
// test's mistake is reported where it happens.
func (s *Server) Advance(d time.Duration) time.Time { return s.advance("", d) }

// Reset drops all state: records, pending simulations, idempotency keys,
// rate limit windows, the journal, the outbox and fault rules; then it
// provisions the seed accounts (SeedAccount) again, with the same ids,
// number, key and session. A server without seed accounts is left empty.
func (s *Server) Reset() { s.mustAdmin(http.MethodPost, "/reset", nil, nil, nil) }

// ResetEmpty is Reset without the seed accounts (POST
// /_mock/reset?seed=none): the server is left empty. The next Reset
// provisions them again.
func (s *Server) ResetEmpty() {
	s.mustAdmin(http.MethodPost, "/reset", url.Values{"seed": {"none"}}, nil, nil)
}

// Version returns the mock server's version: the module's version from the
// build information (v1.2.3, or a pseudo-version for a build from a
// commit), or for a build from a checkout that records none the SDK's
// version with -devel and the commit when known. GET /_mock/health and the
// binary's -version report it.
func Version() string { return httpapi.Version() }

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
		s.Drain() // hs.Close waits for requests in flight: long polls respond now
		s.Close()
		hs.Close()
	})
	s.baseURL = hs.URL + "/api"
	return &TestServer{Server: s, HTTP: hs, URL: hs.URL + "/api", AdminURL: hs.URL + "/_mock"}
}
