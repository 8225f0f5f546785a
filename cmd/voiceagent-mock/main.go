// Command voiceagent-mock runs the mock server standalone, for test suites
// in any language and for curl:
//
//	go run ./cmd/voiceagent-mock                  # 127.0.0.1:8080, a demo account
//	go run ./cmd/voiceagent-mock -seed none       # start empty
//	go run ./cmd/voiceagent-mock -realtime        # the simulated clock follows real time
//	go run ./cmd/voiceagent-mock -fixtures f.json # also load accounts, leads and calls from a file
//	go run ./cmd/voiceagent-mock -help            # every flag and its environment variable
//	voiceagent-mock healthcheck                   # exit 0 when the server of these flags responds
//	voiceagent-mock check-receiver -secret whsec_... https://example.com/hooks # check a webhook receiver
//
// Every flag can also be set by an environment variable: VOICEAGENT_MOCK_
// and the flag's name in capitals, - as _ (VOICEAGENT_MOCK_ADDR,
// VOICEAGENT_MOCK_ALLOW_EXTERNAL_WEBHOOKS). A flag on the command line wins
// over its variable; an empty variable counts as unset. Every value is
// checked before the server listens: a bad one exits 2 with a message
// saying which and why. -help exits 0, -version prints the version.
//
// The healthcheck subcommand reads the same flags and variables, asks GET
// /_mock/health of the server they configure (on loopback when -addr is
// every interface, with the admin token when one is set) and exits 0 when
// it responds, 1 otherwise: the HEALTHCHECK of the container image, which
// has no shell.
//
// The check-receiver subcommand runs the receiver checks of package
// webhooks/webhookstest against a webhook receiver's URL (no server is
// needed) and prints the report as text, JSON (-format json) or JUnit XML
// (-format junit); it exits 0 when every required check passes, 1 when one
// fails and 2 for bad usage. The secret comes from -secret or
// VOICEAGENT_WEBHOOK_SECRET.
//
// A fixtures file is JSON: {"accounts": [{business_name, email, scopes,
// leads: [...], calls: [...]}]} (mockserver.Fixtures; the format is in the
// mockserver package documentation, section Fixtures). Each account's key
// is printed on a line of its own.
//
// It prints the base URL, how the simulated clock runs and, on a line of
// its own, the demo account's API key; POST /_mock/reset keeps that account
// and its key (mockserver.Server.SeedAccount). The admin API is under /_mock
// (see the mockserver package); GET /_mock/health responds once it serves.
package main

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver"
)

// envPrefix starts the environment variable of every flag.
const envPrefix = "VOICEAGENT_MOCK_"

// fixedWallClock, when set at link time (go build -ldflags "-X
// main.fixedWallClock=2026-01-15T08:00:00Z"), is the wall clock the server
// reads instead of the real one: the date of its default start and the
// start of -realtime. It exists so the command's own tests can run the
// binary as if it started at any hour; it is not configuration (-start is).
var fixedWallClock string

func init() {
	if fixedWallClock == "" {
		return
	}
	if _, err := time.Parse(time.RFC3339, fixedWallClock); err != nil {
		panic("voiceagent-mock: main.fixedWallClock is set at link time but is not an RFC 3339 time: " + err.Error())
	}
}

// Exit codes.
const (
	exitOK      = 0
	exitFailed  = 1 // the server could not listen, or stopped with an error
	exitBadArgs = 2 // a flag, a variable or an input file is wrong: nothing was served
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.LookupEnv, os.Stdout, os.Stderr, nil)
	stop()
	os.Exit(code)
}

// run is the command: it reads the flags and the environment, checks them,
// starts the server and serves until ctx ends, and returns the exit code.
// The usage (-help) and the version go to stdout with the start-up lines;
// errors and the -v log go to stderr. ready, if not nil, receives the
// listening address.
func run(ctx context.Context, args []string, env func(string) (string, bool), stdout, stderr io.Writer, ready chan<- string) int {
	if len(args) > 0 && args[0] == "healthcheck" {
		return healthcheck(ctx, args[1:], env, stdout, stderr)
	}
	if len(args) > 0 && args[0] == "check-receiver" {
		return checkReceiver(ctx, args[1:], env, stdout, stderr)
	}
	cfg, fs, err := parseConfig(args, env)
	switch {
	case errors.Is(err, flag.ErrHelp):
		usage(fs, stdout)
		return exitOK
	case err != nil:
		fmt.Fprintf(stderr, "voiceagent-mock: %v\nRun voiceagent-mock -help for the flags.\n", err)
		return exitBadArgs
	case cfg.version:
		fmt.Fprintf(stdout, "voiceagent-mock %s (%s)\n", mockserver.Version(), runtime.Version())
		return exitOK
	}
	if err := serve(ctx, cfg, stdout, stderr, ready); err != nil {
		fmt.Fprintln(stderr, "voiceagent-mock:", err)
		var bad *badInput
		if errors.As(err, &bad) {
			return exitBadArgs
		}
		return exitFailed
	}
	return exitOK
}

// config is what the flags (and their environment variables) set, checked.
type config struct {
	addr          string
	seed          string
	fixtures      string
	state         string
	start         time.Time // zero: the server's default
	speed         float64   // 0: frozen
	rateLimits    bool
	idSeed        uint64
	external      bool
	webhookCAFile string
	webhookCAs    []*x509.Certificate
	approvalHosts []string
	cors          []string
	verbose       bool
	version       bool
	// adminToken guards the admin API (-admin-token, or generated when the
	// server listens beyond loopback: adminTokenGenerated).
	adminToken          string
	adminTokenGenerated bool
	// adminHosts are the Host names the admin API serves without a
	// token, besides loopback names (-admin-hosts).
	adminHosts []string
}

// badInput is an error of the input that only shows once it is read (a
// fixtures file): exit 2, as for a bad flag.
type badInput struct{ err error }

func (e *badInput) Error() string { return e.err.Error() }
func (e *badInput) Unwrap() error { return e.err }

// parseConfig defines the flags, applies their environment variables where
// the command line did not set them, and checks every value. It returns
// flag.ErrHelp for -help (and -h).
func parseConfig(args []string, env func(string) (string, bool)) (*config, *flag.FlagSet, error) {
	fs := flag.NewFlagSet("voiceagent-mock", flag.ContinueOnError)
	fs.SetOutput(io.Discard) // run prints the usage and the errors
	cfg := &config{}
	var start, approvalHosts, cors, adminHosts string
	var realtime bool
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:8080", "`address` to listen on (host:port; port 0 picks a free one)")
	fs.StringVar(&cfg.seed, "seed", "demo", "initial data: demo (an account with every scope, kept by POST /_mock/reset) or none")
	fs.StringVar(&cfg.fixtures, "fixtures", "", "load accounts, leads and calls from this JSON `file` (see mockserver.Fixtures)")
	fs.StringVar(&cfg.state, "state", "", "keep the whole server in this `file`: load it at start when it exists (instead of -seed and -fixtures), write it on SIGINT and SIGTERM; its directory must exist and be writable")
	fs.StringVar(&start, "start", "", "pin the simulated start to this RFC 3339 `time` (such as 2026-03-10T16:00:00Z)")
	fs.BoolVar(&realtime, "realtime", false, "let the simulated clock follow real time (same as -speed 1)")
	fs.Float64Var(&cfg.speed, "speed", 0, "let the simulated clock run at this `multiple` of real time (0: only POST /_mock/clock/advance moves it)")
	fs.BoolVar(&cfg.rateLimits, "rate-limits", true, "enforce the API's rate limits")
	fs.Uint64Var(&cfg.idSeed, "id-seed", 0, "make ids, keys and codes repeatable from this `seed` (0: random)")
	fs.BoolVar(&cfg.external, "allow-external-webhooks", false, "deliver webhooks to hosts outside loopback, over http too (receivers in other containers)")
	fs.StringVar(&cfg.webhookCAFile, "webhook-ca", "", "trust the CA certificates of this PEM `file` for https webhook receivers, besides the system's")
	fs.StringVar(&approvalHosts, "approval-callback-hosts", "", "comma-separated `hosts` approval request callback_url may name (*.example.com for subdomains); loopback is always allowed")
	fs.StringVar(&cors, "cors", "", "comma-separated `origins` whose web pages may call the API under /api (scheme://host[:port], or * for any); the admin API stays same-origin")
	fs.BoolVar(&cfg.verbose, "v", false, "log every request (with the error code of error answers) and every webhook attempt to stderr")
	fs.BoolVar(&cfg.version, "version", false, "print the version and exit")
	fs.StringVar(&cfg.adminToken, "admin-token", "", "require this `token` on the admin API (Authorization: Bearer); one is generated and printed when -addr is beyond loopback")
	fs.StringVar(&adminHosts, "admin-hosts", "", "comma-separated `hosts` (name or name:port) the admin API of a server on loopback answers without a token, besides loopback names (a local proxy's name for it)")

	if err := fs.Parse(args); err != nil {
		return nil, fs, err
	}
	if fs.NArg() > 0 {
		return nil, fs, fmt.Errorf("unexpected argument %q: every option is a flag, given before any other argument (such as -seed none)", fs.Arg(0))
	}
	if err := applyEnv(fs, env); err != nil {
		return nil, fs, err
	}
	if cfg.version {
		return cfg, fs, nil
	}

	_, port, err := net.SplitHostPort(cfg.addr)
	if err != nil {
		return nil, fs, fmt.Errorf("-addr %q must be host:port, such as 127.0.0.1:8080 or :8080", cfg.addr)
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return nil, fs, fmt.Errorf("-addr %q: the port must be a number from 0 to 65535, not %q", cfg.addr, port)
	}
	if cfg.seed != "demo" && cfg.seed != "none" {
		return nil, fs, fmt.Errorf("-seed must be demo or none, not %q", cfg.seed)
	}
	if start != "" {
		t, err := time.Parse(time.RFC3339, start)
		if err != nil {
			return nil, fs, fmt.Errorf("-start %q is not an RFC 3339 time, such as 2026-03-10T16:00:00Z or 2026-03-10T11:00:00-05:00", start)
		}
		if !t.Before(mockserver.ClockEnd) {
			return nil, fs, fmt.Errorf("-start %q is not before %s, the last time the simulated clock may reach", start, mockserver.ClockEnd.Format(time.RFC3339))
		}
		cfg.start = t
	}
	if math.IsNaN(cfg.speed) || math.IsInf(cfg.speed, 0) || cfg.speed < 0 {
		return nil, fs, fmt.Errorf("-speed must be 0 (the clock moves only when POST /_mock/clock/advance moves it) or a positive multiple of real time, not %v", cfg.speed)
	}
	if realtime {
		if cfg.speed != 0 && cfg.speed != 1 {
			return nil, fs, fmt.Errorf("-realtime and -speed %v disagree: -realtime is -speed 1; give one of them", cfg.speed)
		}
		cfg.speed = 1
	}
	for _, h := range splitList(approvalHosts) {
		if strings.ContainsAny(h, "/:@ ") {
			return nil, fs, fmt.Errorf("-approval-callback-hosts: %q is not a host name (give hosts such as control.example or *.example.com, without a scheme, port or path)", h)
		}
		cfg.approvalHosts = append(cfg.approvalHosts, h)
	}
	cfg.cors = splitList(cors)
	for _, o := range cfg.cors {
		if err := mockserver.CheckOptions(mockserver.WithCORS(o)); err != nil {
			return nil, fs, fmt.Errorf("-cors: %s", strings.TrimPrefix(err.Error(), "mockserver: WithCORS: "))
		}
	}
	if cfg.webhookCAFile != "" {
		certs, err := readCertificates(cfg.webhookCAFile)
		if err != nil {
			return nil, fs, fmt.Errorf("-webhook-ca: %w", err)
		}
		cfg.webhookCAs = certs
	}
	if cfg.adminHosts, err = checkAdminHosts(splitList(adminHosts)); err != nil {
		return nil, fs, err
	}
	if len(cfg.adminHosts) > 0 && cfg.adminToken != "" {
		return nil, fs, errors.New("-admin-hosts and -admin-token: give one of them (with a token the admin API answers any Host name; the hosts are names a server on loopback answers without one)")
	}
	if len(cfg.adminHosts) > 0 && beyondLoopback(cfg.addr) {
		return nil, fs, fmt.Errorf("-admin-hosts with -addr %s: beyond loopback the admin API requires the admin token (-admin-token, or one generated) and answers any Host with it; the hosts are for a server on loopback reached by another name (a local proxy)", cfg.addr)
	}
	if cfg.adminToken == "" && beyondLoopback(cfg.addr) {
		if cfg.adminToken, err = generateToken(); err != nil {
			return nil, fs, err
		}
		cfg.adminTokenGenerated = true
	}
	return cfg, fs, nil
}

// checkAdminHosts checks the -admin-hosts values: each a host name or
// address, with a port or without, as a client's Host header names the
// server.
func checkAdminHosts(hosts []string) ([]string, error) {
	for _, h := range hosts {
		name := h
		if !strings.ContainsAny(h, "/@*?# ") {
			if host, port, err := net.SplitHostPort(h); err == nil {
				if _, err := strconv.ParseUint(port, 10, 16); err != nil {
					return nil, fmt.Errorf("-admin-hosts: %q: the port must be a number from 0 to 65535", h)
				}
				name = host
			}
		}
		if name == "" || strings.ContainsAny(name, "/@*?#[] ") || strings.Contains(name, ":") && net.ParseIP(name) == nil {
			return nil, fmt.Errorf("-admin-hosts: %q is not a host name (give names such as mock or mock:8080, as clients send them in Host, without a scheme, path or wildcard)", h)
		}
	}
	return hosts, nil
}

// beyondLoopback reports whether a server listening on addr (host:port)
// can be reached from beyond loopback: every interface (no host, 0.0.0.0,
// ::), an address that is not loopback, or a name other than localhost
// (which may resolve anywhere).
func beyondLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return true
	}
	if ip := net.ParseIP(host); ip != nil {
		return !ip.IsLoopback()
	}
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	return host != "localhost" && !strings.HasSuffix(host, ".localhost")
}

// generateToken is a random admin token: 24 bytes, base64url.
func generateToken() (string, error) {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// reachableAddr is the host and port a client on this machine reaches the
// listener at: the listener's own, or loopback's when it listens on every
// interface (0.0.0.0 or [::], as in the container image), which is not an
// address a client can use.
func reachableAddr(a net.Addr) string {
	tcp, ok := a.(*net.TCPAddr)
	if !ok || !tcp.IP.IsUnspecified() {
		return a.String()
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(tcp.Port))
}

// printAdminAccess says how the admin API is protected: the admin hosts
// ("admin hosts: ..."), or the token on a line of its own ("admin token:
// ..."), with a warning when it was generated because the server listens
// beyond loopback.
func printAdminAccess(out io.Writer, cfg *config) {
	if len(cfg.adminHosts) > 0 {
		fmt.Fprintf(out, "admin hosts: %s (and loopback names), without a token\n", strings.Join(cfg.adminHosts, ", "))
		return
	}
	if cfg.adminToken == "" {
		return
	}
	if cfg.adminTokenGenerated {
		fmt.Fprintln(out, "warning: listening beyond loopback: the admin API (/_mock) can reset state, mint keys and read codes;")
		fmt.Fprintln(out, "warning: it now requires this generated token (set your own with -admin-token)")
	}
	fmt.Fprintf(out, "admin token: %s\n", cfg.adminToken)
	fmt.Fprintln(out, "admin requests send: Authorization: Bearer <admin token>")
}

// applyEnv sets every flag the command line did not set from its
// environment variable (VOICEAGENT_MOCK_ and the name in capitals, - as _),
// when that is set and not empty.
func applyEnv(fs *flag.FlagSet, env func(string) (string, bool)) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		if err != nil || set[f.Name] {
			return
		}
		name := envName(f.Name)
		v, ok := env(name)
		if !ok || v == "" {
			return
		}
		if e := fs.Set(f.Name, v); e != nil {
			err = fmt.Errorf("%s=%q: -%s wants %s", name, v, f.Name, valueKind(f))
		}
	})
	return err
}

// envName is the environment variable of a flag.
func envName(flagName string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// valueKind says in words what a flag's value is.
func valueKind(f *flag.Flag) string {
	g, ok := f.Value.(flag.Getter)
	if !ok {
		return "a valid value"
	}
	switch g.Get().(type) {
	case bool:
		return "true or false"
	case uint, uint64:
		return "a whole number, 0 or more"
	case int, int64:
		return "a whole number"
	case float64:
		return "a number"
	case time.Duration:
		return "a duration such as 30s"
	}
	return "a valid value"
}

// usage prints the help: what the command does and every flag with its
// environment variable.
func usage(fs *flag.FlagSet, w io.Writer) {
	fmt.Fprintf(w, `Usage: voiceagent-mock [flags]
       voiceagent-mock healthcheck [flags]
       voiceagent-mock check-receiver [-secret S] [-events a,b] [-format text|json|junit] URL

Runs the voiceagent mock server: the whole API under /api, the admin API
under /_mock (GET /_mock/health answers once it serves). It prints the base
URL and the demo account's API key. The healthcheck subcommand asks the
server that the same flags and variables configure for GET /_mock/health and
exits 0 when it answers, 1 otherwise. The check-receiver subcommand runs the
receiver checks against a webhook receiver (check-receiver -help).

Every flag can also be set by the environment variable shown after it; a
flag on the command line wins over its variable.

Flags:
`)
	fs.VisitAll(func(f *flag.Flag) {
		f.Usage += " [$" + envName(f.Name) + "]"
	})
	fs.SetOutput(w)
	fs.PrintDefaults()
	fs.SetOutput(io.Discard)
}

// splitList splits a comma-separated flag value, dropping empty entries.
func splitList(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}

// readCertificates reads the PEM certificates of a file: at least one, and
// nothing else.
func readCertificates(path string) ([]*x509.Certificate, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var certs []*x509.Certificate
	for rest := raw; ; {
		var block *pem.Block
		block, rest = pem.Decode(rest)
		if block == nil {
			break
		}
		if block.Type != "CERTIFICATE" {
			return nil, fmt.Errorf("%s holds a %s block; give CA certificates only (PEM CERTIFICATE blocks)", path, block.Type)
		}
		c, err := x509.ParseCertificate(block.Bytes)
		if err != nil {
			return nil, fmt.Errorf("%s: certificate %d: %w", path, len(certs)+1, err)
		}
		certs = append(certs, c)
	}
	if len(certs) == 0 {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return certs, nil
}

// options are the server's options for cfg; the -v log goes to logw.
func (cfg *config) options(logw io.Writer) []mockserver.Option {
	opts := []mockserver.Option{
		mockserver.WithRateLimits(cfg.rateLimits),
		mockserver.WithExternalWebhooks(cfg.external),
	}
	if wall, err := time.Parse(time.RFC3339, fixedWallClock); err == nil {
		opts = append(opts, mockserver.WithWallClock(func() time.Time { return wall }))
	}
	if !cfg.start.IsZero() {
		opts = append(opts, mockserver.WithStartTime(cfg.start))
	}
	if cfg.speed > 0 {
		opts = append(opts, mockserver.WithRealtime(cfg.speed))
	}
	if len(cfg.approvalHosts) > 0 {
		opts = append(opts, mockserver.WithApprovalCallbackHosts(cfg.approvalHosts...))
	}
	if cfg.idSeed != 0 {
		opts = append(opts, mockserver.WithIDSeed(cfg.idSeed))
	}
	if len(cfg.cors) > 0 {
		opts = append(opts, mockserver.WithCORS(cfg.cors...))
	}
	if len(cfg.webhookCAs) > 0 {
		opts = append(opts, mockserver.WithWebhookCA(cfg.webhookCAs...))
	}
	if cfg.adminToken != "" {
		opts = append(opts, mockserver.WithAdminToken(cfg.adminToken))
	}
	if len(cfg.adminHosts) > 0 {
		opts = append(opts, mockserver.WithAdminHosts(cfg.adminHosts...))
	}
	if cfg.verbose {
		opts = append(opts, mockserver.WithLogger(slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	}
	return opts
}

// serve makes the server, loads its data, listens, prints the start-up
// lines and serves until ctx ends.
func serve(ctx context.Context, cfg *config, out, logw io.Writer, ready chan<- string) error {
	srv := mockserver.New(cfg.options(logw)...)
	defer srv.Close()

	// Data is loaded before listening: a bad file fails the start, and so
	// does a state file that could not be written at the end.
	var leftovers []string
	if cfg.state != "" {
		var err error
		if leftovers, err = mockserver.CheckSnapshotFile(cfg.state); err != nil {
			return &badInput{fmt.Errorf("-state: %w", err)}
		}
	}
	restored, err := loadState(srv, cfg.state)
	if err != nil {
		return &badInput{fmt.Errorf("-state: %w", err)}
	}
	var fixtures []*mockserver.Account
	if cfg.fixtures != "" && !restored {
		var err error
		if fixtures, err = srv.LoadFixturesFile(cfg.fixtures); err != nil {
			return &badInput{fmt.Errorf("-fixtures: %w", err)}
		}
	}
	var demo *mockserver.Account
	switch seeds := srv.SeedAccounts(); {
	case restored && len(seeds) > 0:
		demo = seeds[0]
	case !restored && cfg.seed == "demo":
		var err error
		demo, err = srv.SeedAccount(mockserver.AccountOptions{BusinessName: "Demo Business", Email: "demo@example.com"})
		if err != nil {
			return err
		}
	}
	clockLine := "clock: frozen at " + srv.Now().Format(time.RFC3339) + "; only POST /_mock/clock/advance moves it"
	if cfg.speed > 0 {
		clockLine = fmt.Sprintf("clock: follows real time at speed %v, from %s", cfg.speed, srv.Now().Format(time.RFC3339))
	}

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	base := "http://" + reachableAddr(ln.Addr())
	fmt.Fprintf(out, "voiceagent mock server %s listening on %s\nbase URL: %s/api\nadmin API: %s/_mock\n%s\n",
		mockserver.Version(), ln.Addr(), base, base, clockLine)
	fmt.Fprintf(out, "dashboard: %s/_mock/ui\n", base)
	printAdminAccess(out, cfg)
	if len(cfg.cors) > 0 {
		fmt.Fprintf(out, "CORS: web pages of %s may call the API under /api (never with credentials)\n", strings.Join(cfg.cors, ", "))
	}
	if cfg.external {
		fmt.Fprintln(out, "webhooks: receivers outside loopback are called, over http too")
	}
	if len(cfg.webhookCAs) > 0 {
		fmt.Fprintf(out, "webhooks: trusting %d CA certificate(s) from %s\n", len(cfg.webhookCAs), cfg.webhookCAFile)
	}
	if demo != nil {
		fmt.Fprintf(out, "demo business: %s, agent: %s, number: %s (kept by POST /_mock/reset)\n", demo.BusinessID, demo.AgentID, demo.PhoneNumber)
		fmt.Fprintf(out, "export VOICEAGENT_BASE_URL=%s/api\n", base)
		fmt.Fprintf(out, "export VOICEAGENT_API_KEY=%s\n", demo.APIKey)
	}
	for _, name := range leftovers {
		fmt.Fprintf(out, "state: removed %s, a temporary file left by a write that was stopped\n", name)
	}
	if restored {
		fmt.Fprintf(out, "state: loaded from %s (written back on SIGINT and SIGTERM)\n", cfg.state)
	} else if cfg.state != "" {
		fmt.Fprintf(out, "state: %s does not exist yet; written on SIGINT and SIGTERM\n", cfg.state)
	}
	if len(fixtures) > 0 {
		fmt.Fprintf(out, "fixtures: %d accounts from %s\n", len(fixtures), cfg.fixtures)
		for i, a := range fixtures {
			fmt.Fprintf(out, "fixture account %d: business %s, agent %s, number %s\n", i+1, a.BusinessID, a.AgentID, a.PhoneNumber)
			fmt.Fprintf(out, "fixture key %d: %s\n", i+1, a.APIKey)
		}
	}

	// Read, write and idle timeouts; Shutdown ends open long polls with a response.
	hs := srv.HTTPServer()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	if ready != nil {
		ready <- ln.Addr().String()
	}
	select {
	case <-ctx.Done():
		srv.Close() // no webhook attempt keeps a clock advance waiting
		err := shutdown(hs, shutdownGrace)
		if cfg.state != "" {
			if serr := srv.WriteSnapshotFile(cfg.state); serr != nil {
				return errors.Join(err, fmt.Errorf("-state: writing %s: %w", cfg.state, serr))
			}
			fmt.Fprintf(out, "state: written to %s\n", cfg.state)
		}
		return err
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}

// loadState restores the whole server from the state file at path, and
// reports whether it did: false when path is "" or does not exist yet.
func loadState(srv *mockserver.Server, path string) (bool, error) {
	if path == "" {
		return false, nil
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err := srv.RestoreFile(path); err != nil {
		return false, err
	}
	return true, nil
}

// shutdownGrace is how long SIGINT and SIGTERM wait for the requests in
// flight to be answered. The server's Drain answers them at once (long
// polls, fault latencies, slow bodies), so only a client that does not
// read its response takes it; it fits within the 10 s a container runtime
// waits after SIGTERM by default.
const shutdownGrace = 5 * time.Second

// shutdown stops hs: it stops listening, answers the requests in flight
// (hs's shutdown hooks drain the mock server) and waits for them up to
// grace. Connections still busy then are closed, their responses lost,
// and shutdown returns an error saying so.
func shutdown(hs *http.Server, grace time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), grace)
	defer cancel()
	err := hs.Shutdown(ctx)
	if errors.Is(err, context.DeadlineExceeded) {
		_ = hs.Close()
		return fmt.Errorf("shutdown: requests still in flight after %s (a client not reading its response) were closed without the rest of their response", grace)
	}
	return err
}
