package webhooks_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

func TestTypedAccessorsOnRealEvents(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	page, err := env.Client.Events.List(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, page.Data, 3)
	for _, e := range page.Data {
		switch e.Type {
		case webhooks.EventWorkspaceCreated, webhooks.EventWorkspaceReady:
			w, err := e.Workspace()
			require.NoError(t, err)
			assert.Equal(t, env.Account.BusinessID, w.ID)
			assert.Equal(t, "Test Business", w.Name)
			assert.Equal(t, "active", w.SubscriptionStatus)
			assert.True(t, w.TrialEndsAt.After(w.CreatedAt))
			_, err = e.PhoneNumber()
			assert.ErrorIs(t, err, webhooks.ErrEventFamily)
		case webhooks.EventPhoneNumberAssigned:
			n, err := e.PhoneNumber()
			require.NoError(t, err)
			assert.Equal(t, env.Account.PhoneNumber, n.PhoneNumber)
			assert.Equal(t, env.Account.AgentID, n.AgentID)
			assert.Equal(t, env.Account.BusinessID, n.BusinessID)
			_, err = e.Workspace()
			assert.ErrorIs(t, err, webhooks.ErrEventFamily)
		default:
			t.Fatalf("unexpected event %s", e.Type)
		}
	}
}

func TestTypedAccessorsByFamily(t *testing.T) {
	t.Parallel()
	ev := func(typ webhooks.EventType, data string) *webhooks.Event {
		e, err := webhooks.Parse([]byte(`{"id":"e1","event":"` + string(typ) + `","business_id":"b1","timestamp":"2026-01-02T03:04:05Z","data":` + data + `}`))
		require.NoError(t, err)
		return e
	}
	c, err := ev(webhooks.EventCallCompleted, `{"id":"c1","status":"completed","duration":95,"summary":"Booked","lead_id":null,
		"quality_dimensions":{"professionalism":9,"empathy":8,"information_gathering":7,"resolution":10}}`).Call()
	require.NoError(t, err)
	assert.Equal(t, "c1", c.ID)
	assert.Equal(t, 95, c.Duration)
	assert.Nil(t, c.LeadID, "null reads as nil")
	require.NotNil(t, c.QualityDimensions)
	assert.Equal(t, 10, c.QualityDimensions.Resolution)
	_, err = ev(webhooks.EventVoicemailReceived, `{"id":"c2"}`).Call()
	assert.NoError(t, err, "a voicemail is a call")

	l, err := ev(webhooks.EventLeadScored, `{"id":"l1","name":"Ada","score":87,"status":"new"}`).Lead()
	require.NoError(t, err)
	assert.Equal(t, 87, l.Score)
	_, err = ev(webhooks.EventLeadEmailSent, `{"id":"x"}`).Lead()
	assert.ErrorIs(t, err, webhooks.ErrEventFamily, "lead_email.* is not lead.*")

	m, err := ev(webhooks.EventSMSReceived, `{"id":"m1","direction":"inbound","from":"+15550000001","body":"STOP"}`).Message()
	require.NoError(t, err)
	assert.Equal(t, "STOP", m.Body)
	_, err = ev(webhooks.EventSMSReceived, `{"id":"m1"}`).Call()
	assert.ErrorIs(t, err, webhooks.ErrEventFamily)

	_, err = ev(webhooks.EventCallStarted, `{"duration":"long"}`).Call()
	assert.Error(t, err, "data of the wrong shape")
	assert.NotErrorIs(t, err, webhooks.ErrEventFamily)
}
