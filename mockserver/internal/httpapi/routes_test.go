package httpapi

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/openapi"
)

// every returns a handler for every operation of the table but skip.
func every(skip string) Handlers {
	hs := Handlers{}
	for _, rt := range Table {
		if rt.Op != skip {
			hs[rt.Op] = func(*Ctx) (any, error) { return nil, nil }
		}
	}
	return hs
}

func newAPI() *API { return New(platform.New(platform.Config{})) }

func TestBindGivesEveryRouteItsHandlerAndLimit(t *testing.T) {
	a := newAPI()
	a.Bind(nil, every(""))
	n := 0
	for _, methods := range a.Routes {
		for _, rt := range methods {
			n++
			assert.NotNil(t, rt.Handle, "%s %s", rt.Method, rt.Path)
		}
	}
	assert.Equal(t, len(Table), n)
	calls := a.Routes["/api/v1/calls"]
	require.NotNil(t, calls["POST"].Limit)
	assert.Equal(t, "calls.create", calls["POST"].Limit.Name)
	assert.Equal(t, "reads", calls["GET"].Limit.Name)
	assert.Nil(t, a.Routes["/_mock/requests"]["GET"].Limit, "the admin API is not rate limited")
	assert.Nil(t, a.Routes["/api/v1/webhooks"]["POST"].Limit, "writes the spec gives no limit")
}

func TestBindRefusesARouteWithoutAHandler(t *testing.T) {
	assert.PanicsWithValue(t, "httpapi: no handler for POST /api/v1/calls (operation createCall)", func() {
		newAPI().Bind(nil, every("createCall"))
	})
}

func TestBindRefusesAHandlerWithoutARoute(t *testing.T) {
	hs := every("")
	hs["frobnicate"] = func(*Ctx) (any, error) { return nil, nil }
	assert.PanicsWithValue(t, "httpapi: handlers without a route in the table: frobnicate", func() { newAPI().Bind(nil, hs) })
}

func TestBindRefusesAnOperationBoundTwice(t *testing.T) {
	assert.Panics(t, func() { newAPI().Bind(nil, every(""), Handlers{"createCall": nil}) })
}

func TestBindRefusesARouteListedTwice(t *testing.T) {
	twin := Table[0]
	assert.Panics(t, func() { newAPI().Bind([]*Route{&twin}, every("")) })
}

// TestTableNamesOnlyWhatExists checks each line of the table: a path under
// /api or /_mock (or one of the index paths), a known method, scopes of the
// API, a body schema that package openapi has, and an operation named once.
func TestTableNamesOnlyWhatExists(t *testing.T) {
	schemas := map[string]bool{}
	for _, n := range append(openapi.SchemaNames(), openapi.AdminSchemaNames()...) {
		schemas[n] = true
	}
	ops := map[string]bool{}
	for _, rt := range Table {
		name := rt.Method + " " + rt.Path
		assert.Contains(t, []string{GET, POST, PUT, PATCH, DELETE}, rt.Method, name)
		if index := []string{"/", APIPrefix, AdminPrefix}; slices.Contains(index, rt.Path) {
			assert.Equal(t, "GET "+AuthAdmin.String(), rt.Method+" "+rt.Auth.String(), "%s: the index is the server's own, like the admin API", name)
		} else {
			assert.True(t, strings.HasPrefix(rt.Path, APIPrefix+"/") || strings.HasPrefix(rt.Path, AdminPrefix+"/"), name)
			assert.Equal(t, rt.Auth == AuthAdmin, strings.HasPrefix(rt.Path, AdminPrefix+"/"), "%s: admin routes and only they are under /_mock", name)
		}
		if rt.Scope != nil {
			for _, sc := range strings.FieldsFunc(rt.Scope.String(), func(r rune) bool { return r == ' ' || r == '(' || r == ')' }) {
				if sc != "and" && sc != "or" {
					assert.True(t, slices.Contains(voiceagent.AllScopes, voiceagent.Scope(sc)), "%s: %q is not a scope", name, sc)
				}
			}
		}
		if rt.Schema != "" {
			assert.True(t, schemas[rt.Schema], "%s: no schema %q", name, rt.Schema)
		}
		assert.NotEmpty(t, rt.Op, name)
		assert.False(t, ops[rt.Op], "%s: operation %s twice", name, rt.Op)
		ops[rt.Op] = true
	}
}
