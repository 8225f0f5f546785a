package account_test

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/account"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

func TestBalanceOfANewAccount(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	bal, err := env.Client.Account.Balance(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, []account.BalanceEntry{{
		BusinessID: env.Account.BusinessID, MinutesUsed: 0, PhoneNumbers: 1, SubscriptionStatus: "active",
	}}, bal)

	bal, err = env.Client.Account.Balance(ctx, &account.BalanceParams{BusinessID: env.Account.BusinessID})
	require.NoError(t, err)
	assert.Len(t, bal, 1)

	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	_, err = env.Client.Account.Balance(ctx, &account.BalanceParams{BusinessID: other.BusinessID})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden, "another tenant's business")
	_, err = env.Client.Account.Balance(ctx, &account.BalanceParams{BusinessID: "00000000-0000-4000-8000-000000000000"})
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
}

func TestBalanceAndUsageNeedBillingRead(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	noBilling := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"agents:read"}})
	c := env.ClientFor(noBilling.APIKey)
	_, err := c.Account.Balance(ctx, nil)
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	_, err = c.Account.Usage.List(ctx, nil)
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Contains(t, apiErr.Message, "billing:read")

	// Capabilities and schemas need nothing beyond a valid key.
	_, err = c.Account.Capabilities(ctx)
	assert.NoError(t, err)
	_, err = c.Account.Schemas(ctx)
	assert.NoError(t, err)

	bad := env.ClientFor("voiceagent_live_000000000000000000000000000000000000000X")
	_, err = bad.Account.Capabilities(ctx)
	assert.ErrorIs(t, err, voiceagent.ErrUnauthorized)
	_, err = bad.Account.Schema(ctx, "agentCreate")
	assert.ErrorIs(t, err, voiceagent.ErrUnauthorized)
}

func TestUsageLogsEveryAuthenticatedRequestNewestFirst(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	_, err := env.Client.Agents.List(ctx, nil)
	require.NoError(t, err)
	_, err = env.Client.Agents.Get(ctx, "00000000-0000-4000-8000-000000000000")
	require.ErrorIs(t, err, voiceagent.ErrNotFound)
	_, err = env.Client.Numbers.List(ctx, nil)
	require.NoError(t, err)
	_, err = env.ClientFor("voiceagent_live_nope").Agents.List(ctx, nil)
	require.ErrorIs(t, err, voiceagent.ErrUnauthorized)

	page, err := env.Client.Account.Usage.List(ctx, nil)
	require.NoError(t, err)
	assert.False(t, page.HasMore)
	require.Len(t, page.Data, 3, "the unauthenticated request belongs to nobody")
	got := [][3]any{}
	for _, e := range page.Data {
		got = append(got, [3]any{e.Method, e.Endpoint, e.StatusCode})
		assert.NotEmpty(t, e.ID)
		assert.Nil(t, e.CallID)
		assert.Zero(t, e.CostCents, "reads are free")
	}
	assert.Equal(t, [][3]any{
		{"GET", "/v1/numbers", 200}, {"GET", "/v1/agents", 404}, {"GET", "/v1/agents", 200},
	}, got)
	assert.True(t, page.Data[0].CreatedAt.After(page.Data[1].CreatedAt))

	// Another tenant sees only its own requests: the first read of its log
	// finds nothing yet.
	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	op, err := env.ClientFor(other.APIKey).Account.Usage.List(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, op.Data)
}

func TestUsagePagesWindowsAndIterates(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	for range 3 {
		_, err := env.Client.Agents.List(ctx, nil)
		require.NoError(t, err)
	}
	mid := env.Server.Advance(time.Hour)
	for range 4 {
		_, err := env.Client.Numbers.List(ctx, nil)
		require.NoError(t, err)
	}
	end := env.Server.Advance(time.Hour)
	_, err := env.Client.Agents.ListVoices(ctx) // after the window
	require.NoError(t, err)

	p := &account.UsageListParams{Start: &mid, End: &end, Limit: 3}
	first, err := env.Client.Account.Usage.List(ctx, p)
	require.NoError(t, err)
	require.Len(t, first.Data, 3)
	assert.True(t, first.HasMore)
	for _, e := range first.Data {
		assert.Equal(t, "/v1/numbers", e.Endpoint)
	}
	second, err := env.Client.Account.Usage.List(ctx, &account.UsageListParams{Start: &mid, End: &end, Limit: 3, After: first.NextCursor})
	require.NoError(t, err)
	require.Len(t, second.Data, 1)
	assert.False(t, second.HasMore)
	assert.Equal(t, "/v1/numbers", second.Data[0].Endpoint)

	var walked []string
	for e, err := range env.Client.Account.Usage.All(ctx, p) {
		require.NoError(t, err)
		walked = append(walked, e.Endpoint)
	}
	assert.Equal(t, []string{"/v1/numbers", "/v1/numbers", "/v1/numbers", "/v1/numbers"}, walked)
	assert.Equal(t, &account.UsageListParams{Start: &mid, End: &end, Limit: 3}, p, "All does not change the params")

	// Only a start: everything since, the reads of the log included.
	n := 0
	for e, err := range env.Client.Account.Usage.All(ctx, &account.UsageListParams{Start: &end, Limit: 500}) {
		require.NoError(t, err)
		assert.False(t, e.CreatedAt.Before(end))
		n++
	}
	assert.Equal(t, 5, n, "voices and the four reads of the log so far (two Lists, two pages of All)")

	// The whole log: 3 + 4 + 1 requests and the 5 reads of the log before.
	all := 0
	for _, err := range env.Client.Account.Usage.All(ctx, &account.UsageListParams{Limit: 2}) {
		require.NoError(t, err)
		all++
	}
	assert.Equal(t, 13, all)
}

func TestUsageRejectsBadParameters(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	now := env.Server.Now()
	earlier := now.Add(-time.Hour)
	for name, p := range map[string]*account.UsageListParams{
		"limit": {Limit: 501},
		"end":   {Start: &now, End: &earlier},
		"after": {After: "yesterday"},
	} {
		_, err := env.Client.Account.Usage.List(ctx, p)
		var apiErr *voiceagent.Error
		require.ErrorAs(t, err, &apiErr, name)
		assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode, name)
		assert.Equal(t, voiceagent.CodeInvalidRequest, apiErr.Code, name)
		require.Len(t, apiErr.Details, 1, name)
		assert.Equal(t, name, apiErr.Details[0].Path)
	}
	var out map[string]any
	err := env.Client.Do(ctx, http.MethodGet, "/v1/usage", map[string][]string{"start": {"last week"}}, nil, &out)
	require.Error(t, err, "a query must be url.Values or a struct")
	type raw struct {
		Start string `url:"start"`
		Limit string `url:"limit,omitempty"`
	}
	err = env.Client.Do(ctx, http.MethodGet, "/v1/usage", raw{Start: "last week"}, nil, &out)
	assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest)
	err = env.Client.Do(ctx, http.MethodGet, "/v1/usage", raw{Start: "2026-01-02", Limit: "ten"}, nil, &out)
	assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest)
	require.NoError(t, env.Client.Do(ctx, http.MethodGet, "/v1/usage", raw{Start: "2026-01-02"}, nil, &out), "a date is ISO 8601 too")
	assert.Contains(t, out, "has_more")
}

func TestCapabilitiesDescribeTheKey(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, mockserver.WithRateLimitScale(2))
	ctx := context.Background()
	limited := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{
		BusinessName: "Limited Co", Scopes: []voiceagent.Scope{"agents:read", "billing:read"},
	})
	caps, err := env.ClientFor(limited.APIKey).Account.Capabilities(ctx)
	require.NoError(t, err)

	require.NotNil(t, caps.Workspace)
	assert.Equal(t, limited.BusinessID, caps.Workspace.ID)
	assert.Equal(t, "Limited Co", caps.Workspace.Name)
	assert.Equal(t, "active", caps.Workspace.SubscriptionStatus)
	require.Len(t, caps.Workspaces, 1)
	assert.Equal(t, *caps.Workspace, caps.Workspaces[0])

	assert.Equal(t, limited.APIKey[:20], caps.Key.Prefix)
	assert.NotEmpty(t, caps.Key.ID)
	assert.Equal(t, []voiceagent.Scope{"agents:read", "billing:read"}, caps.Key.Scopes)
	assert.Nil(t, caps.Key.BusinessID, "the key reaches all its user's businesses")
	assert.Nil(t, caps.Key.ExpiresAt)
	assert.Equal(t, []voiceagent.Scope{"agents:read", "billing:read"}, caps.Permissions)
	assert.True(t, caps.Can(voiceagent.ScopeBillingRead))
	assert.False(t, caps.Can(voiceagent.ScopeCallsWrite))

	a := caps.Allowance
	assert.True(t, a.RateLimitsEnforced)
	require.NotNil(t, a.SubscriptionStatus)
	assert.Equal(t, "active", *a.SubscriptionStatus)
	require.NotNil(t, a.TrialEndsAt)
	assert.Equal(t, caps.Workspace.TrialEndsAt.UTC(), a.TrialEndsAt.UTC())
	assert.WithinDuration(t, env.Server.Now().Add(14*24*time.Hour), *a.TrialEndsAt, time.Minute)
	limits := map[string]account.RateLimit{}
	for _, rl := range a.RateLimits {
		limits[rl.Group] = rl
	}
	assert.Equal(t, account.RateLimit{Group: "calls.create", Method: "POST", Path: "/v1/calls", Limit: 120, WindowSeconds: 60, Per: "key"},
		limits["calls.create"], "the server's scale applies")
	assert.Equal(t, account.RateLimit{Group: "signup", Method: "POST", Path: "/v1/signup", Limit: 10, WindowSeconds: 3600, Per: "ip"}, limits["signup"])
	assert.Equal(t, "/v1/analytics/*", limits["analytics"].Path)
	assert.Equal(t, "*", limits["reads"].Path)

	// Every scope: the full permission list.
	full, err := env.Client.Account.Capabilities(ctx)
	require.NoError(t, err)
	assert.ElementsMatch(t, voiceagent.AllScopes, full.Permissions)
}

func TestCapabilitiesWithoutRateLimitsAndWithTheWildcard(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, mockserver.WithRateLimits(false))
	wild := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"*"}})
	caps, err := env.ClientFor(wild.APIKey).Account.Capabilities(context.Background())
	require.NoError(t, err)
	assert.False(t, caps.Allowance.RateLimitsEnforced)
	assert.Equal(t, []voiceagent.Scope{"*"}, caps.Key.Scopes)
	assert.ElementsMatch(t, voiceagent.AllScopes, caps.Permissions, "the wildcard grants every scope")
}

func TestSchemaCatalogAndOneSchema(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	catalog, err := env.Client.Account.Schemas(ctx)
	require.NoError(t, err)
	byName := map[string]account.SchemaInfo{}
	for _, s := range catalog {
		byName[s.Name] = s
		assert.NotEmpty(t, s.Title, s.Name)
		assert.NotEmpty(t, s.Description, s.Name)
	}
	for _, name := range []string{"signupOtpRequest", "signupOtpVerify", "productUpsert", "knowledgeUpsert", "agentCreate", "agentUpdate", "webhookUpsert", "common"} {
		assert.Contains(t, byName, name)
	}
	ac := byName["agentCreate"]
	assert.Equal(t, "Create an agent", ac.Title)
	assert.Equal(t, "https://api.voiceagent.example/schemas/agentCreate.json", ac.ID)
	assert.Equal(t, env.Server.URL+"/v1/schemas?name=agentCreate", ac.URL)

	raw, err := env.Client.Account.Schema(ctx, "agentCreate")
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(raw, &doc))
	assert.Equal(t, ac.ID, doc["$id"])
	assert.Equal(t, "object", doc["type"])

	// The catalog's URL is directly usable.
	req, err := http.NewRequest(http.MethodGet, ac.URL, nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+env.Account.APIKey)
	resp, err := env.HTTPClient().Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)

	_, err = env.Client.Account.Schema(ctx, "noSuchSchema")
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
	_, err = env.Client.Account.Schema(ctx, "../openapi")
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
}
