package store

import (
	"sort"
	"time"
)

// FreeStamp returns at, or the first nanosecond after it that no record of
// the owner has as its created_at, for records stored with a created_at of
// their own (fixtures) rather than one from Stamp. Put then keeps the
// table's later stamps after it.
func (t *Table[T]) FreeStamp(owner string, at time.Time) time.Time {
	at = at.UTC()
	list := t.byOwner[owner]
	for {
		i := sort.Search(len(list), func(j int) bool { return !list[j].RecordCreated().Before(at) })
		if i == len(list) || !list[i].RecordCreated().Equal(at) {
			return at
		}
		at = at.Add(time.Nanosecond)
	}
}

// InsertAt stores a new record r of owner that has a created_at of its own
// (a fixture's): at, or the first nanosecond after it that no record of
// the owner has (FreeStamp), where Insert would stamp it now. r gets an id
// as Insert gives one. It returns r.
func (t *Table[T]) InsertAt(r T, owner string, at time.Time) T {
	t.sch.mustWrite("InsertAt")
	b := r.base()
	if b.ID == "" {
		b.ID = t.nextID()
	}
	t.mustBeNew(r)
	b.Owner, b.CreatedAt = owner, t.FreeStamp(owner, at)
	t.Put(r)
	return r
}
