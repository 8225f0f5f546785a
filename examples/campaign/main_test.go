package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/internal/harness/exampletest"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/runs"
)

func TestCampaignAgainstTheInProcessMock(t *testing.T) {
	exampletest.UseMock(t)
	s := exampletest.Output(t, context.Background(), run)
	exampletest.AssertSteps(t, s,
		"Started an in-process mock server", "its clock reads Mon 09:00:00 EDT",
		"Business Harbor Dental, number +1555", "4 patients are leads",

		"Validated a draft with mistakes: valid false, 3 errors",
		"/touches/0/target/phone", "E.164",
		"/touches/2/message", "required",
		"/touches/6/touch_id", "duplicate",

		"Validated the corrected run: valid true, 7 touches, 0 errors, 1 warnings",
		"warning /touches/3/scheduled_at", "not_before",
		"Preview: 7 touches (4 calls, 3 texts) from +1555", "Mon 10:00:00 EDT to Wed 15:00:00 EDT:",
		"Mon 10:00:00 EDT  jane-call-1  call Jane ",
		"Mon 11:00:00 EDT  noah-call-1  call Noah ",
		"Mon 14:00:00 EDT  ivy-sms-1    sms  Ivy ",
		"Tue 10:00:00 EDT  luis-sms-1   sms  Luis ", "(scheduled Tue 06:30:00 EDT, held until its window opens)",
		"Tue 10:30:00 EDT  jane-sms-1   sms  Jane ",
		"Wed 10:00:00 EDT  luis-call-1  call Luis ",
		"Wed 15:00:00 EDT  noah-call-2  call Noah ",

		"Created run ", "(external_ref recall-2026-06): scheduled",
		"Retried the create with the same Idempotency-Key: run ", "again (Idempotent-Replayed: true)",

		"Day 1, Monday 1 June:",
		"Mon 10:00:00 EDT  jane-call-1  call Jane         running   call ", "placed",
		"jane-call-1  call Jane         completed the call lasted ",
		"Mon 11:00:00 EDT  noah-call-1  call Noah         running",
		"Mon 11:00:30 EDT  noah-call-1  call Noah         failed    no_answer",
		"Mon 14:00:00 EDT  ivy-sms-1    sms  Ivy          skipped   number_opted_out",
		"Day 2, Tuesday 2 June:",
		"Tue 10:00:00 EDT  luis-sms-1   sms  Luis         running   text SM",
		"Tue 10:00:02 EDT  luis-sms-1   sms  Luis         completed delivered",
		"Tue 10:30:00 EDT  jane-sms-1   sms  Jane         running   text SM",
		"Tue 10:30:02 EDT  jane-sms-1   sms  Jane         completed delivered",
		"Day 3, Wednesday 3 June:",
		"Wed 10:00:00 EDT  luis-call-1  call Luis         running",
		"luis-call-1  call Luis         completed the call lasted ",
		"Wed 15:00:00 EDT  noah-call-2  call Noah         running",
		"Wed 15:00:30 EDT  noah-call-2  call Noah         failed    no_answer",

		"is completed: completed 4, failed 2, skipped 1; started Mon 10:00:00 EDT, ended Wed 15:00:30 EDT",
		"jane-call-1  Outbound call to Jane Cooper",
		"Events of recall-2026-06 in the log",
		"Mon 10:00:02 EDT  call.started   touch jane-call-1  Jane",
		"call.completed touch jane-call-1  Jane",
		"Mon 11:00:30 EDT  call.failed    touch noah-call-1  Noah",
		"Tue 10:00:00 EDT  sms.sent       touch luis-sms-1   Luis",
		"Tue 10:00:02 EDT  sms.delivered  touch luis-sms-1   Luis",
		"sms.delivered  touch jane-sms-1   Jane",
		"call.completed touch luis-call-1  Luis",
		"Wed 15:00:30 EDT  call.failed    touch noah-call-2  Noah",
		"ivy-sms-1    no event: skipped before any call or text (number_opted_out)",
		"Matched 10 events to 6 of the run's 7 touches",
		"Done.",
	)
	assert.Equal(t, 1, strings.Count(s, "Created run "), "the retry replays the run")
	assert.Equal(t, 7, strings.Count(s, "  running   ")+strings.Count(s, "  skipped   "), "every touch fired once")
}

// startService is a mock standing for a real service, its clock following
// real time fast. It starts a year from now in the daytime, so the
// program's touches (scheduled from the real clock) are due at once and
// texts are outside the quiet hours.
func startService(t *testing.T) (*mockserver.TestServer, *mockserver.Account, *client.Client) {
	start := time.Now().UTC().AddDate(1, 0, 0).Truncate(24 * time.Hour).Add(15 * time.Hour)
	srv := mockserver.Start(t, mockserver.WithStartTime(start), mockserver.WithRealtime(600))
	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Real Dental"})
	require.NoError(t, err)
	exampletest.UseService(t, srv.URL, acct.APIKey)
	t.Setenv("VOICEAGENT_BUSINESS_ID", "")
	t.Setenv("CAMPAIGN_TO", "")
	old := pollEvery
	pollEvery = 10 * time.Millisecond
	t.Cleanup(func() { pollEvery = old })
	return srv, acct, acct.Client()
}

// Without CAMPAIGN_TO the program validates and previews, and creates
// nothing.
func TestCampaignOnlyPreviewsAgainstAGivenServiceWithoutANumber(t *testing.T) {
	_, acct, c := startService(t)
	s := exampletest.Output(t, context.Background(), run)
	exampletest.AssertSteps(t, s,
		"Using ",
		"Validated a draft with mistakes: valid false, 3 errors",
		"Validated the corrected run: valid true, 2 touches, 0 errors",
		"Preview: 2 touches (1 calls, 1 texts) from "+acct.PhoneNumber,
		"call-1", "+15555550123",
		"Set CAMPAIGN_TO to a number you own (E.164) to create the run; stopping here.",
		"Done.",
	)
	assert.NotContains(t, s, "Created run")
	page, err := c.Runs.List(context.Background(), nil)
	require.NoError(t, err)
	assert.Empty(t, page.Data, "no run was created")
}

// With CAMPAIGN_TO the run is created, polled until it ends, and its events
// are matched.
func TestCampaignRunsAgainstAGivenService(t *testing.T) {
	srv, acct, c := startService(t)
	const me = "+15551239002"
	require.NoError(t, srv.SetConsent(acct.BusinessID, me, "opted_in"))
	t.Setenv("CAMPAIGN_TO", me)
	t.Setenv("VOICEAGENT_BUSINESS_ID", acct.BusinessID)

	s := exampletest.Output(t, context.Background(), run)
	exampletest.AssertSteps(t, s,
		"Preview: 2 touches (1 calls, 1 texts) from "+acct.PhoneNumber,
		"call-1       call +15551239002 +15551239002 (scheduled ", "already past: at once)",
		"Created run ", "(external_ref voiceagent-go-campaign-",
		"(Idempotent-Replayed: true)",
		"call-1", "completed the call lasted ",
		"is completed: completed 2;",
		"Events of voiceagent-go-campaign-",
		"Matched ", "to 2 of the run's 2 touches",
		"Done.",
	)
	// The text and the call overlap: their events interleave.
	for _, ev := range []string{"call.started   touch call-1", "call.completed touch call-1", "sms.sent       touch sms-1", "sms.delivered  touch sms-1"} {
		assert.Contains(t, s, ev)
	}
	page, err := c.Runs.List(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, page.Data, 1, "the retry created no second run")
	assert.Equal(t, runs.StatusCompleted, page.Data[0].Status)
	assert.Equal(t, me, page.Data[0].Touch("sms-1").Target.Phone)
}

func TestCampaignStopsWhenTheKeyIsRejected(t *testing.T) {
	srv, _, _ := startService(t)
	exampletest.AssertRejectsUnknownKey(t, context.Background(), srv.URL, run)
}
