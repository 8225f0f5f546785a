package hooks

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
)

func TestAllowedTarget(t *testing.T) {
	t.Parallel()
	local := &Service{Platform: platform.New(platform.Config{})}
	external := &Service{Platform: platform.New(platform.Config{ExternalWebhooks: true})}
	for _, tc := range []struct {
		url             string
		local, external bool
	}{
		{"http://127.0.0.1:8080/hook", true, true},
		{"http://127.9.9.9/hook", true, true},
		{"http://localhost:1/hook", true, true},
		{"http://receiver.localhost/hook", true, true},
		{"http://[::1]:9000/hook", true, true},
		{"https://127.0.0.1/hook", true, true},
		{"https://hooks.example.com/hook", false, true},
		{"https://10.0.0.1/hook", false, true},
		{"http://hooks.example.com/hook", false, false},
		{"ftp://127.0.0.1/hook", false, false},
		{"http://user:pw@127.0.0.1/hook", false, false},
		{"/relative", false, false},
		{"https://", false, false},
	} {
		u, err := url.Parse(tc.url)
		require.NoError(t, err)
		assert.Equal(t, tc.local, local.allowedTarget(u) == nil, "%s without external webhooks", tc.url)
		assert.Equal(t, tc.external, external.allowedTarget(u) == nil, "%s with external webhooks", tc.url)
		if err := local.allowedTarget(u); err != nil {
			assert.ErrorIs(t, err, errTargetRefused)
		}
	}
	assert.Error(t, dialGuard(false)("tcp", "10.1.2.3:443", nil), "the dialer refuses non-loopback addresses")
	assert.NoError(t, dialGuard(false)("tcp", "127.0.0.1:443", nil))
	assert.NoError(t, dialGuard(true)("tcp", "10.1.2.3:443", nil))
}
