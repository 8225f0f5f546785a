// Command voiceagent-load measures the mock server's throughput over
// loopback: it starts the mock (rate limits off; auth, scopes, usage log and
// journal on) and, in the same run, a bare net/http handler that writes the
// same bytes, drives both with keep-alive connections, and prints requests
// per second and p50/p99 latency per scenario.
//
//	go run ./cmd/voiceagent-load -duration 3s -concurrency 8
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver"
)

func main() {
	if err := run(context.Background(), os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "voiceagent-load:", err)
		os.Exit(1)
	}
}

// scenario is one kind of request the load drives.
type scenario struct {
	name   string
	method string
	// path returns the path and query of the i-th request.
	path func(i int64) string
	// body returns the body of the i-th request (nil: none).
	body func(i int64) []byte
}

// result is what a run measured.
type result struct {
	requests int64
	errors   int64
	elapsed  time.Duration
	p50, p99 time.Duration
}

func (r result) rps() float64 { return float64(r.requests) / r.elapsed.Seconds() }

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("voiceagent-load", flag.ContinueOnError)
	fs.SetOutput(out)
	duration := fs.Duration("duration", 3*time.Second, "how long each scenario runs")
	concurrency := fs.Int("concurrency", 8, "concurrent keep-alive connections")
	records := fs.Int("records", 10_000, "records seeded in the store before the run")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *duration <= 0 || *duration > 10*time.Minute || *concurrency < 1 || *concurrency > 1024 {
		return fmt.Errorf("-duration must be in (0, 10m] and -concurrency in [1, 1024]")
	}

	srv := mockserver.New(mockserver.WithRateLimits(false))
	defer srv.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Load"})
	if err != nil {
		return err
	}
	fx, err := seed(srv, acct, *records)
	if err != nil {
		return err
	}
	mockURL, stopMock, err := serve(srv)
	if err != nil {
		return err
	}
	defer stopMock()

	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "scenario\tmock req/s\tp50\tp99\tbare req/s\tp50\tp99\tmock/bare\terrors\t\n")
	for _, sc := range scenarios(fx) {
		// Capture one real answer, then serve the same bytes from a bare handler.
		sample, status, err := once(mockURL, acct.APIKey, sc, 0)
		if err != nil {
			return fmt.Errorf("%s: %w", sc.name, err)
		}
		if status >= 300 {
			return fmt.Errorf("%s: the mock answered %d: %s", sc.name, status, sample)
		}
		bareURL, stopBare, err := serve(bareHandler(sample, status))
		if err != nil {
			return err
		}
		mock := drive(ctx, mockURL, acct.APIKey, sc, *duration, *concurrency)
		bare := drive(ctx, bareURL, acct.APIKey, sc, *duration, *concurrency)
		stopBare()
		fmt.Fprintf(tw, "%s\t%.0f\t%s\t%s\t%.0f\t%s\t%s\t%.0f%%\t%d\t\n", sc.name,
			mock.rps(), round(mock.p50), round(mock.p99), bare.rps(), round(bare.p50), round(bare.p99),
			100*mock.rps()/bare.rps(), mock.errors+bare.errors)
	}
	return tw.Flush()
}

func round(d time.Duration) time.Duration { return d.Round(time.Microsecond) }

// bareHandler writes the same bytes the mock wrote, with no work at all.
func bareHandler(body []byte, status int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	})
}

// serve listens on a loopback port.
func serve(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = hs.Close() }, nil
}

func newClient(concurrency int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = concurrency
	t.MaxIdleConnsPerHost = concurrency
	return &http.Client{Transport: t, Timeout: 30 * time.Second}
}

func request(base, key string, sc scenario, i int64) (*http.Request, error) {
	var body io.Reader
	if sc.body != nil {
		body = bytes.NewReader(sc.body(i))
	}
	req, err := http.NewRequest(sc.method, base+sc.path(i), body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return req, nil
}

func once(base, key string, sc scenario, i int64) ([]byte, int, error) {
	req, err := request(base, key, sc, i)
	if err != nil {
		return nil, 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return b, resp.StatusCode, err
}

// drive sends requests from concurrency workers for d and measures them.
func drive(ctx context.Context, base, key string, sc scenario, d time.Duration, concurrency int) result {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	hc := newClient(concurrency)
	defer hc.CloseIdleConnections()
	var seq, errs atomic.Int64
	lat := make([][]time.Duration, concurrency)
	var wg sync.WaitGroup
	start := time.Now()
	for w := range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := seq.Add(1)
				req, err := request(base, key, sc, i)
				if err != nil {
					errs.Add(1)
					continue
				}
				t0 := time.Now()
				resp, err := hc.Do(req)
				if err != nil {
					errs.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode >= 300 {
					errs.Add(1)
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	all := slices.Concat(lat...)
	slices.Sort(all)
	r := result{requests: int64(len(all)), errors: errs.Load(), elapsed: time.Since(start)}
	if len(all) > 0 {
		r.p50 = all[len(all)/2]
		r.p99 = all[len(all)*99/100]
	}
	return r
}
