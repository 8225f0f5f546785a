package hooks

import (
	"net/url"
	"regexp"
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
		url                    string
		local, saved, external bool
		why                    string // in the refusal without external webhooks
	}{
		{"http://127.0.0.1:8080/hook", true, true, true, ""},
		{"http://127.9.9.9/hook", true, true, true, ""},
		{"http://localhost:1/hook", true, true, true, ""},
		{"http://receiver.localhost/hook", true, true, true, ""},
		{"http://[::1]:9000/hook", true, true, true, ""},
		{"https://127.0.0.1/hook", true, true, true, ""},
		{"https://hooks.example.com/hook", false, true, true, "host hooks.example.com is outside loopback"},
		{"https://10.0.0.1/hook", false, true, true, "only calls loopback hosts"},
		{"http://hooks.example.com/hook", false, false, true, "http:// is only called on loopback hosts"},
		{"http://receiver:3000/hook", false, false, true, "-allow-external-webhooks"},
		{"http://localhost.evil.example/x", false, false, true, "use https://"},
		{"ftp://127.0.0.1/hook", false, false, false, `the scheme must be https (or http), not "ftp"`},
		{"http://user:pw@127.0.0.1/hook", false, false, false, "may not carry a user name or password"},
		{"/relative", false, false, false, "must be absolute"},
		{"https://", false, false, false, "must be absolute"},
		{"mailto:ops@example.com", false, false, false, "must be absolute"},
	} {
		u, err := url.Parse(tc.url)
		require.NoError(t, err)
		assert.Equal(t, tc.local, local.allowedTarget(u, false) == nil, "%s called without external webhooks", tc.url)
		assert.Equal(t, tc.saved, local.allowedTarget(u, true) == nil, "%s saved without external webhooks", tc.url)
		assert.Equal(t, tc.external, external.allowedTarget(u, false) == nil, "%s with external webhooks", tc.url)
		if err := local.allowedTarget(u, false); err != nil {
			assert.ErrorIs(t, err, errTargetRefused)
			assert.Contains(t, err.Error(), tc.why, tc.url)
			assert.NotRegexp(t, regexp.MustCompile(`[\^$]|\(\?|\[0-9`), err.Error(), "a refusal says why in words, never as a pattern")
		}
	}
	assert.ErrorContains(t, local.CheckTarget("http://%zz"), "is not a URL")
	assert.Error(t, dialGuard(false)("tcp", "10.1.2.3:443", nil), "the dialer refuses non-loopback addresses")
	assert.NoError(t, dialGuard(false)("tcp", "127.0.0.1:443", nil))
	assert.NoError(t, dialGuard(true)("tcp", "10.1.2.3:443", nil))
}
