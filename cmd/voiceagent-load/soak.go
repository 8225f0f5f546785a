package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/internal/loadgen"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// soakConfig is what -soak runs.
type soakConfig struct {
	duration    time.Duration // each drive phase
	warmup      time.Duration // the start of a phase its verdicts leave out
	interval    time.Duration // between readings
	concurrency int
	maxRequests int64    // a drive phase ends after this many requests (0: no limit)
	phases      []string // reads, writes, flood
	floodN      int      // requests of the flood
	floodQuery  int      // bytes of each flood request's query
}

// soakPhases are the phases -phases may name.
var soakPhases = map[string]bool{"reads": true, "writes": true, "flood": true}

// runSoak runs the phases one after the other against one mock server in
// this process, and prints RSS, heap and throughput over time, then a
// verdict per phase.
func runSoak(ctx context.Context, cfg soakConfig, srv *mockserver.Server, base string, fx *loadgen.Fixtures, out io.Writer) error {
	scenarios := loadgen.Scenarios(fx)
	fmt.Fprintf(out, "soak: %s per phase (warm-up %s), %d connections, readings every %s\n",
		cfg.duration, cfg.warmup, cfg.concurrency, cfg.interval)
	for _, phase := range cfg.phases {
		var err error
		switch phase {
		case "reads":
			err = soakDrive(ctx, cfg, srv, base, fx.APIKey, scenarios[1], "", out)
		case "writes":
			err = soakDrive(ctx, cfg, srv, base, fx.APIKey, scenarios[2], "call", out)
		case "flood":
			err = soakFlood(ctx, cfg, srv, base, out)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", phase, err)
		}
	}
	return nil
}

// soakDrive runs one scenario for the phase's time and prints its readings
// and verdicts: RSS growth after the warm-up, the end's throughput as a
// share of the start's, and (record != "") the live heap each created
// record adds after the warm-up, when the server's own logs are full.
func soakDrive(ctx context.Context, cfg soakConfig, srv *mockserver.Server, base, key string, sc loadgen.Scenario, record string, out io.Writer) error {
	fmt.Fprintf(out, "\n%s for %s\n", sc.Name, cfg.duration)
	const row = "%6s %10s %7s %7s %7s %8s %9s %12s %8s %7s %6s\n"
	fmt.Fprintf(out, row, "t", "requests", "req/s", "RSS MB", "heap MB", "journal", "usage log", "idem records", "idem MB", "events", "errors")
	var (
		warm       *loadgen.Reading // the first reading after the warm-up
		warmHeap   uint64
		warmLogs   mockserver.LogUsage
		maxRSS     int64
		firstRPS   float64
		lastRPS    float64
		lastUsage  mockserver.LogUsage
		afterWarmN int
	)
	drive, cancel := context.WithTimeout(ctx, cfg.duration)
	defer cancel()
	end := loadgen.Soak(drive, base, key, sc, cfg.concurrency, cfg.maxRequests, cfg.interval, func(r loadgen.Reading) {
		u := srv.LogUsage()
		lastUsage = u
		fmt.Fprintf(out, row, r.Elapsed.Round(min(cfg.interval, time.Second)), fmt.Sprint(r.Requests), fmt.Sprintf("%.0f", r.RPS),
			fmt.Sprintf("%.1f", mb(r.RSS)), fmt.Sprintf("%.1f", mb(int64(r.HeapInUse))), fmt.Sprint(u.JournalEntries), fmt.Sprint(u.UsageEntries),
			fmt.Sprint(u.IdempotencyRecords), fmt.Sprintf("%.1f", mb(u.IdempotencyBytes)), fmt.Sprint(u.Events), fmt.Sprint(r.Errors))
		if r.Elapsed < cfg.warmup {
			return
		}
		if warm == nil {
			warm = &r
			firstRPS = r.RPS
			if record != "" {
				warmHeap = loadgen.LiveHeap()
				warmLogs = srv.LogUsage()
			}
			return
		}
		afterWarmN++
		maxRSS = max(maxRSS, r.RSS)
		if r.Span >= cfg.interval/2 { // not the stub of an interval at the end
			lastRPS = r.RPS
		}
	})
	if end.Requests == 0 {
		return fmt.Errorf("no request was answered (%d errors)", end.Errors)
	}
	fmt.Fprintf(out, "%s: %d requests in %s (%.0f req/s), %d errors\n", sc.Name, end.Requests, end.Elapsed.Round(time.Second),
		float64(end.Requests)/end.Elapsed.Seconds(), end.Errors)
	if warm == nil || afterWarmN == 0 {
		fmt.Fprintf(out, "verdict: the phase ended before two readings after the warm-up (%s); run it longer\n", cfg.warmup)
		return nil
	}
	maxRSS = max(maxRSS, warm.RSS)
	fmt.Fprintf(out, "after warm-up (%d requests): RSS %.1f MB, at most %.1f MB over the next %d requests: %+.1f MB\n",
		warm.Requests, mb(warm.RSS), mb(maxRSS), end.Requests-warm.Requests, mb(maxRSS-warm.RSS))
	if firstRPS > 0 {
		fmt.Fprintf(out, "throughput: %.0f req/s after warm-up, %.0f req/s at the end: %.0f%%\n", firstRPS, lastRPS, 100*lastRPS/firstRPS)
	}
	if record != "" {
		heap := loadgen.LiveHeap()
		n := end.Requests - warm.Requests
		fmt.Fprintf(out, "live heap: %.1f MB after warm-up, %.1f MB at the end: %d bytes per %s over %d %ss\n",
			mb(int64(warmHeap)), mb(int64(heap)), (int64(heap)-int64(warmHeap))/max(n, 1), record, n, record)
		fmt.Fprintf(out, "the server's own logs after warm-up: %s\n", logLine(warmLogs))
		fmt.Fprintf(out, "the server's own logs at the end:     %s\n", logLine(lastUsage))
	}
	return nil
}

// soakFlood sends the flood of unauthenticated requests with huge queries,
// then reads the journal, and prints RSS before, after the flood and after
// the read.
func soakFlood(ctx context.Context, cfg soakConfig, srv *mockserver.Server, base string, out io.Writer) error {
	fmt.Fprintf(out, "\nflood: %d x GET /api/nope?x=<%d bytes>, %d connections\n", cfg.floodN, cfg.floodQuery, cfg.concurrency)
	before := loadgen.RSS()
	start := time.Now()
	answered, failed := loadgen.Flood(ctx, base, cfg.floodN, cfg.floodQuery, cfg.concurrency)
	flooded := loadgen.RSS()
	took := time.Since(start)
	u := srv.LogUsage()
	readStart := time.Now()
	resp, err := http.Get(base + "/_mock/requests")
	if err != nil {
		return err
	}
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET /_mock/requests answered %d", resp.StatusCode)
	}
	read := loadgen.RSS()
	fmt.Fprintf(out, "flood: %d answered, %d failed in %s; RSS %.1f MB before, %.1f MB after the flood\n",
		answered, failed, took.Round(time.Millisecond), mb(before), mb(flooded))
	fmt.Fprintf(out, "journal: %d entries, %.1f MB kept; GET /_mock/requests: %.1f MB in %s; RSS %.1f MB after it\n",
		u.JournalEntries, mb(u.JournalBytes), mb(n), time.Since(readStart).Round(time.Millisecond), mb(read))
	return nil
}

// logLine shows the server's own logs on one line.
func logLine(u mockserver.LogUsage) string {
	return fmt.Sprintf("journal %d (%.1f MB), usage log %d, idempotency %d (%.1f MB), events %d (%.1f MB), deliveries %d (%.1f MB)",
		u.JournalEntries, mb(u.JournalBytes), u.UsageEntries, u.IdempotencyRecords, mb(u.IdempotencyBytes),
		u.Events, mb(u.EventBytes), u.Deliveries, mb(u.DeliveryBytes))
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }

// parsePhases reads -phases.
func parsePhases(s string) ([]string, error) {
	var out []string
	for _, p := range strings.Split(s, ",") {
		p = strings.TrimSpace(p)
		if !soakPhases[p] {
			return nil, fmt.Errorf("-phases: %q is none of reads, writes, flood", p)
		}
		out = append(out, p)
	}
	return out, nil
}
