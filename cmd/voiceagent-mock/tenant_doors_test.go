package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A tenant deleted through the binary's admin API is gone: its key 401,
// its snapshot 404, and GET /_mock/tenants no longer lists it; another
// tenant is untouched; an unknown business is 404.
func TestTheBinaryDeletesATenant(t *testing.T) {
	bin, err := buildBinary()
	require.NoError(t, err)
	base, admin := startBinary(t, bin, "-addr", "127.0.0.1:0", "-seed", "none")

	status, acct := httpJSON(t, http.MethodPost, admin+"/accounts", "{}")
	require.Equal(t, http.StatusCreated, status, acct)
	status, other := httpJSON(t, http.MethodPost, admin+"/accounts", "{}")
	require.Equal(t, http.StatusCreated, status, other)
	biz, key := acct["business_id"].(string), acct["api_key"].(string)
	status, out := httpJSON(t, http.MethodPost, base+"/v1/calls",
		fmt.Sprintf(`{"agent_id":%q,"to":"+15551230001"}`, acct["agent_id"]), "Authorization", "Bearer "+key)
	require.Equal(t, http.StatusCreated, status, out)

	status, out = httpJSON(t, http.MethodDelete, admin+"/accounts/"+biz, "")
	require.Equal(t, http.StatusOK, status, out)
	assert.Equal(t, map[string]any{"deleted": biz}, out)

	status, out = httpJSON(t, http.MethodGet, base+"/v1/numbers", "", "Authorization", "Bearer "+key)
	assert.Equal(t, http.StatusUnauthorized, status, out)
	status, out = httpJSON(t, http.MethodGet, admin+"/snapshot?business_id="+biz, "")
	assert.Equal(t, http.StatusNotFound, status, out)
	status, out = httpJSON(t, http.MethodGet, admin+"/tenants", "")
	require.Equal(t, http.StatusOK, status, out)
	var ids []string
	for _, tv := range out["tenants"].([]any) {
		ids = append(ids, tv.(map[string]any)["business_id"].(string))
	}
	assert.Equal(t, []string{other["business_id"].(string)}, ids)
	status, out = httpJSON(t, http.MethodGet, base+"/v1/numbers", "", "Authorization", "Bearer "+other["api_key"].(string))
	assert.Equal(t, http.StatusOK, status, out)

	status, out = httpJSON(t, http.MethodDelete, admin+"/accounts/"+biz, "")
	assert.Equal(t, http.StatusNotFound, status, out)
	assert.Equal(t, "not_found", out["error"].(map[string]any)["code"])
}

// signupFrom sends a signup request step from client IP ip (a loopback
// address other than the server's own: Linux routes 127.0.0.0/8 to it)
// and returns the status, the headers and the error message.
func signupFrom(t *testing.T, base, ip, email string) (int, http.Header, string) {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	tr := &http.Transport{DialContext: d.DialContext}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Post(base+"/v1/signup", "application/json",
		strings.NewReader(fmt.Sprintf(`{"business_name":"Limit Co","email":%q}`, email)))
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, string(body)
}

// Signup through the binary is counted per client IP (spec section 8):
// six signups from one address get 429 whatever the emails, the address
// stays refused until the hour has passed on the server's clock, with
// Retry-After equal to RateLimit-Reset, and clearing one address's count
// leaves another refused.
func TestTheBinaryCountsSignupPerClientIP(t *testing.T) {
	bin, err := buildBinary()
	require.NoError(t, err)
	base, admin := startBinary(t, bin, "-addr", "127.0.0.1:0", "-seed", "none")

	for _, ip := range []string{"127.0.0.2", "127.0.0.3"} {
		for n := range 5 {
			status, _, body := signupFrom(t, base, ip, fmt.Sprintf("n%d@%s.example", n, ip))
			require.Equal(t, http.StatusOK, status, "%s attempt %d: %s", ip, n+1, body)
		}
		status, h, body := signupFrom(t, base, ip, "sixth@"+ip+".example")
		require.Equal(t, http.StatusTooManyRequests, status, "%s: %s", ip, body)
		assert.Equal(t, h.Get("RateLimit-Reset"), h.Get("Retry-After"))
		assert.Contains(t, body, "POST /api/v1/signup")
	}

	// 59 minutes later on the server's clock: still refused.
	status, out := httpJSON(t, http.MethodPost, admin+"/clock/advance", `{"seconds":3540}`)
	require.Equal(t, http.StatusOK, status, out)
	status, h, body := signupFrom(t, base, "127.0.0.2", "later@127.0.0.2.example")
	require.Equal(t, http.StatusTooManyRequests, status, body)
	assert.Equal(t, h.Get("RateLimit-Reset"), h.Get("Retry-After"))
	wait, err := strconv.Atoi(h.Get("Retry-After"))
	require.NoError(t, err)
	assert.InDelta(t, 60, wait, 3, "what is left of the hour")

	// Clearing one address leaves the other refused.
	status, out = httpJSON(t, http.MethodDelete, admin+"/rate-limits?client_ip=127.0.0.2", "")
	require.Equal(t, http.StatusOK, status, out)
	status, _, body = signupFrom(t, base, "127.0.0.2", "cleared@127.0.0.2.example")
	assert.Equal(t, http.StatusOK, status, body)
	status, _, body = signupFrom(t, base, "127.0.0.3", "still@127.0.0.3.example")
	assert.Equal(t, http.StatusTooManyRequests, status, body)

	// The hour has passed: the other address signs up again.
	status, out = httpJSON(t, http.MethodPost, admin+"/clock/advance", `{"seconds":62}`)
	require.Equal(t, http.StatusOK, status, out)
	status, _, body = signupFrom(t, base, "127.0.0.3", "after@127.0.0.3.example")
	assert.Equal(t, http.StatusOK, status, body)
}
