package mockserver_test

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/voiceagent/voiceagent-go/internal/harness/loadgen"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// throughputFixture is a load-test server (rate limits off; auth, scopes,
// rate-limit bookkeeping, usage log, journal and idempotency on) with a
// tenant of 10,000 leads, and the throughput scenarios against it.
func throughputFixture(b *testing.B) (*mockserver.Server, *loadgen.Fixtures, []loadgen.Scenario) {
	b.Helper()
	srv, fx, err := loadgen.Setup(10_000)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(srv.Close)
	return srv, fx, loadgen.Scenarios(fx)
}

// BenchmarkLoopback is the throughput target as a benchmark: the mock
// served on a loopback port, driven with keep-alive connections, next to a
// bare net/http handler that writes the same bytes. ns/op is the inverse
// of throughput (RunParallel, 4 requests in flight per core); cpu-ns/op is
// the CPU the process (client and server together) spent per request,
// which stays meaningful when the machine's cores are shared. The target
// is in docs/mockserver.md, section Performance and load.
// cmd/voiceagent-load measures the same with latencies.
func BenchmarkLoopback(b *testing.B) {
	srv, fx, scenarios := throughputFixture(b)
	mockURL, stop, err := loadgen.Serve(srv)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(stop)
	for _, sc := range scenarios {
		sample, status, err := loadgen.Sample(mockURL, fx.APIKey, sc)
		if err != nil {
			b.Fatal(err)
		}
		bareURL, stopBare, err := loadgen.Serve(loadgen.Bare(sample, status))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(stopBare)
		for _, target := range []struct{ name, url string }{{"mock", mockURL}, {"bare", bareURL}} {
			b.Run(sc.Name+"/"+target.name, func(b *testing.B) {
				hc := loadgen.NewClient(64)
				defer hc.CloseIdleConnections()
				var seq, failed atomic.Int64
				b.SetParallelism(4)
				b.ReportAllocs()
				cpu := loadgen.CPUTime()
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						req, err := loadgen.Request(target.url, fx.APIKey, sc, seq.Add(1))
						if err != nil {
							failed.Add(1)
							continue
						}
						if _, st, err := loadgen.Do(hc, req); err != nil || st >= 300 {
							failed.Add(1)
						}
					}
				})
				b.StopTimer()
				b.ReportMetric(float64(loadgen.CPUTime()-cpu)/float64(b.N), "cpu-ns/op")
				if n := failed.Load(); n > 0 {
					b.Fatalf("%d of %d requests failed", n, b.N)
				}
			})
		}
	}
}

// BenchmarkPipeline sends the same scenarios through the whole pipeline
// in-process (no sockets: routing, auth, scopes, rate-limit bookkeeping,
// idempotency, handler, JSON, usage log and journal), next to the bare
// handler. It isolates the mock's own cost; it is what -cpuprofile is run
// on (see docs/mockserver.md, section Performance and load).
func BenchmarkPipeline(b *testing.B) {
	srv, fx, scenarios := throughputFixture(b)
	for _, sc := range scenarios {
		send := func(h http.Handler, i int64) *httptest.ResponseRecorder {
			var body io.Reader
			if sc.Body != nil {
				body = bytes.NewReader(sc.Body(i))
			}
			req := httptest.NewRequest(sc.Method, sc.Path(i), body)
			req.Header.Set("Authorization", "Bearer "+fx.APIKey)
			if sc.Method == http.MethodPost {
				req.Header.Set("Idempotency-Key", "bench-"+strconv.FormatInt(i, 10))
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			return w
		}
		sample := send(srv, 0)
		if sample.Code >= 300 {
			b.Fatal(sc.Name, sample.Code, sample.Body.String())
		}
		bare := loadgen.Bare(sample.Body.Bytes(), sample.Code)
		seq := int64(1) // the next request's index: keys and bodies never repeat
		for _, target := range []struct {
			name string
			h    http.Handler
		}{{"mock", srv}, {"bare", bare}} {
			b.Run(sc.Name+"/"+target.name, func(b *testing.B) {
				b.ReportAllocs()
				cpu := loadgen.CPUTime()
				b.ResetTimer()
				for i := range int64(b.N) {
					if w := send(target.h, seq+i); w.Code != sample.Code {
						b.Fatal(w.Code, w.Body.String())
					}
				}
				b.StopTimer()
				seq += int64(b.N)
				b.ReportMetric(float64(loadgen.CPUTime()-cpu)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}
