// Package voiceagentmock runs the voiceagent mock server in a container
// for tests, with Testcontainers for Go: the image, started and waited
// for until it is healthy, its API base URL, its admin API with a token
// of the test's own, new accounts with SDK clients pointed at the
// container, and helpers for the admin API (the tenant clock, faults,
// any other admin request).
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
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
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

// Container is a running mock server.
type Container struct {
	*testcontainers.DockerContainer

	baseURL  string
	adminURL string
	token    string
	http     *http.Client
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
		c = &Container{DockerContainer: ctr, token: token, http: &http.Client{Timeout: 30 * time.Second}}
	}
	if err != nil {
		return c, fmt.Errorf("voiceagentmock: run: %w", err)
	}
	endpoint, err := ctr.PortEndpoint(ctx, Port, "http")
	if err != nil {
		return c, fmt.Errorf("voiceagentmock: port: %w", err)
	}
	c.baseURL, c.adminURL = endpoint+"/api", endpoint+"/_mock"
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

// Client returns an SDK client with key against the container, without
// client-side rate limiting (the server enforces the limits), and opts.
func (c *Container) Client(key string, opts ...voiceagent.Option) *client.Client {
	base := []voiceagent.Option{voiceagent.WithBaseURL(c.baseURL), voiceagent.WithRateLimiting(false)}
	return client.New(key, append(base, opts...)...)
}

// AdminError is an answer of the admin API other than 2xx.
type AdminError struct {
	// Method and Path are the request's.
	Method, Path string
	// StatusCode is the response's HTTP status.
	StatusCode int
	// Body is the response's body (the API's error JSON).
	Body string
}

// Error returns the request, the status and the body.
func (e *AdminError) Error() string {
	return fmt.Sprintf("voiceagentmock: %s %s: %d %s", e.Method, e.Path, e.StatusCode, strings.TrimSpace(e.Body))
}

// Admin sends one request to the admin API with the admin token: method,
// a path under /_mock (such as "/requests?method=POST"), body encoded as
// JSON unless nil, and the JSON answer decoded into out unless nil. An
// answer other than 2xx is an *AdminError.
func (c *Container) Admin(ctx context.Context, method, path string, body, out any) error {
	var r io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		r = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.adminURL+path, r)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+c.token)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("voiceagentmock: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("voiceagentmock: %s %s: %w", method, path, err)
	}
	if resp.StatusCode/100 != 2 {
		return &AdminError{Method: method, Path: path, StatusCode: resp.StatusCode, Body: string(raw)}
	}
	if out != nil && len(raw) > 0 {
		if err := json.Unmarshal(raw, out); err != nil {
			return fmt.Errorf("voiceagentmock: %s %s: decoding the answer: %w", method, path, err)
		}
	}
	return nil
}

// AccountOptions describe a new account (POST /_mock/accounts); empty
// fields take the server's defaults (a generated name and email, every
// scope).
type AccountOptions struct {
	// BusinessName names the account's business.
	BusinessName string `json:"business_name,omitempty"`
	// Email is the account's user's address.
	Email string `json:"email,omitempty"`
	// Scopes are the API key's scopes.
	Scopes []string `json:"scopes,omitempty"`
}

// Account is a tenant of the server with its own clock and faults: a
// business, its intake agent, a phone number, an API key and a dashboard
// session.
type Account struct {
	// APIKey is the account's key (voiceagent_live_...).
	APIKey string `json:"api_key"`
	// BusinessID is the account's business, which names its tenant.
	BusinessID string `json:"business_id"`
	// AgentID is the business's intake agent.
	AgentID string `json:"agent_id"`
	// PhoneNumber is the business's number.
	PhoneNumber string `json:"phone_number"`
	// UserID is the account's user.
	UserID string `json:"user_id"`
	// Session is a dashboard session (the voiceagent_session cookie).
	Session string `json:"session"`

	c *Container
}

// NewAccount creates an account on the server (POST /_mock/accounts):
// its own tenant, clock and faults, so tests in parallel on one container
// never see each other.
func (c *Container) NewAccount(ctx context.Context, opts AccountOptions) (*Account, error) {
	a := &Account{c: c}
	if err := c.Admin(ctx, http.MethodPost, "/accounts", opts, a); err != nil {
		return nil, err
	}
	if a.APIKey == "" || a.BusinessID == "" {
		return nil, errors.New("voiceagentmock: POST /_mock/accounts answered no api_key or business_id")
	}
	return a, nil
}

// DemoAccount returns the demo account the server seeds unless started
// with WithSeed("none"), read from the lines the server printed at start.
func (c *Container) DemoAccount(ctx context.Context) (*Account, error) {
	logs, err := c.Logs(ctx)
	if err != nil {
		return nil, fmt.Errorf("voiceagentmock: logs: %w", err)
	}
	defer logs.Close()
	raw, err := io.ReadAll(logs)
	if err != nil {
		return nil, fmt.Errorf("voiceagentmock: logs: %w", err)
	}
	a := &Account{c: c}
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
	return a, nil
}

// Client returns an SDK client with the account's key, pointed at the
// container, without client-side rate limiting, and opts.
func (a *Account) Client(opts ...voiceagent.Option) *client.Client {
	return a.c.Client(a.APIKey, opts...)
}

// clockAnswer is the admin API's answer about a clock.
type clockAnswer struct {
	Now time.Time `json:"now"`
}

// Advance moves the clock of the tenant of businessID forward by d ("":
// every tenant and the base time), running what falls due on the way
// (calls, texts, webhook deliveries and their retries, runs), and returns
// the tenant's new time.
func (c *Container) Advance(ctx context.Context, businessID string, d time.Duration) (time.Time, error) {
	body := map[string]any{"seconds": d.Seconds()}
	if businessID != "" {
		body["business_id"] = businessID
	}
	var got clockAnswer
	err := c.Admin(ctx, http.MethodPost, "/clock/advance", body, &got)
	return got.Now, err
}

// Advance moves the account's tenant's clock forward by d and returns its
// new time; other tenants' clocks do not move.
func (a *Account) Advance(ctx context.Context, d time.Duration) (time.Time, error) {
	return a.c.Advance(ctx, a.BusinessID, d)
}

// Now returns the account's tenant's simulated time.
func (a *Account) Now(ctx context.Context) (time.Time, error) {
	var got clockAnswer
	err := a.c.Admin(ctx, http.MethodGet, "/clock?business_id="+a.BusinessID, nil, &got)
	return got.Now, err
}

// Fault is a fault injection rule (POST /_mock/faults): requests that
// match Method and Path (exact, or a prefix when it ends with *) fail as
// it says. The mockserver package's FaultRule documents every field.
type Fault struct {
	// ID names the rule; the server makes one when empty.
	ID string `json:"id,omitempty"`
	// BusinessID limits the rule to one tenant's requests.
	BusinessID string `json:"business_id,omitempty"`
	// Method is the request method to match ("": any).
	Method string `json:"method,omitempty"`
	// Path is the API path to match, such as /v1/calls.
	Path string `json:"path,omitempty"`
	// Target is what fails: request (the default, the HTTP exchange),
	// voice_provider, storage, sms_provider or dependency.
	Target string `json:"target,omitempty"`
	// Status is the error status to answer (400 to 599).
	Status int `json:"status,omitempty"`
	// Code and Message are the error's code and message.
	Code    string `json:"code,omitempty"`
	Message string `json:"message,omitempty"`
	// LatencyMS delays the answer.
	LatencyMS int `json:"latency_ms,omitempty"`
	// Drop closes the connection without an answer.
	Drop bool `json:"drop,omitempty"`
	// After, with Drop, lets the request's work happen before the answer
	// is lost.
	After bool `json:"after,omitempty"`
	// Truncate cuts the answer short.
	Truncate bool `json:"truncate,omitempty"`
	// Probability fires the rule on this share of matching requests (0:
	// always).
	Probability float64 `json:"probability,omitempty"`
	// Times fires the rule this many times, then removes it (0: no bound).
	Times int `json:"times,omitempty"`
	// RetryAfter sets the Retry-After header, in seconds.
	RetryAfter int `json:"retry_after,omitempty"`
}

// AddFault installs a fault rule and returns it as the server stored it,
// with its id.
func (c *Container) AddFault(ctx context.Context, f Fault) (Fault, error) {
	var got Fault
	err := c.Admin(ctx, http.MethodPost, "/faults", f, &got)
	return got, err
}

// RemoveFault removes the fault rule with id.
func (c *Container) RemoveFault(ctx context.Context, id string) error {
	return c.Admin(ctx, http.MethodDelete, "/faults?id="+id, nil, nil)
}

// AddFault installs a fault rule that fires only on the account's
// tenant's requests.
func (a *Account) AddFault(ctx context.Context, f Fault) (Fault, error) {
	f.BusinessID = a.BusinessID
	return a.c.AddFault(ctx, f)
}
