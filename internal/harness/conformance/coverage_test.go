package conformance_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/openapi"
)

// docOp is an operation of openapi.yaml as the coverage tests compare it.
type docOp struct {
	id      string   // operationId
	auth    string   // key, session, "key or session" or none, from the security requirements
	scope   string   // x-required-scopes in the syntax of mockserver.Route.Scope
	schemas []string // names of the body schemas it references (schemas/<name>.json)
}

type rawOp struct {
	OperationID    string                `yaml:"operationId"`
	Security       []map[string][]string `yaml:"security"`
	RequiredScopes []any                 `yaml:"x-required-scopes"`
	RequestBody    *struct {
		Content map[string]struct {
			Schema yaml.Node `yaml:"schema"`
		} `yaml:"content"`
	} `yaml:"requestBody"`
}

var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// docOps reads the operations of openapi.yaml, keyed "METHOD /api<path>" as the mock serves them.
var docOps = sync.OnceValues(func() (map[string]docOp, error) { return readOps(openapi.Document, "/api") })

// adminOps reads the operations of openapi/admin.yaml, keyed "METHOD <path>".
var adminOps = sync.OnceValues(func() (map[string]docOp, error) {
	src, err := os.ReadFile(filepath.Join("..", "..", "..", "openapi", "admin.yaml"))
	if err != nil {
		return nil, err
	}
	return readOps(src, "")
})

func readOps(src []byte, prefix string) (map[string]docOp, error) {
	var doc struct {
		Paths      map[string]map[string]yaml.Node `yaml:"paths"`
		Components struct {
			Schemas map[string]yaml.Node `yaml:"schemas"`
		} `yaml:"components"`
	}
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	out := map[string]docOp{}
	for path, item := range doc.Paths {
		for m, node := range item {
			if !slices.Contains(methods, m) {
				continue
			}
			var op rawOp
			if err := node.Decode(&op); err != nil {
				return nil, fmt.Errorf("%s %s: %w", m, path, err)
			}
			if op.Security == nil && prefix != "" {
				return nil, fmt.Errorf("%s %s: no security (write security: [] for none)", m, path)
			}
			if op.RequiredScopes == nil && prefix != "" {
				return nil, fmt.Errorf("%s %s: no x-required-scopes (write [] for none)", m, path)
			}
			d := docOp{id: op.OperationID, auth: authOf(op.Security), scope: scopeString(op.RequiredScopes, " and ")}
			if op.RequestBody != nil {
				for _, c := range op.RequestBody.Content {
					d.schemas = append(d.schemas, schemaRefs(&c.Schema, doc.Components.Schemas, map[string]bool{})...)
				}
			}
			out[strings.ToUpper(m)+" "+prefix+path] = d
		}
	}
	return out, nil
}

func authOf(sec []map[string][]string) string {
	var key, session bool
	for _, req := range sec {
		for name := range req {
			key = key || name == "bearerAuth"
			session = session || name == "sessionCookie"
		}
	}
	switch {
	case key && session:
		return "key or session"
	case key:
		return "key"
	case session:
		return "session"
	}
	return "none"
}

// scopeString renders x-required-scopes like mockserver's scope requirements: a list is allOf
// ("a and b"); {anyOf: [...]} is "(a or b)"; {allOf: [...]} nests.
func scopeString(v []any, sep string) string {
	parts := make([]string, 0, len(v))
	for _, x := range v {
		switch x := x.(type) {
		case string:
			parts = append(parts, x)
		case map[string]any:
			if l, ok := x["anyOf"].([]any); ok {
				parts = append(parts, "("+scopeString(l, " or ")+")")
			}
			if l, ok := x["allOf"].([]any); ok {
				parts = append(parts, scopeString(l, " and "))
			}
		}
	}
	return strings.Join(parts, sep)
}

// schemaRefs lists the schema files a request body schema references (through oneOf and the
// like, and through the document's own components, which seen keeps from being read twice).
func schemaRefs(n *yaml.Node, components map[string]yaml.Node, seen map[string]bool) []string {
	var out []string
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value != "$ref" {
				continue
			}
			ref := n.Content[i+1].Value
			if name, ok := strings.CutPrefix(ref, "#/components/schemas/"); ok && !seen[name] {
				seen[name] = true
				if c, ok := components[name]; ok {
					out = append(out, schemaRefs(&c, components, seen)...)
				}
			}
			f, _, _ := strings.Cut(ref, "#")
			if name, ok := strings.CutSuffix(path.Base(f), ".json"); ok && f != "" {
				out = append(out, name)
			}
		}
	}
	for _, c := range n.Content {
		out = append(out, schemaRefs(c, components, seen)...)
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// unserved lists the operations of ops that served lacks, sorted.
func unserved(ops map[string]docOp, served map[string]bool) []string {
	var missing []string
	for _, name := range sortedKeys(ops) {
		if !served[name] {
			missing = append(missing, name)
		}
	}
	return missing
}

// reportUnserved fails on the documented operations nobody served.
func reportUnserved(t *testing.T, what string, missing []string) {
	t.Helper()
	if len(missing) > 0 {
		t.Errorf("%d documented operations %s:\n  %s", len(missing), what, strings.Join(missing, "\n  "))
	}
}

// TestMockRoutesAreDocumented fails on every route of the mock's API (/api) that openapi.yaml
// lacks, or documents with another authentication, scope or body schema, and on every
// documented operation the mock does not serve.
func TestMockRoutesAreDocumented(t *testing.T) {
	t.Parallel()
	ops, err := docOps()
	require.NoError(t, err)
	checkRoutes(t, ops, false, "openapi.yaml")
}

// TestAdminRoutesAreDocumented is TestMockRoutesAreDocumented for the admin API (/_mock) and
// openapi/admin.yaml.
func TestAdminRoutesAreDocumented(t *testing.T) {
	t.Parallel()
	ops, err := adminOps()
	require.NoError(t, err)
	checkRoutes(t, ops, true, "admin.yaml")
}

// checkRoutes compares the mock's API routes (admin false) or admin routes with the operations
// of the document doc.
func checkRoutes(t *testing.T, ops map[string]docOp, admin bool, doc string) {
	t.Helper()
	served := map[string]bool{}
	for _, r := range mockserver.New().Routes() {
		// The index (/, /api, /_mock) is the server's own, described with the admin API.
		isAdmin := strings.HasPrefix(r.Path, "/_mock/") || slices.Contains([]string{"/", "/api", "/_mock"}, r.Path)
		assert.Equal(t, isAdmin, r.Auth == "admin", "%s %s: admin routes, and only they, live under /_mock (or are the index)", r.Method, r.Path)
		if isAdmin != admin {
			continue
		}
		name := r.Method + " " + r.Path
		served[name] = true
		op, ok := ops[name]
		if !ok {
			t.Errorf("the mock serves %s, which openapi/%s does not document", name, doc)
			continue
		}
		assert.Equal(t, op.id, r.Operation, "%s: the route table's operation is the document's operationId", name)
		if !admin {
			assert.Equal(t, r.Auth, op.auth, "%s: authentication (mock route auth vs the document's security)", name)
			assert.Equal(t, r.Scope, op.scope, "%s: scopes (mock route scope vs x-required-scopes)", name)
		}
		if r.Schema != "" {
			assert.Contains(t, op.schemas, r.Schema, "%s: the mock validates the body with %s; %s must reference %s.json", name, r.Schema, doc, r.Schema)
		}
	}
	reportUnserved(t, "of "+doc+" not served by the mock", unserved(ops, served))
}

// TestEverySchemaIsReferenced checks that each request schema is the body of some operation,
// so the document and the mock's validation cannot drift apart unnoticed.
func TestEverySchemaIsReferenced(t *testing.T) {
	t.Parallel()
	ops, err := docOps()
	require.NoError(t, err)
	used := map[string]bool{"common": true} // shared definitions, referenced by the others
	for _, op := range ops {
		for _, s := range op.schemas {
			used[s] = true
		}
	}
	for _, name := range openapi.SchemaNames() {
		assert.True(t, used[name], "schemas/%s.json is the body of no operation in openapi.yaml", name)
	}
}

// ------------------------------------------------------------------ SDK coverage

// sdkNoRequest lists the exported methods of the client's services that send no request of
// their own (helpers), with the reason. Every other method must send a documented request.
var sdkNoRequest = map[string]string{}

// notSDKOperations are documented operations no SDK method needs to call, with the reason.
var notSDKOperations = map[string]string{
	"GET /api/openapi.yaml":        "the document itself, for tools; any HTTP client reads it",
	"GET /api/v1/openapi.json":     "the document itself, for tools; any HTTP client reads it",
	"GET /api/auth/password-setup": "a link for the owner's browser (the password setup page)",
	"POST /api/sdr/cron":           "the platform's scheduled runner: its internal secret only, never a key or session",
}

// sdkArgs are the arguments (after the context) to call a method with where dummy values send
// no request.
var sdkArgs = map[string][]any{
	"Signup.ExchangeMagicLink": {"http://sdk.test/api/auth/magic?token=t"},
}

// recordingTransport answers every request 404 not_found and records its method and path.
type recordingTransport struct {
	mu   sync.Mutex
	seen []string
}

func (rt *recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_, _ = io.Copy(io.Discard, req.Body)
	}
	rt.mu.Lock()
	rt.seen = append(rt.seen, req.Method+" "+req.URL.Path)
	rt.mu.Unlock()
	body := `{"error":{"code":"not_found","message":"recorded"}}`
	return &http.Response{
		StatusCode: http.StatusNotFound, Request: req,
		Header: http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"r"}},
		Body:   io.NopCloser(strings.NewReader(body)),
	}, nil
}

func (rt *recordingTransport) take() []string {
	rt.mu.Lock()
	defer rt.mu.Unlock()
	out := rt.seen
	rt.seen = nil
	return out
}

// dummy returns a value of type t for calling an SDK method: structs (and pointers to them)
// with every string field set to a uuid, so client-side checks of required fields pass.
func dummy(t reflect.Type) reflect.Value {
	const id = "3f1c2d4e-5a6b-4c7d-8e9f-0a1b2c3d4e5f"
	switch t.Kind() {
	case reflect.String:
		return reflect.ValueOf(id).Convert(t)
	case reflect.Pointer:
		if t.Elem().Kind() == reflect.Struct {
			v := reflect.New(t.Elem())
			v.Elem().Set(dummy(t.Elem()))
			return v
		}
	case reflect.Struct:
		v := reflect.New(t).Elem()
		for i := range t.NumField() {
			if f := t.Field(i); f.IsExported() && f.Type.Kind() == reflect.String {
				v.Field(i).Set(dummy(f.Type))
			}
		}
		return v
	}
	return reflect.Zero(t)
}

var ctxType = reflect.TypeFor[context.Context]()

// TestSDKOperationsAreDocumented calls every exported method of every service of client.Client
// (sub-services included) against a recording transport and fails when a method sends a request
// that openapi.yaml does not document, or sends none and is not listed in sdkNoRequest; and when
// a documented operation is called by no SDK method (notSDKOperations aside).
func TestSDKOperationsAreDocumented(t *testing.T) {
	t.Parallel()
	ops, err := docOps()
	require.NoError(t, err)
	rec := &recordingTransport{}
	c := client.New("voiceagent_live_0123456789abcdefghijABCDEFGHIJ0123456789",
		voiceagent.WithBaseURL("http://sdk.test/api"),
		voiceagent.WithHTTPClient(&http.Client{Transport: rec}),
		voiceagent.WithMaxRetries(0), voiceagent.WithRateLimiting(false))

	called := map[string]bool{}
	services := 0
	var walk func(prefix string, svc reflect.Value)
	walk = func(prefix string, svc reflect.Value) {
		if svc.NumMethod() > 0 {
			services++
		}
		for j := range svc.NumMethod() {
			name := prefix + "." + svc.Type().Method(j).Name
			for _, s := range callSDKMethod(t, rec, name, svc.Method(j)) {
				called[s] = true
				if _, ok := ops[s]; !ok {
					t.Errorf("%s sends %s, which openapi/openapi.yaml does not document", name, s)
				}
			}
		}
		// Sub-services (c.Agency.Profile, c.Account.Usage).
		st := svc.Elem()
		for i := range st.NumField() {
			f := st.Type().Field(i)
			if f.IsExported() && f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct && !st.Field(i).IsNil() {
				walk(prefix+"."+f.Name, st.Field(i))
			}
		}
	}
	cv := reflect.ValueOf(c).Elem()
	for i := range cv.NumField() {
		f := cv.Type().Field(i)
		if f.IsExported() && f.Type.Kind() == reflect.Pointer && f.Type.Elem().Kind() == reflect.Struct {
			walk(f.Name, cv.Field(i))
		}
	}
	require.NotZero(t, services, "client.Client has no services")
	var missing []string
	for _, name := range sortedKeys(ops) {
		if _, skip := notSDKOperations[name]; !called[name] && !skip {
			missing = append(missing, name)
		}
	}
	reportUnserved(t, "not called by any SDK method", missing)
}

// callSDKMethod calls one method of a service with dummy arguments (sdkArgs where given) and
// returns the requests it sent, failing when it sends none and is not listed in sdkNoRequest.
func callSDKMethod(t *testing.T, rec *recordingTransport, name string, m reflect.Value) []string {
	t.Helper()
	mt := m.Type()
	if mt.NumIn() == 0 || mt.In(0) != ctxType {
		if _, ok := sdkNoRequest[name]; !ok {
			t.Errorf("%s does not take a context first: list it in sdkNoRequest or make it an API call", name)
		}
		return nil
	}
	args := []reflect.Value{reflect.ValueOf(context.Background())}
	last := mt.NumIn()
	if mt.IsVariadic() {
		last--
	}
	for k := 1; k < last; k++ {
		if given, ok := sdkArgs[name]; ok && k-1 < len(given) {
			args = append(args, reflect.ValueOf(given[k-1]).Convert(mt.In(k)))
			continue
		}
		args = append(args, dummy(mt.In(k)))
	}
	outs := m.Call(args)
	// An iterator (All) sends its first request when ranged over.
	if len(outs) == 1 && outs[0].Kind() == reflect.Func && outs[0].Type().NumIn() == 1 {
		yield := reflect.MakeFunc(outs[0].Type().In(0), func([]reflect.Value) []reflect.Value {
			return []reflect.Value{reflect.ValueOf(false)}
		})
		outs[0].Call([]reflect.Value{yield})
	}
	seen := rec.take()
	if len(seen) == 0 {
		if _, ok := sdkNoRequest[name]; !ok {
			t.Errorf("%s sent no request with dummy arguments: list it in sdkNoRequest with the reason, or its arguments in sdkArgs", name)
		}
	}
	return seen
}
