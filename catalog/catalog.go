// Package catalog manages what a business sells and what its agents know:
// products (POST /v1/products) and knowledge entries (POST /v1/knowledge).
//
// Both are upserts on the wire: a body without id creates, a body with id
// updates. Create and Update keep the two apart. Names, titles and SKUs are
// not upsert keys: sending the same name twice creates two records, so keep
// the id Create returns. An update may repeat business_id, but it must be
// the record's own; a record never moves between businesses.
//
// Agents answer from the knowledge base: when what a call is about (an
// outbound call's context, what an inbound caller asks) matches an entry,
// the call's summary cites it.
package catalog

// Deleted is the answer of a delete.
type Deleted struct {
	Success bool   `json:"success"`
	ID      string `json:"id"`
}
