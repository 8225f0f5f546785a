package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestBenchModeMeasuresReadsAndWrites(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"-bench", "-driver", "go", "-duration", "50ms", "-concurrency", "2",
		"-records", "150", "-reads", "agents|leads|calls\\?", "-stored-calls", "100,1000"}, &out))
	s := out.String()
	for _, want := range []string{"GET /v1/agents", "GET /v1/leads?limit=100", "GET /v1/calls?limit=100", "0.75 ", "0.60 ",
		"stored calls", "\n         100 ", "\n        1000 ", "load average"} {
		assert.Contains(t, s, want)
	}
	assert.NotContains(t, s, "GET /v1/events", "-reads chooses the routes")
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "GET ") {
			f := strings.Fields(l)
			assert.Equal(t, "0", f[len(f)-1], "no errors: %s", l)
		}
	}
}

func TestBenchModeRejectsBadFlags(t *testing.T) {
	var out bytes.Buffer
	for _, args := range [][]string{
		{"-bench", "-driver", "nope"}, {"-bench", "-reads", "("}, {"-bench", "-stored-calls", "x"},
		{"-bench", "-stored-calls", "-5"}, {"-bench", "-driver", "wrk", "-wrk-threads", "0"},
	} {
		assert.Error(t, run(context.Background(), args, &out), "%v", args)
	}
}
