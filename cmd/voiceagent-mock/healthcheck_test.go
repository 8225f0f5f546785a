package main

import (
	"bytes"
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// healthcheckRun runs the healthcheck subcommand with env and args and
// returns its exit code and output.
func healthcheckRun(env []string, args ...string) (int, string) {
	var out bytes.Buffer
	code := run(context.Background(), append([]string{"healthcheck"}, args...), envOf(env...), &out, &out, nil)
	return code, out.String()
}

// TestHealthcheckAsksTheConfiguredServer: the subcommand exits 0 when the
// server its flags or variables name responds to GET /_mock/health, with the
// admin token when one is set, and on loopback for an address of every
// interface; 1 when nothing responds or the token is wrong.
func TestHealthcheckAsksTheConfiguredServer(t *testing.T) {
	s := startRun(t, nil, "-seed", "none")
	code, out := healthcheckRun(nil, "-addr", s.addr)
	assert.Equal(t, exitOK, code, out)
	assert.Contains(t, out, `"status":"ok"`)

	tok := startRun(t, []string{envName("addr") + "=0.0.0.0:0", envName("admin-token") + "=secret"}, "-seed", "none")
	_, port, err := net.SplitHostPort(tok.addr)
	require.NoError(t, err)
	every := []string{envName("addr") + "=0.0.0.0:" + port}
	code, out = healthcheckRun(append(every, envName("admin-token")+"=secret"))
	assert.Equal(t, exitOK, code, out)
	code, out = healthcheckRun(every, "-admin-token", "wrong")
	assert.Equal(t, exitFailed, code, out)
	assert.Contains(t, out, "401")

	code, out = healthcheckRun(nil, "-addr", "127.0.0.1:1")
	assert.Equal(t, exitFailed, code, out)
	code, out = healthcheckRun(nil, "-addr", "127.0.0.1:0")
	assert.Equal(t, exitBadArgs, code, out)
}

// TestHealthcheckOfAServerWithAGeneratedToken: a server beyond loopback
// without a configured token generates one the healthcheck cannot know;
// its 401 with the admin API's challenge still counts as serving.
func TestHealthcheckOfAServerWithAGeneratedToken(t *testing.T) {
	s := startRun(t, nil, "-seed", "none", "-addr", "[::]:0")
	_, port, err := net.SplitHostPort(s.addr)
	require.NoError(t, err)
	code, out := healthcheckRun(nil, "-addr", "[::]:"+port)
	assert.Equal(t, exitOK, code, out)
	assert.Contains(t, out, "serving")
}

func TestHealthcheckAddr(t *testing.T) {
	for addr, want := range map[string]string{
		"0.0.0.0:8080": "127.0.0.1:8080", ":8080": "127.0.0.1:8080", "[::]:8080": "[::1]:8080",
		"127.0.0.1:9000": "127.0.0.1:9000", "mock.localhost:80": "mock.localhost:80",
	} {
		got, err := healthcheckAddr(addr)
		require.NoError(t, err, addr)
		assert.Equal(t, want, got, addr)
	}
}
