package mockserver

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// adminCalls reads GET /_mock/calls with a query: the ids and states listed.
func adminCalls(t *testing.T, srv *TestServer, query string) (ids, states []string) {
	t.Helper()
	r := rawDo(t, http.MethodGet, srv.AdminURL+"/calls?"+query, "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	for _, c := range r.json["calls"].([]any) {
		m := c.(map[string]any)
		ids = append(ids, m["id"].(string))
		states = append(states, m["status"].(string))
	}
	return ids, states
}

func TestAdminCallsListsEveryTenantsCalls(t *testing.T) {
	t.Parallel()
	srv, a := startWithAccount(t)
	b, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	place := func(acct *Account, to string) string {
		r := rawDo(t, http.MethodPost, srv.URL+"/v1/calls", `{"agent_id":"`+acct.AgentID+`","to":"`+to+`"}`, bearer(acct.APIKey)...)
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		return r.json["id"].(string)
	}
	first := place(a, "+15551230001")
	// Stamps are in each tenant's own time: b's clock runs a second ahead.
	b.Advance(time.Second)
	second := place(b, "+15551230002")

	ids, states := adminCalls(t, srv, "")
	assert.Equal(t, []string{second, first}, ids, "every tenant's, newest first")
	assert.Equal(t, []string{"queued", "queued"}, states)
	r := rawDo(t, http.MethodGet, srv.AdminURL+"/calls?business_id="+b.BusinessID, "")
	require.Len(t, r.json["calls"], 1)
	call := r.json["calls"].([]any)[0].(map[string]any)
	assert.Equal(t, b.BusinessID, call["business_id"])
	assert.Equal(t, "+15551230002", call["to"])
	assert.Equal(t, false, r.json["has_more"])

	ids, _ = adminCalls(t, srv, "status=active")
	assert.Len(t, ids, 2, "queued calls are active")
	srv.Advance(10 * time.Minute)
	ids, _ = adminCalls(t, srv, "status=active")
	assert.Empty(t, ids, "both ended")
	ids, states = adminCalls(t, srv, "status=completed&business_id="+a.BusinessID)
	assert.Equal(t, []string{first}, ids)
	assert.Equal(t, []string{"completed"}, states)
	ids, _ = adminCalls(t, srv, "limit=1")
	assert.Equal(t, []string{second}, ids)

	bad := rawDo(t, http.MethodGet, srv.AdminURL+"/calls?state=active", "")
	assert.Equal(t, http.StatusBadRequest, bad.status)
	assert.Equal(t, "bad_request", bad.code())
	assert.Contains(t, bad.message(), "state")
	for _, q := range []string{"status=done", "limit=0", "limit=501", "business_id=x"} {
		r := rawDo(t, http.MethodGet, srv.AdminURL+"/calls?"+q, "")
		assert.Equal(t, http.StatusBadRequest, r.status, q)
		assert.Equal(t, "invalid_request", r.code(), q)
	}
	unknown := rawDo(t, http.MethodGet, srv.AdminURL+"/calls?business_id=00000000-0000-4000-8000-000000000000", "")
	assert.Equal(t, http.StatusNotFound, unknown.status)
}
