package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// webhookRetrySchedule is the wait before each attempt of a webhook
// delivery (see WebhookRetrySchedule).
var webhookRetrySchedule = [...]time.Duration{
	0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// WebhookRetrySchedule returns the wait before each attempt of a webhook
// delivery, on the simulated clock: the first attempt immediately, then 5
// seconds, 5 minutes, 30 minutes, 2 hours, 5 hours, 10 hours and 10 hours
// after the previous failed attempt. After the eighth failure the delivery
// is marked failed.
func WebhookRetrySchedule() []time.Duration { return slices.Clone(webhookRetrySchedule[:]) }

// WebhookAttempt is one HTTP attempt of a webhook delivery.
type WebhookAttempt struct {
	// Attempt counts from 1.
	Attempt int `json:"attempt"`
	// At is the simulated time of the attempt.
	At time.Time `json:"at"`
	// StatusCode is the receiver's answer, 0 when there was none.
	StatusCode int `json:"status_code"`
	// Error says why there was no answer (connection refused, timeout,
	// receiver not allowed).
	Error string `json:"error,omitempty"`
	// DurationMS is the real time the exchange took.
	DurationMS float64 `json:"duration_ms"`
}

// CallWebhookDelivery is the delivery of a call's per-call webhook
// (webhook_url of POST /v1/calls): GET /_mock/call-webhooks and
// Server.CallWebhooks.
type CallWebhookDelivery struct {
	// ID is the webhook-id header, the same on every attempt.
	ID     string `json:"id"`
	CallID string `json:"call_id"`
	URL    string `json:"url"`
	Event  string `json:"event"`
	// Body is the exact body posted.
	Body json.RawMessage `json:"body"`
	// Status is pending, succeeded or failed.
	Status        string           `json:"status"`
	Attempts      []WebhookAttempt `json:"attempts"`
	NextAttemptAt *time.Time       `json:"next_attempt_at"`
	CreatedAt     time.Time        `json:"created_at"`
}

// queueCallWebhook records a per-call webhook delivery and schedules its
// first attempt now. The caller holds the write lock.
func (s *Server) queueCallWebhook(st *store.Store, now time.Time, c *store.Call, body map[string]any) {
	raw, err := json.Marshal(body)
	if err != nil {
		return
	}
	d := &store.CallWebhook{CallID: c.ID, URL: c.WebhookURL, Event: body["event"].(string), Body: raw, Status: store.DeliveryPending}
	d.ID = s.ids.uuid()
	d.Owner = c.Owner
	d.CreatedAt = st.CallWebhooks.Stamp(now)
	next := now.UTC()
	d.NextAttemptAt = &next
	st.CallWebhooks.Put(d)
	c.WebhookIDs = append(c.WebhookIDs, d.ID)
	s.scheduleCallWebhook(d.ID, now)
	s.callHooks.Notify()
}

func (s *Server) scheduleCallWebhook(id string, at time.Time) {
	s.schedule(at, func(now time.Time) { s.attemptCallWebhook(id, now) })
}

// attemptCallWebhook snapshots what to send under the lock and hands it to
// the outbound pool; the result is recorded under the lock when it comes.
func (s *Server) attemptCallWebhook(id string, now time.Time) {
	st := s.st
	d, ok := st.CallWebhooks.Get(id)
	if !ok || d.Status != store.DeliveryPending {
		return
	}
	n := len(d.Attempts) + 1
	d.NextAttemptAt = nil
	u, err := url.Parse(d.URL)
	if err == nil {
		err = s.allowedTarget(u)
	}
	if err != nil {
		s.recordCallWebhook(st, d, n, now, outboundResult{err: err.Error()})
		return
	}
	req := outboundRequest{
		method: http.MethodPost,
		url:    d.URL,
		header: http.Header{
			"Content-Type":         {"application/json"},
			"Webhook-Id":           {d.ID},
			"X-Voiceagent-Event":   {d.Event},
			"X-Voiceagent-Attempt": {strconv.Itoa(n)},
		},
		body: bytes.Clone(d.Body),
	}
	s.postOutbound(req, func(res outboundResult) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.st != st {
			return // the server was reset meanwhile
		}
		if d, ok := st.CallWebhooks.Get(id); ok && d.Status == store.DeliveryPending && len(d.Attempts) == n-1 {
			s.recordCallWebhook(st, d, n, now, res)
		}
	})
}

// recordCallWebhook records attempt n and schedules the next one, or marks
// the delivery succeeded or failed. The caller holds the write lock.
func (s *Server) recordCallWebhook(st *store.Store, d *store.CallWebhook, n int, at time.Time, res outboundResult) {
	d.Attempts = append(d.Attempts, store.WebhookAttempt{
		N: n, At: at.UTC(), StatusCode: res.status, Error: res.err,
		DurationMS: float64(res.duration.Microseconds()) / 1000,
	})
	switch {
	case res.ok():
		d.Status = store.DeliverySucceeded
	case n >= len(webhookRetrySchedule):
		d.Status = store.DeliveryFailed
	default:
		next := at.Add(webhookRetrySchedule[n]).UTC()
		d.NextAttemptAt = &next
		s.scheduleCallWebhook(d.ID, next)
	}
	s.callHooks.Notify()
}

func callWebhookView(d *store.CallWebhook) CallWebhookDelivery {
	out := CallWebhookDelivery{
		ID: d.ID, CallID: d.CallID, URL: d.URL, Event: d.Event, Body: bytes.Clone(d.Body),
		Status: d.Status, Attempts: make([]WebhookAttempt, len(d.Attempts)), CreatedAt: d.CreatedAt,
	}
	for i, a := range d.Attempts {
		out.Attempts[i] = WebhookAttempt{Attempt: a.N, At: a.At, StatusCode: a.StatusCode, Error: a.Error, DurationMS: a.DurationMS}
	}
	if d.NextAttemptAt != nil {
		t := *d.NextAttemptAt
		out.NextAttemptAt = &t
	}
	return out
}

// CallWebhooks returns the per-call webhook deliveries of a call, oldest
// first (empty when the call had no webhook_url or has not finished).
func (s *Server) CallWebhooks(callID string) []CallWebhookDelivery {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []CallWebhookDelivery{}
	c, ok := s.st.Calls.Get(callID)
	if !ok {
		return out
	}
	for _, id := range c.WebhookIDs {
		if d, ok := s.st.CallWebhooks.Get(id); ok {
			out = append(out, callWebhookView(d))
		}
	}
	return out
}

// WaitCallWebhook waits until a per-call webhook delivery of the call
// matches (nil: any delivery), or ctx ends. Attempts run in real time on a
// worker pool, so wait for an attempt's result here before advancing the
// clock to its retry.
func (s *Server) WaitCallWebhook(ctx context.Context, callID string, match func(CallWebhookDelivery) bool) (CallWebhookDelivery, bool) {
	var found CallWebhookDelivery
	ok := s.callHooks.Wait(ctx, func() bool {
		for _, d := range s.CallWebhooks(callID) {
			if match == nil || match(d) {
				found = d
				return true
			}
		}
		return false
	})
	return found, ok
}
