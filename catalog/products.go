package catalog

import (
	"context"
	"iter"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/internal/idstyle"
)

// Product is a product or service of a business. Fields never set are nil.
type Product struct {
	ID          string         `json:"id"`
	BusinessID  string         `json:"business_id"`
	Name        string         `json:"name"`
	Description *string        `json:"description"`
	Category    *string        `json:"category"`
	Price       *float64       `json:"price"`
	SKU         *string        `json:"sku"`
	Attributes  map[string]any `json:"attributes"`
	Quantity    *float64       `json:"quantity"`
	CreatedAt   time.Time      `json:"created_at"`
	UpdatedAt   time.Time      `json:"updated_at"`
}

// ProductCreateParams create a product.
type ProductCreateParams struct {
	// BusinessID owns the product. Required.
	BusinessID string `json:"business_id"`
	// Name is required (not an upsert key: the same name twice makes two products).
	Name        string   `json:"name"`
	Description *string  `json:"description,omitempty"`
	Category    *string  `json:"category,omitempty"`
	Price       *float64 `json:"price,omitempty"`
	// SKU is not an upsert key either.
	SKU        *string        `json:"sku,omitempty"`
	Attributes map[string]any `json:"attributes,omitempty"`
	Quantity   *float64       `json:"quantity,omitempty"`
}

// ProductUpdateParams change the fields set; the others stay.
type ProductUpdateParams struct {
	// ID of the product. Required.
	ID string `json:"id"`
	// BusinessID, when set, must be the product's own business.
	BusinessID  *string  `json:"business_id,omitempty"`
	Name        *string  `json:"name,omitempty"`
	Description *string  `json:"description,omitempty"`
	Category    *string  `json:"category,omitempty"`
	Price       *float64 `json:"price,omitempty"`
	SKU         *string  `json:"sku,omitempty"`
	// Attributes replace the product's attributes as a whole.
	Attributes map[string]any `json:"attributes,omitempty"`
	Quantity   *float64       `json:"quantity,omitempty"`
}

// ProductListParams filter and page List.
type ProductListParams struct {
	// BusinessID limits the list to one business.
	BusinessID string `url:"business_id,omitempty"`
	Category   string `url:"category,omitempty"`
	SKU        string `url:"sku,omitempty"`
	// Limit is the page size (default 50, at most 100).
	Limit int `url:"limit,omitempty"`
	// After is the cursor (Page.NextCursor) of the page to read.
	After string `url:"after,omitempty"`
}

// ProductsService is the products API (products:read, products:write). Get
// it from client.Client.Products.
type ProductsService struct{ r idstyle.Resource[Product] }

// NewProductsService returns the service on a backend.
func NewProductsService(b *voiceagent.Backend) *ProductsService {
	return &ProductsService{idstyle.Resource[Product]{B: b, Path: "/v1/products", ListKey: "products",
		CreatedAt: func(p *Product) time.Time { return p.CreatedAt }}}
}

// Create creates a product and returns it with its id; keep the id, it is
// the only way to update the product.
func (s *ProductsService) Create(ctx context.Context, p *ProductCreateParams, opts ...voiceagent.Option) (*Product, error) {
	return s.r.Post(ctx, "", p, opts...)
}

// Update changes the fields set in p.
func (s *ProductsService) Update(ctx context.Context, p *ProductUpdateParams, opts ...voiceagent.Option) (*Product, error) {
	return s.r.Post(ctx, "", p, opts...)
}

// Get reads one product.
func (s *ProductsService) Get(ctx context.Context, id string, opts ...voiceagent.Option) (*Product, error) {
	return s.r.Get(ctx, id, opts...)
}

// List reads one page of products, newest first.
func (s *ProductsService) List(ctx context.Context, p *ProductListParams, opts ...voiceagent.Option) (*voiceagent.Page[Product], error) {
	return s.r.List(ctx, p, opts...)
}

// All walks every product matching p, page by page.
func (s *ProductsService) All(ctx context.Context, p *ProductListParams, opts ...voiceagent.Option) iter.Seq2[*Product, error] {
	return voiceagent.All(ctx, p, func(q *ProductListParams) *string { return &q.After }, s.List, opts...)
}

// Delete removes a product.
func (s *ProductsService) Delete(ctx context.Context, id string, opts ...voiceagent.Option) (*Deleted, error) {
	return idstyle.Delete[Deleted](ctx, s.r, id, opts...)
}
