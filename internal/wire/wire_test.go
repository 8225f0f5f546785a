package wire

import (
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
