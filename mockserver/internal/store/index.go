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
