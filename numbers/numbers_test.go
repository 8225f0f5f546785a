package numbers_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/numbers"
)

func TestListNumbers(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()

	list, err := env.Client.Numbers.List(ctx, nil)
	require.NoError(t, err)
	require.Len(t, list, 1)
	n := list[0]
	assert.Equal(t, env.Account.PhoneNumber, n.PhoneNumber)
	assert.Equal(t, env.Account.AgentID, n.AgentID)
	assert.Equal(t, env.Account.BusinessID, n.BusinessID)
	assert.False(t, n.CreatedAt.IsZero())

	one, err := env.Client.Numbers.List(ctx, &numbers.ListParams{BusinessID: env.Account.BusinessID})
	require.NoError(t, err)
	assert.Equal(t, list, one)
}

func TestListNumbersErrors(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})

	_, err := env.Client.Numbers.List(ctx, &numbers.ListParams{BusinessID: other.BusinessID})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden, "another tenant's business")

	noScope := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"agents:read"}})
	_, err = env.ClientFor(noScope.APIKey).Numbers.List(ctx, nil)
	assert.ErrorIs(t, err, voiceagent.ErrForbidden, "numbers:read is required")

	_, err = env.ClientFor("voiceagent_live_nope").Numbers.List(ctx, nil)
	assert.ErrorIs(t, err, voiceagent.ErrUnauthorized)
}
