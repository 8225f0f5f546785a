package mockserver

import (
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/internal/harness/conformance"
)

// signupFrom sends a signup request step for email from the client IP ip
// (a loopback address: the server listens on 127.0.0.1, and Linux routes
// all of 127.0.0.0/8 to it), checked against the OpenAPI document.
func signupFrom(t *testing.T, srv *TestServer, ip, email string) rawResp {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	c := &http.Client{Transport: conformance.Transport(t, &http.Transport{DialContext: d.DialContext})}
	t.Cleanup(c.CloseIdleConnections)
	req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/signup",
		strings.NewReader(fmt.Sprintf(`{"business_name":"Limit Co","email":%q}`, email)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	return sendRaw(t, c, req)
}

// Signup is counted per client IP as spec section 8 says: the sixth
// attempt within the hour is 429 whatever the emails, and the address
// then waits out a whole hour from that refusal (no attempt is given back
// sooner), every 429 with Retry-After equal to RateLimit-Reset and naming
// the route.
func TestSignupIsCountedPerClientIPAndWaitsOutTheHour(t *testing.T) {
	t.Parallel()
	srv := Start(t) // rate limits on, as the binary's
	for n := range 5 {
		r := signupFrom(t, srv, "127.0.0.1", fmt.Sprintf("suite-%d@signups.example", n))
		require.Equal(t, http.StatusOK, r.status, "attempt %d: %s", n+1, r.body)
		assert.Equal(t, "5", r.header.Get("RateLimit-Limit"))
		assert.Equal(t, strconv.Itoa(4-n), r.header.Get("RateLimit-Remaining"))
		assert.InDelta(t, 3600, atoi(t, r.header.Get("RateLimit-Reset")), 2, "the hour began with the first attempt")
	}
	limited := func(why string) int {
		t.Helper()
		r := signupFrom(t, srv, "127.0.0.1", "another-address@signups.example")
		require.Equal(t, http.StatusTooManyRequests, r.status, "%s: %s", why, r.body)
		assert.Equal(t, "rate_limited", r.code())
		assert.Contains(t, r.message(), "POST /api/v1/signup", "the 429 names the route")
		assert.Contains(t, r.message(), "counted per client IP")
		assert.Equal(t, "0", r.header.Get("RateLimit-Remaining"))
		assert.Equal(t, r.header.Get("RateLimit-Reset"), r.header.Get("Retry-After"), "%s: Retry-After and RateLimit-Reset agree", why)
		return atoi(t, r.header.Get("Retry-After"))
	}
	assert.InDelta(t, 3600, limited("the sixth attempt, another email"), 2)

	// Twelve minutes (what a token bucket gives an attempt back in), then
	// 59: still refused, the wait counting down from the refusal.
	srv.Advance(12 * time.Minute)
	assert.InDelta(t, 48*60, limited("12 minutes after the 429"), 2)
	srv.Advance(47 * time.Minute)
	assert.InDelta(t, 60, limited("59 minutes after the 429"), 2)

	// The hour has passed: a whole count again.
	srv.Advance(61 * time.Second)
	r := signupFrom(t, srv, "127.0.0.1", "after-the-hour@signups.example")
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, "4", r.header.Get("RateLimit-Remaining"))
}

// DELETE /_mock/rate-limits?client_ip= clears one address's count: the
// other address stays refused. A suite on a shared server signs up as many
// accounts as it needs by clearing its own address between signups.
func TestClearingOneAddressLeavesAnotherRefused(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	for _, ip := range []string{"127.0.0.2", "127.0.0.3"} {
		for n := range 6 {
			r := signupFrom(t, srv, ip, fmt.Sprintf("n%d@%s.example", n, ip))
			if n < 5 {
				require.Equal(t, http.StatusOK, r.status, "%s attempt %d: %s", ip, n+1, r.body)
			} else {
				require.Equal(t, http.StatusTooManyRequests, r.status, "%s attempt %d: %s", ip, n+1, r.body)
			}
		}
	}
	r := rawDo(t, http.MethodDelete, srv.AdminURL+"/rate-limits?client_ip=127.0.0.2", "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.EqualValues(t, 1, r.json["cleared"])
	assert.Equal(t, "127.0.0.2", r.json["client_ip"])

	assert.Equal(t, http.StatusOK, signupFrom(t, srv, "127.0.0.2", "again@cleared.example").status, "the cleared address")
	assert.Equal(t, http.StatusTooManyRequests, signupFrom(t, srv, "127.0.0.3", "again@other.example").status, "the other address")

	// Twenty accounts by signup from one address, clearing it between them.
	for n := range 20 {
		r := rawDo(t, http.MethodDelete, srv.AdminURL+"/rate-limits?client_ip=127.0.0.1", "")
		require.Equal(t, http.StatusOK, r.status, r.body)
		status, out := identitySignupOTP(t, srv, fmt.Sprintf("suite-%02d@shared.example", n))
		require.Equal(t, http.StatusCreated, status, "account %d: %v", n, out)
	}
	assert.Len(t, srv.Tenants(), 20)

	// Without a parameter every counter goes.
	r = rawDo(t, http.MethodDelete, srv.AdminURL+"/rate-limits", "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.Equal(t, http.StatusOK, signupFrom(t, srv, "127.0.0.3", "cleared@all.example").status)

	for _, bad := range []string{"?client_ip=not-an-ip", "?client_ip=", "?business_id=nope",
		"?client_ip=127.0.0.1&business_id=00000000-0000-4000-8000-000000000000"} {
		r := rawDo(t, http.MethodDelete, srv.AdminURL+"/rate-limits"+bad, "")
		assert.Equal(t, http.StatusBadRequest, r.status, "%s: %s", bad, r.body)
	}
	r = rawDo(t, http.MethodDelete, srv.AdminURL+"/rate-limits?business_id=00000000-0000-4000-8000-000000000000", "")
	assert.Equal(t, http.StatusNotFound, r.status, r.body)
}

// ?business_id= clears the counters of a tenant's keys and sessions, and
// no other tenant's.
func TestClearingATenantsRateLimits(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t, WithRateLimitScale(0.01)) // reads: 3 a minute
	other, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	get := func(key string) int {
		return rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(key)...).status
	}
	for _, key := range []string{acct.APIKey, other.APIKey} {
		for range 3 {
			require.Equal(t, http.StatusOK, get(key))
		}
		require.Equal(t, http.StatusTooManyRequests, get(key))
	}
	r := rawDo(t, http.MethodDelete, srv.AdminURL+"/rate-limits?business_id="+acct.BusinessID, "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	assert.EqualValues(t, 1, r.json["cleared"], "the key's one counter")
	assert.Equal(t, http.StatusOK, get(acct.APIKey))
	assert.Equal(t, http.StatusTooManyRequests, get(other.APIKey))
}
