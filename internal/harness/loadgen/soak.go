package loadgen

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Reading is one reading of a soak: the process's memory and the requests
// answered so far.
type Reading struct {
	// Elapsed is the time since the drive started.
	Elapsed time.Duration
	// Requests and Errors are counted since the drive started.
	Requests, Errors int64
	// RPS is the throughput since the previous reading, over Span.
	RPS  float64
	Span time.Duration
	// RSS is the process's resident set size in bytes (0 where the
	// system does not say: only Linux's /proc is read).
	RSS int64
	// HeapInUse is the Go heap's in-use bytes (runtime.MemStats).
	HeapInUse uint64
}

// RSS returns the resident set size of the process in bytes, from
// /proc/self/status (0 when it cannot be read).
func RSS() int64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				return 0
			}
			return kb << 10
		}
	}
	return 0
}

// LiveHeap runs a garbage collection and returns the bytes of live heap
// objects: what the process keeps, without its garbage.
func LiveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// Soak sends the scenario's requests from concurrency workers on
// keep-alive connections until ctx ends or limit requests were sent (0: no
// limit), and calls sample every interval (and once at the end) with a
// reading. Unlike Drive it keeps no latencies, so that its own memory
// stays flat however long it runs. A non-2xx answer or a transport error
// counts as an error.
func Soak(ctx context.Context, base, key string, sc Scenario, concurrency int, limit int64, interval time.Duration, sample func(Reading)) Reading {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	hc := NewClient(concurrency)
	defer hc.CloseIdleConnections()
	var seq, done, errs atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil {
				i := seq.Add(1)
				if limit > 0 && i > limit {
					cancel()
					return
				}
				req, err := Request(base, key, sc, i)
				if err != nil {
					errs.Add(1)
					continue
				}
				if _, status, err := Do(hc, req); err != nil || status >= 300 {
					if ctx.Err() == nil {
						errs.Add(1)
					}
					continue
				}
				done.Add(1)
			}
		}()
	}
	var last Reading
	read := func() Reading {
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		s := Reading{Elapsed: time.Since(start), Requests: done.Load(), Errors: errs.Load(), RSS: RSS(), HeapInUse: m.HeapInuse}
		s.Span = s.Elapsed - last.Elapsed
		if s.Span > 0 {
			s.RPS = float64(s.Requests-last.Requests) / s.Span.Seconds()
		}
		last = s
		return s
	}
	stopped := make(chan struct{})
	go func() { wg.Wait(); close(stopped) }()
	tick := time.NewTicker(interval)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			sample(read())
		case <-stopped:
			s := read()
			sample(s)
			return s
		}
	}
}

// Flood sends n unauthenticated GET requests of an unknown path under
// /api with a query of queryBytes bytes, the attack that once took the
// server to gigabytes, from concurrency workers; it returns how many were
// answered (any status) and how many failed in transport.
func Flood(ctx context.Context, base string, n, queryBytes, concurrency int) (answered, failed int64) {
	url := base + "/api/nope?x=" + strings.Repeat("a", queryBytes)
	hc := NewClient(concurrency)
	defer hc.CloseIdleConnections()
	var seq, ok, bad atomic.Int64
	var wg sync.WaitGroup
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for ctx.Err() == nil && seq.Add(1) <= int64(n) {
				req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
				if err != nil {
					bad.Add(1)
					continue
				}
				if _, _, err := Do(hc, req); err != nil {
					bad.Add(1)
					continue
				}
				ok.Add(1)
			}
		}()
	}
	wg.Wait()
	return ok.Load(), bad.Load()
}
