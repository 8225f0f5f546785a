package main

import (
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
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
