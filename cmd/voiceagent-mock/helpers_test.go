package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/internal/harness/helpersuite"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// The Go helpers of package mockserver against the built binary, reached
// with mockserver.Connect and its admin token: the suite that runs against
// a server made with New (mockserver/doors_test.go).
func TestTheGoHelpersThroughConnect(t *testing.T) {
	t.Parallel()
	bin, err := buildBinary()
	require.NoError(t, err)
	base, _ := startBinary(t, bin, "-addr", "127.0.0.1:0", "-seed", "none", "-admin-token", "helper-token")

	_, err = mockserver.Connect(base, "wrong-token")
	var e *mockserver.Error
	require.ErrorAs(t, err, &e, "Connect checks the token against /_mock/health")
	assert.Equal(t, 401, e.Status)

	srv, err := mockserver.Connect(base, "helper-token")
	require.NoError(t, err)
	helpersuite.Run(t, srv, helpersuite.Options{Receivers: true, Reset: true})

	assert.PanicsWithValue(t, "mockserver: MinutesUsed needs a server made with New in this process; the admin API has no route for it, and this server was reached with Connect",
		func() { srv.MinutesUsed("b") })
}
