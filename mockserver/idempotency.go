package mockserver

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"errors"
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
//
// The store keeps no secret in the clear: an answer may carry a key value
// (POST /v1/keys, signup) or a signing secret, so a record is filed under
// a hash of its owner and Idempotency-Key, and its body is sealed
// (AES-256-GCM) with a key derived from them by another hash. Only a
// request presenting the same Idempotency-Key can open it; a memory dump
// of the server cannot.
type idempotencyStore struct {
	mu      sync.Mutex
	entries map[string]*idemEntry
	inserts int
}

type idemEntry struct {
	fingerprint [32]byte
	done        chan struct{}
	resp        *response // the answer, its body sealed
	expires     time.Time
}

// idemKeys derives, from the owner and the Idempotency-Key, the name a
// record is filed under and the key that seals its body (two hashes with
// different prefixes: one does not give the other).
func idemKeys(owner, key string) (name string, seal [32]byte) {
	id := sha256.Sum256([]byte("idempotency-record\x00" + owner + "\x00" + key))
	return string(id[:]), sha256.Sum256([]byte("idempotency-seal\x00" + owner + "\x00" + key))
}

// sealAnswer returns a copy of resp whose body is sealed with key.
func sealAnswer(resp *response, key [32]byte, nonce []byte) *response {
	gcm := newGCM(key)
	return &response{status: resp.status, header: resp.header.Clone(), body: gcm.Seal(nonce, nonce, resp.body, nil)}
}

// openAnswer returns a copy of a sealed answer with its body opened.
func openAnswer(sealed *response, key [32]byte) (*response, error) {
	gcm := newGCM(key)
	n := gcm.NonceSize()
	if len(sealed.body) < n {
		return nil, errors.New("sealed answer too short")
	}
	body, err := gcm.Open(nil, sealed.body[:n], sealed.body[n:], nil)
	if err != nil {
		return nil, err
	}
	return &response{status: sealed.status, header: sealed.header.Clone(), body: body}, nil
}

func newGCM(key [32]byte) cipher.AEAD {
	block, err := aes.NewCipher(key[:])
	if err != nil {
		panic(err) // a 32-byte key is always valid
	}
	gcm, err := cipher.NewGCM(block)
	if err != nil {
		panic(err)
	}
	return gcm
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
	k, seal := idemKeys(owner, key)
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
		nonce := make([]byte, 12)
		rc.s.ids.read(nonce)
		return st.runFirst(e, seal, nonce, run)
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
	replay, err := openAnswer(e.resp, seal)
	if err != nil {
		return errorResponse(errInternal()) // the same key made both: cannot happen
	}
	replay.header.Set(headerIdempotentReplayed, "true")
	return replay
}

// runFirst runs the first request of a key and records its answer. If the
// handler panics, the answer recorded is the 500 internal_error the client
// gets, so that duplicates waiting for it and later retries are answered
// instead of waiting forever; the panic goes on to the pipeline's recover.
func (st *idempotencyStore) runFirst(e *idemEntry, seal [32]byte, nonce []byte, run func() *response) *response {
	var resp *response
	defer func() {
		if resp == nil {
			resp = errorResponse(errInternal())
		}
		sealed := sealAnswer(resp, seal, nonce)
		st.mu.Lock()
		e.resp = sealed
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
