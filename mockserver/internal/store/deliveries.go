package store

import "time"

// Delivery states.
const (
	DeliveryPending   = "pending"   // an attempt is due or running
	DeliverySucceeded = "succeeded" // a receiver answered 2xx
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
	// Reason says why a delivery was canceled.
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
	StatusCode int               // 0 when no answer came
	Error      string
	Duration   time.Duration
	Response   string // the start of the receiver's answer
}

// DefaultDeliveryLogSize is how many deliveries the log keeps by default.
const DefaultDeliveryLogSize = 10_000

// DeliveryLog is a ring buffer of the newest deliveries: when it is full,
// adding one drops the oldest.
type DeliveryLog struct {
	buf  []*Delivery
	next int // total deliveries ever added
	byID map[string]*Delivery
}

// NewDeliveryLog returns an empty log keeping size deliveries (at least 1).
func NewDeliveryLog(size int) *DeliveryLog {
	return &DeliveryLog{buf: make([]*Delivery, max(size, 1)), byID: map[string]*Delivery{}}
}

// Cap returns how many deliveries the log keeps.
func (l *DeliveryLog) Cap() int { return len(l.buf) }

// Add appends d, dropping the oldest delivery when the log is full.
func (l *DeliveryLog) Add(d *Delivery) {
	i := l.next % len(l.buf)
	if old := l.buf[i]; old != nil {
		delete(l.byID, old.ID)
	}
	l.buf[i] = d
	l.byID[d.ID] = d
	l.next++
}

// Get returns a kept delivery by id.
func (l *DeliveryLog) Get(id string) (*Delivery, bool) {
	d, ok := l.byID[id]
	return d, ok
}

// Each calls fn for every kept delivery, oldest first, until fn returns
// false.
func (l *DeliveryLog) Each(fn func(*Delivery) bool) {
	first := max(l.next-len(l.buf), 0)
	for n := first; n < l.next; n++ {
		if !fn(l.buf[n%len(l.buf)]) {
			return
		}
	}
}
