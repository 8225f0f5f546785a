package main

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/internal/harness/exampletest"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/sms"
)

func TestFollowUpAgainstTheInProcessMock(t *testing.T) {
	exampletest.UseMock(t)
	s := exampletest.Output(t, context.Background(), run)
	exampletest.AssertSteps(t, s,
		"Started an in-process mock server",
		"Scripted 2 steps",
		"Called +14155550123 back: call ",
		"The callback ended: completed (voicemail)",
		"Texted the lead: ",
		`The lead replied: "STOP"`,
		"The lead opted out: no more texts",
		"Step call voicemail to +14155550123: used",
		"Step text delivered to +14155550123: used",
		"Consent of +14155550123: opted_out",
		"Outcome: reached false, texted true, opted out true",
		"Done.",
	)
}

// The app's three paths, each chosen by a script: the lead answers the
// callback; the callback reaches voicemail and the lead answers the text;
// the lead answers STOP. Every step is used, and the app texts once at
// most.
func TestFollowUpPaths(t *testing.T) {
	for _, tc := range []struct {
		name    string
		script  mockserver.Script
		want    Outcome
		replies int
	}{
		{"the lead answers", mockserver.Script{Calls: []mockserver.CallStep{{To: leadNumber, Outcome: "completed"}}},
			Outcome{Reached: true}, 0},
		{"voicemail, then a reply", mockserver.Script{
			Calls: []mockserver.CallStep{{To: leadNumber, Outcome: "voicemail"}},
			Texts: []mockserver.TextStep{{To: leadNumber, Outcome: "delivered", Reply: &mockserver.TextReply{AfterSeconds: 600, Body: "Tomorrow at 9"}}}},
			Outcome{Texted: true, Reply: "Tomorrow at 9"}, 1},
		{"no answer, then STOP", mockserver.Script{
			Calls: []mockserver.CallStep{{To: "*", Outcome: "no_answer"}},
			Texts: []mockserver.TextStep{{To: "*", Outcome: "delivered", Reply: &mockserver.TextReply{AfterSeconds: 60, Body: "STOP"}}}},
			Outcome{Texted: true, Reply: "STOP", OptedOut: true}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			srv := mockserver.Start(t, mockserver.WithStartTime(time.Date(2026, 6, 2, 15, 0, 0, 0, time.UTC)))
			acct, err := srv.NewAccount(mockserver.AccountOptions{})
			require.NoError(t, err)
			require.NoError(t, srv.SetConsent(acct.BusinessID, leadNumber, "opted_in"))
			_, err = acct.Script(tc.script)
			require.NoError(t, err)

			c := acct.Client()
			got, err := FollowUp(context.Background(), c, acct.AgentID, leadNumber, func(d time.Duration) { acct.Advance(d) }, io.Discard)
			require.NoError(t, err)
			got.CallID = ""
			assert.Equal(t, tc.want, got)
			acct.VerifyScript(t)
			out, err := c.SMS.List(context.Background(), &sms.ListParams{Phone: leadNumber, Direction: "outbound"})
			require.NoError(t, err)
			assert.Len(t, out.Data, tc.replies, "the app texts once at most")
		})
	}
}

// Against a given service without FOLLOWUP_TO nothing is placed.
func TestFollowUpAgainstAGivenServiceWithoutANumber(t *testing.T) {
	srv := mockserver.Start(t)
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	require.NoError(t, err)
	exampletest.UseService(t, srv.URL, acct.APIKey)
	t.Setenv("FOLLOWUP_TO", "")
	s := exampletest.Output(t, context.Background(), run)
	exampletest.AssertSteps(t, s, "Using ", "Set FOLLOWUP_TO", "Done.")
	page, err := acct.Client().Calls.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, page.Data)
}

// Against a given service (a mock whose clock follows real time fast) the
// app calls FOLLOWUP_TO and follows up for real: the service's script
// sends the callback to voicemail and answers the text.
func TestFollowUpAgainstAGivenService(t *testing.T) {
	start := time.Now().UTC().AddDate(1, 0, 0).Truncate(24 * time.Hour).Add(15 * time.Hour)
	srv := mockserver.Start(t, mockserver.WithStartTime(start), mockserver.WithRealtime(600))
	acct, err := srv.NewAccount(mockserver.AccountOptions{})
	require.NoError(t, err)
	const me = "+15551239003"
	require.NoError(t, srv.SetConsent(acct.BusinessID, me, "opted_in"))
	_, err = acct.Script(mockserver.Script{
		Calls: []mockserver.CallStep{{To: me, Outcome: "voicemail"}},
		Texts: []mockserver.TextStep{{To: me, Outcome: "delivered", Reply: &mockserver.TextReply{AfterSeconds: 30, Body: "Call me at 5"}}},
	})
	require.NoError(t, err)
	exampletest.UseService(t, srv.URL, acct.APIKey)
	t.Setenv("FOLLOWUP_TO", me)
	old := pollEvery
	pollEvery = 10 * time.Millisecond
	t.Cleanup(func() { pollEvery = old })

	s := exampletest.Output(t, context.Background(), run)
	exampletest.AssertSteps(t, s,
		"Using ",
		"Called +15551239003 back: call ",
		"The callback ended: completed (voicemail)",
		"Texted the lead: ",
		`The lead replied: "Call me at 5"`,
		"Outcome: reached false, texted true, opted out false",
		"Done.",
	)
	acct.VerifyScript(t)
}
