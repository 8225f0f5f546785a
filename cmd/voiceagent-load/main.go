// Command voiceagent-load measures the mock server's throughput over
// loopback. It starts the mock (rate limits off; authentication, scopes,
// rate-limit bookkeeping, the usage log, the request journal and
// idempotency on), seeds a tenant with leads, and for each scenario serves
// the mock's own response from a bare net/http handler too; it drives both
// with keep-alive connections in the same run, alternating them for
// -rounds rounds, and prints requests per second, p50 and p99 latency, and
// the mock's share of the bare handler's throughput (overall, and the
// range over the rounds).
//
//	go run ./cmd/voiceagent-load -duration 3s -concurrency 8 -rounds 3
//
// With -soak it runs a soak instead: sustained reads, then sustained
// writes, each for the given time, then a flood of unauthenticated
// requests with 1 MB queries, against one mock server in this process; it
// prints RSS, heap, throughput and the fill of the server's own logs every
// -interval, and per phase the RSS growth and throughput after -warmup, the
// live heap each placed call adds, and the flood's RSS:
//
//	go run ./cmd/voiceagent-load -soak 3m -warmup 30s -concurrency 8
//
// The scenarios are GET /v1/agents, GET /v1/leads?limit=100 (the reads of
// the throughput target; see docs/mockserver.md, section Performance and load),
// POST /v1/calls and PATCH /v1/leads.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/voiceagent/voiceagent-go/internal/harness/loadgen"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "voiceagent-load:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("voiceagent-load", flag.ContinueOnError)
	fs.SetOutput(out)
	duration := fs.Duration("duration", 3*time.Second, "how long each scenario runs per round, on each server")
	concurrency := fs.Int("concurrency", 8, "concurrent keep-alive connections")
	records := fs.Int("records", 10_000, "leads seeded in the store before the run")
	rounds := fs.Int("rounds", 1, "alternate the mock and the bare handler this many times per scenario")
	bench := benchFlags(fs)
	soak := fs.Duration("soak", 0, "instead: a soak of this long per phase, printing RSS, heap and throughput over time")
	phases := fs.String("phases", "reads,writes,flood", "soak phases, in order: reads (GET /v1/leads?limit=100), writes (POST /v1/calls), flood (huge unauthenticated queries)")
	warmup := fs.Duration("warmup", 30*time.Second, "soak: the start of each phase that its verdicts leave out")
	interval := fs.Duration("interval", 10*time.Second, "soak: time between readings")
	maxRequests := fs.Int64("max-requests", 0, "soak: end a phase after this many requests (0: after -soak)")
	floodN := fs.Int("flood", 2000, "soak: requests of the flood phase")
	floodQuery := fs.Int("flood-query", 1_000_000, "soak: bytes of each flood request's query")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *soak != 0 {
		ph, err := parsePhases(*phases)
		if err != nil {
			return err
		}
		if *soak < 0 || *soak > 24*time.Hour || *warmup < 0 || *interval <= 0 || *maxRequests < 0 ||
			*floodN < 1 || *floodQuery < 1 || *floodQuery > 1<<20 || *concurrency < 1 || *concurrency > 1024 || *records < 1 || *records > 1_000_000 {
			return fmt.Errorf("-soak must be in (0, 24h], -interval positive, -warmup and -max-requests not negative, -flood at least 1, -flood-query in [1, 1048576], -concurrency in [1, 1024], -records in [1, 1000000]")
		}
		srv, fx, err := loadgen.Setup(*records)
		if err != nil {
			return err
		}
		defer srv.Close()
		base, stop, err := loadgen.Serve(srv)
		if err != nil {
			return err
		}
		defer stop()
		return runSoak(ctx, soakConfig{duration: *soak, warmup: *warmup, interval: *interval, concurrency: *concurrency,
			maxRequests: *maxRequests, phases: ph, floodN: *floodN, floodQuery: *floodQuery}, srv, base, fx, out)
	}
	if *duration <= 0 || *duration > 10*time.Minute || *concurrency < 1 || *concurrency > 1024 ||
		*rounds < 1 || *rounds > 100 || *records < 1 || *records > 1_000_000 {
		return fmt.Errorf("-duration must be in (0, 10m], -concurrency in [1, 1024], -rounds in [1, 100] and -records in [1, 1000000]")
	}
	if *bench.on {
		return runBench(ctx, fs, bench, out)
	}

	srv, fx, err := loadgen.Setup(*records)
	if err != nil {
		return err
	}
	defer srv.Close()
	mockURL, stopMock, err := loadgen.Serve(srv)
	if err != nil {
		return err
	}
	defer stopMock()

	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "scenario\tmock req/s\tp50\tp99\tbare req/s\tp50\tp99\tmock/bare\trange\terrors\t\n")
	for _, sc := range loadgen.Scenarios(fx) {
		// The bare handler serves one real response of the mock, byte for byte.
		sample, status, err := loadgen.Sample(mockURL, fx.APIKey, sc)
		if err != nil {
			return err
		}
		bareURL, stopBare, err := loadgen.Serve(loadgen.Bare(sample, status))
		if err != nil {
			return err
		}
		mock, bare, lo, hi, err := alternate(ctx, loadgen.GoDriver(*concurrency), mockURL, bareURL, fx.APIKey, sc, 0, *duration, *rounds)
		stopBare()
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\t%.0f\t%s\t%s\t%.0f\t%s\t%s\t%.0f%%\t%.0f-%.0f%%\t%d\t\n", sc.Name,
			mock.RPS(), round(mock.P50), round(mock.P99),
			bare.RPS(), round(bare.P50), round(bare.P99),
			100*mock.RPS()/bare.RPS(), 100*lo, 100*hi, mock.Errors+bare.Errors)
	}
	return tw.Flush()
}

func round(d time.Duration) time.Duration { return d.Round(time.Microsecond) }
