package platform

// Guarded is a value of the server's state kept outside the store, such as
// the seed accounts, which outlive a reset. Like the store, it is reached
// only through a Tx: Get takes one and Set a write one, so the parameter,
// not a comment, says that the state lock is held. The zero value holds
// T's zero value.
type Guarded[T any] struct{ v T }

// Get returns the value, read in tx.
func (g *Guarded[T]) Get(tx *Tx) T {
	tx.mustHold(false)
	return g.v
}

// Set replaces the value in tx, which must be a write Tx.
func (g *Guarded[T]) Set(tx *Tx, v T) {
	tx.mustHold(true)
	g.v = v
}

// mustHold panics unless tx holds the state lock (the write lock when
// write is set): reaching the state otherwise is a programming error.
func (tx *Tx) mustHold(write bool) {
	switch {
	case tx == nil || tx.state == nil:
		panic("platform: the state reached without a Tx, or through one that has ended")
	case write && !tx.write:
		panic("platform: the state changed through a read Tx")
	}
}
