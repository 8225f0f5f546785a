package mockserver

// Approval callbacks go out like webhook deliveries (deliveries.go): the
// receiver check (checkTarget), the outbound pool (postOutbound), the
// Standard Webhooks signature (webhooks.SignHeaders) and the retry schedule
// (webhookRetrySchedule) are the same.

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// approvalCallbackAllowed checks a callback_url when the request is made:
// https on the allowed host list (WithApprovalCallbackHosts), or http or
// https on a loopback host.
func (s *Server) approvalCallbackAllowed(raw string) *apiError {
	u, err := url.Parse(raw)
	if err != nil || u.Hostname() == "" {
		return errInvalidField("/callback_url", "must be an absolute URL")
	}
	host := strings.ToLower(u.Hostname())
	loop := isLoopbackHost(host)
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

// startApprovalCallback sends a decided request's callback: the first
// attempt at once on the outbound pool, the second on the clock 5 seconds
// later (it waits for the first one's outcome and does nothing when it
// succeeded), later ones on the clock with Advance waiting for their
// answer. A receiver the server may not call (outside loopback without
// WithExternalWebhooks) is not_sent. The caller holds the write lock.
func (s *Server) startApprovalCallback(st *store.Store, a *store.ApprovalRequest, now time.Time) {
	if err := s.checkTarget(a.CallbackURL); err != nil {
		a.CallbackStatus, a.CallbackError = callbackNotSent, err.Error()
		return
	}
	a.CallbackStatus = callbackPending
	id := a.ID
	first := make(chan struct{})
	cancelSecond := s.scheduleSecondAttempt(now, first, func(at time.Time) { s.retryApprovalCallback(st, id, 2, at) })
	s.postOutbound(approvalCallbackRequest(a, 1), func(res outboundResult) {
		s.mu.Lock()
		finished := recordApprovalAttempt(st, id, 1, now, res)
		s.mu.Unlock()
		if finished {
			cancelSecond()
		}
		close(first)
	})
}

// retryApprovalCallback makes attempt n >= 2 at simulated time at, waits
// for the answer, and schedules the next attempt when it failed. It runs on
// the clock, without the store lock.
func (s *Server) retryApprovalCallback(st *store.Store, id string, n int, at time.Time) {
	s.mu.Lock()
	a, ok := st.ApprovalRequests.Get(id)
	if !ok || s.st != st || a.CallbackStatus != callbackPending {
		s.mu.Unlock()
		return
	}
	req := approvalCallbackRequest(a, n)
	s.mu.Unlock()
	res, ok := s.postOutboundWait(req)
	if !ok {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !recordApprovalAttempt(st, id, n, at, res) {
		next := *a.NextAttemptAt
		s.clock.Schedule(next, func(at time.Time) { s.retryApprovalCallback(st, id, n+1, at) })
	}
}

// recordApprovalAttempt records attempt n and moves the callback on:
// delivered on a 2xx, failed after the last attempt, otherwise the time of
// the next attempt. It reports whether the callback is finished. The
// caller holds the write lock.
func recordApprovalAttempt(st *store.Store, id string, n int, at time.Time, res outboundResult) (finished bool) {
	a, ok := st.ApprovalRequests.Get(id)
	if !ok || a.CallbackStatus != callbackPending {
		return true
	}
	errText := res.err
	if errText == "" && !res.ok() {
		errText = fmt.Sprintf("the receiver answered %d", res.status)
	}
	a.CallbackAttempts = append(a.CallbackAttempts, store.CallbackAttempt{At: at.UTC(), StatusCode: res.status, Error: errText})
	a.NextAttemptAt = nil
	switch {
	case res.ok():
		a.CallbackStatus = callbackDelivered
		return true
	case n >= maxDeliveryAttempts:
		a.CallbackStatus = callbackFailed
		return true
	}
	next := at.Add(webhookRetrySchedule[n]).UTC()
	a.NextAttemptAt = &next
	return false
}

// approvalCallbackRequest is attempt n of a callback, signed now (the
// webhook-timestamp is wall-clock time) with the request's secret.
func approvalCallbackRequest(a *store.ApprovalRequest, n int) outboundRequest {
	// The secret is the server's own and the id a uuid: signing cannot fail.
	h, _ := webhooks.SignHeaders([]string{a.Secret}, a.CallbackEventID, time.Now(), a.CallbackBody)
	h.Set("Content-Type", "application/json")
	h.Set(webhooks.HeaderEvent, approvalCallbackEvent)
	h.Set(webhooks.HeaderAttempt, strconv.Itoa(n))
	return outboundRequest{method: http.MethodPost, url: a.CallbackURL, header: h, body: a.CallbackBody}
}
