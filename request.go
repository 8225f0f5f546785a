package voiceagent

import (
	"context"
	"net/http"
	"reflect"
	"strconv"
	"time"
)

// Send sends one request with [Backend.Do] and returns the answer decoded
// as a new T: the body of every service method that reads or writes one
// record. query and body are as for Do.
func Send[T any](ctx context.Context, b *Backend, method, path string, query, body any, opts ...Option) (*T, error) {
	var out T
	if err := b.Do(ctx, method, path, query, body, &out, opts...); err != nil {
		return nil, err
	}
	return &out, nil
}

// ListPage reads one page of a list: a GET of path with query (a struct
// with `url:` tags, or nil) answered as {<key>: [...], "has_more": bool}.
// createdAt gives an item's created_at, the next page's cursor (see
// [NewPage]). It is the body of every service's List.
func ListPage[T any](ctx context.Context, b *Backend, path, key string, query any, createdAt func(*T) time.Time, opts ...Option) (*Page[T], error) {
	items, more, err := getList[T](ctx, b, path, key, query, opts)
	if err != nil {
		return nil, err
	}
	return NewPage(items, more, createdAt), nil
}

// ListItems reads a list that is not paginated: a GET of path with query
// (or nil) answered as {<key>: [...]}.
func ListItems[T any](ctx context.Context, b *Backend, path, key string, query any, opts ...Option) ([]T, error) {
	items, _, err := getList[T](ctx, b, path, key, query, opts)
	return items, err
}

// getList GETs a list answered as {<key>: [...], "has_more": bool} (with or
// without has_more). The answer decodes in one pass into the type
// struct{ Items []T `json:"<key>"`; HasMore bool `json:"has_more"` }, as
// into a struct written by hand for the key (reflect keeps one such type
// per key and T).
func getList[T any](ctx context.Context, b *Backend, path, key string, query any, opts []Option) ([]T, bool, error) {
	out := reflect.New(reflect.StructOf([]reflect.StructField{
		{Name: "Items", Type: reflect.TypeFor[[]T](), Tag: reflect.StructTag("json:" + strconv.Quote(key))},
		{Name: "HasMore", Type: reflect.TypeFor[bool](), Tag: `json:"has_more"`},
	}))
	if err := b.Do(ctx, http.MethodGet, path, query, nil, out.Interface(), opts...); err != nil {
		return nil, false, err
	}
	v := out.Elem()
	return v.Field(0).Interface().([]T), v.Field(1).Bool(), nil
}
