package conformance_test

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi/datamodel"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/internal/harness/conformance"
)

// recorder is a testing.TB that keeps what Errorf reports.
type recorder struct {
	testing.TB
	mu   sync.Mutex
	errs []string
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) { panic(fmt.Sprintf(format, args...)) }

// canned answers every request with one status, body and X-Request-Id (unless noID).
type canned struct {
	status int
	body   string
	noID   bool
	header http.Header
}

func (c canned) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
	}
	h := http.Header{"Content-Type": {"application/json"}}
	if !c.noID {
		h.Set("X-Request-Id", "req-1")
	}
	for k, v := range c.header {
		h[k] = v
	}
	return &http.Response{StatusCode: c.status, Header: h, Body: io.NopCloser(strings.NewReader(c.body)), Request: req}, nil
}

const (
	key      = "Bearer voiceagent_live_0123456789abcdefghijABCDEFGHIJ0123456789"
	base     = "http://127.0.0.1:1/api"
	agentID  = "3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
	created  = `{"id":"` + agentID + `","name":"x","business_id":"` + agentID + `","vendor_assistant_id":"asst_1","created_at":"2026-06-05T10:00:00Z"}`
	errBody  = `{"error":{"code":"invalid_request","message":"bad","details":[{"path":"/name","message":"too short"}]}}`
	goodBody = `{"business_id":"` + agentID + `","name":"Desk","system_prompt":"Be kind."}`
)

func exchange(t *testing.T, rt http.RoundTripper, method, path, body string, withKey bool) []string {
	t.Helper()
	rec := &recorder{}
	c := &http.Client{Transport: conformance.Transport(rec, rt)}
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, base+path, r)
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if withKey {
		req.Header.Set("Authorization", key)
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	got, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	if rt, ok := rt.(canned); ok {
		assert.Equal(t, rt.body, string(got), "the answer's body is handed on unchanged")
	}
	return rec.errs
}

func TestConformingExchangesPass(t *testing.T) {
	t.Parallel()
	assert.Empty(t, exchange(t, canned{status: 201, body: created}, "POST", "/v1/agents", goodBody, true))
	assert.Empty(t, exchange(t, canned{status: 200, body: `{"agents":[]}`}, "GET", "/v1/agents", "", true))
	assert.Empty(t, exchange(t, canned{status: 200, body: `{"numbers":[]}`}, "GET", "/v1/numbers?business_id="+agentID, "", true))
	usage := canned{status: 200, body: `{"usage":[],"has_more":false}`}
	assert.Empty(t, exchange(t, usage, "GET", "/v1/usage?start=2026-06-01&end=2026-06-05T10:00:00Z", "", true))
}

// agentDetail is an agent's detail with extra JSON members appended (none when extra is empty).
func agentDetail(extra string) string {
	body := `{"id":"` + agentID + `","name":"Desk","business_id":"` + agentID + `","vendor_assistant_id":"asst_1",` +
		`"phone_number":null,"status":"active","created_at":"2026-06-05T10:00:00Z","prompts":{"inbound":{"prompt":"p","llm":` +
		`{"provider":"openai","model":"m","temperature":0.7}},"outbound":{"prompt":null,"llm":"m","first_message":null},` +
		`"sms":{"prompt":null,"llm":{"model":"m"}}},"voice":{"provider":"11labs","voiceId":"sarah"},"voice_catalog_id":null,` +
		`"model":{"provider":"openai","model":"m","temperature":0.7},"first_message":"Hi","metadata":{"a":{"b":[1,{"c":2}]}},` +
		`"max_duration":600,"vendor_config":null,"transfer_enabled":false,"transfer_phone_number":null,"lead_collection":true,` +
		`"updated_at":"2026-06-05T10:00:00Z"`
	if extra != "" {
		body += "," + extra
	}
	return body + "}"
}

// TestFreeFormMembersPass checks that strict mode reports nothing inside a free-form object
// (metadata, at any depth).
func TestFreeFormMembersPass(t *testing.T) {
	t.Parallel()
	assert.Empty(t, exchange(t, canned{status: 200, body: agentDetail("")}, "GET", "/v1/agents?id="+agentID, "", true))
}

func TestBadInputAnsweredWith4xxPasses(t *testing.T) {
	t.Parallel()
	// The body fails agentCreate (name empty): a test probing bad input, rightly refused.
	bad := `{"business_id":"` + agentID + `","name":"","system_prompt":"x"}`
	assert.Empty(t, exchange(t, canned{status: 400, body: errBody}, "POST", "/v1/agents", bad, true))
	// No key at all, rightly refused.
	assert.Empty(t, exchange(t, canned{status: 401, body: `{"error":{"code":"unauthorized","message":"no key"}}`}, "GET", "/v1/agents", "", false))
	// An unknown path answered 404, a wrong method 405.
	assert.Empty(t, exchange(t, canned{status: 404, body: `{"error":{"code":"not_found","message":"no"}}`}, "GET", "/v1/nope", "", true))
	assert.Empty(t, exchange(t, canned{status: 405, body: `{"error":{"code":"method_not_allowed","message":"no"}}`}, "DELETE", "/v1/agents", "", true))
}

func TestViolationsAreReported(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, method, path, body string
		rt                       canned
		want                     string
	}{
		{"body of the wrong shape", "GET", "/v1/agents", "", canned{status: 200, body: `{"agents":"none"}`}, "response does not conform"},
		{"required field missing", "POST", "/v1/agents", goodBody, canned{status: 201, body: `{"id":"` + agentID + `"}`}, "response does not conform"},
		{"undocumented status", "POST", "/v1/agents", goodBody, canned{status: 202, body: created}, "response does not conform"},
		{"error without the error format", "GET", "/v1/agents", "", canned{status: 500, body: `{"message":"boom"}`}, "response does not conform"},
		{"no X-Request-Id", "GET", "/v1/agents", "", canned{status: 200, body: `{"agents":[]}`, noID: true}, "X-Request-Id"},
		{"bad body accepted", "POST", "/v1/agents", `{"business_id":"` + agentID + `","name":"x","system_prompt":"y","extra":1}`, canned{status: 201, body: created}, "request does not conform"},
		{"bad query accepted", "GET", "/v1/agents?id=not-a-uuid", "", canned{status: 200, body: `{"agents":[]}`}, "request does not conform"},
		{"bad date accepted", "GET", "/v1/usage?start=yesterday", "", canned{status: 200, body: `{"usage":[],"has_more":false}`}, "request does not conform"},
		{"undocumented operation served", "GET", "/v1/nope", "", canned{status: 200, body: `{}`}, "no such operation"},
		{"undocumented method served", "PUT", "/v1/agents", goodBody, canned{status: 200, body: `{}`}, "no such operation"},
		{"429 without Retry-After", "GET", "/v1/agents", "", canned{status: 429, body: `{"error":{"code":"rate_limited","message":"slow"}}`}, "Retry-After"},
		{"undeclared member", "GET", "/v1/agents", "", canned{status: 200, body: `{"agents":[],"total":0}`}, "'total'"},
		{"undeclared member of a oneOf variant", "GET", "/v1/agents?id=" + agentID, "", canned{status: 200, body: agentDetail(`"secret":"x"`)}, "'secret'"},
		{"undeclared error member", "GET", "/v1/agents", "", canned{status: 404, body: `{"error":{"code":"not_found","message":"no","hint":"x"}}`}, "'hint'"},
		{"undeclared query parameter", "GET", "/v1/agents?verbose=1", "", canned{status: 200, body: `{"agents":[]}`}, "'verbose'"},
		{"undeclared answer header", "GET", "/v1/agents", "", canned{status: 200, body: `{"agents":[]}`, header: http.Header{"X-Debug": {"1"}}}, "X-Debug"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			errs := exchange(t, tc.rt, tc.method, tc.path, tc.body, true)
			require.NotEmpty(t, errs)
			assert.Contains(t, strings.Join(errs, "\n"), tc.want)
		})
	}
}

// TestDocumentIsValidOpenAPI31 validates the served document, and the checker's equivalent
// strict-mode form of it, against the OpenAPI 3.1 specification with the validator library: no
// error, no warning.
func TestDocumentIsValidOpenAPI31(t *testing.T) {
	t.Parallel()
	c, err := conformance.New()
	require.NoError(t, err)
	assert.Empty(t, c.ValidateDocument())

	doc, err := conformance.Document()
	require.NoError(t, err)
	_, err = doc.BuildV3Model()
	require.NoError(t, err, "building the model")
	assertValidOpenAPI(t, doc)
}

// assertValidOpenAPI validates a document against the OpenAPI specification.
func assertValidOpenAPI(t *testing.T, doc libopenapi.Document) {
	t.Helper()
	v, errs := validator.NewValidator(doc)
	require.Empty(t, errs)
	ok, verrs := v.ValidateDocument()
	for _, e := range verrs {
		t.Error(e)
	}
	assert.True(t, ok)
}

// fileDocument parses a document of openapi/ from the file system, its relative references to
// schema files resolved from there (what a tool given the file does).
func fileDocument(t *testing.T, name string) libopenapi.Document {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "openapi"))
	require.NoError(t, err)
	src, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	doc, err := libopenapi.NewDocumentWithConfiguration(src, &datamodel.DocumentConfiguration{
		BasePath: dir, SpecFilePath: name, AllowFileReferences: true,
	})
	require.NoError(t, err)
	return doc
}

// adminDocument parses openapi/admin.yaml with its references to openapi/adminschemas resolved
// from the file system. The admin schemas reference the API's shared definitions as common.json,
// which their $id (https://api.voiceagent.example/schemas/) resolves to openapi/schemas/common.json,
// as the mock does; on the file system the tool finds it beside them, so the test lays the files
// out that way in a temporary directory.
func adminDocument(t *testing.T) libopenapi.Document {
	t.Helper()
	root := t.TempDir()
	copyFile := func(from, to string) {
		b, err := os.ReadFile(from)
		require.NoError(t, err)
		require.NoError(t, os.MkdirAll(filepath.Dir(to), 0o755))
		require.NoError(t, os.WriteFile(to, b, 0o644))
	}
	repo := filepath.Join("..", "..", "..")
	copyFile(filepath.Join(repo, "openapi", "admin.yaml"), filepath.Join(root, "openapi", "admin.yaml"))
	entries, err := os.ReadDir(filepath.Join(repo, "openapi", "adminschemas"))
	require.NoError(t, err)
	for _, e := range entries {
		copyFile(filepath.Join(repo, "openapi", "adminschemas", e.Name()), filepath.Join(root, "openapi", "adminschemas", e.Name()))
	}
	copyFile(filepath.Join(repo, "openapi", "schemas", "common.json"), filepath.Join(root, "openapi", "adminschemas", "common.json"))
	dir := filepath.Join(root, "openapi")
	src, err := os.ReadFile(filepath.Join(dir, "admin.yaml"))
	require.NoError(t, err)
	doc, err := libopenapi.NewDocumentWithConfiguration(src, &datamodel.DocumentConfiguration{
		BasePath: dir, SpecFilePath: "admin.yaml", AllowFileReferences: true,
	})
	require.NoError(t, err)
	return doc
}

// TestSourceDocumentResolvesFileReferences reads openapi.yaml as it sits in the repository, with
// its references to schemas/*.json resolved from the file system (what a tool given the file
// does), and checks it builds the same operations as the bundled document.
func TestSourceDocumentResolvesFileReferences(t *testing.T) {
	t.Parallel()
	doc := fileDocument(t, "openapi.yaml")
	model, err := doc.BuildV3Model()
	require.NoError(t, err)

	bdoc, err := conformance.Document()
	require.NoError(t, err)
	bmodel, err := bdoc.BuildV3Model()
	require.NoError(t, err)

	ops := func(m *v3.Document) []string {
		var out []string
		for path, item := range m.Paths.PathItems.FromOldest() {
			for method := range item.GetOperations().FromOldest() {
				out = append(out, method+" "+path)
			}
		}
		return out
	}
	assert.Equal(t, ops(&bmodel.Model), ops(&model.Model))
	assert.Len(t, ops(&model.Model), 70)

	// A body schema resolved from its file is the bundled one: same properties.
	body := func(m *v3.Document) []string {
		op := m.Paths.PathItems.GetOrZero("/v1/calls").Post
		sch := op.RequestBody.Content.GetOrZero("application/json").Schema.Schema()
		var names []string
		for name := range sch.Properties.KeysFromOldest() {
			names = append(names, name)
		}
		return names
	}
	assert.Equal(t, body(&bmodel.Model), body(&model.Model))
	assert.Contains(t, body(&model.Model), "webhook_url")
}

// TestDocumentConventions checks what every operation of the document must have: a unique
// operationId, a summary and a description (Spectral's oas ruleset asks for both), a default
// response, X-Request-Id on every response, JSON bodies on every JSON answer, and the
// Idempotency-Key header on every POST; and that the document names a contact.
func TestDocumentConventions(t *testing.T) {
	t.Parallel()
	doc, err := conformance.Document()
	require.NoError(t, err)
	model, err := doc.BuildV3Model()
	require.NoError(t, err)
	if assert.NotNil(t, model.Model.Info.Contact, "info.contact") {
		assert.NotEmpty(t, model.Model.Info.Contact.URL, "info.contact.url")
	}
	ids := map[string]string{}
	for path, item := range model.Model.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			name := strings.ToUpper(method) + " " + path
			if assert.NotEmpty(t, op.OperationId, name) {
				assert.NotContains(t, ids, op.OperationId, "%s: operationId already used by %s", name, ids[op.OperationId])
				ids[op.OperationId] = name
			}
			assert.NotEmpty(t, op.Summary, name)
			assert.NotEmpty(t, strings.TrimSpace(op.Description), "%s: no description", name)
			require.NotNil(t, op.Responses, name)
			assert.NotNil(t, op.Responses.Default, "%s: no default response", name)
			for code, resp := range op.Responses.Codes.FromOldest() {
				h := resp.Headers.GetOrZero("X-Request-Id")
				if assert.NotNil(t, h, "%s %s: no X-Request-Id header", name, code) {
					assert.True(t, h.Required, "%s %s: X-Request-Id is always sent", name, code)
				}
				if path != "/openapi.yaml" {
					assert.NotNil(t, resp.Content.GetOrZero("application/json"), "%s %s: no JSON body", name, code)
				}
			}
			if method == "post" {
				found := false
				for _, p := range op.Parameters {
					found = found || (p.In == "header" && p.Name == "Idempotency-Key")
				}
				assert.True(t, found, "%s: every POST takes Idempotency-Key", name)
			}
		}
	}
	assert.Len(t, ids, 70, "operations in the document")
}

// TestSignupBodiesMatchExactlyOneShape checks that the three signup body schemas exclude each
// other, so the oneOf of POST /v1/signup accepts each valid body.
func TestSignupBodiesMatchExactlyOneShape(t *testing.T) {
	t.Parallel()
	ok201 := `{"status":"provisioned","activation_mode":"otp","api_key":"voiceagent_live_0123456789abcdefghijABCDEFGHIJ0123456789",` +
		`"api_key_id":"` + agentID + `","api_key_prefix":"voiceagent_live_0123","scopes":["calls:read"],"user_id":"` + agentID +
		`","business_id":"` + agentID + `","agent_id":"` + agentID + `","phone_number":"+15552000000",` +
		`"dashboard_url":"https://app.voiceagent.example/b/1","trial_ends_at":"2026-06-19T00:00:00Z",` +
		`"call_routing":{"mode":"agent","owner_phone":null},"replayed":false,"replay_token":"rpl_1",` +
		`"dashboard_magic_link":"http://127.0.0.1:1/api/auth/magic?token=t","password_setup_link":"http://127.0.0.1:1/api/auth/password-setup?token=t"}`
	ok200 := `{"status":"otp_sent","challenge_id":"c1","expires_in_seconds":600,"expires_at":"2026-06-05T10:10:00Z"}`
	request := `{"business_name":"Acme","email":"owner@acme.example"}`
	verify := `{"business_name":"Acme","email":"owner@acme.example","challenge_id":"c1","otp_code":"123456"}`
	payment := `{"business_name":"Acme","email":"owner@acme.example","activation_mode":"payment"}`
	assert.Empty(t, exchange(t, canned{status: 200, body: ok200}, "POST", "/v1/signup", request, false))
	assert.Empty(t, exchange(t, canned{status: 201, body: ok201}, "POST", "/v1/signup", verify, false))
	assert.Empty(t, exchange(t, canned{status: 201, body: ok201}, "POST", "/v1/signup", payment, false))
	mixed := `{"business_name":"Acme","email":"owner@acme.example","activation_mode":"payment","otp_code":"123456"}`
	assert.NotEmpty(t, exchange(t, canned{status: 201, body: ok201}, "POST", "/v1/signup", mixed, false))
}

// TestAdminDocumentIsValid reads openapi/admin.yaml with its references to the admin body
// schemas resolved from the file system and validates it as OpenAPI 3.1.
func TestAdminDocumentIsValid(t *testing.T) {
	t.Parallel()
	doc := adminDocument(t)
	assertValidOpenAPI(t, doc)
	model, err := doc.BuildV3Model()
	require.NoError(t, err)
	advance := model.Model.Paths.PathItems.GetOrZero("/_mock/clock/advance").Post
	sch := advance.RequestBody.Content.GetOrZero("application/json").Schema.Schema()
	assert.Contains(t, sch.Required, "seconds", "the body schema is read from openapi/adminschemas")
}

func TestAdminTrafficIsNotChecked(t *testing.T) {
	t.Parallel()
	rec := &recorder{}
	c := &http.Client{Transport: conformance.Transport(rec, canned{status: 200, body: `{"reset":true}`})}
	resp, err := c.Post("http://127.0.0.1:1/_mock/reset", "application/json", nil)
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	assert.Empty(t, rec.errs)
}
