package mockserver

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/account"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/identity"
)

func usageOf(t *testing.T, srv *TestServer, key, query string) ([]account.UsageEntry, bool) {
	t.Helper()
	r := rawDo(t, http.MethodGet, srv.URL+"/v1/usage"+query, "", bearer(key)...)
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	var out struct {
		Usage   []account.UsageEntry `json:"usage"`
		HasMore bool                 `json:"has_more"`
	}
	require.NoError(t, json.Unmarshal(r.body, &out))
	return out.Usage, out.HasMore
}

func TestBalanceMinutesComeFromCompletedCalls(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	tx := srv.platform.WriteTx()
	tx.AddCallMinutes(acct.BusinessID, 61) // 2 minutes
	tx.AddCallMinutes(acct.BusinessID, 60) // 1
	tx.AddCallMinutes(acct.BusinessID, 1)  // 1
	tx.AddCallMinutes(acct.BusinessID, 0)  // a call that never connected
	tx.End()
	r := rawDo(t, http.MethodGet, srv.URL+"/v1/balance", "", bearer(acct.APIKey)...)
	require.Equal(t, http.StatusOK, r.status)
	assert.JSONEq(t, `{"businesses":[{"business_id":"`+acct.BusinessID+`","minutes_used":4,"phone_numbers":1,"subscription_status":"active"}]}`, string(r.body))
}

func TestBalanceCoversEveryBusinessTheKeyReaches(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	// A second business of the same owner (same email), and a key limited to it.
	tx := srv.platform.WriteTx()
	owner, _ := tx.Users.Get(acct.UserID)
	pr := srv.identity.Provision(tx, srv.Now(), identity.ProvisionSpec{BusinessName: "Second", Email: owner.Email, Scopes: identity.AllScopes()})
	onlySecond, _ := srv.identity.IssueKey(tx, srv.Now(), acct.UserID, "limited", []string{"billing:read"}, pr.Business.ID, "")
	tx.End()

	r := rawDo(t, http.MethodGet, srv.URL+"/v1/balance", "", bearer(acct.APIKey)...)
	var out struct {
		Businesses []struct {
			BusinessID string `json:"business_id"`
		} `json:"businesses"`
	}
	require.NoError(t, json.Unmarshal(r.body, &out))
	require.Len(t, out.Businesses, 2)
	assert.Equal(t, acct.BusinessID, out.Businesses[0].BusinessID, "oldest first")
	assert.Equal(t, pr.Business.ID, out.Businesses[1].BusinessID)

	r = rawDo(t, http.MethodGet, srv.URL+"/v1/balance", "", bearer(onlySecond)...)
	require.NoError(t, json.Unmarshal(r.body, &out))
	require.Len(t, out.Businesses, 1)
	assert.Equal(t, pr.Business.ID, out.Businesses[0].BusinessID)
	r = rawDo(t, http.MethodGet, srv.URL+"/v1/balance?business_id="+acct.BusinessID, "", bearer(onlySecond)...)
	assert.Equal(t, http.StatusForbidden, r.status)

	// Capabilities: a key reaching two workspaces has no single workspace.
	r = rawDo(t, http.MethodGet, srv.URL+"/v1/capabilities", "", bearer(acct.APIKey)...)
	require.Equal(t, http.StatusOK, r.status)
	assert.Nil(t, r.json["workspace"])
	assert.Len(t, r.json["workspaces"], 2)
	allowance := r.json["allowance"].(map[string]any)
	assert.Nil(t, allowance["subscription_status"])
	assert.Nil(t, allowance["trial_ends_at"])
	r = rawDo(t, http.MethodGet, srv.URL+"/v1/capabilities", "", bearer(onlySecond)...)
	assert.Equal(t, pr.Business.ID, r.json["workspace"].(map[string]any)["id"])
	assert.Equal(t, pr.Business.ID, r.json["key"].(map[string]any)["business_id"])
	assert.Equal(t, []any{"billing:read"}, r.json["permissions"])

	// Usage: a key limited to a business sees the requests made with keys
	// limited to it; the account's other keys see the whole account.
	rawDo(t, http.MethodGet, srv.URL+"/v1/balance", "", bearer(onlySecond)...)
	items, _ := usageOf(t, srv, onlySecond, "")
	for _, it := range items {
		assert.Contains(t, []string{"/v1/balance", "/v1/capabilities"}, it.Endpoint)
	}
	assert.Len(t, items, 4, "its own requests: three balance reads (one forbidden) and a capabilities read")
	all, _ := usageOf(t, srv, acct.APIKey, "")
	assert.Len(t, all, 7, "the account key: a balance and a capabilities read; the limited key: four reads and its usage read")
}

func TestUsageRecordsStatusesButNotUnauthenticatedRequests(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	acct, err := srv.NewAccount(AccountOptions{Scopes: []voiceagent.Scope{"billing:read", "numbers:read"}})
	require.NoError(t, err)
	numbers := rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(acct.APIKey)...)
	agents := rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...) // 403
	rawDo(t, http.MethodGet, srv.URL+"/v1/nothing", "", bearer(acct.APIKey)...)          // 404, no route
	rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "")                                  // 401
	items, more := usageOf(t, srv, acct.APIKey, "?limit=500")
	assert.False(t, more)
	require.Len(t, items, 2)
	// An entry's id is its request's X-Request-Id.
	assert.Equal(t, account.UsageEntry{ID: agents.header.Get("X-Request-Id"), Endpoint: "/v1/agents", Method: "GET", StatusCode: 403, CreatedAt: items[0].CreatedAt}, items[0])
	assert.Equal(t, account.UsageEntry{ID: numbers.header.Get("X-Request-Id"), Endpoint: "/v1/numbers", Method: "GET", StatusCode: 200, CreatedAt: items[1].CreatedAt}, items[1])
	assert.NotEmpty(t, items[0].ID)
	assert.True(t, items[0].CreatedAt.After(items[1].CreatedAt))
	r := rawDo(t, http.MethodGet, srv.URL+"/v1/usage?limit=0", "", bearer(acct.APIKey)...)
	assert.Equal(t, "invalid_request", r.code())
}

func TestUsagePricesPlacedCallsAndSentTexts(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	p := &httpapi.Principal{User: nil, Key: srv.keyRecord(acct.APIKey)}
	tx := srv.platform.ReadTx()
	p.User, _ = tx.Users.Get(acct.UserID)
	tx.End()
	n := 0
	record := func(method, path string, status int, body string) {
		n++
		rc := &httpapi.Ctx{Principal: p, Route: &httpapi.Route{Method: method, Path: path}, RequestID: fmt.Sprintf("request-%d", n), Now: acct.Now()}
		srv.httpapi.Usage.Record(rc, &httpapi.Response{Status: status, Header: http.Header{}, Body: []byte(body)})
	}
	record("POST", "/api/v1/calls", 201, `{"id":"call-1","status":"queued"}`)
	record("POST", "/api/v1/calls", 500, `{"error":{"code":"call_failed","message":"x"}}`)
	record("POST", "/api/v1/sms/send", 200, `{"success":true}`)
	items, _ := usageOf(t, srv, acct.APIKey, "")
	require.Len(t, items, 3)
	assert.Equal(t, 1, items[0].CostCents)
	assert.Nil(t, items[0].CallID)
	assert.Equal(t, 0, items[1].CostCents, "a failed call costs nothing")
	assert.Nil(t, items[1].CallID)
	assert.Equal(t, 10, items[2].CostCents)
	require.NotNil(t, items[2].CallID)
	assert.Equal(t, "call-1", *items[2].CallID)
}
