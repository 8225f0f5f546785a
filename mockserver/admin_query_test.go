package mockserver

import (
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every admin route refuses a query parameter its operation does not
// declare, before it acts: a filter it would ignore (?limit= on a route
// without one), or a typo on a route that changes state (DELETE
// /_mock/faults?idd= must not remove every rule).
func TestAdminRoutesRefuseUndeclaredQueryParameters(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	_, err := srv.AddFault(FaultRule{Path: "/v1/voices", Status: 503})
	require.NoError(t, err)
	checked := 0
	for _, rt := range srv.Routes() {
		if rt.Auth != "admin" || rt.Path == "/" || rt.Path == "/api" {
			continue
		}
		checked++
		body := ""
		if rt.Method == http.MethodPost {
			body = "{}"
		}
		r := rawDo(t, rt.Method, strings.TrimSuffix(srv.URL, "/api")+rt.Path+"?nonsense=1", body)
		assert.Equal(t, http.StatusBadRequest, r.status, "%s %s: %s", rt.Method, rt.Path, r.body)
		assert.Contains(t, r.message(), "unknown query parameter nonsense:", "%s %s", rt.Method, rt.Path)
	}
	assert.Greater(t, checked, 30)
	assert.Len(t, srv.Faults(), 1, "DELETE /_mock/faults with an unknown parameter removed nothing")
}
