package webhookstest_test

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/webhooks"
	"github.com/voiceagent/voiceagent-go/webhooks/webhookstest"
)

func newSecret(t *testing.T) string {
	t.Helper()
	s, err := webhooks.NewSecret()
	require.NoError(t, err)
	return s
}

// sdkHandler is the SDK's own receiver, handling every event.
func sdkHandler(t *testing.T, secret string) (*webhooks.Handler, *[]*webhooks.Event) {
	t.Helper()
	h, err := webhooks.NewHandler(webhooks.WithSecrets(secret), webhooks.WithErrorLog(slog.New(slog.NewTextHandler(io.Discard, nil))))
	require.NoError(t, err)
	var mu sync.Mutex
	var got []*webhooks.Event
	h.OnAny(func(_ context.Context, e *webhooks.Event) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, e)
		return nil
	})
	return h, &got
}

func ids(r *webhookstest.Report) []string {
	var out []string
	for _, c := range r.Checks {
		if c.ID != webhookstest.CheckAcceptsValid || len(out) == 0 || out[len(out)-1] != c.ID {
			out = append(out, c.ID)
		}
	}
	return out
}

func TestTheSDKHandlerPasses(t *testing.T) {
	t.Parallel()
	secret := newSecret(t)
	h, got := sdkHandler(t, secret)
	report := webhookstest.CheckHandler(t, h, secret)
	require.NotNil(t, report)
	assert.True(t, report.Passed)
	assert.Equal(t, []string{"accepts_valid", "rejects_tampered_body", "rejects_wrong_secret", "rejects_missing_signature",
		"rejects_stale_timestamp", "rejects_future_timestamp", "accepts_rotated_secret", "accepts_redelivery",
		"responds_in_time", "accepts_unknown_event"}, ids(report))
	assert.Equal(t, webhookstest.CheckIDs(), ids(report), "the checks run in the order CheckIDs lists")
	require.Len(t, report.Checks, 27+9)
	for i, typ := range webhooks.EventTypes() {
		c := report.Checks[i]
		assert.Equal(t, webhookstest.CheckAcceptsValid, c.ID)
		assert.Equal(t, typ, c.Event)
		assert.True(t, c.Required)
		assert.Equal(t, http.StatusOK, c.Status)
	}
	last := report.Checks[len(report.Checks)-1]
	assert.False(t, last.Required, "accepts_unknown_event is recommended")
	assert.True(t, last.Passed)

	// What the handler processed: every type with data of its shape, the
	// rotated delivery, one of the redelivered pair, the unknown type.
	byType := map[webhooks.EventType]int{}
	for _, e := range *got {
		byType[e.Type]++
	}
	for _, typ := range webhooks.EventTypes() {
		assert.GreaterOrEqual(t, byType[typ], 1, typ)
	}
	assert.Equal(t, 1, byType[webhookstest.UnknownEventType])
	assert.Len(t, *got, 27+3, "the redelivery is not processed twice; no forged delivery is")
	for _, e := range *got {
		switch e.Type {
		case webhooks.EventCallCompleted:
			c, err := e.Call()
			require.NoError(t, err)
			assert.Equal(t, "completed", c.Status)
			assert.NotNil(t, c.LeadID)
		case webhooks.EventWorkspaceProvisioningFailed:
			w, err := e.Workspace()
			require.NoError(t, err)
			assert.Equal(t, "phone_number", w.FailedStep)
		}
	}
}

// acceptAll answers 200 to everything: the receiver that verifies nothing.
var acceptAll = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.WriteHeader(http.StatusOK)
})

func TestAReceiverThatAcceptsEverythingFailsEveryRejectsCheck(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(acceptAll)
	defer srv.Close()
	report, err := webhookstest.Check(context.Background(), srv.URL+"/hook", newSecret(t))
	require.NoError(t, err)
	assert.False(t, report.Passed)
	assert.Equal(t, srv.URL+"/hook", report.URL)
	for _, c := range report.Checks {
		if strings.HasPrefix(c.ID, "rejects_") {
			assert.False(t, c.Passed, c.ID)
			assert.Equal(t, http.StatusOK, c.Status, c.ID)
			assert.Contains(t, c.Detail, "wanted 4xx, got 200", c.ID)
			assert.Contains(t, c.Detail, "curl -X POST '"+srv.URL+"/hook'", "%s: the request is shown, to send again", c.ID)
			assert.Contains(t, c.Detail, "-H 'Webhook-Id: ", c.ID)
			assert.Contains(t, c.Detail, `--data-binary '{"`, c.ID)
		} else {
			assert.True(t, c.Passed, c.ID)
		}
	}
}

// dedupeRefuser verifies, but answers 409 to a webhook-id it has seen.
func dedupeRefuser(secret string) http.Handler {
	var mu sync.Mutex
	seen := map[string]bool{}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		if _, err := webhooks.ConstructEvent(body, r.Header, secret); err != nil {
			http.Error(w, "bad signature", http.StatusUnauthorized)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		id := r.Header.Get(webhooks.HeaderID)
		if seen[id] {
			http.Error(w, "duplicate delivery", http.StatusConflict)
			return
		}
		seen[id] = true
	})
}

func TestAReceiverRefusingARedeliveryFailsAcceptsRedelivery(t *testing.T) {
	t.Parallel()
	secret := newSecret(t)
	srv := httptest.NewServer(dedupeRefuser(secret))
	defer srv.Close()
	report, err := webhookstest.Check(context.Background(), srv.URL, secret, webhookstest.WithEvents(webhooks.EventLeadCreated, webhooks.EventSMSReceived))
	require.NoError(t, err)
	assert.False(t, report.Passed)
	require.Len(t, report.Checks, 2+9)
	for _, c := range report.Checks {
		if c.ID == webhookstest.CheckAcceptsRedelivery {
			assert.False(t, c.Passed)
			assert.Equal(t, http.StatusConflict, c.Status)
			assert.Contains(t, c.Detail, `got 409 "duplicate delivery\n"`)
			assert.Contains(t, c.Detail, "-H 'X-Voiceagent-Attempt: 2'")
			continue
		}
		assert.True(t, c.Passed, "%s: %s", c.ID, c.Detail)
	}
}

func TestASlowReceiverFailsRespondsInTime(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		<-release // never answers before the attempt times out
	}))
	defer srv.Close()
	defer close(release)
	report, err := webhookstest.Check(context.Background(), srv.URL, newSecret(t),
		webhookstest.WithEvents(webhooks.EventCallStarted), webhookstest.WithAttemptTimeout(20*time.Millisecond))
	require.NoError(t, err)
	assert.False(t, report.Passed)
	for _, c := range report.Checks {
		assert.False(t, c.Passed, c.ID)
		assert.Zero(t, c.Status, c.ID)
		if c.ID == webhookstest.CheckRespondsInTime {
			assert.Contains(t, c.Detail, "no response within 20ms to: webhook-id ")
		}
	}
}

func TestCheckRefusesUnusableArguments(t *testing.T) {
	t.Parallel()
	secret := newSecret(t)
	for name, tc := range map[string]struct {
		url, secret string
		opts        []webhookstest.Option
	}{
		"no scheme":        {"example.com/hook", secret, nil},
		"ftp":              {"ftp://example.com/hook", secret, nil},
		"secret no prefix": {"https://example.com/hook", strings.TrimPrefix(secret, "whsec_"), nil},
		"secret not b64":   {"https://example.com/hook", "whsec_!!!", nil},
		"unknown event":    {"https://example.com/hook", secret, []webhookstest.Option{webhookstest.WithEvents("call.complete")}},
	} {
		_, err := webhookstest.Check(context.Background(), tc.url, tc.secret, tc.opts...)
		assert.ErrorIs(t, err, webhookstest.ErrUsage, name)
	}
}

func TestResultsEncodeAsTheAdminAPIShowsThem(t *testing.T) {
	t.Parallel()
	b, err := json.Marshal(webhookstest.Result{ID: "accepts_valid", Event: webhooks.EventLeadCreated, Required: true, Passed: true, Status: 200, DurationMS: 3, Detail: "ok"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"id":"accepts_valid","event":"lead.created","required":true,"passed":true,"status":200,"duration_ms":3,"detail":"ok"}`, string(b))
}

func TestWithHeadersSendsCustomHeadersAndRedactsThem(t *testing.T) {
	t.Parallel()
	secret := newSecret(t)
	h, _ := sdkHandler(t, secret)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "k-123" {
			http.Error(w, "no token", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer srv.Close()
	report, err := webhookstest.Check(context.Background(), srv.URL, secret, webhookstest.WithEvents(webhooks.EventLeadCreated),
		webhookstest.WithHeaders(http.Header{"x-api-key": {"k-123"}}))
	require.NoError(t, err)
	assert.True(t, report.Passed, "%+v", report.Failed())

	report, err = webhookstest.Check(context.Background(), srv.URL, secret, webhookstest.WithEvents(webhooks.EventLeadCreated),
		webhookstest.WithHeaders(http.Header{"X-Api-Key": {"wrong"}}))
	require.NoError(t, err)
	assert.False(t, report.Passed)
	require.NotEmpty(t, report.Failed())
	assert.Contains(t, report.Failed()[0].Detail, "-H 'X-Api-Key: [redacted]'")
	assert.NotContains(t, report.Failed()[0].Detail, "wrong")
}
