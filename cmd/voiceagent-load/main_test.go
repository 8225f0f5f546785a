package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLoadRunsEveryScenarioWithoutErrors(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"-duration", "100ms", "-concurrency", "2", "-records", "200"}, &out))
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	require.Len(t, lines, 1+len(scenarios(&fixtures{})), out.String())
	for _, l := range lines[1:] {
		fields := strings.Fields(l)
		assert.Equal(t, "0", fields[len(fields)-1], "no errors: %s", l)
	}
}

func TestLoadRejectsBadFlags(t *testing.T) {
	var out bytes.Buffer
	assert.Error(t, run(context.Background(), []string{"-concurrency", "0"}, &out))
	assert.Error(t, run(context.Background(), []string{"-duration", "-1s"}, &out))
}
