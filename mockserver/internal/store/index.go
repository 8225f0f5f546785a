package store

import (
	"sort"
	"time"
)

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
// The index remembers, by record id, the owner, key and created_at under
// which it holds each record. So adding a record that is already indexed
// moves it to its current key instead of adding a second entry, and removing
// a record finds it where it was indexed even when its fields were changed
// without Table.Update.
type KeyIndex[T Record] struct {
	key   func(T) string
	byKey map[string]map[string][]T // owner -> key -> records, oldest first
	at    map[string]keyEntry       // record id -> where the record is indexed
}

// keyEntry is where a KeyIndex holds one record.
type keyEntry struct {
	owner, key string
	created    time.Time
}

// NewKeyIndex returns an empty index of records by key(r); attach it to a
// table with Table.AddIndex.
func NewKeyIndex[T Record](key func(T) string) *KeyIndex[T] {
	return &KeyIndex[T]{key: key, byKey: map[string]map[string][]T{}, at: map[string]keyEntry{}}
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
func (x *KeyIndex[T]) Len() int { return len(x.at) }

func (x *KeyIndex[T]) add(r T) {
	id := r.RecordID()
	e := keyEntry{owner: r.RecordOwner(), key: x.key(r), created: r.RecordCreated()}
	if old, ok := x.at[id]; ok {
		if old.owner == e.owner && old.key == e.key && old.created.Equal(e.created) {
			// Already indexed there: keep the one entry, holding r.
			list := x.byKey[old.owner][old.key]
			if i := findByID(list, id, old.created); i >= 0 {
				list[i] = r
			}
			return
		}
		x.drop(id, old)
	}
	if e.key == "" {
		return
	}
	m := x.byKey[e.owner]
	if m == nil {
		m = map[string][]T{}
		x.byKey[e.owner] = m
	}
	list := m[e.key]
	i := len(list)
	if i > 0 && list[i-1].RecordCreated().After(e.created) {
		i = sort.Search(len(list), func(j int) bool { return list[j].RecordCreated().After(e.created) })
	}
	list = append(list, r)
	copy(list[i+1:], list[i:])
	list[i] = r
	m[e.key] = list
	x.at[id] = e
}

func (x *KeyIndex[T]) remove(r T) {
	id := r.RecordID()
	if e, ok := x.at[id]; ok {
		x.drop(id, e)
	}
}

// drop takes the record with the id out of where e says it is.
func (x *KeyIndex[T]) drop(id string, e keyEntry) {
	delete(x.at, id)
	m := x.byKey[e.owner]
	list := m[e.key]
	if i := findByID(list, id, e.created); i >= 0 {
		copy(list[i:], list[i+1:])
		var zero T
		list[len(list)-1] = zero
		list = list[:len(list)-1]
	}
	if len(list) == 0 {
		delete(m, e.key)
		if len(m) == 0 {
			delete(x.byKey, e.owner)
		}
	} else {
		m[e.key] = list
	}
}

// findByID returns the position of the record with the id in list, ordered
// by created_at, where it was put with created_at created; -1 when absent.
// It searches around created first and falls back to a full scan, for a
// record whose created_at was changed since.
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
