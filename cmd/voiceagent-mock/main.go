// Command voiceagent-mock runs the mock server standalone, for test suites
// in any language and for curl:
//
//	go run ./cmd/voiceagent-mock                  # 127.0.0.1:8080, a demo account
//	go run ./cmd/voiceagent-mock -seed none       # start empty
//	go run ./cmd/voiceagent-mock -realtime        # the simulated clock follows real time
//	go run ./cmd/voiceagent-mock -fixtures f.json # also load accounts, leads and calls from a file
//
// A fixtures file is JSON: {"accounts": [{business_name, email, scopes,
// leads: [...], calls: [...]}]} (mockserver.Fixtures; the format is in the
// mockserver package documentation, section Fixtures). Each account's key
// is printed on a line of its own.
//
// It prints the base URL and, on a line of its own, the demo account's API
// key. The admin API is under /_mock (see the mockserver package).
package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, nil); err != nil {
		fmt.Fprintln(os.Stderr, "voiceagent-mock:", err)
		os.Exit(2)
	}
}

// run parses flags, starts the server and serves until ctx ends. ready, if
// not nil, receives the listening address.
func run(ctx context.Context, args []string, out io.Writer, ready chan<- string) error {
	fs := flag.NewFlagSet("voiceagent-mock", flag.ContinueOnError)
	fs.SetOutput(out)
	addr := fs.String("addr", "127.0.0.1:8080", "address to listen on")
	seed := fs.String("seed", "demo", "initial data: demo (an account with every scope) or none")
	realtime := fs.Bool("realtime", false, "let the simulated clock follow real time (same as -speed 1)")
	speed := fs.Float64("speed", 0, "let the simulated clock run at this multiple of real time (0: only /_mock/clock/advance moves it)")
	rateLimits := fs.Bool("rate-limits", true, "enforce the API's rate limits")
	idSeed := fs.Uint64("id-seed", 0, "make ids, keys and codes repeatable (0: random)")
	external := fs.Bool("allow-external-webhooks", false, "deliver webhooks to hosts outside loopback")
	approvalHosts := fs.String("approval-callback-hosts", "", "comma-separated hosts approval request callback_url may name (*.example.com for subdomains); loopback is always allowed")
	verbose := fs.Bool("v", false, "log every request")
	fixtures := fs.String("fixtures", "", "load accounts, leads and calls from this JSON file (see mockserver.Fixtures)")
	adminToken := fs.String("admin-token", "", "require this token on the admin API (Authorization: Bearer); one is generated when listening beyond loopback")
	if err := fs.Parse(args); err != nil {
		return err
	}
	opts := []mockserver.Option{
		mockserver.WithRateLimits(*rateLimits),
		mockserver.WithExternalWebhooks(*external),
	}
	if *realtime && *speed == 0 {
		*speed = 1
	}
	if *speed > 0 {
		opts = append(opts, mockserver.WithRealtime(*speed))
	}
	for _, h := range strings.Split(*approvalHosts, ",") {
		if h = strings.TrimSpace(h); h != "" {
			opts = append(opts, mockserver.WithApprovalCallbackHosts(h))
		}
	}
	if *idSeed != 0 {
		opts = append(opts, mockserver.WithIDSeed(*idSeed))
	}
	if *verbose {
		opts = append(opts, mockserver.WithLogger(slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	}
	// The address is resolved before the server is made: beyond loopback
	// the admin API needs a token.
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	token, generated, err := adminTokenFor(ln.Addr(), *adminToken)
	if err != nil {
		return err
	}
	if token != "" {
		opts = append(opts, mockserver.WithAdminToken(token))
	}
	srv := mockserver.New(opts...)
	defer srv.Close()

	var accts []*mockserver.Account
	if *fixtures != "" {
		// Loaded before listening: a bad file fails the start.
		var err error
		if accts, err = srv.LoadFixturesFile(*fixtures); err != nil {
			return err
		}
	}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(out, "voiceagent mock server listening\nbase URL: %s/api\nadmin API: %s/_mock\n", base, base)
	printAdminToken(out, token, generated)
	switch *seed {
	case "demo":
		acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Demo Business", Email: "demo@example.com"})
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "demo business: %s, agent: %s, number: %s\n", acct.BusinessID, acct.AgentID, acct.PhoneNumber)
		fmt.Fprintf(out, "export VOICEAGENT_BASE_URL=%s/api\n", base)
		fmt.Fprintf(out, "export VOICEAGENT_API_KEY=%s\n", acct.APIKey)
	case "none":
	default:
		return fmt.Errorf("-seed must be demo or none, not %q", *seed)
	}
	if *fixtures != "" {
		fmt.Fprintf(out, "fixtures: %d accounts from %s\n", len(accts), *fixtures)
		for i, a := range accts {
			fmt.Fprintf(out, "fixture account %d: business %s, agent %s, number %s\n", i+1, a.BusinessID, a.AgentID, a.PhoneNumber)
			fmt.Fprintf(out, "fixture key %d: %s\n", i+1, a.APIKey)
		}
	}

	// Read, write and idle timeouts; Shutdown answers open long polls.
	hs := srv.HTTPServer()
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	if ready != nil {
		ready <- ln.Addr().String()
	}
	select {
	case <-ctx.Done():
		// Shutdown drains: long polls answer at once, other requests in
		// flight finish; then the command exits 0.
		shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		return hs.Shutdown(shutdown)
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	}
}

// adminTokenFor is the admin token of a server listening on addr: the
// -admin-token flag's, or a generated one when the server listens beyond
// loopback (generated then reports true); "" on loopback without the flag.
func adminTokenFor(addr net.Addr, flagToken string) (token string, generated bool, err error) {
	if flagToken != "" {
		return flagToken, false, nil
	}
	if tcp, ok := addr.(*net.TCPAddr); ok && tcp.IP.IsLoopback() {
		return "", false, nil
	}
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", false, err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), true, nil
}

// printAdminToken says how the admin API is protected: the token on a line
// of its own ("admin token: ..."), and a warning when it was generated
// because the server listens beyond loopback.
func printAdminToken(out io.Writer, token string, generated bool) {
	if token == "" {
		return
	}
	if generated {
		fmt.Fprintln(out, "warning: listening beyond loopback: the admin API (/_mock) can reset state, mint keys and read codes;")
		fmt.Fprintln(out, "warning: it now requires this generated token (set your own with -admin-token)")
	}
	fmt.Fprintf(out, "admin token: %s\n", token)
	fmt.Fprintln(out, "admin requests send: Authorization: Bearer <admin token>")
}
