package voiceagent_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/sms"
)

// usZones are numbers in every US time zone, by the zone's name.
var usZones = []struct{ zone, prefix string }{
	{"New York", "+1212"}, {"Chicago", "+1312"}, {"Denver", "+1303"}, {"Phoenix", "+1602"},
	{"Los Angeles", "+1415"}, {"Anchorage", "+1907"}, {"Honolulu", "+1808"},
}

// TestParallelTenantsShareOneServer is the contract of parallel tests on
// one server: sixteen subtests, each with its own account, advance their
// own clocks, inject their own faults, place calls and text consenting
// numbers in every US time zone, and never see each other, whatever the
// wall clock's hour: the server runs once as if it started at 03:00 in New
// York, and once at the real time.
func TestParallelTenantsShareOneServer(t *testing.T) {
	t.Parallel()
	night := time.Date(2026, 1, 15, 8, 0, 0, 0, time.UTC) // 03:00 in New York, 22:00 in Honolulu
	for _, wall := range []struct {
		name string
		now  func() time.Time
	}{{"wall clock at 03:00 New York", func() time.Time { return night }}, {"real wall clock", time.Now}} {
		t.Run(wall.name, func(t *testing.T) {
			t.Parallel()
			opts := []mockserver.Option{mockserver.WithWallClock(wall.now)}
			runParallelTenants(t, opts)
		})
	}
}

type tenantCase struct {
	name string
	n    int
}

func runParallelTenants(t *testing.T, opts []mockserver.Option) {
	ctx := context.Background()
	var cases []tenantCase
	for i := range 16 {
		cases = append(cases, tenantCase{name: fmt.Sprintf("tenant %d", i), n: i})
	}

	srv := mockserver.Start(t, opts...)
	start := srv.Now()
	require.Equal(t, 19, start.Hour(), "the base time starts at 19:00 UTC")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			acct, _ := srv.NewAccount(mockserver.AccountOptions{})
			c := acct.Client()
			// ... c.Calls.Create, acct.Advance, acct.AddFault: nobody else sees them
			tenantScenario(ctx, t, srv, acct, c, tc.n, start)
		})
	}
}

// tenantScenario is one parallel test's life on the shared server.
func tenantScenario(ctx context.Context, t *testing.T, srv *mockserver.TestServer, acct *mockserver.Account, cl *client.Client, n int, start time.Time) {
	require.Equal(t, start, acct.Now(), "a new tenant starts at the base time, however far the others moved")

	// Others' faults never reach this tenant.
	_, err := cl.Agents.List(ctx, nil)
	require.NoError(t, err)

	// A call waits for this tenant's clock, whatever the others do.
	call, err := cl.Calls.Create(ctx, &calls.CreateParams{AgentID: acct.AgentID, To: fmt.Sprintf("+1555123%04d", n)})
	require.NoError(t, err)

	// Texts to consenting numbers in every US time zone pass: it is day.
	for _, z := range usZones {
		to := fmt.Sprintf("%s555%04d", z.prefix, n)
		require.NoError(t, srv.SetConsent(acct.BusinessID, to, mockserver.ConsentOptedIn))
		_, err := cl.SMS.Send(ctx, &sms.SendParams{To: to, FromAgentID: acct.AgentID, Message: "Your appointment is confirmed"})
		require.NoError(t, err, "a text to %s at %s UTC", z.zone, acct.Now().Format("15:04"))
	}

	// This tenant's own fault, once.
	_, err = acct.AddFault(mockserver.FaultRule{Method: "GET", Path: "/v1/agents", Status: 503, Times: 1})
	require.NoError(t, err)
	_, err = cl.Agents.List(ctx, nil, voiceagent.WithMaxRetries(0))
	require.ErrorIs(t, err, voiceagent.ErrServiceUnavailable)
	_, err = cl.Agents.List(ctx, nil)
	require.NoError(t, err, "the fault fired once")

	got, err := cl.Calls.Get(ctx, call.ID)
	require.NoError(t, err)
	require.NotEqual(t, calls.StatusCompleted, got.Status, "no other test's clock moves this call")

	// Advance this tenant only; the call completes.
	own := time.Duration(10+n) * time.Minute
	assert.Equal(t, start.Add(own), acct.Advance(own))
	got, err = cl.Calls.Get(ctx, call.ID)
	require.NoError(t, err)
	assert.Equal(t, calls.StatusCompleted, got.Status)

	if n == 0 {
		// Night falls for this tenant alone: quiet hours apply to it.
		nyNight := acct.Now().Truncate(24 * time.Hour).Add(24*time.Hour + 8*time.Hour) // 03:00 in New York
		acct.Advance(nyNight.Sub(acct.Now()))
		to := usZones[0].prefix + "5550000"
		_, err := cl.SMS.Send(ctx, &sms.SendParams{To: to, FromAgentID: acct.AgentID, Message: "Your appointment is confirmed"})
		assert.ErrorIs(t, err, voiceagent.ErrTCPAViolation, "03:00 in New York")
	}
	assert.Equal(t, start, srv.Now(), "the base time never moved")
}
