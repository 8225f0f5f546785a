package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/internal/harness/exampletest"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/sdr"
)

func TestSDRAutopilotAgainstTheInProcessMock(t *testing.T) {
	exampletest.UseMock(t)
	s := exampletest.Output(t, context.Background(), run)
	exampletest.AssertSteps(t, s,
		"Started an in-process mock server", "its clock reads Tue 10:00 EDT",
		"Configured the pipeline: enabled true, calls, texts, emails; a touch every 24h at most, 4 touches in all; business hours 09:00-17:00 America/New_York",
		"the scheduled runner runs every two hours, next at Tue 12:00 EDT",
		"A caller (+15551230101) asked for a quote",
		"A texter (+15551230102) asked about batteries",
		"Loaded 8 older leads",
		"Pipeline: 10 leads, 5 actionable now, 1 on manual review",
		"segments: cold 1, contacted_no_reply 1, cooling_demo 1, exhausted 1, manual_review 1, speed_to_lead 2, trial_ending 1, warm_demo_caller 2",
		// highest score first
		"Dana Whitfield     speed_to_lead", "next call  actionable",
		"Lukas Berg         trial_ending", "next call  actionable",
		"Omar Haddad        speed_to_lead", "next call  actionable",
		"Priya Natarajan    warm_demo_caller", "next sms   actionable",
		"Tom Alvarez        cold", "next none  left alone",
		"Sam Ortiz          warm_demo_caller", "paused",
		"Grace Kim          cooling_demo", "next email actionable",
		"Mei Tanaka         contacted_no_reply", "touches 1  next call  held until Wed 07:02 EDT",
		"Rosa Diaz          exhausted", "touches 4  next none  left alone",
		"Anonymous visitor  manual_review",

		"Dry run (nothing dispatched): calls queued 3, texts sent 1, emails queued 1, escalated 1, failed 0; in business hours true",
		"call     Dana Whitfield     would call +15551230101",
		"sms      Priya Natarajan    would text +15551230103",
		"email    Grace Kim          would email grace@example.com",
		"escalate Anonymous visitor",
		"skipped 2: cadence 1, paused 1",

		"Ran the pipeline: calls queued 3, texts sent 1, emails queued 1, escalated 1, failed 0; in business hours true",
		"call     Dana Whitfield     call ", "queued to +15551230101",
		"sms      Priya Natarajan    text SM", "sent to +15551230103",
		"email    Grace Kim          email ", "queued to grace@example.com",
		"skipped 2: cadence 1, paused 1",

		"Ten minutes later (Tue 10:12 EDT)",
		"Report for today (since Tue 00:00 EDT): 2 new leads",
		"actions:  call 3, email 1, escalate 1, sms 1",
		"outcomes: call_completed 3, email_sent 1, sms_delivered 1",
		"Activity (6 entries):",
		"Tue 10:02 EDT  run       call     Dana Whitfield     ok",
		"Tue 10:02 EDT  run       escalate Anonymous visitor  ok",

		"At Tue 11:12 EDT a new caller (+15551230109) asked to book a site survey",
		"The clock reaches Tue 12:00 EDT, the scheduled runner's time:",
		"Tue 12:00 EDT  scheduled call     Ken Adams          call ", "queued to +15551230109",
		"last run Tue 12:00 EDT (scheduled); next run Tue 14:00 EDT",
		"A second touch of Ken Adams now is refused: 429 rate_limited, next touch allowed at Wed 12:00 EDT (Retry-After 23h55m0s)",
		"Done.",
	)
	assert.NotContains(t, s, "FAILED")
	assert.Equal(t, 1, strings.Count(s, "scheduled call"), "the runner touches only the new caller; the cadence holds the others")
}

// startService is a mock standing for a real service: an account with
// leads, its clock on a weekday morning in New York.
func startService(t *testing.T) (*mockserver.TestServer, *mockserver.Account, *client.Client) {
	srv := mockserver.Start(t, mockserver.WithStartTime(mockStart))
	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Real Solar"})
	require.NoError(t, err)
	created := srv.Now().Add(-10 * time.Minute)
	_, err = srv.SeedLeads(acct.BusinessID, []mockserver.LeadFixture{
		{Name: "Ada Park", Phone: "+15551239001", Email: "ada@example.com", CreatedAt: &created},
		{Name: "Ben Ng", Email: "ben@example.com", Status: "contacted", CreatedAt: &created, LastContactAt: &created},
	})
	require.NoError(t, err)
	exampletest.UseService(t, srv.URL, acct.APIKey)
	t.Setenv("VOICEAGENT_BUSINESS_ID", "")
	t.Setenv("SDR_AUTOPILOT_LIVE", "")
	return srv, acct, acct.Client()
}

// Without SDR_AUTOPILOT_LIVE the program changes nothing: the pipeline
// stays unconfigured and nobody is touched.
func TestSDRAutopilotOnlyReadsAGivenServiceByDefault(t *testing.T) {
	_, acct, c := startService(t)
	s := exampletest.Output(t, context.Background(), run)
	exampletest.AssertSteps(t, s,
		"Using ",
		"Business "+acct.BusinessID+" (of agent ",
		"The current configuration: enabled false, no channel;",
		"Read-only: set SDR_AUTOPILOT_LIVE=1",
		"Pipeline: 2 leads",
		"Ada Park", "speed_to_lead",
		"The pipeline is not enabled, so it cannot run, not even dry",
		"Report for today",
		"Activity (0 entries):",
		"Done.",
	)
	assert.NotContains(t, s, "Configured the pipeline")
	assert.NotContains(t, s, "Ran the pipeline")

	cfg, err := c.SDR.GetConfig(context.Background(), acct.BusinessID)
	require.NoError(t, err)
	assert.False(t, cfg.Configured, "the configuration was not saved")
}

// A pipeline the account enabled itself is previewed, not run.
func TestSDRAutopilotPreviewsAnEnabledPipeline(t *testing.T) {
	_, acct, c := startService(t)
	ctx := context.Background()
	_, err := c.SDR.UpdateConfig(ctx, &sdr.ConfigParams{BusinessID: acct.BusinessID, Enabled: voiceagent.Bool(true), AutoEmail: voiceagent.Bool(true)})
	require.NoError(t, err)
	t.Setenv("VOICEAGENT_BUSINESS_ID", acct.BusinessID)

	s := exampletest.Output(t, ctx, run)
	exampletest.AssertSteps(t, s,
		"Business "+acct.BusinessID+" (VOICEAGENT_BUSINESS_ID)",
		"The current configuration: enabled true, emails;",
		"Read-only",
		"Dry run (nothing dispatched): calls queued 0, texts sent 0, emails queued 2",
		"would email ada@example.com",
		"Activity (0 entries):",
		"The scheduled runner runs next at ",
		"Done.",
	)
	assert.NotContains(t, s, "Ran the pipeline")
}

// With SDR_AUTOPILOT_LIVE=1 the configuration is saved and the pipeline
// runs; a second touch of a lead it touched is refused.
func TestSDRAutopilotRunsAGivenServiceWhenLive(t *testing.T) {
	_, acct, c := startService(t)
	t.Setenv("SDR_AUTOPILOT_LIVE", "1")
	s := exampletest.Output(t, context.Background(), run)
	exampletest.AssertSteps(t, s,
		"The current configuration: enabled false",
		"Configured the pipeline: enabled true, calls, texts, emails",
		"Pipeline: 2 leads, 2 actionable now",
		"Dry run (nothing dispatched): calls queued 1, texts sent 0, emails queued 1",
		"Ran the pipeline: calls queued 1, texts sent 0, emails queued 1",
		"A second touch of Ada Park now is refused: 429 rate_limited, next touch allowed at Wed 10:00 EDT",
		"Activity (2 entries):",
		"run       call     Ada Park           ok",
		"The scheduled runner runs next at Tue 12:00 EDT",
		"Done.",
	)
	cfg, err := c.SDR.GetConfig(context.Background(), acct.BusinessID)
	require.NoError(t, err)
	assert.True(t, cfg.Enabled)
	assert.Equal(t, 4, cfg.MaxTouches)
}

func TestSDRAutopilotStopsWhenTheKeyIsRejected(t *testing.T) {
	srv, _, _ := startService(t)
	exampletest.AssertRejectsUnknownKey(t, context.Background(), srv.URL, run)
}

func TestSDRAutopilotNeedsSDRScopes(t *testing.T) {
	srv, _, _ := startService(t)
	acct, err := srv.NewAccount(mockserver.AccountOptions{Scopes: []voiceagent.Scope{voiceagent.ScopeAgentsRead}})
	require.NoError(t, err)
	t.Setenv("VOICEAGENT_API_KEY", acct.APIKey)
	err = run(context.Background(), io.Discard)
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, voiceagent.CodeForbidden, apiErr.Code)
	assert.Contains(t, err.Error(), "reading the configuration")
}
