package governance_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/governance"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// delivery is one request a receiver got.
type delivery struct {
	header http.Header
	body   []byte
}

// receiver is a loopback callback receiver answering the statuses queued
// in status (200 once they run out).
type receiver struct {
	srv    *httptest.Server
	got    chan delivery
	fails  atomic.Int32 // how many of the next requests answer 500
	cbPath string
}

func newReceiver(t *testing.T) *receiver {
	r := &receiver{got: make(chan delivery, 16), cbPath: "/approvals/cb"}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		r.got <- delivery{header: req.Header.Clone(), body: body}
		if r.fails.Add(-1) >= 0 {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *receiver) url() string { return r.srv.URL + r.cbPath }

func (r *receiver) next(t *testing.T) delivery {
	t.Helper()
	select {
	case d := <-r.got:
		return d
	case <-time.After(10 * time.Second):
		t.Fatal("no callback arrived")
		return delivery{}
	}
}

const hash = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func approvalParams(env *testenv.Env, to, callback string) *governance.ApprovalParams {
	return &governance.ApprovalParams{
		Source: "billing-guard", SourceRequestID: "req-1", SourceIntentID: "intent-1", MessageID: "msg-1",
		RespondsToHash: hash, PrincipalID: "owner-1",
		Channel: governance.ApprovalChannel{Type: governance.ChannelVoice, Address: to},
		Summary: "Refund $40 to order 1234.", RiskLevel: "medium", RequiredFactors: []string{"pin"},
		ExpiresAt: env.Server.Now().Add(time.Hour), CallbackURL: callback,
	}
}

func TestApprovalCallPlacesACallAndTheSignedDecisionReachesTheCallback(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	rcv := newReceiver(t)
	a, err := env.Client.Approvals.Request(ctx, approvalParams(env, "+15551230001", rcv.url()))
	require.NoError(t, err)
	assert.Equal(t, governance.ApprovalCalling, a.Status)
	require.NotNil(t, a.CallID)
	assert.True(t, strings.HasPrefix(a.CallbackSecret, "whsec_"), "the secret is shown once")
	assert.Equal(t, "none", a.Callback.Status)
	assert.Equal(t, hash, *a.RespondsToHash)
	call, err := env.Client.Calls.Get(ctx, *a.CallID)
	require.NoError(t, err, "a simulated call was placed")
	assert.Equal(t, "+15551230001", call.To)
	assert.Equal(t, a.ID, call.ApprovalRequestID)
	assert.Equal(t, env.Account.PhoneNumber, *call.From)

	env.Server.Advance(10 * time.Minute) // the call ends: approved
	d := rcv.next(t)
	assert.Equal(t, governance.ApprovalCallbackEvent, d.header.Get(webhooks.HeaderEvent))
	assert.Equal(t, "1", d.header.Get(webhooks.HeaderAttempt))
	cb, err := governance.VerifyApprovalCallback(a.CallbackSecret, d.header, d.body)
	require.NoError(t, err, "signed with the request's secret")
	assert.Equal(t, governance.ApprovalApproved, cb.Data.Decision)
	assert.Equal(t, a.ID, cb.Data.ApprovalRequestID)
	assert.Equal(t, "req-1", cb.Data.SourceRequestID)
	assert.Equal(t, hash, *cb.Data.RespondsToHash)
	assert.Equal(t, []string{"pin"}, cb.Data.VerifiedFactors)
	assert.Equal(t, *a.CallID, *cb.Data.CallID)
	assert.Equal(t, cb.ID, d.header.Get("webhook-id"))
	_, err = governance.VerifyApprovalCallback("whsec_"+"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", d.header, d.body)
	assert.Error(t, err, "another secret does not verify")

	// The attempt's outcome is recorded by the time Advance returns (the
	// retry 5 s after the decision, on the clock, waits for it).
	got, err := env.Client.Approvals.Get(ctx, a.ID)
	require.NoError(t, err)
	assert.Equal(t, governance.ApprovalApproved, got.Status)
	assert.Equal(t, "delivered", got.Callback.Status)
	require.Len(t, got.Callback.Attempts, 1)
	assert.Equal(t, http.StatusNoContent, got.Callback.Attempts[0].StatusCode)
	assert.Equal(t, *got.DecidedAt, got.Callback.Attempts[0].At)
	assert.Empty(t, got.CallbackSecret, "never shown again")
	ended, err := env.Client.Calls.Get(ctx, *a.CallID)
	require.NoError(t, err)
	assert.Equal(t, "completed", string(ended.Status))
	assert.Equal(t, ended.EndedAt, got.DecidedAt, "decided when the call ended")
}

func TestApprovalOutcomes(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	rcv := newReceiver(t)
	decide := func(p *governance.ApprovalParams, advance time.Duration) *governance.ApprovalCallback {
		t.Helper()
		a, err := env.Client.Approvals.Request(ctx, p)
		require.NoError(t, err)
		env.Server.Advance(advance)
		d := rcv.next(t)
		cb, err := governance.VerifyApprovalCallback(a.CallbackSecret, d.header, d.body)
		require.NoError(t, err)
		assert.Equal(t, a.ID, cb.Data.ApprovalRequestID)
		return cb
	}
	denied := decide(approvalParams(env, "+15005550020", rcv.url()), 10*time.Minute)
	assert.Equal(t, governance.ApprovalDenied, denied.Data.Decision)
	assert.Empty(t, denied.Data.VerifiedFactors)

	p := approvalParams(env, "+15005550001", rcv.url())
	p.Channel.Type = governance.ChannelVoiceThenSMS
	unreachable := decide(p, 10*time.Minute)
	assert.Equal(t, governance.ApprovalUnreachable, unreachable.Data.Decision)
	assert.Contains(t, unreachable.Data.Reason, "no_answer")

	p = approvalParams(env, "+15551230009", rcv.url())
	p.ExpiresAt = env.Server.Now().Add(10 * time.Second) // every simulated call lasts 30 s or more
	expired := decide(p, 10*time.Second)
	assert.Equal(t, governance.ApprovalExpired, expired.Data.Decision)
	env.Server.Advance(10 * time.Minute) // the call ends after expiry: nothing more is sent
	select {
	case d := <-rcv.got:
		t.Fatalf("unexpected second callback: %s", d.body)
	default:
	}
	list, err := env.Client.Approvals.List(ctx, &governance.ApprovalListParams{Status: governance.ApprovalExpired})
	require.NoError(t, err)
	require.Len(t, list.Data, 1)
	assert.Equal(t, expired.Data.ApprovalRequestID, list.Data[0].ID)
}

func TestApprovalCallbackRetriesOnTheClockAndNamedSecrets(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	rcv := newReceiver(t)
	rcv.fails.Store(2)
	p := approvalParams(env, "+15551230001", rcv.url())
	p.CallbackSecretID = "control-plane"
	decided := env.Server.Now().Add(10 * time.Second)
	p.ExpiresAt = decided // before the call (30 s or more) ends
	a, err := env.Client.Approvals.Request(ctx, p)
	require.NoError(t, err)
	secret := a.CallbackSecret
	require.NotEmpty(t, secret, "a new named secret is shown on first use")

	env.Server.Advance(10 * time.Second) // expired: attempt 1 fails
	first := rcv.next(t)
	env.Server.Advance(5 * time.Second) // attempt 2, 5 s later, fails too
	second := rcv.next(t)
	assert.Equal(t, "2", second.header.Get(webhooks.HeaderAttempt))
	assert.Equal(t, first.header.Get(webhooks.HeaderID), second.header.Get(webhooks.HeaderID), "the same event, for deduplication")
	got, err := env.Client.Approvals.Get(ctx, a.ID)
	require.NoError(t, err)
	assert.Equal(t, governance.ApprovalExpired, got.Status)
	assert.Equal(t, "pending", got.Callback.Status)
	require.Len(t, got.Callback.Attempts, 2)
	assert.Equal(t, []time.Time{decided, decided.Add(5 * time.Second)}, []time.Time{got.Callback.Attempts[0].At, got.Callback.Attempts[1].At})
	assert.Equal(t, http.StatusInternalServerError, got.Callback.Attempts[1].StatusCode)
	require.NotNil(t, got.Callback.NextAttemptAt)
	assert.Equal(t, decided.Add(5*time.Second+5*time.Minute), *got.Callback.NextAttemptAt)

	env.Server.Advance(5 * time.Minute) // attempt 3 succeeds
	third := rcv.next(t)
	assert.Equal(t, "3", third.header.Get(webhooks.HeaderAttempt))
	cb, err := governance.VerifyApprovalCallback(secret, third.header, third.body)
	require.NoError(t, err)
	assert.Equal(t, governance.ApprovalExpired, cb.Data.Decision)
	got, err = env.Client.Approvals.Get(ctx, a.ID)
	require.NoError(t, err)
	assert.Equal(t, "delivered", got.Callback.Status)
	assert.Len(t, got.Callback.Attempts, 3)
	assert.Nil(t, got.Callback.NextAttemptAt)

	// The named secret is reused, and not shown again.
	p.SourceRequestID, p.ExpiresAt = "req-2", env.Server.Now().Add(time.Hour)
	b, err := env.Client.Approvals.Request(ctx, p)
	require.NoError(t, err)
	assert.Empty(t, b.CallbackSecret)
	env.Server.Advance(10 * time.Minute)
	d := rcv.next(t)
	cb, err = governance.VerifyApprovalCallback(secret, d.header, d.body)
	require.NoError(t, err)
	assert.Equal(t, "req-2", cb.Data.SourceRequestID)
	assert.Equal(t, governance.ApprovalApproved, cb.Data.Decision)
}

func TestApprovalRequestErrors(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, mockserver.WithApprovalCallbackHosts("control.example", "*.approvals.example"))
	ctx := context.Background()
	rcv := newReceiver(t)
	c := env.Client.Approvals

	for _, typ := range []string{governance.ChannelSMS, governance.ChannelSMSThenVoice} {
		p := approvalParams(env, "+15551230001", rcv.url())
		p.Channel.Type = typ
		_, err := c.Request(ctx, p)
		requireAPIError(t, err, http.StatusNotImplemented, voiceagent.CodeNotImplemented)
		assert.ErrorIs(t, err, voiceagent.ErrNotImplemented)
	}

	bad := func(mut func(*governance.ApprovalParams), path string) {
		t.Helper()
		p := approvalParams(env, "+15551230001", rcv.url())
		mut(p)
		_, err := c.Request(ctx, p)
		apiErr := requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest)
		assert.Contains(t, detailPaths(apiErr), path)
	}
	bad(func(p *governance.ApprovalParams) { p.CallbackURL = "https://evil.example/cb" }, "/callback_url")
	bad(func(p *governance.ApprovalParams) { p.CallbackURL = "http://control.example/cb" }, "/callback_url")
	bad(func(p *governance.ApprovalParams) { p.CallbackURL = "https://approvals.example.evil.example/cb" }, "/callback_url")
	bad(func(p *governance.ApprovalParams) { p.RespondsToHash = "sha256:ABC" }, "/responds_to_hash")
	bad(func(p *governance.ApprovalParams) { p.RespondsToHash = strings.ToUpper(hash) }, "/responds_to_hash")
	bad(func(p *governance.ApprovalParams) { p.Source = "Billing" }, "/source")
	bad(func(p *governance.ApprovalParams) { p.Summary = strings.Repeat("x", 2001) }, "/summary")
	bad(func(p *governance.ApprovalParams) { p.RiskLevel = "extreme" }, "/risk_level")
	bad(func(p *governance.ApprovalParams) { p.Channel.Address = "555-0100" }, "/channel/address")
	bad(func(p *governance.ApprovalParams) { p.ExpiresAt = env.Server.Now().Add(-time.Second) }, "/expires_at")

	// Allowed hosts are accepted; the mock does not call outside loopback
	// unless told to, so the decision is recorded as not sent.
	for _, u := range []string{"https://control.example/cb", "https://eu.approvals.example/cb"} {
		a, err := c.Request(ctx, approvalParams(env, "+15551230001", u))
		require.NoError(t, err, u)
		env.Server.Advance(10 * time.Minute)
		got, err := c.Get(ctx, a.ID)
		require.NoError(t, err)
		assert.Equal(t, governance.ApprovalApproved, got.Status)
		assert.Equal(t, "not_sent", got.Callback.Status)
		require.NotNil(t, got.Callback.Error)
		assert.Contains(t, *got.Callback.Error, "loopback")
	}

	noScope := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"agents:write", "workspaces:write"}})
	_, err := env.ClientFor(noScope.APIKey).Approvals.Request(ctx, approvalParams(env, "+15551230001", rcv.url()))
	assert.ErrorIs(t, err, voiceagent.ErrForbidden, "approvals:write is needed")

	// A placing failure is the call's error, and nothing is stored.
	_, err = c.Request(ctx, approvalParams(env, "+15005550003", rcv.url()))
	assert.ErrorIs(t, err, voiceagent.ErrCallFailed)

	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	mine, err := c.List(ctx, nil)
	require.NoError(t, err)
	require.NotEmpty(t, mine.Data)
	_, err = env.ClientFor(other.APIKey).Approvals.Get(ctx, mine.Data[0].ID)
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
}
