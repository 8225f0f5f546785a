package httpapi

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// Nullable shows an empty string as JSON null.
func Nullable(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// NullIfEmpty is s for a struct view's nullable member, nil (null) when
// *s is "". The view shares the record's string without a copy: views are
// encoded before the Tx that read the record ends, so before it can change.
func NullIfEmpty(s *string) *string {
	if *s == "" {
		return nil
	}
	return s
}

// Set copies *src into *dst when src is not nil.
func Set[T any](dst *T, src *T) {
	if src != nil {
		*dst = *src
	}
}

// Reachable returns a record of a business the caller has access to, or 404 (an
// absent and an inaccessible record look the same).
func Reachable[T store.Record](rc *Ctx, t *store.Table[T], id, what string) (T, error) {
	r, ok := t.Get(id)
	if !ok || rc.Principal == nil || !rc.Principal.Reaches(r.RecordOwner()) {
		var zero T
		return zero, NotFound(what + " not found: " + id)
	}
	return r, nil
}

// ReadOrList is the GET of a resource in the ?id= style: one record's
// view (404 when the caller has no access to it), or a page of the records
// of the caller's businesses (or of business_id), newest first, filtered
// by match, each shown by view, made into the response by page.
func ReadOrList[T store.Record, V any](rc *Ctx, t *store.Table[T], what string, match func(T) bool, view func(T) V, page func(items []V, more bool) any) (any, error) {
	if id := rc.Query("id"); id != "" {
		return readOne(rc, t, id, what, view)
	}
	owners, pq, err := rc.scopedPage()
	if err != nil {
		return nil, err
	}
	items, more := ListPage(t, owners, pq, match, view)
	return page(items, more), nil
}

// readOne is the ?id= read of ReadOrList.
func readOne[T store.Record, V any](rc *Ctx, t *store.Table[T], id, what string, view func(T) V) (any, error) {
	r, err := Reachable(rc, t, id, what)
	if err != nil {
		return nil, err
	}
	return view(r), nil
}

// scopedPage is the businesses and the page a ReadOrList list reads.
func (rc *Ctx) scopedPage() ([]string, PageQuery, error) {
	owners, err := rc.ScopedBusinesses()
	if err != nil {
		return nil, PageQuery{}, err
	}
	pq, err := rc.PageQuery(50, 100)
	return owners, pq, err
}

// MustJSON encodes a value the server built itself (it cannot fail).
func MustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic("mockserver: encoding " + err.Error())
	}
	return b
}

// Str is a string member of a decoded object ("" when absent or not a
// string).
func Str(v any) string {
	s, _ := v.(string)
	return s
}

// DeleteOwned is the DELETE ?id= of a resource: it removes a record the
// caller has access to and returns it.
func DeleteOwned[T store.Record](rc *Ctx, t *store.Table[T], what string) (T, error) {
	var zero T
	id, err := rc.RequireQuery("id")
	if err != nil {
		return zero, err
	}
	r, err := Reachable(rc, t, id, what)
	if err != nil {
		return zero, err
	}
	t.Delete(id)
	return r, nil
}

// Deleted is the response of a delete.
func Deleted(id string) map[string]any { return map[string]any{"success": true, "id": id} }

// UtcPtr returns a pointer to t in UTC.
func UtcPtr(t time.Time) *time.Time {
	t = t.UTC()
	return &t
}

// NonNil is a copy of s, empty rather than nil, so a view shows [] and
// never shares the store's slice.
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return slices.Clone(s)
}

// Strp returns a pointer to s.
func Strp(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// Later returns now, or a nanosecond after prev when now is not later, so
// updated_at always moves.
func Later(prev, now time.Time) time.Time {
	now = now.UTC()
	if !now.After(prev) {
		return prev.Add(time.Nanosecond)
	}
	return now
}

// FirstNonEmpty returns the first value that is not "".
func FirstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// DerefOrNil shows a nil string pointer as null.
func DerefOrNil(p *string) any {
	if p == nil {
		return nil
	}
	return *p
}

// ZeroTime is the "no bound" of Table.Scan.
var ZeroTime time.Time

// TimeOrNull shows a zero time as null.
func TimeOrNull(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC()
}

// Day is 24 hours.
const Day = 24 * time.Hour

// HeaderShouldRetry tells a client whether retrying a failed request can help.
const HeaderShouldRetry = "X-Voiceagent-Should-Retry"
