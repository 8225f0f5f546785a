package catalog_test

import (
	"context"
	"fmt"
	"net/http/httptest"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/catalog"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

// Products are upserts on the wire: Create (no id) and Update (with the id
// Create returned). The same name twice makes two products.
func ExampleProductsService() {
	srv := mockserver.New()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	acct, _ := srv.NewAccount(mockserver.AccountOptions{})
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"))
	ctx := context.Background()

	p, err := c.Products.Create(ctx, &catalog.ProductCreateParams{
		BusinessID: acct.BusinessID, Name: "Drain cleaning", Price: voiceagent.Float64(149), SKU: voiceagent.String("DC-1"),
	})
	if err != nil {
		panic(err)
	}
	p, err = c.Products.Update(ctx, &catalog.ProductUpdateParams{ID: p.ID, Price: voiceagent.Float64(129)})
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Name, *p.Price, *p.SKU)

	if _, err := c.Products.Create(ctx, &catalog.ProductCreateParams{BusinessID: acct.BusinessID, Name: "Drain cleaning"}); err != nil {
		panic(err)
	}
	n := 0
	for _, err := range c.Products.All(ctx, &catalog.ProductListParams{BusinessID: acct.BusinessID}) {
		if err != nil {
			panic(err)
		}
		n++
	}
	fmt.Println(n, "products")
	// Output:
	// Drain cleaning 129 DC-1
	// 2 products
}

// Knowledge entries are what agents answer from; SetNull clears a field.
func ExampleKnowledgeService() {
	srv := mockserver.New()
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	acct, _ := srv.NewAccount(mockserver.AccountOptions{})
	c := client.New(acct.APIKey, voiceagent.WithBaseURL(hs.URL+"/api"))
	ctx := context.Background()

	k, err := c.Knowledge.Create(ctx, &catalog.KnowledgeCreateParams{
		BusinessID: acct.BusinessID, Title: "Opening hours", Content: "Monday to Friday, 8am to 6pm.",
		ContentType: "faq", Tags: []string{"hours"},
	})
	if err != nil {
		panic(err)
	}
	up := &catalog.KnowledgeUpdateParams{ID: k.ID, BusinessID: acct.BusinessID, Content: voiceagent.String("Every day, 7am to 9pm.")}
	up.SetNull("tags")
	k, err = c.Knowledge.Update(ctx, up)
	if err != nil {
		panic(err)
	}
	fmt.Println(k.Title+":", k.Content, k.Tags == nil)
	// Output:
	// Opening hours: Every day, 7am to 9pm. true
}
