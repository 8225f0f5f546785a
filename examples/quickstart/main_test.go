package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/mockserver"
)

func TestQuickstartSignsUpAgainstTheMock(t *testing.T) {
	t.Setenv("VOICEAGENT_BASE_URL", "")
	t.Setenv("VOICEAGENT_API_KEY", "")
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	s := out.String()
	for _, step := range []string{
		"Started an in-process mock server",
		"Requested signup for owner@quickstart-plumbing.example: a code valid for 600s was emailed",
		"Verified the code: business ",
		"Exchanged the dashboard magic link for a session",
		`Created key "Quickstart" (voiceagent_live_`,
		"Created agent ",
		"Gave the agent outbound and SMS prompts",
		"Number +1555",
		"Done.",
	} {
		assert.Contains(t, s, step)
	}
	assert.NotRegexp(t, `voiceagent_live_[0-9A-Za-z]{40}`, s, "keys are printed redacted")
}

func TestQuickstartUsesAGivenServiceAndKey(t *testing.T) {
	srv := mockserver.Start(t)
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	require.NoError(t, err)
	t.Setenv("VOICEAGENT_BASE_URL", srv.URL)
	t.Setenv("VOICEAGENT_API_KEY", acct.APIKey)
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	s := out.String()
	assert.Contains(t, s, "Using "+srv.URL)
	assert.NotContains(t, s, "signup for")
	assert.Contains(t, s, "Number "+acct.PhoneNumber+" answers for agent "+acct.AgentID)
	assert.Contains(t, s, "Done.")
}
