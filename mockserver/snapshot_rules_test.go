package mockserver

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/agents"
)

// An account made for a registered email belongs to another tenant's
// user: the API allows it, so the store's rules do too. Its tenant's
// snapshot restores, it copies, the whole server restores into a new
// server; the user stays the first tenant's, and its key reaches the
// businesses it reached.
func TestRestoreKeepsAUserSharedByTwoTenants(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithStartTime(afternoonET))
	first, err := srv.NewAccount(AccountOptions{Email: "shared@example.com"})
	require.NoError(t, err)
	second, err := srv.NewAccount(AccountOptions{Email: "shared@example.com"})
	require.NoError(t, err)
	require.Equal(t, first.UserID, second.UserID, "the registered email's user")
	require.NotEqual(t, first.BusinessID, second.BusinessID)
	agentsOf := func(acct *Account, businessID string) []string {
		t.Helper()
		list, err := acct.Client().Agents.List(context.Background(), &agents.ListParams{BusinessID: businessID})
		require.NoError(t, err)
		var ids []string
		for _, a := range list {
			ids = append(ids, a.ID)
		}
		return ids
	}
	before := []any{agentsOf(first, first.BusinessID), agentsOf(first, second.BusinessID), srv.Tenants()}

	for _, acct := range []*Account{second, first, second} {
		snap, err := acct.Snapshot()
		require.NoError(t, err)
		require.NoError(t, srv.Restore(snap), "a tenant's snapshot restores as it was")
	}
	assert.Equal(t, before, []any{agentsOf(first, first.BusinessID), agentsOf(first, second.BusinessID), srv.Tenants()})
	snap, err := first.Snapshot()
	require.NoError(t, err)
	assert.Contains(t, string(snap.JSON), `"Email":"shared@example.com"`, "the user stays the first tenant's")

	cp, err := second.Copy()
	require.NoError(t, err, "a copy lists whom its original lists")
	assert.Contains(t, agentsOf(first, cp.BusinessID), cp.AgentID)

	whole, err := srv.Snapshot()
	require.NoError(t, err)
	other := Start(t, WithStartTime(afternoonET))
	require.NoError(t, other.Restore(whole))
	again, err := other.Snapshot()
	require.NoError(t, err)
	assert.JSONEq(t, string(whole.JSON), string(again.JSON))
}

// A refused restore names its member in the Go helpers' *Error too, and
// a clock may not be restored past 9000-01-01.
func TestRestoreRefusesATimeNoClockReaches(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithStartTime(afternoonET))
	acct, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	snap, err := acct.Snapshot()
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(snap.JSON, &doc))
	doc["tenants"].([]any)[0].(map[string]any)["now"] = "9000-01-01T00:00:00Z"
	data, err := json.Marshal(doc)
	require.NoError(t, err)
	late, err := ParseSnapshot(data)
	require.NoError(t, err)
	var e *Error
	require.ErrorAs(t, srv.Restore(late), &e)
	assert.Equal(t, http.StatusBadRequest, e.Status)
	assert.Equal(t, "tenants.0.now", e.Details[0].Path)
	assert.Equal(t, afternoonET, acct.Now(), "the clock did not move")

	assert.ErrorContains(t, CheckOptions(WithStartTime(ClockEnd)), "WithStartTime")
	assert.NoError(t, CheckOptions(WithStartTime(ClockEnd.Add(-time.Hour))))
}
