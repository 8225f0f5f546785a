package sms_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/leads"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/sms"
)

// afternoonET is 12:00 in New York and 09:00 in Los Angeles: inside every
// US recipient's allowed hours.
var afternoonET = time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)

func newEnv(t *testing.T, start time.Time) *testenv.Env {
	t.Helper()
	return testenv.New(t, mockserver.WithStartTime(start))
}

func send(env *testenv.Env, to, msg string) (*sms.Sent, error) {
	return env.Client.SMS.Send(context.Background(), &sms.SendParams{To: to, FromAgentID: env.Account.AgentID, Message: msg})
}

func code(t *testing.T, err error) (int, string) {
	t.Helper()
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	return apiErr.StatusCode, apiErr.Code
}

func TestConsentComesFromInboundTextsAndCallsAndFollowsStopAndStart(t *testing.T) {
	t.Parallel()
	env := newEnv(t, afternoonET)
	const to = "+15559990001"

	_, err := send(env, to, "Hello!")
	status, c := code(t, err)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, voiceagent.CodeNumberOptedOut, c, "never opted in")
	assert.ErrorIs(t, err, voiceagent.ErrNumberOptedOut)

	in, err := env.Server.InboundSMS(mockserver.InboundSMS{To: env.Account.PhoneNumber, From: to, Body: "Hi, do you have availability tomorrow?"})
	require.NoError(t, err)
	assert.Equal(t, mockserver.ConsentOptedIn, in.Consent)
	sent, err := send(env, to, "Yes, we have 10am free.")
	require.NoError(t, err)
	assert.True(t, sent.Success)
	assert.True(t, strings.HasPrefix(sent.MessageSID, "SM"))
	assert.Equal(t, to, sent.To)
	assert.Equal(t, env.Account.PhoneNumber, sent.From, "the agent's number sends")
	require.NotNil(t, sent.LeadID)
	assert.Equal(t, in.LeadID, *sent.LeadID, "the text joins the thread of the lead with that number")
	assert.Equal(t, sms.StatusSent, sent.Status)

	in, err = env.Server.InboundSMS(mockserver.InboundSMS{To: env.Account.PhoneNumber, From: to, Body: "  stop "})
	require.NoError(t, err)
	assert.Equal(t, mockserver.ConsentOptedOut, in.Consent)
	_, err = send(env, to, "Are you sure?")
	assert.ErrorIs(t, err, voiceagent.ErrNumberOptedOut, "STOP revokes")
	_, err = env.Server.InboundSMS(mockserver.InboundSMS{To: env.Account.PhoneNumber, From: to, Body: "one more question"})
	require.NoError(t, err)
	_, err = send(env, to, "Sure")
	assert.ErrorIs(t, err, voiceagent.ErrNumberOptedOut, "only START lifts an opt-out")
	id, err := env.Server.InboundCall(mockserver.InboundCall{To: env.Account.PhoneNumber, From: to})
	require.NoError(t, err)
	_ = id
	_, err = send(env, to, "Sure")
	assert.ErrorIs(t, err, voiceagent.ErrNumberOptedOut, "nor does a call")
	in, err = env.Server.InboundSMS(mockserver.InboundSMS{To: env.Account.PhoneNumber, From: to, Body: "START"})
	require.NoError(t, err)
	assert.Equal(t, mockserver.ConsentOptedIn, in.Consent)
	_, err = send(env, to, "Welcome back")
	assert.NoError(t, err, "START restores")

	const caller = "+15559990002"
	_, err = env.Server.InboundCall(mockserver.InboundCall{To: env.Account.PhoneNumber, From: caller, Answered: voiceagent.Bool(false)})
	require.NoError(t, err)
	_, err = send(env, caller, "Sorry we missed your call!")
	assert.NoError(t, err, "an inbound call grants consent")
	assert.Equal(t, mockserver.ConsentOptedIn, env.Server.Consent(env.Account.BusinessID, caller))

	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	_, err = env.ClientFor(other.APIKey).SMS.Send(context.Background(), &sms.SendParams{To: caller, FromAgentID: other.AgentID, Message: "hi"})
	assert.ErrorIs(t, err, voiceagent.ErrNumberOptedOut, "consent is towards one business")
}

func TestDoNotCallLists(t *testing.T) {
	t.Parallel()
	env := newEnv(t, afternoonET)
	const to = "+15559990011"
	require.NoError(t, env.Server.SetConsent(env.Account.BusinessID, to, mockserver.ConsentOptedIn))
	_, err := send(env, to, "hi")
	require.NoError(t, err)

	require.NoError(t, env.Server.AddDNC(to, env.Account.BusinessID))
	_, err = send(env, to, "hi")
	status, c := code(t, err)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, voiceagent.CodeNumberOnDNC, c)
	require.NoError(t, env.Server.RemoveDNC(to, env.Account.BusinessID))
	_, err = send(env, to, "hi")
	require.NoError(t, err)

	const national = "+15559990012"
	require.NoError(t, env.Server.SetConsent(env.Account.BusinessID, national, mockserver.ConsentOptedIn))
	require.NoError(t, env.Server.AddDNC(national, ""))
	_, err = send(env, national, "hi")
	assert.ErrorIs(t, err, voiceagent.ErrNumberOnDNC, "the national registry binds every business")
	require.NoError(t, env.Server.RemoveDNC(national, ""))
	_, err = send(env, national, "hi")
	assert.NoError(t, err)

	assert.Error(t, env.Server.AddDNC("555", ""), "the helper validates like the admin route")
	assert.Error(t, env.Server.AddDNC(to, "00000000-0000-4000-8000-000000000000"), "unknown business")
	assert.Error(t, env.Server.SetConsent(env.Account.BusinessID, to, "maybe"))
}

func TestQuietHoursInTheRecipientsLocalTime(t *testing.T) {
	t.Parallel()
	// 01:30 UTC: 21:30 in New York (quiet), 18:30 in Los Angeles (allowed).
	env := newEnv(t, time.Date(2026, 3, 11, 1, 30, 0, 0, time.UTC))
	for _, n := range []string{"+12125550100", "+14155550100", "+15559990021", "+442071234567"} {
		require.NoError(t, env.Server.SetConsent(env.Account.BusinessID, n, mockserver.ConsentOptedIn))
	}
	_, err := send(env, "+12125550100", "hi")
	status, c := code(t, err)
	assert.Equal(t, http.StatusBadRequest, status)
	assert.Equal(t, voiceagent.CodeTCPAViolation, c)
	assert.Contains(t, err.Error(), "21:30")
	assert.Contains(t, err.Error(), "America/New_York")

	_, err = send(env, "+14155550100", "hi")
	assert.NoError(t, err, "18:30 in Los Angeles")
	_, err = send(env, "+15559990021", "hi")
	assert.ErrorIs(t, err, voiceagent.ErrTCPAViolation, "an unknown area code uses the business's time zone (New York)")
	_, err = send(env, "+442071234567", "hi")
	assert.ErrorIs(t, err, voiceagent.ErrTCPAViolation, "01:30 in London")

	env.Server.Advance(11 * time.Hour) // 12:30 UTC: 08:30 New York, 05:30 Los Angeles
	_, err = send(env, "+12125550100", "good morning")
	assert.NoError(t, err)
	_, err = send(env, "+14155550100", "good morning")
	assert.ErrorIs(t, err, voiceagent.ErrTCPAViolation)
	_, err = send(env, "+442071234567", "hi")
	assert.NoError(t, err, "12:30 in London")
}

func TestContentCompliance(t *testing.T) {
	t.Parallel()
	env := newEnv(t, afternoonET)
	const to = "+15559990031"
	require.NoError(t, env.Server.SetConsent(env.Account.BusinessID, to, mockserver.ConsentOptedIn))
	for _, msg := range []string{
		"Visit our CASINO tonight", "Cheap payday loan, guaranteed approval", "Details: https://bit.ly/abc",
		"Free money for you", "We sell cannabis",
	} {
		_, err := send(env, to, msg)
		status, c := code(t, err)
		assert.Equal(t, http.StatusBadRequest, status, msg)
		assert.Equal(t, voiceagent.CodeContentBlocked, c, msg)
	}
	for _, msg := range []string{"Your appointment is confirmed for 10am.", "Occasional discounts apply", "See https://example.com/book"} {
		_, err := send(env, to, msg)
		assert.NoError(t, err, msg)
	}
	page, err := env.Client.SMS.List(context.Background(), &sms.ListParams{Phone: to})
	require.NoError(t, err)
	assert.Len(t, page.Data, 3, "refused texts are not logged")
}

func TestMagicNumbersAndCarrierFaults(t *testing.T) {
	t.Parallel()
	env := newEnv(t, afternoonET)
	for to, want := range map[string]struct {
		status int
		code   string
	}{
		"+15005550010": {400, voiceagent.CodeNumberOnDNC},
		"+15005550011": {400, voiceagent.CodeNumberOptedOut},
		"+15005550012": {500, voiceagent.CodeSMSSendFailed},
		"+15005550013": {400, voiceagent.CodeTCPAViolation},
	} {
		_, err := send(env, to, "hi")
		status, c := code(t, err)
		assert.Equal(t, want.status, status, to)
		assert.Equal(t, want.code, c, to)
	}
	failed, err := env.Client.SMS.List(context.Background(), &sms.ListParams{Phone: "+15005550012"})
	require.NoError(t, err)
	require.Len(t, failed.Data, 1, "a text the carrier failed is logged as failed")
	assert.Equal(t, sms.StatusFailed, failed.Data[0].Status)
	require.NotNil(t, failed.Data[0].Error)

	const to = "+15559990041"
	require.NoError(t, env.Server.SetConsent(env.Account.BusinessID, to, mockserver.ConsentOptedIn))
	env.Server.AddFault(mockserver.FaultRule{Path: "/v1/sms/send", Target: mockserver.FaultTargetSMSProvider, Status: 502, Times: 1})
	_, err = send(env, to, "hi")
	status, c := code(t, err)
	assert.Equal(t, http.StatusInternalServerError, status)
	assert.Equal(t, voiceagent.CodeSMSSendFailed, c)
	_, err = send(env, to, "hi again")
	assert.NoError(t, err, "the fault fired once")
}

func TestThreadsAndDelivery(t *testing.T) {
	t.Parallel()
	env := newEnv(t, afternoonET)
	ctx := context.Background()
	const to = "+15559990051"
	in, err := env.Server.InboundSMS(mockserver.InboundSMS{To: env.Account.PhoneNumber, From: to, Body: "Hi, this is Lee Park. Can I book a visit?"})
	require.NoError(t, err)
	env.Server.Advance(time.Minute)
	sent, err := send(env, to, "Sure, Lee! Does Friday work?")
	require.NoError(t, err)

	page, err := env.Client.SMS.List(ctx, &sms.ListParams{LeadID: in.LeadID})
	require.NoError(t, err)
	require.Len(t, page.Data, 2)
	out := page.Data[0]
	assert.Equal(t, sent.ID, out.ID)
	assert.Equal(t, sent.MessageSID, out.MessageSID)
	assert.Equal(t, sms.DirectionOutbound, out.Direction)
	assert.Equal(t, sms.StatusSent, out.Status)
	assert.Equal(t, env.Account.AgentID, out.AgentID)
	assert.Equal(t, env.Account.BusinessID, out.BusinessID)
	assert.Equal(t, "Sure, Lee! Does Friday work?", out.Body)
	assert.Equal(t, sms.DirectionInbound, page.Data[1].Direction)
	assert.Equal(t, sms.StatusReceived, page.Data[1].Status)
	assert.Equal(t, to, page.Data[1].From)
	assert.Equal(t, env.Account.PhoneNumber, page.Data[1].To)

	env.Server.Advance(2 * time.Second)
	thread, err := env.Client.SMS.Thread(ctx, in.LeadID)
	require.NoError(t, err)
	require.Len(t, thread, 2)
	assert.Equal(t, "Hi, this is Lee Park. Can I book a visit?", thread[0].Body, "oldest first")
	assert.Equal(t, sms.StatusDelivered, thread[1].Status, "delivered two seconds after sending")
	assert.True(t, thread[1].UpdatedAt.After(thread[1].CreatedAt))

	l, err := env.Client.Leads.Get(ctx, in.LeadID)
	require.NoError(t, err)
	assert.Equal(t, "Lee Park", *l.Name)
	assert.Equal(t, leads.StatusContacted, l.Status, "an outbound text contacts a new lead")
	assert.Equal(t, 2, l.InteractionCount)

	// An explicit lead_id puts the text in that thread.
	other, err := env.Server.InboundSMS(mockserver.InboundSMS{To: env.Account.PhoneNumber, From: "+15559990052", Body: "hello"})
	require.NoError(t, err)
	s2, err := env.Client.SMS.Send(ctx, &sms.SendParams{To: to, FromAgentID: env.Account.AgentID, Message: "fyi", LeadID: voiceagent.String(other.LeadID)})
	require.NoError(t, err)
	assert.Equal(t, other.LeadID, *s2.LeadID)

	inbound, err := env.Client.SMS.List(ctx, &sms.ListParams{Direction: sms.DirectionInbound})
	require.NoError(t, err)
	assert.Len(t, inbound.Data, 2)
	byAgent, err := env.Client.SMS.List(ctx, &sms.ListParams{AgentID: env.Account.AgentID, Limit: 1})
	require.NoError(t, err)
	assert.True(t, byAgent.HasMore)
	n := 0
	for _, err := range env.Client.SMS.All(ctx, &sms.ListParams{Limit: 1}) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 4, n)

	msgs := env.Server.Outbox(to)
	require.Len(t, msgs, 2, "texts to people appear in the outbox")
	assert.Equal(t, admin.ChannelSMS, msgs[0].Channel)
	assert.Equal(t, env.Account.PhoneNumber, msgs[0].From)
}

func TestSendErrorsAndMessagingService(t *testing.T) {
	t.Parallel()
	env := newEnv(t, afternoonET)
	ctx := context.Background()
	const to = "+15559990061"
	require.NoError(t, env.Server.SetConsent(env.Account.BusinessID, to, mockserver.ConsentOptedIn))

	noNumber, err := env.Client.Agents.Create(ctx, &agents.CreateParams{BusinessID: env.Account.BusinessID, Name: "Texter", SystemPrompt: "x"})
	require.NoError(t, err)
	_, err = env.Client.SMS.Send(ctx, &sms.SendParams{To: to, FromAgentID: noNumber.ID, Message: "hi"})
	assert.ErrorIs(t, err, voiceagent.ErrNotFound, "an agent without a number")
	_, err = env.Client.Agents.Update(ctx, &agents.UpdateParams{ID: noNumber.ID, Metadata: map[string]any{"messaging_service_sid": "MG123"}})
	require.NoError(t, err)
	sent, err := env.Client.SMS.Send(ctx, &sms.SendParams{To: to, FromAgentID: noNumber.ID, Message: "hi"})
	require.NoError(t, err)
	assert.Equal(t, sms.FromMessagingService, sent.From)

	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	_, err = env.Client.SMS.Send(ctx, &sms.SendParams{To: to, FromAgentID: other.AgentID, Message: "hi"})
	assert.ErrorIs(t, err, voiceagent.ErrNotFound, "another tenant's agent")
	otherLead, err := env.Server.InboundSMS(mockserver.InboundSMS{To: other.PhoneNumber, From: "+15559990062", Body: "hi"})
	require.NoError(t, err)
	_, err = env.Client.SMS.Send(ctx, &sms.SendParams{To: to, FromAgentID: env.Account.AgentID, Message: "hi", LeadID: voiceagent.String(otherLead.LeadID)})
	assert.ErrorIs(t, err, voiceagent.ErrNotFound, "another tenant's lead")
	_, err = env.Client.SMS.List(ctx, &sms.ListParams{LeadID: otherLead.LeadID})
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)

	for name, body := range map[string]map[string]any{
		"empty message":      {"to": to, "from_agent_id": env.Account.AgentID, "message": ""},
		"1601 characters":    {"to": to, "from_agent_id": env.Account.AgentID, "message": strings.Repeat("a", 1601)},
		"to not E.164":       {"to": "5551234", "from_agent_id": env.Account.AgentID, "message": "x"},
		"agent not a uuid":   {"to": to, "from_agent_id": "agent", "message": "x"},
		"missing agent":      {"to": to, "message": "x"},
		"unknown property":   {"to": to, "from_agent_id": env.Account.AgentID, "message": "x", "from": to},
		"lead_id not uuid":   {"to": to, "from_agent_id": env.Account.AgentID, "message": "x", "lead_id": "l"},
		"message not text":   {"to": to, "from_agent_id": env.Account.AgentID, "message": 5},
		"body not an object": nil,
	} {
		var err error
		if body == nil {
			err = env.Client.Do(ctx, http.MethodPost, "/v1/sms/send", nil, []int{1}, nil)
		} else {
			err = env.Client.Do(ctx, http.MethodPost, "/v1/sms/send", nil, body, nil)
		}
		assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest, name)
	}
	_, err = env.Client.SMS.List(ctx, &sms.ListParams{Direction: "sideways"})
	assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest)

	readOnly := env.ClientFor(testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"sms:read", "agents:read"}}).APIKey)
	_, err = readOnly.SMS.Send(ctx, &sms.SendParams{To: to, FromAgentID: env.Account.AgentID, Message: "x"})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	_, err = readOnly.SMS.UpdatePrompt(ctx, &sms.UpdatePromptParams{AgentID: env.Account.AgentID, SMSPrompt: "x"})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden, "update-prompt needs agents:write")
	writeOnly := env.ClientFor(testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"sms:write"}}).APIKey)
	_, err = writeOnly.SMS.List(ctx, nil)
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
}

func TestUpdatePromptWritesTheAuditTrail(t *testing.T) {
	t.Parallel()
	env := newEnv(t, afternoonET)
	ctx := context.Background()
	before, err := env.Client.Agents.Get(ctx, env.Account.AgentID)
	require.NoError(t, err)

	res, err := env.Client.SMS.UpdatePrompt(ctx, &sms.UpdatePromptParams{AgentID: env.Account.AgentID, SMSPrompt: "Be brief.", Reason: voiceagent.String("too chatty")})
	require.NoError(t, err)
	assert.Equal(t, &sms.PromptUpdated{Success: true, AgentID: env.Account.AgentID, Message: "SMS prompt updated"}, res)
	env.Server.Advance(time.Minute)
	_, err = env.Client.SMS.UpdatePrompt(ctx, &sms.UpdatePromptParams{AgentID: env.Account.AgentID, SMSPrompt: "Be briefer."})
	require.NoError(t, err)

	a, err := env.Client.Agents.Get(ctx, env.Account.AgentID)
	require.NoError(t, err)
	assert.Equal(t, "Be briefer.", *a.Prompts.SMS.Prompt)
	assert.Equal(t, *before.Prompts.Inbound.Prompt, *a.Prompts.Inbound.Prompt, "only the SMS prompt changes")

	trail := env.Server.PromptAudit(env.Account.AgentID)
	require.Len(t, trail, 2)
	assert.Equal(t, "sms_prompt", trail[0].Field)
	assert.Equal(t, *before.Prompts.SMS.Prompt, trail[0].OldValue)
	assert.Equal(t, "Be brief.", trail[0].NewValue)
	assert.Equal(t, "too chatty", trail[0].Reason)
	assert.Equal(t, env.Account.UserID, trail[0].ActorUserID)
	assert.Equal(t, env.Account.APIKey[:20], trail[0].ActorKeyPrefix)
	assert.Equal(t, env.Account.BusinessID, trail[0].BusinessID)
	assert.Equal(t, "Be brief.", trail[1].OldValue)
	assert.Equal(t, "", trail[1].Reason)
	assert.Equal(t, afternoonET.Add(time.Minute), trail[1].CreatedAt)

	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	_, err = env.Client.SMS.UpdatePrompt(ctx, &sms.UpdatePromptParams{AgentID: other.AgentID, SMSPrompt: "x"})
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
	assert.Empty(t, env.Server.PromptAudit(other.AgentID))
	err = env.Client.Do(ctx, http.MethodPost, "/v1/sms/update-prompt", nil, map[string]any{"agent_id": env.Account.AgentID, "sms_prompt": ""}, nil)
	assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest)
}
