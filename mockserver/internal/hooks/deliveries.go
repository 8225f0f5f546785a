package hooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/watch"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// webhookRetrySchedule is the wait before each attempt of a delivery (see
// WebhookRetrySchedule, and docs/mockserver.md, section Deliveries).
var webhookRetrySchedule = [...]time.Duration{
	0, 5 * time.Second, 5 * time.Minute, 30 * time.Minute,
	2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour,
}

// maxDeliveryAttempts is the number of attempts of a delivery: 8.
const maxDeliveryAttempts = len(webhookRetrySchedule)

// WebhookRetrySchedule returns the wait before each attempt of a webhook
// delivery (subscription deliveries, per-call webhooks and approval
// callbacks alike), on the simulated clock: the first attempt immediately, then 5 seconds, 5
// minutes, 30 minutes, 2 hours, 5 hours, 10 hours and 10 hours after the
// previous failed attempt. After the eighth failure the delivery is failed
// (and replayable).
func WebhookRetrySchedule() []time.Duration { return slices.Clone(webhookRetrySchedule[:]) }

// deliveryEngine delivers events to subscriptions, the per-call webhooks
// of calls and every other kind of delivery registered with it, with one
// retry schedule and one delivery log. It subscribes to the event bus: the
// subscriber only records deliveries and starts or schedules attempts; HTTP
// happens on the outbound pool, outside any Tx, and results are
// recorded in a write Tx of their own. notify wakes the waiters of the delivery log
// (WaitDeliveries, the admin long poll) on every change.
type deliveryEngine struct {
	notify watch.Notifier
	kinds  map[string]DeliveryKind // by store.Delivery.Kind (RegisterDeliveryKind)

	// first are the first attempts in flight: the second attempt of a
	// delivery waits for its first (runAttempt).
	first firstAttempts
}

// firstAttempts holds, by delivery id, a channel closed once the first
// attempt of the delivery has its outcome recorded, while that attempt is
// in flight. A delivery whose first attempt is not in flight (it is over,
// or the task was rebuilt from data) has none. Its methods take its own
// lock.
type firstAttempts struct {
	mu sync.Mutex
	m  map[string]chan struct{}
}

// start records that the first attempt of delivery id is in flight and
// returns the channel done closes.
func (f *firstAttempts) start(id string) chan struct{} {
	ch := make(chan struct{})
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.m == nil {
		f.m = map[string]chan struct{}{}
	}
	f.m[id] = ch
	return ch
}

// done closes ch, the channel of the first attempt of delivery id, once
// its outcome is recorded.
func (f *firstAttempts) done(id string, ch chan struct{}) {
	f.mu.Lock()
	if f.m[id] == ch {
		delete(f.m, id)
	}
	f.mu.Unlock()
	close(ch)
}

// inFlight returns the channel of the first attempt of delivery id while
// it is in flight, else nil.
func (f *firstAttempts) inFlight(id string) chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.m[id]
}

// DeliveryKind is how the engine builds and follows one kind of delivery.
type DeliveryKind struct {
	// Request builds attempt n (the body was rendered at enqueue time); a non-empty cancel cancels the delivery with that reason instead.
	Request func(tx *platform.Tx, d *store.Delivery, n int, at, wall time.Time) (req OutboundRequest, shown map[string]string, cancel string)
	// Changed, when set, runs when a delivery of this kind starts (att nil) and after each recorded attempt, with a write Tx.
	Changed func(tx *platform.Tx, d *store.Delivery, att *store.DeliveryAttempt)
}

// startDeliveries creates the engine, defines the task of a delivery's
// attempt, registers the subscription and call-webhook kinds of delivery
// and subscribes the engine to the bus.
func (s *Service) startDeliveries() {
	s.engine = &deliveryEngine{kinds: map[string]DeliveryKind{}}
	s.DefineUnlockedTask(TaskDeliveryAttempt, s.runAttempt)
	s.Outbound.timeout = s.Config.Hooks.Timeout
	s.initOutbound()
	s.OnNewState(s.newState)
	s.RegisterDeliveryKind(store.DeliverySubscription, DeliveryKind{Request: subscriptionAttempt})
	s.RegisterDeliveryKind(store.DeliveryCallWebhook, DeliveryKind{Request: callWebhookAttempt})
	s.Bus.Subscribe(s.deliverEvent)
}

// RegisterDeliveryKind tells the engine how to build and follow deliveries
// of a kind. It is called while the server is made, before any delivery.
func (s *Service) RegisterDeliveryKind(kind string, k DeliveryKind) {
	s.engine.kinds[kind] = k
}

// newState wakes the waiters of the delivery log: a new store (a reset)
// has an empty one.
func (s *Service) newState(*platform.Tx) { s.engine.notify.Notify() }

// deliverEvent is the bus subscriber: one delivery per active subscription
// of the event's business that lists the event's type.
func (s *Service) deliverEvent(tx *platform.Tx, ev *store.Event) {
	for _, w := range tx.Webhooks.Owned(ev.Owner) {
		if w.Active && slices.Contains(w.Events, ev.Type) {
			s.enqueueDelivery(tx, w, ev)
		}
	}
}

// enqueueDelivery renders an event for a subscription, records the delivery
// and starts it.
func (s *Service) enqueueDelivery(tx *platform.Tx, w *store.Webhook, ev *store.Event) *store.Delivery {
	body, ct := renderDelivery(w, ev)
	return s.StartDelivery(tx, &store.Delivery{
		Kind: store.DeliverySubscription, MessageID: ev.ID, SubscriptionID: w.ID, BusinessID: ev.Owner,
		EventID: ev.ID, EventType: ev.Type, ContentType: ct, Body: body,
	})
}

// EnqueueCallWebhook starts the per-call webhook of call c, which ended with
// event ev (call.completed or call.failed): the flat body of spec section 6,
// posted to the call's webhook_url on the same engine and schedule as
// subscription deliveries, but unsigned (no secret belongs to a
// webhook_url). Its webhook-id is the id of the delivery.
func (s *Service) EnqueueCallWebhook(tx *platform.Tx, c *store.Call, ev *store.Event, body webhooks.CallWebhook) {
	// CallWebhook.MarshalJSON writes exactly the fields of the spec's body
	// for the event; it cannot fail.
	raw, _ := jsonview.Marshal(body)
	s.StartDelivery(tx, &store.Delivery{
		Kind: store.DeliveryCallWebhook, CallID: c.ID, URL: c.WebhookURL, BusinessID: c.Owner,
		EventID: ev.ID, EventType: ev.Type, ContentType: ContentTypeJSON, Body: raw,
	})
}

// StartDelivery records d as pending and posts its first attempt at once on
// the outbound pool, with the second attempt already on the clock 5 seconds
// later: that task waits for the first attempt's outcome and does nothing if
// it succeeded, so the schedule never depends on how fast the receiver
// responds. Later attempts run on the clock and Advance waits for their
// response, so one Advance covers a whole stretch of the schedule.
func (s *Service) StartDelivery(tx *platform.Tx, d *store.Delivery) *store.Delivery {
	tenant := tx.TenantOf(d.BusinessID)
	d.Tenant = tenant
	now := s.Now(tenant)
	d.ID = s.IDs.UUID()
	if d.MessageID == "" {
		d.MessageID = d.ID
	}
	d.Status = store.DeliveryPending
	d.CreatedAt = now.UTC()
	d.NextAttemptAt = now.UTC()
	tx.Deliveries.Add(d)
	s.deliveryUpdated(tx, d, nil)
	dropped := tx.Dropped // the store of this delivery, which a reset drops
	// The first attempt is in flight before the second is on the clock.
	first := s.engine.first.start(d.ID)
	cancelSecond := s.Schedule(tenant, clock.Task{At: now.Add(webhookRetrySchedule[1]), Kind: TaskDeliveryAttempt, Subject: d.ID, N: 2})
	att, ok := s.prepareAttempt(tx, d, 1, now)
	if !ok {
		s.engine.first.done(d.ID, first)
		return d
	}
	done := func(res outboundResult) {
		tx := s.WriteTx()
		finished := dropped() || s.recordAttempt(tx, d, att, res)
		tx.End()
		if finished {
			cancelSecond()
		}
		s.engine.first.done(d.ID, first)
		s.engine.notify.Notify()
	}
	if err := s.CheckTarget(att.req.URL); err != nil {
		go done(refusedResult(err)) // done begins a write Tx: not while tx is open
	} else {
		s.postOutbound(att.req, done)
	}
	s.engine.notify.Notify()
	return d
}

// runAttempt is the task TaskDeliveryAttempt: attempt t.N of delivery
// t.Subject at simulated time at, outside the state lock. The second
// attempt, put on the clock when the first started, first waits for the
// first attempt's outcome when it is still in flight, and does nothing
// when the first attempt succeeded; so the schedule never depends on how
// fast a receiver responds. A delivery gone from the log (a reset, or
// dropped past the log's bounds) or over is not attempted.
func (s *Service) runAttempt(_ string, at time.Time, t clock.Task) {
	if first := s.engine.first.inFlight(t.Subject); first != nil {
		select {
		case <-first:
		case <-s.Outbound.ctx.Done():
			return
		}
	}
	tx := s.WriteTx()
	d, ok := tx.Deliveries.Get(t.Subject)
	dropped := tx.Dropped
	tx.End()
	if ok {
		s.retryAttempt(dropped, d, t.N, at)
	}
}

// retryAttempt makes attempt n >= 2 of a delivery at simulated time at,
// waiting for the response, and schedules the next attempt when it failed.
// It runs on the clock, without the state lock while it waits; dropped
// reports whether a reset dropped the delivery's store.
func (s *Service) retryAttempt(dropped func() bool, d *store.Delivery, n int, at time.Time) {
	defer s.engine.notify.Notify()
	tx := s.WriteTx()
	att, ok := preparedAttempt{}, false
	if !dropped() {
		att, ok = s.prepareAttempt(tx, d, n, at)
	}
	tx.End()
	if !ok {
		return
	}
	res, ok := s.sendAttempt(att)
	if !ok {
		return
	}
	tx = s.WriteTx()
	defer tx.End()
	if !dropped() && !s.recordAttempt(tx, d, att, res) {
		s.Schedule(tx.TenantOf(d.BusinessID), clock.Task{At: d.NextAttemptAt, Kind: TaskDeliveryAttempt, Subject: d.ID, N: n + 1})
	}
}

// postOutboundWait is postOutbound for a caller that waits for the response
// (a delivery retry running on the clock, so that Advance covers it). ok is
// false when the server closed first.
func (s *Service) postOutboundWait(req OutboundRequest) (res outboundResult, ok bool) {
	ch := make(chan outboundResult, 1)
	s.postOutbound(req, func(r outboundResult) { ch <- r })
	select {
	case res = <-ch:
		return res, true
	case <-s.Outbound.ctx.Done():
		return outboundResult{}, false
	}
}

// sendAttempt posts a prepared attempt and waits for the response; a receiver
// the server may not call fails at once without a connection. ok is false
// when the server closed first.
func (s *Service) sendAttempt(att preparedAttempt) (outboundResult, bool) {
	if err := s.CheckTarget(att.req.URL); err != nil {
		return refusedResult(err), true
	}
	return s.postOutboundWait(att.req)
}

// CheckTarget parses a receiver URL and tells whether the server may call
// it now (allowedTarget), saying why not.
func (s *Service) CheckTarget(raw string) error { return s.checkURL(raw, false) }

// CheckReceiver tells whether a receiver URL may be saved (a
// subscription's webhook_url, an approval request's callback_url), saying
// why not: the rules of CheckTarget, except that
// an https host outside loopback is accepted without
// WithExternalWebhooks(true) (its deliveries fail, saying why).
func (s *Service) CheckReceiver(raw string) error { return s.checkURL(raw, true) }

func (s *Service) checkURL(raw string, saving bool) error {
	u, err := url.Parse(raw)
	if err != nil {
		return fmt.Errorf("%w: %q is not a URL", errTargetRefused, raw)
	}
	return s.allowedTarget(u, saving)
}

// preparedAttempt is an attempt built in a Tx (prepareAttempt), ready to
// post outside it.
type preparedAttempt struct {
	n     int
	at    time.Time // simulated
	wall  time.Time // webhook-timestamp
	req   OutboundRequest
	shown map[string]string
}

// prepareAttempt builds attempt n, or reports false when the delivery is
// over (finished, canceled, or its store dropped by a reset); a delivery its
// kind cancels (a subscription deleted or deactivated since) is canceled
// here.
func (s *Service) prepareAttempt(tx *platform.Tx, d *store.Delivery, n int, at time.Time) (preparedAttempt, bool) {
	if tx.Dropped() || d.Status != store.DeliveryPending {
		return preparedAttempt{}, false
	}
	k, ok := s.engine.kinds[d.Kind]
	if !ok {
		cancelDelivery(d, "unknown delivery kind "+d.Kind) // every kind is registered by New
		return preparedAttempt{}, false
	}
	att := preparedAttempt{n: n, at: at.UTC(), wall: time.Now().UTC()}
	var cancel string
	att.req, att.shown, cancel = k.Request(tx, d, n, at, att.wall)
	if cancel != "" {
		cancelDelivery(d, cancel)
		return preparedAttempt{}, false
	}
	return att, true
}

// subscriptionAttempt builds attempt n of a delivery to a subscription, or
// cancels it when the subscription was deleted or deactivated.
func subscriptionAttempt(tx *platform.Tx, d *store.Delivery, n int, at, wall time.Time) (req OutboundRequest, shown map[string]string, cancel string) {
	w, ok := tx.Webhooks.Get(d.SubscriptionID)
	if !ok || !w.Active {
		reason := "the subscription was deleted"
		if ok {
			reason = "the subscription was deactivated"
		}
		return OutboundRequest{}, nil, reason
	}
	req, shown = deliveryRequest(w, d, n, at, wall)
	return req, shown, ""
}

// callWebhookAttempt builds attempt n of a per-call webhook.
func callWebhookAttempt(_ *platform.Tx, d *store.Delivery, n int, _, _ time.Time) (req OutboundRequest, shown map[string]string, cancel string) {
	req, shown = callWebhookRequest(d, n)
	return req, shown, ""
}

// recordAttempt records an attempt's result and moves the delivery on:
// succeeded on a 2xx, failed after the last attempt or at once when the
// receiver is one the server may not call (with the refusal as its
// reason: retrying could not help), otherwise the time of the next
// attempt. It reports whether the delivery is finished.
func (s *Service) recordAttempt(tx *platform.Tx, d *store.Delivery, att preparedAttempt, res outboundResult) (finished bool) {
	errText := res.err
	if errText == "" && !res.ok() {
		errText = fmt.Sprintf("the receiver answered %d", res.status)
	}
	d.Attempts = append(d.Attempts, store.DeliveryAttempt{
		N: att.n, At: att.at, SentAt: att.wall, URL: httpapi.RedactURL(att.req.URL), Method: att.req.Method, Headers: att.shown,
		StatusCode: res.status, Error: errText, Duration: res.duration, Response: string(res.answer),
	})
	tx.Deliveries.Recount(d)
	s.logAttempt(d, att, res, errText)
	if tx.Dropped() || d.Status != store.DeliveryPending {
		return true
	}
	switch {
	case res.ok():
		d.Status, d.NextAttemptAt = store.DeliverySucceeded, time.Time{}
	case res.refused:
		d.Status, d.NextAttemptAt, d.Reason = store.DeliveryFailed, time.Time{}, errText
	case att.n >= maxDeliveryAttempts:
		d.Status, d.NextAttemptAt = store.DeliveryFailed, time.Time{}
	default:
		d.NextAttemptAt = att.at.Add(webhookRetrySchedule[att.n])
	}
	s.deliveryUpdated(tx, d, &d.Attempts[len(d.Attempts)-1])
	return d.Status != store.DeliveryPending
}

// logAttempt writes an attempt to the WithLogger logger at debug level (the
// binary's -v): the delivery, the attempt, the receiver (its URL without
// the query, which may hold a token) and the outcome; never a header or a
// body.
func (s *Service) logAttempt(d *store.Delivery, att preparedAttempt, res outboundResult, errText string) {
	ctx := context.Background()
	if !s.Config.Logger.Enabled(ctx, slog.LevelDebug) {
		return
	}
	receiver := att.req.URL
	if u, err := url.Parse(receiver); err == nil {
		u.RawQuery, u.Fragment, u.User = "", "", nil
		receiver = u.String()
	}
	if len(receiver) > maxLoggedURL {
		receiver = receiver[:maxLoggedURL] + "..."
	}
	attrs := []slog.Attr{
		slog.String("delivery_id", d.ID), slog.String("kind", d.Kind), slog.String("event", d.EventType),
		slog.Int("attempt", att.n), slog.String("method", att.req.Method), slog.String("receiver", receiver),
		slog.Int("status", res.status),
	}
	if errText != "" {
		attrs = append(attrs, slog.String("error", errText))
	}
	attrs = append(attrs, slog.Duration("duration", res.duration))
	s.Config.Logger.LogAttrs(ctx, slog.LevelDebug, "mockserver webhook attempt", attrs...)
}

// maxLoggedURL caps the receiver URL in a log line.
const maxLoggedURL = 200

// deliveryUpdated is the engine's outcome hook: it runs when a delivery
// starts (att nil) and after each attempt is recorded, so the record a
// delivery belongs to can follow it (its kind's changed).
func (s *Service) deliveryUpdated(tx *platform.Tx, d *store.Delivery, att *store.DeliveryAttempt) {
	if changed := s.engine.kinds[d.Kind].Changed; changed != nil {
		changed(tx, d, att)
	}
}

// deliveryRequest builds attempt n of a delivery to a subscription as it is
// now (URL, method, headers and secrets are read at each attempt; the body
// was rendered when the event happened): signed with webhooks.SignHeaders
// at the wall-clock time wall, by every secret active at the simulated time
// at. shown is the headers for the delivery log, custom values redacted.
func deliveryRequest(w *store.Webhook, d *store.Delivery, n int, at, wall time.Time) (req OutboundRequest, shown map[string]string) {
	h := http.Header{}
	for name, v := range w.CustomHeaders {
		h.Set(name, v)
	}
	// The secrets are well-formed (the server made them) and the message id
	// is a uuid, so signing cannot fail.
	signed, _ := webhooks.SignHeaders(activeSecrets(w, at), d.MessageID, wall, d.Body)
	maps.Copy(h, signed)
	return AttemptRequest(w.HTTPMethod, w.URL, h, d, n, w.CustomHeaders)
}

// callWebhookRequest builds attempt n of a per-call webhook: a POST to the
// call's webhook_url with the webhook-id header and no signature.
func callWebhookRequest(d *store.Delivery, n int) (req OutboundRequest, shown map[string]string) {
	h := http.Header{}
	h.Set(webhooks.HeaderID, d.MessageID)
	return AttemptRequest(http.MethodPost, d.URL, h, d, n, nil)
}

// AttemptRequest completes the headers every attempt carries (Content-Type,
// X-Voiceagent-Event, X-Voiceagent-Attempt, a default User-Agent) and
// returns the request with the headers for the delivery log, the values of
// the redacted names (custom headers) and of secret names
// (httpapi.IsSecretName) hidden.
func AttemptRequest(method, url string, h http.Header, d *store.Delivery, n int, redacted map[string]string) (req OutboundRequest, shown map[string]string) {
	h.Set("Content-Type", d.ContentType)
	h.Set(webhooks.HeaderEvent, d.EventType)
	h.Set(webhooks.HeaderAttempt, strconv.Itoa(n))
	if h.Get("User-Agent") == "" {
		h.Set("User-Agent", "voiceagent-mock-webhooks/1")
	}
	shown = make(map[string]string, len(h))
	for k, vs := range h {
		shown[k] = strings.Join(vs, ", ")
		if _, custom := redacted[k]; custom || httpapi.IsSecretName(k) {
			shown[k] = redactedValue
		}
	}
	return OutboundRequest{Method: method, URL: url, Body: d.Body, Header: h}, shown
}

// redactedValue stands for a custom header's value in the delivery log.
const redactedValue = "[redacted]"

func cancelDelivery(d *store.Delivery, reason string) {
	d.Status, d.NextAttemptAt, d.Reason = store.DeliveryCanceled, time.Time{}, reason
}

// cancelDeliveries cancels the pending deliveries of a subscription.
func (s *Service) cancelDeliveries(tx *platform.Tx, subscriptionID, reason string) {
	tx.Deliveries.Each(func(d *store.Delivery) bool {
		if d.Kind == store.DeliverySubscription && d.SubscriptionID == subscriptionID && d.Status == store.DeliveryPending {
			cancelDelivery(d, reason)
		}
		return true
	})
	s.engine.notify.Notify()
}

func deliveryView(d *store.Delivery) admin.Delivery {
	var v admin.Delivery
	fillDeliveryView(&v, d)
	v.Attempts = slices.Clone(v.Attempts)
	return v
}

// fillDeliveryView writes d's view into v, reusing v's attempts slice (so a
// scan can test every delivery without allocating).
func fillDeliveryView(v *admin.Delivery, d *store.Delivery) {
	attempts := v.Attempts[:0]
	*v = admin.Delivery{
		ID: d.ID, Kind: admin.DeliveryKind(d.Kind), MessageID: d.MessageID, SubscriptionID: d.SubscriptionID, CallID: d.CallID,
		ApprovalRequestID: d.ApprovalRequestID, BusinessID: d.BusinessID, Tenant: d.Tenant,
		EventID: d.EventID, Event: d.EventType, ContentType: d.ContentType, Body: string(d.Body),
		Status: admin.DeliveryStatus(d.Status), ReplayOf: d.ReplayOf, Reason: d.Reason, CreatedAt: d.CreatedAt,
	}
	if !d.NextAttemptAt.IsZero() {
		t := d.NextAttemptAt
		v.NextAttemptAt = &t
	}
	for _, a := range d.Attempts {
		attempts = append(attempts, admin.DeliveryAttempt{
			Attempt: a.N, At: a.At, SentAt: a.SentAt, URL: a.URL, Method: a.Method,
			RequestHeaders: a.Headers, StatusCode: a.StatusCode, Error: a.Error,
			DurationMS: float64(a.Duration.Microseconds()) / 1000, Response: a.Response,
		})
	}
	v.Attempts = attempts
}

// Deliveries returns the deliveries in the log that pass the filter, oldest
// first.
func (s *Service) Deliveries(f admin.DeliveryFilter) []admin.Delivery {
	return s.deliveries(f.Match)
}

func (s *Service) deliveries(match func(*admin.Delivery) bool) []admin.Delivery {
	_, out := s.scanDeliveries(match, true)
	return out
}

// scanDeliveries counts the deliveries that match and, when collect is set,
// returns them. The match function sees a scratch view it must not keep.
func (s *Service) scanDeliveries(match func(*admin.Delivery) bool, collect bool) (int, []admin.Delivery) {
	tx := s.ReadTx()
	defer tx.End()
	n, out := 0, []admin.Delivery{}
	var scratch admin.Delivery
	tx.Deliveries.Each(func(d *store.Delivery) bool {
		if match != nil {
			fillDeliveryView(&scratch, d)
			if !match(&scratch) {
				return true
			}
		}
		n++
		if collect {
			out = append(out, deliveryView(d))
		}
		return true
	})
	return n, out
}

// WaitDeliveries waits until at least one delivery matches (nil: any), or
// ctx ends, and returns the matching ones, oldest first. Deliveries happen
// in the background: wait for them instead of sleeping. match must not keep
// the pointer it is given.
func (s *Service) WaitDeliveries(ctx context.Context, match func(*admin.Delivery) bool) []admin.Delivery {
	return s.WaitDeliveryCount(ctx, 1, match)
}

// WaitDeliveryCount waits until at least n deliveries match (nil: any), or
// ctx ends, and returns the matching ones, oldest first.
func (s *Service) WaitDeliveryCount(ctx context.Context, n int, match func(*admin.Delivery) bool) []admin.Delivery {
	s.engine.notify.Wait(ctx, func() bool {
		count, _ := s.scanDeliveries(match, false)
		return count >= n
	})
	return s.deliveries(match)
}

// Errors of ReplayDelivery.
var (
	// ErrDeliveryNotFound is a delivery id the log does not hold (never
	// made, or pushed out of the ring buffer).
	ErrDeliveryNotFound = errors.New("mockserver: no such delivery in the log")
	// ErrDeliveryNotReplayable is a subscription delivery whose
	// subscription is gone or inactive.
	ErrDeliveryNotReplayable = errors.New("mockserver: a subscription's delivery is replayable only while the subscription exists and is active")
)

// ReplayDelivery sends any delivery again, whatever its status: a new
// delivery with the same message id (webhook-id) and body, with a fresh
// retry schedule, to the subscription as it is now (or to the call's
// webhook_url, or the approval request's callback_url, signed with its
// secret; the request's callback status follows the replay). A replay of a
// succeeded delivery is a duplicate by its webhook-id, which is how a test
// checks that a receiver deduplicates; a pending delivery keeps its own
// schedule beside its replay's.
func (s *Service) ReplayDelivery(id string) (admin.Delivery, error) {
	tx := s.WriteTx()
	defer tx.End()
	d, err := s.replayDeliveryLocked(tx, id)
	if err != nil {
		return admin.Delivery{}, err
	}
	return deliveryView(d), nil
}

func (s *Service) replayDeliveryLocked(tx *platform.Tx, id string) (*store.Delivery, error) {
	old, ok := tx.Deliveries.Get(id)
	if !ok {
		return nil, ErrDeliveryNotFound
	}
	if old.Kind == store.DeliverySubscription {
		if w, ok := tx.Webhooks.Get(old.SubscriptionID); !ok || !w.Active {
			return nil, ErrDeliveryNotReplayable
		}
	}
	return s.StartDelivery(tx, &store.Delivery{
		Kind: old.Kind, MessageID: old.MessageID, SubscriptionID: old.SubscriptionID, CallID: old.CallID,
		ApprovalRequestID: old.ApprovalRequestID, URL: old.URL,
		BusinessID: old.BusinessID, EventID: old.EventID, EventType: old.EventType, ContentType: old.ContentType,
		Body: old.Body, ReplayOf: old.ID,
	}), nil
}

func (s *Service) adminDeliveries(rc *httpapi.Ctx) (any, error) {
	poll, err := rc.LongPoll()
	if err != nil {
		return nil, err
	}
	f := admin.DeliveryFilter{
		Kind: admin.DeliveryKind(rc.Query("kind")), SubscriptionID: rc.Query("subscription_id"), CallID: rc.Query("call_id"),
		ApprovalRequestID: rc.Query("approval_request_id"),
		EventID:           rc.Query("event_id"), Event: rc.Query("event"), Status: admin.DeliveryStatus(rc.Query("status")),
	}
	if id := rc.Query("business_id"); id != "" {
		if f.Tenant, err = rc.API.TenantOfBusiness(id); err != nil {
			return nil, err
		}
	}
	if f.MinAttempts, err = rc.IntQuery("min_attempts", 0, 0, maxDeliveryAttempts); err != nil {
		return nil, err
	}
	count, err := rc.IntQuery("count", 1, 1, 100_000)
	if err != nil {
		return nil, err
	}
	if f.Status != "" && !slices.Contains([]admin.DeliveryStatus{admin.DeliveryPending, admin.DeliverySucceeded, admin.DeliveryFailed, admin.DeliveryCanceled}, f.Status) {
		return nil, domain.InvalidField("status", "must be pending, succeeded, failed or canceled")
	}
	if f.Kind != "" && !slices.Contains([]admin.DeliveryKind{admin.DeliveryKindSubscription, admin.DeliveryKindCallWebhook, admin.DeliveryKindApprovalCallback}, f.Kind) {
		return nil, domain.InvalidField("kind", "must be subscription, call_webhook or approval_callback")
	}
	poll(func(ctx context.Context) { s.WaitDeliveryCount(ctx, count, f.Match) })
	return map[string]any{"deliveries": s.Deliveries(f), "cap": s.deliveryLogCap()}, nil
}

func (s *Service) deliveryLogCap() int {
	tx := s.ReadTx()
	defer tx.End()
	return tx.Deliveries.Cap()
}

func (s *Service) adminReplayDelivery(rc *httpapi.Ctx) (any, error) {
	var body struct {
		DeliveryID string `json:"delivery_id"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	d, err := s.replayDeliveryLocked(rc.Tx, body.DeliveryID)
	switch {
	case errors.Is(err, ErrDeliveryNotFound):
		return nil, domain.NotFound("delivery not found: " + body.DeliveryID)
	case err != nil:
		return nil, domain.New(voiceagent.CodeConflict,
			"a subscription's delivery can be replayed only while the subscription exists and is active")
	}
	return httpapi.Created(deliveryView(d)), nil
}

// adminEmitEvent records an event of a business with the request's data
// (nil gives the sample data of the type, webhooks.SampleData, from the
// business's records) as if the platform produced it now, and delivers it
// to the business's subscriptions: POST /_mock/events.
func (s *Service) adminEmitEvent(rc *httpapi.Ctx) (any, error) {
	var body struct {
		BusinessID string             `json:"business_id"`
		Event      webhooks.EventType `json:"event"`
		Data       map[string]any     `json:"data"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	if _, ok := rc.Tx.Businesses.Get(body.BusinessID); !ok {
		return nil, domain.NotFound("business not found: " + body.BusinessID)
	}
	var data any = body.Data
	if body.Data == nil {
		data = json.RawMessage(s.sampleData(rc.Tx, body.BusinessID, body.Event))
	}
	ev := s.Emit(rc.Tx, body.BusinessID, body.Event, s.Now(rc.Tx.TenantOf(body.BusinessID)), data)
	return httpapi.Created(eventView(ev)), nil
}
