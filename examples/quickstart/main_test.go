package main

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/internal/harness/exampletest"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

func TestQuickstartAgainstTheInProcessMock(t *testing.T) {
	exampletest.UseMock(t)
	s := exampletest.Output(t, context.Background(), run)
	exampletest.AssertSteps(t, s,
		"Started an in-process mock server",
		"Requested signup for owner@quickstart-plumbing.example: a code valid for 600s was emailed",
		"Verified the code: business ",
		"Exchanged the dashboard magic link for a session",
		`Created key "Quickstart" (voiceagent_live_`,
		"Created agent ",
		"Gave the agent outbound and SMS prompts",
		"Number +1555",
		"A caller (+15551230042) rang +1555",
		"Lead ", "(made by lead collection)",
		": Maria Lopez, +15551230042, maria@example.com, source voicemail, status new",
		"Placed call ",
		"  +0s     queued",
		"in-progress",
		"completed",
		"The call lasted ",
		"Recording: https://",
		"Quality: professionalism ",
		"Transcript:",
		"  Agent: Hi Maria Lopez, this is Quickstart Plumbing returning your call.",
		"Lead Maria Lopez is now contacted after 2 interactions",
		"Done.",
	)
	assert.Contains(t, s, "leads:read leads:write", "the key can read leads")
	assert.NotRegexp(t, `voiceagent_live_[0-9A-Za-z]{40}`, s, "keys are printed redacted")
}

// A "real" service here is a standalone-like mock whose clock follows real
// time (fast), so the program polls as it would against the platform.
func startRealLike(t *testing.T) (*mockserver.TestServer, *mockserver.Account) {
	srv := mockserver.Start(t, mockserver.WithRealtime(600))
	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Real Plumbing"})
	require.NoError(t, err)
	exampletest.UseService(t, srv.URL, acct.APIKey)
	old := pollEvery
	pollEvery = 10 * time.Millisecond
	t.Cleanup(func() { pollEvery = old })
	return srv, acct
}

func TestQuickstartPollsAGivenService(t *testing.T) {
	srv, acct := startRealLike(t)
	// Someone already called the business and left their details.
	_, err := srv.InboundCall(mockserver.InboundCall{
		To: acct.PhoneNumber, From: "+15551239999", Answered: voiceagent.Bool(false),
		Voicemail: "This is Sam Reed, please call me back about a quote.",
	})
	require.NoError(t, err)
	srv.Advance(time.Minute)
	t.Setenv("QUICKSTART_CALL_TO", "+15551239999")

	s := exampletest.Output(t, context.Background(), run)
	assert.NotContains(t, s, "signup for")
	assert.NotContains(t, s, "left a voicemail", "no simulated caller against a given service")
	exampletest.AssertSteps(t, s,
		"Using "+srv.URL,
		"Created agent ",
		"Number "+acct.PhoneNumber+" answers for agent "+acct.AgentID,
		"Lead ", "(made by lead collection)",
		": Sam Reed, +15551239999",
		"Placed call ",
		"queued",
		"completed",
		"Transcript:",
		"  Agent: Hi Sam Reed, this is Quickstart Plumbing returning your call.",
		"Lead Sam Reed is now contacted after 2 interactions",
		"Done.",
	)
}

func TestQuickstartPlacesNoRealCallUnlessToldWhere(t *testing.T) {
	startRealLike(t)
	t.Setenv("QUICKSTART_CALL_TO", "")
	s := exampletest.Output(t, context.Background(), run)
	exampletest.AssertSteps(t, s, "Gave the agent outbound and SMS prompts", "Set QUICKSTART_CALL_TO", "Done.")
	assert.NotContains(t, s, "Placed call")
}

func TestQuickstartStopsWhenTheKeyIsRejected(t *testing.T) {
	exampletest.AssertRejectsUnknownKey(t, context.Background(), mockserver.Start(t).URL, run)
}
