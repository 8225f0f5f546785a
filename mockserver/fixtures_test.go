package mockserver

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

func TestSeedLeadsAndCallsStoreWhatTheyAreGiven(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t, WithStartTime(afternoonET))
	past := afternoonET.Add(-48 * time.Hour)
	contact := afternoonET.Add(-time.Hour)
	ids, err := srv.SeedLeads(acct.BusinessID, []LeadFixture{
		{Name: "Ada", Phone: "+15550101010", Email: "ada@example.com", Status: "qualified", Source: "web",
			CreatedAt: &past, LastContactAt: &contact, InteractionCount: 2, Consent: "opted_in",
			TouchCount: 1, LastTouchAt: &contact, LastChannel: "sms", Paused: true},
		{ID: "11111111-1111-4111-8111-111111111111", Name: "Bo", CreatedAt: &past},
		{Name: "Cy"},
	})
	require.NoError(t, err)
	require.Len(t, ids, 3)
	assert.Equal(t, "11111111-1111-4111-8111-111111111111", ids[1])

	tx := srv.platform.ReadTx()
	a, _ := tx.Leads.Get(ids[0])
	b, _ := tx.Leads.Get(ids[1])
	c, _ := tx.Leads.Get(ids[2])
	state := tx.SDRLeads[ids[0]]
	consent := tx.Consent(acct.BusinessID, "+15550101010")
	byPhone := tx.LeadByPhone(acct.BusinessID, "+15550101010")
	tx.End()
	assert.Equal(t, "qualified", a.Status)
	assert.Equal(t, acct.AgentID, a.AgentID, "the business's oldest agent by default")
	assert.Equal(t, 80, a.Score, "scored like any lead: 10 + 15 + 15 + 10 + 20 (two interactions) + 10 (qualified)")
	assert.True(t, past.Equal(a.CreatedAt))
	assert.True(t, b.CreatedAt.After(a.CreatedAt), "equal created_at values are made unique")
	assert.True(t, afternoonET.Equal(c.CreatedAt), "created now by default")
	assert.Equal(t, store.ConsentOptedIn, consent)
	assert.Same(t, a, byPhone, "indexed by phone")
	require.NotNil(t, state)
	assert.Equal(t, 1, state.TouchCount)
	assert.True(t, state.Paused)

	callIDs, err := srv.SeedCalls(acct.BusinessID, []CallFixture{
		{To: "+15550101010", Duration: 61, CreatedAt: &past},
		{Direction: "inbound", From: "+15550202020", Status: "no-answer", Duration: 12},
		{To: "+15550303030", Status: "failed", Error: "busy", LeadID: ids[2]},
	})
	require.NoError(t, err)
	tx = srv.platform.ReadTx()
	out, _ := tx.Calls.Get(callIDs[0])
	in, _ := tx.Calls.Get(callIDs[1])
	failed, _ := tx.Calls.Get(callIDs[2])
	minutes := tx.MinutesUsed(acct.BusinessID)
	tx.End()
	assert.Equal(t, store.CallCompleted, out.Status)
	assert.Equal(t, ids[0], out.LeadID, "linked to the lead with the number called")
	assert.Equal(t, acct.PhoneNumber, out.From)
	assert.Equal(t, acct.PhoneNumber, in.To)
	assert.Equal(t, "voicemail", in.EndedReason)
	assert.Equal(t, "busy", failed.Error)
	assert.Equal(t, ids[2], failed.LeadID)
	assert.Equal(t, 2+1, minutes, "61 s and 12 s, each rounded up")
}

func TestSeedingRejectsBadRecordsAndStoresNothing(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t, WithStartTime(afternoonET))
	other, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	future := afternoonET.Add(time.Minute)
	for name, leads := range map[string][]LeadFixture{
		"status":       {{Name: "ok"}, {Status: "hot"}},
		"phone":        {{Phone: "555-1234"}},
		"future":       {{CreatedAt: &future}},
		"agent":        {{AgentID: other.AgentID}},
		"duplicate id": {{ID: "11111111-1111-4111-8111-111111111111"}, {ID: "11111111-1111-4111-8111-111111111111"}},
		"channel":      {{LastChannel: "fax"}},
	} {
		_, err := srv.SeedLeads(acct.BusinessID, leads)
		assert.Error(t, err, name)
	}
	for name, calls := range map[string][]CallFixture{
		"no to":            {{Duration: 3}},
		"inbound, no from": {{Direction: "inbound"}},
		"failed, timed":    {{To: "+15550101010", Status: "failed", Duration: 3}},
		"running":          {{To: "+15550101010", Status: "in-progress"}},
		"foreign lead":     {{To: "+15550101010", LeadID: "11111111-1111-4111-8111-111111111111"}},
	} {
		_, err := srv.SeedCalls(acct.BusinessID, calls)
		assert.Error(t, err, name)
	}
	_, err = srv.SeedLeads("11111111-1111-4111-8111-111111111111", []LeadFixture{{}})
	assert.Error(t, err, "unknown business")
	tx := srv.platform.ReadTx()
	defer tx.End()
	assert.Zero(t, tx.Leads.Count(acct.BusinessID))
	assert.Zero(t, tx.Calls.Count(acct.BusinessID))
}

func TestFixturesThroughTheAdminAPIAndAFile(t *testing.T) {
	t.Parallel()
	srv := Start(t, WithStartTime(afternoonET))
	body := `{"accounts": [{"business_name": "Fixture Co", "email": "fx@example.com",
		"leads": [{"name": "Ada", "created_at": "2026-03-01T10:00:00Z"}, {"name": "Bo", "status": "converted"}],
		"calls": [{"to": "+15550101010", "duration": 30, "created_at": "2026-03-02T10:00:00Z"}]}]}`
	r := rawDo(t, http.MethodPost, srv.AdminURL+"/fixtures", body)
	require.Equal(t, http.StatusCreated, r.status, string(r.body))
	var out struct {
		Accounts []Account `json:"accounts"`
	}
	require.NoError(t, json.Unmarshal(r.body, &out))
	require.Len(t, out.Accounts, 1)
	key := out.Accounts[0].APIKey

	leads := rawDo(t, http.MethodGet, srv.URL+"/v1/leads", "", bearer(key)...)
	require.Equal(t, http.StatusOK, leads.status)
	items := leads.json["leads"].([]any)
	require.Len(t, items, 2)
	assert.Equal(t, "Bo", items[0].(map[string]any)["name"], "newest first")
	dash := rawDo(t, http.MethodGet, srv.URL+"/v1/analytics/dashboard", "", bearer(key)...)
	require.Equal(t, http.StatusOK, dash.status)
	assert.Equal(t, 1.0, dash.json["calls"].(map[string]any)["total"])

	bad := rawDo(t, http.MethodPost, srv.AdminURL+"/fixtures", `{"accounts": [{"leads": [{"status": "hot"}]}]}`)
	assert.Equal(t, http.StatusBadRequest, bad.status)
	assert.Equal(t, voiceagent.CodeInvalidRequest, bad.code())
	assert.Contains(t, bad.message(), "/accounts/0/leads/0/status")
	future := rawDo(t, http.MethodPost, srv.AdminURL+"/fixtures", `{"accounts": [{"calls": [{"to": "+15550101010", "created_at": "2030-01-01T00:00:00Z"}]}]}`)
	assert.Equal(t, http.StatusBadRequest, future.status)
	assert.Contains(t, future.message(), "/accounts/0/calls/0/created_at")

	path := filepath.Join(t.TempDir(), "fixtures.json")
	require.NoError(t, os.WriteFile(path, []byte(body), 0o600))
	accts, err := srv.LoadFixturesFile(path)
	require.NoError(t, err)
	require.Len(t, accts, 1)
	assert.Equal(t, out.Accounts[0].UserID, accts[0].UserID, "the same email is the same user: a second business")
	require.NoError(t, os.WriteFile(path, []byte(`{"accounts": [], "extra": 1}`), 0o600))
	_, err = srv.LoadFixturesFile(path)
	assert.ErrorContains(t, err, "extra")
}
