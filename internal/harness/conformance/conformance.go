// Package conformance checks HTTP traffic against the OpenAPI document of the API (the bundled
// form of openapi/openapi.yaml that the mock server serves at GET /api/openapi.yaml), with
// pb33f/libopenapi-validator: OpenAPI 3.1 with JSON Schema 2020-12, format assertions on.
//
// [Transport] is an http.RoundTripper for tests: it lets each request through, validates the
// request and the answer against the document, and reports every violation with t.Errorf.
// internal/harness/testenv installs it on every client it builds, so every end-to-end test is checked.
//
// What counts as a violation:
//   - an answer (any status) whose status, headers or body the document does not allow for the
//     operation;
//   - a request that does not conform (parameters, body, security) but was answered with a
//     status below 400: the server accepted what the document forbids. A non-conforming request
//     answered with 4xx is a test probing bad input, and only its answer is checked;
//   - a request to a path or method the document lacks that was answered with anything but 404
//     or 405 (an undocumented operation).
//
// Requests outside /api (the mock's admin API, /_mock) are let through unchecked.
package conformance

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/cache"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/helpers"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"

	"github.com/voiceagent/voiceagent-go/openapi"
)

// Violation is one way a request or an answer departs from the document.
type Violation struct {
	// Method and Path are the request's (Path relative to the base URL, e.g. /v1/agents).
	Method, Path string
	// Status is the answer's status.
	Status int
	// Kind is request, response or operation.
	Kind string
	// Message says what is wrong.
	Message string
}

// String is the message the test failure shows.
func (v Violation) String() string {
	return fmt.Sprintf("%s %s -> %d: %s does not conform to openapi.yaml: %s", v.Method, v.Path, v.Status, v.Kind, v.Message)
}

// Checker validates requests and answers against the document. It is safe for concurrent use.
type Checker struct {
	mu sync.Mutex // the validator's caches are not documented as safe for concurrent use
	v  validator.Validator
}

// shared is the one Checker of the process: building it parses the document once.
var shared = sync.OnceValues(func() (*Checker, error) {
	raw, err := openapi.Bundled("")
	if err != nil {
		return nil, err
	}
	strictRaw, err := forStrictMode(raw)
	if err != nil {
		return nil, err
	}
	doc, err := libopenapi.NewDocument(strictRaw)
	if err != nil {
		return nil, fmt.Errorf("conformance: parsing the bundled document: %w", err)
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("conformance: building the model: %w", err)
	}
	lazy := &lazyCache{match: matchSchemas(&model.Model), version: helpers.VersionToFloat(model.Model.Version)}
	lazy.opts = config.NewValidationOptions(options(lazy)...)
	lazy.building.Store(true)
	v, errs := validator.NewValidator(doc, options(lazy)...)
	lazy.building.Store(false)
	if len(errs) > 0 {
		return nil, fmt.Errorf("conformance: building the validator: %w", errors.Join(errs...))
	}
	return &Checker{v: v}, nil
})

// IgnoredRequestHeaders are request headers a client may send that no operation declares: the
// SDK's X-Voiceagent-Retry-Count says which attempt a request is (for the client's own logs and
// for support; the API ignores it), and the fetch metadata headers (Sec-Fetch-*) that browsers
// and Node.js's fetch add to every request on their own, like User-Agent. Strict mode reports
// every other undeclared header.
var IgnoredRequestHeaders = []string{
	"X-Voiceagent-Retry-Count",
	"Sec-Fetch-Mode", "Sec-Fetch-Site", "Sec-Fetch-Dest", "Sec-Fetch-User",
}

// options are the validator's settings: formats asserted (uuid, date-time, email, uri), and
// strict mode, which reports what the document does not declare even where JSON Schema would
// allow it: a property of a request or answer body, a query parameter, a request or answer
// header. So every field the mock answers with, and every parameter the SDK sends, must be in
// the document. The session cookie is declared as the sessionCookie security scheme, which
// strict mode does not consult, so it is exempt by name.
func options(c cache.SchemaCache) []config.Option {
	return []config.Option{
		config.WithFormatAssertions(),
		config.WithStrictMode(),
		config.WithStrictIgnoredHeadersExtra(IgnoredRequestHeaders...),
		config.WithStrictIgnorePaths("$.cookies.voiceagent_session"),
		config.WithSchemaCache(c),
	}
}

// lazyCache is the validator's schema cache, filled as exchanges need schemas. While the
// validator is built it claims to hold every schema, so the validator does not compile all of
// them up front (seconds under the race detector); a test binary compiles only what its
// exchanges use. Strict mode looks up the variants of oneOf and anyOf (match) but never stores
// them, and would compile them for every exchange: the cache compiles each on its first miss.
type lazyCache struct {
	building atomic.Bool
	m        sync.Map // uint64 -> *cache.SchemaCacheEntry
	failed   sync.Map // uint64 -> true: a match schema that did not compile here
	match    map[uint64]*base.Schema
	opts     *config.ValidationOptions
	version  float32
}

func (c *lazyCache) Load(key uint64) (*cache.SchemaCacheEntry, bool) {
	if c.building.Load() {
		return nil, true
	}
	if v, ok := c.m.Load(key); ok {
		return v.(*cache.SchemaCacheEntry), true
	}
	s := c.match[key]
	if s == nil {
		return nil, false
	}
	if _, failed := c.failed.Load(key); failed {
		return nil, false
	}
	compiled, err := schema_validation.CompileSchemaForValidation(s, schema_validation.SchemaValidationPurposeGeneric, c.opts, c.version)
	if err != nil || compiled == nil || compiled.CompiledSchema == nil {
		// Strict mode compiles it itself, its own way; do not try again.
		c.failed.Store(key, true)
		return nil, false
	}
	e := compiled.ToCacheEntry(s)
	c.m.Store(key, e)
	return e, true
}

func (c *lazyCache) Store(key uint64, value *cache.SchemaCacheEntry) {
	if !c.building.Load() {
		c.m.Store(key, value)
	}
}

func (c *lazyCache) Range(f func(key uint64, value *cache.SchemaCacheEntry) bool) {
	c.m.Range(func(k, v any) bool { return f(k.(uint64), v.(*cache.SchemaCacheEntry)) })
}

// Document parses the bundled OpenAPI document with libopenapi.
func Document() (libopenapi.Document, error) {
	raw, err := openapi.Bundled("")
	if err != nil {
		return nil, err
	}
	doc, err := libopenapi.NewDocument(raw)
	if err != nil {
		return nil, fmt.Errorf("conformance: parsing the bundled document: %w", err)
	}
	return doc, nil
}

// New returns the process's Checker, built on first use.
func New() (*Checker, error) { return shared() }

// ValidateDocument validates the document itself against the OpenAPI 3.1 specification.
func (c *Checker) ValidateDocument() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	_, errs := c.v.ValidateDocument()
	return messages(errs)
}

// Check validates one exchange. reqBody and respBody are the bodies already read (the request's
// and response's Body fields are ignored). The request's URL may be on any host (the mock's
// loopback address); its path must start with /api, the path of the document's servers, or it is
// not checked (the admin API).
func (c *Checker) Check(req *http.Request, reqBody []byte, resp *http.Response, respBody []byte) []Violation {
	rel, ok := strings.CutPrefix(req.URL.Path, "/api/")
	if !ok {
		// Not the API: the admin API (/_mock), described by openapi/admin.yaml.
		return nil
	}
	base := Violation{Method: req.Method, Path: "/" + rel, Status: resp.StatusCode}

	c.mu.Lock()
	defer c.mu.Unlock()
	_, reqErrs := c.v.ValidateHttpRequestSync(cloneRequest(req, reqBody))
	var missing, other []*verrors.ValidationError
	for _, e := range reqErrs {
		if e.IsPathMissingError() || e.IsOperationMissingError() {
			missing = append(missing, e)
		} else {
			other = append(other, e)
		}
	}
	var out []Violation
	if len(missing) > 0 {
		if resp.StatusCode != http.StatusNotFound && resp.StatusCode != http.StatusMethodNotAllowed {
			v := base
			v.Kind, v.Message = "operation", "the document has no such operation, but it was answered: "+strings.Join(messages(missing), "; ")
			out = append(out, v)
		}
		return out
	}
	if len(other) > 0 && resp.StatusCode < 400 {
		v := base
		v.Kind = "request"
		v.Message = "accepted with status " + fmt.Sprint(resp.StatusCode) + " although: " + strings.Join(messages(other), "; ")
		out = append(out, v)
	}
	_, respErrs := c.v.ValidateHttpResponse(cloneRequest(req, reqBody), cloneResponse(resp, respBody))
	if len(respErrs) > 0 {
		v := base
		v.Kind, v.Message = "response", strings.Join(messages(respErrs), "; ")
		out = append(out, v)
	}
	return out
}

// messages renders validation errors with the failing fields.
func messages(errs []*verrors.ValidationError) []string {
	out := make([]string, 0, len(errs))
	for _, e := range errs {
		msg := e.Message
		if e.Reason != "" && e.Reason != e.Message {
			msg += " (" + e.Reason + ")"
		}
		var fields []string
		for _, f := range e.SchemaValidationErrors {
			loc := f.FieldPath
			if loc == "" {
				loc = "/" + strings.Join(f.InstancePath, "/")
			}
			fields = append(fields, loc+": "+f.Reason)
		}
		sort.Strings(fields)
		if len(fields) > 0 {
			msg += " [" + strings.Join(fields, "; ") + "]"
		}
		out = append(out, msg)
	}
	return out
}

// cloneRequest returns a copy of req with its path relative to the API root and a fresh body.
func cloneRequest(req *http.Request, body []byte) *http.Request {
	r := req.Clone(req.Context())
	u := *req.URL
	u.Scheme, u.Host = "https", "api.voiceagent.example"
	r.URL = &u
	r.Host = u.Host
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	r.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return r
}

func cloneResponse(resp *http.Response, body []byte) *http.Response {
	r := *resp
	r.Header = resp.Header.Clone()
	r.Body = io.NopCloser(bytes.NewReader(body))
	r.ContentLength = int64(len(body))
	return &r
}

// Transport returns a RoundTripper that sends each request with next (http.DefaultTransport when
// nil) and reports, with t.Errorf, every violation of the exchange. Requests that fail at the
// network level are not checked. The request and answer bodies are read in full and handed on
// unchanged.
func Transport(t testing.TB, next http.RoundTripper) http.RoundTripper {
	if next == nil {
		next = http.DefaultTransport
	}
	c, err := New()
	if err != nil {
		t.Fatalf("conformance: %v", err)
	}
	return &transport{t: t, next: next, c: c}
}

type transport struct {
	t    testing.TB
	next http.RoundTripper
	c    *Checker
}

func (tr *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	var reqBody []byte
	if req.Body != nil && req.Body != http.NoBody {
		b, err := io.ReadAll(req.Body)
		_ = req.Body.Close()
		if err != nil {
			return nil, fmt.Errorf("conformance: reading the request body: %w", err)
		}
		reqBody = b
		req = req.Clone(req.Context())
		req.Body = io.NopCloser(bytes.NewReader(b))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	resp, err := tr.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	respBody, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	if err != nil {
		// A dropped or truncated answer (fault injection): the client sees the error; nothing to check.
		resp.Body = io.NopCloser(io.MultiReader(bytes.NewReader(respBody), errReader{err}))
		return resp, nil
	}
	for _, v := range tr.c.Check(req, reqBody, resp, respBody) {
		tr.t.Errorf("%s", v)
	}
	return resp, nil
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }
