package examplekit

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

func TestStartMockAndBusiness(t *testing.T) {
	m := StartMock()
	acct, err := m.NewAccount(mockserver.AccountOptions{BusinessName: "Kit"})
	require.NoError(t, err)
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(m.BaseURL))
	ctx := context.Background()

	t.Setenv("VOICEAGENT_BUSINESS_ID", "")
	id, how, err := Business(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, acct.BusinessID, id)
	assert.Equal(t, "of agent Kit Intake Agent", how)

	t.Setenv("VOICEAGENT_BUSINESS_ID", "b-1")
	id, how, err = Business(ctx, c)
	require.NoError(t, err)
	assert.Equal(t, "b-1", id)
	assert.Equal(t, "VOICEAGENT_BUSINESS_ID", how)

	t.Setenv("VOICEAGENT_BUSINESS_ID", "")
	bare, err := m.NewAccount(mockserver.AccountOptions{Scopes: []voiceagent.Scope{voiceagent.ScopeLeadsRead}})
	require.NoError(t, err)
	_, _, err = Business(ctx, client.New(bare.APIKey, voiceagent.WithBaseURL(m.BaseURL)))
	require.ErrorIs(t, err, voiceagent.ErrForbidden, "a key without agents:read")

	m.Close()
	_, err = http.Get(m.BaseURL + "/v1/agents")
	assert.Error(t, err, "the listener is closed")
}

func TestPrinting(t *testing.T) {
	t.Parallel()
	assert.Equal(t, "a 1, b 2", Counts(map[string]int{"b": 2, "a": 1, "c": 0}))
	assert.Equal(t, "none", Counts(map[string]int{"c": 0}))
	assert.Equal(t, "America/New_York", Zone("America/New_York").String())
	assert.Equal(t, time.UTC, Zone("Nowhere/Else"))
	assert.Equal(t, "-", Str(nil))
	assert.Equal(t, "x", Str(voiceagent.String("x")))
}
