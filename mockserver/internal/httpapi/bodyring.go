package httpapi

// bodyRing keeps the journal's texts (the headers and the bodies of its
// entries) in chunks of bytes, so that journaling a request allocates
// nothing once the journal is warm. A text goes at the end of the chunk
// being written; when that is full, the next text goes into a chunk whose
// texts all belong to dropped entries, or a new chunk while the ring
// holds less than the journal's byte budget, or else the chunk with the
// oldest texts, whose entries the journal then drops (put says up to
// which). A record keeps its texts as slices of a chunk (bodyRef), valid
// until the chunk is written again, and a read copies them out.
type bodyRing struct {
	chunks [][]byte
	// newest[i] is the largest Seq of an entry with a text in chunks[i].
	newest []int64
	cur    int // the chunk being written
	off    int // where the next text goes in it
	room   int // the bytes of the chunks at most
}

// bodyRef is a text of the ring (a slice of a chunk), or the text itself
// when it is bytes nobody changes (a kept page, see Response.shared).
type bodyRef struct {
	b    []byte
	kept bool
}

// The ring's chunks: the first is firstRingChunk bytes and each next one
// twice the size, up to ringChunk, so that a server that journals little
// keeps little. A text (a body, at most JournalBodyCap bytes, or an
// entry's headers, at most twice maxHeaderText) always fits in one.
const (
	firstRingChunk = 64 << 10
	ringChunk      = 1 << 20
)

// The texts of one entry at their bounds (the request's and the answer's
// headers and bodies) fit in the first chunk, so that an entry's texts
// move to a new chunk at most once and never overwrite each other: this
// does not compile otherwise.
const _ = uint(firstRingChunk - 2*maxHeaderText - 2*JournalBodyCap)

// newBodyRing returns a ring holding up to maxBytes of texts, and the
// chunk being written.
func newBodyRing(maxBytes int64) bodyRing {
	return bodyRing{room: int(min(maxBytes, 1<<40)) + ringChunk}
}

// put places a text of entry seq, the oldest entry kept being first:
// where it goes (nothing for an empty text), and the Seq of the newest
// entry whose texts are where it goes (0: none), which must be dropped
// before the text is written.
func (r *bodyRing) put(text []byte, seq, first int64) (ref bodyRef, reused int64) {
	if len(text) == 0 {
		return bodyRef{}, 0
	}
	if len(r.chunks) == 0 || r.off+len(text) > len(r.chunks[r.cur]) {
		r.cur, reused = r.next(first)
		r.off = 0
	}
	ref = bodyRef{b: r.chunks[r.cur][r.off : r.off+len(text) : r.off+len(text)]}
	r.off += len(text)
	r.newest[r.cur] = seq
	return ref, reused
}

// next chooses the chunk to write next (see bodyRing) and returns it with
// the Seq of the newest entry whose texts it holds (0: none are kept).
func (r *bodyRing) next(first int64) (int, int64) {
	oldest, size := -1, 0
	for i, c := range r.chunks {
		size += len(c)
		if i == r.cur && len(r.chunks) > 1 {
			continue
		}
		if r.newest[i] < first {
			return i, 0 // its entries are all dropped
		}
		if oldest < 0 || r.newest[i] < r.newest[oldest] {
			oldest = i
		}
	}
	if grow := min(firstRingChunk<<min(len(r.chunks), 8), ringChunk); oldest < 0 || size+grow <= r.room {
		r.chunks = append(r.chunks, make([]byte, grow))
		r.newest = append(r.newest, 0)
		return len(r.chunks) - 1, 0
	}
	return oldest, r.newest[oldest]
}

// write copies a text to where put placed it.
func (r *bodyRing) write(ref bodyRef, text []byte) {
	if !ref.kept {
		copy(ref.b, text)
	}
}
