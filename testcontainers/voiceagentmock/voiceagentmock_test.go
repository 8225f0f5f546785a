package voiceagentmock_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/testcontainers/testcontainers-go"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/internal/harness/helpersuite"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/testcontainers/voiceagentmock"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// requireEngine skips the test when no container engine answers, and
// fails it instead under CI=true, where the engine is part of the run.
func requireEngine(t *testing.T) {
	t.Helper()
	p, err := testcontainers.NewDockerProvider()
	if err == nil {
		defer p.Close()
		err = p.Health(context.Background())
	}
	if err == nil {
		return
	}
	const how = "no container engine answers (%v): start docker, or podman's socket " +
		"(podman system service --time=0 unix:///run/podman/podman.sock) with DOCKER_HOST=unix:///run/podman/podman.sock " +
		"and TESTCONTAINERS_RYUK_DISABLED=true; VOICEAGENT_MOCK_IMAGE=voiceagent-mock:dev after make image"
	if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
		t.Fatalf(how, err)
	}
	t.Skipf(how, err)
}

// startMock runs the mock's container for the test and terminates it when
// the test ends.
func startMock(t *testing.T, opts ...testcontainers.ContainerCustomizer) *voiceagentmock.Container {
	t.Helper()
	requireEngine(t)
	ctx := context.Background()
	start := time.Now()
	c, err := voiceagentmock.Run(ctx, opts...)
	if c != nil {
		testcontainers.CleanupContainer(t, c)
	}
	require.NoError(t, err)
	t.Logf("%s healthy %v after start", voiceagentmock.DefaultImage(), time.Since(start).Round(time.Millisecond))
	return c
}

// TestTheGoHelpersInTheContainer: the container's server is the same Go
// API as a server in the test's process: the suite of every admin helper
// that runs against mockserver.New and the binary runs against the image.
func TestTheGoHelpersInTheContainer(t *testing.T) {
	mock := startMock(t, voiceagentmock.WithSeed("none"))
	helpersuite.Run(t, mock.Server, helpersuite.Options{Reset: true})
}

// TestACallCompletesOnTheTenantClock: an account made through the admin
// API places a call with the SDK; advancing that tenant's clock completes
// it, and another tenant's clock stays where it was.
func TestACallCompletesOnTheTenantClock(t *testing.T) {
	ctx := context.Background()
	mock := startMock(t, voiceagentmock.WithSeed("none"))
	acct, err := mock.NewAccount(mockserver.AccountOptions{BusinessName: "Clock Test"})
	require.NoError(t, err)
	other, err := mock.NewAccount(mockserver.AccountOptions{})
	require.NoError(t, err)
	c := acct.Client()

	call, err := c.Calls.Create(ctx, &calls.CreateParams{AgentID: acct.AgentID, To: "+15551230001"})
	require.NoError(t, err)
	assert.NotEqual(t, calls.StatusCompleted, call.Status)
	before := other.Now()

	now := acct.Advance(10 * time.Minute)
	got, err := c.Calls.Get(ctx, call.ID)
	require.NoError(t, err)
	assert.Equal(t, calls.StatusCompleted, got.Status)

	after := other.Now()
	assert.Equal(t, before, after, "another tenant's clock does not move")
	assert.True(t, now.After(after))
}

// TestAWebhookReachesAReceiverOnTheHost: a subscription naming a receiver
// on the host (host.containers.internal with podman, host.docker.internal
// with docker) gets the call.completed delivery once the tenant's clock
// completes the call.
func TestAWebhookReachesAReceiverOnTheHost(t *testing.T) {
	ctx := context.Background()
	hostName := "host.containers.internal"
	opts := []testcontainers.ContainerCustomizer{voiceagentmock.WithSeed("none"), voiceagentmock.WithExternalWebhooks()}
	if !strings.Contains(os.Getenv("DOCKER_HOST"), "podman") {
		hostName = "host.docker.internal"
		opts = append(opts, testcontainers.WithHostConfigModifier(func(hc *container.HostConfig) {
			hc.ExtraHosts = append(hc.ExtraHosts, "host.docker.internal:host-gateway")
		}))
	}

	// The receiver listens on every interface: the container reaches the
	// host through its gateway, not its loopback.
	ln, err := net.Listen("tcp", "0.0.0.0:0")
	require.NoError(t, err)
	received := make(chan map[string]any, 8)
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body map[string]any
		raw, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(raw, &body)
		received <- body
		w.WriteHeader(http.StatusNoContent)
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	port := ln.Addr().(*net.TCPAddr).Port

	mock := startMock(t, opts...)
	acct, err := mock.NewAccount(mockserver.AccountOptions{})
	require.NoError(t, err)
	c := acct.Client()
	_, err = c.Webhooks.Upsert(ctx, &webhooks.UpsertParams{
		BusinessID: acct.BusinessID,
		WebhookURL: "http://" + hostName + ":" + strconv.Itoa(port) + "/hooks",
		Events:     []webhooks.EventType{webhooks.EventCallCompleted},
	})
	require.NoError(t, err)
	call, err := c.Calls.Create(ctx, &calls.CreateParams{AgentID: acct.AgentID, To: "+15551230007"})
	require.NoError(t, err)
	acct.Advance(10 * time.Minute)

	select {
	case body := <-received:
		assert.Equal(t, string(webhooks.EventCallCompleted), body["event"], "body: %v", body)
		data, _ := body["data"].(map[string]any)
		assert.Equal(t, call.ID, data["id"], "body: %v", body)
	case <-time.After(30 * time.Second):
		t.Fatalf("no delivery reached the receiver on the host; the delivery log: %+v", acct.Deliveries(mockserver.DeliveryFilter{}))
	}
}

// TestAScopedFaultFires: a fault of one account fails that account's
// request and no other's, the client retries it as fast as in process,
// and removing it ends it.
func TestAScopedFaultFires(t *testing.T) {
	ctx := context.Background()
	mock := startMock(t)
	acct, err := mock.NewAccount(mockserver.AccountOptions{})
	require.NoError(t, err)
	other, err := mock.DemoAccount(ctx)
	require.NoError(t, err)

	f, err := acct.AddFault(mockserver.FaultRule{Method: http.MethodPost, Path: "/v1/calls", Status: http.StatusServiceUnavailable})
	require.NoError(t, err)
	require.NotEmpty(t, f.ID)

	params := &calls.CreateParams{AgentID: acct.AgentID, To: "+15551230003"}
	_, err = acct.Client().Calls.Create(ctx, params, voiceagent.WithMaxRetries(0))
	assert.ErrorIs(t, err, voiceagent.ErrServiceUnavailable, "the account's own fault")
	_, err = other.Client().Calls.Create(ctx, &calls.CreateParams{AgentID: other.AgentID, To: "+15551230003"})
	assert.NoError(t, err, "the demo account never sees it")

	require.True(t, mock.RemoveFault(f.ID))
	zero := 0
	_, err = acct.AddFault(mockserver.FaultRule{Method: http.MethodPost, Path: "/v1/calls", Status: http.StatusServiceUnavailable, Times: 1, RetryAfter: &zero})
	require.NoError(t, err)
	_, err = acct.Client().Calls.Create(ctx, params)
	assert.NoError(t, err, "retried past one 503")
	assert.Len(t, acct.Requests(mockserver.RequestFilter{Method: http.MethodPost, Path: "/v1/calls", Status: http.StatusServiceUnavailable}.Match), 2)
}

// TestTheAdminAPINeedsTheToken: the container's admin API answers 401
// without the token; Connect with the token reaches it.
func TestTheAdminAPINeedsTheToken(t *testing.T) {
	mock := startMock(t, voiceagentmock.WithAdminToken("test-token"))
	assert.Equal(t, "test-token", mock.AdminToken())

	resp, err := http.Get(mock.AdminURL() + "/health")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)

	_, err = mockserver.Connect(mock.AdminURL(), "wrong")
	var e *mockserver.Error
	require.True(t, errors.As(err, &e), "%v", err)
	assert.Equal(t, http.StatusUnauthorized, e.Status)
	srv, err := mockserver.Connect(mock.AdminURL(), "test-token")
	require.NoError(t, err)
	assert.False(t, srv.Now().IsZero())
}
