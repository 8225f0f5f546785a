package mockserver

import (
	"net/http"
	"testing"
	"time"

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

// The scheduled runner runs each business at its tenant's time: a tenant
// whose clock was advanced into the night is outside its business hours
// while another, on the base time, is inside its own.
func TestAdminCronRunsEachBusinessAtItsTenantsTime(t *testing.T) {
	t.Parallel()
	srv, day := startWithAccount(t, WithStartTime(afternoonET))
	night, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	for _, acct := range []*Account{day, night} {
		put := rawDo(t, http.MethodPut, srv.URL+"/sdr/config",
			`{"businessId": "`+acct.BusinessID+`", "enabled": true, "business_hours_start": 9, "business_hours_end": 17}`,
			bearer(acct.APIKey)...)
		require.Equal(t, http.StatusOK, put.status, string(put.body))
	}
	night.Advance(9 * time.Hour)

	r := rawDo(t, http.MethodPost, srv.AdminURL+"/sdr/cron", "")
	require.Equal(t, http.StatusOK, r.status, string(r.body))
	inHours := map[string]any{}
	for _, run := range r.json["runs"].([]any) {
		m := run.(map[string]any)
		inHours[m["businessId"].(string)] = m["in_business_hours"]
	}
	assert.Equal(t, map[string]any{day.BusinessID: true, night.BusinessID: false}, inHours)
}
