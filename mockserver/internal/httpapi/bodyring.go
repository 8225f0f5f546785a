package httpapi

// bodyRing keeps the texts of the journal's bodies: chunks of bytes
// written in turn and, once the ring holds the journal's byte budget,
// written again from the first, so that journaling a body allocates
// nothing once the ring is full. A record refers to its texts by place
// (bodyRef) and a read copies them out. Before a chunk is written again,
// the journal drops the entries whose texts it holds (put says which).
type bodyRing struct {
	chunks [][]byte
	// newest[i] is the largest Seq of an entry with a text in chunks[i].
	newest []int64
	cur    int // the chunk being written
	off    int // where the next text goes in it
	max    int // how many chunks the ring has at most
}

// bodyRef is where a text is in the ring, or the text itself when it is
// bytes nobody changes (a kept page, see Response.shared).
type bodyRef struct {
	chunk, off, n int
	kept          []byte
}

// The ring's chunks: the first is firstRingChunk bytes and each next one
// twice the size, up to ringChunk, so that a server that journals little
// keeps little. A text (at most JournalBodyCap bytes) always fits in one.
const (
	firstRingChunk = 64 << 10
	ringChunk      = 1 << 20
)

// ringChunkSize is the size of chunk i.
func ringChunkSize(i int) int { return min(firstRingChunk<<min(i, 8), ringChunk) }

// newBodyRing returns a ring with room for maxBytes of texts besides the
// chunk being written.
func newBodyRing(maxBytes int64) bodyRing {
	n, room := 0, int64(0)
	for room < maxBytes+ringChunk {
		room += int64(ringChunkSize(n))
		n++
	}
	return bodyRing{max: n}
}

// put places a text of entry seq: where it goes (nothing for an empty
// text), and the Seq of the newest entry whose texts are where it goes
// (0: none), which must be dropped before the text is written.
func (r *bodyRing) put(text []byte, seq int64) (ref bodyRef, reused int64) {
	if len(text) == 0 {
		return bodyRef{}, 0
	}
	if len(r.chunks) == 0 || r.off+len(text) > len(r.chunks[r.cur]) {
		next := r.cur + 1
		if len(r.chunks) == 0 || next == r.max {
			next = 0
		}
		if next == len(r.chunks) {
			r.chunks = append(r.chunks, make([]byte, ringChunkSize(next)))
			r.newest = append(r.newest, 0)
		} else {
			reused = r.newest[next]
		}
		r.cur, r.off = next, 0
	}
	ref = bodyRef{chunk: r.cur, off: r.off, n: len(text)}
	r.off += len(text)
	r.newest[r.cur] = seq
	return ref, reused
}

// write copies a text to where put placed it.
func (r *bodyRing) write(ref bodyRef, text []byte) {
	if ref.n == 0 || ref.kept != nil {
		return
	}
	copy(r.chunks[ref.chunk][ref.off:ref.off+ref.n], text)
}

// text returns the text at ref (nil for an empty one); it is valid until
// the ring is written again.
func (r *bodyRing) text(ref bodyRef) []byte {
	if ref.n == 0 || ref.kept != nil {
		return ref.kept
	}
	return r.chunks[ref.chunk][ref.off : ref.off+ref.n]
}
