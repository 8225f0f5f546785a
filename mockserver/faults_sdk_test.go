package mockserver_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// retrying is a client that retries like a production client, without
// waiting between attempts.
func retrying(env *testenv.Env) *client.Client {
	return env.ClientFor(env.Account.APIKey, voiceagent.WithMaxRetries(3), voiceagent.WithRetryWait(0, 0))
}

func journalOf(env *testenv.Env, method, path string) []mockserver.JournalEntry {
	return env.Server.Requests(func(e *mockserver.JournalEntry) bool {
		return e.Method == method && e.Path == "/api"+path
	})
}

func TestTheSDKRetriesThroughStatusFaultsAndDroppedConnections(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	c := retrying(env)
	ctx := context.Background()

	env.Server.AddFault(mockserver.FaultRule{Path: "/v1/numbers", Status: 503, Times: 2})
	nums, err := c.Numbers.List(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, nums, 1)
	statuses := []int{}
	for _, e := range journalOf(env, "GET", "/v1/numbers") {
		statuses = append(statuses, e.Status)
	}
	assert.Equal(t, []int{503, 503, 200}, statuses)

	env.Server.AddFault(mockserver.FaultRule{Path: "/v1/voices", Drop: true, Times: 1})
	env.Server.AddFault(mockserver.FaultRule{Path: "/v1/agents", Method: "GET", Truncate: true, Times: 1})
	_, err = c.Agents.ListVoices(ctx)
	require.NoError(t, err, "a dropped connection is retried")
	_, err = c.Agents.List(ctx, nil)
	require.NoError(t, err, "an answer cut short is retried")
	assert.Len(t, journalOf(env, "GET", "/v1/voices"), 2)
	assert.Len(t, journalOf(env, "GET", "/v1/agents"), 2)

	// Without retries the fault reaches the caller.
	env.Server.AddFault(mockserver.FaultRule{Path: "/v1/numbers", Status: 502, Times: 1})
	_, err = env.Client.Numbers.List(ctx, nil)
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 502, apiErr.StatusCode)
	assert.Equal(t, voiceagent.CodeInternalError, apiErr.Code)
}

func TestAnIdempotentPOSTRunsExactlyOnceWhenItsAnswerIsLost(t *testing.T) {
	t.Parallel()
	for _, fault := range []mockserver.FaultRule{
		{Method: "POST", Path: "/v1/agents", Drop: true, After: true, Times: 1},
		{Method: "POST", Path: "/v1/agents", Truncate: true, Times: 1},
	} {
		env := testenv.New(t)
		ctx := context.Background()
		env.Server.AddFault(fault)
		created, err := retrying(env).Agents.Create(ctx, &agents.CreateParams{
			BusinessID: env.Account.BusinessID, Name: "Exactly once", SystemPrompt: "p",
		})
		require.NoError(t, err)

		list, err := env.Client.Agents.List(ctx, nil)
		require.NoError(t, err)
		require.Len(t, list, 2, "the intake agent and one created agent, not two")
		assert.Equal(t, created.ID, list[0].ID)

		posts := journalOf(env, "POST", "/v1/agents")
		require.Len(t, posts, 2)
		assert.NotEmpty(t, posts[0].Fault)
		assert.Equal(t, 201, posts[0].Status, "the handler ran; only the answer was lost")
		assert.True(t, posts[1].Replayed, "the retry is answered from the idempotency record")
	}
}

func TestAFaultAnsweredBeforeTheHandlerIsNotRemembered(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	env.Server.AddFault(mockserver.FaultRule{Method: "POST", Path: "/v1/agents", Status: 500, Times: 1})
	_, err := retrying(env).Agents.Create(ctx, &agents.CreateParams{BusinessID: env.Account.BusinessID, Name: "x", SystemPrompt: "y"})
	require.NoError(t, err)
	posts := journalOf(env, "POST", "/v1/agents")
	require.Len(t, posts, 2)
	assert.Equal(t, 500, posts[0].Status)
	assert.Equal(t, 201, posts[1].Status)
	assert.False(t, posts[1].Replayed, "the retry ran the handler")
}

func TestARetryAfterLongerThanTheClientWaitsIsReturned(t *testing.T) {
	t.Parallel()
	env := testenv.New(t, mockserver.WithRateLimitScale(0.01)) // 3 reads a minute
	c := env.ClientFor(env.Account.APIKey, voiceagent.WithMaxRetries(3), voiceagent.WithRetryWait(0, time.Second))
	ctx := context.Background()
	for range 3 {
		_, err := c.Numbers.List(ctx, nil)
		require.NoError(t, err)
	}
	_, err := c.Numbers.List(ctx, nil)
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusTooManyRequests, apiErr.StatusCode)
	assert.ErrorIs(t, err, voiceagent.ErrRateLimited)
	assert.InDelta(t, 20, apiErr.RetryAfter.Seconds(), 1)
	assert.Len(t, journalOf(env, "GET", "/v1/numbers"), 4, "no retry: the wait is longer than the client allows")

	env.Server.Advance(apiErr.RetryAfter)
	_, err = c.Numbers.List(ctx, nil)
	assert.NoError(t, err, "after the wait the request goes through")
}
