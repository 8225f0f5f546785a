package signup_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/signup"
)

// newEnv is a test environment without signup rate limits (each flow costs
// two signup requests; TestRateLimit checks the limit).
func newEnv(t *testing.T) (*testenv.Env, *client.Client) {
	t.Helper()
	t.Parallel()
	env := testenv.New(t, mockserver.WithRateLimits(false))
	return env, env.ClientFor("")
}

func params(email string) *signup.RequestParams {
	return &signup.RequestParams{Fields: signup.Fields{BusinessName: "Acme Plumbing", Email: email}}
}

// otpFor reads the newest verification code emailed to an address.
func otpFor(t *testing.T, srv *mockserver.TestServer, email string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	msg, ok := srv.WaitOutbox(ctx, email, func(m mockserver.OutboxMessage) bool { return m.OTPCode != "" })
	require.True(t, ok, "no code was emailed to %s", email)
	return msg.OTPCode
}

// start runs the request step and returns the verify params with the code.
func start(t *testing.T, env *testenv.Env, c *client.Client, p *signup.RequestParams) *signup.VerifyParams {
	t.Helper()
	ch, err := c.Signup.Request(context.Background(), p)
	require.NoError(t, err)
	return &signup.VerifyParams{RequestParams: *p, ChallengeID: ch.ChallengeID, OTPCode: otpFor(t, env.Server, strings.ToLower(p.Email))}
}

func challengeErr(t *testing.T, err error, reason string) *signup.ChallengeError {
	t.Helper()
	var ce *signup.ChallengeError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, reason, ce.Reason)
	assert.Equal(t, http.StatusBadRequest, ce.Err.StatusCode)
	assert.ErrorIs(t, err, voiceagent.ErrValidation)
	return ce
}

// fieldErr asserts a 400 validation_error whose first detail names path
// (or starts with it).
func fieldErr(t *testing.T, err error, path string) *voiceagent.Error {
	t.Helper()
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusBadRequest, apiErr.StatusCode)
	assert.Equal(t, voiceagent.CodeValidationError, apiErr.Code)
	require.NotEmpty(t, apiErr.Details)
	assert.True(t, strings.HasPrefix(apiErr.Details[0].Path, path), "detail %q, want %q", apiErr.Details[0].Path, path)
	return apiErr
}

func wrongCode(code string) string {
	if code == "000000" {
		return "000001"
	}
	return "000000"
}

func TestOTPFlowProvisionsAnAccount(t *testing.T) {
	env, c := newEnv(t)
	ctx := context.Background()
	p := params("Owner@Acme.example")

	ch, err := c.Signup.Request(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, "otp_sent", ch.Status)
	assert.NotEmpty(t, ch.ChallengeID)
	assert.Equal(t, 600, ch.ExpiresInSeconds)
	assert.Equal(t, env.Server.Now().Add(10*time.Minute).UTC(), ch.ExpiresAt)

	msgs := env.Server.Outbox("owner@acme.example")
	require.Len(t, msgs, 1, "the code goes to the lower-cased address")
	assert.Equal(t, admin.ChannelEmail, msgs[0].Channel)
	assert.Regexp(t, `^[0-9]{6}$`, msgs[0].OTPCode)
	assert.Contains(t, msgs[0].Body, msgs[0].OTPCode)

	// No account exists yet: a second request step for the address is
	// fine (it would be email_exists otherwise).
	_, err = c.Signup.Request(ctx, p)
	require.NoError(t, err)

	res, err := c.Signup.Verify(ctx, &signup.VerifyParams{RequestParams: *p, ChallengeID: ch.ChallengeID, OTPCode: msgs[0].OTPCode})
	require.NoError(t, err)
	assert.Equal(t, signup.StatusProvisioned, res.Status)
	assert.Equal(t, "otp", res.ActivationMode)
	assert.Regexp(t, `^voiceagent_live_[0-9A-Za-z]{40}$`, res.APIKey)
	assert.Equal(t, res.APIKey[:20], res.APIKeyPrefix)
	assert.ElementsMatch(t, voiceagent.SignupDefaultScopes, res.Scopes)
	assert.NotEmpty(t, res.BusinessID)
	assert.NotEmpty(t, res.AgentID)
	require.NotNil(t, res.PhoneNumber)
	assert.Regexp(t, `^\+1555`, *res.PhoneNumber)
	assert.Contains(t, res.DashboardURL, res.BusinessID)
	assert.Equal(t, env.Server.Now().Add(14*24*time.Hour).UTC(), res.TrialEndsAt)
	assert.True(t, strings.HasPrefix(res.DashboardMagicLink, env.Server.HTTP.URL+"/api/auth/magic?token="), res.DashboardMagicLink)
	assert.True(t, strings.HasPrefix(res.PasswordSetupLink, env.Server.HTTP.URL+"/api/auth/password-setup?token="))
	assert.NotEmpty(t, res.ReplayToken)
	assert.False(t, res.Replayed)
	assert.Nil(t, res.SetupStatus)
	assert.Equal(t, "agent", res.CallRouting.Mode)

	welcome, ok := env.Server.WaitOutbox(ctx, "owner@acme.example", func(m mockserver.OutboxMessage) bool { return m.Link != "" })
	require.True(t, ok)
	assert.Equal(t, res.DashboardMagicLink, welcome.Link)

	// The key works, reads the new business and is read-only by default.
	owner := env.ClientFor(res.APIKey)
	list, err := owner.Agents.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, res.AgentID, list[0].ID)
	assert.Equal(t, res.BusinessID, list[0].BusinessID)
	nums, err := owner.Numbers.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, nums, 1)
	assert.Equal(t, *res.PhoneNumber, nums[0].PhoneNumber)
	_, err = owner.Agents.Create(ctx, &agents.CreateParams{BusinessID: res.BusinessID, Name: "x", SystemPrompt: "y"})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)

	// The account now exists.
	_, err = c.Signup.Request(ctx, p)
	assert.ErrorIs(t, err, voiceagent.ErrEmailExists)
}

func TestChosenScopesGoOnTheKey(t *testing.T) {
	env, c := newEnv(t)
	p := params("scopes@acme.example")
	p.APIKeyScopes = []voiceagent.Scope{voiceagent.ScopeAgentsRead, voiceagent.ScopeAgentsWrite, voiceagent.ScopeSDRRead}
	res, err := c.Signup.Verify(context.Background(), start(t, env, c, p))
	require.NoError(t, err)
	assert.ElementsMatch(t, p.APIKeyScopes, res.Scopes)
	_, err = env.ClientFor(res.APIKey).Agents.Create(context.Background(),
		&agents.CreateParams{BusinessID: res.BusinessID, Name: "x", SystemPrompt: "y"})
	require.NoError(t, err)
	_, err = env.ClientFor(res.APIKey).Numbers.List(context.Background(), nil)
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
}

func TestVerifyMustRepeatTheRequestStep(t *testing.T) {
	env, c := newEnv(t)
	ctx := context.Background()
	scoped := func(email string) *signup.RequestParams {
		p := params(email)
		p.APIKeyScopes = []voiceagent.Scope{voiceagent.ScopeCallsRead, voiceagent.ScopeAgentsRead}
		return p
	}

	t.Run("scope order does not matter", func(t *testing.T) {
		v := start(t, env, c, scoped("order@acme.example"))
		v.APIKeyScopes = []voiceagent.Scope{voiceagent.ScopeAgentsRead, voiceagent.ScopeCallsRead}
		_, err := c.Signup.Verify(ctx, v)
		require.NoError(t, err)
	})

	for name, change := range map[string]func(v *signup.VerifyParams){
		"changed scopes": func(v *signup.VerifyParams) { v.APIKeyScopes = []voiceagent.Scope{voiceagent.ScopeCallsRead} },
		"removed scopes": func(v *signup.VerifyParams) { v.APIKeyScopes = nil },
	} {
		t.Run(name, func(t *testing.T) {
			v := start(t, env, c, scoped(strings.ReplaceAll(name, " ", "-")+"@acme.example"))
			good := *v
			change(v)
			_, err := c.Signup.Verify(ctx, v)
			ce := challengeErr(t, err, signup.ReasonFieldsChanged)
			require.Len(t, ce.Err.Details, 1)
			assert.Equal(t, "/api_key_scopes", ce.Err.Details[0].Path)

			// The challenge is invalid now, even with the original fields.
			_, err = c.Signup.Verify(ctx, &good)
			challengeErr(t, err, signup.ReasonChallengeInvalid)
		})
	}

	t.Run("added scopes and other fields", func(t *testing.T) {
		v := start(t, env, c, params("other@acme.example"))
		v.APIKeyScopes = []voiceagent.Scope{voiceagent.ScopeCallsRead}
		v.BusinessName = "Other Name"
		v.Email = "OTHER@acme.example" // case does not count
		_, err := c.Signup.Verify(ctx, v)
		ce := challengeErr(t, err, signup.ReasonFieldsChanged)
		var paths []string
		for _, d := range ce.Err.Details {
			paths = append(paths, d.Path)
		}
		assert.ElementsMatch(t, []string{"/business_name", "/api_key_scopes"}, paths)
	})
}

func TestWrongCodesLockTheChallenge(t *testing.T) {
	env, c := newEnv(t)
	ctx := context.Background()
	v := start(t, env, c, params("locked@acme.example"))
	good := *v
	v.OTPCode = wrongCode(good.OTPCode)
	for left := 4; left >= 1; left-- {
		_, err := c.Signup.Verify(ctx, v)
		ce := challengeErr(t, err, signup.ReasonOTPMismatch)
		assert.Equal(t, left, ce.AttemptsRemaining)
	}
	_, err := c.Signup.Verify(ctx, v)
	ce := challengeErr(t, err, signup.ReasonChallengeLocked)
	assert.Equal(t, -1, ce.AttemptsRemaining)
	_, err = c.Signup.Verify(ctx, &good)
	challengeErr(t, err, signup.ReasonChallengeLocked)
}

func TestCodeExpiresOnTheSimulatedClock(t *testing.T) {
	env, c := newEnv(t)
	ctx := context.Background()
	early := start(t, env, c, params("early@acme.example"))
	late := start(t, env, c, params("late@acme.example"))

	env.Server.Advance(10*time.Minute - time.Second)
	_, err := c.Signup.Verify(ctx, early)
	require.NoError(t, err, "valid until the last second")

	env.Server.Advance(time.Second)
	_, err = c.Signup.Verify(ctx, late)
	challengeErr(t, err, signup.ReasonOTPExpired)

	// A day after expiry the challenge is forgotten.
	env.Server.Advance(24 * time.Hour)
	_, err = c.Signup.Verify(ctx, late)
	challengeErr(t, err, signup.ReasonChallengeNotFound)
}

func TestUnknownChallenge(t *testing.T) {
	_, c := newEnv(t)
	v := &signup.VerifyParams{RequestParams: *params("x@acme.example"), ChallengeID: "nope", OTPCode: "123456"}
	_, err := c.Signup.Verify(context.Background(), v)
	challengeErr(t, err, signup.ReasonChallengeNotFound)
}

func TestReplayWithTheReplayTokenIsRedacted(t *testing.T) {
	env, c := newEnv(t)
	ctx := context.Background()
	v := start(t, env, c, params("replay@acme.example"))

	tooEarly := *v
	tooEarly.ReplayToken = "rpl_guess"
	_, err := c.Signup.Verify(ctx, &tooEarly)
	challengeErr(t, err, signup.ReasonReplayTokenInvalid)

	first, err := c.Signup.Verify(ctx, v)
	require.NoError(t, err)

	retry := *v
	retry.ReplayToken = first.ReplayToken
	again, err := c.Signup.Verify(ctx, &retry)
	require.NoError(t, err)
	assert.True(t, again.Replayed)
	assert.Empty(t, again.APIKey, "the key is never shown again")
	assert.Empty(t, again.DashboardMagicLink)
	assert.Empty(t, again.PasswordSetupLink)
	assert.Empty(t, again.ReplayToken)
	assert.Equal(t, first.BusinessID, again.BusinessID)
	assert.Equal(t, first.AgentID, again.AgentID)
	assert.Equal(t, first.PhoneNumber, again.PhoneNumber)
	assert.Equal(t, first.APIKeyID, again.APIKeyID)
	assert.Equal(t, first.APIKeyPrefix, again.APIKeyPrefix)
	assert.Equal(t, first.TrialEndsAt, again.TrialEndsAt)

	// Without the token, the account exists.
	_, err = c.Signup.Verify(ctx, v)
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, voiceagent.CodeEmailExists, apiErr.Code)
	assert.Equal(t, http.StatusConflict, apiErr.StatusCode)
	assert.Contains(t, apiErr.Message, "replay_token")

	retry.ReplayToken = "rpl_wrong"
	_, err = c.Signup.Verify(ctx, &retry)
	challengeErr(t, err, signup.ReasonReplayTokenInvalid)
}

func TestSDKRetryOfAVerifyReplaysTheFirstAnswer(t *testing.T) {
	env, c := newEnv(t)
	v := start(t, env, c, params("retry@acme.example"))
	// The answer is lost after the account was made; the SDK retries with
	// the same Idempotency-Key and gets the first answer, key included.
	env.Server.AddFault(mockserver.FaultRule{Path: "/v1/signup", Method: "POST", Drop: true, After: true, Times: 1})
	retrying := env.ClientFor("", voiceagent.WithMaxRetries(2), voiceagent.WithRetryWait(time.Millisecond, 5*time.Millisecond))
	res, err := retrying.Signup.Verify(context.Background(), v)
	require.NoError(t, err)
	assert.NotEmpty(t, res.APIKey)
	dropped := env.Server.Requests(func(e *mockserver.JournalEntry) bool { return e.Fault != "" })
	require.Len(t, dropped, 1, "the first answer was lost")
	_, err = env.ClientFor(res.APIKey).Agents.List(context.Background(), nil)
	require.NoError(t, err)
}

func TestScopeRules(t *testing.T) {
	_, c := newEnv(t)
	for name, scopes := range map[string][]voiceagent.Scope{
		"unknown":       {"calls:delete"},
		"wildcard":      {"*"},
		"platform-only": {voiceagent.ScopeApprovalsWrite},
		"concierge":     {voiceagent.ScopeConciergeWrite},
		"duplicates":    {voiceagent.ScopeCallsRead, voiceagent.ScopeCallsRead},
	} {
		t.Run(name, func(t *testing.T) {
			p := params(name + "@acme.example")
			p.APIKeyScopes = scopes
			_, err := c.Signup.Request(context.Background(), p)
			fieldErr(t, err, "/api_key_scopes")
		})
	}
}

// raw posts a body to the API without the SDK.
func raw(t *testing.T, env *testenv.Env, method, path, body string, header map[string]string) (*http.Response, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(method, env.Server.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := env.HTTPClient().Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(data, &out), string(data))
	return resp, out
}

func errorOf(t *testing.T, body map[string]any) map[string]any {
	t.Helper()
	e, ok := body["error"].(map[string]any)
	require.True(t, ok, "no error object in %v", body)
	return e
}

func TestBadBodiesAreValidationErrors(t *testing.T) {
	env, _ := newEnv(t)
	for name, tc := range map[string]struct{ body, path string }{
		"empty scopes":            {`{"business_name":"a","email":"a@acme.example","api_key_scopes":[]}`, "/api_key_scopes"},
		"invalid email":           {`{"business_name":"a","email":"not-an-email"}`, "/email"},
		"empty business name":     {`{"business_name":"","email":"a@acme.example"}`, "/business_name"},
		"unknown property":        {`{"business_name":"a","email":"a@acme.example","color":"red"}`, "/"},
		"otp code not six digits": {`{"business_name":"a","email":"a@acme.example","challenge_id":"x","otp_code":"12345"}`, "/otp_code"},
		"scopes in payment mode":  {`{"business_name":"a","email":"a@acme.example","activation_mode":"payment","api_key_scopes":["calls:read"]}`, "/"},
		"unknown activation mode": {`{"business_name":"a","email":"a@acme.example","activation_mode":"sms"}`, "/activation_mode"},
		"phone not a number":      {`{"business_name":"a","email":"a@acme.example","phone_forward_to":"call me"}`, "/phone_forward_to"},
		"fallback phone":          {`{"business_name":"a","email":"a@acme.example","phone":"+0123"}`, "/phone"},
		"not JSON":                {`{"business_name":`, ""},
		"no body":                 {``, ""},
	} {
		t.Run(name, func(t *testing.T) {
			resp, body := raw(t, env, http.MethodPost, "/v1/signup", tc.body, nil)
			assert.Equal(t, http.StatusBadRequest, resp.StatusCode)
			e := errorOf(t, body)
			assert.Equal(t, "validation_error", e["code"])
			assert.NotEmpty(t, e["message"])
			if tc.path != "" {
				details, _ := e["details"].([]any)
				require.NotEmpty(t, details, "details in %v", e)
				d := details[0].(map[string]any)
				assert.Equal(t, tc.path, d["path"])
				// Failures behind a $ref (email, scopes) say what is wrong.
				assert.NotEqual(t, "validation failed", d["message"])
				if name == "scopes in payment mode" {
					// Payment mode does not declare the property, so it is refused by name.
					assert.Contains(t, d["message"], "'api_key_scopes' not allowed")
				}
			}
		})
	}
}

func TestEmailExists(t *testing.T) {
	env, c := newEnv(t)
	testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Email: "taken@acme.example"})
	for _, email := range []string{"taken@acme.example", "Taken@ACME.example"} {
		_, err := c.Signup.Request(context.Background(), params(email))
		var apiErr *voiceagent.Error
		require.ErrorAs(t, err, &apiErr)
		assert.Equal(t, http.StatusConflict, apiErr.StatusCode)
		assert.Equal(t, voiceagent.CodeEmailExists, apiErr.Code)
		assert.Contains(t, apiErr.RecoveryPaths["sign_in"], "taken%40acme.example")
		assert.NotEmpty(t, apiErr.RecoveryPaths["key_setup"])
	}
	_, err := c.Signup.Pay(context.Background(), &signup.PaymentParams{
		Fields: signup.Fields{BusinessName: "x", Email: "taken@acme.example"}, Payment: "paid",
	})
	assert.ErrorIs(t, err, voiceagent.ErrEmailExists)
}

func TestEmailTakenBetweenRequestAndVerify(t *testing.T) {
	env, c := newEnv(t)
	a := start(t, env, c, params("race@acme.example"))
	b := start(t, env, c, params("race@acme.example"))
	_, err := c.Signup.Verify(context.Background(), a)
	require.NoError(t, err)
	_, err = c.Signup.Verify(context.Background(), b)
	assert.ErrorIs(t, err, voiceagent.ErrEmailExists)
}

func TestPaymentMode(t *testing.T) {
	env, c := newEnv(t)
	ctx := context.Background()
	pay := &signup.PaymentParams{Fields: signup.Fields{BusinessName: "Paid Co", Email: "paid@acme.example"}}

	_, err := c.Signup.Pay(ctx, pay)
	var pr *signup.PaymentRequiredError
	require.ErrorAs(t, err, &pr)
	assert.Equal(t, http.StatusPaymentRequired, pr.Err.StatusCode)
	assert.ErrorIs(t, err, voiceagent.ErrPaymentRequired)
	assert.Equal(t, "starter", pr.Requirements.PlanID)
	assert.Equal(t, "X-PAYMENT", pr.Requirements.Header)
	assert.Equal(t, 4900, pr.Requirements.AmountCents)

	pay.PlanID = "nope"
	pay.Payment = "x402-payload"
	_, err = c.Signup.Pay(ctx, pay)
	fieldErr(t, err, "/plan_id")

	pay.PlanID = "price_pro_monthly"
	res, err := c.Signup.Pay(ctx, pay)
	require.NoError(t, err)
	assert.Equal(t, "payment", res.ActivationMode)
	assert.Equal(t, "pro", res.PlanID)
	assert.NotEmpty(t, res.APIKey)
	assert.Empty(t, res.ReplayToken, "no challenge, no replay token")
	assert.ElementsMatch(t, voiceagent.SignupDefaultScopes, res.Scopes)
	_, err = env.ClientFor(res.APIKey).Agents.List(ctx, nil)
	require.NoError(t, err)
	assert.Empty(t, env.Server.Outbox("paid@acme.example")[0].OTPCode, "payment mode sends no code")

	// Raw: any non-empty X-PAYMENT is accepted; a blank one is not.
	body := `{"business_name":"a","email":"raw@acme.example","activation_mode":"payment"}`
	resp, out := raw(t, env, http.MethodPost, "/v1/signup", body, map[string]string{"X-PAYMENT": "  "})
	assert.Equal(t, http.StatusPaymentRequired, resp.StatusCode)
	assert.Equal(t, "payment_required", errorOf(t, out)["code"])
	resp, out = raw(t, env, http.MethodPost, "/v1/signup", body, map[string]string{"X-PAYMENT": "ok"})
	assert.Equal(t, http.StatusCreated, resp.StatusCode)
	assert.Equal(t, "starter", out["plan_id"])
}

func TestProvisioningFailedStillReturnsTheKey(t *testing.T) {
	env, _ := newEnv(t)
	ctx := context.Background()
	// A client that would retry a 503: the answer tells it not to.
	c := env.ClientFor("", voiceagent.WithMaxRetries(3), voiceagent.WithRetryWait(time.Millisecond, 5*time.Millisecond))
	email := "owner@provisioning-fails.example"
	v := start(t, env, c, params(email))

	_, err := c.Signup.Verify(ctx, v)
	var pf *signup.ProvisioningFailedError
	require.ErrorAs(t, err, &pf)
	assert.ErrorIs(t, err, voiceagent.ErrProvisioningFailed)
	assert.Equal(t, http.StatusServiceUnavailable, pf.Err.StatusCode)
	assert.NotEmpty(t, pf.Err.RecoveryPaths["resume_setup"])
	res := pf.Result
	assert.Equal(t, signup.StatusProvisioningFailed, res.Status)
	assert.Regexp(t, `^voiceagent_live_`, res.APIKey)
	assert.NotEmpty(t, res.DashboardMagicLink)
	assert.NotEmpty(t, res.ReplayToken)
	assert.Nil(t, res.PhoneNumber, "the number step failed")
	require.NotNil(t, res.SetupStatus)
	assert.Equal(t, []string{"phone_number"}, res.SetupStatus.FailedSteps)
	assert.Contains(t, res.SetupStatus.RecoveryPaths, "sign_in")
	assert.Contains(t, res.SetupStatus.RecoveryPaths, "key_setup")
	assert.Contains(t, res.SetupStatus.RecoveryPaths, "resume_setup")

	verifies := env.Server.Requests(func(e *mockserver.JournalEntry) bool {
		return e.Path == "/api/v1/signup" && e.Status == http.StatusServiceUnavailable
	})
	assert.Len(t, verifies, 1, "X-Voiceagent-Should-Retry: false stops the SDK's retries")

	// The account exists and works: the key reads it, the link signs in.
	list, err := env.ClientFor(res.APIKey).Agents.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Nil(t, list[0].PhoneNumber)
	session, err := c.Signup.ExchangeMagicLink(ctx, res.DashboardMagicLink)
	require.NoError(t, err)
	assert.NotEmpty(t, session)
	_, err = c.Signup.Request(ctx, params(email))
	assert.ErrorIs(t, err, voiceagent.ErrEmailExists, "do not restart signup")

	// A replay repeats the failure without the key.
	v.ReplayToken = res.ReplayToken
	_, err = c.Signup.Verify(ctx, v)
	require.ErrorAs(t, err, &pf)
	assert.True(t, pf.Result.Replayed)
	assert.Empty(t, pf.Result.APIKey)
	assert.Equal(t, res.BusinessID, pf.Result.BusinessID)
}

func TestRateLimitIsFivePerHourPerIP(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	c := env.ClientFor("")
	ctx := context.Background()
	for i := range 5 {
		_, err := c.Signup.Request(ctx, params("rl@acme.example"))
		require.NoError(t, err, "request %d", i+1)
	}
	_, err := c.Signup.Request(ctx, params("rl@acme.example"))
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusTooManyRequests, apiErr.StatusCode)
	assert.Equal(t, voiceagent.CodeRateLimited, apiErr.Code)
	assert.Greater(t, apiErr.RetryAfter, 10*time.Minute)
	assert.LessOrEqual(t, apiErr.RetryAfter, time.Hour)

	env.Server.Advance(time.Hour)
	for i := range 5 {
		_, err := c.Signup.Request(ctx, params("rl@acme.example"))
		require.NoError(t, err, "after an hour, request %d", i+1)
	}
}

func TestReferralAttributesTheSignupToAPartner(t *testing.T) {
	env, c := newEnv(t)
	ctx := context.Background()
	partner := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Partner: true, Email: "agency@partner.example"})
	require.NotEmpty(t, partner.ReferralCode)

	for _, code := range []string{partner.ReferralCode, partner.PartnerID} {
		p := params("client-" + code[:6] + "@acme.example")
		p.ReferralCode = code
		res, err := c.Signup.Verify(ctx, start(t, env, c, p))
		require.NoError(t, err)
		assert.Equal(t, partner.PartnerID, res.ReferredByPartnerID)
	}

	p := params("unreferred@acme.example")
	res, err := c.Signup.Verify(ctx, start(t, env, c, p))
	require.NoError(t, err)
	assert.Empty(t, res.ReferredByPartnerID)

	p = params("unknown@acme.example")
	p.ReferralCode = "ref_nope"
	_, err = c.Signup.Request(ctx, p)
	fieldErr(t, err, "/referral_code")

	p = params("Agency@Partner.example")
	p.ReferralCode = partner.ReferralCode
	_, err = c.Signup.Request(ctx, p)
	assert.Contains(t, fieldErr(t, err, "/referral_code").Message, "cannot refer itself")
}

func TestPhoneForwardToSetsRingFirstRouting(t *testing.T) {
	env, c := newEnv(t)
	ctx := context.Background()
	p := params("ring@acme.example")
	p.PhoneForwardTo = "(555) 123-4567"
	p.Phone = "+15550009999"
	res, err := c.Signup.Verify(ctx, start(t, env, c, p))
	require.NoError(t, err)
	assert.Equal(t, signup.CallRouting{Mode: "ring_first", ForwardTo: "+15551234567", RingSeconds: 20, Then: "agent"}, res.CallRouting)

	p = params("fallback@acme.example")
	p.Phone = "+44 20 7946 0000"
	res, err = c.Signup.Verify(ctx, start(t, env, c, p))
	require.NoError(t, err)
	assert.Equal(t, "agent", res.CallRouting.Mode)
	require.NotNil(t, res.CallRouting.OwnerPhone)
	assert.Equal(t, "+442079460000", *res.CallRouting.OwnerPhone)
}

func TestMagicLinkOpensASessionOnce(t *testing.T) {
	env, c := newEnv(t)
	ctx := context.Background()
	res, err := c.Signup.Verify(ctx, start(t, env, c, params("magic@acme.example")))
	require.NoError(t, err)

	session, err := c.Signup.ExchangeMagicLink(ctx, res.DashboardMagicLink)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(session, "sess_"))
	dash := env.ClientFor("", voiceagent.WithSessionCookie(session))
	page, err := dash.Keys.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, page.Data, 1)
	assert.Equal(t, res.APIKeyID, page.Data[0].ID)

	_, err = c.Signup.ExchangeMagicLink(ctx, res.DashboardMagicLink)
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusUnauthorized, apiErr.StatusCode)
	assert.Contains(t, apiErr.Message, "already used")

	_, err = c.Signup.ExchangeMagicLink(ctx, "/relative")
	require.Error(t, err)
}

func TestMagicLinkExpires(t *testing.T) {
	env, c := newEnv(t)
	res, err := c.Signup.Verify(context.Background(), start(t, env, c, params("slow@acme.example")))
	require.NoError(t, err)
	env.Server.Advance(15 * time.Minute)
	_, err = c.Signup.ExchangeMagicLink(context.Background(), res.DashboardMagicLink)
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, voiceagent.CodeUnauthorized, apiErr.Code)
	assert.Contains(t, apiErr.Message, "expired")
}

func TestMagicLinkAndPasswordSetupOverHTTP(t *testing.T) {
	env, c := newEnv(t)
	res, err := c.Signup.Verify(context.Background(), start(t, env, c, params("http@acme.example")))
	require.NoError(t, err)

	resp, err := env.HTTPClient().Get(res.DashboardMagicLink)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var body struct {
		Session   string    `json:"session"`
		UserID    string    `json:"user_id"`
		ExpiresAt time.Time `json:"expires_at"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
	assert.Equal(t, res.UserID, body.UserID)
	assert.Equal(t, env.Server.Now().Add(30*24*time.Hour).UTC(), body.ExpiresAt)
	var cookie *http.Cookie
	for _, ck := range resp.Cookies() {
		if ck.Name == voiceagent.SessionCookieName {
			cookie = ck
		}
	}
	require.NotNil(t, cookie)
	assert.Equal(t, body.Session, cookie.Value)
	assert.True(t, cookie.HttpOnly)
	assert.Equal(t, "/", cookie.Path)

	r, out := raw(t, env, http.MethodGet, "/auth/magic", "", nil)
	assert.Equal(t, http.StatusBadRequest, r.StatusCode)
	assert.Equal(t, "bad_request", errorOf(t, out)["code"])
	r, out = raw(t, env, http.MethodGet, "/auth/magic?token=nope", "", nil)
	assert.Equal(t, http.StatusUnauthorized, r.StatusCode)
	assert.Equal(t, "unauthorized", errorOf(t, out)["code"])

	setup := strings.TrimPrefix(res.PasswordSetupLink, env.Server.URL)
	r, out = raw(t, env, http.MethodGet, setup, "", nil)
	require.Equal(t, http.StatusOK, r.StatusCode)
	assert.Equal(t, "http@acme.example", out["email"])
	// The password link is not a sign-in link.
	magicPath := strings.Replace(setup, "password-setup", "magic", 1)
	r, _ = raw(t, env, http.MethodGet, magicPath, "", nil)
	assert.Equal(t, http.StatusUnauthorized, r.StatusCode)
}

func TestSignupNeedsNoKey(t *testing.T) {
	env, _ := newEnv(t)
	// A bad bearer key does not matter to signup.
	c := env.ClientFor("voiceagent_live_bogus")
	_, err := c.Signup.Request(context.Background(), params("nokey@acme.example"))
	require.NoError(t, err)
}

func TestErrorTypesUnwrap(t *testing.T) {
	t.Parallel()
	base := &voiceagent.Error{StatusCode: 400, Code: voiceagent.CodeValidationError, Message: "m"}
	for _, err := range []error{
		&signup.ChallengeError{Reason: signup.ReasonOTPMismatch, Err: base},
		&signup.PaymentRequiredError{Err: base},
		&signup.ProvisioningFailedError{Err: base},
	} {
		assert.True(t, errors.Is(err, voiceagent.ErrValidation))
		assert.Contains(t, err.Error(), "m")
	}
}
