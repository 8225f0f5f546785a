package voiceagent

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestListPageDecodesTheItemsUnderTheKey(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, jsonAnswer(200, `{"other":[{"n":9}],"things":[{"n":2,"created_at":"2026-01-02T00:00:00Z"},`+
		`{"n":1,"created_at":"2026-01-01T00:00:00.5Z"}],"has_more":true,"extra":{"x":1}}`))
	type thing struct {
		N         int       `json:"n"`
		CreatedAt time.Time `json:"created_at"`
	}
	q := struct {
		Limit int `url:"limit"`
	}{2}
	page, err := ListPage(context.Background(), f.backend(), "/v1/things", "things", q,
		func(x *thing) time.Time { return x.CreatedAt }, WithHeader("X-Test", "1"))
	require.NoError(t, err)
	require.Len(t, page.Data, 2)
	assert.Equal(t, []int{2, 1}, []int{page.Data[0].N, page.Data[1].N}, "only the key's items")
	assert.True(t, page.HasMore)
	assert.Equal(t, "2026-01-01T00:00:00.5Z", page.NextCursor)
	r := f.req(0)
	assert.Equal(t, http.MethodGet, r.Method)
	assert.Equal(t, "/api/v1/things", r.URL.Path)
	assert.Equal(t, "2", r.URL.Query().Get("limit"))
	assert.Equal(t, "1", r.Header.Get("X-Test"), "options reach the request")

	// An answer without the key is an empty last page.
	f = newFakeAPI(t, jsonAnswer(200, `{"has_more":false}`))
	page, err = ListPage(context.Background(), f.backend(), "/v1/things", "things", nil, func(x *thing) time.Time { return x.CreatedAt })
	require.NoError(t, err)
	assert.Empty(t, page.Data)
	assert.False(t, page.HasMore)
	assert.Empty(t, page.NextCursor)

	// Errors are the backend's.
	f = newFakeAPI(t, jsonAnswer(404, `{"error":{"code":"not_found","message":"no"}}`))
	_, err = ListPage(context.Background(), f.backend(), "/v1/things", "things", nil, func(x *thing) time.Time { return x.CreatedAt })
	assert.ErrorIs(t, err, ErrNotFound)
	f = newFakeAPI(t, jsonAnswer(200, `{"things":{"n":1}}`))
	_, err = ListPage(context.Background(), f.backend(), "/v1/things", "things", nil, func(x *thing) time.Time { return x.CreatedAt })
	assert.Error(t, err, "a malformed answer")
}

func TestSendDecodesTheAnswer(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, jsonAnswer(201, `{"id":"x1","name":"Ada"}`))
	type rec struct {
		ID   string `json:"id"`
		Name string `json:"name"`
	}
	got, err := Send[rec](context.Background(), f.backend(), http.MethodPost, "/v1/recs", IDQuery{ID: "q"}, map[string]string{"name": "Ada"})
	require.NoError(t, err)
	assert.Equal(t, &rec{ID: "x1", Name: "Ada"}, got)
	assert.Equal(t, "q", f.req(0).URL.Query().Get("id"))
	assert.JSONEq(t, `{"name":"Ada"}`, f.body(0))

	f = newFakeAPI(t, jsonAnswer(404, `{"error":{"code":"not_found","message":"no"}}`))
	got, err = Send[rec](context.Background(), f.backend(), http.MethodGet, "/v1/recs", IDQuery{ID: "q"}, nil)
	assert.ErrorIs(t, err, ErrNotFound)
	assert.Nil(t, got)
}

func TestListItemsDecodesAnUnpaginatedList(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, jsonAnswer(200, `{"voices":[{"id":"v1"},{"id":"v2"}],"count":2}`))
	type voice struct {
		ID string `json:"id"`
	}
	got, err := ListItems[voice](context.Background(), f.backend(), "/v1/voices", "voices", nil)
	require.NoError(t, err)
	assert.Equal(t, []voice{{"v1"}, {"v2"}}, got)

	f = newFakeAPI(t, jsonAnswer(403, `{"error":{"code":"forbidden","message":"no"}}`))
	got, err = ListItems[voice](context.Background(), f.backend(), "/v1/voices", "voices", nil)
	assert.ErrorIs(t, err, ErrForbidden)
	assert.Nil(t, got)
}
