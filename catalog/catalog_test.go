package catalog_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/catalog"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// requireAPIError asserts err is an *voiceagent.Error with the status and
// code, naming path in its details when path is not empty.
func requireAPIError(t *testing.T, err error, status int, code, path string) *voiceagent.Error {
	t.Helper()
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, status, apiErr.StatusCode, apiErr.Message)
	assert.Equal(t, code, apiErr.Code, apiErr.Message)
	if path != "" {
		var paths []string
		for _, d := range apiErr.Details {
			paths = append(paths, d.Path)
		}
		assert.Contains(t, paths, path, apiErr.Message)
	}
	return apiErr
}

func TestProductsCreateGetUpdateListDelete(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	biz := env.Account.BusinessID
	c := env.Client.Products

	p1, err := c.Create(ctx, &catalog.ProductCreateParams{
		BusinessID: biz, Name: "Drain cleaning", Description: voiceagent.String("Any drain, one hour."),
		Category: voiceagent.String("plumbing"), Price: voiceagent.Float64(149.5), SKU: voiceagent.String("DC-1"),
		Attributes: map[string]any{"duration": "1h"}, Quantity: voiceagent.Float64(3),
	})
	require.NoError(t, err)
	assert.NotEmpty(t, p1.ID)
	assert.Equal(t, biz, p1.BusinessID)
	assert.Equal(t, 149.5, *p1.Price)
	assert.Equal(t, map[string]any{"duration": "1h"}, p1.Attributes)

	// Name and SKU are not upsert keys: the same pair makes a second product.
	p2, err := c.Create(ctx, &catalog.ProductCreateParams{BusinessID: biz, Name: "Drain cleaning", SKU: voiceagent.String("DC-1")})
	require.NoError(t, err)
	assert.NotEqual(t, p1.ID, p2.ID)
	assert.Nil(t, p2.Price, "fields never set are null")

	up, err := c.Update(ctx, &catalog.ProductUpdateParams{ID: p1.ID, Price: voiceagent.Float64(0), BusinessID: voiceagent.String(biz)})
	require.NoError(t, err)
	assert.Equal(t, 0.0, *up.Price)
	assert.Equal(t, "Drain cleaning", up.Name, "unsent fields stay")
	assert.Equal(t, "DC-1", *up.SKU)
	assert.Equal(t, p1.CreatedAt, up.CreatedAt)

	got, err := c.Get(ctx, p1.ID)
	require.NoError(t, err)
	assert.Equal(t, up, got)

	_, err = c.Create(ctx, &catalog.ProductCreateParams{BusinessID: biz, Name: "Water heater", Category: voiceagent.String("heating")})
	require.NoError(t, err)
	page, err := c.List(ctx, &catalog.ProductListParams{Limit: 2})
	require.NoError(t, err)
	require.Len(t, page.Data, 2)
	assert.True(t, page.HasMore)
	assert.Equal(t, "Water heater", page.Data[0].Name, "newest first")
	var names []string
	p := &catalog.ProductListParams{Limit: 1}
	for prod, err := range c.All(ctx, p) {
		require.NoError(t, err)
		names = append(names, prod.ID)
	}
	assert.Len(t, names, 3)
	assert.Empty(t, p.After, "All does not change the caller's params")

	filtered, err := c.List(ctx, &catalog.ProductListParams{Category: "plumbing", SKU: "DC-1"})
	require.NoError(t, err)
	require.Len(t, filtered.Data, 1)
	assert.Equal(t, p1.ID, filtered.Data[0].ID)

	del, err := c.Delete(ctx, p2.ID)
	require.NoError(t, err)
	assert.Equal(t, &catalog.Deleted{Success: true, ID: p2.ID}, del)
	_, err = c.Get(ctx, p2.ID)
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
	_, err = c.Delete(ctx, p2.ID)
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
}

func TestProductUpsertRulesAndErrors(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	biz := env.Account.BusinessID
	c := env.Client.Products
	p, err := c.Create(ctx, &catalog.ProductCreateParams{BusinessID: biz, Name: "Tune-up"})
	require.NoError(t, err)
	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	otherClient := env.ClientFor(other.APIKey)
	theirs, err := otherClient.Products.Create(ctx, &catalog.ProductCreateParams{BusinessID: other.BusinessID, Name: "Theirs"})
	require.NoError(t, err)

	t.Run("business_id must match on update", func(t *testing.T) {
		_, err := c.Update(ctx, &catalog.ProductUpdateParams{ID: p.ID, BusinessID: voiceagent.String(other.BusinessID), Name: voiceagent.String("x")})
		requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest, "/business_id")
		got, err := c.Get(ctx, p.ID)
		require.NoError(t, err)
		assert.Equal(t, "Tune-up", got.Name, "a refused update changes nothing")
	})
	t.Run("update requires id", func(t *testing.T) {
		// Without id the body is a create, which needs business_id and name.
		err := env.Client.Do(ctx, http.MethodPost, "/v1/products", nil, map[string]any{"price": 3}, nil)
		apiErr := requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest, "/")
		assert.Contains(t, apiErr.Message, "business_id")
		_, err = c.Update(ctx, &catalog.ProductUpdateParams{ID: "", Price: voiceagent.Float64(1)})
		requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest, "/id")
	})
	t.Run("an id that is absent is an update of nothing", func(t *testing.T) {
		_, err := c.Update(ctx, &catalog.ProductUpdateParams{ID: "00000000-0000-4000-8000-000000000000", Name: voiceagent.String("x")})
		assert.ErrorIs(t, err, voiceagent.ErrNotFound)
	})
	t.Run("schema bounds", func(t *testing.T) {
		_, err := c.Create(ctx, &catalog.ProductCreateParams{BusinessID: biz, Name: "x", Price: voiceagent.Float64(-1)})
		requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest, "/price")
		_, err = c.Create(ctx, &catalog.ProductCreateParams{BusinessID: biz, Name: ""})
		requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest, "/name")
		err = env.Client.Do(ctx, http.MethodPost, "/v1/products", nil, map[string]any{"business_id": biz, "name": "x", "stock": 1}, nil)
		requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest, "")
		_, err = c.List(ctx, &catalog.ProductListParams{Limit: 101})
		requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest, "limit")
	})
	t.Run("another tenant", func(t *testing.T) {
		_, err := c.Get(ctx, theirs.ID)
		assert.ErrorIs(t, err, voiceagent.ErrNotFound)
		_, err = c.Update(ctx, &catalog.ProductUpdateParams{ID: theirs.ID, Name: voiceagent.String("mine")})
		assert.ErrorIs(t, err, voiceagent.ErrNotFound)
		_, err = c.Delete(ctx, theirs.ID)
		assert.ErrorIs(t, err, voiceagent.ErrNotFound)
		_, err = c.Create(ctx, &catalog.ProductCreateParams{BusinessID: other.BusinessID, Name: "x"})
		assert.ErrorIs(t, err, voiceagent.ErrForbidden)
		_, err = c.List(ctx, &catalog.ProductListParams{BusinessID: other.BusinessID})
		assert.ErrorIs(t, err, voiceagent.ErrForbidden)
		mine, err := c.List(ctx, nil)
		require.NoError(t, err)
		require.Len(t, mine.Data, 1)
		assert.Equal(t, p.ID, mine.Data[0].ID)
	})
	t.Run("scopes", func(t *testing.T) {
		ro := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"products:read"}})
		roc := env.ClientFor(ro.APIKey)
		_, err := roc.Products.List(ctx, nil)
		require.NoError(t, err)
		_, err = roc.Products.Create(ctx, &catalog.ProductCreateParams{BusinessID: ro.BusinessID, Name: "x"})
		assert.ErrorIs(t, err, voiceagent.ErrForbidden)
		_, err = roc.Products.Delete(ctx, p.ID)
		assert.ErrorIs(t, err, voiceagent.ErrForbidden)
		none := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"knowledge:read"}})
		_, err = env.ClientFor(none.APIKey).Products.List(ctx, nil)
		assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	})
	t.Run("delete needs an id", func(t *testing.T) {
		err := env.Client.Do(ctx, http.MethodDelete, "/v1/products", nil, nil, nil)
		requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeBadRequest, "")
	})
}

func TestKnowledgeCreateUpdateNullsListDelete(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	biz := env.Account.BusinessID
	c := env.Client.Knowledge

	hours, err := c.Create(ctx, &catalog.KnowledgeCreateParams{BusinessID: biz, Title: "Opening hours",
		Content: "We are open Monday to Friday, 8am to 6pm.", ContentType: "faq",
		Category: voiceagent.String("hours"), Tags: []string{"hours", "schedule"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"hours", "schedule"}, hours.Tags)
	plain, err := c.Create(ctx, &catalog.KnowledgeCreateParams{BusinessID: biz, Title: "Opening hours", Content: "x", ContentType: "text"})
	require.NoError(t, err)
	assert.NotEqual(t, hours.ID, plain.ID, "title is not an upsert key")
	assert.Nil(t, plain.Category)
	assert.Nil(t, plain.Tags, "tags never set are null")

	up := &catalog.KnowledgeUpdateParams{ID: hours.ID, BusinessID: biz, Content: voiceagent.String("Open every day.")}
	up.SetNull("category", "tags")
	got, err := c.Update(ctx, up)
	require.NoError(t, err)
	assert.Equal(t, "Open every day.", got.Content)
	assert.Equal(t, "Opening hours", got.Title, "unsent fields stay")
	assert.Nil(t, got.Category, "null clears")
	assert.Nil(t, got.Tags)

	got, err = c.Update(ctx, &catalog.KnowledgeUpdateParams{ID: hours.ID, BusinessID: biz, Tags: []string{"daily"}, Category: voiceagent.String("hours")})
	require.NoError(t, err)
	assert.Equal(t, []string{"daily"}, got.Tags)

	byTag, err := c.List(ctx, &catalog.KnowledgeListParams{Tag: "daily"})
	require.NoError(t, err)
	require.Len(t, byTag.Data, 1)
	assert.Equal(t, hours.ID, byTag.Data[0].ID)
	byType, err := c.List(ctx, &catalog.KnowledgeListParams{ContentType: "text", Category: ""})
	require.NoError(t, err)
	require.Len(t, byType.Data, 1)
	assert.Equal(t, plain.ID, byType.Data[0].ID)
	n := 0
	for _, err := range c.All(ctx, &catalog.KnowledgeListParams{Limit: 1}) {
		require.NoError(t, err)
		n++
	}
	assert.Equal(t, 2, n)

	_, err = c.Delete(ctx, plain.ID)
	require.NoError(t, err)
	_, err = c.Get(ctx, plain.ID)
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
}

func TestKnowledgeUpsertRulesAndErrors(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	biz := env.Account.BusinessID
	c := env.Client.Knowledge
	k, err := c.Create(ctx, &catalog.KnowledgeCreateParams{BusinessID: biz, Title: "t", Content: "c", ContentType: "text"})
	require.NoError(t, err)
	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})

	// business_id is required on updates too, and must match.
	err = env.Client.Do(ctx, http.MethodPost, "/v1/knowledge", nil, map[string]any{"id": k.ID, "content": "d"}, nil)
	apiErr := requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest, "/")
	assert.Contains(t, apiErr.Message, "business_id")
	_, err = c.Update(ctx, &catalog.KnowledgeUpdateParams{ID: k.ID, BusinessID: other.BusinessID, Content: voiceagent.String("d")})
	requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest, "/business_id")
	// Create needs title, content and content_type.
	err = env.Client.Do(ctx, http.MethodPost, "/v1/knowledge", nil, map[string]any{"business_id": biz, "title": "t", "content": "c"}, nil)
	apiErr = requireAPIError(t, err, http.StatusBadRequest, voiceagent.CodeInvalidRequest, "/")
	assert.Contains(t, apiErr.Message, "content_type")
	_, err = c.Create(ctx, &catalog.KnowledgeCreateParams{BusinessID: other.BusinessID, Title: "t", Content: "c", ContentType: "text"})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	_, err = env.ClientFor(other.APIKey).Knowledge.Get(ctx, k.ID)
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)

	ro := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"knowledge:read"}})
	_, err = env.ClientFor(ro.APIKey).Knowledge.Create(ctx, &catalog.KnowledgeCreateParams{BusinessID: ro.BusinessID, Title: "t", Content: "c", ContentType: "text"})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	noScope := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"products:read"}})
	_, err = env.ClientFor(noScope.APIKey).Knowledge.List(ctx, nil)
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
}

// TestTheIntakeAgentAnswersFromKnowledge: an inbound caller's question that
// matches an entry is answered from it, and the call summary cites it.
func TestTheIntakeAgentAnswersFromKnowledge(t *testing.T) {
	t.Parallel()
	env := testenv.New(t)
	ctx := context.Background()
	_, err := env.Client.Knowledge.Create(ctx, &catalog.KnowledgeCreateParams{BusinessID: env.Account.BusinessID,
		Title: "Opening hours", Content: "We are open Monday to Saturday, 8am to 6pm. Closed on Sundays.",
		ContentType: "faq", Tags: []string{"hours"}})
	require.NoError(t, err)
	_, err = env.Client.Knowledge.Create(ctx, &catalog.KnowledgeCreateParams{BusinessID: env.Account.BusinessID,
		Title: "Emergency service", Content: "Burst pipes are handled within two hours, day and night.",
		ContentType: "faq", Tags: []string{"emergency", "pipes"}})
	require.NoError(t, err)

	asked, err := env.Server.InboundCall(mockserver.InboundCall{To: env.Account.PhoneNumber, From: "+15551239901",
		Caller: mockserver.Caller{Name: "Jane Doe", Said: "Hi, what are your opening hours on Saturday?"}})
	require.NoError(t, err)
	pipes, err := env.Server.InboundCall(mockserver.InboundCall{To: env.Account.PhoneNumber, From: "+15551239902",
		Caller: mockserver.Caller{Said: "A pipe burst in my kitchen!"}})
	require.NoError(t, err)
	other, err := env.Server.InboundCall(mockserver.InboundCall{To: env.Account.PhoneNumber, From: "+15551239903",
		Caller: mockserver.Caller{Said: "Can I speak to Bob?"}})
	require.NoError(t, err)
	env.Server.Advance(10 * time.Minute)

	call, err := env.Client.Calls.Get(ctx, asked)
	require.NoError(t, err)
	require.NotNil(t, call.Summary)
	assert.Contains(t, *call.Summary, `knowledge base entry "Opening hours": We are open Monday to Saturday, 8am to 6pm.`)
	call, err = env.Client.Calls.Get(ctx, pipes)
	require.NoError(t, err)
	assert.Contains(t, *call.Summary, `"Emergency service"`)
	call, err = env.Client.Calls.Get(ctx, other)
	require.NoError(t, err)
	assert.NotContains(t, *call.Summary, "knowledge base", "nothing matched")
}
