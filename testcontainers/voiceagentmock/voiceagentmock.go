// Package voiceagentmock runs the voiceagent mock server in a container
// for tests, with Testcontainers for Go: the image, started and waited
// for until it is healthy, with an admin token of the test's own, and the
// server as a *mockserver.Server reached with mockserver.Connect. Its
// accounts are *mockserver.Account values: every Go helper a server in the
// test's process has (NewAccount, Script, VerifyScript, Advance, Copy,
// Snapshot, Restore, Requests, Deliveries, WaitDeliveries, Schedule,
// AddFault, InboundCall, InboundSMS, Client with fast retries, ...), the
// same API in process and in the container.
//
// It lives in a Go module of its own, so that the SDK's module does not
// depend on container libraries:
//
//	go get github.com/voiceagent/voiceagent-go/testcontainers
//
// The image is VOICEAGENT_MOCK_IMAGE when set (such as voiceagent-mock:dev,
// built by make image in the SDK's repository), else the released image of
// this module's version (ghcr.io/voiceagent/voiceagent-mock:v1.2.3), or
// :latest where the build records no released version.
package voiceagentmock

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
)

// ImageRepository is where the released images are.
const ImageRepository = "ghcr.io/voiceagent/voiceagent-mock"

// ImageEnv names the environment variable that chooses the image Run
// starts.
const ImageEnv = "VOICEAGENT_MOCK_IMAGE"

// Port is the port the server listens on inside the container.
const Port = "8080/tcp"

// modulePath is this module's path, under which a build records its
// version.
const modulePath = "github.com/voiceagent/voiceagent-go/testcontainers"

// DefaultImage returns the image Run starts: VOICEAGENT_MOCK_IMAGE when
// set, else ImageRepository tagged with this module's version (latest
// when the build records no released version).
func DefaultImage() string {
	if img := strings.TrimSpace(os.Getenv(ImageEnv)); img != "" {
		return img
	}
	return ImageRepository + ":" + imageTag()
}

// imageTag is the tag of the released image of this module's version.
func imageTag() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "latest"
	}
	for _, m := range append([]*debug.Module{&bi.Main}, bi.Deps...) {
		if m.Path != modulePath {
			continue
		}
		v := m.Version
		// A released version is vX.Y.Z without a pre-release part that a
		// pseudo-version carries (vX.Y.Z-0.yyyymmddhhmmss-abcdef).
		if v != "" && v != "(devel)" && !strings.Contains(v, "-0.") && !strings.Contains(v, "+") &&
			!strings.HasPrefix(v, "v0.0.0-") {
			return v
		}
	}
	return "latest"
}

// Container is a running mock server: the container, and the server in it
// as mockserver.Connect returns it, whose helpers (NewAccount, Advance,
// AddFault, Requests, Deliveries, ...) it promotes.
type Container struct {
	*testcontainers.DockerContainer
	*mockserver.Server

	baseURL  string
	adminURL string
	token    string
}

// adminTokenOption sets the admin token; Run reads it to authenticate.
type adminTokenOption string

// Customize sets the server's admin token variable.
func (o adminTokenOption) Customize(req *testcontainers.GenericContainerRequest) error {
	return testcontainers.WithEnv(map[string]string{"VOICEAGENT_MOCK_ADMIN_TOKEN": string(o)})(req)
}

// WithAdminToken makes the server require token on its admin API; without
// it Run generates a random one. Container.AdminToken returns it.
func WithAdminToken(token string) testcontainers.ContainerCustomizer {
	return adminTokenOption(token)
}

// WithExternalWebhooks lets the server deliver webhooks to hosts outside
// the container's loopback, over http too (-allow-external-webhooks): a
// receiver on the host (host.containers.internal with podman,
// host.docker.internal with docker) or in another container.
func WithExternalWebhooks() testcontainers.CustomizeRequestOption {
	return testcontainers.WithEnv(map[string]string{"VOICEAGENT_MOCK_ALLOW_EXTERNAL_WEBHOOKS": "true"})
}

// WithSeed chooses the initial data: "demo" (the default, an account with
// every scope; see Container.DemoAccount) or "none".
func WithSeed(seed string) testcontainers.CustomizeRequestOption {
	return testcontainers.WithEnv(map[string]string{"VOICEAGENT_MOCK_SEED": seed})
}

// WithStartTime pins the simulated start (-start), for runs that repeat
// exactly.
func WithStartTime(t time.Time) testcontainers.CustomizeRequestOption {
	return testcontainers.WithEnv(map[string]string{"VOICEAGENT_MOCK_START": t.UTC().Format(time.RFC3339)})
}

// Run starts the mock server's image (DefaultImage unless
// testcontainers.WithImage says otherwise), with an admin token (its own
// unless WithAdminToken gives one), and waits until GET /_mock/health
// answers 200. opts are any Testcontainers customizers: WithEnv sets the
// server's VOICEAGENT_MOCK_* variables (every flag has one). The caller
// terminates the container (testcontainers.CleanupContainer in a test),
// also when Run returns an error with a container that started but never
// became healthy.
func Run(ctx context.Context, opts ...testcontainers.ContainerCustomizer) (*Container, error) {
	token := ""
	for _, o := range opts {
		if t, ok := o.(adminTokenOption); ok {
			token = string(t)
		}
	}
	if token == "" {
		var b [18]byte
		if _, err := rand.Read(b[:]); err != nil {
			return nil, err
		}
		token = base64.RawURLEncoding.EncodeToString(b[:])
		opts = append([]testcontainers.ContainerCustomizer{adminTokenOption(token)}, opts...)
	}
	all := append([]testcontainers.ContainerCustomizer{
		testcontainers.WithExposedPorts(Port),
		testcontainers.WithWaitStrategy(
			wait.ForHTTP("/_mock/health").
				WithPort(Port).
				WithHeaders(map[string]string{"Authorization": "Bearer " + token}).
				WithStartupTimeout(60 * time.Second)),
	}, opts...)
	ctr, err := testcontainers.Run(ctx, DefaultImage(), all...)
	var c *Container
	if ctr != nil {
		c = &Container{DockerContainer: ctr, token: token}
	}
	if err != nil {
		return c, fmt.Errorf("voiceagentmock: run: %w", err)
	}
	endpoint, err := ctr.PortEndpoint(ctx, Port, "http")
	if err != nil {
		return c, fmt.Errorf("voiceagentmock: port: %w", err)
	}
	c.baseURL, c.adminURL = endpoint+"/api", endpoint+"/_mock"
	if c.Server, err = mockserver.Connect(endpoint, token); err != nil {
		return c, fmt.Errorf("voiceagentmock: %w", err)
	}
	return c, nil
}

// BaseURL returns the API's base URL as the host reaches it (ending with
// /api), for voiceagent.WithBaseURL.
func (c *Container) BaseURL() string { return c.baseURL }

// AdminURL returns the root of the admin API as the host reaches it
// (ending with /_mock).
func (c *Container) AdminURL() string { return c.adminURL }

// AdminToken returns the token the admin API requires, sent as
// Authorization: Bearer <token>.
func (c *Container) AdminToken() string { return c.token }

// DemoAccount returns the demo account the server seeds unless started
// with WithSeed("none"), read from the lines the server printed at start.
func (c *Container) DemoAccount(ctx context.Context) (*mockserver.Account, error) {
	logs, err := c.Logs(ctx)
	if err != nil {
		return nil, fmt.Errorf("voiceagentmock: logs: %w", err)
	}
	defer logs.Close()
	raw, err := io.ReadAll(logs)
	if err != nil {
		return nil, fmt.Errorf("voiceagentmock: logs: %w", err)
	}
	var a admin.Account
	for _, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if k, ok := strings.CutPrefix(line, "export VOICEAGENT_API_KEY="); ok {
			a.APIKey = k
		}
		if rest, ok := strings.CutPrefix(line, "demo business: "); ok {
			// demo business: <id>, agent: <id>, number: <number> (kept by ...)
			fmt.Sscanf(strings.NewReplacer(",", " ", "agent:", "", "number:", "").Replace(rest), "%s %s %s", &a.BusinessID, &a.AgentID, &a.PhoneNumber)
		}
	}
	if a.APIKey == "" || a.BusinessID == "" {
		return nil, errors.New("voiceagentmock: the server printed no demo account (started with WithSeed(\"none\")?)")
	}
	return c.AccountOf(a), nil
}
