package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/internal/harness/loadgen"
)

// The benchmark mode (-bench) measures, side by side in one run:
//
//   - every read route of the API against a bare net/http handler writing
//     the mock's own response byte for byte, alternating the two -rounds
//     times per route, with the mock's share of the bare throughput and
//     the read floor of the hot lists;
//   - POST /v1/calls throughput with each number of stored calls of
//     -stored-calls (10,000 and 1,000,000 by default), the calls put
//     straight into the store in-process (the time this takes is
//     printed), one server at a time so that one's heap does not weigh on
//     the other's collections.
//
// It drives with wrk (1 thread and -concurrency connections, 32 unless
// set) when wrk is installed, else with this process's own client
// (-driver chooses).
//
//	go run ./cmd/voiceagent-load -bench
//	go run ./cmd/voiceagent-load -bench -reads 'leads|calls' -stored-calls '' -duration 5s -rounds 5

// benchOptions are the flags of the benchmark mode.
type benchOptions struct {
	on          *bool
	driver      *string
	wrkThreads  *int
	reads       *string
	storedCalls *string
}

// benchFlags adds the benchmark mode's flags to fs.
func benchFlags(fs *flag.FlagSet) *benchOptions {
	return &benchOptions{
		on:          fs.Bool("bench", false, "benchmark mode: every read route next to a bare handler, and POST /v1/calls with -stored-calls stored calls"),
		driver:      fs.String("driver", "auto", "benchmark mode: what drives the load: wrk, go (this process's client), or auto (wrk when installed)"),
		wrkThreads:  fs.Int("wrk-threads", 1, "benchmark mode: wrk's threads"),
		reads:       fs.String("reads", ".", "benchmark mode: a regular expression choosing the read routes by name (empty: none)"),
		storedCalls: fs.String("stored-calls", "10000,1000000", "benchmark mode: the numbers of stored calls POST /v1/calls is measured with, comma-separated (empty: none)"),
	}
}

// readTargets are the read floor: the mock's share of the bare handler's
// throughput that the hot reads keep.
var readTargets = map[string]float64{
	"GET /v1/agents":          0.75,
	"GET /v1/leads?limit=100": 0.60,
	"GET /v1/calls?limit=100": 0.60,
}

// writeTarget is the write floor: POST /v1/calls throughput with the most
// stored calls over its throughput with the fewest.
const writeTarget = 0.80

// runBench is the benchmark mode. It reads the shared flags (-duration,
// -concurrency, -records, -rounds) from fs, already parsed and checked.
func runBench(ctx context.Context, fs *flag.FlagSet, bo *benchOptions, out io.Writer) error {
	get := func(name string) any { return fs.Lookup(name).Value.(flag.Getter).Get() }
	duration, rounds, records := get("duration").(time.Duration), get("rounds").(int), get("records").(int)
	conns := 32
	fs.Visit(func(f *flag.Flag) {
		if f.Name == "concurrency" {
			conns = get("concurrency").(int)
		}
	})
	var counts []int
	for s := range strings.SplitSeq(*bo.storedCalls, ",") {
		if s = strings.TrimSpace(s); s == "" {
			continue
		}
		n, err := strconv.Atoi(strings.ReplaceAll(s, "_", ""))
		if err != nil || n < 0 || n > 10_000_000 {
			return fmt.Errorf("-stored-calls: %q is not a number of calls in [0, 10000000]", s)
		}
		counts = append(counts, n)
	}
	var pick *regexp.Regexp
	if *bo.reads != "" {
		var err error
		if pick, err = regexp.Compile(*bo.reads); err != nil {
			return fmt.Errorf("-reads: %v", err)
		}
	}
	drive, desc, err := pickDriver(*bo.driver, *bo.wrkThreads, conns)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "driver: %s; %d round(s) of %s per server; load average %s\n", desc, rounds, duration, loadAverage())
	if pick != nil {
		if err := benchReads(ctx, out, drive, pick, records, duration, rounds); err != nil {
			return err
		}
	}
	if len(counts) > 0 {
		if err := benchWrites(ctx, out, drive, counts, duration, rounds); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "load average at the end: %s\n", loadAverage())
	return nil
}

// pickDriver chooses what drives the load.
func pickDriver(name string, threads, conns int) (loadgen.Driver, string, error) {
	wrk, lookErr := exec.LookPath("wrk")
	switch {
	case name == "go" || (name == "auto" && lookErr != nil):
		return loadgen.GoDriver(conns), fmt.Sprintf("this process's net/http client, %d connections", conns), nil
	case name == "wrk" || name == "auto":
		if lookErr != nil {
			return nil, "", fmt.Errorf("-driver wrk: %v", lookErr)
		}
		if threads < 1 || threads > 64 {
			return nil, "", errors.New("-wrk-threads must be in [1, 64]")
		}
		return loadgen.WrkDriver(wrk, threads, conns), fmt.Sprintf("wrk, %d thread(s), %d connections", threads, conns), nil
	}
	return nil, "", fmt.Errorf("-driver must be auto, go or wrk, not %q", name)
}

// benchReads measures the chosen read routes, each next to its bare
// handler.
func benchReads(ctx context.Context, out io.Writer, drive loadgen.Driver, pick *regexp.Regexp, records int, duration time.Duration, rounds int) error {
	start := time.Now()
	srv, rf, err := loadgen.SetupReads(records)
	if err != nil {
		return err
	}
	defer srv.Close()
	mockURL, stopMock, err := loadgen.Serve(srv)
	if err != nil {
		return err
	}
	defer stopMock()
	fmt.Fprintf(out, "\nreads: %d leads, %d calls and a page or more of every other resource, seeded in %s\n",
		records, records, time.Since(start).Round(time.Millisecond))
	fmt.Fprintf(out, readRow, "route", "bytes", "mock req/s", "p50", "p99", "bare req/s", "p50", "p99", "mock/bare", "range", "target", "errors")
	warm := max(200*time.Millisecond, duration/5)
	for _, sc := range loadgen.ReadScenarios(rf) {
		if !pick.MatchString(sc.Name) {
			continue
		}
		sample, status, err := loadgen.Sample(mockURL, rf.APIKey, sc)
		if err != nil {
			return err
		}
		bareURL, stopBare, err := loadgen.Serve(loadgen.Bare(sample, status))
		if err != nil {
			return err
		}
		mock, bare, lo, hi, err := alternate(ctx, drive, mockURL, bareURL, rf.APIKey, sc, warm, duration, rounds)
		stopBare()
		if err != nil {
			return err
		}
		ratio := mock.RPS() / bare.RPS()
		target := "-"
		if t, ok := readTargets[sc.Name]; ok {
			target = fmt.Sprintf("%.2f %s", t, metOrNot(ratio >= t))
		}
		fmt.Fprintf(out, readRow, sc.Name, strconv.Itoa(len(sample)), fmt.Sprintf("%.0f", mock.RPS()), round(mock.P50), round(mock.P99),
			fmt.Sprintf("%.0f", bare.RPS()), round(bare.P50), round(bare.P99), fmt.Sprintf("%.2f", ratio),
			fmt.Sprintf("%.2f-%.2f", lo, hi), target, strconv.FormatInt(mock.Errors+bare.Errors, 10))
	}
	return nil
}

// readRow and writeRow are the rows of the two tables (printed as each
// measure ends).
const (
	readRow  = "%-38s %7s %10s %8s %8s %10s %8s %8s %9s %9s %12s %6s\n"
	writeRow = "%12s %10s %17s %8s %8s %8s %-24s %10s %6s %s\n"
)

// alternate drives the mock and the bare handler in turn, rounds times,
// after a warm-up of each for warm (none when 0), and returns both sums
// and the range of the rounds' ratios.
func alternate(ctx context.Context, drive loadgen.Driver, mockURL, bareURL, key string, sc loadgen.Scenario, warm, d time.Duration, rounds int) (mock, bare loadgen.Measure, lo, hi float64, err error) {
	// A drive that had no response in time counts as 0 requests a second.
	for _, u := range []string{mockURL, bareURL} {
		if warm == 0 {
			break
		}
		if _, err := drive(ctx, u, key, sc, warm); err != nil && !errors.Is(err, loadgen.ErrNoRequests) {
			return mock, bare, 0, 0, fmt.Errorf("%s: warm-up: %w", sc.Name, err)
		}
	}
	for r := range rounds {
		m, err := drive(ctx, mockURL, key, sc, d)
		if err != nil && !errors.Is(err, loadgen.ErrNoRequests) {
			return mock, bare, 0, 0, fmt.Errorf("%s: mock: %w", sc.Name, err)
		}
		b, err := drive(ctx, bareURL, key, sc, d)
		if err != nil && !errors.Is(err, loadgen.ErrNoRequests) {
			return mock, bare, 0, 0, fmt.Errorf("%s: bare: %w", sc.Name, err)
		}
		ratio := m.RPS() / b.RPS()
		if r == 0 || ratio < lo {
			lo = ratio
		}
		if r == 0 || ratio > hi {
			hi = ratio
		}
		mock, bare = mock.Add(m), bare.Add(b)
	}
	return mock, bare, lo, hi, nil
}

// benchWrites measures POST /v1/calls with each number of stored calls,
// one server at a time.
func benchWrites(ctx context.Context, out io.Writer, drive loadgen.Driver, counts []int, duration time.Duration, rounds int) error {
	fmt.Fprintf(out, "\nwrites: POST /v1/calls (a new number and Idempotency-Key each), calls seeded straight into the store\n")
	fmt.Fprintf(out, writeRow, "stored calls", "seeded in", "heap after seeding", "req/s", "p50", "p99", "rounds' req/s", "heap after", "errors", "vs first")
	var first float64
	for i, n := range counts {
		m, rps, seeded, heapSeeded, heapAfter, err := benchWrite(ctx, drive, n, duration, rounds)
		if err != nil {
			return err
		}
		vs := "-"
		if i == 0 {
			first = m.RPS()
		} else {
			r := m.RPS() / first
			vs = fmt.Sprintf("%.2f", r)
			if n >= 100*counts[0] {
				vs += fmt.Sprintf(" (target %.2f %s)", writeTarget, metOrNot(r >= writeTarget))
			}
		}
		fmt.Fprintf(out, writeRow, strconv.Itoa(n), seeded.Round(time.Millisecond), mib(heapSeeded),
			fmt.Sprintf("%.0f", m.RPS()), round(m.P50), round(m.P99), rps, mib(heapAfter), strconv.FormatInt(m.Errors, 10), vs)
	}
	return nil
}

// benchWrite is one server of benchWrites: n calls seeded, then rounds
// drives of POST /v1/calls. It returns the drives' sum, each round's
// throughput, the seeding time and the heap after seeding and at the end.
func benchWrite(ctx context.Context, drive loadgen.Driver, n int, duration time.Duration, rounds int) (loadgen.Measure, string, time.Duration, uint64, uint64, error) {
	var m loadgen.Measure
	srv, fx, err := loadgen.Setup(0)
	if err != nil {
		return m, "", 0, 0, 0, err
	}
	defer func() {
		srv.Close()
		runtime.GC()
		debug.FreeOSMemory()
	}()
	start := time.Now()
	if err := loadgen.SeedCalls(srv, fx.BusinessID, n, 1_000_000); err != nil {
		return m, "", 0, 0, 0, err
	}
	seeded := time.Since(start)
	heapSeeded := loadgen.LiveHeap()
	url, stop, err := loadgen.Serve(srv)
	if err != nil {
		return m, "", 0, 0, 0, err
	}
	defer stop()
	var each []string
	for r := range rounds {
		sc := loadgen.CreateCallScenario(fx, fmt.Sprintf("%d-%d-%d", n, r, time.Now().UnixNano()))
		d, err := drive(ctx, url, fx.APIKey, sc, duration)
		if err != nil {
			return m, "", 0, 0, 0, fmt.Errorf("POST /v1/calls with %d stored calls: %w", n, err)
		}
		m = m.Add(d)
		each = append(each, fmt.Sprintf("%.0f", d.RPS()))
	}
	return m, strings.Join(each, " "), seeded, heapSeeded, loadgen.LiveHeap(), nil
}

func mib(n uint64) string { return fmt.Sprintf("%.0f MiB", mb(int64(n))) }

func metOrNot(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// loadAverage is the machine's load (as uptime prints it), or "?".
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}
