package store

import "time"

// Product is a product or service a business sells. Owner is its business.
// Optional fields are nil when never set.
type Product struct {
	Base
	Name        string
	Description *string
	Category    *string
	Price       *float64
	SKU         *string
	Attributes  map[string]any
	Quantity    *float64
	UpdatedAt   time.Time
}

// KnowledgeEntry is an entry of a business's knowledge base, which its
// agents can answer from. Owner is its business.
type KnowledgeEntry struct {
	Base
	Title       string
	Content     string
	ContentType string
	Category    *string
	Tags        []string // nil: null
	UpdatedAt   time.Time
	// Words weighs the entry's words for matching what a call is about
	// (kept up to date by the server on every write).
	Words map[string]int
}
