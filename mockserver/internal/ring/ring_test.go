package ring

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// model is the plain form of a Log: a slice of the kept entries, oldest
// first, trimmed by the rules the package comment states.
type model struct {
	seqs, costs []int64
	next        int64
	size        int
	maxBytes    int64
	dropped     []int64
}

func (m *model) bytes() int64 {
	var n int64
	for _, c := range m.costs {
		n += c
	}
	return n
}

func (m *model) dropOldest() {
	m.dropped = append(m.dropped, m.seqs[0])
	m.seqs, m.costs = m.seqs[1:], m.costs[1:]
}

func (m *model) push(cost int64) {
	m.seqs, m.costs = append(m.seqs, m.next), append(m.costs, cost)
	m.next++
	for len(m.seqs) > m.size || (m.bytes() > m.maxBytes && len(m.seqs) > 1) {
		m.dropOldest()
	}
}

func (m *model) recount(seq, cost int64) {
	for i, s := range m.seqs {
		if s == seq {
			m.costs[i] = cost
		}
	}
	for m.bytes() > m.maxBytes && len(m.seqs) > 1 {
		m.dropOldest()
	}
}

func (m *model) dropThrough(seq int64) {
	for len(m.seqs) > 0 && m.seqs[0] <= seq {
		m.dropOldest()
	}
}

// TestLogKeepsWhatTheModelKeeps drives a Log and the model with the same
// random pushes, recounts and drops, for several bounds, and compares
// them after every step: the entries kept, their numbers, the bytes and
// the entries let go.
func TestLogKeepsWhatTheModelKeeps(t *testing.T) {
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
		for step := range 3_000 {
			switch op := rng.IntN(10); {
			case op < 7:
				cost := rng.Int64N(60)
				if rng.IntN(50) == 0 {
					cost = bounds.maxBytes + 1 // larger than the log: kept alone
				}
				seq := l.Push(l.Next(), cost)
				m.push(cost)
				require.Equal(t, m.next-1, seq)
			case op < 9:
				seq := l.First() + rng.Int64N(int64(l.Len())+2) - 1
				cost := rng.Int64N(120)
				l.Recount(seq, cost)
				m.recount(seq, cost)
			default:
				seq := l.First() + rng.Int64N(4)
				l.DropThrough(seq)
				m.dropThrough(seq)
			}
			require.Equal(t, len(m.seqs), l.Len(), "step %d", step)
			require.Equal(t, m.bytes(), l.Bytes(), "step %d", step)
			require.Equal(t, m.dropped, dropped, "step %d", step)
			require.LessOrEqual(t, l.Slots(), l.Cap())
			var kept []int64
			l.Each(func(seq int64, v *int64) bool {
				require.Equal(t, seq, *v)
				kept = append(kept, seq)
				return true
			})
			if len(m.seqs) == 0 {
				require.Empty(t, kept, "step %d", step)
			} else {
				require.Equal(t, m.seqs, kept, "step %d", step)
			}
		}
	}
}

func TestLogGrowsItsSlotsAsEntriesCome(t *testing.T) {
	l := New[string](10_000, 1<<30, 1, nil)
	assert.Zero(t, l.Slots(), "an empty log holds no slots")
	for range 3 {
		l.Push("x", 1)
	}
	assert.Equal(t, 64, l.Slots(), "a log that keeps little holds little")
	for range 100 {
		l.Push("y", 1)
	}
	assert.Equal(t, 128, l.Slots())
	assert.Equal(t, "x", *l.At(1), "growing keeps every entry")
	assert.Equal(t, "y", *l.At(103))
	assert.Nil(t, l.At(104), "not yet pushed")
	assert.Nil(t, l.At(0))

	small := New[string](100, 1<<30, 0, nil)
	for range 1_000 {
		small.Push("z", 1)
	}
	assert.Equal(t, 100, small.Slots(), "never more slots than entries kept")
	assert.Equal(t, int64(900), small.First())

	l.Reset(1)
	assert.Zero(t, l.Slots())
	assert.Zero(t, l.Len())
	assert.Zero(t, l.Bytes())
	assert.Equal(t, int64(1), l.Push("again", 3))
}

func TestLogEachStopsWhenAsked(t *testing.T) {
	l := New[int](10, 100, 0, nil)
	for i := range 5 {
		l.Push(i, 1)
	}
	var seen []int
	l.Each(func(_ int64, v *int) bool {
		seen = append(seen, *v)
		return len(seen) < 2
	})
	assert.Equal(t, []int{0, 1}, seen)
}

// ExampleLog keeps the newest entries of a log bounded in count and bytes.
func ExampleLog() {
	l := New[string](3, 10, 1, nil)
	for _, s := range []string{"a", "bb", "ccc", "dddd", "eeeee"} {
		l.Push(s, int64(len(s)))
	}
	l.Each(func(seq int64, v *string) bool {
		fmt.Println(seq, *v)
		return true
	})
	fmt.Println(l.Len(), "entries,", l.Bytes(), "bytes")
	// Output:
	// 4 dddd
	// 5 eeeee
	// 2 entries, 9 bytes
}
