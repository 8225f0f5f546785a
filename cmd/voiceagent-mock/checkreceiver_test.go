package main

import (
	"bufio"
	"context"
	"encoding/json"
	"encoding/xml"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/webhooks"
	"github.com/voiceagent/voiceagent-go/webhooks/webhookstest"
)

// receivers starts a receiver built on the SDK's Handler (good) and one
// that answers 200 to everything (bad), and returns their URLs and the
// good one's secret.
func receivers(t *testing.T) (good, bad, secret string) {
	t.Helper()
	secret, err := webhooks.NewSecret()
	require.NoError(t, err)
	h, err := webhooks.NewHandler(webhooks.WithSecrets(secret), webhooks.WithErrorLog(slog.New(slog.NewTextHandler(io.Discard, nil))))
	require.NoError(t, err)
	h.OnAny(func(_ context.Context, _ *webhooks.Event) error { return nil })
	g := httptest.NewServer(h)
	t.Cleanup(g.Close)
	b := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) }))
	t.Cleanup(b.Close)
	return g.URL + "/hooks", b.URL + "/hooks", secret
}

type junitReport struct {
	Suites []struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Cases    []struct {
			Name    string `xml:"name,attr"`
			Failure *struct {
				Type string `xml:"type,attr"`
				Text string `xml:",chardata"`
			} `xml:"failure"`
		} `xml:"testcase"`
	} `xml:"testsuite"`
}

func parseJUnit(t *testing.T, out string) junitReport {
	t.Helper()
	var r junitReport
	require.NoError(t, xml.Unmarshal([]byte(out), &r), out)
	require.Len(t, r.Suites, 1)
	return r
}

// The built binary checks a good receiver (exit 0) and a bad one (exit 1,
// a JUnit failure per rejects_* check), with the secret from the flag or
// the variable.
func TestTheBinaryChecksReceivers(t *testing.T) {
	t.Parallel()
	good, bad, secret := receivers(t)

	code, stdout, stderr := runBinary(t, nil, "check-receiver", "-secret", secret, "-format", "junit", good)
	assert.Equal(t, 0, code, stderr)
	r := parseJUnit(t, stdout)
	assert.Equal(t, 27+9, r.Suites[0].Tests)
	assert.Equal(t, 0, r.Suites[0].Failures)
	require.Len(t, r.Suites[0].Cases, 27+9)
	assert.Equal(t, "accepts_valid lead.created", r.Suites[0].Cases[0].Name)
	for _, c := range r.Suites[0].Cases {
		assert.Nil(t, c.Failure, c.Name)
	}

	code, stdout, stderr = runBinary(t, []string{"VOICEAGENT_WEBHOOK_SECRET=" + secret}, "check-receiver", "-format", "junit", "-events", "lead.created,call.completed", bad)
	assert.Equal(t, 1, code, stderr)
	r = parseJUnit(t, stdout)
	assert.Equal(t, 2+9, r.Suites[0].Tests)
	assert.Equal(t, 5, r.Suites[0].Failures)
	var failed []string
	for _, c := range r.Suites[0].Cases {
		if c.Failure != nil {
			failed = append(failed, c.Name)
			assert.Equal(t, c.Name, c.Failure.Type)
			assert.Contains(t, c.Failure.Text, "wanted 4xx, got 200")
			assert.Contains(t, c.Failure.Text, "curl -X POST '"+bad+"'")
		}
	}
	assert.Equal(t, []string{"rejects_tampered_body", "rejects_wrong_secret", "rejects_missing_signature", "rejects_stale_timestamp", "rejects_future_timestamp"}, failed)

	code, stdout, _ = runBinary(t, nil, "check-receiver", "-secret", secret, "-format", "json", "-events", "sms.sent", bad)
	assert.Equal(t, 1, code)
	var report webhookstest.Report
	require.NoError(t, json.Unmarshal([]byte(stdout), &report), stdout)
	assert.False(t, report.Passed)
	assert.Equal(t, bad, report.URL)
	require.Len(t, report.Checks, 1+9)
	assert.Equal(t, webhooks.EventSMSSent, report.Checks[0].Event)

	code, stdout, _ = runBinary(t, nil, "check-receiver", "-secret", secret, "-events", "call.started", good)
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "PASS  accepts_valid call.started")
	assert.Contains(t, stdout, "passed: every required check of 10 passed")
	code, stdout, _ = runBinary(t, nil, "check-receiver", "-secret", secret, "-events", "call.started", bad)
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "FAIL  rejects_wrong_secret")
	assert.Contains(t, stdout, "failed: 5 required check(s) failed")
}

func TestTheBinaryCheckReceiverBadUsage(t *testing.T) {
	t.Parallel()
	_, _, secret := receivers(t)
	for name, args := range map[string][]string{
		"no URL":         {"-secret", secret},
		"two URLs":       {"-secret", secret, "http://127.0.0.1:1/a", "http://127.0.0.1:1/b"},
		"no secret":      {"http://127.0.0.1:1/a"},
		"bad secret":     {"-secret", "nope", "http://127.0.0.1:1/a"},
		"bad format":     {"-secret", secret, "-format", "xml", "http://127.0.0.1:1/a"},
		"unknown event":  {"-secret", secret, "-events", "call.complete", "http://127.0.0.1:1/a"},
		"not http":       {"-secret", secret, "ftp://127.0.0.1/a"},
		"unknown flag":   {"-nope", "http://127.0.0.1:1/a"},
		"relative URL":   {"-secret", secret, "/hooks"},
		"empty variable": {"-format", "text", "http://127.0.0.1:1/a"},
	} {
		code, stdout, stderr := runBinary(t, []string{"VOICEAGENT_WEBHOOK_SECRET="}, append([]string{"check-receiver"}, args...)...)
		assert.Equal(t, 2, code, name)
		assert.Empty(t, stdout, name)
		assert.True(t, strings.HasPrefix(stderr, "voiceagent-mock check-receiver: "), "%s: %s", name, stderr)
	}
	code, stdout, _ := runBinary(t, nil, "check-receiver", "-help")
	assert.Equal(t, 0, code)
	assert.Contains(t, stdout, "Usage: voiceagent-mock check-receiver")
	// An unreachable receiver fails its checks: exit 1, not 2.
	code, stdout, _ = runBinary(t, nil, "check-receiver", "-secret", secret, "-events", "lead.created", "http://127.0.0.1:1/hooks")
	assert.Equal(t, 1, code)
	assert.Contains(t, stdout, "no response")
}

// The built binary serves POST /_mock/receiver-checks: a subscription whose
// receiver is the SDK's Handler passes, a receiver accepting everything
// fails each rejects_* check, bad input is 400 and an unknown subscription
// 404.
func TestTheBinaryRunsReceiverChecks(t *testing.T) {
	t.Parallel()
	cmd := binary(t, []string{"VOICEAGENT_MOCK_ADDR=127.0.0.1:0"})
	pipe, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	lines := bufio.NewScanner(pipe)
	var admin, base, key string
	for key == "" && lines.Scan() {
		l := lines.Text()
		if a, ok := strings.CutPrefix(l, "admin API: "); ok {
			admin = a
		}
		if b, ok := strings.CutPrefix(l, "base URL: "); ok {
			base = b
		}
		if k, ok := strings.CutPrefix(l, "export VOICEAGENT_API_KEY="); ok {
			key = k
		}
	}
	require.NotEmpty(t, key)
	go func() { _, _ = io.Copy(io.Discard, pipe) }()

	h, err := webhooks.NewHandler(webhooks.WithErrorLog(slog.New(slog.NewTextHandler(io.Discard, nil))))
	require.NoError(t, err)
	h.OnAny(func(context.Context, *webhooks.Event) error { return nil })
	good := httptest.NewServer(h)
	t.Cleanup(good.Close)
	_, caps := httpJSON(t, http.MethodGet, base+"/v1/capabilities", "", "Authorization", "Bearer "+key)
	business := caps["workspaces"].([]any)[0].(map[string]any)["id"].(string)
	status, sub := httpJSON(t, http.MethodPost, base+"/v1/webhooks", `{"business_id":"`+business+`","webhook_url":"`+good.URL+`/hook"}`, "Authorization", "Bearer "+key)
	require.Equal(t, http.StatusCreated, status)
	require.NoError(t, h.SetSecrets(sub["secret"].(string)))

	status, report := httpJSON(t, http.MethodPost, admin+"/receiver-checks", `{"subscription_id":"`+sub["id"].(string)+`"}`)
	require.Equal(t, http.StatusOK, status, report)
	assert.Equal(t, true, report["passed"], report)
	assert.Len(t, report["checks"], 27+9)

	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) }))
	t.Cleanup(bad.Close)
	status, report = httpJSON(t, http.MethodPost, admin+"/receiver-checks", `{"url":"`+bad.URL+`","secret":"`+sub["secret"].(string)+`","events":["lead.created"]}`)
	require.Equal(t, http.StatusOK, status, report)
	assert.Equal(t, false, report["passed"])
	for _, c := range report["checks"].([]any) {
		c := c.(map[string]any)
		assert.Equal(t, !strings.HasPrefix(c["id"].(string), "rejects_"), c["passed"], c["id"])
	}

	status, _ = httpJSON(t, http.MethodPost, admin+"/receiver-checks", `{"url":"https://example.com/x","secret":"`+sub["secret"].(string)+`"}`)
	assert.Equal(t, http.StatusBadRequest, status, "deliveries may not reach it")
	status, _ = httpJSON(t, http.MethodPost, admin+"/receiver-checks", `{}`)
	assert.Equal(t, http.StatusBadRequest, status)
	status, _ = httpJSON(t, http.MethodPost, admin+"/receiver-checks", `{"subscription_id":"00000000-0000-4000-8000-000000000000"}`)
	assert.Equal(t, http.StatusNotFound, status)

	// Emitted without data: the type's sample.
	status, ev := httpJSON(t, http.MethodPost, admin+"/events", `{"business_id":"`+business+`","event":"sms.failed"}`)
	require.Equal(t, http.StatusCreated, status)
	assert.Equal(t, "failed", ev["data"].(map[string]any)["status"])
}
