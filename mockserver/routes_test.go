package mockserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRoutesListsEveryEndpointWithItsRequirements(t *testing.T) {
	t.Parallel()
	srv := New()
	defer srv.Close()
	routes := srv.Routes()
	n := 0
	for _, methods := range srv.httpapi.Routes {
		n += len(methods)
	}
	require.Len(t, routes, n)
	for i := 1; i < len(routes); i++ {
		a, b := routes[i-1], routes[i]
		assert.True(t, a.Path < b.Path || (a.Path == b.Path && a.Method < b.Method), "sorted: %v before %v", a, b)
	}
	find := func(method, path string) Route {
		for _, r := range routes {
			if r.Method == method && r.Path == path {
				return r
			}
		}
		t.Fatalf("no route %s %s", method, path)
		return Route{}
	}
	assert.Equal(t, Route{Method: http.MethodPost, Path: "/api/v1/calls", Auth: "key", Scope: "calls:write", Schema: "callCreate",
		Operation: "createCall", RateLimit: "calls.create"}, find(http.MethodPost, "/api/v1/calls"))
	assert.Equal(t, "workspaces:write and agents:write", find(http.MethodPost, "/api/v1/agency-enrollments").Scope)
	assert.Equal(t, Route{Method: http.MethodGet, Path: "/api/v1/capabilities", Auth: "key", Operation: "getCapabilities", RateLimit: "reads"},
		find(http.MethodGet, "/api/v1/capabilities"))
	assert.Equal(t, "session", find(http.MethodDelete, "/api/v1/keys").Auth)
	assert.Equal(t, "none", find(http.MethodPost, "/api/v1/signup").Auth)
	assert.Equal(t, "none", find(http.MethodGet, "/api/openapi.yaml").Auth)
	assert.Equal(t, "key", find(http.MethodGet, "/api/v1/openapi.json").Auth)
	assert.Equal(t, Route{Method: http.MethodPost, Path: "/_mock/clock/advance", Auth: "admin", Schema: "mockClockAdvance", Operation: "advanceClock"},
		find(http.MethodPost, "/_mock/clock/advance"))
	ops := map[string]bool{}
	for _, r := range routes {
		assert.NotEmpty(t, r.Auth, "%s %s", r.Method, r.Path)
		assert.NotEmpty(t, r.Operation, "%s %s", r.Method, r.Path)
		assert.False(t, ops[r.Operation], "operation %s named twice", r.Operation)
		ops[r.Operation] = true
	}
}
