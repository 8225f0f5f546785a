// Package idstyle is the SDK plumbing of resources addressed in the ?id=
// style (GET /v1/x lists, GET /v1/x?id= reads, DELETE /v1/x?id= removes,
// POST /v1/x writes): one typed Resource per service, so each service is
// only its wire types and doc comments.
package idstyle

import (
	"context"
	"encoding/json"
	"iter"
	"net/http"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// Resource reads and writes records of type T at Path. Lists answer
// {ListKey: [...], has_more}; CreatedAt gives the cursor of an item.
type Resource[T any] struct {
	B         *voiceagent.Backend
	Path      string
	ListKey   string
	CreatedAt func(*T) time.Time
}

// Get reads one record.
func (r Resource[T]) Get(ctx context.Context, id string, opts ...voiceagent.Option) (*T, error) {
	var out T
	if err := r.B.Do(ctx, http.MethodGet, r.Path, voiceagent.IDQuery{ID: id}, nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// Post sends body to path (r.Path when empty) and decodes the answer as T.
func (r Resource[T]) Post(ctx context.Context, path string, body any, opts ...voiceagent.Option) (*T, error) {
	if path == "" {
		path = r.Path
	}
	var out T
	if err := r.B.Do(ctx, http.MethodPost, path, nil, body, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// Delete removes one record and decodes the answer as D.
func Delete[D, T any](ctx context.Context, r Resource[T], id string, opts ...voiceagent.Option) (*D, error) {
	var out D
	if err := r.B.Do(ctx, http.MethodDelete, r.Path, voiceagent.IDQuery{ID: id}, nil, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// List reads one page; query is a struct with `url:` tags (or nil).
func (r Resource[T]) List(ctx context.Context, query any, opts ...voiceagent.Option) (*voiceagent.Page[T], error) {
	var raw map[string]json.RawMessage
	if err := r.B.Do(ctx, http.MethodGet, r.Path, query, nil, &raw, opts...); err != nil {
		return nil, err
	}
	var items []T
	if v, ok := raw[r.ListKey]; ok {
		if err := json.Unmarshal(v, &items); err != nil {
			return nil, err
		}
	}
	var more bool
	if v, ok := raw["has_more"]; ok {
		if err := json.Unmarshal(v, &more); err != nil {
			return nil, err
		}
	}
	return voiceagent.NewPage(items, more, r.CreatedAt), nil
}

// All walks every page of the list params p (nil: none), starting at their
// cursor; after points at the cursor field of a params value. It is
// voiceagent.All over r.List; a service with its own List method calls
// voiceagent.All with that method instead.
func All[T, P any](ctx context.Context, r Resource[T], p *P, after func(*P) *string, opts ...voiceagent.Option) iter.Seq2[*T, error] {
	return voiceagent.All(ctx, p, after, func(ctx context.Context, q *P, opts ...voiceagent.Option) (*voiceagent.Page[T], error) {
		return r.List(ctx, q, opts...)
	}, opts...)
}
