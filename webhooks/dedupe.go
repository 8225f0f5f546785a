package webhooks

import (
	"container/list"
	"context"
	"sync"
	"time"
)

// ClaimResult is the answer of [DedupeStore.Claim].
type ClaimResult int

const (
	// Claimed means the caller now holds the message id and must process the
	// delivery, then call Complete (success) or Release (failure).
	Claimed ClaimResult = iota + 1
	// InProgress means another delivery of the same id holds it right now.
	// [Handler] answers 409 so the platform retries later.
	InProgress
	// Done means the id was processed successfully before. [Handler]
	// answers 200 so the platform stops retrying.
	Done
)

// String returns "claimed", "in_progress" or "done".
func (r ClaimResult) String() string {
	switch r {
	case Claimed:
		return "claimed"
	case InProgress:
		return "in_progress"
	case Done:
		return "done"
	}
	return "unknown"
}

// DedupeStore remembers which message ids (the webhook-id header) a [Handler]
// has processed. It is a three-step protocol rather than Seen/Mark because
// "seen" and "mark" as two calls let two concurrent deliveries of one id both
// pass "seen", and because a failed attempt must leave the id free for the
// retry:
//
//  1. Claim atomically moves an unknown id to in-progress and answers
//     Claimed; for an id in progress it answers InProgress, for a processed
//     one Done.
//  2. Complete marks a claimed id as processed (remembered for a while).
//  3. Release forgets a claimed id after a failure, so the next attempt
//     claims it again.
//
// A store shared by several receiver processes (Redis, SQL) implements Claim
// as one atomic operation, for example SET id "pending" NX PX lease in Redis
// or an INSERT into a table with a unique key, and should let an in-progress
// claim expire after a lease somewhat longer than the slowest handler, so a
// receiver that crashed mid-delivery does not block the id forever.
// Processed ids should be kept longer than the platform's retry window
// (about 28 hours) and ideally as long as deliveries may be replayed.
//
// Implementations must be safe for concurrent use.
type DedupeStore interface {
	// Claim reserves id for processing; see [ClaimResult].
	Claim(ctx context.Context, id string) (ClaimResult, error)
	// Complete records that id was processed successfully.
	Complete(ctx context.Context, id string) error
	// Release drops the claim on id after a failed attempt.
	Release(ctx context.Context, id string) error
}

// Defaults of [NewMemoryDedupeStore].
const (
	// DefaultDedupeTTL is how long a processed id is remembered: longer than
	// the platform's retry schedule (about 28 hours).
	DefaultDedupeTTL = 72 * time.Hour
	// DefaultDedupeMaxEntries bounds the processed ids kept in memory.
	DefaultDedupeMaxEntries = 100_000
)

// MemoryDedupeStore is the in-process [DedupeStore] a [Handler] uses by
// default. Processed ids are kept for a TTL, and at most a maximum number of
// them (the oldest are forgotten first), so memory stays bounded; ids in
// progress are always kept until completed or released. It only
// deduplicates within one process: receivers running several replicas need
// a shared store.
type MemoryDedupeStore struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu      sync.Mutex
	entries map[string]*dedupeEntry
	done    *list.List // of *dedupeEntry, oldest completion first
}

type dedupeEntry struct {
	id      string
	done    bool
	expires time.Time
	elem    *list.Element
}

// NewMemoryDedupeStore returns an empty in-memory store that remembers a
// processed id for ttl and at most maxEntries processed ids. A zero or
// negative ttl or maxEntries means [DefaultDedupeTTL] or
// [DefaultDedupeMaxEntries].
func NewMemoryDedupeStore(ttl time.Duration, maxEntries int) *MemoryDedupeStore {
	if ttl <= 0 {
		ttl = DefaultDedupeTTL
	}
	if maxEntries <= 0 {
		maxEntries = DefaultDedupeMaxEntries
	}
	return &MemoryDedupeStore{
		ttl:     ttl,
		max:     maxEntries,
		now:     time.Now,
		entries: make(map[string]*dedupeEntry),
		done:    list.New(),
	}
}

// prune forgets processed ids that expired or exceed the bound. Completion
// order is expiry order (one TTL for all), so only the front is examined.
// The caller holds mu.
func (s *MemoryDedupeStore) prune(now time.Time) {
	for s.done.Len() > 0 {
		e := s.done.Front().Value.(*dedupeEntry)
		if s.done.Len() <= s.max && now.Before(e.expires) {
			return
		}
		s.done.Remove(e.elem)
		delete(s.entries, e.id)
	}
}

// Claim implements [DedupeStore].
func (s *MemoryDedupeStore) Claim(_ context.Context, id string) (ClaimResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune(s.now())
	if e, ok := s.entries[id]; ok {
		if e.done {
			return Done, nil
		}
		return InProgress, nil
	}
	s.entries[id] = &dedupeEntry{id: id}
	return Claimed, nil
}

// Complete implements [DedupeStore]. Completing an id that is not claimed
// records it as processed all the same.
func (s *MemoryDedupeStore) Complete(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := s.now()
	e, ok := s.entries[id]
	if !ok {
		e = &dedupeEntry{id: id}
		s.entries[id] = e
	}
	if e.done {
		s.done.Remove(e.elem)
	}
	e.done = true
	e.expires = now.Add(s.ttl)
	e.elem = s.done.PushBack(e)
	s.prune(now)
	return nil
}

// Release implements [DedupeStore]. It never forgets a processed id.
func (s *MemoryDedupeStore) Release(_ context.Context, id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if e, ok := s.entries[id]; ok && !e.done {
		delete(s.entries, id)
	}
	return nil
}

// Len returns the number of ids the store holds, processed and in progress.
func (s *MemoryDedupeStore) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune(s.now())
	return len(s.entries)
}
