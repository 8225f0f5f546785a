package keys_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/keys"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// dashboard returns a client authenticated by an account's session only.
func dashboard(env *testenv.Env, acct *mockserver.Account) *client.Client {
	return env.ClientFor("", voiceagent.WithSessionCookie(acct.Session))
}

func apiErr(t *testing.T, err error, status int, code string) *voiceagent.Error {
	t.Helper()
	var e *voiceagent.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, status, e.StatusCode)
	assert.Equal(t, code, e.Code)
	return e
}

func TestCreateUseListRevoke(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	dash := dashboard(env, env.Account)

	k, err := dash.Keys.Create(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, keys.DefaultName, k.Name)
	assert.Equal(t, voiceagent.KeyDefaultScopes, k.Scopes)
	assert.Regexp(t, `^voiceagent_live_[0-9A-Za-z]{40}$`, k.Value)
	assert.Equal(t, k.Value[:20], k.Prefix)
	assert.Nil(t, k.BusinessID)
	assert.Nil(t, k.PartnerID)
	assert.Equal(t, env.Account.UserID, k.UserID)
	assert.True(t, k.IsActive)
	assert.Nil(t, k.LastUsedAt)
	assert.Nil(t, k.ExpiresAt)
	assert.WithinDuration(t, env.Server.Now(), k.CreatedAt, time.Microsecond, "created_at is on the simulated clock")

	// The key works with its default scopes, and its use is recorded.
	env.Server.Advance(time.Minute)
	used := env.Server.Now()
	_, err = env.ClientFor(k.Value).Agents.List(ctx, nil)
	require.NoError(t, err)

	page, err := dash.Keys.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, page.Data, 2, "the account's key and the new one")
	assert.False(t, page.HasMore)
	got := page.Data[0]
	assert.Equal(t, k.ID, got.ID, "newest first")
	assert.Equal(t, k.Prefix, got.Prefix)
	require.NotNil(t, got.LastUsedAt)
	assert.True(t, used.Equal(*got.LastUsedAt))
	assert.Equal(t, env.Account.APIKey[:20], page.Data[1].Prefix)

	// The list never shows a key's value.
	raw := rawGet(t, env, "/v1/keys", env.Account.Session)
	assert.NotContains(t, raw, k.Value)
	assert.NotContains(t, raw, env.Account.APIKey)

	rev, err := dash.Keys.Revoke(ctx, k.ID)
	require.NoError(t, err)
	assert.True(t, rev.Success)
	require.NotNil(t, rev.RevokedAt)

	_, err = env.ClientFor(k.Value).Agents.List(ctx, nil)
	e := apiErr(t, err, http.StatusUnauthorized, voiceagent.CodeUnauthorized)
	assert.Contains(t, e.Message, "revoked")

	page, err = dash.Keys.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, page.Data, 2, "revoked keys stay listed")
	assert.False(t, page.Data[0].IsActive)
	assert.NotNil(t, page.Data[0].RevokedAt)
	assert.True(t, page.Data[1].IsActive)

	again, err := dash.Keys.Revoke(ctx, k.ID)
	require.NoError(t, err)
	assert.Equal(t, rev.RevokedAt, again.RevokedAt, "revoking twice keeps the first time")
}

func rawGet(t *testing.T, env *testenv.Env, path, session string) string {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, env.Server.URL+path, nil)
	require.NoError(t, err)
	req.AddCookie(&http.Cookie{Name: voiceagent.SessionCookieName, Value: session})
	resp, err := env.HTTPClient().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, string(b))
	return string(b)
}

func TestBearerKeysCannotManageKeys(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	_, err := env.Client.Keys.List(ctx, nil)
	e := apiErr(t, err, http.StatusUnauthorized, voiceagent.CodeUnauthorized)
	assert.Contains(t, e.Message, "session")
	_, err = env.Client.Keys.Create(ctx, &keys.CreateParams{Name: "escalate", Scopes: []voiceagent.Scope{voiceagent.ScopeBillingWrite}})
	apiErr(t, err, http.StatusUnauthorized, voiceagent.CodeUnauthorized)
	_, err = env.Client.Keys.Revoke(ctx, "anything")
	apiErr(t, err, http.StatusUnauthorized, voiceagent.CodeUnauthorized)

	_, err = env.ClientFor("", voiceagent.WithSessionCookie("sess_bogus")).Keys.List(ctx, nil)
	e = apiErr(t, err, http.StatusUnauthorized, voiceagent.CodeUnauthorized)
	assert.Contains(t, e.Message, "session")
}

func TestSessionExpires(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	dash := dashboard(env, env.Account)
	_, err := dash.Keys.List(context.Background(), nil)
	require.NoError(t, err)
	env.Server.Advance(30 * 24 * time.Hour)
	_, err = dash.Keys.List(context.Background(), nil)
	apiErr(t, err, http.StatusUnauthorized, voiceagent.CodeUnauthorized)
}

func TestScopes(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	dash := dashboard(env, env.Account)

	for _, sc := range []voiceagent.Scope{
		voiceagent.ScopeSDRRead, voiceagent.ScopeSDRWrite, voiceagent.ScopeApprovalsWrite,
		voiceagent.ScopeConciergeWrite, voiceagent.ScopeCallEvidenceRead, voiceagent.ScopeCallEvidenceWrite,
		voiceagent.ScopeSupportWrite, "*", "calls:delete",
	} {
		_, err := dash.Keys.Create(ctx, &keys.CreateParams{Scopes: []voiceagent.Scope{voiceagent.ScopeCallsRead, sc}})
		e := apiErr(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
		require.NotEmpty(t, e.Details, sc)
		assert.Equal(t, "/scopes/1", e.Details[0].Path, sc)
	}
	_, err := dash.Keys.Create(ctx, &keys.CreateParams{Scopes: []voiceagent.Scope{voiceagent.ScopeCallsRead, voiceagent.ScopeCallsRead}})
	apiErr(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
	_, err = dash.Keys.Create(ctx, &keys.CreateParams{Name: strings.Repeat("n", 101)})
	apiErr(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)

	k, err := dash.Keys.Create(ctx, &keys.CreateParams{Name: "reader", Scopes: []voiceagent.Scope{voiceagent.ScopeNumbersRead, voiceagent.ScopeBillingRead}})
	require.NoError(t, err)
	assert.Equal(t, "reader", k.Name)
	assert.Equal(t, []voiceagent.Scope{voiceagent.ScopeNumbersRead, voiceagent.ScopeBillingRead}, k.Scopes)
	reader := env.ClientFor(k.Value)
	_, err = reader.Numbers.List(ctx, nil)
	require.NoError(t, err)
	_, err = reader.Agents.List(ctx, nil)
	apiErr(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
}

func TestBusinessRestrictedKeys(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	// The same email again gives the same user a second business.
	email := "multi@acme.example"
	first := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Email: email, BusinessName: "First"})
	second := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Email: email, BusinessName: "Second"})
	require.Equal(t, first.UserID, second.UserID)
	dash := dashboard(env, first)

	all, err := dash.Keys.Create(ctx, &keys.CreateParams{Scopes: []voiceagent.Scope{voiceagent.ScopeAgentsRead}})
	require.NoError(t, err)
	list, err := env.ClientFor(all.Value).Agents.List(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, list, 2, "no business_id: every business of the user")

	one, err := dash.Keys.Create(ctx, &keys.CreateParams{BusinessID: second.BusinessID, Scopes: []voiceagent.Scope{voiceagent.ScopeAgentsRead}})
	require.NoError(t, err)
	require.NotNil(t, one.BusinessID)
	assert.Equal(t, second.BusinessID, *one.BusinessID)
	list, err = env.ClientFor(one.Value).Agents.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, second.AgentID, list[0].ID)

	// Someone else's business: 403; no such business: 404.
	_, err = dash.Keys.Create(ctx, &keys.CreateParams{BusinessID: env.Account.BusinessID})
	e := apiErr(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
	assert.Contains(t, e.Message, "owners or admins")
	_, err = dash.Keys.Create(ctx, &keys.CreateParams{BusinessID: "00000000-0000-4000-8000-000000000000"})
	apiErr(t, err, http.StatusNotFound, voiceagent.CodeNotFound)
	_, err = dash.Keys.Create(ctx, &keys.CreateParams{BusinessID: "not-a-uuid"})
	apiErr(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
}

func TestPartnerKeys(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	operator := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Operator: true})
	partner := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Partner: true})
	ops := dashboard(env, operator)

	k, err := ops.Keys.Create(ctx, &keys.CreateParams{PartnerID: partner.PartnerID, Scopes: []voiceagent.Scope{voiceagent.ScopeAgentsRead}})
	require.NoError(t, err)
	require.NotNil(t, k.PartnerID)
	assert.Equal(t, partner.PartnerID, *k.PartnerID)
	assert.Equal(t, operator.UserID, k.UserID, "default: the minting operator")
	list, err := env.ClientFor(k.Value).Agents.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, list, 1, "exactly the partner's businesses, not the operator's")
	assert.Equal(t, partner.AgentID, list[0].ID)

	// Acting as the partner's user: listed for that user, revocable by both.
	as, err := ops.Keys.Create(ctx, &keys.CreateParams{PartnerID: partner.PartnerID, UserID: partner.UserID})
	require.NoError(t, err)
	assert.Equal(t, partner.UserID, as.UserID)
	page, err := dashboard(env, partner).Keys.List(ctx, nil)
	require.NoError(t, err)
	assert.Equal(t, as.ID, page.Data[0].ID)
	_, err = ops.Keys.Revoke(ctx, as.ID)
	require.NoError(t, err)

	_, err = dashboard(env, partner).Keys.Create(ctx, &keys.CreateParams{PartnerID: partner.PartnerID})
	e := apiErr(t, err, http.StatusForbidden, voiceagent.CodeForbidden)
	assert.Contains(t, e.Message, "operators")
	_, err = ops.Keys.Create(ctx, &keys.CreateParams{PartnerID: "00000000-0000-4000-8000-000000000000"})
	apiErr(t, err, http.StatusNotFound, voiceagent.CodeNotFound)
	_, err = ops.Keys.Create(ctx, &keys.CreateParams{PartnerID: partner.PartnerID, UserID: "00000000-0000-4000-8000-000000000000"})
	apiErr(t, err, http.StatusNotFound, voiceagent.CodeNotFound)
	_, err = ops.Keys.Create(ctx, &keys.CreateParams{PartnerID: partner.PartnerID, BusinessID: partner.BusinessID})
	e = apiErr(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
	assert.Contains(t, e.Message, "cannot be combined")
	_, err = ops.Keys.Create(ctx, &keys.CreateParams{UserID: partner.UserID})
	e = apiErr(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
	assert.Contains(t, e.Message, "partner_id")
}

func TestRevokeErrors(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	k, err := dashboard(env, other).Keys.Create(ctx, nil)
	require.NoError(t, err)

	dash := dashboard(env, env.Account)
	_, err = dash.Keys.Revoke(ctx, k.ID)
	apiErr(t, err, http.StatusNotFound, voiceagent.CodeNotFound)
	_, err = dash.Keys.Revoke(ctx, "nope")
	apiErr(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
	_, err = dash.Keys.Revoke(ctx, "7c9e6679-7425-40de-944b-e07fc1f90ae7")
	apiErr(t, err, http.StatusNotFound, voiceagent.CodeNotFound)
	_, err = dash.Keys.Revoke(ctx, "")
	assert.ErrorIs(t, err, voiceagent.ErrEmptyID)

	_, err = env.ClientFor(k.Value).Numbers.List(ctx, nil)
	require.NoError(t, err, "the other tenant's key still works")
}

func TestPaging(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	dash := dashboard(env, env.Account)
	want := []string{}
	for range 4 {
		k, err := dash.Keys.Create(ctx, nil)
		require.NoError(t, err)
		want = append([]string{k.ID}, want...)
	}
	page, err := dash.Keys.List(ctx, &keys.ListParams{Limit: 2})
	require.NoError(t, err)
	assert.True(t, page.HasMore)
	assert.Equal(t, want[:2], []string{page.Data[0].ID, page.Data[1].ID})

	var seen []string
	for k, err := range dash.Keys.All(ctx, &keys.ListParams{Limit: 2}) {
		require.NoError(t, err)
		seen = append(seen, k.ID)
	}
	assert.Len(t, seen, 5)
	assert.Equal(t, want, seen[:4])

	_, err = dash.Keys.List(ctx, &keys.ListParams{Limit: 101})
	apiErr(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
}
