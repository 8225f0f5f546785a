package store

import (
	"reflect"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/ring"
)

// Delivery states.
const (
	DeliveryPending   = "pending"   // an attempt is due or running
	DeliverySucceeded = "succeeded" // a receiver responded 2xx
	DeliveryFailed    = "failed"    // every attempt failed; replayable
	DeliveryCanceled  = "canceled"  // the subscription was deleted or deactivated (subscriptions only)
)

// Delivery kinds: what a delivery goes to.
const (
	DeliverySubscription = "subscription" // an event rendered for a webhook subscription
	DeliveryCallWebhook  = "call_webhook" // the flat body posted to the webhook_url of a call
	// DeliveryApprovalCallback is the decision of an approval request
	// posted to its callback_url, signed with the request's secret.
	DeliveryApprovalCallback = "approval_callback"
)

// Delivery is one message to one receiver, and every attempt to post it:
// an event rendered for a subscription, the per-call webhook of a call, or
// the callback of an approval request.
type Delivery struct {
	ID   string
	Kind string // DeliverySubscription, DeliveryCallWebhook or DeliveryApprovalCallback
	// MessageID is the webhook-id header: the event id for a subscription,
	// the id of the first delivery for a per-call webhook, the callback's
	// event id for an approval callback.
	MessageID         string
	SubscriptionID    string // subscription deliveries
	CallID            string // per-call webhooks
	ApprovalRequestID string // approval callbacks
	// URL is the receiver of a per-call webhook or an approval callback (a
	// subscription's URL is read at each attempt).
	URL           string
	BusinessID    string
	Tenant        string // the business's tenant (its root business)
	EventID       string
	EventType     string
	ContentType   string
	Body          []byte
	Status        string
	Attempts      []DeliveryAttempt
	NextAttemptAt time.Time // zero when no attempt is scheduled
	ReplayOf      string    // the delivery this one replays, if any
	CreatedAt     time.Time // simulated time
	// Reason says why a delivery was canceled, or why it failed at once.
	Reason string
}

// DeliveryAttempt is one HTTP request of a delivery.
type DeliveryAttempt struct {
	N          int
	At         time.Time // simulated time of the attempt
	SentAt     time.Time // wall-clock time (the webhook-timestamp)
	URL        string
	Method     string
	Headers    map[string]string // custom header values redacted
	StatusCode int               // 0 when no response came
	Error      string
	Duration   time.Duration
	Response   string // the start of the receiver's response
}

// deliveryOverhead and attemptOverhead are what a delivery and an attempt
// cost besides the bytes of their strings: their structs, a header map,
// the log's slot and index entry.
var (
	deliveryOverhead = int64(reflect.TypeFor[Delivery]().Size()) + 64
	attemptOverhead  = int64(reflect.TypeFor[DeliveryAttempt]().Size()) + 48
)

// DeliveryBytes is what a delivery counts against the delivery log's byte
// bound: its struct, its strings and body, and each attempt with its URL,
// headers, error and the receiver's response.
func DeliveryBytes(d *Delivery) int64 {
	n := deliveryOverhead + int64(len(d.ID)+len(d.Kind)+len(d.MessageID)+len(d.SubscriptionID)+len(d.CallID)+
		len(d.ApprovalRequestID)+len(d.URL)+len(d.BusinessID)+len(d.EventID)+len(d.EventType)+len(d.ContentType)+
		len(d.Body)+len(d.Status)+len(d.ReplayOf)+len(d.Reason))
	for i := range d.Attempts {
		a := &d.Attempts[i]
		n += attemptOverhead + int64(len(a.URL)+len(a.Method)+len(a.Error)+len(a.Response))
		for k, v := range a.Headers {
			n += int64(len(k) + len(v) + 16)
		}
	}
	return n
}

// DeliveryLog keeps the newest deliveries of each tenant (Delivery.Tenant;
// "" for deliveries of no tenant), bounded per tenant in deliveries and in
// bytes (DeliveryBytes, counted when a delivery is added and again when it
// grows, Recount): past either bound, the tenant's oldest go. The newest
// delivery of a tenant always stays, and no tenant's deliveries push out
// another's.
type DeliveryLog struct {
	log  *ring.Log[*Delivery]
	byID map[string]int64 // number in log by id
}

// NewDeliveryLog returns an empty log keeping size deliveries (at least 1)
// within maxBytes of each tenant.
func NewDeliveryLog(size int, maxBytes int64) *DeliveryLog {
	l := &DeliveryLog{byID: map[string]int64{}}
	l.log = ring.New(size, maxBytes, 0, func(_ int64, d **Delivery) { delete(l.byID, (*d).ID) })
	return l
}

// Cap returns how many deliveries the log keeps at most of each tenant.
func (l *DeliveryLog) Cap() int { return l.log.Cap() }

// Usage returns how many deliveries the log keeps and their bytes.
func (l *DeliveryLog) Usage() (deliveries int, bytes int64) { return l.log.Len(), l.log.Bytes() }

// TenantUsage returns how many deliveries the log keeps of tenant, and
// their bytes.
func (l *DeliveryLog) TenantUsage(tenant string) (deliveries int, bytes int64) {
	return l.log.Bucket(tenant)
}

// Add appends d, dropping the oldest deliveries of its tenant past the
// bounds.
func (l *DeliveryLog) Add(d *Delivery) {
	l.byID[d.ID] = l.log.Push(d.Tenant, d, DeliveryBytes(d))
}

// Recount counts a kept delivery's bytes again after it changed (an
// attempt was recorded), dropping the oldest deliveries of its tenant past
// the bound.
func (l *DeliveryLog) Recount(d *Delivery) {
	if seq, ok := l.byID[d.ID]; ok {
		l.log.Recount(seq, DeliveryBytes(d))
	}
}

// Get returns a kept delivery by id.
func (l *DeliveryLog) Get(id string) (*Delivery, bool) {
	seq, ok := l.byID[id]
	if !ok {
		return nil, false
	}
	return *l.log.At(seq), true
}

// Each calls fn for every kept delivery, oldest first, until fn returns
// false.
func (l *DeliveryLog) Each(fn func(*Delivery) bool) {
	l.log.Each(func(_ int64, d **Delivery) bool { return fn(*d) })
}

// Remove drops every kept delivery that match reports true for, keeping
// the others as they are.
func (l *DeliveryLog) Remove(match func(*Delivery) bool) {
	var gone []*Delivery
	l.Each(func(d *Delivery) bool {
		if match(d) {
			gone = append(gone, d)
		}
		return true
	})
	for _, d := range gone {
		l.log.Remove(l.byID[d.ID])
		delete(l.byID, d.ID)
	}
}

func (l *DeliveryLog) has(id string) bool { _, ok := l.byID[id]; return ok }
