package mockserver

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// identityPost sends a JSON body to the API and decodes the response.
func identityPost(t *testing.T, ts *TestServer, path, body string, cookie string) (int, map[string]any) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, ts.URL+path, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	if cookie != "" {
		req.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: cookie})
	}
	resp, err := checkedClient(t).Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	return resp.StatusCode, out
}

// identitySignupOTP runs the request and verify steps for email.
func identitySignupOTP(t *testing.T, ts *TestServer, email string) (int, map[string]any) {
	t.Helper()
	fields := `"business_name":"Acme","email":"` + email + `"`
	status, ch := identityPost(t, ts, "/v1/signup", "{"+fields+"}", "")
	require.Equal(t, http.StatusOK, status, ch)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	msg, ok := ts.WaitOutbox(ctx, email, func(m OutboxMessage) bool { return m.OTPCode != "" })
	require.True(t, ok)
	return identityPost(t, ts, "/v1/signup", `{`+fields+`,"challenge_id":"`+ch["challenge_id"].(string)+`","otp_code":"`+msg.OTPCode+`"}`, "")
}

func identityEventTypes(s *Server, businessID string) []string {
	tx := s.platform.ReadTx()
	defer tx.End()
	var out []string
	for _, ev := range tx.Events.Owned(businessID) {
		out = append(out, ev.Type)
	}
	return out
}

func TestSignupEmitsWorkspaceEvents(t *testing.T) {
	t.Parallel()
	ts := Start(t, WithRateLimits(false))

	status, ok := identitySignupOTP(t, ts, "events@acme.example")
	require.Equal(t, http.StatusCreated, status, ok)
	assert.Equal(t, []string{"workspace.created", "phone_number.assigned", "workspace.ready"},
		identityEventTypes(ts.Server, ok["business_id"].(string)))

	status, failed := identitySignupOTP(t, ts, "events@provisioning-fails.example")
	require.Equal(t, http.StatusServiceUnavailable, status, failed)
	biz := failed["business_id"].(string)
	assert.Equal(t, []string{"workspace.created", "workspace.provisioning_failed"}, identityEventTypes(ts.Server, biz))
	tx := ts.platform.ReadTx()
	var data map[string]any
	require.NoError(t, json.Unmarshal(tx.Events.Owned(biz)[1].Data, &data))
	tx.End()
	assert.Equal(t, "phone_number", data["failed_step"])
	assert.Equal(t, biz, data["id"])
}

func TestSignupRecordsAttribution(t *testing.T) {
	t.Parallel()
	ts := Start(t, WithRateLimits(false))
	partner, err := ts.NewAccount(AccountOptions{Partner: true})
	require.NoError(t, err)
	body := `{"business_name":"Paid","email":"attr@acme.example","activation_mode":"payment","referral_code":"` +
		partner.ReferralCode + `","via":"podcast","how_heard":"friend","attribution":{"utm_source":"x"}}`
	req, _ := http.NewRequest(http.MethodPost, ts.URL+"/v1/signup", strings.NewReader(body))
	req.Header.Set("X-PAYMENT", "paid")
	req.Header.Set("Content-Type", "application/json")
	resp, err := checkedClient(t).Do(req)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&out))
	resp.Body.Close()
	require.Equal(t, http.StatusCreated, resp.StatusCode, out)

	tx := ts.platform.ReadTx()
	defer tx.End()
	biz := out["business_id"].(string)
	rec := tx.Signups[biz]
	require.NotNil(t, rec)
	assert.Equal(t, store.SignupRecord{
		BusinessID: biz, ActivationMode: "payment", PlanID: "starter", ReferralCode: partner.ReferralCode,
		ReferredBy: partner.PartnerID, Via: "podcast", HowHeard: "friend", Attribution: map[string]any{"utm_source": "x"},
	}, *rec)
	b, _ := tx.Businesses.Get(biz)
	assert.Empty(t, b.PartnerID, "a referral attributes; it does not give the partner's keys access")
	assert.NotContains(t, tx.BusinessesOfPartner(partner.PartnerID), biz)
}

func TestOnlyOwnersAndAdminsCreateKeysForABusiness(t *testing.T) {
	t.Parallel()
	ts := Start(t)
	owner, err := ts.NewAccount(AccountOptions{})
	require.NoError(t, err)
	admin, err := ts.NewAccount(AccountOptions{})
	require.NoError(t, err)
	member, err := ts.NewAccount(AccountOptions{})
	require.NoError(t, err)
	tx := ts.platform.WriteTx()
	b, _ := tx.Businesses.Get(owner.BusinessID)
	tx.AddMember(b, admin.UserID, store.RoleAdmin)
	tx.AddMember(b, member.UserID, store.RoleMember)
	tx.End()

	body := `{"business_id":"` + owner.BusinessID + `"}`
	status, out := identityPost(t, ts, "/v1/keys", body, owner.Session)
	assert.Equal(t, http.StatusCreated, status, out)
	status, out = identityPost(t, ts, "/v1/keys", body, admin.Session)
	assert.Equal(t, http.StatusCreated, status, out)
	assert.Equal(t, owner.BusinessID, out["business_id"])
	status, out = identityPost(t, ts, "/v1/keys", body, member.Session)
	assert.Equal(t, http.StatusForbidden, status, out)
	assert.Equal(t, voiceagent.CodeForbidden, out["error"].(map[string]any)["code"])
}

func TestAdminAccountsMakesOperatorsAndPartners(t *testing.T) {
	t.Parallel()
	ts := Start(t)
	resp, err := http.Post(ts.AdminURL+"/accounts", "application/json", strings.NewReader(`{"operator":true,"partner":true}`))
	require.NoError(t, err)
	defer resp.Body.Close()
	var acct Account
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&acct))
	require.Equal(t, http.StatusCreated, resp.StatusCode)
	assert.NotEmpty(t, acct.PartnerID)
	assert.True(t, strings.HasPrefix(acct.ReferralCode, "ref_"))
	tx := ts.platform.ReadTx()
	defer tx.End()
	u, ok := tx.Users.Get(acct.UserID)
	require.True(t, ok)
	assert.True(t, u.Operator)
	assert.Equal(t, acct.PartnerID, u.PartnerID)
	assert.Equal(t, acct.PartnerID, tx.ReferralCodes[acct.ReferralCode])
	assert.True(t, tx.PartnerKnown(acct.PartnerID))
	assert.Equal(t, []string{acct.BusinessID}, tx.BusinessesOfPartner(acct.PartnerID))
}

// BenchmarkSignupOTPFlow measures a whole email signup in-process: the
// request step, the verify step (which provisions the account) and the
// magic link exchange.
func BenchmarkSignupOTPFlow(b *testing.B) {
	s := New(WithRateLimits(false))
	defer s.Close()
	do := func(method, target, body string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		return w
	}
	b.ReportAllocs()
	for i := range b.N {
		fields := fmt.Sprintf(`"business_name":"Bench","email":"bench-%d@acme.example"`, i)
		var ch struct {
			ChallengeID string `json:"challenge_id"`
		}
		if w := do(http.MethodPost, "/api/v1/signup", "{"+fields+"}"); w.Code != http.StatusOK {
			b.Fatal(w.Body.String())
		} else if err := json.Unmarshal(w.Body.Bytes(), &ch); err != nil {
			b.Fatal(err)
		}
		tx := s.platform.ReadTx()
		c, _ := tx.Challenges.Get(ch.ChallengeID)
		code := c.Code
		tx.End()
		w := do(http.MethodPost, "/api/v1/signup", `{`+fields+`,"challenge_id":"`+ch.ChallengeID+`","otp_code":"`+code+`"}`)
		if w.Code != http.StatusCreated {
			b.Fatal(w.Body.String())
		}
		var res struct {
			Link string `json:"dashboard_magic_link"`
		}
		if err := json.Unmarshal(w.Body.Bytes(), &res); err != nil {
			b.Fatal(err)
		}
		if w := do(http.MethodGet, res.Link, ""); w.Code != http.StatusOK {
			b.Fatal(w.Body.String())
		}
	}
}

// BenchmarkListKeys measures GET /v1/keys (one page of 100) for a user
// with 1,000 keys.
func BenchmarkListKeys(b *testing.B) {
	s := New(WithRateLimits(false))
	defer s.Close()
	acct, err := s.NewAccount(AccountOptions{})
	if err != nil {
		b.Fatal(err)
	}
	now := acct.Now() // before the lock, which Now takes too
	tx := s.platform.WriteTx()
	for range 999 {
		s.identity.IssueKey(tx, now, acct.UserID, "k", scopeStrings(voiceagent.KeyDefaultScopes), "", "")
	}
	tx.End()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		req := httptest.NewRequest(http.MethodGet, "/api/v1/keys", nil)
		req.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: acct.Session})
		w := httptest.NewRecorder()
		s.ServeHTTP(w, req)
		if w.Code != http.StatusOK {
			b.Fatal(w.Body.String())
		}
	}
}

func TestJournalRedactsTokensInQueries(t *testing.T) {
	srv := Start(t)
	resp, err := checkedClient(t).Get(srv.URL + "/auth/magic?token=supersecret123")
	require.NoError(t, err)
	resp.Body.Close()
	entries := srv.Requests(func(e *JournalEntry) bool { return e.Path == "/api/auth/magic" })
	require.Len(t, entries, 1)
	assert.NotContains(t, entries[0].Query, "supersecret123")
	assert.Contains(t, entries[0].Query, "token=REDACTED")
}

// scopeStrings returns scopes as the strings keys hold.
func scopeStrings(scopes []voiceagent.Scope) []string {
	out := make([]string, len(scopes))
	for i, s := range scopes {
		out[i] = string(s)
	}
	return out
}
