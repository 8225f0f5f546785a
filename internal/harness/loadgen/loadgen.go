// Package loadgen drives a running mock server over loopback with
// keep-alive connections and measures it next to a bare net/http handler
// that writes the same bytes: the engine of cmd/voiceagent-load and of the
// mock's loopback throughput benchmark.
package loadgen

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver"
)

// Scenario is one kind of request the load drives.
type Scenario struct {
	// Name is the method and path, as the report shows it.
	Name   string
	Method string
	// Path returns the path and query (under the server's root) of the
	// i-th request.
	Path func(i int64) string
	// Body returns the body of the i-th request (nil: none).
	Body func(i int64) []byte
	// Read marks the scenarios the throughput target applies to.
	Read bool
	// Route is the route's path ("" when not given), Key the API key to
	// send instead of the fixtures' one, Session a dashboard session to
	// send instead of a key (the routes that take a session only).
	Route, Key, Session string
	// Lua is a wrk request function sending the scenario's requests, for
	// scenarios whose requests vary ("" for one fixed GET).
	Lua string
}

// Fixtures are the tenant and records the scenarios use.
type Fixtures struct {
	APIKey     string
	BusinessID string
	// Session is the account's dashboard session.
	Session string
	AgentID string
	// LeadIDs are the seeded leads, oldest first.
	LeadIDs []string
}

// Setup starts a mock server as a load test wants it (rate limits off;
// authentication, scopes, rate-limit bookkeeping, usage log, journal and
// idempotency on), provisions one tenant and gives it leads leads (each
// from an inbound text, as real leads arrive). The caller closes the
// server.
func Setup(leads int) (*mockserver.Server, *Fixtures, error) {
	srv := mockserver.New(mockserver.WithRateLimits(false))
	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Load"})
	if err != nil {
		srv.Close()
		return nil, nil, err
	}
	fx := &Fixtures{APIKey: acct.APIKey, BusinessID: acct.BusinessID, AgentID: acct.AgentID, Session: acct.Session}
	for i := range leads {
		in, err := srv.InboundSMS(mockserver.InboundSMS{To: acct.PhoneNumber, From: callerNumber(int64(i)), Body: "Hi, I would like a quote"})
		if err != nil {
			srv.Close()
			return nil, nil, fmt.Errorf("seeding lead %d: %w", i, err)
		}
		fx.LeadIDs = append(fx.LeadIDs, in.LeadID)
	}
	return srv, fx, nil
}

// callerNumber is the i-th of a block of ordinary (never magic) numbers.
func callerNumber(i int64) string { return fmt.Sprintf("+1555%07d", i%10_000_000) }

var leadStatuses = []string{"new", "contacted", "qualified", "converted", "lost"}

// Scenarios are the requests the load drives: the two reads of the
// throughput target, then a call placed and a lead updated.
func Scenarios(fx *Fixtures) []Scenario {
	return []Scenario{
		{Name: "GET /v1/agents", Method: http.MethodGet, Read: true,
			Path: func(int64) string { return "/api/v1/agents" }},
		{Name: "GET /v1/leads?limit=100", Method: http.MethodGet, Read: true,
			Path: func(int64) string { return "/api/v1/leads?limit=100" }},
		{Name: "POST /v1/calls", Method: http.MethodPost,
			Path: func(int64) string { return "/api/v1/calls" },
			Body: func(i int64) []byte {
				return []byte(`{"agent_id":"` + fx.AgentID + `","to":"` + callerNumber(i) + `","name":"Load ` + strconv.FormatInt(i, 10) + `"}`)
			}},
		{Name: "PATCH /v1/leads", Method: http.MethodPatch,
			Path: func(int64) string { return "/api/v1/leads" },
			Body: func(i int64) []byte {
				id := ""
				if len(fx.LeadIDs) > 0 {
					id = fx.LeadIDs[int(i%int64(len(fx.LeadIDs)))]
				}
				return []byte(`{"id":"` + id + `","status":"` + leadStatuses[i%int64(len(leadStatuses))] + `","notes":"note ` + strconv.FormatInt(i, 10) + `"}`)
			}},
	}
}

// Bare is the baseline: a handler that reads the request and writes body
// with status and nothing else.
func Bare(body []byte, status int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = w.Write(body)
	})
}

// Serve serves h on a loopback port and returns its root URL and a stop
// function.
func Serve(h http.Handler) (string, func(), error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	hs := &http.Server{Handler: h, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	return "http://" + ln.Addr().String(), func() { _ = hs.Close() }, nil
}

// NewClient is a keep-alive client with room for concurrency idle
// connections to one host.
func NewClient(concurrency int) *http.Client {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxIdleConns = concurrency
	t.MaxIdleConnsPerHost = concurrency
	return &http.Client{Transport: t, Timeout: 30 * time.Second}
}

// Request builds the i-th request of a scenario against base. POSTs carry
// a fresh Idempotency-Key, as the SDK sends.
func Request(base, key string, sc Scenario, i int64) (*http.Request, error) {
	var body io.Reader
	if sc.Body != nil {
		body = bytes.NewReader(sc.Body(i))
	}
	req, err := http.NewRequest(sc.Method, base+sc.Path(i), body)
	if err != nil {
		return nil, err
	}
	switch {
	case sc.Session != "":
		req.Header.Set("Cookie", "voiceagent_session="+sc.Session)
	case sc.Key != "":
		req.Header.Set("Authorization", "Bearer "+sc.Key)
	default:
		req.Header.Set("Authorization", "Bearer "+key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if sc.Method == http.MethodPost {
		req.Header.Set("Idempotency-Key", "load-"+strconv.FormatInt(i, 10)+"-"+strconv.FormatInt(time.Now().UnixNano(), 36))
	}
	return req, nil
}

// Do sends one request with hc and reads the whole answer.
func Do(hc *http.Client, req *http.Request) ([]byte, int, error) {
	resp, err := hc.Do(req)
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return b, resp.StatusCode, err
}

// Sample sends the scenario's first request and returns the answer, which
// the bare handler then serves; a non-2xx answer is an error.
func Sample(base, key string, sc Scenario) ([]byte, int, error) {
	req, err := Request(base, key, sc, 0)
	if err != nil {
		return nil, 0, err
	}
	body, status, err := Do(http.DefaultClient, req)
	if err != nil {
		return nil, 0, err
	}
	if status >= 300 {
		return nil, 0, fmt.Errorf("%s: the mock answered %d: %s", sc.Name, status, body)
	}
	return body, status, nil
}

// Result is what one drive measured.
type Result struct {
	Requests int64
	Errors   int64
	Elapsed  time.Duration
	// Latencies are every request's latency, sorted.
	Latencies []time.Duration
}

// RPS is the requests answered per second.
func (r Result) RPS() float64 {
	if r.Elapsed <= 0 {
		return 0
	}
	return float64(r.Requests) / r.Elapsed.Seconds()
}

// Quantile returns the q-quantile (0..1) of the latencies.
func (r Result) Quantile(q float64) time.Duration {
	if len(r.Latencies) == 0 {
		return 0
	}
	i := min(int(q*float64(len(r.Latencies))), len(r.Latencies)-1)
	return r.Latencies[i]
}

// CPUTime is the process's CPU time so far (user and system, every thread,
// the garbage collector's included). Per request, it is the figure that
// stays meaningful when the machine's cores are shared and wall time is
// not.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// ErrNoRequests is returned by Drive when no request was answered.
var ErrNoRequests = errors.New("loadgen: no request was answered")

// Drive sends the scenario's requests from concurrency workers, each on its
// own keep-alive connection, for d, and measures them. A non-2xx answer or
// a transport error counts as an error (and not as a request).
func Drive(ctx context.Context, base, key string, sc Scenario, d time.Duration, concurrency int) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	hc := NewClient(concurrency)
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
				req, err := Request(base, key, sc, seq.Add(1))
				if err != nil {
					errs.Add(1)
					continue
				}
				t0 := time.Now()
				_, status, err := Do(hc, req)
				if err != nil || status >= 300 {
					errs.Add(1)
					continue
				}
				lat[w] = append(lat[w], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	r := Result{Errors: errs.Load(), Elapsed: time.Since(start)}
	r.Latencies = slices.Concat(lat...)
	slices.Sort(r.Latencies)
	r.Requests = int64(len(r.Latencies))
	if r.Requests == 0 {
		return r, ErrNoRequests
	}
	return r, nil
}
