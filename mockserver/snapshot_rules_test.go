package mockserver

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

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
