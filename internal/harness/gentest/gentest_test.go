package gentest

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/internal/harness/conformance"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/leads"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// seededLeads is how many leads the scenario pages through, three per page.
const seededLeads = 7

// signupEmail is the address the oapi-codegen scenario signs up with.
const signupEmail = "generated-signup@clients.example"

// callTo is the number the scenario calls: it answers, and the call completes after a
// simulated duration of 30 to 300 seconds.
const callTo = "+15551230001"

// exchange is one request of a generated client and the mock's answer, as the proxy saw it.
type exchange struct {
	Method, Path, Query string
	Status              int
	ContentType         string
	Body                []byte
}

// scenario is a mock server with one account, seeded leads, the served document and a
// checking proxy in front of the API.
type scenario struct {
	srv  *mockserver.TestServer
	acct *mockserver.Account
	// sdk is a client of the account through the Go SDK, to compare with.
	sdk *client.Client
	// doc is the document as GET /api/openapi.yaml serves it.
	doc []byte
	// baseURL is the proxy's API base URL (ending with /api).
	baseURL string
	// leads is every lead of the account, newest first, as the SDK lists them.
	leads []string

	mu        sync.Mutex
	exchanges []exchange
}

// newScenario starts a mock server, provisions an account, seeds its leads, reads the served
// document over HTTP and starts the proxy the generated clients talk to.
func newScenario(t *testing.T) *scenario {
	t.Helper()
	srv := mockserver.Start(t)
	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Generated Clients Plumbing"})
	require.NoError(t, err)
	fixtures := make([]mockserver.LeadFixture, seededLeads)
	for i := range fixtures {
		fixtures[i] = mockserver.LeadFixture{Name: "Lead " + string(rune('A'+i)), Phone: "+1555987000" + string(rune('0'+i))}
	}
	seeded, err := srv.SeedLeads(acct.BusinessID, fixtures)
	require.NoError(t, err)

	s := &scenario{srv: srv, acct: acct, sdk: testenv.With(t, srv, acct).Client}
	resp, err := http.Get(srv.URL + "/openapi.yaml")
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	s.doc, err = io.ReadAll(resp.Body)
	require.NoError(t, err)

	ctx := context.Background()
	for l, err := range s.sdk.Leads.All(ctx, &leads.ListParams{Limit: 100}) {
		require.NoError(t, err)
		s.leads = append(s.leads, l.ID)
	}
	for i, id := range seeded {
		assert.Equal(t, id, s.leads[len(seeded)-1-i], "the seeded leads are listed newest first")
	}

	target, err := url.Parse(srv.HTTP.URL)
	require.NoError(t, err)
	proxy := &httputil.ReverseProxy{
		Rewrite:   func(r *httputil.ProxyRequest) { r.SetURL(target) },
		Transport: conformance.Transport(t, recorder{s: s, next: http.DefaultTransport}),
	}
	ps := httptest.NewServer(proxy)
	t.Cleanup(ps.Close)
	s.baseURL = ps.URL + "/api"
	return s
}

// recorder keeps every exchange that goes through the proxy.
type recorder struct {
	s    *scenario
	next http.RoundTripper
}

func (r recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	r.s.mu.Lock()
	r.s.exchanges = append(r.s.exchanges, exchange{
		Method: req.Method, Path: req.URL.Path, Query: req.URL.RawQuery,
		Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: body,
	})
	r.s.mu.Unlock()
	return resp, nil
}

// recorded returns the exchanges so far.
func (s *scenario) recorded() []exchange {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]exchange(nil), s.exchanges...)
}

// env is the scenario programs' environment: this process's plus where to find the mock.
func (s *scenario) env() []string {
	return append(os.Environ(),
		"VOICEAGENT_BASE_URL="+s.baseURL,
		"VOICEAGENT_API_KEY="+s.acct.APIKey,
		"VOICEAGENT_MOCK_ADMIN_URL="+s.srv.AdminURL,
		"VOICEAGENT_BUSINESS_ID="+s.acct.BusinessID,
		"VOICEAGENT_CALL_TO="+callTo,
		"VOICEAGENT_SIGNUP_EMAIL="+signupEmail,
	)
}

// result is what a scenario program prints.
type result struct {
	Agents            []string `json:"agents"`
	CallID            string   `json:"call_id"`
	CreatedStatus     string   `json:"created_status"`
	CallStatus        string   `json:"call_status"`
	CallDuration      int      `json:"call_duration"`
	Transcript        string   `json:"transcript"`
	Leads             []string `json:"leads"`
	LeadPages         int      `json:"lead_pages"`
	NotFoundCode      string   `json:"not_found_code"`
	NotFoundRequestID string   `json:"not_found_request_id"`
	// The oapi-codegen scenario also sends the two union request bodies.
	RunValid        bool   `json:"run_valid"`
	RunTouches      int    `json:"run_touches"`
	SignupChallenge string `json:"signup_challenge"`
	SignupBusiness  string `json:"signup_business_id"`
}

// checkResult asserts that a scenario program saw what the mock holds.
func (s *scenario) checkResult(t *testing.T, out []byte) {
	t.Helper()
	var r result
	require.NoError(t, json.Unmarshal(out, &r), "the scenario printed: %s", out)
	assert.Contains(t, r.Agents, s.acct.AgentID, "list agents")
	assert.Equal(t, "queued", r.CreatedStatus, "create a call")
	require.NotEmpty(t, r.CallID)

	call, err := s.sdk.Calls.Get(context.Background(), r.CallID)
	require.NoError(t, err, "the call the scenario created exists")
	assert.GreaterOrEqual(t, s.acct.Now().Sub(s.srv.Now()), 900*time.Second,
		"the scenario advanced its account's clock (its tenant), not the base time")
	assert.Equal(t, "completed", r.CallStatus, "the clock moved past the call's end")
	assert.EqualValues(t, call.Status, r.CallStatus)
	assert.GreaterOrEqual(t, r.CallDuration, 30)
	assert.LessOrEqual(t, r.CallDuration, 300)
	assert.NotEmpty(t, r.Transcript)

	assert.Equal(t, s.leads, r.Leads, "paging with the created_at cursor sees every lead once, newest first")
	assert.Equal(t, (len(s.leads)+2)/3, r.LeadPages, "three leads a page")

	assert.Equal(t, "not_found", r.NotFoundCode, "an error answer decodes into the error format")
	assert.NotEmpty(t, r.NotFoundRequestID)

	var ops []string
	for _, e := range s.recorded() {
		ops = append(ops, e.Method+" "+strings.TrimPrefix(e.Path, "/api"))
	}
	for _, op := range []string{"GET /v1/agents", "POST /v1/calls", "GET /v1/calls", "GET /v1/leads"} {
		assert.Contains(t, ops, op, "the generated client's traffic went through the checking proxy")
	}
}

// checkUnionBodies asserts that a scenario sent real bodies for the two operations whose request
// body is a union (signup, communication-runs/validate), not the {} a union type without its
// variants encodes as: the run validated, and the signup made a tenant from the sent address.
func (s *scenario) checkUnionBodies(t *testing.T, out []byte) {
	t.Helper()
	var r result
	require.NoError(t, json.Unmarshal(out, &r), "the scenario printed: %s", out)
	assert.True(t, r.RunValid, "the run body was sent and is valid")
	assert.Equal(t, 1, r.RunTouches)
	assert.NotEmpty(t, r.SignupChallenge)
	var emails []string
	for _, tn := range s.srv.Tenants() {
		if tn.BusinessID == r.SignupBusiness {
			emails = append(emails, tn.Email)
		}
	}
	assert.Equal(t, []string{signupEmail}, emails, "the signup made the tenant of the address it sent")
	for _, path := range []string{"/v1/signup", "/v1/communication-runs/validate"} {
		sent := s.srv.Requests(mockserver.RequestFilter{Method: http.MethodPost, Path: path}.Match)
		require.NotEmpty(t, sent, path)
		for _, e := range sent {
			assert.NotEqual(t, "{}", e.Request.Body, "%s: a real body", path)
		}
	}
}

// run runs a command in dir and returns its standard output; a failure stops the test with
// both outputs.
func run(t *testing.T, dir string, env []string, name string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	t.Logf("%s %s: %s", filepath.Base(name), strings.Join(args, " "), time.Since(start).Round(10*time.Millisecond))
	if err != nil {
		t.Fatalf("%s %s in %s: %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), dir, err, stdout.Bytes(), stderr.Bytes())
	}
	return stdout.Bytes()
}

// copyDir copies the files of testdata/<name> into a new temporary directory and returns it.
func copyDir(t *testing.T, name string) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join("testdata", name)
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	require.NoError(t, err)
	return dst
}

// generatorTest skips a generator test under -short: generating, installing and compiling
// clients takes minutes, and the full suite (go test ./...) runs them.
func generatorTest(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the code generator tests run in the full suite (go test ./...)")
	}
}

// missingTool stops a test that needs a tool the machine lacks: it skips, with why, on a
// developer's machine, and fails under CI=true, where .ci/run installs every tool the tests
// need, so that a missing install step cannot pass unnoticed.
func missingTool(t *testing.T, why string) {
	t.Helper()
	if ci, _ := strconv.ParseBool(os.Getenv("CI")); ci {
		t.Fatal("CI=true, and a tool is missing (.ci/run should have installed it): " + why)
	}
	t.Skip(why)
}
