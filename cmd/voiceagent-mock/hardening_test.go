package main

import (
	"context"
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

// adminGet sends GET path to the admin API with an optional bearer token.
func adminGet(t *testing.T, url, token string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// TestAdminTokenFlagGuardsTheAdminAPI: with -admin-token the admin API
// answers 401 without the token and 200 with it; the binary prints how to
// send it.
func TestAdminTokenFlagGuardsTheAdminAPI(t *testing.T) {
	_, addr, out, stop := startRun(t, "-seed", "none", "-admin-token", "local-secret")
	defer stop()
	assert.Contains(t, out.String(), "admin token: local-secret\n")
	assert.NotContains(t, out.String(), "warning:", "on loopback with a token of its own: no warning")
	assert.Equal(t, http.StatusUnauthorized, adminGet(t, "http://"+addr+"/_mock/clock", ""))
	assert.Equal(t, http.StatusOK, adminGet(t, "http://"+addr+"/_mock/clock", "local-secret"))
}

// TestLoopbackNeedsNoAdminToken: on loopback without the flag, no token is
// generated or printed, and loopback clients reach the admin API.
func TestLoopbackNeedsNoAdminToken(t *testing.T) {
	_, addr, out, stop := startRun(t, "-seed", "none")
	defer stop()
	assert.NotContains(t, out.String(), "admin token")
	assert.Equal(t, http.StatusOK, adminGet(t, "http://"+addr+"/_mock/clock", ""))
}

// TestBeyondLoopbackTheBinaryWarnsAndGeneratesAnAdminToken: listening on
// every interface, the binary warns, prints a generated token, and the
// admin API requires it (from loopback too).
func TestBeyondLoopbackTheBinaryWarnsAndGeneratesAnAdminToken(t *testing.T) {
	_, addr, out, stop := startRun(t, "-seed", "none", "-addr", "0.0.0.0:0")
	defer stop()
	assert.Contains(t, out.String(), "warning: listening beyond loopback")
	m := regexp.MustCompile(`(?m)^admin token: ([A-Za-z0-9_-]{32})$`).FindStringSubmatch(out.String())
	require.Len(t, m, 2, out.String())
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	base := "http://127.0.0.1:" + port
	assert.Equal(t, http.StatusUnauthorized, adminGet(t, base+"/_mock/clock", ""))
	assert.Equal(t, http.StatusOK, adminGet(t, base+"/_mock/clock", m[1]))

	for _, tc := range []struct {
		addr      net.Addr
		generated bool
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1)}, false},
		{&net.TCPAddr{IP: net.IPv6loopback}, false},
		{&net.TCPAddr{IP: net.IPv4zero}, true},
		{&net.TCPAddr{IP: net.IPv6unspecified}, true},
		{&net.TCPAddr{IP: net.IPv4(192, 168, 1, 20)}, true},
	} {
		token, generated, err := adminTokenFor(tc.addr, "")
		require.NoError(t, err)
		assert.Equal(t, tc.generated, generated, tc.addr)
		assert.Equal(t, tc.generated, token != "", tc.addr)
	}
}

// TestShutdownAnswersOpenLongPollsAndExitsZero: SIGTERM (the context's end)
// with a ?wait= long poll open answers the poll at once and run returns
// nil (exit status 0), long before the poll's 60 s.
func TestShutdownAnswersOpenLongPollsAndExitsZero(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	out := &syncBuffer{}
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-seed", "none"}, out, ready) }()
	addr := <-ready

	type answer struct {
		status int
		body   string
		err    error
	}
	got := make(chan answer, 1)
	go func() {
		resp, err := http.Get("http://" + addr + "/_mock/requests?wait=60s")
		if err != nil {
			got <- answer{err: err}
			return
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		got <- answer{resp.StatusCode, string(b), err}
	}()
	// Let the poll reach the server (it is answered only by the shutdown).
	time.Sleep(300 * time.Millisecond)
	select {
	case a := <-got:
		t.Fatalf("the poll answered before the shutdown: %+v", a)
	default:
	}
	cancel()
	select {
	case err := <-done:
		require.NoError(t, err, "run returns nil: the binary exits 0")
	case <-time.After(20 * time.Second):
		t.Fatal("shutdown waited for the long poll")
	}
	a := <-got
	require.NoError(t, a.err)
	assert.Equal(t, http.StatusOK, a.status, a.body)
	assert.True(t, strings.HasPrefix(a.body, "{"), a.body)
}
