package httpapi

import (
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

// Strp returns a pointer to s, nil for "".
func Strp[S ~string](s S) *S {
	if s == "" {
		return nil
	}
	return &s
}

// Strings returns a copy of in as another string type: a record's []string
// as the SDK's []voiceagent.Scope, for example.
func Strings[T, S ~string](in []S) []T {
	out := make([]T, len(in))
	for i, s := range in {
		out[i] = T(s)
	}
	return out
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

// PageQuery is a list request's limit and cursor, and optionally a time
// window that handlers with start/end parameters set.
type PageQuery struct {
	Limit int
	After time.Time // zero: from the newest
	Since time.Time // zero: no lower bound; else created_at >= since
	Until time.Time // zero: no upper bound; else created_at < until
}

// PageQuery parses limit (default def, 1..max) and after (the created_at of
// the last item seen, RFC 3339). Out-of-range values are 400
// invalid_request, not clamped, so a caller learns the bound.
func (rc *Ctx) PageQuery(def, maxLimit int) (PageQuery, error) {
	limit, err := rc.IntQuery("limit", def, 1, maxLimit)
	if err != nil {
		return PageQuery{}, err
	}
	pq := PageQuery{Limit: limit}
	if a := rc.Query("after"); a != "" {
		t, err := time.Parse(time.RFC3339Nano, a)
		if err != nil {
			return PageQuery{}, InvalidField("after", "must be an RFC 3339 timestamp (the created_at of the last item)")
		}
		pq.After = t
	}
	return pq, nil
}

// ListQuery reads what every list of business records starts with: the
// page (limit default def, at most maxLimit; after) and the businesses the
// list covers (see Ctx.ScopedBusinesses).
func (rc *Ctx) ListQuery(def, maxLimit int) (PageQuery, []string, error) {
	pq, err := rc.PageQuery(def, maxLimit)
	if err != nil {
		return PageQuery{}, nil, err
	}
	owners, err := rc.ScopedBusinesses()
	return pq, owners, err
}

// ListPage is the one pagination helper: a page of the table's records of
// the owners, newest first, filtered by match (nil: all) and shown by view,
// and whether more follow.
func ListPage[T store.Record, V any](t *store.Table[T], owners []string, pq PageQuery, match func(T) bool, view func(T) V) ([]V, bool) {
	recs, more := PageRecords(t, owners, pq, match)
	out := make([]V, len(recs))
	for i, r := range recs {
		out[i] = view(r)
	}
	return out, more
}

// PageRecords is ListPage without views: the page's records themselves.
func PageRecords[T store.Record](t *store.Table[T], owners []string, pq PageQuery, match func(T) bool) ([]T, bool) {
	before := pq.After
	if !pq.Until.IsZero() && (before.IsZero() || pq.Until.Before(before)) {
		before = pq.Until
	}
	return t.PageBetween(owners, pq.Since, before, pq.Limit, match)
}

// TimeQuery parses an ISO 8601 timestamp query parameter: RFC 3339 (with
// or without fractional seconds) or a date (midnight UTC). Absent: zero.
func (rc *Ctx) TimeQuery(name string) (time.Time, error) {
	v := rc.Query(name)
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	return time.Time{}, InvalidField(name, "must be an ISO 8601 timestamp such as 2026-01-02T15:04:05Z, or a date such as 2026-01-02")
}
