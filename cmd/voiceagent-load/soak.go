package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/internal/harness/loadgen"
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
// and verdicts. The warm-up and the rest are two drives with a pause
// between them, in which the live heap is measured with no request in
// flight (and again at the end): the verdicts are the RSS growth after the
// warm-up, the end's throughput as a share of the start's (per second and
// per CPU second, which stays meaningful when other work shares the
// cores), and (record != "") the live heap each created record added after
// the warm-up, once the server's own logs are full.
func soakDrive(ctx context.Context, cfg soakConfig, srv *mockserver.Server, base, key string, sc loadgen.Scenario, record string, out io.Writer) error {
	fmt.Fprintf(out, "\n%s for %s (warm-up %s)\n", sc.Name, cfg.duration, cfg.warmup)
	const row = "%7s %10s %7s %9s %7s %7s %8s %9s %12s %8s %7s %6s\n"
	fmt.Fprintf(out, row, "t", "requests", "req/s", "cpu µs/req", "RSS MB", "heap MB", "journal", "usage log", "idem records", "idem MB", "events", "errors")
	type stage struct {
		readings []loadgen.Reading
		cpu      []time.Duration // process CPU time per request over each reading's span
		end      loadgen.Reading
	}
	var offset loadgen.Reading // the warm-up's totals, added to the main drive's readings
	drive := func(d time.Duration, limit int64) stage {
		var st stage
		ctx, cancel := context.WithTimeout(ctx, d)
		defer cancel()
		cpu0, n0 := loadgen.CPUTime(), int64(0)
		st.end = loadgen.Soak(ctx, base, key, sc, cfg.concurrency, limit, cfg.interval, func(r loadgen.Reading) {
			cpu := loadgen.CPUTime()
			perReq := time.Duration(0)
			if n := r.Requests - n0; n > 0 {
				perReq = (cpu - cpu0) / time.Duration(n)
			}
			cpu0, n0 = cpu, r.Requests
			u := srv.LogUsage()
			t := offset.Elapsed + r.Elapsed
			fmt.Fprintf(out, row, t.Round(min(cfg.interval, time.Second)), fmt.Sprint(offset.Requests+r.Requests), fmt.Sprintf("%.0f", r.RPS),
				fmt.Sprintf("%.1f", float64(perReq)/1e3), fmt.Sprintf("%.1f", mb(r.RSS)), fmt.Sprintf("%.1f", mb(int64(r.HeapInUse))),
				fmt.Sprint(u.JournalEntries), fmt.Sprint(u.UsageEntries), fmt.Sprint(u.IdempotencyRecords), fmt.Sprintf("%.1f", mb(u.IdempotencyBytes)),
				fmt.Sprint(u.Events), fmt.Sprint(offset.Errors+r.Errors))
			if r.Span >= cfg.interval/2 { // not the stub of an interval at the end
				st.readings = append(st.readings, r)
				st.cpu = append(st.cpu, perReq)
			}
		})
		return st
	}

	warm := drive(cfg.warmup, cfg.maxRequests)
	offset = warm.end
	warmHeap, warmLogs, warmRSS := loadgen.LiveHeap(), srv.LogUsage(), loadgen.RSS()
	fmt.Fprintf(out, "-- warm-up over: %d requests; live heap %.1f MB, RSS %.1f MB (measured between the drives)\n",
		warm.end.Requests, mb(int64(warmHeap)), mb(warmRSS))
	limit := int64(0)
	if cfg.maxRequests > 0 {
		limit = max(cfg.maxRequests-warm.end.Requests, 1)
	}
	rest := drive(max(cfg.duration-cfg.warmup, cfg.interval), limit)
	endHeap, endLogs := loadgen.LiveHeap(), srv.LogUsage()

	total := warm.end.Requests + rest.end.Requests
	elapsed := warm.end.Elapsed + rest.end.Elapsed
	fmt.Fprintf(out, "%s: %d requests in %s (%.0f req/s), %d errors\n", sc.Name, total, elapsed.Round(time.Second),
		float64(total)/elapsed.Seconds(), warm.end.Errors+rest.end.Errors)
	if total == 0 {
		return fmt.Errorf("no request was answered (%d errors)", warm.end.Errors+rest.end.Errors)
	}
	maxRSS := warmRSS
	for _, r := range rest.readings {
		maxRSS = max(maxRSS, r.RSS)
	}
	fmt.Fprintf(out, "RSS: %.1f MB after the warm-up, at most %.1f MB over the next %d requests: %+.1f MB\n",
		mb(warmRSS), mb(maxRSS), rest.end.Requests, mb(maxRSS-warmRSS))
	if n := len(rest.readings); n >= 2 {
		// The first and the last quarter of the readings (one at least),
		// so that one slow interval on shared cores is not the verdict.
		q := max(n/4, 1)
		startRPS, startCPU := window(rest.readings[:q], rest.cpu[:q])
		endRPS, endCPU := window(rest.readings[n-q:], rest.cpu[n-q:])
		fmt.Fprintf(out, "throughput: %.0f req/s over the first %d readings after the warm-up, %.0f req/s over the last %d: %.0f%%; CPU per request %s then %s: %.0f%% of the start's throughput per CPU second\n",
			startRPS, q, endRPS, q, 100*endRPS/startRPS, startCPU.Round(time.Microsecond/10), endCPU.Round(time.Microsecond/10),
			100*float64(startCPU)/float64(max(endCPU, 1)))
	} else {
		fmt.Fprintf(out, "throughput: fewer than two readings after the warm-up; run the phase longer than -warmup plus two -interval\n")
	}
	n := max(rest.end.Requests, 1)
	fmt.Fprintf(out, "live heap: %.1f MB after the warm-up, %.1f MB at the end: %+d bytes per request over %d requests\n",
		mb(int64(warmHeap)), mb(int64(endHeap)), (int64(endHeap)-int64(warmHeap))/n, rest.end.Requests)
	if record != "" {
		fmt.Fprintf(out, "(each request places one %s: the bytes per request are the bytes per %s)\n", record, record)
	}
	fmt.Fprintf(out, "the server's own logs after the warm-up: %s\n", logLine(warmLogs))
	fmt.Fprintf(out, "the server's own logs at the end:        %s\n", logLine(endLogs))
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

// window is the mean throughput and CPU per request of some readings.
func window(rs []loadgen.Reading, cpu []time.Duration) (rps float64, perReq time.Duration) {
	for i, r := range rs {
		rps += r.RPS
		perReq += cpu[i]
	}
	return rps / float64(len(rs)), perReq / time.Duration(len(rs))
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
