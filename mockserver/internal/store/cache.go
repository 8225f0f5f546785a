package store

import (
	"bytes"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
)

// The encoded list items of hot records (leads, calls, agents) are kept on
// the records, so that a page read is a copy of bytes. A record's encoding
// is built on the first read that needs it (under the read lock: readers
// build concurrently, which is safe since nothing changes a record under
// the read lock) and dropped by every change: Update, Put and Delete drop
// it, and nothing may change a record otherwise, which
// TestCachedRecordsChangeOnlyThroughUpdate checks in every package of the
// mock server.
//
// An encoding may also show other records (a lead shows its agent's
// name): it is kept with a version of what it shows besides its record
// (Table.Version of the other table) and is built again when that
// version moved.
//
// A call keeps a second encoding besides its list item, its transcript
// item (Slot SecondItem); every change drops both.
//
// Each table keeps at most CacheBytes of encodings (first in, first
// dropped), so the cache costs a pointer per record (two per call),
// however many records a server holds.

// Cached is a record whose table may keep its encoding (AppendEncoded):
// a record type of the store that embeds encodable. Such a record changes
// only through Table.Update (or before it is inserted), which
// TestCachedRecordsChangeOnlyThroughUpdate holds every package of the
// mock server to.
type Cached interface {
	Record
	// slot returns the record's encodable.
	slot() *encodable
}

// encodable is embedded in the records whose encodings are kept (leads,
// calls, agents and the other listed records): it holds the record's kept
// encoding, nil when none.
type encodable struct {
	enc atomic.Pointer[encoding]
}

func (e *encodable) slot() *encodable { return e }

// A Slot names which of a record's kept encodings AppendEncoded reads and
// keeps: ListItem, the one every Cached record has, or SecondItem, that
// of a second view a record keeps besides (a call's transcript item).
type Slot uint8

const (
	ListItem   Slot = iota // the record's list item
	SecondItem             // a second view: only of records with a second slot (Call)
)

// secondSlotted is a record that keeps a second encoding (SecondItem).
type secondSlotted interface{ secondSlot() *encodable }

// in returns r's encodable of slot s.
func (s Slot) in(r Cached) *encodable {
	if s == SecondItem {
		return r.(secondSlotted).secondSlot()
	}
	return r.slot()
}

// dropEncoding drops r's kept encodings, if it has any: r changed.
func dropEncoding(r any) {
	if c, ok := r.(interface{ slot() *encodable }); ok {
		c.slot().enc.Store(nil)
	}
	if c, ok := r.(secondSlotted); ok {
		c.secondSlot().enc.Store(nil)
	}
}

// CacheBytes bounds the encodings a table keeps (16 MiB: some 40,000 leads
// or calls); beyond it the oldest are dropped, to be built again when read.
const CacheBytes = 16 << 20

// encoding is a record's cached encoding and the version of the other
// records it shows.
type encoding struct {
	b   []byte
	dep uint64
	// passed reports that the screen of AppendEncoded passed b.
	passed bool
}

// encCache is a table's cache bookkeeping: the encodings kept, oldest
// first, and their size.
type encCache struct {
	mu    sync.Mutex
	kept  []keptEncoding // a queue: kept[head:] are kept
	head  int
	bytes int
	max   int
}

// keptEncoding is an encoding in the queue and the record holding it.
type keptEncoding struct {
	on  *encodable
	enc *encoding
}

// admit queues an encoding just set on a record, and drops the oldest
// while the cache holds more than its bound.
func (c *encCache) admit(on *encodable, e *encoding) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.kept = append(c.kept, keptEncoding{on, e})
	c.bytes += cap(e.b)
	for c.bytes > c.max && c.head < len(c.kept) {
		k := c.kept[c.head]
		c.kept[c.head] = keptEncoding{}
		c.head++
		c.bytes -= cap(k.enc.b)
		k.on.enc.CompareAndSwap(k.enc, nil) // unless already rebuilt or dropped
	}
	if c.head > len(c.kept)/2 && c.head > 1024 {
		n := copy(c.kept, c.kept[c.head:])
		clear(c.kept[n:])
		c.kept, c.head = c.kept[:n], 0
	}
}

// checkCache, when set, makes Encoded build every encoding again and
// compare it with the kept one (SetCacheCheck).
var checkCache atomic.Bool

// checked counts the kept encodings the check compared.
var checked atomic.Int64

// staleMu guards stale.
var staleMu sync.Mutex

// stale describes the kept encodings that differed from a fresh build.
var stale []string

// SetCacheCheck makes every read of a kept encoding build it again and
// compare: a kept encoding that differs (a record changed without Update,
// or the encoding shows something its version does not cover) is served
// fresh and reported by StaleEncodings. For tests: the mock server's test
// suite runs with it on.
func SetCacheCheck(on bool) { checkCache.Store(on) }

// noteIfStale reports whether a kept encoding (and its screen) differs
// from a fresh build, and notes the difference for StaleEncodings, what
// naming what the encoding shows.
func noteIfStale(what func() string, kept, fresh []byte, keptPassed, freshPassed bool) bool {
	if bytes.Equal(kept, fresh) && keptPassed == freshPassed {
		return false
	}
	line := fmt.Sprintf("%s: kept %s, now %s", what(), kept, fresh)
	if keptPassed != freshPassed {
		line += fmt.Sprintf(" (screen passed: kept %t, now %t)", keptPassed, freshPassed)
	}
	staleMu.Lock()
	stale = append(stale, line)
	staleMu.Unlock()
	return true
}

// StaleEncodings returns what SetCacheCheck found: one line per kept
// encoding that differed from a fresh build.
func StaleEncodings() []string {
	staleMu.Lock()
	defer staleMu.Unlock()
	return append([]string(nil), stale...)
}

// CheckedEncodings counts the kept encodings SetCacheCheck compared.
func CheckedEncodings() int64 { return checked.Load() }

// AppendEncoded appends the encoding of r, a record of t, in slot to
// dst: the kept one, or one built by build (and kept) when r has none or
// its was built with another dep, the version of the other records the
// encoding shows (0 when none). build must append exactly what the record
// shows now, and only from r and what dep covers; every call for a slot
// of a table passes the same build.
//
// screen (nil: none) is a test of an encoding that is run once, when the
// encoding is built, and kept with it: AppendEncoded reports whether the
// encoding it appended passed it. Every call for a table passes the same
// screen.
//
// AppendEncoded may be called under the read lock, concurrently.
func AppendEncoded[T Cached](t *Table[T], r T, slot Slot, dep uint64, build func(b []byte, r T) []byte, screen func([]byte) bool, dst []byte) ([]byte, bool) {
	b := slot.in(r)
	if e := b.enc.Load(); e != nil && e.dep == dep {
		if checkCache.Load() {
			checked.Add(1)
			fresh := build(nil, r)
			passed := screen != nil && screen(fresh)
			if noteIfStale(func() string { return fmt.Sprintf("%T %s", r, r.RecordID()) }, e.b, fresh, e.passed, passed) {
				return append(dst, fresh...), passed
			}
		}
		return append(dst, e.b...), e.passed
	}
	start := len(dst)
	dst = build(dst, r)
	e := &encoding{b: bytes.Clone(dst[start:]), dep: dep}
	e.passed = screen != nil && screen(e.b)
	b.enc.Store(e)
	t.cache.admit(b, e)
	return dst, e.passed
}

// A page of records read again unchanged (a client polling a list) is
// answered with the bytes of its last reading: each table keeps the last
// page read of its records, the records, the versions they were read at
// and, once the same page has been built twice in a row, its encoding.
// The records are compared one by one, so whatever query chose them, the
// same records at the same versions encode to the same bytes.

// keptPage is a table's last page: its records, the table's version and
// the dep of their encodings, the caller's description of the rest of
// the page (envelope), and the encoding once built twice in a row.
type keptPage[T Record] struct {
	version, dep uint64
	envelope     string
	variant      int
	records      []T
	body         []byte // nil until built twice in a row
	passed       bool   // the screen of every item passed (AppendEncoded)
}

// same reports whether p is the page of records at the table's version v
// and dep, with envelope and variant.
func (p *keptPage[T]) same(v uint64, records []T, dep uint64, envelope string, variant int) bool {
	if p.version != v || p.dep != dep || p.envelope != envelope || p.variant != variant || len(p.records) != len(records) {
		return false
	}
	for i, r := range records {
		if p.records[i].base() != r.base() {
			return false
		}
	}
	return true
}

// KeptPage returns the encoding of a page of records of t, built by build
// from the records' encodings (AppendEncoded, with dep) and an envelope
// that envelope and variant describe (a name, and which of its forms),
// and whether every item passed the screen: the
// kept one when the table's last page was the same records at the same
// versions and has been built twice in a row, else build's (and then the
// page is noted, or kept). A kept encoding is shared (kept reports it):
// nobody may change it. build's may be in a buffer of build's own.
//
// KeptPage may be called under the read lock, concurrently.
func KeptPage[T Cached](t *Table[T], records []T, dep uint64, envelope string, variant int, build func() ([]byte, bool)) (body []byte, passed, kept bool) {
	last := t.page.Load()
	if last != nil && last.body != nil && last.same(t.version, records, dep, envelope, variant) {
		if checkCache.Load() {
			checked.Add(1)
			fresh, passed := build()
			if noteIfStale(func() string { return fmt.Sprintf("%T page of %d", last.records, len(records)) }, last.body, fresh, last.passed, passed) {
				return fresh, passed, false
			}
		}
		return last.body, last.passed, true
	}
	body, passed = build()
	switch {
	case last != nil && last.body == nil && last.same(t.version, records, dep, envelope, variant):
		// Built twice in a row: keep it.
		t.page.Store(&keptPage[T]{version: t.version, dep: dep, envelope: envelope, variant: variant, records: last.records,
			body: bytes.Clone(body), passed: passed})
	case last == nil || !last.same(t.version, records, dep, envelope, variant):
		t.page.Store(&keptPage[T]{version: t.version, dep: dep, envelope: envelope, variant: variant, records: slices.Clone(records)})
	}
	return body, passed, false
}
