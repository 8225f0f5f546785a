package voiceagent

import (
	"context"
	"errors"
	"iter"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeItem and fakeService show the pattern every resource follows: its All
// is All over its List.
type fakeItem struct {
	N         int
	CreatedAt time.Time
}

type fakeParams struct {
	Status string
	Limit  int
	After  string
}

type fakeService struct {
	items   []fakeItem // newest first
	fetches []fakeParams
	fail    map[int]error // fetch number -> error
	stuck   bool          // answer the same page forever
}

var fakeEpoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func newFakeService(n int) *fakeService {
	s := &fakeService{fail: map[int]error{}}
	for i := n - 1; i >= 0; i-- {
		s.items = append(s.items, fakeItem{N: i, CreatedAt: fakeEpoch.Add(time.Duration(i) * time.Second)})
	}
	return s
}

func (s *fakeService) List(_ context.Context, p *fakeParams, _ ...Option) (*Page[fakeItem], error) {
	s.fetches = append(s.fetches, *p)
	if err := s.fail[len(s.fetches)]; err != nil {
		return nil, err
	}
	start := 0
	if p.After != "" && !s.stuck {
		after, err := time.Parse(time.RFC3339Nano, p.After)
		if err != nil {
			return nil, err
		}
		for start < len(s.items) && !s.items[start].CreatedAt.Before(after) {
			start++
		}
	}
	end := min(start+p.Limit, len(s.items))
	return NewPage(s.items[start:end], end < len(s.items), func(it *fakeItem) time.Time { return it.CreatedAt }), nil
}

func (s *fakeService) All(ctx context.Context, p *fakeParams) iter.Seq2[*fakeItem, error] {
	return All(ctx, p, func(q *fakeParams) *string { return &q.After }, s.List)
}

func TestIterateWalksEveryPageInOrder(t *testing.T) {
	t.Parallel()
	s := newFakeService(10)
	p := &fakeParams{Status: "new", Limit: 3}
	var got []int
	for it, err := range s.All(context.Background(), p) {
		require.NoError(t, err)
		got = append(got, it.N)
	}
	assert.Equal(t, []int{9, 8, 7, 6, 5, 4, 3, 2, 1, 0}, got)
	require.Len(t, s.fetches, 4)
	assert.Equal(t, "", s.fetches[0].After)
	assert.Equal(t, Cursor(fakeEpoch.Add(7*time.Second)), s.fetches[1].After)
	for _, f := range s.fetches {
		assert.Equal(t, "new", f.Status, "filters ride along on every page")
	}
	assert.Equal(t, &fakeParams{Status: "new", Limit: 3}, p, "the caller's params are never changed")

	// The same sequence can be walked again, from the caller's cursor.
	n := 0
	for _, err := range s.All(context.Background(), &fakeParams{Limit: 4, After: Cursor(fakeEpoch.Add(5 * time.Second))}) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 5, n, "items older than the starting cursor")
}

func TestIterateStopsCleanlyOnBreak(t *testing.T) {
	t.Parallel()
	s := newFakeService(10)
	var got []int
	for it, err := range s.All(context.Background(), &fakeParams{Limit: 3}) {
		require.NoError(t, err)
		got = append(got, it.N)
		if it.N == 6 {
			break
		}
	}
	assert.Equal(t, []int{9, 8, 7, 6}, got)
	assert.Len(t, s.fetches, 2, "no page is fetched after the break")

	s = newFakeService(6)
	for range s.All(context.Background(), &fakeParams{Limit: 3}) {
		break
	}
	assert.Len(t, s.fetches, 1)
}

func TestIterateYieldsAnErrorOnceAndStops(t *testing.T) {
	t.Parallel()
	s := newFakeService(10)
	boom := errors.New("boom")
	s.fail[2] = boom
	var got []int
	var errs []error
	for it, err := range s.All(context.Background(), &fakeParams{Limit: 3}) {
		if err != nil {
			errs = append(errs, err)
			assert.Nil(t, it)
			continue // a caller that keeps going still gets no more
		}
		got = append(got, it.N)
	}
	assert.Equal(t, []int{9, 8, 7}, got)
	assert.Equal(t, []error{boom}, errs)
	assert.Len(t, s.fetches, 2)
}

func TestIterateReportsAStuckCursor(t *testing.T) {
	t.Parallel()
	s := newFakeService(10)
	s.stuck = true
	var errs []error
	n := 0
	for _, err := range s.All(context.Background(), &fakeParams{Limit: 3}) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	require.Len(t, errs, 1)
	assert.ErrorIs(t, errs[0], ErrCursorStuck)
	assert.Equal(t, 6, n, "the first page, then the same page again, then the error")
	assert.Len(t, s.fetches, 2)

	// HasMore with an empty page has no cursor to move to.
	empty := Iterate(context.Background(), "", func(context.Context, string) (*Page[fakeItem], error) {
		return &Page[fakeItem]{HasMore: true}, nil
	})
	for _, err := range empty {
		assert.ErrorIs(t, err, ErrCursorStuck)
	}
}

func TestIteratePassesTheContext(t *testing.T) {
	t.Parallel()
	type key struct{}
	ctx := context.WithValue(context.Background(), key{}, "v")
	pages := 0
	seq := Iterate(ctx, "", func(got context.Context, cursor string) (*Page[fakeItem], error) {
		assert.Equal(t, "v", got.Value(key{}))
		pages++
		return &Page[fakeItem]{Data: []fakeItem{{N: pages}}}, nil
	})
	for range seq {
	}
	assert.Equal(t, 1, pages, "a page without more ends the walk")
}

func TestNewPageAndCursor(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 3, 4, 5, 6, 7, 8, time.FixedZone("x", 3600))
	p := NewPage([]fakeItem{{N: 1, CreatedAt: at.Add(time.Hour)}, {N: 2, CreatedAt: at}}, true, func(it *fakeItem) time.Time { return it.CreatedAt })
	assert.Equal(t, "2026-03-04T04:06:07.000000008Z", p.NextCursor, "UTC with nanoseconds")
	assert.True(t, p.HasMore)
	empty := NewPage[fakeItem](nil, false, func(it *fakeItem) time.Time { return it.CreatedAt })
	assert.Empty(t, empty.NextCursor)
	assert.Equal(t, strconv.Itoa(2), strconv.Itoa(p.Data[1].N))
}
