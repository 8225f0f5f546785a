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
	"sort"
	"time"
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
	b := r.base()
	if b.ID == "" {
		if t.next == nil {
			panic(fmt.Sprintf("store: Insert of a %T without an id into a table without an id source (make the store with NewWithIDs, or call SetIDSource)", r))
		}
		b.ID = t.nextID()
	}
	b.Owner = owner
	b.CreatedAt = t.Stamp(owner, now)
	t.Put(r)
	return r
}

// InsertRun inserts recs, new records of owner, in the order given, as
// Insert of each in turn would, each created at the time its CreatedAt
// holds (stamped strictly increasing, as Stamp does), but with the work
// done once per run rather than per record: the owner's list is found
// and grown once, and a retention's bounds are enforced once, after the
// last record (it drops what Insert of each would have, in one pass). It
// is how a log (the usage log) moves a queue of records in; in a table
// with an id index it is Insert of each.
func (t *Table[T]) InsertRun(owner string, recs []T) {
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
		markLogged(r, true)
		for _, x := range t.indexes {
			x.add(r)
		}
	}
	t.byOwner[owner] = append(t.byOwner[owner], recs...)
	t.n += len(recs)
	t.setLast(owner, last)
	if t.ret != nil {
		for _, r := range recs {
			t.ret.count(r)
		}
		t.enforce(owner)
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
// indexes take out the replaced record and add r.
func (t *Table[T]) Put(r T) {
	if t.byID != nil {
		id := r.RecordID()
		if old, ok := t.byID[id]; ok {
			t.drop(old)
		}
		t.byID[id] = r
	}
	t.n++
	markLogged(r, true)
	t.insertOwned(r)
	for _, x := range t.indexes {
		x.add(r)
	}
	if t.ret != nil {
		t.retain(r)
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
	for _, x := range t.indexes {
		x.add(r)
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
	// One position per owner: the index of the next (older) record to visit.
	lists := make([][]T, 0, len(owners))
	pos := make([]int, 0, len(owners))
	for _, o := range owners {
		list := t.byOwner[o]
		i := len(list)
		if !before.IsZero() {
			i = sort.Search(len(list), func(j int) bool { return !list[j].RecordCreated().Before(before) })
		}
		if i > 0 {
			lists = append(lists, list)
			pos = append(pos, i-1)
		}
	}
	for {
		best := -1
		for k, list := range lists {
			if pos[k] < 0 {
				continue
			}
			if best < 0 || list[pos[k]].RecordCreated().After(lists[best][pos[best]].RecordCreated()) {
				best = k
			}
		}
		if best < 0 {
			return
		}
		r := lists[best][pos[best]]
		pos[best]--
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
	out := make([]T, 0, min(limit, 128))
	more := false
	t.Scan(owners, before, func(r T) bool {
		if !since.IsZero() && r.RecordCreated().Before(since) {
			return false
		}
		if match != nil && !match(r) {
			return true
		}
		if len(out) == limit {
			more = true
			return false
		}
		out = append(out, r)
		return true
	})
	return out, more
}
