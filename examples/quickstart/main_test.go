package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestQuickstartRunsAgainstTheMock(t *testing.T) {
	t.Setenv("VOICEAGENT_BASE_URL", "")
	t.Setenv("VOICEAGENT_API_KEY", "")
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), &out))
	assert.Contains(t, out.String(), "3. Created agent")
	assert.Contains(t, out.String(), "5. Number +1555")
	assert.Contains(t, out.String(), "Done.")
}
