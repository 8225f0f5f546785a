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
	subs []func(ev *store.Event)
}

// newEventBus returns a bus without subscribers.
func newEventBus() *EventBus { return &EventBus{} }

// Subscribe adds fn, called for every event while the store's write lock is
// held: it must not block and must not take the store lock.
func (b *EventBus) Subscribe(fn func(ev *store.Event)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.subs = append(b.subs, fn)
}

// Emit records an event of a business at a simulated time, with data (the
// resource) encoded as it is now, and hands it to the subscribers. The
// caller holds the store's write lock.
func (s *Platform) Emit(st *store.Store, businessID, eventType string, at time.Time, data any) *store.Event {
	raw, err := jsonview.EncodeJSON(data)
	if err != nil {
		raw = []byte("null")
	}
	ev := st.Events.Insert(&store.Event{Type: eventType, Timestamp: at.UTC(), Data: raw}, businessID, at)
	s.Bus.mu.Lock()
	subs := s.Bus.subs
	s.Bus.mu.Unlock()
	for _, fn := range subs {
		fn(ev)
	}
	return ev
}
