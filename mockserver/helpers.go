package mockserver

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// nullable shows an empty string as JSON null.
func nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// set copies *src into *dst when src is not nil.
func set[T any](dst *T, src *T) {
	if src != nil {
		*dst = *src
	}
}

// reachable returns a record of a business the caller reaches, or 404 (an
// absent and an inaccessible record look the same).
func reachable[T store.Record](rc *reqCtx, t *store.Table[T], id, what string) (T, error) {
	r, ok := t.Get(id)
	if !ok || rc.p == nil || !rc.p.reaches(r.RecordOwner()) {
		var zero T
		return zero, errNotFound(what + " not found: " + id)
	}
	return r, nil
}

// readOrList answers the GET of a resource in the ?id= style: one record
// (404 when the caller does not reach it), or a page of the records of the
// caller's businesses (or of business_id), newest first, filtered by match.
func readOrList[T store.Record](rc *reqCtx, t *store.Table[T], what, key string, match func(T) bool, view func(T) map[string]any) (any, error) {
	if id := rc.query("id"); id != "" {
		r, err := reachable(rc, t, id, what)
		if err != nil {
			return nil, err
		}
		return view(r), nil
	}
	owners, err := rc.scopedBusinesses()
	if err != nil {
		return nil, err
	}
	pq, err := rc.pageQuery(50, 100)
	if err != nil {
		return nil, err
	}
	items, more := listPage(t, owners, pq, match, view)
	return map[string]any{key: items, "has_more": more}, nil
}

// mustJSON encodes a value the server built itself (it cannot fail).
func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("mockserver: encoding " + err.Error())
	}
	return b
}

// str is a string member of a decoded object ("" when absent or not a
// string).
func str(v any) string {
	s, _ := v.(string)
	return s
}

// deleteOwned is the DELETE ?id= of a resource: it removes a record the
// caller reaches and returns it.
func deleteOwned[T store.Record](rc *reqCtx, t *store.Table[T], what string) (T, error) {
	var zero T
	id, err := rc.requireQuery("id")
	if err != nil {
		return zero, err
	}
	r, err := reachable(rc, t, id, what)
	if err != nil {
		return zero, err
	}
	t.Delete(id)
	return r, nil
}

// deleted is the answer of a delete.
func deleted(id string) map[string]any { return map[string]any{"success": true, "id": id} }

// utcPtr returns a pointer to t in UTC.
func utcPtr(t time.Time) *time.Time {
	t = t.UTC()
	return &t
}

// nonNil is a copy of s, empty rather than nil, so a view shows [] and
// never shares the store's slice.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return slices.Clone(s)
}

func strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// later returns now, or a nanosecond after prev when now is not later, so
// updated_at always moves.
func later(prev, now time.Time) time.Time {
	now = now.UTC()
	if !now.After(prev) {
		return prev.Add(time.Nanosecond)
	}
	return now
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

func derefOrNil(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// zeroTime is the "no bound" of Table.Scan.
var zeroTime time.Time

// timeOrNull shows a zero time as null.
func timeOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC()
}

// day is 24 hours.
const day = 24 * time.Hour

// headerShouldRetry tells a client whether retrying a failed request can help.
const headerShouldRetry = "X-Voiceagent-Should-Retry"
