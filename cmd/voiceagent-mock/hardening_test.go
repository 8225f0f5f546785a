package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// adminGet sends GET url to the admin API with an optional bearer token and
// returns the status.
func adminGet(t *testing.T, url, token string) int {
	t.Helper()
	var header []string
	if token != "" {
		header = []string{"Authorization", "Bearer " + token}
	}
	status, _ := httpJSON(t, http.MethodGet, url, "", header...)
	return status
}

// TestAdminTokenFlagGuardsTheAdminAPI: with -admin-token (or its
// variable) the admin API responds 401 without the token and 200 with it;
// the binary prints how to send it.
func TestAdminTokenFlagGuardsTheAdminAPI(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"-seed", "none", "-admin-token", "local-secret"}},
		{[]string{envName("admin-token") + "=local-secret"}, []string{"-seed", "none"}},
	} {
		s := startRun(t, tc.env, tc.args...)
		assert.Contains(t, s.out.String(), "admin token: local-secret\n")
		assert.NotContains(t, s.out.String(), "warning:", "on loopback with a token of its own: no warning")
		assert.Equal(t, http.StatusUnauthorized, adminGet(t, s.admin+"/clock", ""))
		assert.Equal(t, http.StatusOK, adminGet(t, s.admin+"/clock", "local-secret"))
		assert.Equal(t, 0, s.stop())
	}
}

// TestLoopbackNeedsNoAdminToken: on loopback without the flag, no token is
// generated or printed, and loopback clients reach the admin API.
func TestLoopbackNeedsNoAdminToken(t *testing.T) {
	s := startRun(t, nil, "-seed", "none")
	assert.NotContains(t, s.out.String(), "admin token")
	assert.Equal(t, http.StatusOK, adminGet(t, s.admin+"/clock", ""))
}

// TestBeyondLoopbackTheBinaryWarnsAndGeneratesAnAdminToken: listening on
// every interface, the binary warns, prints a generated token, and the
// admin API requires it (from loopback too).
func TestBeyondLoopbackTheBinaryWarnsAndGeneratesAnAdminToken(t *testing.T) {
	s := startRun(t, nil, "-seed", "none", "-addr", "0.0.0.0:0")
	assert.Contains(t, s.out.String(), "warning: listening beyond loopback")
	m := regexp.MustCompile(`(?m)^admin token: ([A-Za-z0-9_-]{32})$`).FindStringSubmatch(s.out.String())
	require.Len(t, m, 2, s.out.String())
	_, port, err := net.SplitHostPort(s.addr)
	require.NoError(t, err)
	admin := "http://127.0.0.1:" + port + "/_mock"
	assert.Equal(t, http.StatusUnauthorized, adminGet(t, admin+"/clock", ""))
	assert.Equal(t, http.StatusOK, adminGet(t, admin+"/clock", m[1]))

	for addr, beyond := range map[string]bool{
		"127.0.0.1:8080": false, "[::1]:8080": false, "localhost:8080": false, "mock.localhost:0": false,
		":8080": true, "0.0.0.0:8080": true, "[::]:8080": true, "192.168.1.20:8080": true, "mock.example:8080": true,
	} {
		assert.Equal(t, beyond, beyondLoopback(addr), addr)
	}
}

// adminGetAs sends GET url to the admin API with the Host header host and
// no token, and returns the status.
func adminGetAs(t *testing.T, url, host string) int {
	t.Helper()
	status, _ := httpJSON(t, http.MethodGet, url, "", "Host", host)
	return status
}

// TestAdminHostsAnswerTheirNamesWithoutAToken: with -admin-hosts (or its
// variable) the admin API of a server on loopback serves those Host
// names (a local proxy's), with any port or the one given, as well as
// loopback names, and refuses others; no token is printed or needed.
func TestAdminHostsAnswerTheirNamesWithoutAToken(t *testing.T) {
	for _, tc := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"-seed", "none", "-admin-hosts", "mock, mock.test:8080"}},
		{[]string{envName("admin-hosts") + "=mock,mock.test:8080"}, []string{"-seed", "none"}},
	} {
		s := startRun(t, tc.env, tc.args...)
		assert.Contains(t, s.out.String(), "admin hosts: mock, mock.test:8080 (and loopback names), without a token\n")
		assert.NotContains(t, s.out.String(), "admin token")
		assert.NotContains(t, s.out.String(), "warning:", "on loopback: no warning")
		for host, want := range map[string]int{
			"mock": http.StatusOK, "MOCK:12111": http.StatusOK, "mock.test:8080": http.StatusOK, "127.0.0.1": http.StatusOK,
			"mock.test:9090": http.StatusForbidden, "mock.test": http.StatusForbidden, "evil.example": http.StatusForbidden,
			"mock.evil.example": http.StatusForbidden,
		} {
			assert.Equal(t, want, adminGetAs(t, s.admin+"/clock", host), "Host: %s", host)
		}
		assert.Equal(t, 0, s.stop())
	}
}

// TestShutdownAnswersOpenLongPollsAndExitsZero: SIGTERM (the context's end)
// with a ?wait= long poll open ends the poll at once and the command
// exits 0, long before the poll's 60 s.
func TestShutdownAnswersOpenLongPollsAndExitsZero(t *testing.T) {
	s := startRun(t, nil, "-seed", "none")
	type answer struct {
		status int
		body   string
		err    error
	}
	got := make(chan answer, 1)
	go func() {
		resp, err := http.Get(s.admin + "/requests?wait=60s")
		if err != nil {
			got <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		got <- answer{resp.StatusCode, string(b), err}
	}()
	// Let the poll reach the server (only the shutdown ends it).
	time.Sleep(300 * time.Millisecond)
	select {
	case a := <-got:
		t.Fatalf("the poll answered before the shutdown: %+v", a)
	default:
	}
	code := make(chan int, 1)
	go func() { code <- s.stop() }()
	select {
	case c := <-code:
		assert.Equal(t, 0, c, "exit status 0: %s", s.log)
	case <-time.After(20 * time.Second):
		t.Fatal("shutdown waited for the long poll")
	}
	a := <-got
	require.NoError(t, a.err)
	assert.Equal(t, http.StatusOK, a.status, a.body)
	assert.True(t, strings.HasPrefix(a.body, "{"), a.body)
}

// runningBinary is the built command serving on a free port.
type runningBinary struct {
	cmd              *exec.Cmd
	admin, base, key string
	stderr           *syncBuffer
}

// startDemoBinary starts the built command with env (and a free port) and
// reads its start-up lines up to the demo key.
func startDemoBinary(t *testing.T, env ...string) *runningBinary {
	t.Helper()
	b := &runningBinary{cmd: binary(t, append([]string{"VOICEAGENT_MOCK_ADDR=127.0.0.1:0"}, env...)), stderr: &syncBuffer{}}
	b.cmd.Stderr = b.stderr
	pipe, err := b.cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, b.cmd.Start())
	t.Cleanup(func() { _ = b.cmd.Process.Kill() })
	lines := bufio.NewScanner(pipe)
	for b.key == "" && lines.Scan() {
		l := lines.Text()
		if a, ok := strings.CutPrefix(l, "admin API: "); ok {
			b.admin = a
		}
		if u, ok := strings.CutPrefix(l, "base URL: "); ok {
			b.base = u
		}
		if k, ok := strings.CutPrefix(l, "export VOICEAGENT_API_KEY="); ok {
			b.key = k
		}
	}
	require.NotEmpty(t, b.key, "the binary printed the demo key")
	go func() { _, _ = io.Copy(io.Discard, pipe) }()
	return b
}

// response is what a client got: a status and a body, or an error.
type response struct {
	status int
	body   string
	err    error
}

// read reads a response from r (nil when the request failed first).
func read(resp *http.Response, err error) response {
	if err != nil {
		return response{err: err}
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return response{resp.StatusCode, string(b), err}
}

// TestSIGTERMAnswersEveryRequestInFlightAndExitsZero: the built binary,
// sent SIGTERM while a request waits out a 25 s latency fault, a client
// uploads a body slowly and a long poll is open, answers all three (the
// latency cut short and the request served, the upload 503, the poll with
// what it has) and exits 0.
func TestSIGTERMAnswersEveryRequestInFlightAndExitsZero(t *testing.T) {
	t.Parallel()
	b := startDemoBinary(t)
	status, _ := httpJSON(t, http.MethodPost, b.admin+"/faults", `{"method":"GET","path":"/v1/agents","latency_ms":25000}`)
	require.Equal(t, http.StatusCreated, status)

	slow := make(chan response, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodGet, b.base+"/v1/agents", nil)
		req.Header.Set("Authorization", "Bearer "+b.key)
		slow <- read(http.DefaultClient.Do(req))
	}()
	require.Eventually(t, func() bool {
		_, out := httpJSON(t, http.MethodGet, b.admin+"/faults", "")
		faults, _ := out["faults"].([]any)
		return len(faults) == 1 && faults[0].(map[string]any)["fired"] == float64(1)
	}, 10*time.Second, 10*time.Millisecond, "the request is waiting out the latency")

	conn, err := net.Dial("tcp", strings.TrimPrefix(strings.TrimSuffix(b.base, "/api"), "http://"))
	require.NoError(t, err)
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST /api/v1/agents HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\n"+
		"Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"name\": ", b.key)
	require.NoError(t, err)
	upload := make(chan response, 1)
	go func() { upload <- read(http.ReadResponse(bufio.NewReader(conn), nil)) }()

	poll := make(chan response, 1)
	go func() { poll <- read(http.Get(b.admin + "/requests?wait=60s")) }()
	time.Sleep(300 * time.Millisecond) // let the upload and the poll reach the server

	require.NoError(t, b.cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 0, exitCode(t, b.cmd.Wait()), "stderr: %s", b.stderr)
	assert.NotContains(t, b.stderr.String(), "shutdown:")

	r := <-slow
	require.NoError(t, r.err)
	assert.Equal(t, http.StatusOK, r.status, "the latency was cut short and the request served: %s", r.body)
	assert.Contains(t, r.body, "Demo Business Intake Agent")
	r = <-upload
	require.NoError(t, r.err)
	assert.Equal(t, http.StatusServiceUnavailable, r.status, r.body)
	assert.Contains(t, r.body, `"code":"service_unavailable"`)
	assert.Contains(t, r.body, "shutting down")
	r = <-poll
	require.NoError(t, r.err)
	assert.Equal(t, http.StatusOK, r.status, r.body)
	assert.Contains(t, r.body, `"requests"`)
}

// TestShutdownPastItsGraceClosesWhatIsLeft: a request still in flight when
// the grace period ends (here, a handler that never returns) has its
// connection closed, and shutdown says so: the command exits 1.
func TestShutdownPastItsGraceClosesWhatIsLeft(t *testing.T) {
	t.Parallel()
	stuck := make(chan struct{})
	defer close(stuck)
	hs := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-stuck
	}), ReadHeaderTimeout: time.Second}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	go func() { _ = hs.Serve(ln) }()
	resp, err := http.Get("http://" + ln.Addr().String())
	require.NoError(t, err)
	defer resp.Body.Close()

	err = shutdown(hs, 100*time.Millisecond)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "requests still in flight after 100ms")
	_, err = io.ReadAll(resp.Body)
	assert.Error(t, err, "the connection was closed")
}
