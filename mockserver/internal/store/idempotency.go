package store

import (
	"net/http"
	"time"
)

// IdempotencyRecord is the response to a request that carried an
// Idempotency-Key, kept so that a retry gets it again. Its ID is
// IdempotencyID(Owner, Key); Owner is who sent the key (a user id, or "ip:"
// and a client address); CreatedAt is when it was made on its tenant's
// clock. The record is written in the Tx of the change it records.
type IdempotencyRecord struct {
	Base
	Key string
	// Fingerprint is the SHA-256 of the request's method, path, query and
	// body: a retry must match it.
	Fingerprint [32]byte
	// ExpiresAt is when the record goes on its tenant's clock;
	// WallExpiresAt when it goes in real time, whichever comes first.
	ExpiresAt     time.Time
	WallExpiresAt time.Time
	// Status, Header, Body and Code are the response as it was sent.
	Status int
	Header http.Header
	Body   []byte
	Code   string
	kept
}

// IdempotencyID is the id of the record of owner's Idempotency-Key key.
func IdempotencyID(owner, key string) string { return owner + "\x00" + key }

// idempotencyOverhead is what a record costs besides its response's bytes:
// the record, its id, its slots in the table and its retention log, the
// header map.
const idempotencyOverhead = 320

// IdempotencyBytes is what a record counts against the records' byte
// bound: its response's body and headers, and its own overhead.
func IdempotencyBytes(r *IdempotencyRecord) int64 {
	n := int64(idempotencyOverhead + len(r.ID) + len(r.Body))
	for k, vs := range r.Header {
		n += int64(len(k))
		for _, v := range vs {
			n += int64(len(v))
		}
	}
	return n
}
