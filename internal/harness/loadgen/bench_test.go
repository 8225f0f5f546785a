package loadgen

import (
	"context"
	"net/http"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadScenariosCoverEveryReadRoute: every GET route under /api is read
// by a scenario or left out with a reason, and every scenario's read
// answers 2xx with a page that is not empty where the route lists.
func TestReadScenariosCoverEveryReadRoute(t *testing.T) {
	srv, rf, err := SetupReads(120)
	require.NoError(t, err)
	defer srv.Close()
	url, stop, err := Serve(srv)
	require.NoError(t, err)
	defer stop()
	scenarios := ReadScenarios(rf)
	var routes []string
	for _, sc := range scenarios {
		routes = append(routes, sc.Route)
		body, status, err := Sample(url, rf.APIKey, sc)
		if assert.NoError(t, err, sc.Name) {
			assert.Equal(t, http.StatusOK, status, sc.Name)
			assert.NotContains(t, string(body), `:[],"has_more"`, "%s answers an empty page", sc.Name)
		}
	}
	for _, r := range srv.Routes() {
		if r.Method != http.MethodGet || !strings.HasPrefix(r.Path, "/api/") {
			continue
		}
		_, excluded := ReadExclusions[r.Path]
		assert.True(t, slices.Contains(routes, r.Path) || excluded, "GET %s has no read scenario: add it to ReadScenarios", r.Path)
		assert.False(t, slices.Contains(routes, r.Path) && excluded, "GET %s is read and excluded", r.Path)
	}
}

func TestSeedCallsStoresFinishedCalls(t *testing.T) {
	srv, fx, err := Setup(1)
	require.NoError(t, err)
	defer srv.Close()
	require.NoError(t, SeedCalls(srv, fx.BusinessID, 25_001, 7))
	sc := Scenario{Name: "calls", Method: http.MethodGet, Path: func(int64) string { return "/api/v1/calls?limit=100&status=completed" }}
	url, stop, err := Serve(srv)
	require.NoError(t, err)
	defer stop()
	body, _, err := Sample(url, fx.APIKey, sc)
	require.NoError(t, err)
	assert.Equal(t, 100, strings.Count(string(body), `"status":"completed"`))
	assert.Contains(t, string(body), "Caller 25007", "the newest is the last seeded")
}

func TestParseWrk(t *testing.T) {
	out := `Running 3s test @ http://127.0.0.1:8080/api/v1/agents
  1 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   421.30us  120.11us   5.21ms   90.12%
    Req/Sec    75.12k     2.01k   79.01k    70.00%
  Latency Distribution
     50%  400.00us
     75%  450.00us
     90%  520.00us
     99%    1.20ms
  224210 requests in 3.00s, 95.32MB read
  Socket errors: connect 0, read 2, write 0, timeout 1
  Non-2xx or 3xx responses: 10
Requests/sec:  74736.54
Transfer/sec:     31.77MB
`
	m, err := ParseWrk([]byte(out))
	require.NoError(t, err)
	assert.Equal(t, int64(224200), m.Requests)
	assert.Equal(t, int64(13), m.Errors)
	assert.Equal(t, 3*time.Second, m.Elapsed)
	assert.Equal(t, 400*time.Microsecond, m.P50)
	assert.Equal(t, 1200*time.Microsecond, m.P99)
	_, err = ParseWrk([]byte("wrk: connection refused"))
	assert.Error(t, err)
}

func TestMeasureAddWeighsTheQuantilesByRequests(t *testing.T) {
	a := Measure{Requests: 300, Elapsed: time.Second, P50: time.Millisecond, P99: 4 * time.Millisecond}
	b := Measure{Requests: 100, Errors: 2, Elapsed: time.Second, P50: 5 * time.Millisecond, P99: 8 * time.Millisecond}
	s := a.Add(b)
	assert.Equal(t, int64(400), s.Requests)
	assert.Equal(t, int64(2), s.Errors)
	assert.InDelta(t, 200, s.RPS(), 1e-9)
	assert.Equal(t, 2*time.Millisecond, s.P50)
	assert.Equal(t, 5*time.Millisecond, s.P99)
	assert.Equal(t, a, Measure{}.Add(a))
}

func TestDriversMeasureTheSameAnswers(t *testing.T) {
	srv, fx, err := Setup(1)
	require.NoError(t, err)
	defer srv.Close()
	url, stop, err := Serve(srv)
	require.NoError(t, err)
	defer stop()
	drivers := []Driver{GoDriver(2)}
	if path, err := exec.LookPath("wrk"); err == nil {
		drivers = append(drivers, WrkDriver(path, 1, 2))
	}
	for _, sc := range []Scenario{Scenarios(fx)[0], CreateCallScenario(fx, "test")} {
		for _, drive := range drivers {
			m, err := drive(context.Background(), url, fx.APIKey, sc, time.Second)
			require.NoError(t, err, sc.Name)
			assert.Positive(t, m.Requests, sc.Name)
			assert.Zero(t, m.Errors, sc.Name)
			assert.Positive(t, m.P99, sc.Name)
		}
	}
}
