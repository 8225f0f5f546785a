package mockserver

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

func TestHealthAnswersTheVersion(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	r := rawDo(t, http.MethodGet, srv.AdminURL+"/health", "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Equal(t, map[string]any{"status": "ok", "version": Version()}, r.json)
	assert.NotEmpty(t, Version())
	assert.Equal(t, http.StatusMethodNotAllowed, rawDo(t, http.MethodPost, srv.AdminURL+"/health", "{}").status)
	assert.Empty(t, srv.Requests(nil), "the admin API is not journaled")
}

func TestTheAdminAPIServesItsOwnDocument(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	r := rawDo(t, http.MethodGet, srv.AdminURL+"/openapi.yaml", "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Equal(t, "application/yaml", r.header.Get("Content-Type"))
	var doc struct {
		OpenAPI string                    `yaml:"openapi"`
		Servers []struct{ URL string }    `yaml:"servers"`
		Paths   map[string]map[string]any `yaml:"paths"`
	}
	require.NoError(t, yaml.Unmarshal(r.body, &doc))
	assert.Equal(t, "3.1.0", doc.OpenAPI)
	require.NotEmpty(t, doc.Servers)
	assert.Equal(t, srv.HTTP.URL, doc.Servers[0].URL, "the serving mock comes first")
	for _, rt := range srv.Routes() {
		if strings.HasPrefix(rt.Path, "/_mock/") {
			assert.Contains(t, doc.Paths[rt.Path], strings.ToLower(rt.Method), "the document describes %s %s", rt.Method, rt.Path)
		}
	}
	assert.False(t, strings.Contains(string(r.body), "$ref: 'adminschemas/"), "self-contained: the body schemas are bundled")
	assert.True(t, strings.Contains(string(r.body), "$ref: '#/components/schemas/mockClockAdvance'"))
}

func TestResetKeepsTheSeedAccounts(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	demo, err := srv.SeedAccount(AccountOptions{BusinessName: "Demo Business", Email: "demo@example.com"})
	require.NoError(t, err)
	other, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	_, err = srv.SeedAccount(AccountOptions{Scopes: []voiceagent.Scope{"nope"}})
	assert.Error(t, err)

	agents := func(key string) rawResp { return rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(key)...) }
	created := rawDo(t, http.MethodPost, srv.URL+"/v1/webhooks",
		`{"business_id":"`+demo.BusinessID+`","webhook_url":"https://crm.example/hooks"}`, bearer(demo.APIKey)...)
	require.Equal(t, http.StatusCreated, created.status, "%s", created.body)

	demo.Advance(time.Hour)
	require.True(t, demo.Now().After(srv.Now()))

	r := rawDo(t, http.MethodPost, srv.AdminURL+"/reset", "")
	require.Equal(t, http.StatusOK, r.status, "%s", r.body)
	assert.Equal(t, map[string]any{"reset": true, "seed_accounts": float64(1)}, r.json)

	// It is a tenant again, its clock back at the base time.
	tenants := srv.Tenants()
	require.Len(t, tenants, 1)
	assert.Equal(t, demo.BusinessID, tenants[0].BusinessID)
	assert.Equal(t, srv.Now(), tenants[0].Now)
	assert.Equal(t, srv.Now(), demo.Now())

	// The seed account is back as it was: the same key, business, agent,
	// number and session; what it made, and other accounts, are gone.
	a := agents(demo.APIKey)
	require.Equal(t, http.StatusOK, a.status, "the key printed at start keeps working: %s", a.body)
	assert.Contains(t, string(a.body), demo.AgentID)
	assert.Contains(t, string(a.body), demo.PhoneNumber)
	assert.Equal(t, http.StatusUnauthorized, agents(other.APIKey).status)
	caps := rawDo(t, http.MethodGet, srv.URL+"/v1/capabilities", "", bearer(demo.APIKey)...)
	assert.Contains(t, string(caps.body), demo.BusinessID)
	subs := rawDo(t, http.MethodGet, srv.URL+"/v1/webhooks", "", bearer(demo.APIKey)...)
	assert.NotContains(t, string(subs.body), created.json["id"], "the seed account starts over")
	keys := rawDo(t, http.MethodGet, srv.URL+"/v1/keys", "", "Cookie", "voiceagent_session="+demo.Session)
	assert.Equal(t, http.StatusOK, keys.status, "the session too: %s", keys.body)

	// A new account after the reset gets another number than the seed's.
	next, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	assert.NotEqual(t, demo.PhoneNumber, next.PhoneNumber)

	// ?seed=none leaves the server empty; the next reset brings the seed back.
	r = rawDo(t, http.MethodPost, srv.AdminURL+"/reset?seed=none", "")
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, float64(0), r.json["seed_accounts"])
	assert.Equal(t, http.StatusUnauthorized, agents(demo.APIKey).status)
	srv.Reset()
	assert.Equal(t, http.StatusOK, agents(demo.APIKey).status)
	srv.ResetEmpty()
	assert.Equal(t, http.StatusUnauthorized, agents(demo.APIKey).status)

	r = rawDo(t, http.MethodPost, srv.AdminURL+"/reset?seed=all", "")
	assert.Equal(t, http.StatusBadRequest, r.status)
	assert.Equal(t, "invalid_request", r.code())
	assert.Contains(t, r.message(), "seed: must be none")
}

// A TestServer has no seed account: a reset leaves it empty.
func TestResetWithoutSeedAccountsDropsAll(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	r := rawDo(t, http.MethodPost, srv.AdminURL+"/reset", "")
	require.Equal(t, http.StatusOK, r.status)
	assert.Equal(t, float64(0), r.json["seed_accounts"])
	assert.Equal(t, http.StatusUnauthorized, rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...).status)
}

// A partner seed account comes back with its partner and referral code.
func TestResetKeepsAPartnerSeedAccount(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	p, err := srv.SeedAccount(AccountOptions{Partner: true, Operator: true})
	require.NoError(t, err)
	require.NotEmpty(t, p.PartnerID)
	srv.Reset()
	signup := func(code string) rawResp {
		return rawDo(t, http.MethodPost, srv.URL+"/v1/signup",
			`{"business_name":"Referred","email":"referred@example.com","referral_code":"`+code+`"}`)
	}
	assert.Equal(t, http.StatusBadRequest, signup("ref_unknown").status)
	r := signup(p.ReferralCode)
	assert.Equal(t, http.StatusOK, r.status, "the referral code is known again: %s", r.body)
}
