package hooks

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/voiceagent/voiceagent-go/events"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// maxReplayEvents bounds the events one POST /v1/events/replay re-delivers.
const maxReplayEvents = 1000

// eventView is an event of the log: the standard delivery body plus its
// created_at (the pagination cursor). An event without data shows
// "data": null.
func eventView(ev *store.Event) events.Event {
	data := ev.Data
	if len(data) == 0 {
		data = json.RawMessage("null")
	}
	return events.Event{
		Event: webhooks.Event{
			ID: ev.ID, Type: webhooks.EventType(ev.Type), BusinessID: ev.Owner, Timestamp: ev.Timestamp, Data: data,
		},
		CreatedAt: ev.CreatedAt,
	}
}

func (s *Service) listEvents(rc *httpapi.Ctx) (any, error) {
	var match func(*store.Event) bool
	if typ := rc.Query("type"); typ != "" {
		if !webhooks.IsEventType(typ) {
			return nil, domain.InvalidField("type", "unknown event type %q", typ)
		}
		match = func(ev *store.Event) bool { return ev.Type == typ }
	}
	return httpapi.ReadOrList(rc, rc.Tx.Events, "event", match, eventView, func(items []events.Event, more bool) any {
		return eventList{Events: items, HasMore: more}
	})
}

// eventList is a page of GET /v1/events.
type eventList struct {
	Events  []events.Event `json:"events"`
	HasMore bool           `json:"has_more"`
}

func (s *Service) replayEvents(rc *httpapi.Ctx) (any, error) {
	var body struct {
		EventIDs   []string   `json:"event_ids"`
		Since      *time.Time `json:"since"`
		Until      *time.Time `json:"until"`
		Types      []string   `json:"types"`
		BusinessID string     `json:"business_id"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	owners := rc.Principal.Businesses
	if body.BusinessID != "" {
		if _, err := rc.Business(body.BusinessID); err != nil {
			return nil, err
		}
		owners = []string{body.BusinessID}
	}
	var evs []*store.Event
	if body.EventIDs != nil {
		for _, id := range body.EventIDs {
			ev, err := httpapi.Reachable(rc, rc.Tx.Events, id, "event")
			if err != nil {
				return nil, err
			}
			if !slices.Contains(owners, ev.Owner) {
				return nil, domain.NotFound("event not found in business " + body.BusinessID + ": " + id)
			}
			evs = append(evs, ev)
		}
	} else {
		var until time.Time // zero: no bound (every event so far)
		if body.Until != nil {
			until = *body.Until
			if !until.After(*body.Since) {
				return nil, domain.InvalidField("/until", "must be after since")
			}
		}
		tooMany := false
		rc.Tx.Events.Scan(owners, until, func(ev *store.Event) bool {
			if ev.CreatedAt.Before(*body.Since) {
				return false
			}
			if len(body.Types) > 0 && !slices.Contains(body.Types, ev.Type) {
				return true
			}
			if len(evs) == maxReplayEvents {
				tooMany = true
				return false
			}
			evs = append(evs, ev)
			return true
		})
		if tooMany {
			return nil, domain.Invalid("more than %d events match: narrow since and until, or name types", maxReplayEvents)
		}
		slices.Reverse(evs) // oldest first
	}
	ids := []string{}
	for _, ev := range evs {
		for _, w := range rc.Tx.Webhooks.Owned(ev.Owner) {
			if w.Active && slices.Contains(w.Events, ev.Type) {
				ids = append(ids, s.enqueueDelivery(rc.Tx, w, ev).ID)
			}
		}
	}
	return events.ReplayResult{Events: len(evs), Deliveries: len(ids), DeliveryIDs: ids}, nil
}
