package ring

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// model is the plain form of a Log: a slice of the kept entries, oldest
// first, each with its bucket, trimmed by the rules the package comment
// states.
type model struct {
	seqs, costs []int64
	buckets     []string
	next        int64
	size        int
	maxBytes    int64
	dropped     []int64
}

// bucket returns the count and the bytes of bucket b.
func (m *model) bucket(b string) (int, int64) {
	n, bytes := 0, int64(0)
	for i, name := range m.buckets {
		if name == b {
			n++
			bytes += m.costs[i]
		}
	}
	return n, bytes
}

func (m *model) bytes() int64 {
	var n int64
	for _, c := range m.costs {
		n += c
	}
	return n
}

func (m *model) remove(i int) {
	m.seqs = slices.Delete(m.seqs, i, i+1)
	m.costs = slices.Delete(m.costs, i, i+1)
	m.buckets = slices.Delete(m.buckets, i, i+1)
}

func (m *model) dropOldest(b string) {
	i := slices.Index(m.buckets, b)
	m.dropped = append(m.dropped, m.seqs[i])
	m.remove(i)
}

func (m *model) push(b string, cost int64) {
	for n, bytes := m.bucket(b); n > 0 && (n >= m.size || bytes+cost > m.maxBytes); n, bytes = m.bucket(b) {
		m.dropOldest(b)
	}
	m.seqs, m.costs, m.buckets = append(m.seqs, m.next), append(m.costs, cost), append(m.buckets, b)
	m.next++
}

func (m *model) recount(seq, cost int64) {
	i := slices.Index(m.seqs, seq)
	if i < 0 {
		return
	}
	m.costs[i] = cost
	b := m.buckets[i]
	for n, bytes := m.bucket(b); bytes > m.maxBytes && n > 1; n, bytes = m.bucket(b) {
		m.dropOldest(b)
	}
}

func (m *model) removeSeq(seq int64) {
	if i := slices.Index(m.seqs, seq); i >= 0 {
		m.remove(i)
	}
}

// TestLogKeepsWhatTheModelKeeps drives a Log and the model with the same
// random pushes into buckets of different rates, recounts and removals,
// for several bounds, and compares them after every step: the entries
// kept, their numbers, each bucket's count and bytes, the entries let go,
// and slots that stay within a small multiple of the entries kept.
func TestLogKeepsWhatTheModelKeeps(t *testing.T) {
	buckets := []string{"busy", "busy", "busy", "busy", "quiet", "", "rare"}
	for _, bounds := range []struct {
		size     int
		maxBytes int64
	}{{1, 100}, {3, 1 << 20}, {70, 500}, {200, 2_000}, {1_000, 40}} {
		rng := rand.New(rand.NewPCG(uint64(bounds.size), uint64(bounds.maxBytes)))
		const start = 5
		m := &model{next: start, size: bounds.size, maxBytes: bounds.maxBytes}
		var dropped []int64
		l := New(bounds.size, bounds.maxBytes, start, func(seq int64, v *int64) {
			require.Equal(t, seq, *v, "dropped is called with the entry numbered seq")
			dropped = append(dropped, seq)
		})
		for step := range 4_000 {
			switch op := rng.IntN(20); {
			case op < 15:
				b := buckets[rng.IntN(len(buckets))]
				cost := rng.Int64N(60)
				if rng.IntN(50) == 0 {
					cost = bounds.maxBytes + 1 // larger than a bucket: kept alone
				}
				seq := l.Push(b, l.Next(), cost)
				m.push(b, cost)
				require.Equal(t, m.next-1, seq)
			case op < 18:
				seq := l.Next() - 1 - rng.Int64N(int64(l.Len())+2)
				cost := rng.Int64N(120)
				l.Recount(seq, cost)
				m.recount(seq, cost)
			default:
				seq := l.Next() - 1 - rng.Int64N(int64(l.Len())+2)
				l.Remove(seq)
				m.removeSeq(seq)
			}
			// Plain comparisons: testify's, made every step, would be most
			// of the test's time under -race.
			if l.Len() != len(m.seqs) || l.Bytes() != m.bytes() || !slices.Equal(m.dropped, dropped) {
				t.Fatalf("step %d: %d entries of %d bytes, dropped %v; want %d of %d, dropped %v",
					step, l.Len(), l.Bytes(), dropped, len(m.seqs), m.bytes(), m.dropped)
			}
			for _, b := range buckets {
				n, bytes := m.bucket(b)
				if gotN, gotBytes := l.Bucket(b); gotN != n || gotBytes != bytes || n > bounds.size {
					t.Fatalf("step %d: bucket %q holds %d entries of %d bytes, want %d of %d", step, b, gotN, gotBytes, n, bytes)
				}
			}
			if l.Slots() > 4*l.Len()+65 {
				t.Fatalf("step %d: %d slots for %d entries", step, l.Slots(), l.Len())
			}
			var kept []int64
			l.Each(func(seq int64, v *int64) bool {
				if *v != seq {
					t.Fatalf("step %d: entry %d holds %d", step, seq, *v)
				}
				kept = append(kept, seq)
				return true
			})
			if !slices.Equal(m.seqs, kept) {
				t.Fatalf("step %d: kept %v, want %v", step, kept, m.seqs)
			}
			if step%100 == 0 {
				for _, seq := range m.seqs {
					require.Equal(t, seq, *l.At(seq))
				}
			}
		}
	}
}

// TestABusyBucketNeverPushesOutAnother fills one bucket far past its
// bounds while another holds a few old entries: the quiet bucket keeps
// every entry, the busy one its newest, and the slots stay near the
// entries kept.
func TestABusyBucketNeverPushesOutAnother(t *testing.T) {
	l := New[string](100, 1<<30, 1, nil)
	for range 3 {
		l.Push("quiet", "q", 1)
	}
	for range 100_000 {
		l.Push("busy", "b", 1)
	}
	n, _ := l.Bucket("quiet")
	assert.Equal(t, 3, n)
	n, _ = l.Bucket("busy")
	assert.Equal(t, 100, n)
	assert.Equal(t, "q", *l.At(1), "the oldest entry of the quiet bucket")
	assert.Equal(t, "b", *l.At(l.Next() - 1))
	assert.Nil(t, l.At(l.Next()-101), "the busy bucket's older entries went")
	assert.LessOrEqual(t, l.Slots(), 4*l.Len()+65)
}

func TestLogReset(t *testing.T) {
	l := New[string](10, 1<<30, 1, nil)
	for range 5 {
		l.Push("a", "x", 1)
	}
	assert.Nil(t, l.At(6), "not yet pushed")
	assert.Nil(t, l.At(0))
	l.Reset(1)
	assert.Zero(t, l.Slots())
	assert.Zero(t, l.Len())
	assert.Zero(t, l.Bytes())
	n, _ := l.Bucket("a")
	assert.Zero(t, n)
	assert.Equal(t, int64(1), l.Push("a", "again", 3))
}

func TestLogEachStopsWhenAsked(t *testing.T) {
	l := New[int](10, 100, 0, nil)
	for i := range 5 {
		l.Push("", i, 1)
	}
	var seen []int
	l.Each(func(_ int64, v *int) bool {
		seen = append(seen, *v)
		return len(seen) < 2
	})
	assert.Equal(t, []int{0, 1}, seen)
}

// ExampleLog keeps the newest entries of each bucket, bounded in count and
// bytes.
func ExampleLog() {
	l := New[string](3, 10, 1, nil)
	for _, s := range []string{"a", "bb", "ccc", "dddd", "eeeee"} {
		l.Push("tenant-1", s, int64(len(s)))
	}
	l.Push("tenant-2", "z", 1)
	l.Each(func(seq int64, v *string) bool {
		fmt.Println(seq, *v)
		return true
	})
	fmt.Println(l.Len(), "entries,", l.Bytes(), "bytes")
	// Output:
	// 4 dddd
	// 5 eeeee
	// 6 z
	// 3 entries, 10 bytes
}

// Removing a bucket lets go of its entries alone, without calling dropped,
// and leaves the log's slots small however many buckets come and go.
func TestRemoveBucketLetsGoOfOneBucket(t *testing.T) {
	var dropped int
	l := New[string](100, 1<<30, 1, func(int64, *string) { dropped++ })
	for i := range 10 {
		l.Push("keep", fmt.Sprint("k", i), 2)
		l.Push("gone", fmt.Sprint("g", i), 3)
	}
	assert.Equal(t, 10, l.RemoveBucket("gone"))
	assert.Zero(t, dropped, "a removal is the owner's: dropped is not called")
	n, bytes := l.Bucket("gone")
	assert.Zero(t, n)
	assert.Zero(t, bytes)
	n, _ = l.Bucket("keep")
	assert.Equal(t, 10, n)
	assert.Equal(t, int64(20), l.Bytes())
	assert.Equal(t, "k0", *l.At(1))
	assert.Nil(t, l.At(2), "the removed bucket's first entry")
	assert.Zero(t, l.RemoveBucket("gone"), "nothing is left to remove")
	assert.Zero(t, l.RemoveBucket("never"))

	for round := range 1000 {
		name := fmt.Sprint("tenant-", round)
		for range 20 {
			l.Push(name, "x", 1)
		}
		require.Equal(t, 20, l.RemoveBucket(name))
	}
	assert.Equal(t, 10, l.Len())
	assert.LessOrEqual(t, l.Slots(), 4*l.Len()+65, "the holes of removed buckets are taken out")
	assert.Len(t, l.buckets, 1, "no bucket is kept for a removed name")
}
