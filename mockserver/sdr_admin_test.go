package mockserver

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAdminCronRunsEveryEnabledBusiness(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t, WithStartTime(afternoonET))
	idle, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	_, err = srv.SeedLeads(acct.BusinessID, []LeadFixture{{Email: "a@example.com"}})
	require.NoError(t, err)
	put := rawDo(t, http.MethodPut, srv.URL+"/sdr/config",
		`{"businessId": "`+acct.BusinessID+`", "enabled": true, "auto_email": true, "business_hours_start": 0, "business_hours_end": 0}`,
		bearer(acct.APIKey)...)
	require.Equal(t, http.StatusOK, put.status, string(put.body))

	r := rawDo(t, http.MethodPost, srv.AdminURL+"/sdr/cron", "")
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	runs := r.json["runs"].([]any)
	require.Len(t, runs, 1, "only the enabled business")
	run := runs[0].(map[string]any)
	assert.Equal(t, acct.BusinessID, run["businessId"])
	assert.Equal(t, "scheduled", run["trigger"])
	assert.Equal(t, 1.0, run["summary"].(map[string]any)["emails_queued"])
	assert.NotEqual(t, idle.BusinessID, run["businessId"])
}
