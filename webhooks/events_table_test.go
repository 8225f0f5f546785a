package webhooks_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/events"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/leads"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/signup"
	"github.com/voiceagent/voiceagent-go/sms"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// neverEmitted are the event types no action of the mock produces (only
// EmitEvent and POST /_mock/events do), as the mock's documentation says.
var neverEmitted = []webhooks.EventType{
	webhooks.EventDispatcherBriefingCreated, webhooks.EventDispatcherHandoffDispatched,
	webhooks.EventPhoneNumberReleased, webhooks.EventPhoneNumberPurchased,
	webhooks.EventWorkspacePaused, webhooks.EventWorkspaceCanceled, webhooks.EventWorkspaceTeardownCompleted,
	webhooks.EventLeadEmailSent, webhooks.EventLeadEmailFailed,
	webhooks.EventCallbackScheduled, webhooks.EventCallbackCompleted,
}

// eventLog reads a business's new events through the SDK, oldest first.
type eventLog struct {
	c    *client.Client
	seen map[string]bool
}

func (l *eventLog) next(t *testing.T) []*events.Event {
	t.Helper()
	var out []*events.Event
	for e, err := range l.c.Events.All(context.Background(), &events.ListParams{Limit: 100}) {
		require.NoError(t, err)
		if !l.seen[e.ID] {
			l.seen[e.ID] = true
			out = append(out, e)
		}
	}
	slices.Reverse(out)
	return out
}

// checkAccessor reads an event with its typed accessor and checks that the
// typed view has a field for every member of the data the mock sent.
func checkAccessor(t *testing.T, e *webhooks.Event) {
	t.Helper()
	var (
		typed any
		err   error
	)
	switch e.Type {
	case webhooks.EventConversationHandoff:
		typed, err = e.Handoff()
	case webhooks.EventPhoneNumberAssigned:
		typed, err = e.PhoneNumber()
	case webhooks.EventWorkspaceCreated, webhooks.EventWorkspaceReady, webhooks.EventWorkspaceProvisioningFailed:
		// partner_id and failed_step are sent only when they apply.
		var w *webhooks.WorkspaceData
		w, err = e.Workspace()
		require.NoError(t, err, e.Type)
		assert.Equal(t, e.BusinessID, w.ID)
		return
	default:
		if typed, err = e.Call(); errors.Is(err, webhooks.ErrEventFamily) {
			if typed, err = e.Lead(); errors.Is(err, webhooks.ErrEventFamily) {
				typed, err = e.Message()
			}
		}
	}
	require.NoError(t, err, e.Type)
	assertSameFields(t, e, typed)
}

// TestEachActionEmitsTheDocumentedEvents checks the table of docs/mockserver.md
// (section Events emitted): each action, driven through the SDK
// or the mock's telephony drivers, emits exactly the events listed, in
// order, and every one reads through its typed accessor.
func TestEachActionEmitsTheDocumentedEvents(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, mockserver.WithStartTime(daytime))
	ctx := context.Background()
	srv := env.Server
	log := &eventLog{c: env.Client, seen: map[string]bool{}}
	emitted := map[webhooks.EventType]bool{}
	expect := func(action string, want ...webhooks.EventType) {
		t.Helper()
		var got []webhooks.EventType
		for _, e := range log.next(t) {
			got = append(got, e.Type)
			emitted[e.Type] = true
			checkAccessor(t, &e.Event)
		}
		assert.Equal(t, want, got, action)
	}
	inbound := func(in mockserver.InboundCall) {
		t.Helper()
		in.To = env.Account.PhoneNumber
		_, err := srv.InboundCall(in)
		require.NoError(t, err)
	}
	call := func(to string) {
		t.Helper()
		_, err := env.Client.Calls.Create(ctx, &calls.CreateParams{AgentID: env.Account.AgentID, To: to})
		require.NoError(t, err)
	}

	expect("NewAccount", webhooks.EventWorkspaceCreated, webhooks.EventPhoneNumberAssigned, webhooks.EventWorkspaceReady)

	call("+15557770601")
	expect("POST /v1/calls")
	srv.Advance(2 * time.Second)
	expect("an outbound call is answered", webhooks.EventCallStarted)
	srv.Advance(5 * time.Minute)
	expect("an outbound call ends", webhooks.EventCallCompleted)
	call("+15005550002")
	srv.Advance(2 * time.Second)
	expect("an outbound call is busy", webhooks.EventCallFailed)
	call("+15005550001")
	srv.Advance(30 * time.Second)
	expect("an outbound call is not answered", webhooks.EventCallFailed)

	inbound(mockserver.InboundCall{From: "+15557770602", Duration: 60, Caller: mockserver.Caller{Name: "Jane Doe", Email: "jane@example.com", Said: "I need a quote"}})
	expect("a caller rings", webhooks.EventCallReceived)
	srv.Advance(2 * time.Second)
	expect("the agent answers", webhooks.EventCallStarted)
	srv.Advance(time.Minute)
	expect("a new caller's call ends", webhooks.EventLeadCreated, webhooks.EventLeadScored, webhooks.EventCallCompleted)

	_, err := env.Client.Agents.Update(ctx, &agents.UpdateParams{ID: env.Account.AgentID,
		TransferEnabled: voiceagent.Bool(true), TransferPhoneNumber: voiceagent.String("+15557779999")})
	require.NoError(t, err)
	expect("PATCH /v1/agents")
	inbound(mockserver.InboundCall{From: "+15557770602", Duration: 60, Caller: mockserver.Caller{Said: "Let me talk to a person"}})
	srv.Advance(2*time.Second + time.Minute)
	expect("a known caller asks for a person", webhooks.EventCallReceived, webhooks.EventCallStarted,
		webhooks.EventLeadScored, webhooks.EventConversationHandoff, webhooks.EventCallCompleted)

	call("+15557770602")
	srv.Advance(2*time.Second + 5*time.Minute)
	expect("an outbound call to a lead ends", webhooks.EventCallStarted, webhooks.EventLeadScored, webhooks.EventCallCompleted)

	no := false
	inbound(mockserver.InboundCall{From: "+15557770603", Answered: &no, Voicemail: "Please call me back about a booking"})
	srv.Advance(30 * time.Second)
	expect("a caller leaves a voicemail", webhooks.EventCallReceived, webhooks.EventLeadCreated, webhooks.EventLeadScored,
		webhooks.EventVoicemailReceived, webhooks.EventCallFailed)
	inbound(mockserver.InboundCall{From: "+15557770604", Answered: &no})
	srv.Advance(30 * time.Second)
	expect("a call is missed", webhooks.EventCallReceived, webhooks.EventLeadCreated, webhooks.EventLeadScored, webhooks.EventCallFailed)

	in, err := srv.InboundSMS(mockserver.InboundSMS{To: env.Account.PhoneNumber, From: "+15557770605", Body: "Do you have availability on Friday?"})
	require.NoError(t, err)
	expect("a new number texts", webhooks.EventLeadCreated, webhooks.EventLeadScored, webhooks.EventSMSReceived)
	_, err = env.Client.SMS.Send(ctx, &sms.SendParams{To: "+15557770605", FromAgentID: env.Account.AgentID, Message: "Yes, from 9am."})
	require.NoError(t, err)
	expect("POST /v1/sms/send to a lead", webhooks.EventSMSSent, webhooks.EventLeadScored)
	srv.Advance(2 * time.Second)
	expect("the carrier delivers the text", webhooks.EventSMSDelivered)
	_, err = srv.InboundSMS(mockserver.InboundSMS{To: env.Account.PhoneNumber, From: "+15557770605", Body: "STOP"})
	require.NoError(t, err)
	expect("a lead texts STOP (a third interaction)", webhooks.EventLeadScored, webhooks.EventSMSReceived)
	_, err = srv.InboundSMS(mockserver.InboundSMS{To: env.Account.PhoneNumber, From: "+15557770605", Body: "START"})
	require.NoError(t, err)
	expect("a lead texts START (interactions count at most 30 points)", webhooks.EventSMSReceived)
	_, err = env.Client.SMS.Send(ctx, &sms.SendParams{To: "+15005550012", FromAgentID: env.Account.AgentID, Message: "Hello"})
	require.Error(t, err)
	expect("the carrier refuses a text", webhooks.EventSMSFailed)
	_, err = env.Client.SMS.Send(ctx, &sms.SendParams{To: "+15005550010", FromAgentID: env.Account.AgentID, Message: "Hello"})
	require.Error(t, err)
	expect("a text refused before the carrier")

	_, err = env.Client.Leads.Update(ctx, &leads.UpdateParams{ID: in.LeadID, Status: voiceagent.Ptr(leads.StatusQualified)})
	require.NoError(t, err)
	expect("PATCH /v1/leads changes the score", webhooks.EventLeadScored)
	_, err = env.Client.Leads.Update(ctx, &leads.UpdateParams{ID: in.LeadID, City: voiceagent.String("Boston")})
	require.NoError(t, err)
	expect("PATCH /v1/leads keeps the score")

	// A signup whose provisioning fails at the number step.
	email := "owner@provisioning-fails.example"
	req := &signup.RequestParams{Fields: signup.Fields{BusinessName: "Unlucky", Email: email}}
	ch, err := env.Client.Signup.Request(ctx, req)
	require.NoError(t, err)
	_, err = env.Client.Signup.Verify(ctx, &signup.VerifyParams{RequestParams: *req, ChallengeID: ch.ChallengeID, OTPCode: srv.Outbox(email)[0].OTPCode})
	var pf *signup.ProvisioningFailedError
	require.ErrorAs(t, err, &pf)
	failedLog := &eventLog{c: env.ClientFor(pf.Result.APIKey), seen: map[string]bool{}}
	var types []webhooks.EventType
	for _, e := range failedLog.next(t) {
		types = append(types, e.Type)
		emitted[e.Type] = true
		checkAccessor(t, &e.Event)
		if e.Type == webhooks.EventWorkspaceProvisioningFailed {
			w, err := e.Workspace()
			require.NoError(t, err)
			assert.Equal(t, "phone_number", w.FailedStep)
		}
	}
	assert.Equal(t, []webhooks.EventType{webhooks.EventWorkspaceCreated, webhooks.EventWorkspaceProvisioningFailed}, types)

	// Every type is either emitted by an action or documented as never.
	for _, typ := range webhooks.EventTypes() {
		assert.NotEqual(t, emitted[typ], slices.Contains(neverEmitted, typ), typ)
	}
}
