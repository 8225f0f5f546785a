package store

import "sort"

// Retention bounds a table that is a log the server keeps for itself (the
// usage log, the event log): once a bound is passed, the oldest records go.
// A zero field is no bound.
type Retention[T Record] struct {
	// PerOwner is how many records of one owner are kept: past it, that
	// owner's oldest record goes (so one busy owner does not push out the
	// records of the others).
	PerOwner int
	// Total is how many records are kept in all: past it, the record put
	// first goes.
	Total int
	// MaxBytes bounds the sum of Cost over the records kept: past it, the
	// records put first go (the newest record always stays).
	MaxBytes int64
	// Cost is what a record counts against MaxBytes (nil: nothing).
	Cost func(T) int64
}

// retained is the bookkeeping of a table's Retention.
type retained[T Record] struct {
	Retention[T]
	// queue holds the records in the order they were put, from head on;
	// records since removed (by Delete, or by PerOwner) stay in it until
	// they reach the head or the queue is compacted.
	queue []T
	head  int
	bytes int64
}

// SetRetention bounds the table from now on (records already in it count
// as if put now, oldest first). Every record put in the table counts, and
// Put and Insert drop the oldest records as the bounds say.
func (t *Table[T]) SetRetention(r Retention[T]) {
	t.ret = &retained[T]{Retention: r}
	var all []T
	for _, list := range t.byOwner {
		all = append(all, list...)
	}
	sort.Slice(all, func(i, j int) bool { return all[i].RecordCreated().Before(all[j].RecordCreated()) })
	for _, rec := range all {
		t.ret.count(rec)
	}
	t.enforce("")
}

// RetainedBytes is the sum of the retention's Cost over the records kept
// (0 without a retention).
func (t *Table[T]) RetainedBytes() int64 {
	if t.ret == nil {
		return 0
	}
	return t.ret.bytes
}

// count queues a record put in the table and counts its bytes.
func (r *retained[T]) count(rec T) {
	r.queue = append(r.queue, rec)
	r.bytes += r.cost(rec)
}

func (r *retained[T]) cost(rec T) int64 {
	if r.Cost == nil {
		return 0
	}
	return r.Cost(rec)
}

// retain counts a record just put, and drops what the bounds say.
func (t *Table[T]) retain(rec T) {
	t.ret.count(rec)
	t.enforce(rec.RecordOwner())
}

// enforce drops the oldest records of owner past PerOwner ("" none), then
// the records put first while Total or MaxBytes is passed.
func (t *Table[T]) enforce(owner string) {
	r := t.ret
	if r.PerOwner > 0 && owner != "" {
		if excess := len(t.byOwner[owner]) - r.PerOwner; excess > 0 {
			t.dropOldest(owner, excess)
		}
	}
	for r.head < len(r.queue) && t.n > 1 &&
		((r.Total > 0 && t.n > r.Total) || (r.MaxBytes > 0 && r.bytes > r.MaxBytes)) {
		rec := r.queue[r.head]
		var zero T
		r.queue[r.head] = zero
		r.head++
		if t.holds(rec) {
			t.drop(rec)
		}
	}
	// Compact when removed records are most of the queue, so that the
	// queue stays within twice the records kept.
	if live := len(r.queue) - r.head; live > 1024 && live > 2*t.n {
		kept := make([]T, 0, 2*t.n)
		for _, rec := range r.queue[r.head:] {
			if t.holds(rec) {
				kept = append(kept, rec)
			}
		}
		r.queue, r.head = kept, 0
	} else if r.head > 1024 && r.head > len(r.queue)/2 {
		r.queue, r.head = append([]T(nil), r.queue[r.head:]...), 0
	}
}

// holds reports whether rec is in the table (the very record, not another
// with its id).
func (t *Table[T]) holds(rec T) bool {
	if t.byID != nil {
		cur, ok := t.byID[rec.RecordID()]
		return ok && cur.base() == rec.base()
	}
	if l, ok := any(rec).(loggedRecord); ok {
		return l.logMark().in
	}
	list := t.byOwner[rec.RecordOwner()]
	if len(list) > 0 && list[0].base() == rec.base() {
		return true // the oldest, which retention drops first
	}
	created := rec.RecordCreated()
	i := sort.Search(len(list), func(j int) bool { return !list[j].RecordCreated().Before(created) })
	for ; i < len(list) && list[i].RecordCreated().Equal(created); i++ {
		if list[i].base() == rec.base() {
			return true
		}
	}
	return false
}

// dropOldest drops the k oldest records of owner (k at most its count),
// taking them out of its list at once rather than one by one; each one
// that is also the oldest put leaves the retention's queue at once too
// (one owner's log), rather than by a compaction's search.
func (t *Table[T]) dropOldest(owner string, k int) {
	r := t.ret
	list := t.byOwner[owner]
	var zero T
	for i, rec := range list[:k] {
		t.forget(rec)
		list[i] = zero // collected now; appends reallocate without the front
		if r.head < len(r.queue) && r.queue[r.head].base() == rec.base() {
			r.queue[r.head] = zero
			r.head++
		}
	}
	if list = list[k:]; len(list) == 0 {
		delete(t.byOwner, owner)
	} else {
		t.byOwner[owner] = list
	}
}

// drop removes a record the table holds, in a log table too (which Delete
// cannot do, having no id index).
func (t *Table[T]) drop(rec T) {
	t.forget(rec)
	t.remove(rec)
}

// forget does what dropping rec does but take it out of its owner's list
// (the caller's part).
func (t *Table[T]) forget(rec T) {
	markLogged(rec, false)
	if t.byID != nil {
		delete(t.byID, rec.RecordID())
	}
	t.n--
	for _, x := range t.indexes {
		x.remove(rec)
	}
	if t.ret != nil {
		t.ret.bytes -= t.ret.cost(rec)
	}
}

// logged is embedded in the records of log tables (NewLogTable): it marks
// whether the record is in its table, so that retention, which queues
// the records it bounds, knows one is gone without a search (a log table
// has no id index to look in).
type logged struct{ in bool }

func (l *logged) logMark() *logged { return l }

// loggedRecord is a record that embeds logged.
type loggedRecord interface{ logMark() *logged }

// markLogged marks whether rec, when it embeds logged, is in its table.
func markLogged(rec any, in bool) {
	if l, ok := rec.(loggedRecord); ok {
		l.logMark().in = in
	}
}
