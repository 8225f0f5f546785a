// Package idstyle is the SDK plumbing of resources addressed in the ?id=
// style (GET /v1/x lists, GET /v1/x?id= reads, DELETE /v1/x?id= removes,
// POST /v1/x writes): one typed Resource per service, so each service is
// only its wire types and doc comments.
package idstyle

import (
	"context"
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
	return voiceagent.Send[T](ctx, r.B, http.MethodGet, r.Path, voiceagent.IDQuery{ID: id}, nil, opts...)
}

// Post sends body to path (r.Path when empty) and decodes the answer as T.
func (r Resource[T]) Post(ctx context.Context, path string, body any, opts ...voiceagent.Option) (*T, error) {
	if path == "" {
		path = r.Path
	}
	return voiceagent.Send[T](ctx, r.B, http.MethodPost, path, nil, body, opts...)
}

// Delete removes one record and decodes the answer as D.
func Delete[D, T any](ctx context.Context, r Resource[T], id string, opts ...voiceagent.Option) (*D, error) {
	return voiceagent.Send[D](ctx, r.B, http.MethodDelete, r.Path, voiceagent.IDQuery{ID: id}, nil, opts...)
}

// List reads one page; query is a struct with `url:` tags (or nil).
func (r Resource[T]) List(ctx context.Context, query any, opts ...voiceagent.Option) (*voiceagent.Page[T], error) {
	return voiceagent.ListPage(ctx, r.B, r.Path, r.ListKey, query, r.CreatedAt, opts...)
}
