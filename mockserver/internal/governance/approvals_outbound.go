package governance

// Approval callbacks are deliveries of the one delivery engine
// (deliveries.go), kind approval_callback: the same receiver check, pool,
// Standard Webhooks signature, retry schedule, log and replay.

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	governanceapi "github.com/voiceagent/voiceagent-go/governance"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/hooks"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// approvalCallbackAllowed checks a callback_url when the request is made:
// a receiver the server may save (hooks.CheckReceiver: https, or http on a
// loopback host or, with WithExternalWebhooks(true), on any host) whose host
// is loopback or on the allowed host list (WithApprovalCallbackHosts).
func (s *Service) approvalCallbackAllowed(raw string) *domain.Error {
	if err := s.hooks.CheckReceiver(raw); err != nil {
		return domain.InvalidField("/callback_url", "%v", err)
	}
	u, _ := url.Parse(raw) // CheckReceiver parsed it
	host := strings.ToLower(u.Hostname())
	if hooks.IsLoopbackHost(host) {
		return nil
	}
	for _, h := range s.Config.ApprovalCallbackHosts {
		h = strings.ToLower(h)
		if h == host || strings.HasPrefix(h, "*.") && strings.HasSuffix(host, h[1:]) {
			return nil
		}
	}
	return domain.InvalidField("/callback_url", "host %q is not on the allowed callback host list", host)
}

// startApprovalCallback sends a decided request's callback body: a delivery of
// kind approval_callback on the delivery engine (deliveries.go), with the
// schedule, log and replay of every delivery. A receiver the server may not call
// (outside loopback without WithExternalWebhooks) is not_sent and gets no
// delivery.
func (s *Service) startApprovalCallback(tx *platform.Tx, a *store.ApprovalRequest, body []byte) {
	if err := s.hooks.CheckTarget(a.CallbackURL); err != nil {
		tx.ApprovalRequests.Update(a, func(a *store.ApprovalRequest) {
			a.CallbackStatus, a.CallbackError = callbackNotSent, err.Error()
		})
		return
	}
	s.hooks.StartDelivery(tx, &store.Delivery{
		Kind: store.DeliveryApprovalCallback, MessageID: a.CallbackEventID, ApprovalRequestID: a.ID,
		URL: a.CallbackURL, BusinessID: a.BusinessID, EventID: a.CallbackEventID, EventType: governanceapi.ApprovalCallbackEvent,
		ContentType: hooks.ContentTypeJSON, Body: body,
	})
}

// approvalCallbackRequest builds attempt n of an approval callback: a POST
// to the callback_url signed with the request's secret at the wall-clock
// time wall.
func approvalCallbackRequest(a *store.ApprovalRequest, d *store.Delivery, n int, wall time.Time) (req hooks.OutboundRequest, shown map[string]string) {
	// The secret is the server's own and the id a uuid: signing cannot fail.
	h, _ := webhooks.SignHeaders([]string{a.Secret}, d.MessageID, wall, d.Body)
	return hooks.AttemptRequest(http.MethodPost, d.URL, h, d, n, nil)
}

// approvalCallbackUpdated is the delivery engine's outcome hook for an approval
// callback: it copies the delivery's state onto the request's callback (status,
// the attempt att just recorded, next_attempt_at), so the request keeps it after
// the delivery leaves the ring buffer. att is nil when the delivery starts (or a
// replay of it does).
func approvalCallbackUpdated(tx *platform.Tx, d *store.Delivery, att *store.DeliveryAttempt) {
	a, ok := tx.ApprovalRequests.Get(d.ApprovalRequestID)
	if !ok {
		return
	}
	tx.ApprovalRequests.Update(a, func(a *store.ApprovalRequest) {
		a.NextAttemptAt = nil
		switch d.Status {
		case store.DeliverySucceeded:
			a.CallbackStatus = callbackDelivered
		case store.DeliveryFailed:
			a.CallbackStatus = callbackFailed
		default:
			a.CallbackStatus = callbackPending
		}
		if att == nil {
			return
		}
		a.CallbackAttempts = append(a.CallbackAttempts, store.CallbackAttempt{At: att.At, StatusCode: att.StatusCode, Error: att.Error})
		if d.Status == store.DeliveryPending {
			a.NextAttemptAt = val.UtcPtr(d.NextAttemptAt)
		}
	})
}
