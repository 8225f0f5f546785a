package main

import (
	"bufio"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/internal/wire"
)

// nightWall is 03:00 in New York (22:00 the day before in Honolulu): the
// hour at which a server that started at the real time would refuse every
// text to the East Coast.
const nightWall = "2026-01-15T08:00:00Z"

// buildNightBinary builds the command with its wall clock fixed at
// nightWall (main.fixedWallClock), once per test run.
var buildNightBinary = sync.OnceValues(func() (string, error) {
	buildMu.Lock()
	defer buildMu.Unlock()
	return goBuild("voiceagent-mock-night", "-ldflags", "-X main.fixedWallClock="+nightWall)
})

// usZones are a number prefix in every US time zone.
var usZones = []struct{ zone, prefix string }{
	{"New York", "+1212"}, {"Chicago", "+1312"}, {"Denver", "+1303"}, {"Phoenix", "+1602"},
	{"Los Angeles", "+1415"}, {"Anchorage", "+1907"}, {"Honolulu", "+1808"},
}

// The standalone binary keeps parallel test suites apart, from raw HTTP
// alone: sixteen parallel clients, each with its own account, advance their
// own clocks, inject and remove their own faults, place calls and text
// consenting numbers in every US time zone, whatever the wall clock's hour:
// once with the binary's wall clock fixed at 03:00 in New York, once on the
// real one.
func TestTheBinaryKeepsParallelTenantsApart(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the scale test of two binaries and 32 tenants runs in the full suite (go test ./...)")
	}
	for _, tc := range []struct {
		name  string
		build func() (string, error)
		date  string
	}{
		{"wall clock at 03:00 New York", buildNightBinary, nightWall[:10]},
		{"real wall clock", buildBinary, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			bin, err := tc.build()
			require.NoError(t, err)
			base, admin := startBinary(t, bin, "-addr", "127.0.0.1:0", "-seed", "none")

			status, clock := httpJSON(t, http.MethodGet, admin+"/clock", "")
			require.Equal(t, http.StatusOK, status)
			start, err := time.Parse(time.RFC3339, clock["now"].(string))
			require.NoError(t, err)
			assert.Equal(t, 19, start.Hour(), "the base time starts at 19:00 UTC")
			if tc.date != "" {
				assert.Equal(t, tc.date, start.Format(time.DateOnly), "the date of the injected wall clock")
			}
			t.Run("tenants", func(t *testing.T) {
				for n := range 16 {
					t.Run(fmt.Sprintf("tenant %d", n), func(t *testing.T) {
						t.Parallel()
						binaryTenantScenario(t, base, admin, n, start)
					})
				}
			})
			status, clock = httpJSON(t, http.MethodGet, admin+"/clock", "")
			require.Equal(t, http.StatusOK, status)
			assert.Equal(t, start.UTC().Format(wire.TimeLayout), clock["now"], "no tenant moved the base time")
			status, tenants := httpJSON(t, http.MethodGet, admin+"/tenants", "")
			require.Equal(t, http.StatusOK, status)
			assert.Len(t, tenants["tenants"], 16)
		})
	}
}

// startBinary starts the built command with args, waits for its start-up
// lines, and returns the API's base URL and the admin API's. The process
// is stopped (SIGTERM, exit 0) when the test ends.
func startBinary(t *testing.T, bin string, args ...string) (base, admin string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{} // no VOICEAGENT_MOCK_ variable of the machine's
	pipe, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	lines := bufio.NewScanner(pipe)
	for (base == "" || admin == "") && lines.Scan() {
		if b, ok := strings.CutPrefix(lines.Text(), "base URL: "); ok {
			base = b
		}
		if a, ok := strings.CutPrefix(lines.Text(), "admin API: "); ok {
			admin = a
		}
	}
	if base == "" || admin == "" {
		_ = cmd.Process.Kill()
		t.Fatalf("the binary printed no URLs: %v", cmd.Wait())
	}
	go func() { _, _ = io.Copy(io.Discard, pipe) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		assert.Equal(t, 0, exitCode(t, cmd.Wait()))
	})
	return base, admin
}

// binaryTenantScenario is one parallel test suite's life on the shared
// binary, through raw HTTP: its account, calls, texts, faults and clock.
func binaryTenantScenario(t *testing.T, base, admin string, n int, start time.Time) {
	status, acct := httpJSON(t, http.MethodPost, admin+"/accounts", "{}")
	require.Equal(t, http.StatusCreated, status, acct)
	biz, agent := acct["business_id"].(string), acct["agent_id"].(string)
	auth := []string{"Authorization", "Bearer " + acct["api_key"].(string)}
	tenantNow := func() string {
		status, clock := httpJSON(t, http.MethodGet, admin+"/clock?business_id="+biz, "")
		require.Equal(t, http.StatusOK, status, clock)
		return clock["now"].(string)
	}
	require.Equal(t, start.UTC().Format(wire.TimeLayout), tenantNow(), "a new tenant starts at the base time, however far the others moved")

	status, call := httpJSON(t, http.MethodPost, base+"/v1/calls",
		fmt.Sprintf(`{"agent_id":%q,"to":"+1555123%04d"}`, agent, n), auth...)
	require.Equal(t, http.StatusCreated, status, call)
	callID := call["id"].(string)

	// Texts to consenting numbers in every US time zone pass: it is day.
	for _, z := range usZones {
		to := fmt.Sprintf("%s555%04d", z.prefix, n)
		status, out := httpJSON(t, http.MethodPost, admin+"/consent",
			fmt.Sprintf(`{"business_id":%q,"phone":%q,"status":"opted_in"}`, biz, to))
		require.Equal(t, http.StatusOK, status, out)
		status, out = httpJSON(t, http.MethodPost, base+"/v1/sms/send",
			fmt.Sprintf(`{"to":%q,"from_agent_id":%q,"message":"Your appointment is confirmed"}`, to, agent), auth...)
		require.Less(t, status, 300, "a text to %s at %s: %v", z.zone, tenantNow(), out)
	}

	// This tenant's own fault: it fires for this tenant only (every other
	// tenant injects the same rule at the same time) until removed.
	status, rule := httpJSON(t, http.MethodPost, admin+"/faults",
		fmt.Sprintf(`{"business_id":%q,"method":"GET","path":"/v1/agents","status":503}`, biz))
	require.Equal(t, http.StatusCreated, status, rule)
	status, _ = httpJSON(t, http.MethodGet, base+"/v1/agents", "", auth...)
	require.Equal(t, http.StatusServiceUnavailable, status)
	status, _ = httpJSON(t, http.MethodDelete, admin+"/faults?id="+rule["id"].(string), "")
	require.Less(t, status, 300)
	status, agents := httpJSON(t, http.MethodGet, base+"/v1/agents", "", auth...)
	require.Equal(t, http.StatusOK, status, "others' faults on the same route never reach this tenant: %v", agents)

	status, call = httpJSON(t, http.MethodGet, base+"/v1/calls?id="+callID, "", auth...)
	require.Equal(t, http.StatusOK, status, call)
	require.NotEqual(t, "completed", call["status"], "no other tenant's clock moves this call")

	// Advance this tenant only; the call completes.
	own := time.Duration(10+n) * time.Minute
	status, clock := httpJSON(t, http.MethodPost, admin+"/clock/advance",
		fmt.Sprintf(`{"seconds":%d,"business_id":%q}`, int(own.Seconds()), biz))
	require.Equal(t, http.StatusOK, status, clock)
	assert.Equal(t, start.Add(own).UTC().Format(wire.TimeLayout), clock["now"])
	status, call = httpJSON(t, http.MethodGet, base+"/v1/calls?id="+callID, "", auth...)
	require.Equal(t, http.StatusOK, status, call)
	assert.Equal(t, "completed", call["status"])

	// The journal, filtered by tenant, holds this tenant's requests only.
	status, journal := httpJSON(t, http.MethodGet, admin+"/requests?business_id="+biz, "")
	require.Equal(t, http.StatusOK, status, journal)
	entries, _ := journal["requests"].([]any)
	require.NotEmpty(t, entries, "%v", journal)
	for _, e := range entries {
		assert.Equal(t, biz, e.(map[string]any)["business_id"])
	}

	if n == 0 {
		// Night falls for this tenant alone: quiet hours apply to it.
		now, err := time.Parse(time.RFC3339, tenantNow())
		require.NoError(t, err)
		nyNight := now.Truncate(24 * time.Hour).Add(32 * time.Hour) // 03:00 in New York
		status, _ = httpJSON(t, http.MethodPost, admin+"/clock/advance",
			fmt.Sprintf(`{"seconds":%d,"business_id":%q}`, int(nyNight.Sub(now).Seconds()), biz))
		require.Equal(t, http.StatusOK, status)
		status, out := httpJSON(t, http.MethodPost, base+"/v1/sms/send",
			fmt.Sprintf(`{"to":"%s5550000","from_agent_id":%q,"message":"Your appointment is confirmed"}`, usZones[0].prefix, agent), auth...)
		assert.Equal(t, http.StatusBadRequest, status)
		assert.Equal(t, "tcpa_violation", out["error"].(map[string]any)["code"], "03:00 in New York")
	}
}
