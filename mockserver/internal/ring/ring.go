// Package ring keeps the newest entries of a log that must not grow without
// bound: a ring of numbered entries bounded in count and in bytes. Past
// either bound the oldest entries go first; the newest entry always stays,
// however large. The request journal and the webhook delivery log are such
// logs.
package ring

// Log is a ring of the newest entries, numbered in the order they came.
// Its slots grow as entries come, up to its size, so a log that keeps
// little holds little. A Log is not safe for concurrent use: its owner
// holds a lock around it.
type Log[T any] struct {
	buf  []T
	cost []int64 // cost[i] is the bytes buf[i] counts, kept so a drop does not measure it again
	// first and next are the numbers of the oldest kept entry and of the
	// next one: the entries first..next-1 are kept.
	first, next int64
	bytes       int64 // the cost of the kept entries
	size        int
	maxBytes    int64
	dropped     func(seq int64, v *T)
}

// New returns an empty log keeping at most size entries (at least one) of
// at most maxBytes bytes in all, numbering its entries from start.
// dropped, when not nil, is called with each entry the log lets go, just
// before it goes.
func New[T any](size int, maxBytes, start int64, dropped func(seq int64, v *T)) *Log[T] {
	return &Log[T]{first: start, next: start, size: max(size, 1), maxBytes: maxBytes, dropped: dropped}
}

// Cap returns how many entries the log keeps at most.
func (l *Log[T]) Cap() int { return l.size }

// Len returns how many entries the log keeps.
func (l *Log[T]) Len() int { return int(l.next - l.first) }

// Bytes returns the cost of the kept entries.
func (l *Log[T]) Bytes() int64 { return l.bytes }

// First returns the number of the oldest kept entry (Next when none is).
func (l *Log[T]) First() int64 { return l.first }

// Next returns the number the next entry will have.
func (l *Log[T]) Next() int64 { return l.next }

// At returns the kept entry numbered seq, or nil when it is not kept. The
// pointer is valid until the log next changes.
func (l *Log[T]) At(seq int64) *T {
	if seq < l.first || seq >= l.next {
		return nil
	}
	return &l.buf[l.slot(seq)]
}

// Each calls fn for every kept entry, oldest first, until fn returns false.
func (l *Log[T]) Each(fn func(seq int64, v *T) bool) {
	for seq := l.first; seq < l.next; seq++ {
		if !fn(seq, &l.buf[l.slot(seq)]) {
			return
		}
	}
}

// Push appends v, which counts cost bytes, and returns its number. The
// oldest entries go first, as many as the bounds call for with v kept.
func (l *Log[T]) Push(v T, cost int64) int64 {
	for l.Len() > 0 && (l.Len() >= l.size || l.bytes+cost > l.maxBytes) {
		l.dropOldest()
	}
	l.grow()
	seq := l.next
	i := l.slot(seq)
	l.buf[i], l.cost[i] = v, cost
	l.bytes += cost
	l.next++
	return seq
}

// Recount sets the cost of the kept entry seq (it grew, or shrank), then
// drops the oldest entries, never the newest, while the log is past its
// byte bound. It does nothing when seq is not kept.
func (l *Log[T]) Recount(seq, cost int64) {
	if seq < l.first || seq >= l.next {
		return
	}
	i := l.slot(seq)
	l.bytes += cost - l.cost[i]
	l.cost[i] = cost
	for l.bytes > l.maxBytes && l.Len() > 1 {
		l.dropOldest()
	}
}

// DropThrough drops every kept entry numbered seq or lower.
func (l *Log[T]) DropThrough(seq int64) {
	for l.Len() > 0 && l.first <= seq {
		l.dropOldest()
	}
}

// Reset empties the log, numbering entries from start again, and lets go
// of its slots. It does not call dropped.
func (l *Log[T]) Reset(start int64) {
	l.buf, l.cost = nil, nil
	l.first, l.next, l.bytes = start, start, 0
}

func (l *Log[T]) slot(seq int64) int { return int(seq % int64(len(l.buf))) }

func (l *Log[T]) dropOldest() {
	i := l.slot(l.first)
	if l.dropped != nil {
		l.dropped(l.first, &l.buf[i])
	}
	var zero T
	l.buf[i] = zero // let go of what it points to
	l.bytes -= l.cost[i]
	l.cost[i] = 0
	l.first++
}

// grow makes room for one more entry when every slot is taken and the log
// has fewer slots than its size.
func (l *Log[T]) grow() {
	if l.Len() < len(l.buf) || len(l.buf) == l.size {
		return
	}
	n := min(max(2*len(l.buf), 64), l.size)
	buf, cost := make([]T, n), make([]int64, n)
	for seq := l.first; seq < l.next; seq++ {
		from, to := l.slot(seq), int(seq%int64(n))
		buf[to], cost[to] = l.buf[from], l.cost[from]
	}
	l.buf, l.cost = buf, cost
}

// Slots returns how many slots the log holds now (at most Cap): what it
// costs in memory besides its entries.
func (l *Log[T]) Slots() int { return len(l.buf) }
