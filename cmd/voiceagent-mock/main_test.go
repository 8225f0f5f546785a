package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/pem"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/governance"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// syncBuffer is a bytes.Buffer safe for the server goroutine and the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// envOf is an environment of the given NAME=value pairs only.
func envOf(pairs ...string) func(string) (string, bool) {
	m := map[string]string{}
	for _, p := range pairs {
		k, v, _ := strings.Cut(p, "=")
		m[k] = v
	}
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

// started is a command running in the test.
type started struct {
	ctx          context.Context
	addr         string
	out, log     *syncBuffer
	stop         func() int
	base, admin  string
	clientForKey func(key string) *client.Client
}

// startRun runs the command with args (on a free port unless args or env
// set -addr) and env until the test calls stop, which returns the exit code.
func startRun(t *testing.T, env []string, args ...string) *started {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &started{ctx: ctx, out: &syncBuffer{}, log: &syncBuffer{}}
	ready := make(chan string, 1)
	done := make(chan int, 1)
	if !strings.Contains(strings.Join(env, " "), envName("addr")+"=") {
		args = append([]string{"-addr", "127.0.0.1:0"}, args...)
	}
	go func() { done <- run(ctx, args, envOf(env...), s.out, s.log, ready) }()
	select {
	case s.addr = <-ready:
	case code := <-done:
		cancel()
		t.Fatalf("the command exited %d: %s%s", code, s.out, s.log)
	case <-time.After(10 * time.Second):
		cancel()
		t.Fatal("the server did not start")
	}
	s.base, s.admin = "http://"+s.addr+"/api", "http://"+s.addr+"/_mock"
	s.clientForKey = func(key string) *client.Client {
		return client.New(key, voiceagent.WithBaseURL(s.base), voiceagent.WithMaxRetries(0))
	}
	stopped := false
	s.stop = func() int {
		stopped = true
		cancel()
		return <-done
	}
	t.Cleanup(func() {
		if !stopped {
			s.stop()
		}
	})
	return s
}

var demoKey = regexp.MustCompile(`(?m)^export VOICEAGENT_API_KEY=(voiceagent_live_[0-9A-Za-z]{40})$`)

// key is the demo account's key the command printed.
func (s *started) key(t *testing.T) string {
	t.Helper()
	m := demoKey.FindStringSubmatch(s.out.String())
	require.Len(t, m, 2, s.out.String())
	return m[1]
}

// httpJSON sends one request (header: name, value pairs; a Host pair sets
// the request's Host) and returns the status and the decoded JSON body.
func httpJSON(t *testing.T, method, url, body string, header ...string) (int, map[string]any) {
	t.Helper()
	status, _, raw := exchange(t, method, url, body, header...)
	var out map[string]any
	_ = json.Unmarshal(raw, &out)
	return status, out
}

// httpRaw is httpJSON returning the body as it came.
func httpRaw(t *testing.T, method, url, body string, header ...string) (int, []byte) {
	t.Helper()
	status, _, raw := exchange(t, method, url, body, header...)
	return status, raw
}

// testClient keeps a connection open for each of a test's parallel senders
// (the default client keeps two).
var testClient = &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}}

// exchange sends one request (header: name, value pairs; a Host pair sets
// the request's Host) and returns the response's status, headers and
// body.
func exchange(t *testing.T, method, url, body string, header ...string) (int, http.Header, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i+1 < len(header); i += 2 {
		if strings.EqualFold(header[i], "Host") {
			req.Host = header[i+1]
			continue
		}
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := testClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, raw
}

func TestStandaloneServesTheDemoAccount(t *testing.T) {
	s := startRun(t, nil, "-id-seed", "7")
	c := s.clientForKey(s.key(t))
	agents, err := c.Agents.List(s.ctx, nil)
	require.NoError(t, err)
	require.Len(t, agents, 1)
	assert.Equal(t, "Demo Business Intake Agent", agents[0].Name)

	status, _ := httpJSON(t, http.MethodPost, s.admin+"/clock/advance", `{"seconds": 60}`)
	assert.Equal(t, http.StatusOK, status)
	status, health := httpJSON(t, http.MethodGet, s.admin+"/health", "")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, map[string]any{"status": "ok", "version": mockserver.Version()}, health)
	assert.Contains(t, s.out.String(), "voiceagent mock server "+mockserver.Version()+" listening")
	assert.Equal(t, 0, s.stop())
}

// POST /_mock/reset keeps the demo account and the key printed at start.
func TestResetKeepsThePrintedKey(t *testing.T) {
	s := startRun(t, nil)
	key := s.key(t)
	c := s.clientForKey(key)
	_, err := c.Calls.Create(s.ctx, nil)
	require.Error(t, err)

	status, out := httpJSON(t, http.MethodPost, s.admin+"/reset", "")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, float64(1), out["seed_accounts"])
	agents, err := c.Agents.List(s.ctx, nil)
	require.NoError(t, err, "the printed key works after a reset")
	assert.Len(t, agents, 1)
	assert.Contains(t, s.out.String(), agents[0].ID, "the printed agent id too")

	status, _ = httpJSON(t, http.MethodPost, s.admin+"/reset?seed=none", "")
	require.Equal(t, http.StatusOK, status)
	_, err = c.Agents.List(s.ctx, nil)
	assert.ErrorIs(t, err, voiceagent.ErrUnauthorized, "?seed=none leaves the server empty")
}

func TestSeedNoneStartsEmpty(t *testing.T) {
	s := startRun(t, nil, "-seed", "none")
	assert.NotContains(t, s.out.String(), "voiceagent_live_")
	status, out := httpJSON(t, http.MethodPost, s.admin+"/reset", "")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, float64(0), out["seed_accounts"])
}

// Every value is checked before the server listens: exit 2, a message
// saying which value and why, nothing served.
func TestBadInputFailsBeforeListening(t *testing.T) {
	dir := t.TempDir()
	notPEM := dir + "/not.pem"
	require.NoError(t, os.WriteFile(notPEM, []byte("hello"), 0o600))
	badFixtures := dir + "/fixtures.json"
	require.NoError(t, os.WriteFile(badFixtures, []byte(`{"accounts": [{"leads": [{"status": "hot"}]}]}`), 0o600))
	for name, tc := range map[string]struct {
		args, env []string
		why       string
	}{
		"bad seed":            {[]string{"-seed", "bogus"}, nil, `-seed must be demo or none, not "bogus"`},
		"negative speed":      {[]string{"-speed", "-5"}, nil, "-speed must be 0"},
		"NaN speed":           {[]string{"-speed", "NaN"}, nil, "-speed must be 0"},
		"realtime and speed":  {[]string{"-realtime", "-speed", "60"}, nil, "-realtime and -speed 60 disagree"},
		"stray argument":      {[]string{"-seed", "none", "extra", "-v"}, nil, `unexpected argument "extra"`},
		"bad start":           {[]string{"-start", "tomorrow"}, nil, `-start "tomorrow" is not an RFC 3339 time`},
		"start without zone":  {[]string{"-start", "2026-03-10T16:00:00"}, nil, "is not an RFC 3339 time"},
		"unknown flag":        {[]string{"-colour"}, nil, "flag provided but not defined: -colour"},
		"bad flag value":      {[]string{"-id-seed", "-1"}, nil, `invalid value "-1" for flag -id-seed`},
		"bad addr":            {[]string{"-addr", "8080"}, nil, `-addr "8080" must be host:port`},
		"bad port":            {[]string{"-addr", "127.0.0.1:99999"}, nil, "the port must be a number from 0 to 65535"},
		"bad cors":            {[]string{"-cors", "https://ok.example,editor.swagger.io"}, nil, `-cors: CORS origin "editor.swagger.io" must be * or scheme://host[:port]`},
		"cors with a path":    {[]string{"-cors", "https://ok.example/app"}, nil, "without a path"},
		"missing CA file":     {[]string{"-webhook-ca", dir + "/none.pem"}, nil, "-webhook-ca: open"},
		"CA file without PEM": {[]string{"-webhook-ca", notPEM}, nil, "holds no PEM certificate"},
		"approval host URL":   {[]string{"-approval-callback-hosts", "https://control.example"}, nil, "is not a host name"},
		"admin host URL":      {[]string{"-admin-hosts", "mock,http://mock"}, nil, `-admin-hosts: "http://mock" is not a host name`},
		"admin host wildcard": {[]string{"-admin-hosts", "*.mock.example"}, nil, "is not a host name"},
		"admin host port":     {[]string{"-admin-hosts", "mock:99999"}, nil, `-admin-hosts: "mock:99999": the port must be a number`},
		"admin hosts, token":  {[]string{"-admin-hosts", "mock", "-admin-token", "t"}, nil, "-admin-hosts and -admin-token: give one of them"},
		"admin hosts, beyond": {[]string{"-admin-hosts", "mock", "-addr", "0.0.0.0:0"}, nil, "-admin-hosts with -addr 0.0.0.0:0: beyond loopback the admin API requires the admin token"},
		"env admin hosts":     {nil, []string{"VOICEAGENT_MOCK_ADMIN_HOSTS=mock/ui"}, "is not a host name"},
		"bad fixtures":        {[]string{"-fixtures", badFixtures}, nil, "/accounts/0/leads/0/status"},
		"env speed":           {nil, []string{"VOICEAGENT_MOCK_SPEED=fast"}, `VOICEAGENT_MOCK_SPEED="fast": -speed wants a number`},
		"env bool":            {nil, []string{"VOICEAGENT_MOCK_RATE_LIMITS=maybe"}, "-rate-limits wants true or false"},
		"env id seed":         {nil, []string{"VOICEAGENT_MOCK_ID_SEED=-3"}, "-id-seed wants a whole number, 0 or more"},
		"env seed":            {nil, []string{"VOICEAGENT_MOCK_SEED=lots"}, `-seed must be demo or none, not "lots"`},
		"env start":           {nil, []string{"VOICEAGENT_MOCK_START=noon"}, `-start "noon" is not an RFC 3339 time`},
		"env negative speed":  {nil, []string{"VOICEAGENT_MOCK_SPEED=-5"}, "-speed must be 0"},
		"env cors":            {nil, []string{"VOICEAGENT_MOCK_CORS=localhost:3000"}, "-cors:"},
	} {
		t.Run(name, func(t *testing.T) {
			var out, errOut syncBuffer
			code := run(context.Background(), tc.args, envOf(tc.env...), &out, &errOut, nil)
			assert.Equal(t, exitBadArgs, code)
			assert.Contains(t, errOut.String(), tc.why)
			if !strings.Contains(name, "fixtures") {
				assert.Contains(t, errOut.String(), "Run voiceagent-mock -help for the flags.")
			}
			assert.NotContains(t, out.String(), "listening")
			assert.NotContains(t, out.String(), "voiceagent_live_")
		})
	}

	// The values are fine but the address is taken: exit 1, nothing served.
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { taken.Close() })
	var out, errOut syncBuffer
	assert.Equal(t, exitFailed, run(context.Background(), []string{"-addr", taken.Addr().String()}, envOf(), &out, &errOut, nil))
	assert.Contains(t, errOut.String(), "address already in use")
	assert.NotContains(t, out.String(), "listening")
}

func TestHelpAndVersionExitZero(t *testing.T) {
	for _, arg := range []string{"-help", "-h", "--help"} {
		var out, errOut syncBuffer
		assert.Equal(t, exitOK, run(context.Background(), []string{arg}, envOf(), &out, &errOut, nil), arg)
		assert.Empty(t, errOut.String())
		help := out.String()
		assert.True(t, strings.HasPrefix(help, "Usage: voiceagent-mock [flags]"), help)
		for _, name := range []string{"addr", "seed", "fixtures", "start", "realtime", "speed", "rate-limits", "id-seed",
			"allow-external-webhooks", "webhook-ca", "approval-callback-hosts", "cors", "admin-token", "admin-hosts", "v", "version"} {
			assert.Regexp(t, `(?m)^  -`+name+`(\s|$)`, help, "the help lists -%s", name)
			assert.Contains(t, help, "[$"+envName(name)+"]", "and its variable")
		}
	}
	assert.Equal(t, "VOICEAGENT_MOCK_ALLOW_EXTERNAL_WEBHOOKS", envName("allow-external-webhooks"))

	var out, errOut syncBuffer
	assert.Equal(t, exitOK, run(context.Background(), []string{"-version"}, envOf(), &out, &errOut, nil))
	assert.Regexp(t, `^voiceagent-mock v\S+ \(go\S+\)\n$`, out.String())
	assert.Contains(t, out.String(), mockserver.Version())
	out = syncBuffer{}
	assert.Equal(t, exitOK, run(context.Background(), nil, envOf("VOICEAGENT_MOCK_VERSION=true"), &out, &errOut, nil))
	assert.Contains(t, out.String(), mockserver.Version())
}

// Every flag has an environment variable; a flag on the command line wins.
func TestEnvironmentVariablesConfigureTheServer(t *testing.T) {
	s := startRun(t, []string{
		"VOICEAGENT_MOCK_ADDR=127.0.0.1:0",
		"VOICEAGENT_MOCK_SEED=none",
		"VOICEAGENT_MOCK_START=2026-03-10T16:00:00Z",
		"VOICEAGENT_MOCK_CORS=https://editor.swagger.io",
		"VOICEAGENT_MOCK_RATE_LIMITS=false",
		"VOICEAGENT_MOCK_ID_SEED=",
	}, "-seed", "demo")
	assert.Contains(t, s.out.String(), "export VOICEAGENT_API_KEY=", "-seed demo on the command line wins over VOICEAGENT_MOCK_SEED=none")
	assert.Contains(t, s.out.String(), "clock: frozen at 2026-03-10T16:00:00Z")
	assert.Contains(t, s.out.String(), "CORS: web pages of https://editor.swagger.io")

	req, err := http.NewRequest(http.MethodOptions, s.base+"/v1/agents", nil)
	require.NoError(t, err)
	req.Header.Set("Origin", "https://editor.swagger.io")
	req.Header.Set("Access-Control-Request-Method", "GET")
	req.Header.Set("Access-Control-Request-Headers", "authorization")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNoContent, resp.StatusCode)
	assert.Equal(t, "https://editor.swagger.io", resp.Header.Get("Access-Control-Allow-Origin"))

	// Rate limits off: more reads than the limit of 300 a minute pass (raw
	// requests: the SDK's own client-side limiter would pace them).
	key := s.key(t)
	for i := range 310 {
		status, _ := httpJSON(t, http.MethodGet, s.base+"/v1/numbers", "", "Authorization", "Bearer "+key)
		require.Equal(t, http.StatusOK, status, "request %d", i+1)
	}
}

// -start pins the simulated start; the start-up line says how the clock
// runs.
func TestStartPinsTheClockAndTheStartUpLineSaysHowItRuns(t *testing.T) {
	s := startRun(t, nil, "-start", "2026-03-10T11:00:00-05:00", "-seed", "none")
	assert.Contains(t, s.out.String(), "clock: frozen at 2026-03-10T16:00:00Z; only POST /_mock/clock/advance moves it")
	status, out := httpJSON(t, http.MethodGet, s.admin+"/clock", "")
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "2026-03-10T16:00:00.000000000Z", out["now"])

	fast := startRun(t, nil, "-speed", "60", "-start", "2026-03-10T16:00:00Z", "-seed", "none")
	assert.Contains(t, fast.out.String(), "clock: follows real time at speed 60, from 2026-03-10T16:00:00Z")
	realtime := startRun(t, nil, "-realtime", "-seed", "none")
	assert.Contains(t, realtime.out.String(), "clock: follows real time at speed 1, from ")
}

// -v logs every request with the error code of error responses (and the
// fault rule that acted on it), and every webhook attempt.
func TestVerboseLogsErrorCodesAndWebhookAttempts(t *testing.T) {
	s := startRun(t, nil, "-v")
	key := s.key(t)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTeapot)
	}))
	t.Cleanup(recv.Close)
	status, _ := httpJSON(t, http.MethodGet, s.base+"/v1/agents", "", "Authorization", "Bearer voiceagent_live_nope")
	require.Equal(t, http.StatusUnauthorized, status)
	status, caps := httpJSON(t, http.MethodGet, s.base+"/v1/capabilities", "", "Authorization", "Bearer "+key)
	require.Equal(t, http.StatusOK, status)
	business := caps["workspaces"].([]any)[0].(map[string]any)["id"].(string)
	status, _ = httpJSON(t, http.MethodPost, s.base+"/v1/webhooks",
		`{"business_id":"`+business+`","webhook_url":"`+recv.URL+`/hook","events":["lead.created"]}`, "Authorization", "Bearer "+key)
	require.Equal(t, http.StatusCreated, status)
	status, _ = httpJSON(t, http.MethodPost, s.admin+"/events", `{"business_id":"`+business+`","event":"lead.created"}`)
	require.Equal(t, http.StatusCreated, status)

	status, _ = httpJSON(t, http.MethodPost, s.admin+"/faults", `{"path":"/v1/numbers","status":503,"times":1}`)
	require.Equal(t, http.StatusCreated, status)
	status, _ = httpJSON(t, http.MethodGet, s.base+"/v1/numbers", "", "Authorization", "Bearer "+key)
	require.Equal(t, http.StatusServiceUnavailable, status)

	require.Eventually(t, func() bool { return strings.Contains(s.log.String(), "mockserver webhook attempt") }, 10*time.Second, 10*time.Millisecond)
	log := s.log.String()
	assert.Regexp(t, `path=/api/v1/agents .*status=401 error_code=unauthorized`, log)
	assert.Regexp(t, `path=/api/v1/numbers .*status=503 error_code=service_unavailable .*fault=fault_1 `, log, "the line names the fault")
	assert.NotContains(t, log, `fault=""`)
	assert.Regexp(t, `mockserver webhook attempt" .*event=lead.created attempt=1 .*receiver=`+regexp.QuoteMeta(recv.URL)+`/hook status=418 error="the receiver answered 418"`, log)
	assert.NotContains(t, log, key)
	assert.NotContains(t, s.out.String(), "webhook attempt", "the log goes to stderr")
}

// External receivers: with -allow-external-webhooks, http:// on named
// hosts (docker compose) is allowed; without it the refusal says why.
func TestAllowExternalWebhooks(t *testing.T) {
	body := func(business string) string {
		return `{"business_id":"` + business + `","webhook_url":"http://receiver:3000/hook"}`
	}
	subscribe := func(s *started) (int, map[string]any) {
		key := s.key(t)
		_, caps := httpJSON(t, http.MethodGet, s.base+"/v1/capabilities", "", "Authorization", "Bearer "+key)
		business := caps["workspaces"].([]any)[0].(map[string]any)["id"].(string)
		return httpJSON(t, http.MethodPost, s.base+"/v1/webhooks", body(business), "Authorization", "Bearer "+key)
	}
	status, out := subscribe(startRun(t, nil))
	assert.Equal(t, http.StatusBadRequest, status)
	msg := out["error"].(map[string]any)["message"].(string)
	assert.Contains(t, msg, "http:// is only called on loopback hosts")
	assert.Contains(t, msg, "-allow-external-webhooks")

	ext := startRun(t, []string{"VOICEAGENT_MOCK_ALLOW_EXTERNAL_WEBHOOKS=true"})
	assert.Contains(t, ext.out.String(), "webhooks: receivers outside loopback are called, over http too")
	status, out = subscribe(ext)
	assert.Equal(t, http.StatusCreated, status, out)
}

// -webhook-ca reads PEM certificates before listening and says so.
func TestWebhookCAFile(t *testing.T) {
	receiver := httptest.NewTLSServer(http.NotFoundHandler())
	t.Cleanup(receiver.Close)
	path := t.TempDir() + "/ca.pem"
	require.NoError(t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: receiver.Certificate().Raw}), 0o600))
	s := startRun(t, nil, "-webhook-ca", path, "-seed", "none")
	assert.Contains(t, s.out.String(), "webhooks: trusting 1 CA certificate(s) from "+path)

	key := t.TempDir() + "/key.pem"
	require.NoError(t, os.WriteFile(key, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte{1}}), 0o600))
	var out, errOut syncBuffer
	assert.Equal(t, exitBadArgs, run(context.Background(), []string{"-webhook-ca", key}, envOf(), &out, &errOut, nil))
	assert.Contains(t, errOut.String(), "holds a PRIVATE KEY block; give CA certificates only")
}

func TestApprovalCallbackHostsFlag(t *testing.T) {
	s := startRun(t, nil, "-approval-callback-hosts", "control.example, *.approvals.example")
	c := s.clientForKey(s.key(t))
	request := func(callback string) error {
		_, err := c.Approvals.Request(s.ctx, &governance.ApprovalParams{
			Source: "cli", SourceRequestID: "r", PrincipalID: "p", Summary: "s", RiskLevel: "low",
			Channel:   governance.ApprovalChannel{Type: governance.ChannelVoice, Address: "+15551230001"},
			ExpiresAt: time.Now().Add(24 * time.Hour), CallbackURL: callback,
		})
		return err
	}
	require.NoError(t, request("https://control.example/cb"))
	require.NoError(t, request("https://eu.approvals.example/cb"))
	assert.ErrorIs(t, request("https://other.example/cb"), voiceagent.ErrInvalidRequest)
}

func TestFixturesFileLoadsAccountsAndPrintsTheirKeys(t *testing.T) {
	path := t.TempDir() + "/fixtures.json"
	require.NoError(t, os.WriteFile(path, []byte(`{"accounts": [{"business_name": "Fixture Co",
		"leads": [{"name": "Ada", "email": "ada@example.com", "status": "qualified"}],
		"calls": [{"to": "+15550101010", "duration": 42}]}]}`), 0o600))
	s := startRun(t, nil, "-seed", "none", "-fixtures", path)
	key := regexp.MustCompile(`(?m)^fixture key 1: (voiceagent_live_[0-9A-Za-z]{40})$`).FindStringSubmatch(s.out.String())
	require.Len(t, key, 2, s.out.String())
	c := s.clientForKey(key[1])
	page, err := c.Leads.List(s.ctx, nil)
	require.NoError(t, err)
	require.Len(t, page.Data, 1)
	assert.Equal(t, "Ada", *page.Data[0].Name)
	calls, err := c.Calls.List(s.ctx, nil)
	require.NoError(t, err)
	require.Len(t, calls.Data, 1)
	assert.Equal(t, 42, calls.Data[0].Duration)
}

// binDir holds the binary buildBinary builds; TestMain removes it.
var binDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// goBuild builds the command with the go tool (which go test puts first on
// PATH) into the test run's binary directory, under name, with extra build
// flags, and returns the executable's path.
func goBuild(name string, flags ...string) (string, error) {
	if binDir == "" {
		dir, err := os.MkdirTemp("", "voiceagent-mock-test-")
		if err != nil {
			return "", err
		}
		binDir = dir
	}
	bin := filepath.Join(binDir, name)
	args := append(append([]string{"build", "-o", bin}, flags...), ".")
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

// buildMu keeps goBuild's binDir set once when tests build in parallel.
var buildMu sync.Mutex

// buildBinary builds the command once per test run.
var buildBinary = sync.OnceValues(func() (string, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	return goBuild("voiceagent-mock")
})

// binary is a built voiceagent-mock, run with only the given environment.
func binary(t *testing.T, env []string, args ...string) *exec.Cmd {
	t.Helper()
	bin, err := buildBinary()
	require.NoError(t, err)
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	return cmd
}

// exitCode is the exit code of a finished command.
func exitCode(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	require.NoError(t, err)
	return 0
}

// runBinary runs the built command to its end: exit code, stdout, stderr.
func runBinary(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	cmd := binary(t, env, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	return exitCode(t, cmd.Run()), stdout.String(), stderr.String()
}

// The built binary as a shell sees it: -help and -version exit 0 on
// stdout; bad flags and variables exit 2 on stderr before it listens.
func TestTheBinaryHelpVersionAndBadInput(t *testing.T) {
	code, stdout, stderr := runBinary(t, nil, "-help")
	assert.Equal(t, 0, code)
	assert.True(t, strings.HasPrefix(stdout, "Usage: voiceagent-mock [flags]"), stdout)
	assert.Contains(t, stdout, "[$VOICEAGENT_MOCK_START]")
	assert.Empty(t, stderr, "no \"flag: help requested\"")

	code, stdout, stderr = runBinary(t, nil, "-version")
	assert.Equal(t, 0, code)
	assert.Regexp(t, `^voiceagent-mock v\S+ \(go\S+\)\n$`, stdout)
	assert.Empty(t, stderr)

	for _, tc := range []struct {
		env  []string
		args []string
		why  string
	}{
		{nil, []string{"-seed", "bogus"}, `voiceagent-mock: -seed must be demo or none, not "bogus"`},
		{nil, []string{"-speed", "-5"}, "voiceagent-mock: -speed must be 0"},
		{nil, []string{"-seed", "none", "stray"}, `unexpected argument "stray"`},
		{nil, []string{"-start", "yesterday"}, `-start "yesterday" is not an RFC 3339 time`},
		{[]string{"VOICEAGENT_MOCK_SPEED=-5"}, []string{"-seed", "none"}, "voiceagent-mock: -speed must be 0"},
		{[]string{"VOICEAGENT_MOCK_CORS=editor.swagger.io"}, nil, "-cors:"},
	} {
		code, stdout, stderr = runBinary(t, tc.env, tc.args...)
		assert.Equal(t, 2, code, "%v %v", tc.env, tc.args)
		assert.Contains(t, stderr, tc.why)
		assert.NotContains(t, stdout, "listening", "%v %v: nothing served", tc.env, tc.args)
	}
}

// The built binary serves: configured by the environment alone, it says
// how its clock runs, responds to health with its -version, logs with -v to
// stderr, keeps the demo key over a reset, and exits 0 on SIGTERM.
func TestTheBinaryServes(t *testing.T) {
	_, version, _ := runBinary(t, nil, "-version")
	cmd := binary(t, []string{
		"VOICEAGENT_MOCK_ADDR=127.0.0.1:0",
		"VOICEAGENT_MOCK_START=2026-03-10T16:00:00Z",
		"VOICEAGENT_MOCK_V=true",
	})
	var stderr syncBuffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	lines := bufio.NewScanner(pipe)
	var out []string
	var admin, base, key string
	for key == "" && lines.Scan() {
		l := lines.Text()
		out = append(out, l)
		if a, ok := strings.CutPrefix(l, "admin API: "); ok {
			admin = a
		}
		if b, ok := strings.CutPrefix(l, "base URL: "); ok {
			base = b
		}
		if k, ok := strings.CutPrefix(l, "export VOICEAGENT_API_KEY="); ok {
			key = k
		}
	}
	require.NotEmpty(t, key, "the binary printed the demo key: %q", out)
	go func() { _, _ = io.Copy(io.Discard, pipe) }()
	assert.Contains(t, out, "clock: frozen at 2026-03-10T16:00:00Z; only POST /_mock/clock/advance moves it")

	status, health := httpJSON(t, http.MethodGet, admin+"/health", "")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "ok", health["status"])
	assert.Equal(t, strings.Fields(version)[1], health["version"], "health and -version agree")
	status, clock := httpJSON(t, http.MethodGet, admin+"/clock", "")
	assert.Equal(t, http.StatusOK, status)
	assert.Equal(t, "2026-03-10T16:00:00.000000000Z", clock["now"])

	status, _ = httpJSON(t, http.MethodGet, base+"/v1/agents", "", "Authorization", "Bearer voiceagent_live_nope")
	assert.Equal(t, http.StatusUnauthorized, status)
	require.Eventually(t, func() bool { return strings.Contains(stderr.String(), "error_code=unauthorized") }, 5*time.Second, 10*time.Millisecond)

	// -v logs webhook attempts too.
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(recv.Close)
	_, caps := httpJSON(t, http.MethodGet, base+"/v1/capabilities", "", "Authorization", "Bearer "+key)
	business := caps["workspaces"].([]any)[0].(map[string]any)["id"].(string)
	status, _ = httpJSON(t, http.MethodPost, base+"/v1/webhooks",
		`{"business_id":"`+business+`","webhook_url":"`+recv.URL+`/hook","events":["lead.created"]}`, "Authorization", "Bearer "+key)
	require.Equal(t, http.StatusCreated, status)
	status, _ = httpJSON(t, http.MethodPost, admin+"/events", `{"business_id":"`+business+`","event":"lead.created"}`)
	require.Equal(t, http.StatusCreated, status)
	require.Eventually(t, func() bool {
		return regexp.MustCompile(`mockserver webhook attempt" .*event=lead.created attempt=1 .*status=200`).MatchString(stderr.String())
	}, 10*time.Second, 10*time.Millisecond, "stderr: %s", &stderr)

	status, _ = httpJSON(t, http.MethodPost, admin+"/reset", "")
	assert.Equal(t, http.StatusOK, status)
	status, _ = httpJSON(t, http.MethodGet, base+"/v1/agents", "", "Authorization", "Bearer "+key)
	assert.Equal(t, http.StatusOK, status, "the printed key survives a reset")

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	assert.Equal(t, 0, exitCode(t, cmd.Wait()))
}

// The README's flags table lists every flag with its environment variable.
func TestTheREADMEListsEveryFlag(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	readme := string(raw)
	_, fs, err := parseConfig([]string{"-help"}, envOf())
	require.ErrorIs(t, err, flag.ErrHelp)
	fs.VisitAll(func(f *flag.Flag) {
		assert.Regexp(t, `(?m)^\| `+"`"+`-`+regexp.QuoteMeta(f.Name)+"[` ].*\\| `"+envName(f.Name)+"` \\|", readme,
			"README.md's flags table has a row for -%s and its variable", f.Name)
	})
}

// Listening on every interface (as in the container image), the printed
// URLs name loopback, which a client can use, not 0.0.0.0 or [::].
func TestTheURLsPrintedOnEveryInterfaceAreReachable(t *testing.T) {
	// [::] is checked on reachableAddr alone: a machine may have no IPv6.
	for _, addr := range []string{"0.0.0.0:0"} {
		t.Run(addr, func(t *testing.T) {
			s := startRun(t, nil, "-addr", addr, "-admin-token", "tok")
			out := s.out.String()
			m := regexp.MustCompile(`(?m)^base URL: (http://\S+)/api$`).FindStringSubmatch(out)
			require.Len(t, m, 2, out)
			assert.Regexp(t, `^http://127\.0\.0\.1:[0-9]+$`, m[1])
			assert.Contains(t, out, "listening on "+s.addr)
			status, _ := httpJSON(t, http.MethodGet, m[1]+"/_mock/health", "", "Authorization", "Bearer tok")
			assert.Equal(t, http.StatusOK, status, "the printed URL answers")
		})
	}
	assert.Equal(t, "127.0.0.1:8080", reachableAddr(&net.TCPAddr{IP: net.IPv6zero, Port: 8080}))
	assert.Equal(t, "[::1]:8080", reachableAddr(&net.TCPAddr{IP: net.IPv6loopback, Port: 8080}))
}
