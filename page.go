package voiceagent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"time"
)

// Page is one page of a list: its items, whether more follow, and the cursor
// of the next page (the created_at of the last item).
type Page[T any] struct {
	// Data holds the items, newest first.
	Data []T
	// HasMore reports whether another page follows.
	HasMore bool
	// NextCursor is the value to pass as After for the next page.
	NextCursor string
}

// NewPage builds a Page whose NextCursor is the created_at of the last item.
func NewPage[T any](items []T, hasMore bool, createdAt func(*T) time.Time) *Page[T] {
	p := &Page[T]{Data: items, HasMore: hasMore}
	if len(items) > 0 {
		p.NextCursor = Cursor(createdAt(&items[len(items)-1]))
	}
	return p
}

// Cursor formats a created_at timestamp as a pagination cursor.
func Cursor(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// ErrCursorStuck is returned by iterators when the API reports more items
// but the cursor did not move, which would otherwise loop forever.
var ErrCursorStuck = errors.New("voiceagent: pagination cursor did not advance")

// Iterate walks every page that fetch returns, starting at cursor start
// (empty for the newest), yielding each item. It stops when the loop body
// breaks, when a page has no more items, on the first error (yielded once),
// and with ErrCursorStuck when a page claims more items without moving the
// cursor.
func Iterate[T any](ctx context.Context, start string, fetch func(ctx context.Context, cursor string) (*Page[T], error)) iter.Seq2[*T, error] {
	return func(yield func(*T, error) bool) {
		cursor := start
		for {
			page, err := fetch(ctx, cursor)
			if err != nil {
				yield(nil, err)
				return
			}
			for i := range page.Data {
				if !yield(&page.Data[i], nil) {
					return
				}
			}
			if !page.HasMore {
				return
			}
			if page.NextCursor == "" || page.NextCursor == cursor {
				yield(nil, fmt.Errorf("%w (cursor %q)", ErrCursorStuck, cursor))
				return
			}
			cursor = page.NextCursor
		}
	}
}

// All walks every page of a list, starting at the cursor of the params p
// (nil: zero params), yielding each item: the body of every service's All.
// cursor points at the params' cursor field (After) and list is the
// service's List, given opts on every page. Each page is fetched with a
// copy of *p whose cursor is moved, so the caller's params never change and
// the sequence can be walked again. It stops like Iterate.
//
//	func (s *Service) All(ctx context.Context, p *ListParams, opts ...voiceagent.Option) iter.Seq2[*Call, error] {
//		return voiceagent.All(ctx, p, func(q *ListParams) *string { return &q.After }, s.List, opts...)
//	}
func All[P, T any](ctx context.Context, p *P, cursor func(*P) *string, list func(context.Context, *P, ...Option) (*Page[T], error), opts ...Option) iter.Seq2[*T, error] {
	var base P
	if p != nil {
		base = *p
	}
	return Iterate(ctx, *cursor(&base), func(ctx context.Context, at string) (*Page[T], error) {
		q := base
		*cursor(&q) = at
		return list(ctx, &q, opts...)
	})
}
