package voiceagent

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAllCopiesTheParamsAndPassesTheOptions(t *testing.T) {
	t.Parallel()
	s := newFakeService(5)
	var seen []int // how many options each page got
	list := func(ctx context.Context, p *fakeParams, opts ...Option) (*Page[fakeItem], error) {
		seen = append(seen, len(opts))
		return s.List(ctx, p)
	}
	after := func(q *fakeParams) *string { return &q.After }
	p := &fakeParams{Status: "new", Limit: 2}
	seq := All(context.Background(), p, after, list, WithMaxRetries(1), WithHeader("X-Test", "1"))
	var got []int
	for it, err := range seq {
		require.NoError(t, err)
		got = append(got, it.N)
		p.Status = "changed while walking" // the walk reads its own copy
	}
	assert.Equal(t, []int{4, 3, 2, 1, 0}, got)
	assert.Equal(t, []int{2, 2, 2}, seen, "every page gets the options")
	assert.Equal(t, &fakeParams{Status: "changed while walking", Limit: 2}, p, "the cursor of the caller's params never moves")
	for _, f := range s.fetches {
		assert.Equal(t, "new", f.Status, "the params as they were when All was called")
	}

	// Walking again starts over from the original cursor.
	n := 0
	for _, err := range seq {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 5, n)

	// nil params are zero params.
	var fetched []fakeParams
	zero := func(_ context.Context, p *fakeParams, _ ...Option) (*Page[fakeItem], error) {
		fetched = append(fetched, *p)
		return &Page[fakeItem]{Data: []fakeItem{{N: 1}, {N: 2}}}, nil
	}
	n = 0
	for _, err := range All(context.Background(), nil, after, zero) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 2, n)
	assert.Equal(t, []fakeParams{{}}, fetched)
}
