package catalog_test

import (
	"context"
	"fmt"
	"testing"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/catalog"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// BenchmarkProductCreate is one product upsert through the SDK and the mock.
func BenchmarkProductCreate(b *testing.B) {
	env := testenv.New(b, mockserver.WithRateLimits(false))
	ctx := context.Background()
	p := &catalog.ProductCreateParams{BusinessID: env.Account.BusinessID, Name: "Drain cleaning", Price: voiceagent.Float64(10)}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := env.Client.Products.Create(ctx, p); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkProductListPage reads a filtered page of 50 in the middle of
// 2,000 products: the cost does not grow with the table.
func BenchmarkProductListPage(b *testing.B) {
	env := testenv.New(b, mockserver.WithRateLimits(false))
	ctx := context.Background()
	for i := range 2000 {
		cat := []string{"plumbing", "heating"}[i%2]
		if _, err := env.Client.Products.Create(ctx, &catalog.ProductCreateParams{BusinessID: env.Account.BusinessID,
			Name: fmt.Sprint("p", i), Category: &cat}); err != nil {
			b.Fatal(err)
		}
	}
	first, err := env.Client.Products.List(ctx, &catalog.ProductListParams{Limit: 100})
	if err != nil {
		b.Fatal(err)
	}
	q := &catalog.ProductListParams{Limit: 50, Category: "plumbing", After: first.NextCursor}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		page, err := env.Client.Products.List(ctx, q)
		if err != nil || len(page.Data) != 50 {
			b.Fatal(err, len(page.Data))
		}
	}
}
