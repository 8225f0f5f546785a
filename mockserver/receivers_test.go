package mockserver

import (
	"context"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// dialTo connects every outbound attempt to addr, whatever host the URL
// names: a receiver "in another container" served on loopback.
func dialTo(addr string) Option {
	return withOutboundDial(func(ctx context.Context, network, _ string) (net.Conn, error) {
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	})
}

// hookCounter is a receiver that counts the hosts it was called as.
type hookCounter struct {
	mu    sync.Mutex
	hosts []string
}

func (h *hookCounter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.hosts = append(h.hosts, r.Host)
	h.mu.Unlock()
}

func subscribeRaw(t *testing.T, srv *TestServer, acct *Account, url string) rawResp {
	t.Helper()
	return rawDo(t, http.MethodPost, srv.URL+"/v1/webhooks",
		`{"business_id":"`+acct.BusinessID+`","webhook_url":"`+url+`","events":["lead.created"]}`, bearer(acct.APIKey)...)
}

func waitDelivery(t *testing.T, srv *TestServer, match func(*Delivery) bool) Delivery {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ds := srv.WaitDeliveries(ctx, match)
	require.NotEmpty(t, ds)
	return ds[len(ds)-1]
}

// Receivers in other containers (docker compose): http:// on a named host,
// allowed with WithExternalWebhooks(true) and refused in words without it.
func TestExternalWebhooksReachHTTPReceiversOnNamedHosts(t *testing.T) {
	t.Parallel()
	recv := &hookCounter{}
	hs := httptest.NewServer(recv)
	t.Cleanup(hs.Close)
	const url = "http://receiver:3000/hook"

	local, acct := startWithAccount(t, dialTo(hs.Listener.Addr().String()))
	r := subscribeRaw(t, local, acct, url)
	require.Equal(t, http.StatusBadRequest, r.status)
	assert.Equal(t, "invalid_request", r.code())
	assert.Contains(t, r.message(), "http:// is only called on loopback hosts")
	assert.Contains(t, r.message(), "-allow-external-webhooks")
	assert.NotRegexp(t, regexp.MustCompile(`\^|\(https`), r.message(), "in words, not a pattern")
	for _, bad := range []string{"ftp://receiver/hook", "receiver/hook", "https://user:pw@receiver/hook"} {
		r = subscribeRaw(t, local, acct, bad)
		assert.Equal(t, http.StatusBadRequest, r.status, bad)
		assert.NotRegexp(t, regexp.MustCompile(`\^|\(https`), r.message(), bad)
	}
	r = rawDo(t, http.MethodPost, local.URL+"/v1/calls", `{"agent_id":"`+acct.AgentID+`","to":"+15551230001","webhook_url":"`+url+`"}`, bearer(acct.APIKey)...)
	assert.Equal(t, http.StatusBadRequest, r.status, "a per-call webhook_url follows the same rule")
	assert.Contains(t, r.message(), "http:// is only called on loopback hosts")

	ext, acct := startWithAccount(t, WithExternalWebhooks(true), dialTo(hs.Listener.Addr().String()))
	r = subscribeRaw(t, ext, acct, url)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	_, err := ext.EmitEvent(acct.BusinessID, "lead.created", nil)
	require.NoError(t, err)
	d := waitDelivery(t, ext, DeliveryFilter{Status: DeliverySucceeded}.Match)
	assert.Equal(t, url, d.Attempts[0].URL)
	recv.mu.Lock()
	assert.Equal(t, []string{"receiver:3000"}, recv.hosts)
	recv.mu.Unlock()
}

// An https receiver whose certificate a private CA issued: refused until
// the server trusts the CA (WithWebhookCA, -webhook-ca).
func TestWebhookCATrustsAPrivateCA(t *testing.T) {
	t.Parallel()
	recv := &hookCounter{}
	hs := httptest.NewTLSServer(recv) // its certificate names example.com; no system pool holds it
	t.Cleanup(hs.Close)
	const url = "https://example.com/hook"

	untrusted, acct := startWithAccount(t, WithExternalWebhooks(true), dialTo(hs.Listener.Addr().String()))
	require.Equal(t, http.StatusCreated, subscribeRaw(t, untrusted, acct, url).status)
	_, err := untrusted.EmitEvent(acct.BusinessID, "lead.created", nil)
	require.NoError(t, err)
	d := waitDelivery(t, untrusted, DeliveryFilter{MinAttempts: 1}.Match)
	assert.Zero(t, d.Attempts[0].StatusCode)
	assert.Contains(t, d.Attempts[0].Error, "certificate")

	trusted, acct := startWithAccount(t, WithExternalWebhooks(true), WithWebhookCA(hs.Certificate()), dialTo(hs.Listener.Addr().String()))
	require.Equal(t, http.StatusCreated, subscribeRaw(t, trusted, acct, url).status)
	_, err = trusted.EmitEvent(acct.BusinessID, "lead.created", nil)
	require.NoError(t, err)
	d = waitDelivery(t, trusted, DeliveryFilter{MinAttempts: 1}.Match)
	assert.Equal(t, http.StatusOK, d.Attempts[0].StatusCode, d.Attempts[0].Error)
	assert.Equal(t, DeliverySucceeded, d.Status)
}

// WithLogger at debug level (the binary's -v) logs the error code of error
// responses and every webhook attempt, without bodies, headers or secrets.
func TestTheDebugLogShowsErrorCodesAndWebhookAttempts(t *testing.T) {
	t.Parallel()
	var log syncBuffer
	logger := slog.New(slog.NewTextHandler(&log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	srv, acct := startWithAccount(t, WithLogger(logger))
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusServiceUnavailable)
	}))
	t.Cleanup(hs.Close)

	rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", "Authorization", "Bearer voiceagent_live_"+strings.Repeat("x", 40))
	rawDo(t, http.MethodPost, srv.URL+"/v1/calls", `{"agent_id":"nope"}`, bearer(acct.APIKey)...)
	rawDo(t, http.MethodGet, srv.URL+"/v1/agents", "", bearer(acct.APIKey)...)
	lines := strings.Split(log.String(), "\n")
	line := func(substr string) string {
		for _, l := range lines {
			if strings.Contains(l, substr) {
				return l
			}
		}
		return ""
	}
	assert.Contains(t, line("status=401"), "error_code=unauthorized")
	assert.Contains(t, line("status=400"), "error_code=invalid_request")
	assert.NotContains(t, line("status=200"), "error_code")

	require.Equal(t, http.StatusCreated, subscribeRaw(t, srv, acct, hs.URL+"/hook?token=s3cret").status)
	_, err := srv.EmitEvent(acct.BusinessID, "lead.created", nil)
	require.NoError(t, err)
	waitDelivery(t, srv, DeliveryFilter{MinAttempts: 1}.Match)
	require.Eventually(t, func() bool { return strings.Contains(log.String(), "mockserver webhook attempt") }, 5*time.Second, 10*time.Millisecond)
	lines = strings.Split(log.String(), "\n")
	attempt := line("mockserver webhook attempt")
	assert.Contains(t, attempt, "kind=subscription")
	assert.Contains(t, attempt, "event=lead.created")
	assert.Contains(t, attempt, "attempt=1")
	assert.Contains(t, attempt, "receiver="+hs.URL+"/hook")
	assert.Contains(t, attempt, "status=503")
	assert.Contains(t, attempt, `error="the receiver answered 503"`)
	assert.NotContains(t, log.String(), "s3cret", "the receiver's query (a token) is not logged")
	assert.NotContains(t, log.String(), acct.APIKey)
	assert.NotContains(t, log.String(), "whsec_")
}
