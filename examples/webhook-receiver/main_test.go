package main

import (
	"bytes"
	"context"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/internal/harness/exampletest"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

func TestWebhookReceiverAgainstTheInProcessMock(t *testing.T) {
	exampletest.UseMock(t)
	s := exampletest.Output(t, context.Background(), run)
	for _, step := range []string{
		"Receiver listening at http://127.0.0.1:",
		"Subscribed http://127.0.0.1:",
		"to [call.completed call.failed lead.created sms.received]",
		"call.completed attempt 1, webhook-id ",
		"answered 500 handler failed",
		"lead.created: Ana Ruiz (+15551230077), source inbound_call",
		"lead.created attempt 1, webhook-id ",
		"Moving the clock 5 s",
		"call.completed: inbound call of 60s",
		"call.completed attempt 2, webhook-id ",
		"call.completed delivered after 2 attempts",
		"answered 200 duplicate",
		"webhook-id msg_forged: answered 401 invalid signature",
		"Summary: 2 events processed, 1 duplicate(s) acknowledged without processing, 1 forged request(s) refused",
		"Deleted the subscription. Done.",
	} {
		assert.Contains(t, s, step)
	}
	assert.Equal(t, 2, strings.Count(s, "answered 200 processed"), s)
	assert.NotRegexp(t, `whsec_[A-Za-z0-9+/=]{20,}`, s, "the secret is printed truncated")

	// The retry and the replay carry the webhook-id of the first attempt.
	id := func(event string) string {
		i := strings.Index(s, event+" attempt 1, webhook-id ")
		require.GreaterOrEqual(t, i, 0)
		rest := s[i+len(event+" attempt 1, webhook-id "):]
		return rest[:strings.Index(rest, ":")]
	}
	assert.Contains(t, s, "call.completed attempt 2, webhook-id "+id("call.completed")+": answered 200 processed")
	assert.Contains(t, s, "webhook-id "+id("lead.created")+": answered 200 duplicate")
}

func TestWebhookReceiverAgainstAGivenService(t *testing.T) {
	srv := mockserver.Start(t)
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	require.NoError(t, err)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	exampletest.UseService(t, srv.URL, acct.APIKey)
	t.Setenv("VOICEAGENT_WEBHOOK_URL", "http://"+addr+receiverPath)
	t.Setenv("WEBHOOK_RECEIVER_ADDR", addr)
	t.Setenv("WEBHOOK_RECEIVER_COUNT", "1")

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out := &watchedBuffer{changed: make(chan struct{}, 1)}
	done := make(chan error, 1)
	go func() { done <- run(ctx, out) }()

	// Once it waits, the receiver has its subscription's secret.
	require.True(t, out.waitFor(ctx, "Waiting for deliveries"), out.String())
	_, err = srv.EmitEvent(acct.BusinessID, webhooks.EventLeadCreated, map[string]any{"id": "lead-1", "name": "Jo Park"})
	require.NoError(t, err)
	require.NoError(t, <-done)

	s := out.String()
	assert.Contains(t, s, "Using "+srv.URL)
	assert.Contains(t, s, "lead.created: Jo Park")
	assert.Contains(t, s, "answered 200 processed")
	assert.Contains(t, s, "Processed 1 events.")
	assert.Contains(t, s, "Deleted the subscription.")
	c := acct.Client()
	page, err := c.Webhooks.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, page.Data, "the subscription is deleted when the receiver stops")
}

// watchedBuffer is an output a test can wait on while the program runs.
type watchedBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	changed chan struct{}
}

func (b *watchedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	select {
	case b.changed <- struct{}{}:
	default:
	}
	return b.buf.Write(p)
}

func (b *watchedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// waitFor waits until the output contains s, or ctx ends.
func (b *watchedBuffer) waitFor(ctx context.Context, s string) bool {
	for !strings.Contains(b.String(), s) {
		select {
		case <-ctx.Done():
			return false
		case <-b.changed:
		}
	}
	return true
}

func TestWebhookReceiverNeedsAPublicURLAgainstAService(t *testing.T) {
	srv := mockserver.Start(t)
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	require.NoError(t, err)
	exampletest.UseService(t, srv.URL, acct.APIKey)
	t.Setenv("VOICEAGENT_WEBHOOK_URL", "")
	err = run(context.Background(), &bytes.Buffer{})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "VOICEAGENT_WEBHOOK_URL")
}
