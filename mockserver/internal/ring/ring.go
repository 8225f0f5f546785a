// Package ring keeps the newest entries of a log that must not grow without
// bound: numbered entries, each in a bucket (a tenant), every bucket bounded
// in count and in bytes. Past either bound of its bucket the bucket's oldest
// entries go first; the newest entry of a bucket always stays, however
// large. One bucket's entries never push out another's. The request
// journal, the webhook delivery log and the store's bounded tables (the
// event log, the outbox, the idempotency records, the usage log) are such
// logs.
package ring

import "sort"

// Log is a log of the newest entries of each bucket, numbered in the order
// they came across all buckets. Its slots grow as entries come; the holes
// entries leave are taken out when the slots are full (or when most of
// them are holes), so the slots stay within a small multiple of the
// entries kept and a log that keeps little holds little. A Log is not safe for concurrent use: its owner holds a lock
// around it.
type Log[T any] struct {
	// slots hold the kept entries in the order they came, and the holes
	// of entries since let go (b nil) until a compaction.
	slots []slot[T]
	holes int
	next  int64
	bytes int64 // the cost of the kept entries
	// size and maxBytes bound each bucket.
	size     int
	maxBytes int64
	buckets  map[string]*bucket
	dropped  func(seq int64, v *T)
}

// slot is one entry of a Log, or the hole it left (b nil).
type slot[T any] struct {
	seq  int64
	cost int64
	b    *bucket
	v    T
}

// bucket is what a Log keeps of one bucket: the numbers of its entries,
// oldest first, and their count and cost. An entry removed out of turn
// (Remove) leaves its number behind until it reaches the head or the
// numbers are compacted.
type bucket struct {
	name  string
	seqs  []int64
	head  int
	n     int
	bytes int64
}

// New returns an empty log keeping at most size entries (at least one) of
// at most maxBytes bytes in all in each bucket, numbering its entries from
// start. dropped, when not nil, is called with each entry the log lets go
// to make room, just before it goes.
func New[T any](size int, maxBytes, start int64, dropped func(seq int64, v *T)) *Log[T] {
	return &Log[T]{next: start, size: max(size, 1), maxBytes: maxBytes, buckets: map[string]*bucket{}, dropped: dropped}
}

// Cap returns how many entries the log keeps at most in each bucket.
func (l *Log[T]) Cap() int { return l.size }

// Len returns how many entries the log keeps.
func (l *Log[T]) Len() int { return len(l.slots) - l.holes }

// Bytes returns the cost of the kept entries.
func (l *Log[T]) Bytes() int64 { return l.bytes }

// Bucket returns how many entries the log keeps in bucket name, and their
// cost.
func (l *Log[T]) Bucket(name string) (entries int, bytes int64) {
	if b := l.buckets[name]; b != nil {
		return b.n, b.bytes
	}
	return 0, 0
}

// Next returns the number the next entry will have.
func (l *Log[T]) Next() int64 { return l.next }

// At returns the kept entry numbered seq, or nil when it is not kept. The
// pointer is valid until the log next changes.
func (l *Log[T]) At(seq int64) *T {
	if i := l.find(seq); i >= 0 {
		return &l.slots[i].v
	}
	return nil
}

// Each calls fn for every kept entry, oldest first, until fn returns false.
func (l *Log[T]) Each(fn func(seq int64, v *T) bool) {
	for i := range l.slots {
		if s := &l.slots[i]; s.b != nil && !fn(s.seq, &s.v) {
			return
		}
	}
}

// Push appends v, which counts cost bytes, to bucket name, and returns
// its number. The bucket's oldest entries go first, as many as its bounds
// call for with v kept.
func (l *Log[T]) Push(name string, v T, cost int64) int64 {
	b := l.buckets[name]
	if b == nil {
		b = &bucket{name: name}
		l.buckets[name] = b
	}
	for b.n > 0 && (b.n >= l.size || b.bytes+cost > l.maxBytes) {
		l.dropOldest(b)
	}
	if b.n == 0 { // every entry it had went: it starts again
		b.seqs, b.head = b.seqs[:0], 0
		l.buckets[name] = b
	}
	if len(l.slots) == cap(l.slots) && l.holes > len(l.slots)/4 {
		l.compact() // room for v without growing
	}
	seq := l.next
	l.next++
	l.slots = append(l.slots, slot[T]{seq: seq, cost: cost, b: b, v: v})
	b.seqs = append(b.seqs, seq)
	b.n++
	b.bytes += cost
	l.bytes += cost
	return seq
}

// Recount sets the cost of the kept entry seq (it grew, or shrank), then
// drops the oldest entries of its bucket, never the bucket's newest, while
// the bucket is past its byte bound. It does nothing when seq is not kept.
func (l *Log[T]) Recount(seq, cost int64) {
	i := l.find(seq)
	if i < 0 {
		return
	}
	s := &l.slots[i]
	b := s.b
	b.bytes += cost - s.cost
	l.bytes += cost - s.cost
	s.cost = cost
	for b.bytes > l.maxBytes && b.n > 1 {
		l.dropOldest(b)
	}
}

// Remove lets go of the kept entry seq without calling dropped (its owner
// removes it); it does nothing when seq is not kept.
func (l *Log[T]) Remove(seq int64) {
	if i := l.find(seq); i >= 0 {
		l.let(i)
	}
}

// RemoveBucket lets go of every kept entry of bucket name without calling
// dropped (its owner removes them, as a deleted tenant's), and returns how
// many there were. The bucket itself goes with its last entry.
func (l *Log[T]) RemoveBucket(name string) int {
	b := l.buckets[name]
	if b == nil {
		return 0
	}
	n := 0
	seqs := append([]int64(nil), b.seqs[b.head:]...) // let may compact b.seqs
	for _, seq := range seqs {
		if i := l.find(seq); i >= 0 && l.slots[i].b == b {
			l.let(i)
			n++
		}
	}
	return n
}

// Reset empties the log, numbering entries from start again, and lets go
// of its slots. It does not call dropped.
func (l *Log[T]) Reset(start int64) {
	l.slots, l.holes = nil, 0
	l.next, l.bytes = start, 0
	l.buckets = map[string]*bucket{}
}

// Slots returns how many slots the log holds now: what it costs in memory
// besides its entries.
func (l *Log[T]) Slots() int { return len(l.slots) }

// find returns the index of the slot of the kept entry seq, or -1.
func (l *Log[T]) find(seq int64) int {
	n := len(l.slots)
	if n == 0 || seq < l.slots[0].seq || seq > l.slots[n-1].seq {
		return -1
	}
	// Without holes before it, an entry is where its number says.
	i := int(seq - l.slots[0].seq)
	if i >= n || l.slots[i].seq != seq {
		i = sort.Search(n, func(j int) bool { return l.slots[j].seq >= seq })
	}
	if i < n && l.slots[i].seq == seq && l.slots[i].b != nil {
		return i
	}
	return -1
}

// dropOldest lets go of the oldest kept entry of b, calling dropped.
func (l *Log[T]) dropOldest(b *bucket) {
	for b.head < len(b.seqs) {
		seq := b.seqs[b.head]
		b.head++
		if i := l.find(seq); i >= 0 && l.slots[i].b == b {
			if l.dropped != nil {
				l.dropped(seq, &l.slots[i].v)
			}
			l.let(i)
			return
		}
	}
}

// let makes slot i a hole, and compacts the slots and the bucket's numbers
// when holes are most of them.
func (l *Log[T]) let(i int) {
	s := &l.slots[i]
	b := s.b
	b.n--
	b.bytes -= s.cost
	l.bytes -= s.cost
	var zero T
	s.v, s.b, s.cost = zero, nil, 0 // let go of what it points to
	l.holes++
	if b.n == 0 {
		delete(l.buckets, b.name)
	} else if b.head > 64 && b.head > len(b.seqs)/2 {
		b.seqs, b.head = b.seqs[:copy(b.seqs, b.seqs[b.head:])], 0
	} else if stale := len(b.seqs) - b.head - b.n; stale > 64 && stale > b.n {
		l.compactBucket(b)
	}
	switch {
	case l.holes == len(l.slots):
		l.slots, l.holes = l.slots[:0], 0
	case l.holes > 64 && l.holes > 3*len(l.slots)/4:
		l.compact() // most entries went out of turn (a tenant removed)
	}
}

// compact takes the holes out of the slots: in place, or into a new slice
// when the old one is much larger than the entries kept.
func (l *Log[T]) compact() {
	out := l.slots[:0]
	if cap(l.slots) > 4*l.Len() {
		out = make([]slot[T], 0, 2*l.Len())
	}
	for _, s := range l.slots {
		if s.b != nil {
			out = append(out, s)
		}
	}
	clear(l.slots[len(out):]) // the moved entries' old slots let go
	l.slots, l.holes = out, 0
}

// compactBucket keeps only the numbers of b's kept entries, in place.
func (l *Log[T]) compactBucket(b *bucket) {
	kept := b.seqs[:0]
	for _, seq := range b.seqs[b.head:] {
		if i := l.find(seq); i >= 0 && l.slots[i].b == b {
			kept = append(kept, seq)
		}
	}
	b.seqs, b.head = kept, 0
}
