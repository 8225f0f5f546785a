// Package store holds the mock server's state in memory: generic tables
// ordered by created_at per owner (a business, or a user for per-user data),
// and the records of each resource.
//
// The store does no locking of its own: the mock server holds one
// read-write lock around every request and every simulated process, so a
// handler sees and changes a consistent state.
package store

import (
	"sort"
	"time"
)

// Record is what a Table holds: a pointer to a struct with an id, an owner
// (the business or user it belongs to) and a created_at.
type Record interface {
	RecordID() string
	RecordOwner() string
	RecordCreated() time.Time
}

// Table holds records by id and, per owner, in ascending created_at order, so
// a page read costs O(log n + page) whatever the table's size. Created_at
// values stamped by Stamp are strictly increasing across the whole table, so
// a cursor walk never skips or repeats a record, even while records are
// added.
type Table[T Record] struct {
	byID    map[string]T // nil in a log table
	byOwner map[string][]T
	last    time.Time
	n       int
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

// Stamp returns the created_at for a new record at now: now itself, or one
// nanosecond after the table's last stamp when now is not later.
func (t *Table[T]) Stamp(now time.Time) time.Time {
	now = now.UTC()
	if !now.After(t.last) {
		now = t.last.Add(time.Nanosecond)
	}
	t.last = now
	return now
}

// Put inserts r, or replaces the record with the same id.
func (t *Table[T]) Put(r T) {
	if t.byID != nil {
		id := r.RecordID()
		if old, ok := t.byID[id]; ok {
			t.remove(old)
			t.n--
		}
		t.byID[id] = r
	}
	t.n++
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
	if created.After(t.last) {
		t.last = created
	}
}

// Get returns the record with the id.
func (t *Table[T]) Get(id string) (T, bool) {
	r, ok := t.byID[id]
	return r, ok
}

// Delete removes the record with the id, reporting whether it existed.
func (t *Table[T]) Delete(id string) bool {
	r, ok := t.byID[id]
	if ok {
		t.remove(r)
		delete(t.byID, id)
		t.n--
	}
	return ok
}

func (t *Table[T]) remove(r T) {
	owner := r.RecordOwner()
	list := t.byOwner[owner]
	created := r.RecordCreated()
	i := sort.Search(len(list), func(j int) bool { return !list[j].RecordCreated().Before(created) })
	for ; i < len(list); i++ {
		if list[i].RecordID() == r.RecordID() {
			t.byOwner[owner] = append(list[:i], list[i+1:]...)
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
