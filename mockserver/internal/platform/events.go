package platform

import (
	"sync"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// EventBus is the one event bus: every platform event is recorded in the
// store's event log and handed to each subscriber (webhook deliveries,
// waiting tests).
type EventBus struct {
	mu   sync.Mutex
	subs []func(tx *Tx, ev *store.Event)
}

// newEventBus returns a bus without subscribers.
func newEventBus() *EventBus { return &EventBus{} }

// Subscribe adds fn, called with the emitter's write Tx for every event: it
// must not block.
func (b *EventBus) Subscribe(fn func(tx *Tx, ev *store.Event)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.subs = append(b.subs, fn)
}

// Emit records an event of a business at a simulated time, with data (the
// resource) encoded as it is now, and hands it to the subscribers.
func (s *Platform) Emit(tx *Tx, businessID, eventType string, at time.Time, data any) *store.Event {
	raw, err := jsonview.EncodeJSON(data)
	if err != nil {
		raw = []byte("null")
	}
	ev := tx.Events.Insert(&store.Event{Type: eventType, Timestamp: at.UTC(), Data: raw}, businessID, at)
	s.Bus.mu.Lock()
	subs := s.Bus.subs
	s.Bus.mu.Unlock()
	for _, fn := range subs {
		fn(tx, ev)
	}
	return ev
}
