package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/internal/harness/loadgen"
)

func TestLoadRunsEveryScenarioWithoutErrors(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"-duration", "50ms", "-concurrency", "2", "-records", "200", "-rounds", "2"}, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	scenarios := loadgen.Scenarios(&loadgen.Fixtures{})
	require.Len(t, lines, 1+len(scenarios), out.String())
	for i, l := range lines[1:] {
		assert.True(t, strings.HasPrefix(strings.TrimSpace(l), scenarios[i].Name), l)
		fields := strings.Fields(l)
		assert.Equal(t, "0", fields[len(fields)-1], "no errors: %s", l)
	}
}

func TestLoadRejectsBadFlags(t *testing.T) {
	var out bytes.Buffer
	for _, args := range [][]string{{"-concurrency", "0"}, {"-duration", "-1s"}, {"-rounds", "0"}, {"-records", "0"}, {"-nope"}} {
		assert.Error(t, run(context.Background(), args, &out), "%v", args)
	}
}

// TestSoakPrintsReadingsAndVerdictsPerPhase: -soak runs each phase, prints
// a reading per interval with RSS and the logs' fill, and the verdicts (RSS
// after warm-up, throughput, bytes per call, the flood's RSS and journal).
func TestSoakPrintsReadingsAndVerdictsPerPhase(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"-soak", "300ms", "-warmup", "50ms", "-interval", "50ms",
		"-concurrency", "2", "-records", "50", "-flood", "5", "-flood-query", "200000"}, &out))
	s := out.String()
	for _, want := range []string{
		"GET /v1/leads?limit=100 for 300ms", "POST /v1/calls for 300ms", "-- warm-up over: ",
		"RSS: ", "throughput: ", " bytes per request over ", "the bytes per request are the bytes per call", "the server's own logs at the end:",
		"flood: 5 answered, 0 failed", "journal: ", "GET /_mock/requests: ",
	} {
		assert.Contains(t, s, want)
	}
	assert.Regexp(t, `(?m)^\s+[0-9.]+m?s\s+\d+\s+\d+\s+\d+\.\d\s+\d+\.\d\s+`, s, "readings with CPU and RSS")
	assert.NotRegexp(t, `(?m) errors: [1-9]|, [1-9]\d* errors$`, s, "no errors")
}

func TestSoakRejectsBadFlags(t *testing.T) {
	var out bytes.Buffer
	for _, args := range [][]string{{"-soak", "1s", "-phases", "reads,naps"}, {"-soak", "-1s"}, {"-soak", "1s", "-interval", "0s"},
		{"-soak", "1s", "-flood-query", "2000000"}, {"-soak", "1s", "-flood", "0"}} {
		assert.Error(t, run(context.Background(), args, &out), "%v", args)
	}
}
