package mockserver

import (
	"encoding/json"
	"slices"
	"time"
)

// RecordedEvent is a platform event as the server recorded it on its event
// bus (the body of webhook deliveries and of the event log).
type RecordedEvent struct {
	ID         string         `json:"id"`
	Type       string         `json:"event"`
	BusinessID string         `json:"business_id"`
	Timestamp  time.Time      `json:"timestamp"`
	Data       map[string]any `json:"data"`
}

// RecordedEvents returns the events of a business, oldest first, only those
// of the given types when types are given. Tests use it to match
// communication run events back by external_ref and touch_id.
func (s *Server) RecordedEvents(businessID string, types ...string) []RecordedEvent {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := []RecordedEvent{}
	for _, ev := range s.st.Events.Owned(businessID) {
		if len(types) > 0 && !slices.Contains(types, ev.Type) {
			continue
		}
		e := RecordedEvent{ID: ev.ID, Type: ev.Type, BusinessID: ev.Owner, Timestamp: ev.Timestamp}
		_ = json.Unmarshal(ev.Data, &e.Data)
		out = append(out, e)
	}
	return out
}
