// Package store holds the mock server's state in memory: generic tables
// ordered by created_at per owner (a business, or a user for per-user data),
// and the records of each resource.
//
// The store does no locking of its own: the mock server holds one
// read-write lock around every request and every simulated process, so a
// handler sees and changes a consistent state.
package store

import (
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/ring"
)

// Record is what a Table holds: a pointer to a struct with an id, an owner
// (the business or user it belongs to) and a created_at. Records embed Base,
// which implements every method, including the unexported one through which
// Insert sets the id, owner and created_at.
type Record interface {
	RecordID() string
	RecordOwner() string
	RecordCreated() time.Time
	// base returns the record's Base, for Insert and Update.
	base() *Base
}

// Table holds records by id and, per owner, in ascending created_at order, so
// a page read costs O(log n + page) whatever the table's size. Created_at
// values stamped by Stamp are strictly increasing per stamp group (by
// default an owner; in a store, a tenant: the owners whose clocks are one),
// so a cursor walk over the records of owners of one group never skips or
// repeats one, even while records are added.
//
// New records go in with Insert, which gives them an id (from the table's id
// source, see SetIDSource), their owner and a created_at. A record changes
// through Update, which keeps the table's side indexes (AddIndex) right.
// Put, Stamp and Delete remain for records built with their own Base
// (fixtures, replacements).
type Table[T Record] struct {
	byID    map[string]T // nil in a log table
	byOwner map[string][]T
	// last is the latest created_at per stamp group; group maps an owner
	// to its group (nil: each owner is its own).
	last  map[string]time.Time
	group func(owner string) string
	n     int
	// next gives the ids of inserted records without one (nil: none).
	next func() string
	// indexes are kept right by Put, Insert, Delete and Update.
	indexes []Index[T]
	// ret bounds a log table (SetRetention; nil: unbounded).
	ret *retained[T]
	// uniques are the indexes of values no two records may share (a
	// key's hash, a session's token); they are among indexes too.
	uniques []uniqueIndex[T]
	// sch is the store's schema (nil in a table of no store): the write
	// guard and the rules of references; name is the table's name in it,
	// refs its records' references.
	sch  *schema
	name string
	refs []reference
	// tenancy tells the tenant a record counts for in ret (SetTenancy).
	tenancy func(Record) string
}

// NewTable returns an empty table.
func NewTable[T Record]() *Table[T] {
	return &Table[T]{byID: map[string]T{}, byOwner: map[string][]T{}}
}

// NewLogTable returns an empty table for an append-only log that is never
// read by id (the usage log): Get and Delete find nothing and Put does not
// replace, which saves an id index entry per record.
func NewLogTable[T Record]() *Table[T] {
	return &Table[T]{byOwner: map[string][]T{}}
}

// Stamp returns the created_at for a new record of owner at now: now
// itself, or one nanosecond after the latest stamp of the owner's stamp
// group (and of the owner's own records) when now is not later.
func (t *Table[T]) Stamp(owner string, now time.Time) time.Time {
	now = nextStamp(t.lastStamp(owner), now)
	t.setLast(owner, now)
	return now
}

// lastStamp is the latest stamp of owner's stamp group and of the owner's
// own records.
func (t *Table[T]) lastStamp(owner string) time.Time {
	last := t.lastOf(owner)
	if list := t.byOwner[owner]; len(list) > 0 {
		last = later(last, list[len(list)-1].RecordCreated())
	}
	return last
}

// nextStamp is the stamp after last for a record made at now: now in UTC,
// or one nanosecond after last when now is not later.
func nextStamp(last, now time.Time) time.Time {
	now = now.UTC()
	if !now.After(last) {
		now = last.Add(time.Nanosecond)
	}
	return now
}

// SetStampGroup makes group the function that maps an owner to its stamp
// group: created_at stamps are strictly increasing across the owners of a
// group. A store groups the owners of a tenant (see Store.TenantOf).
func (t *Table[T]) SetStampGroup(group func(owner string) string) { t.group = group }

// groupOf is owner's stamp group.
func (t *Table[T]) groupOf(owner string) string {
	if t.group == nil {
		return owner
	}
	return t.group(owner)
}

// lastOf is the latest stamp of owner's group.
func (t *Table[T]) lastOf(owner string) time.Time { return t.last[t.groupOf(owner)] }

// setLast records created as a stamp of owner's group if it is the latest.
func (t *Table[T]) setLast(owner string, created time.Time) {
	g := t.groupOf(owner)
	if cur, ok := t.last[g]; !ok || created.After(cur) {
		if t.last == nil {
			t.last = map[string]time.Time{}
		}
		t.last[g] = created
	}
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}

// SetIDSource makes next the source of the ids Insert gives to records that
// have none (next is typically the server's uuid generator); nil removes it.
// Tables start without one; NewWithIDs sets it on every table of a store.
func (t *Table[T]) SetIDSource(next func() string) { t.next = next }

// Insert stores a new record r of owner, created at now: it gives r a new id
// (from the table's id source) unless r already has one, sets its owner,
// stamps its created_at (strictly increasing, as Stamp) and puts it. It
// returns r.
//
// Insert replaces the id, owner and created_at fields of r's Base, so
// fill the record's other fields first, at least those the table's indexes
// read (a lead's phone and email); a field copied from the created_at (an
// updated_at) is set from r.CreatedAt after Insert. Insert of a record
// without an id into a table without an id source panics: that is a
// programming error (make the store with NewWithIDs).
func (t *Table[T]) Insert(r T, owner string, now time.Time) T {
	t.sch.mustWrite("Insert")
	b := r.base()
	if b.ID == "" {
		if t.next == nil {
			panic(fmt.Sprintf("store: Insert of a %T without an id into a table without an id source (make the store with NewWithIDs, or call SetIDSource)", r))
		}
		b.ID = t.nextID()
	}
	t.mustBeNew(r)
	b.Owner = owner
	b.CreatedAt = t.Stamp(owner, now)
	t.Put(r)
	return r
}

// mustBeNew panics when the table holds a record with r's id: a new
// record's id is one no record of the table has.
func (t *Table[T]) mustBeNew(r T) {
	if _, ok := t.byID[r.RecordID()]; ok {
		panic(fmt.Sprintf("store: Insert of a %T whose id %q another record of the table holds", r, r.RecordID()))
	}
}

// InsertRun inserts recs, new records of owner, in the order given, as
// Insert of each in turn would, each created at the time its CreatedAt
// holds (stamped strictly increasing, as Stamp does), but with the work
// done once per run rather than per record: the owner's list is found
// and grown once, then a retention counts each record in turn (dropping
// what Insert of each would have). It is how a log (the usage log) moves
// a queue of records in; in a table with an id index it is Insert of
// each.
func (t *Table[T]) InsertRun(owner string, recs []T) {
	t.sch.mustWrite("InsertRun")
	if len(recs) == 0 {
		return
	}
	if t.byID != nil {
		for _, r := range recs {
			t.Insert(r, owner, r.RecordCreated())
		}
		return
	}
	last := t.lastStamp(owner)
	for _, r := range recs {
		b := r.base()
		if b.ID == "" {
			b.ID = t.nextID()
		}
		b.Owner, b.CreatedAt = owner, nextStamp(last, b.CreatedAt)
		last = b.CreatedAt
		for _, x := range t.indexes {
			x.add(r)
		}
	}
	t.byOwner[owner] = append(t.byOwner[owner], recs...)
	t.n += len(recs)
	t.setLast(owner, last)
	if t.ret != nil {
		for i, r := range recs {
			t.retain(r, len(recs)-1-i)
		}
	}
}

// nextID is a new id from the table's id source.
func (t *Table[T]) nextID() string {
	if t.next == nil {
		panic("store: no id source (make the store with NewWithIDs, or call SetIDSource)")
	}
	return t.next()
}

// Put inserts r, or replaces the record with the same id. r keeps the id,
// owner and created_at it has (see Insert to have them set). The table's
// indexes take out the replaced record and add r. Put panics when r breaks
// a rule of the store (see Store): a value of a unique index another
// record holds, a reference to a record of another tenant.
func (t *Table[T]) Put(r T) {
	t.sch.mustWrite("Put")
	t.mustObey(r)
	t.put(r)
}

// mustObey panics when r, about to be put (or just changed by Update),
// breaks a rule: a unique value another record of the table holds, or a
// reference to a record of another tenant.
func (t *Table[T]) mustObey(r T) {
	for _, u := range t.uniques {
		if other, ok := u.clash(r); ok {
			panic(fmt.Sprintf("store: a %T whose %s another record (%q) holds", r, u.rule().field(), other.RecordID()))
		}
	}
	if len(t.refs) > 0 {
		t.sch.s.mustReferToItsTenant(t.name, t.refs, r)
	}
}

// put is Put without the rules: for records a Plan checked.
func (t *Table[T]) put(r T) {
	if t.byID != nil {
		id := r.RecordID()
		if old, ok := t.byID[id]; ok {
			t.drop(old)
		}
		t.byID[id] = r
	}
	t.n++
	t.insertOwned(r)
	for _, x := range t.indexes {
		x.add(r)
	}
	if t.ret != nil {
		t.retain(r, 0)
	}
}

// insertOwned puts r in its owner's list, in created_at order.
func (t *Table[T]) insertOwned(r T) {
	list := t.byOwner[r.RecordOwner()]
	created := r.RecordCreated()
	i := len(list)
	if i > 0 && !list[i-1].RecordCreated().Before(created) {
		i = sort.Search(len(list), func(j int) bool { return list[j].RecordCreated().After(created) })
	}
	list = append(list, r)
	copy(list[i+1:], list[i:])
	list[i] = r
	t.byOwner[r.RecordOwner()] = list
	t.setLast(r.RecordOwner(), created)
}

// Update applies change to r, a record of the table, keeping the table's
// indexes right: r is taken out of each index before change and put back
// after it.
//
// change may change any field of r but its id. A change of owner or
// created_at also moves r in the table's per-owner order. When r is not the
// table's record with its id (it was deleted or replaced meanwhile), change
// is applied to r and nothing else happens: r is in no index to keep right.
// Update panics when change changes r's id (a programming error).
func (t *Table[T]) Update(r T, change func(T)) {
	t.sch.mustWrite("Update")
	b := r.base()
	id, owner, created := b.ID, b.Owner, b.CreatedAt
	if t.byID != nil {
		if cur, ok := t.byID[id]; !ok || cur.base() != b {
			change(r)
			return
		}
	}
	for _, x := range t.indexes {
		x.remove(r)
	}
	change(r)
	if b.ID != id {
		panic(fmt.Sprintf("store: Update changed the id of %T %q to %q", r, id, b.ID))
	}
	if b.Owner != owner || !b.CreatedAt.Equal(created) {
		t.removeAt(owner, created, id)
		t.insertOwned(r)
	}
	for _, u := range t.uniques {
		if other, ok := u.clash(r); ok {
			panic(fmt.Sprintf("store: Update gave a %T the %s another record (%q) holds", r, u.rule().field(), other.RecordID()))
		}
	}
	for _, x := range t.indexes {
		x.add(r)
	}
	if len(t.refs) > 0 {
		t.sch.s.mustReferToItsTenant(t.name, t.refs, r)
	}
}

// AddIndex attaches x to the table: x gets every record the table holds now,
// and Put, Insert, Delete and Update keep it right from then on.
func (t *Table[T]) AddIndex(x Index[T]) {
	t.indexes = append(t.indexes, x)
	for _, list := range t.byOwner {
		for _, r := range list {
			x.add(r)
		}
	}
}

// Get returns the record with the id.
func (t *Table[T]) Get(id string) (T, bool) {
	r, ok := t.byID[id]
	return r, ok
}

// Delete removes the record with the id, and takes it out of the table's
// indexes, reporting whether it existed.
func (t *Table[T]) Delete(id string) bool {
	t.sch.mustWrite("Delete")
	r, ok := t.byID[id]
	if ok {
		t.drop(r)
	}
	return ok
}

func (t *Table[T]) remove(r T) { t.removeAt(r.RecordOwner(), r.RecordCreated(), r.RecordID()) }

// removeAt takes the record with the id out of the owner's list, where it
// was put with created_at created.
func (t *Table[T]) removeAt(owner string, created time.Time, id string) {
	list := t.byOwner[owner]
	i := 0 // the oldest is a log's usual drop: no search for it
	if len(list) > 0 && list[0].RecordID() != id {
		i = sort.Search(len(list), func(j int) bool { return !list[j].RecordCreated().Before(created) })
	}
	for ; i < len(list); i++ {
		if list[i].RecordID() == id {
			if i == 0 {
				// The oldest (a log's usual drop): no copy; the slot is
				// cleared so the record can be collected, and appends
				// reallocate the list without the dropped front.
				var zero T
				list[0] = zero
				t.byOwner[owner] = list[1:]
			} else {
				t.byOwner[owner] = append(list[:i], list[i+1:]...)
			}
			break
		}
	}
	if len(t.byOwner[owner]) == 0 {
		delete(t.byOwner, owner)
	}
}

// Len returns the number of records.
func (t *Table[T]) Len() int { return t.n }

// Count returns the number of records of one owner.
func (t *Table[T]) Count(owner string) int { return len(t.byOwner[owner]) }

// Owners returns the owners that hold records, in no particular order.
func (t *Table[T]) Owners() []string {
	out := make([]string, 0, len(t.byOwner))
	for o := range t.byOwner {
		out = append(out, o)
	}
	return out
}

// Owned returns the records of one owner, oldest first. The slice is the
// table's own: do not modify it.
func (t *Table[T]) Owned(owner string) []T { return t.byOwner[owner] }

// Scan calls fn for the records of the owners with created_at before before
// (zero: no bound), newest first across owners, until fn returns false.
func (t *Table[T]) Scan(owners []string, before time.Time, fn func(T) bool) {
	t.walk(owners, before, false, fn)
}

// ScanFrom calls fn for the records of the owners with created_at at or
// after since (zero: no bound), oldest first across owners, until fn
// returns false.
func (t *Table[T]) ScanFrom(owners []string, since time.Time, fn func(T) bool) {
	t.walk(owners, since, true, fn)
}

// walk is Scan (from bound down) and, when forward is set, ScanFrom (from
// bound up): it merges the owners' lists in created_at order.
func (t *Table[T]) walk(owners []string, bound time.Time, forward bool, fn func(T) bool) {
	// One position per owner: the index of the next record to visit.
	lists := make([][]T, 0, len(owners))
	pos := make([]int, 0, len(owners))
	for _, o := range owners {
		list := t.byOwner[o]
		i := len(list)
		if forward {
			i = 0
		}
		if !bound.IsZero() {
			i = sort.Search(len(list), func(j int) bool { return !list[j].RecordCreated().Before(bound) })
		}
		if !forward {
			i-- // the newest record before bound
		}
		if i >= 0 && i < len(list) {
			lists = append(lists, list)
			pos = append(pos, i)
		}
	}
	step := -1
	if forward {
		step = 1
	}
	for {
		best := -1
		for k, list := range lists {
			if pos[k] < 0 || pos[k] >= len(list) {
				continue
			}
			if best < 0 {
				best = k
				continue
			}
			c, b := list[pos[k]].RecordCreated(), lists[best][pos[best]].RecordCreated()
			if forward && c.Before(b) || !forward && c.After(b) {
				best = k
			}
		}
		if best < 0 {
			return
		}
		r := lists[best][pos[best]]
		pos[best] += step
		if !fn(r) {
			return
		}
	}
}

// Page returns up to limit records of the owners, newest first, created
// before after (zero: from the newest), for which match (nil: all) reports
// true, and whether more such records follow.
func (t *Table[T]) Page(owners []string, after time.Time, limit int, match func(T) bool) ([]T, bool) {
	return t.PageBetween(owners, time.Time{}, after, limit, match)
}

// PageBetween is Page limited to records created at or after since (zero:
// no bound). The walk stops at the first record older than since, so a
// window costs O(log n + page) like any page.
func (t *Table[T]) PageBetween(owners []string, since, before time.Time, limit int, match func(T) bool) ([]T, bool) {
	pg := newPage(limit, match)
	t.Scan(owners, before, func(r T) bool {
		return (since.IsZero() || !r.RecordCreated().Before(since)) && pg.take(r)
	})
	return pg.out, pg.more
}

// PageFrom is PageBetween oldest first: up to limit records of the owners
// created at or after since (zero: from the oldest) and before before
// (zero: no bound), for which match (nil: all) reports true, and whether
// more such records follow.
func (t *Table[T]) PageFrom(owners []string, since, before time.Time, limit int, match func(T) bool) ([]T, bool) {
	pg := newPage(limit, match)
	t.ScanFrom(owners, since, func(r T) bool {
		return (before.IsZero() || r.RecordCreated().Before(before)) && pg.take(r)
	})
	return pg.out, pg.more
}

// page collects a page of records as a walk visits them.
type page[T Record] struct {
	limit int
	match func(T) bool
	out   []T
	more  bool
}

// newPage returns an empty page of up to limit records that match.
func newPage[T Record](limit int, match func(T) bool) *page[T] {
	return &page[T]{limit: limit, match: match, out: make([]T, 0, min(limit, 128))}
}

// take adds r to the page when it matches, and reports whether the walk
// goes on: false once a matching record is found past the page's limit.
func (p *page[T]) take(r T) bool {
	if p.match != nil && !p.match(r) {
		return true
	}
	if len(p.out) == p.limit {
		p.more = true
		return false
	}
	p.out = append(p.out, r)
	return true
}

// Index is a side index of a table: a lookup that the table keeps right by
// itself once it is attached with Table.AddIndex. Put and Insert add a record
// to every index of its table (Put first takes out the record it replaces),
// Delete takes it out, and Update takes it out before a change and adds it
// back after.
//
// The methods are unexported so that only the table maintains an index;
// KeyIndex is the implementation to use.
type Index[T Record] interface {
	// add indexes r, or re-indexes it when it is already indexed: adding a
	// record twice never makes two entries.
	add(r T)
	// remove takes r out of the index; removing a record that is not
	// indexed does nothing.
	remove(r T)
}

// KeyIndex finds an owner's records by one string key computed from each
// record (a lead's phone, a lead's lower-cased email), oldest created_at
// first. A record whose key is "" is not indexed.
//
// The index keeps nothing per record but its place in a list, so it costs
// no memory beyond that. A record is found where its key, owner and
// created_at say: change them through Table.Update (or Delete the record
// and Put it again), never behind the table's back, or the record stays
// listed under its old key.
type KeyIndex[T Record] struct {
	key   func(T) string
	byKey map[string]map[string][]T // owner -> key -> records, oldest first
	n     int
}

// NewKeyIndex returns an empty index of records by key(r); attach it to a
// table with Table.AddIndex.
func NewKeyIndex[T Record](key func(T) string) *KeyIndex[T] {
	return &KeyIndex[T]{key: key, byKey: map[string]map[string][]T{}}
}

// Lookup returns the owner's records whose key is key, oldest first (nil
// when none). The slice is the index's own: do not modify it.
func (x *KeyIndex[T]) Lookup(owner, key string) []T {
	if key == "" {
		return nil
	}
	return x.byKey[owner][key]
}

// Len returns the number of indexed records.
func (x *KeyIndex[T]) Len() int { return x.n }

func (x *KeyIndex[T]) add(r T) {
	key := x.key(r)
	if key == "" {
		return
	}
	owner, id, created := r.RecordOwner(), r.RecordID(), r.RecordCreated()
	m := x.byKey[owner]
	if m == nil {
		m = map[string][]T{}
		x.byKey[owner] = m
	}
	list := m[key]
	if i := findByID(list, id, created); i >= 0 {
		list[i] = r // already indexed here: one entry, holding r
		return
	}
	i := len(list)
	if i > 0 && list[i-1].RecordCreated().After(created) {
		i = sort.Search(len(list), func(j int) bool { return list[j].RecordCreated().After(created) })
	}
	list = append(list, r)
	copy(list[i+1:], list[i:])
	list[i] = r
	m[key] = list
	x.n++
}

func (x *KeyIndex[T]) remove(r T) {
	key := x.key(r)
	if key == "" {
		return
	}
	owner := r.RecordOwner()
	m := x.byKey[owner]
	list := m[key]
	i := findByID(list, r.RecordID(), r.RecordCreated())
	if i < 0 {
		return
	}
	copy(list[i:], list[i+1:])
	var zero T
	list[len(list)-1] = zero
	list = list[:len(list)-1]
	x.n--
	if len(list) == 0 {
		delete(m, key)
		if len(m) == 0 {
			delete(x.byKey, owner)
		}
	} else {
		m[key] = list
	}
}

// findByID returns the position of the record with the id in list, ordered
// by created_at, where it was put with created_at created; -1 when absent.
// It searches around created first and falls back to a scan of the list,
// for a record whose created_at was changed since.
func findByID[T Record](list []T, id string, created time.Time) int {
	i := sort.Search(len(list), func(j int) bool { return !list[j].RecordCreated().Before(created) })
	for ; i < len(list) && list[i].RecordCreated().Equal(created); i++ {
		if list[i].RecordID() == id {
			return i
		}
	}
	for i, r := range list {
		if r.RecordID() == id {
			return i
		}
	}
	return -1
}

// Retention bounds a table that is a log the server keeps for itself (the
// event log, the outbox, the idempotency records, the usage log): each
// tenant's records are bounded apart, and past a bound the oldest records
// of that tenant go, so that no tenant's records push out another's. A zero
// field is no bound. The records of a bounded table embed kept.
type Retention[T Record] struct {
	// PerOwner is how many records of one owner are kept: past it, that
	// owner's oldest record goes.
	PerOwner int
	// PerTenant is how many records of one tenant are kept: past it, the
	// tenant's record put first goes.
	PerTenant int
	// BytesPerTenant bounds the sum of Cost over one tenant's records:
	// past it, the tenant's records put first go (its newest record always
	// stays).
	BytesPerTenant int64
	// Cost is what a record counts against BytesPerTenant (nil: nothing).
	Cost func(T) int64
	// Tenant returns the tenant a record counts for. Nil: the table's
	// tenancy, which a store gives its tables (Store.RetentionTenant); a
	// table without one counts every record for one tenant.
	Tenant func(T) string
}

// retained is the bookkeeping of a table's Retention: the records in the
// order they were put, bucketed by tenant.
type retained[T Record] struct {
	Retention[T]
	log *ring.Log[T]
}

// kept is embedded in the records of the tables a Retention bounds: the
// record's number in its table's retention log (0: not in it), so that a
// record deleted or dropped past PerOwner leaves the log at once.
type kept struct{ seq int64 }

func (k *kept) keptMark() *kept { return k }

// keptRecord is a record that embeds kept.
type keptRecord interface{ keptMark() *kept }

// keptOf returns the mark of rec, a record of a bounded table.
func keptOf(rec any) *kept { return rec.(keptRecord).keptMark() }

// SetRetention bounds the table from now on (records already in it count
// as if put now, oldest first). Every record put in the table counts, and
// Put and Insert drop the oldest records as the bounds say. It panics when
// the table's records do not embed kept (a programming error).
func (t *Table[T]) SetRetention(r Retention[T]) {
	var zero T
	if _, ok := any(zero).(keptRecord); !ok {
		panic(fmt.Sprintf("store: SetRetention on a table of %T, which does not embed kept", zero))
	}
	size, maxBytes := r.PerTenant, r.BytesPerTenant
	if size <= 0 {
		size = math.MaxInt
	}
	if maxBytes <= 0 {
		maxBytes = math.MaxInt64
	}
	ret := &retained[T]{Retention: r}
	ret.log = ring.New(size, maxBytes, 1, func(_ int64, rec *T) {
		keptOf(*rec).seq = 0 // out of the log already
		t.drop(*rec)
	})
	var all []T
	for _, list := range t.byOwner {
		all = append(all, list...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].RecordCreated().Before(all[j].RecordCreated()) })
	for _, rec := range all {
		t.drop(rec)
	}
	t.ret = ret
	for _, rec := range all {
		t.Put(rec)
	}
}

// RetainedBytes is the sum of the retention's Cost over the records kept
// (0 without a retention).
func (t *Table[T]) RetainedBytes() int64 {
	if t.ret == nil {
		return 0
	}
	return t.ret.log.Bytes()
}

// Retained returns how many records of tenant the table keeps, and the
// sum of their Cost (0 and 0 without a retention).
func (t *Table[T]) Retained(tenant string) (records int, bytes int64) {
	if t.ret == nil {
		return 0, 0
	}
	return t.ret.log.Bucket(tenant)
}

// SetTenancy makes tenant the function that tells which tenant a record
// counts for in the table's Retention (when the Retention has none). A
// store gives each of its tables Store.RetentionTenant.
func (t *Table[T]) SetTenancy(tenant func(Record) string) { t.tenancy = tenant }

// tenantOf is the tenant rec counts for.
func (t *Table[T]) tenantOf(rec T) string {
	switch {
	case t.ret.Tenant != nil:
		return t.ret.Tenant(rec)
	case t.tenancy != nil:
		return t.tenancy(rec)
	}
	return ""
}

// retain counts rec, a record just put, and drops what the bounds say:
// the oldest records of its owner past PerOwner, then the oldest of its
// tenant past PerTenant and BytesPerTenant. later is how many records of
// the owner's list, after rec, are not counted yet (InsertRun's).
func (t *Table[T]) retain(rec T, later int) {
	r := t.ret
	if r.PerOwner > 0 {
		owner := rec.RecordOwner()
		if excess := len(t.byOwner[owner]) - later - r.PerOwner; excess > 0 {
			gone := false // rec itself, older than the owner's others
			for _, old := range t.byOwner[owner][:excess] {
				gone = gone || old.base() == rec.base()
			}
			t.dropOldest(owner, excess)
			if gone {
				return
			}
		}
	}
	var cost int64
	if r.Cost != nil {
		cost = r.Cost(rec)
	}
	keptOf(rec).seq = r.log.Push(t.tenantOf(rec), rec, cost)
}

// dropOldest drops the k oldest records of owner (k at most its count),
// taking them out of its list at once rather than one by one.
func (t *Table[T]) dropOldest(owner string, k int) {
	list := t.byOwner[owner]
	var zero T
	for i, rec := range list[:k] {
		t.forget(rec)
		list[i] = zero // collected now; appends reallocate without the front
	}
	if list = list[k:]; len(list) == 0 {
		delete(t.byOwner, owner)
	} else {
		t.byOwner[owner] = list
	}
}

// DeleteFunc removes every record for which match reports true, in a log
// table too, with its indexes and its place in the retention's log, and
// returns how many it removed. An owner left without records, in a table
// whose owners stamp on their own (no SetStampGroup), has its latest
// stamp forgotten with them.
func (t *Table[T]) DeleteFunc(match func(T) bool) int {
	t.sch.mustWrite("DeleteFunc")
	n := 0
	for owner, list := range t.byOwner {
		kept := list[:0]
		for _, rec := range list {
			if match(rec) {
				t.forget(rec)
				n++
			} else {
				kept = append(kept, rec)
			}
		}
		clear(list[len(kept):]) // the removed records can be collected
		if len(kept) == 0 {
			delete(t.byOwner, owner)
			if t.group == nil {
				delete(t.last, owner)
			}
		} else {
			t.byOwner[owner] = kept
		}
	}
	return n
}

// drop removes a record the table holds, in a log table too (which Delete
// cannot do, having no id index).
func (t *Table[T]) drop(rec T) {
	t.forget(rec)
	t.remove(rec)
}

// forget does what dropping rec does but take it out of its owner's list
// (the caller's part): out of the id index, the side indexes and the
// retention's log.
func (t *Table[T]) forget(rec T) {
	if t.byID != nil {
		delete(t.byID, rec.RecordID())
	}
	t.n--
	for _, x := range t.indexes {
		x.remove(rec)
	}
	if t.ret != nil {
		if m := keptOf(rec); m.seq != 0 {
			t.ret.log.Remove(m.seq)
			m.seq = 0
		}
	}
}
