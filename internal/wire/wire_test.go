package wire

import (
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestLimitForFindsTheFirstMatchingLimit(t *testing.T) {
	for _, tc := range []struct {
		method, path string
		want         string // the limit's name; "" for none
	}{
		{http.MethodPost, "/v1/signup", "signup"},
		{http.MethodPost, "/v1/calls", "calls.create"},
		{http.MethodPost, "/v1/agents", "agents.create"},
		{http.MethodPatch, "/v1/agents", "agents.update"},
		{http.MethodPost, "/v1/sms/send", "sms.send"},
		{http.MethodGet, "/v1/analytics/dashboard", "analytics"},
		{http.MethodGet, "/v1/analytics/", "analytics"},
		{http.MethodGet, "/v1/transcripts", "transcripts"},
		// GET /v1/calls is no create: the catch-all of reads takes it.
		{http.MethodGet, "/v1/calls", "reads"},
		{http.MethodGet, "/v1/agents", "reads"},
		{http.MethodGet, "/sdr/pipeline", "reads"},
		{http.MethodGet, "", "reads"},
		// A path without the trailing "/" is not under the prefix.
		{http.MethodGet, "/v1/analytics", "reads"},
		{http.MethodGet, "/v1/analyticsx", "reads"},
		// Exact paths match exactly.
		{http.MethodGet, "/v1/transcripts/abc", "reads"},
		{http.MethodPost, "/v1/calls/abc", ""},
		{http.MethodPost, "/v1/agents/persona", ""},
		{http.MethodPost, "/v1/sms/update-prompt", ""},
		{http.MethodPost, "/api/v1/calls", ""}, // paths are relative to the base URL
		// Writes the spec gives no limit for.
		{http.MethodDelete, "/v1/keys", ""},
		{http.MethodPut, "/sdr/config", ""},
		{http.MethodPatch, "/v1/calls", ""},
		{"get", "/v1/agents", ""}, // methods are compared exactly
	} {
		l, ok := LimitFor(tc.method, tc.path)
		if tc.want == "" {
			if ok {
				t.Errorf("LimitFor(%s, %q) = %s, want none", tc.method, tc.path, l.Name)
			}
			continue
		}
		if !ok || l.Name != tc.want {
			t.Errorf("LimitFor(%s, %q) = %q, %v; want %q", tc.method, tc.path, l.Name, ok, tc.want)
		}
	}
}

func TestLimitForIgnoresTheQueryString(t *testing.T) {
	for _, tc := range []struct{ method, path, want string }{
		{http.MethodGet, "/v1/transcripts?limit=5", "transcripts"},
		{http.MethodGet, "/v1/analytics/calls?days=7", "analytics"},
		{http.MethodGet, "/v1/analytics?x=/", "reads"}, // the '/' in the query does not make a prefix
		{http.MethodPost, "/v1/calls?", "calls.create"},
		{http.MethodPost, "/v1/signup?ref=a?b", "signup"},
		{http.MethodGet, "?a=b", "reads"},
	} {
		l, ok := LimitFor(tc.method, tc.path)
		if !ok || l.Name != tc.want {
			t.Errorf("LimitFor(%s, %q) = %q, %v; want %q", tc.method, tc.path, l.Name, ok, tc.want)
		}
	}
	if l, ok := LimitFor(http.MethodPost, "/v1/calls/x?y"); ok {
		t.Errorf("LimitFor(POST, /v1/calls/x?y) = %s, want none", l.Name)
	}
}

// TestLimitsHoldSpecSection8 pins the values: a change to a limit must be
// a change to this test too.
func TestLimitsHoldSpecSection8(t *testing.T) {
	want := []Limit{
		{"signup", http.MethodPost, "/v1/signup", 5, time.Hour, true},
		{"calls.create", http.MethodPost, "/v1/calls", 60, time.Minute, false},
		{"agents.create", http.MethodPost, "/v1/agents", 30, time.Minute, false},
		{"agents.update", http.MethodPatch, "/v1/agents", 60, time.Minute, false},
		{"sms.send", http.MethodPost, "/v1/sms/send", 60, time.Minute, false},
		{"analytics", http.MethodGet, "/v1/analytics/", 120, time.Minute, false},
		{"transcripts", http.MethodGet, "/v1/transcripts", 120, time.Minute, false},
		{"reads", http.MethodGet, "", 300, time.Minute, false},
	}
	if len(Limits) != len(want) {
		t.Fatalf("%d limits, want %d", len(Limits), len(want))
	}
	for i := range want {
		if Limits[i] != want[i] {
			t.Errorf("Limits[%d] = %+v, want %+v", i, Limits[i], want[i])
		}
	}
}

func TestEveryLimitIsReachableAndWellFormed(t *testing.T) {
	names := map[string]bool{}
	for i, l := range Limits {
		if l.Name == "" || names[l.Name] {
			t.Errorf("Limits[%d]: name %q is empty or used twice", i, l.Name)
		}
		names[l.Name] = true
		if l.Max <= 0 || l.Window <= 0 {
			t.Errorf("%s: %d per %v is no limit", l.Name, l.Max, l.Window)
		}
		if (l.Path != "" && !strings.HasPrefix(l.Path, "/")) || strings.HasPrefix(l.Path, "/api/") || strings.Contains(l.Path, "?") {
			t.Errorf("%s: path %q is not relative to the base URL", l.Name, l.Path)
		}
		// A request on the limit's own path reaches it: no earlier limit
		// shadows it.
		path := l.Path
		if strings.HasSuffix(path, "/") {
			path += "x"
		} else if path == "" {
			path = "/v1/unlisted-" + strconv.Itoa(i)
		}
		if got, ok := LimitFor(l.Method, path); !ok || got != l {
			t.Errorf("%s %s reaches %q, not %s", l.Method, path, got.Name, l.Name)
		}
	}
}

func TestIsScope(t *testing.T) {
	for _, s := range AllScopes {
		if !IsScope(s) {
			t.Errorf("IsScope(%q) = false", s)
		}
	}
	for _, s := range []string{ScopeAll, "", "agents", "agents:READ", "Agents:read", "agents:read ", "sdr:*", "agents:delete", "admin"} {
		if IsScope(s) {
			t.Errorf("IsScope(%q) = true", s)
		}
	}
}

func TestScopesAreUniqueAndTheSubsetsAreScopes(t *testing.T) {
	if len(AllScopes) != 38 {
		t.Errorf("%d scopes, spec section 5 lists 38", len(AllScopes))
	}
	seen := map[string]bool{}
	for _, s := range AllScopes {
		if seen[s] {
			t.Errorf("scope %q listed twice", s)
		}
		seen[s] = true
		if s == ScopeAll {
			t.Error("AllScopes holds the wildcard")
		}
	}
	for name, list := range map[string][]string{
		"PlatformOnlyScopes":  PlatformOnlyScopes,
		"SignupDefaultScopes": SignupDefaultScopes,
		"KeyDefaultScopes":    KeyDefaultScopes,
	} {
		if len(list) == 0 {
			t.Errorf("%s is empty", name)
		}
		dup := map[string]bool{}
		for _, s := range list {
			if !seen[s] {
				t.Errorf("%s holds %q, which is not in AllScopes", name, s)
			}
			if dup[s] {
				t.Errorf("%s lists %q twice", name, s)
			}
			dup[s] = true
		}
	}
	for _, s := range SignupDefaultScopes {
		if !strings.HasSuffix(s, ":read") {
			t.Errorf("SignupDefaultScopes is read-only, but holds %q", s)
		}
	}
}

// constants returns the string constants of one file of the package whose
// names start with prefix.
func constants(t *testing.T, file, prefix string) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, spec := range g.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, n := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || !strings.HasPrefix(n.Name, prefix) {
					continue
				}
				v, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				out[n.Name] = v
			}
		}
	}
	return out
}

func TestNoCodeIsDefinedTwice(t *testing.T) {
	codes := constants(t, "codes.go", "Code")
	if len(codes) != 29 {
		t.Errorf("%d codes, want 29", len(codes))
	}
	byValue := map[string]string{}
	for name, v := range codes {
		if v == "" || strings.ToLower(v) != v || strings.ContainsAny(v, " -:") {
			t.Errorf("%s = %q is not a snake_case code", name, v)
		}
		if other, ok := byValue[v]; ok {
			t.Errorf("%s and %s are both %q", name, other, v)
		}
		byValue[v] = name
	}
}

func TestEveryScopeConstantIsListedOnce(t *testing.T) {
	consts := constants(t, "scopes.go", "Scope")
	byValue := map[string]string{}
	for name, v := range consts {
		if other, ok := byValue[v]; ok {
			t.Errorf("%s and %s are both %q", name, other, v)
		}
		byValue[v] = name
		if v != ScopeAll && !IsScope(v) {
			t.Errorf("%s = %q is not in AllScopes", name, v)
		}
	}
	if len(consts) != len(AllScopes)+1 {
		t.Errorf("%d scope constants for %d scopes and the wildcard", len(consts), len(AllScopes))
	}
}
