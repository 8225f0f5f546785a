package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/internal/loadgen"
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
