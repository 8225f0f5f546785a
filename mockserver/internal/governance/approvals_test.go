package governance

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// approvalTo is an approval request over a voice call to the address.
func approvalTo(address string, expiresIn time.Duration) *ApprovalParams {
	b := &ApprovalParams{Source: "billing", SourceRequestID: "r-1", PrincipalID: "p-1", Summary: "Refund $40.",
		RiskLevel: "medium", RequiredFactors: []string{"pin"}, ExpiresAt: start.Add(expiresIn),
		CallbackURL: "https://hooks.example/approvals"}
	b.Channel.Type, b.Channel.Address = "voice", address
	return b
}

// requestApproval makes approval request b of the account's key now.
func (w *world) requestApproval(b *ApprovalParams) (*store.ApprovalRequest, string, error) {
	var a *store.ApprovalRequest
	var secret string
	var err error
	w.p.Write(func(tx *platform.Tx) {
		a, secret, err = w.gov.RequestApproval(tx, w.p.Now(w.key.Tenant), w.key, b)
	})
	return a, secret, err
}

func TestApprovalOutcomes(t *testing.T) {
	tests := []struct {
		name     string
		to       string
		expires  time.Duration
		after    time.Duration
		status   string
		reason   string
		verified []string
	}{
		{name: "calling", to: "+15551230001", expires: time.Hour, after: time.Second, status: approvalCalling},
		{name: "approved when the call ends", to: "+15551230001", expires: time.Hour, after: 10 * time.Minute,
			status: approvalApproved, reason: "the approver approved on the call", verified: []string{"pin"}},
		{name: "denied on the magic number", to: approvalDeniesNumber, expires: time.Hour, after: 10 * time.Minute,
			status: approvalDenied, reason: "the approver declined on the call"},
		{name: "unreachable when nobody answers", to: "+15005550001", expires: time.Hour, after: time.Minute,
			status: approvalUnreachable, reason: "the approval call failed: no_answer"},
		{name: "expired before the call ends", to: "+15551230001", expires: 10 * time.Second, after: 10 * time.Minute,
			status: approvalExpired, reason: "nobody decided before expires_at"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			a, secret, err := w.requestApproval(approvalTo(tt.to, tt.expires))
			require.NoError(t, err)
			assert.NotEmpty(t, secret, "a request without a named secret shows its own")
			assert.Equal(t, secret, a.Secret)
			assert.Equal(t, w.acct.Business.ID, a.BusinessID)
			var call *store.Call
			w.p.Read(func(tx *platform.Tx) { call, _ = tx.Calls.Get(a.CallID) })
			require.NotNil(t, call, "the approval call is placed")
			assert.Equal(t, tt.to, call.To)
			assert.Equal(t, w.acct.Number.PhoneNumber, call.From)
			assert.Contains(t, call.FirstMessage, "Refund $40.")
			assert.Contains(t, call.FirstMessage, "verify: pin")

			w.advance(tt.after)
			assert.Equal(t, tt.status, a.Status)
			assert.Equal(t, tt.reason, a.Reason)
			assert.Equal(t, tt.verified, a.VerifiedFactors)
			if tt.status == approvalCalling {
				assert.Nil(t, a.DecidedAt)
				assert.Equal(t, callbackNone, a.CallbackStatus)
				return
			}
			require.NotNil(t, a.DecidedAt)
			assert.NotEmpty(t, a.CallbackEventID)
			// hooks.example is an allowed callback host, but the server
			// calls no host outside loopback without external webhooks.
			assert.Equal(t, callbackNotSent, a.CallbackStatus)
		})
	}
}

func TestApprovalRefused(t *testing.T) {
	tests := []struct {
		name   string
		change func(b *ApprovalParams)
		code   string
		path   string
	}{
		{name: "over sms", change: func(b *ApprovalParams) { b.Channel.Type = "sms" }, code: voiceagent.CodeNotImplemented},
		{name: "already expired", change: func(b *ApprovalParams) { b.ExpiresAt = start }, code: voiceagent.CodeInvalidRequest, path: "/expires_at"},
		{name: "a callback host not allowed", change: func(b *ApprovalParams) { b.CallbackURL = "https://elsewhere.example/cb" },
			code: voiceagent.CodeInvalidRequest, path: "/callback_url"},
		{name: "a plain http callback", change: func(b *ApprovalParams) { b.CallbackURL = "http://hooks.example/cb" },
			code: voiceagent.CodeInvalidRequest, path: "/callback_url"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := newWorld(t)
			b := approvalTo("+15551230001", time.Hour)
			tt.change(b)
			_, _, err := w.requestApproval(b)
			e := apiError(t, err, tt.code)
			if tt.path != "" {
				assert.Equal(t, []string{tt.path}, paths(e))
			}
			w.p.Read(func(tx *platform.Tx) {
				assert.Zero(t, tx.ApprovalRequests.Len(), "nothing is stored")
				assert.Zero(t, tx.Calls.Count(w.acct.Business.ID), "nobody is called")
			})
		})
	}
}

func TestApprovalNeedsANumber(t *testing.T) {
	w := newWorld(t)
	w.p.Write(func(tx *platform.Tx) {
		tx.Agents.Update(w.acct.Agent, func(a *store.Agent) { a.PhoneNumber = "" })
	})
	_, _, err := w.requestApproval(approvalTo("+15551230001", time.Hour))
	apiError(t, err, voiceagent.CodeConflict)
}

func TestApprovalNamedSecret(t *testing.T) {
	w := newWorld(t)
	name := "billing-secret"
	b := approvalTo("+15551230001", time.Hour)
	b.CallbackSecretID = &name
	first, shown, err := w.requestApproval(b)
	require.NoError(t, err)
	assert.NotEmpty(t, shown, "a named secret is shown when it is made")
	second, again, err := w.requestApproval(b)
	require.NoError(t, err)
	assert.Empty(t, again, "and not after")
	assert.Equal(t, first.Secret, second.Secret, "requests naming it share it")

	other, own, err := w.requestApproval(approvalTo("+15551230001", time.Hour))
	require.NoError(t, err)
	assert.NotEmpty(t, own)
	assert.NotEqual(t, first.Secret, other.Secret)
}
