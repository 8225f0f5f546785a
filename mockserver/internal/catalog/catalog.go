package catalog

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"unicode"

	catalogapi "github.com/voiceagent/voiceagent-go/catalog"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
)

// sentFields decodes the top level of a validated body, so handlers can
// tell an absent field from an explicit null.
func sentFields(body []byte) map[string]json.RawMessage {
	var m map[string]json.RawMessage
	_ = httpapi.DecodeLoose(body, &m)
	return m
}

// isNull reports whether a sent field is the JSON null.
func isNull(raw json.RawMessage) bool { return string(raw) == "null" }

// matchBusiness is the update rule of products and knowledge: a business_id
// sent with an id must be the record's own (business_id is not an upsert
// key and never moves a record).
func matchBusiness(sent *string, owner, what string) error {
	if sent != nil && *sent != owner {
		return domain.InvalidField("/business_id", "does not match the %s's business (%s); business_id cannot move a record", what, owner)
	}
	return nil
}

// --- products ---------------------------------------------------------------

type productBody struct {
	ID          *string        `json:"id"`
	BusinessID  *string        `json:"business_id"`
	Name        *string        `json:"name"`
	Description *string        `json:"description"`
	Category    *string        `json:"category"`
	Price       *float64       `json:"price"`
	SKU         *string        `json:"sku"`
	Attributes  map[string]any `json:"attributes"`
	Quantity    *float64       `json:"quantity"`
}

func (s *Service) upsertProduct(rc *httpapi.Ctx) (any, error) {
	var body productBody
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	if body.ID == nil {
		// Create: the schema made business_id and name required.
		if _, err := rc.Business(*body.BusinessID); err != nil {
			return nil, err
		}
		p := &store.Product{Name: *body.Name}
		applyProduct(p, &body)
		rc.Tx.Products.Insert(p, *body.BusinessID, rc.Now)
		p.UpdatedAt = p.CreatedAt
		return httpapi.Created(ProductView(p)), nil
	}
	p, err := httpapi.Reachable(rc, rc.Tx.Products, *body.ID, "product")
	if err != nil {
		return nil, err
	}
	if err := matchBusiness(body.BusinessID, p.Owner, "product"); err != nil {
		return nil, err
	}
	rc.Tx.Products.Update(p, func(p *store.Product) {
		val.Set(&p.Name, body.Name)
		applyProduct(p, &body)
		p.UpdatedAt = rc.Now.UTC()
	})
	return ProductView(p), nil
}

// applyProduct copies the optional fields sent; attributes are replaced as
// a whole.
func applyProduct(p *store.Product, b *productBody) {
	if b.Description != nil {
		p.Description = b.Description
	}
	if b.Category != nil {
		p.Category = b.Category
	}
	if b.Price != nil {
		p.Price = b.Price
	}
	if b.SKU != nil {
		p.SKU = b.SKU
	}
	if b.Attributes != nil {
		p.Attributes = b.Attributes
	}
	if b.Quantity != nil {
		p.Quantity = b.Quantity
	}
}

func (s *Service) getProducts(rc *httpapi.Ctx) (any, error) {
	var match func(*store.Product) bool
	if category, sku := rc.Query("category"), rc.Query("sku"); category != "" || sku != "" {
		match = func(p *store.Product) bool {
			return (category == "" || p.Category != nil && *p.Category == category) &&
				(sku == "" || p.SKU != nil && *p.SKU == sku)
		}
	}
	return httpapi.ReadOrList(rc, rc.Tx.Products, "product", match, ProductView, func(items []catalogapi.Product, more bool) any {
		return productList{Products: items, HasMore: more}
	})
}

func (s *Service) deleteProduct(rc *httpapi.Ctx) (any, error) {
	p, err := httpapi.DeleteOwned(rc, rc.Tx.Products, "product")
	if err != nil {
		return nil, err
	}
	return catalogapi.Deleted{Success: true, ID: p.ID}, nil
}

// ProductView is a product as the API shows it; unset fields are null.
func ProductView(p *store.Product) catalogapi.Product {
	return catalogapi.Product{
		ID: p.ID, BusinessID: p.Owner, Name: p.Name,
		Description: p.Description, Category: p.Category, Price: p.Price,
		SKU: p.SKU, Attributes: maps.Clone(p.Attributes), Quantity: p.Quantity,
		CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
}

// --- knowledge --------------------------------------------------------------

func (s *Service) upsertKnowledge(rc *httpapi.Ctx) (any, error) {
	var body struct {
		ID          *string  `json:"id"`
		BusinessID  string   `json:"business_id"`
		Title       *string  `json:"title"`
		Content     *string  `json:"content"`
		ContentType *string  `json:"content_type"`
		Category    *string  `json:"category"`
		Tags        []string `json:"tags"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	sent := sentFields(rc.Body)
	if body.ID == nil {
		if _, err := rc.Business(body.BusinessID); err != nil {
			return nil, err
		}
		k := &store.KnowledgeEntry{Title: *body.Title, Content: *body.Content, ContentType: *body.ContentType,
			Category: body.Category, Tags: body.Tags}
		k.Words = knowledgeWords(k)
		rc.Tx.Knowledge.Insert(k, body.BusinessID, rc.Now)
		k.UpdatedAt = k.CreatedAt
		return httpapi.Created(KnowledgeView(k)), nil
	}
	k, err := httpapi.Reachable(rc, rc.Tx.Knowledge, *body.ID, "knowledge entry")
	if err != nil {
		return nil, err
	}
	if err := matchBusiness(&body.BusinessID, k.Owner, "knowledge entry"); err != nil {
		return nil, err
	}
	rc.Tx.Knowledge.Update(k, func(k *store.KnowledgeEntry) {
		val.Set(&k.Title, body.Title)
		val.Set(&k.Content, body.Content)
		val.Set(&k.ContentType, body.ContentType)
		if raw, ok := sent["category"]; ok {
			k.Category = nil
			if !isNull(raw) {
				k.Category = body.Category
			}
		}
		if raw, ok := sent["tags"]; ok {
			k.Tags = nil
			if !isNull(raw) {
				k.Tags = body.Tags
			}
		}
		k.UpdatedAt = rc.Now.UTC()
		k.Words = knowledgeWords(k)
	})
	return KnowledgeView(k), nil
}

func (s *Service) getKnowledge(rc *httpapi.Ctx) (any, error) {
	var match func(*store.KnowledgeEntry) bool
	category, contentType, tag := rc.Query("category"), rc.Query("content_type"), rc.Query("tag")
	if category != "" || contentType != "" || tag != "" {
		match = func(k *store.KnowledgeEntry) bool {
			return (category == "" || k.Category != nil && *k.Category == category) &&
				(contentType == "" || k.ContentType == contentType) &&
				(tag == "" || slices.Contains(k.Tags, tag))
		}
	}
	return httpapi.ReadOrList(rc, rc.Tx.Knowledge, "knowledge entry", match, KnowledgeView, func(items []catalogapi.KnowledgeEntry, more bool) any {
		return knowledgeList{Knowledge: items, HasMore: more}
	})
}

func (s *Service) deleteKnowledge(rc *httpapi.Ctx) (any, error) {
	k, err := httpapi.DeleteOwned(rc, rc.Tx.Knowledge, "knowledge entry")
	if err != nil {
		return nil, err
	}
	return catalogapi.Deleted{Success: true, ID: k.ID}, nil
}

// KnowledgeView is a knowledge entry as the API shows it (tags null when
// the entry has none).
func KnowledgeView(k *store.KnowledgeEntry) catalogapi.KnowledgeEntry {
	return catalogapi.KnowledgeEntry{
		ID: k.ID, BusinessID: k.Owner, Title: k.Title, Content: k.Content,
		ContentType: k.ContentType, Category: k.Category, Tags: slices.Clone(k.Tags),
		CreatedAt: k.CreatedAt, UpdatedAt: k.UpdatedAt,
	}
}

// --- agents answering from knowledge -----------------------------------------

// knowledgeMatch returns the knowledge entry of a business that best matches
// a text (a call's context, a caller's question), or nil: the sum of the
// weights (knowledgeWords) of the text's words, ties to the newest entry.
// The call simulator uses it so that an agent's call summary cites what it
// answered from.
func knowledgeMatch(tx *platform.Tx, businessID, text string) *store.KnowledgeEntry {
	words := wordSet(text)
	if len(words) == 0 {
		return nil
	}
	var best *store.KnowledgeEntry
	bestScore := 0
	for _, k := range tx.Knowledge.Owned(businessID) { // oldest first: >= lets the newest win ties
		score := 0
		for w := range words {
			score += k.Words[w]
		}
		if score > 0 && score >= bestScore {
			best, bestScore = k, score
		}
	}
	return best
}

// knowledgeWords weighs an entry's words: 2 for a word of the title, tags
// or category, 1 for a word of the content only.
func knowledgeWords(k *store.KnowledgeEntry) map[string]int {
	head := k.Title + " " + strings.Join(k.Tags, " ")
	if k.Category != nil {
		head += " " + *k.Category
	}
	out := map[string]int{}
	for w := range wordSet(k.Content) {
		out[w] = 1
	}
	for w := range wordSet(head) {
		out[w] = 2
	}
	return out
}

// startCatalog subscribes the knowledge base to finished calls: a call's
// summary adds the knowledge entry the agent answered from, the one
// matching what the call was about (an outbound call's context, what an
// inbound caller said).
func (s *Service) startCatalog() {
	s.OnCallKnowledge(func(tx *platform.Tx, c *store.Call) string {
		about := strings.Join([]string{c.Context, c.CallerInfo().Said, c.CallerInfo().Intent}, " ")
		return knowledgeNote(tx, c.Owner, about)
	})
}

// knowledgeNote is the sentence a call summary adds when the agent answered
// from a knowledge entry ("" when none matches).
func knowledgeNote(tx *platform.Tx, businessID, text string) string {
	k := knowledgeMatch(tx, businessID, text)
	if k == nil {
		return ""
	}
	return "The agent answered from the knowledge base entry \"" + k.Title + "\": " + firstSentence(k.Content)
}

func wordSet(text string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		if len(w) >= 3 && !stopWords[w] {
			out[w] = true
		}
	}
	return out
}

// stopWords do not make a knowledge entry match.
var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "are": true, "you": true, "your": true, "with": true,
	"what": true, "when": true, "our": true, "this": true, "that": true, "from": true, "have": true,
}

func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, ".!?\n"); i >= 0 {
		return s[:i+1]
	}
	if r := []rune(s); len(r) > 200 {
		return string(r[:200]) + "…"
	}
	return s
}

// productList is a page of GET /v1/products.
type productList struct {
	Products []catalogapi.Product `json:"products"`
	HasMore  bool                 `json:"has_more"`
}

// knowledgeList is a page of GET /v1/knowledge.
type knowledgeList struct {
	Knowledge []catalogapi.KnowledgeEntry `json:"knowledge"`
	HasMore   bool                        `json:"has_more"`
}
