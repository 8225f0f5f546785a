package loadgen

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Measure is what one drive of a scenario measured, whichever tool drove
// it.
type Measure struct {
	Requests int64
	Errors   int64
	Elapsed  time.Duration
	// P50 and P99 are latency quantiles.
	P50, P99 time.Duration
}

// RPS is the requests answered per second.
func (m Measure) RPS() float64 {
	if m.Elapsed <= 0 {
		return 0
	}
	return float64(m.Requests) / m.Elapsed.Seconds()
}

// MeasureOf is the Measure of a Result (Drive's).
func MeasureOf(r Result) Measure {
	return Measure{Requests: r.Requests, Errors: r.Errors, Elapsed: r.Elapsed, P50: r.Quantile(0.5), P99: r.Quantile(0.99)}
}

// Add adds a drive of the same scenario: requests, errors and time add up;
// the quantiles are the request-weighted means of the drives' quantiles.
func (m Measure) Add(o Measure) Measure {
	n := m.Requests + o.Requests
	out := Measure{Requests: n, Errors: m.Errors + o.Errors, Elapsed: m.Elapsed + o.Elapsed}
	if n > 0 {
		w := func(a, b time.Duration) time.Duration {
			return time.Duration((float64(a)*float64(m.Requests) + float64(b)*float64(o.Requests)) / float64(n))
		}
		out.P50, out.P99 = w(m.P50, o.P50), w(m.P99, o.P99)
	}
	return out
}

// Driver sends a scenario's requests to base for d and measures them.
type Driver func(ctx context.Context, base, key string, sc Scenario, d time.Duration) (Measure, error)

// GoDriver drives with this process's net/http client (Drive), from
// concurrency keep-alive connections.
func GoDriver(concurrency int) Driver {
	return func(ctx context.Context, base, key string, sc Scenario, d time.Duration) (Measure, error) {
		r, err := Drive(ctx, base, key, sc, d, concurrency)
		return MeasureOf(r), err
	}
}

// WrkDriver drives with wrk (https://github.com/wg/wrk), the tool at path,
// with threads threads and connections keep-alive connections. A scenario
// whose requests vary (a body, a path per request) needs its Lua request
// function; others send the same request each time.
func WrkDriver(path string, threads, connections int) Driver {
	return func(ctx context.Context, base, key string, sc Scenario, d time.Duration) (Measure, error) {
		secs := max(1, int(d.Round(time.Second)/time.Second))
		args := []string{"-t", strconv.Itoa(threads), "-c", strconv.Itoa(connections), "-d", strconv.Itoa(secs) + "s", "--latency"}
		switch {
		case sc.Session != "":
			args = append(args, "-H", "Cookie: voiceagent_session="+sc.Session)
		case sc.Key != "":
			args = append(args, "-H", "Authorization: Bearer "+sc.Key)
		default:
			args = append(args, "-H", "Authorization: Bearer "+key)
		}
		target := base + sc.Path(0)
		if sc.Lua != "" {
			f, err := os.CreateTemp("", "voiceagent-load-*.lua")
			if err != nil {
				return Measure{}, err
			}
			defer os.Remove(f.Name())
			if _, err := f.WriteString(sc.Lua); err != nil {
				f.Close()
				return Measure{}, err
			}
			if err := f.Close(); err != nil {
				return Measure{}, err
			}
			args = append(args, "-s", f.Name())
		} else if sc.Method != "GET" || sc.Body != nil {
			return Measure{}, fmt.Errorf("%s: wrk needs the scenario's Lua request function", sc.Name)
		}
		args = append(args, target)
		out, err := exec.CommandContext(ctx, path, args...).CombinedOutput()
		if err != nil {
			return Measure{}, fmt.Errorf("wrk: %v: %s", err, out)
		}
		m, err := ParseWrk(out)
		if err == nil && m.Requests == 0 {
			err = ErrNoRequests
		}
		return m, err
	}
}

var (
	wrkTotal   = regexp.MustCompile(`(\d+) requests in ([0-9.]+)(us|ms|s|m)`)
	wrkNon2xx  = regexp.MustCompile(`Non-2xx or 3xx responses: (\d+)`)
	wrkSocket  = regexp.MustCompile(`Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)`)
	wrkPercent = regexp.MustCompile(`^\s*(50|99)(?:\.000)?%\s+([0-9.]+)(us|ms|s|m)\s*$`)
)

// ParseWrk reads wrk's report (run with --latency): the requests and the
// time, non-2xx answers and socket errors as errors (the requests answered
// with a non-2xx status are not counted as answered), and the 50th and
// 99th latency percentiles.
func ParseWrk(out []byte) (Measure, error) {
	var m Measure
	tm := wrkTotal.FindSubmatch(out)
	if tm == nil {
		return m, fmt.Errorf("wrk: no request count in its report: %s", out)
	}
	m.Requests, _ = strconv.ParseInt(string(tm[1]), 10, 64)
	m.Elapsed = wrkDuration(string(tm[2]), string(tm[3]))
	if e := wrkNon2xx.FindSubmatch(out); e != nil {
		n, _ := strconv.ParseInt(string(e[1]), 10, 64)
		m.Errors += n
		m.Requests -= n
	}
	if e := wrkSocket.FindSubmatch(out); e != nil {
		for _, g := range e[1:] {
			n, _ := strconv.ParseInt(string(g), 10, 64)
			m.Errors += n
		}
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if p := wrkPercent.FindStringSubmatch(sc.Text()); p != nil {
			d := wrkDuration(p[2], p[3])
			if p[1] == "50" {
				m.P50 = d
			} else {
				m.P99 = d
			}
		}
	}
	return m, nil
}

// wrkDuration reads one of wrk's durations ("1.20ms").
func wrkDuration(v, unit string) time.Duration {
	f, _ := strconv.ParseFloat(v, 64)
	scale := map[string]time.Duration{"us": time.Microsecond, "ms": time.Millisecond, "s": time.Second, "m": time.Minute}[unit]
	return time.Duration(f * float64(scale))
}

// LuaString quotes s as a Lua string literal.
func LuaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, c := range []byte(s) {
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "\\%03d", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}
