package mockserver

import (
	"crypto/sha256"
	"net/http"
	"sync"
	"time"
)

// idempotencyTTL is how long a key is remembered (on the simulated clock).
const (
	idempotencyTTL       = 24 * time.Hour
	maxIdempotencyKeyLen = 255
)

// idempotencyStore remembers the answer of every POST that carried an
// Idempotency-Key, per key owner (the caller's user, or the client IP on
// unauthenticated routes), for 24 hours. A replay with the same method, path
// and body gets the first answer with Idempotent-Replayed: true; a different
// request with the same key gets 409 idempotency_conflict. A second request
// arriving while the first is still running waits for its answer. Answers
// made up by fault injection or rate limiting are never remembered: the
// handler did not run, so a retry must run it.
type idempotencyStore struct {
	mu      sync.Mutex
	entries map[string]*idemEntry
	inserts int
}

type idemEntry struct {
	fingerprint [32]byte
	done        chan struct{}
	resp        *response
	expires     time.Time
}

func newIdempotencyStore() *idempotencyStore {
	return &idempotencyStore{entries: map[string]*idemEntry{}}
}

func (st *idempotencyStore) reset() {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.entries = map[string]*idemEntry{}
}

func (st *idempotencyStore) do(rc *reqCtx, key string, run func() *response) *response {
	if len(key) > maxIdempotencyKeyLen {
		return errorResponse(errInvalidField("Idempotency-Key", "must be at most %d characters", maxIdempotencyKeyLen))
	}
	owner := "ip:" + rc.clientIP
	if rc.p != nil {
		owner = rc.p.ownerID()
	}
	k := owner + "\x00" + key
	fp := sha256.Sum256([]byte(rc.r.Method + " " + rc.r.URL.Path + "?" + rc.r.URL.RawQuery + "\x00" + string(rc.body)))

	st.mu.Lock()
	e := st.entries[k]
	if e != nil && e.resp != nil && !rc.now.Before(e.expires) {
		delete(st.entries, k)
		e = nil
	}
	if e == nil {
		e = &idemEntry{fingerprint: fp, done: make(chan struct{}), expires: rc.now.Add(idempotencyTTL)}
		st.entries[k] = e
		st.purgeLocked(rc.now)
		st.mu.Unlock()
		return st.runFirst(e, run)
	}
	st.mu.Unlock()

	if e.fingerprint != fp {
		return errorResponse(newError(http.StatusConflict, codeIdempotencyConflict,
			"this Idempotency-Key was already used with a different request"))
	}
	select {
	case <-e.done:
	case <-rc.r.Context().Done():
		return errorResponse(newError(http.StatusConflict, codeIdempotencyConflict,
			"a request with this Idempotency-Key is still in progress"))
	}
	replay := &response{status: e.resp.status, header: e.resp.header.Clone(), body: e.resp.body}
	replay.header.Set(headerIdempotentReplayed, "true")
	return replay
}

// runFirst runs the first request of a key and records its answer. If the
// handler panics, the answer recorded is the 500 internal_error the client
// gets, so that duplicates waiting for it and later retries are answered
// instead of waiting forever; the panic goes on to the pipeline's recover.
func (st *idempotencyStore) runFirst(e *idemEntry, run func() *response) *response {
	var resp *response
	defer func() {
		if resp == nil {
			resp = errorResponse(errInternal())
		}
		st.mu.Lock()
		e.resp = resp
		st.mu.Unlock()
		close(e.done)
	}()
	resp = run()
	return resp
}

// purgeLocked drops expired entries every 1,000 inserts, so memory stays
// bounded by a day's keys.
func (st *idempotencyStore) purgeLocked(now time.Time) {
	st.inserts++
	if st.inserts%1000 != 0 {
		return
	}
	for k, e := range st.entries {
		if e.resp != nil && !now.Before(e.expires) {
			delete(st.entries, k)
		}
	}
}
