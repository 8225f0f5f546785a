package mockserver

// Outbound HTTP of approval callbacks: the host policy, the signature and
// the poster with its retry schedule. (Webhook deliveries have the same
// needs; this file is the approval requests' own copy until they share
// one.)

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/tls"
	"encoding/base64"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// approvalRetryDelays are the waits before the retries of a failed callback
// (after the first, immediate attempt), on the simulated clock: the Standard
// Webhooks schedule of webhook deliveries.
var approvalRetryDelays = []time.Duration{
	5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// approvalCallbackTimeout bounds one attempt, in real time.
const approvalCallbackTimeout = 10 * time.Second

var (
	approvalHTTP = &http.Client{Timeout: approvalCallbackTimeout}
	// approvalLoopbackHTTP reaches https test receivers on loopback, whose
	// certificates are self-signed.
	approvalLoopbackHTTP = &http.Client{Timeout: approvalCallbackTimeout, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // loopback test receivers only
	}}
)

// approvalLoopbackHost reports whether host is localhost or a loopback IP.
func approvalLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// approvalCallbackAllowed checks a callback_url: https on the allowed host
// list, or http/https on a loopback host.
func (s *Server) approvalCallbackAllowed(raw string) *apiError {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return errInvalidField("/callback_url", "must be an absolute URL")
	}
	host := strings.ToLower(u.Hostname())
	loop := approvalLoopbackHost(host)
	if u.Scheme != "https" && (u.Scheme != "http" || !loop) {
		return errInvalidField("/callback_url", "must be https (http only for loopback test receivers)")
	}
	if loop {
		return nil
	}
	for _, h := range s.cfg.approvalCallbackHosts {
		h = strings.ToLower(h)
		if h == host || strings.HasPrefix(h, "*.") && strings.HasSuffix(host, h[1:]) {
			return nil
		}
	}
	return errInvalidField("/callback_url", "host %q is not on the allowed callback host list", host)
}

// approvalMayConnect reports whether the server connects to a callback URL
// at all: loopback always, other hosts only with WithExternalWebhooks.
func (s *Server) approvalMayConnect(raw string) bool {
	u, err := url.Parse(raw)
	return err == nil && (approvalLoopbackHost(u.Hostname()) || s.cfg.externalWebhooks)
}

// signApprovalCallback is the Standard Webhooks signature of a callback:
// v1, and base64 of HMAC-SHA256 of "{id}.{timestamp}.{body}" keyed with the
// secret's bytes (the base64 after whsec_).
func signApprovalCallback(secret, id string, ts int64, body []byte) string {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		key = []byte(secret)
	}
	m := hmac.New(sha256.New, key)
	m.Write([]byte(id + "." + strconv.FormatInt(ts, 10) + "."))
	m.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// postApprovalCallback makes attempt n (1-based) of an approval request's
// callback. It runs in its own goroutine, outside the store lock; it records
// the attempt and, after a failure, schedules the next one on the clock.
func (s *Server) postApprovalCallback(id string, n int) {
	s.mu.RLock()
	a, ok := s.st.ApprovalRequests.Get(id)
	var target, secret, eventID string
	var body []byte
	if ok {
		target, secret, eventID, body = a.CallbackURL, a.Secret, a.CallbackEventID, a.CallbackBody
	}
	s.mu.RUnlock()
	if !ok {
		return
	}
	status, errMsg := s.sendApprovalCallback(target, secret, eventID, body, n)

	s.mu.Lock()
	if a, ok := s.st.ApprovalRequests.Get(id); ok && a.CallbackEventID == eventID {
		now := s.clock.Now()
		a.CallbackAttempts = append(a.CallbackAttempts, store.CallbackAttempt{At: now, StatusCode: status, Error: errMsg})
		a.NextAttemptAt = nil
		switch {
		case status >= 200 && status < 300:
			a.CallbackStatus = callbackDelivered
		case n > len(approvalRetryDelays):
			a.CallbackStatus = callbackFailed
		default:
			next := now.Add(approvalRetryDelays[n-1])
			a.NextAttemptAt = &next
			s.schedule(next, func(time.Time) {
				if a, ok := s.st.ApprovalRequests.Get(id); ok && a.CallbackEventID == eventID && a.CallbackStatus == callbackPending {
					go s.postApprovalCallback(id, n+1)
				}
			})
		}
	}
	s.mu.Unlock()
	s.approvals.attempts.Notify()
}

// sendApprovalCallback posts one attempt and returns the receiver's status
// (0 when it could not be reached) and the transport error.
func (s *Server) sendApprovalCallback(target, secret, eventID string, body []byte, attempt int) (int, string) {
	req, err := http.NewRequest(http.MethodPost, target, bytes.NewReader(body))
	if err != nil {
		return 0, err.Error()
	}
	ts := time.Now().Unix() // wall clock, so receivers verify with their usual tolerance
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "voiceagent-mock")
	req.Header.Set("webhook-id", eventID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", signApprovalCallback(secret, eventID, ts, body))
	req.Header.Set("X-Voiceagent-Event", approvalCallbackEvent)
	req.Header.Set("X-Voiceagent-Attempt", strconv.Itoa(attempt))
	client := approvalHTTP
	if approvalLoopbackHost(req.URL.Hostname()) {
		client = approvalLoopbackHTTP
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	return resp.StatusCode, ""
}
