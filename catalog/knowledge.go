package catalog

import (
	"context"
	"iter"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/internal/idstyle"
)

// KnowledgeEntry is an entry of a business's knowledge base. Category and
// Tags are nil when null.
type KnowledgeEntry struct {
	ID          string    `json:"id"`
	BusinessID  string    `json:"business_id"`
	Title       string    `json:"title"`
	Content     string    `json:"content"`
	ContentType string    `json:"content_type"`
	Category    *string   `json:"category"`
	Tags        []string  `json:"tags"`
	CreatedAt   time.Time `json:"created_at"`
	UpdatedAt   time.Time `json:"updated_at"`
}

// KnowledgeCreateParams create an entry.
type KnowledgeCreateParams struct {
	// BusinessID owns the entry. Required.
	BusinessID string `json:"business_id"`
	// Title is required (not an upsert key).
	Title string `json:"title"`
	// Content is required.
	Content string `json:"content"`
	// ContentType is required, for example text or faq.
	ContentType string   `json:"content_type"`
	Category    *string  `json:"category,omitempty"`
	Tags        []string `json:"tags,omitempty"`
}

// KnowledgeUpdateParams change the fields set; the others stay. SetNull
// ("category" or "tags") clears a field.
type KnowledgeUpdateParams struct {
	voiceagent.NullFields `json:"-"`

	// ID of the entry. Required.
	ID string `json:"id"`
	// BusinessID is required on updates too, and must be the entry's own.
	BusinessID  string   `json:"business_id"`
	Title       *string  `json:"title,omitempty"`
	Content     *string  `json:"content,omitempty"`
	ContentType *string  `json:"content_type,omitempty"`
	Category    *string  `json:"category,omitempty"`
	Tags        []string `json:"tags,omitempty"`
}

// KnowledgeListParams filter and page List.
type KnowledgeListParams struct {
	// BusinessID limits the list to one business.
	BusinessID  string `url:"business_id,omitempty"`
	Category    string `url:"category,omitempty"`
	ContentType string `url:"content_type,omitempty"`
	// Tag keeps the entries carrying this tag.
	Tag string `url:"tag,omitempty"`
	// Limit is the page size (default 50, at most 100).
	Limit int `url:"limit,omitempty"`
	// After is the cursor (Page.NextCursor) of the page to read.
	After string `url:"after,omitempty"`
}

// KnowledgeService is the knowledge API (knowledge:read, knowledge:write).
// Get it from client.Client.Knowledge.
type KnowledgeService struct {
	r idstyle.Resource[KnowledgeEntry]
}

// NewKnowledgeService returns the service on a backend.
func NewKnowledgeService(b *voiceagent.Backend) *KnowledgeService {
	return &KnowledgeService{idstyle.Resource[KnowledgeEntry]{B: b, Path: "/v1/knowledge", ListKey: "knowledge",
		CreatedAt: func(k *KnowledgeEntry) time.Time { return k.CreatedAt }}}
}

// Create creates an entry and returns it with its id.
func (s *KnowledgeService) Create(ctx context.Context, p *KnowledgeCreateParams, opts ...voiceagent.Option) (*KnowledgeEntry, error) {
	return s.r.Post(ctx, "", p, opts...)
}

// Update changes the fields set in p.
func (s *KnowledgeService) Update(ctx context.Context, p *KnowledgeUpdateParams, opts ...voiceagent.Option) (*KnowledgeEntry, error) {
	return s.r.Post(ctx, "", p, opts...)
}

// Get reads one entry.
func (s *KnowledgeService) Get(ctx context.Context, id string, opts ...voiceagent.Option) (*KnowledgeEntry, error) {
	return s.r.Get(ctx, id, opts...)
}

// List reads one page of entries, newest first.
func (s *KnowledgeService) List(ctx context.Context, p *KnowledgeListParams, opts ...voiceagent.Option) (*voiceagent.Page[KnowledgeEntry], error) {
	return s.r.List(ctx, p, opts...)
}

// All walks every entry matching p, page by page.
func (s *KnowledgeService) All(ctx context.Context, p *KnowledgeListParams, opts ...voiceagent.Option) iter.Seq2[*KnowledgeEntry, error] {
	return voiceagent.All(ctx, p, func(q *KnowledgeListParams) *string { return &q.After }, s.List, opts...)
}

// Delete removes an entry.
func (s *KnowledgeService) Delete(ctx context.Context, id string, opts ...voiceagent.Option) (*Deleted, error) {
	return idstyle.Delete[Deleted](ctx, s.r, id, opts...)
}
