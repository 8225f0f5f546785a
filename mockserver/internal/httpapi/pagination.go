package httpapi

import (
	"slices"
	"strconv"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

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
// list covers (see scopedBusinesses).
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

// EncodedPage is a list answer, {"<key>": [...], "has_more": more} (or
// {"<key>": [...]} when Unpaged), whose items are the records' encodings
// kept by their table (store.AppendEncoded): a page read copies bytes.
// Encode appends a record's item, built only from the record and from
// what Dep versions (see store.AppendEncoded).
type EncodedPage[T store.Cached] struct {
	Key     string
	Records []T
	More    bool
	Unpaged bool
	Table   *store.Table[T]
	Slot    store.Slot // which kept item Encode builds (zero: the list item)
	Dep     uint64
	// ItemDep, when set (Dep must then be zero), is what an item shows
	// besides its record: a count of what the time leaves in view (a
	// subscription's rotated secrets still signing), which only falls as
	// the time passes, for every record at once. An item is kept with its
	// ItemDep, the page with the sum of its items': of two readings of
	// the same records, one shows as much of each record as the other or
	// more, so the sums differ whenever an item does.
	ItemDep func(r T) uint64
	Encode  func(b []byte, r T) []byte
	// Members are the answer's members besides the list and has_more,
	// encoded, each after a comma (Member makes one): they come last.
	Members string
}

// Member is a string member of an EncodedPage's Members: a comma, then
// name and value encoded.
func Member(name, value string) string {
	b := jsonview.AppendJSONString(append(make([]byte, 0, len(name)+len(value)+6), ','), name)
	return string(jsonview.AppendJSONString(append(b, ':'), value))
}

// AppendJSON implements jsonview.JSONAppender.
func (p EncodedPage[T]) AppendJSON(b []byte) []byte {
	b, _ = p.appendScreened(b)
	return b
}

// encode implements encodedAnswer: the table's kept page when the same
// records are read again unchanged (store.KeptPage), else a page built in
// a pooled buffer.
func (p EncodedPage[T]) encode() (body []byte, pooled *[]byte, plain, shared bool) {
	variant := 0
	if p.More {
		variant |= 1
	}
	if p.Unpaged {
		variant |= 2
	}
	envelope := p.Key
	if p.Members != "" {
		envelope += p.Members // the same records with other members are another page
	}
	dep := p.Dep
	if p.ItemDep != nil {
		if p.Dep != 0 {
			panic("httpapi: an EncodedPage has both Dep and ItemDep: its items would be kept without Dep")
		}
		for _, r := range p.Records {
			dep += p.ItemDep(r)
		}
	}
	body, plain, shared = store.KeptPage(p.Table, p.Records, dep, envelope, variant, func() ([]byte, bool) {
		var passed bool
		body, pooled = jsonview.AppendPooled(func(b []byte) []byte {
			b, passed = p.appendScreened(b)
			return b
		})
		return body, passed
	})
	return body, pooled, plain, shared
}

// ViewItem is the Encode of an EncodedPage whose items are the encodings
// of view (jsonview.AppendValue): view must show the record alone, or
// besides it only what the page's Dep or ItemDep covers.
func ViewItem[T, V any](view func(T) V) func(b []byte, r T) []byte {
	return func(b []byte, r T) []byte { return jsonview.AppendValue(b, view(r)) }
}

// EncodeNow encodes the page at once, for a handler that must encode
// under a lock of its own (the usage log's): run writes the answer as it
// is.
func (p EncodedPage[T]) EncodeNow() Encoded {
	body, pooled, plain, shared := p.encode()
	return Encoded{Body: body, pooled: pooled, plain: plain, shared: shared}
}

// appendScreened appends the page and reports whether it holds nothing
// the journal redacts: each item is screened once, when its encoding is
// built, and the screen is kept with it.
func (p EncodedPage[T]) appendScreened(b []byte) ([]byte, bool) {
	plain := !slices.Contains(secretMembers, p.Key)
	b = append(b, '{')
	b = jsonview.AppendJSONString(b, p.Key)
	b = append(b, ':', '[')
	for i, r := range p.Records {
		if i > 0 {
			b = append(b, ',')
		}
		dep := p.Dep
		if p.ItemDep != nil {
			dep = p.ItemDep(r)
		}
		var itemPlain bool
		b, itemPlain = store.AppendEncoded(p.Table, r, p.Slot, dep, p.Encode, plainForJournal, b)
		plain = plain && itemPlain
	}
	b = append(b, ']')
	if !p.Unpaged {
		b = append(b, `,"has_more":`...)
		b = strconv.AppendBool(b, p.More)
	}
	if p.Members != "" {
		b = append(b, p.Members...)
		plain = plain && plainForJournal([]byte(p.Members))
	}
	return append(b, '}'), plain
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
