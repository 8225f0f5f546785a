package mockserver

import (
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// pageQuery is a list request's limit and cursor, and optionally a time
// window that handlers with start/end parameters set.
type pageQuery struct {
	limit int
	after time.Time // zero: from the newest
	since time.Time // zero: no lower bound; else created_at >= since
	until time.Time // zero: no upper bound; else created_at < until
}

// pageQuery parses limit (default def, 1..max) and after (the created_at of
// the last item seen, RFC 3339). Out-of-range values are 400
// invalid_request, not clamped, so a caller learns the bound.
func (rc *reqCtx) pageQuery(def, maxLimit int) (pageQuery, error) {
	limit, err := rc.intQuery("limit", def, 1, maxLimit)
	if err != nil {
		return pageQuery{}, err
	}
	pq := pageQuery{limit: limit}
	if a := rc.query("after"); a != "" {
		t, err := time.Parse(time.RFC3339Nano, a)
		if err != nil {
			return pageQuery{}, errInvalidField("after", "must be an RFC 3339 timestamp (the created_at of the last item)")
		}
		pq.after = t
	}
	return pq, nil
}

// listQuery reads what every list of business records starts with: the
// page (limit default def, at most maxLimit; after) and the businesses the
// list covers (see scopedBusinesses).
func (rc *reqCtx) listQuery(def, maxLimit int) (pageQuery, []string, error) {
	pq, err := rc.pageQuery(def, maxLimit)
	if err != nil {
		return pageQuery{}, nil, err
	}
	owners, err := rc.scopedBusinesses()
	return pq, owners, err
}

// listPage is the one pagination helper: a page of the table's records of
// the owners, newest first, filtered by match (nil: all) and shown by view,
// and whether more follow.
func listPage[T store.Record, V any](t *store.Table[T], owners []string, pq pageQuery, match func(T) bool, view func(T) V) ([]V, bool) {
	before := pq.after
	if !pq.until.IsZero() && (before.IsZero() || pq.until.Before(before)) {
		before = pq.until
	}
	recs, more := t.PageBetween(owners, pq.since, before, pq.limit, match)
	out := make([]V, len(recs))
	for i, r := range recs {
		out[i] = view(r)
	}
	return out, more
}

// timeQuery parses an ISO 8601 timestamp query parameter: RFC 3339 (with
// or without fractional seconds) or a date (midnight UTC). Absent: zero.
func (rc *reqCtx) timeQuery(name string) (time.Time, error) {
	v := rc.query(name)
	if v == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339Nano, v); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.DateOnly, v); err == nil {
		return t, nil
	}
	return time.Time{}, errInvalidField(name, "must be an ISO 8601 timestamp such as 2026-01-02T15:04:05Z, or a date such as 2026-01-02")
}
