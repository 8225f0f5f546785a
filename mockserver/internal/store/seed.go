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
