package main

import (
	"bytes"
	"context"
	"net/http"
	"os"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/governance"
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

// startRun runs the command with args until the test calls stop, and
// returns the listening address and the output.
func startRun(t *testing.T, args ...string) (ctx context.Context, addr string, out *syncBuffer, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out = &syncBuffer{}
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), out, ready) }()
	select {
	case addr = <-ready:
	case err := <-done:
		t.Fatalf("server stopped: %v", err)
	case <-time.After(10 * time.Second):
		t.Fatal("server did not start")
	}
	return ctx, addr, out, func() {
		cancel()
		require.NoError(t, <-done)
	}
}

func TestStandaloneServesTheDemoAccount(t *testing.T) {
	ctx, addr, out, stop := startRun(t, "-id-seed", "7")
	key := regexp.MustCompile(`(?m)^export VOICEAGENT_API_KEY=(voiceagent_live_[0-9A-Za-z]{40})$`).FindStringSubmatch(out.String())
	require.Len(t, key, 2, out.String())

	c := client.New(key[1], voiceagent.WithBaseURL("http://"+addr+"/api"))
	agents, err := c.Agents.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, agents, 1)
	assert.Equal(t, "Demo Business Intake Agent", agents[0].Name)

	resp, err := http.Post("http://"+addr+"/_mock/clock/advance", "application/json", bytes.NewBufferString(`{"seconds": 60}`))
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	stop()
}

func TestSeedNoneStartsEmptyAndBadSeedFails(t *testing.T) {
	_, _, out, stop := startRun(t, "-seed", "none")
	assert.NotContains(t, out.String(), "voiceagent_live_")
	stop()

	err := run(context.Background(), []string{"-addr", "127.0.0.1:0", "-seed", "lots"}, out, nil)
	assert.ErrorContains(t, err, "-seed must be demo or none")
}

func TestApprovalCallbackHostsFlag(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	ready := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-approval-callback-hosts", "control.example, *.approvals.example"}, &out, ready)
	}()
	addr := <-ready
	key := regexp.MustCompile(`(?m)^export VOICEAGENT_API_KEY=(voiceagent_live_[0-9A-Za-z]{40})$`).FindStringSubmatch(out.String())
	require.Len(t, key, 2, out.String())
	c := client.New(key[1], voiceagent.WithBaseURL("http://"+addr+"/api"), voiceagent.WithMaxRetries(0))
	request := func(callback string) error {
		_, err := c.Approvals.Request(ctx, &governance.ApprovalParams{
			Source: "cli", SourceRequestID: "r", PrincipalID: "p", Summary: "s", RiskLevel: "low",
			Channel:   governance.ApprovalChannel{Type: governance.ChannelVoice, Address: "+15551230001"},
			ExpiresAt: time.Now().Add(24 * time.Hour), CallbackURL: callback,
		})
		return err
	}
	require.NoError(t, request("https://control.example/cb"))
	require.NoError(t, request("https://eu.approvals.example/cb"))
	assert.ErrorIs(t, request("https://other.example/cb"), voiceagent.ErrInvalidRequest)
	cancel()
	require.NoError(t, <-done)
}

func TestFixturesFileLoadsAccountsAndPrintsTheirKeys(t *testing.T) {
	path := t.TempDir() + "/fixtures.json"
	require.NoError(t, os.WriteFile(path, []byte(`{"accounts": [{"business_name": "Fixture Co",
		"leads": [{"name": "Ada", "email": "ada@example.com", "status": "qualified"}],
		"calls": [{"to": "+15550101010", "duration": 42}]}]}`), 0o600))
	ctx, addr, out, stop := startRun(t, "-seed", "none", "-fixtures", path)
	key := regexp.MustCompile(`(?m)^fixture key 1: (voiceagent_live_[0-9A-Za-z]{40})$`).FindStringSubmatch(out.String())
	require.Len(t, key, 2, out.String())
	c := client.New(key[1], voiceagent.WithBaseURL("http://"+addr+"/api"))
	page, err := c.Leads.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, page.Data, 1)
	assert.Equal(t, "Ada", *page.Data[0].Name)
	calls, err := c.Calls.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, calls.Data, 1)
	assert.Equal(t, 42, calls.Data[0].Duration)
	stop()

	require.NoError(t, os.WriteFile(path, []byte(`{"accounts": [{"leads": [{"status": "hot"}]}]}`), 0o600))
	err = run(context.Background(), []string{"-addr", "127.0.0.1:0", "-fixtures", path}, out, nil)
	assert.ErrorContains(t, err, "/accounts/0/leads/0/status")
}
