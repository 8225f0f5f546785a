package httpapi

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/sha256"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/voiceagent/voiceagent-go/internal/wire"
)

// idempotencyTTL is how long a key is remembered (on the simulated clock).
const (
	idempotencyTTL       = 24 * time.Hour
	maxIdempotencyKeyLen = 255
)

// IdempotencyStore remembers the answer of every POST that carried an
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
type IdempotencyStore struct {
	Mu      sync.Mutex
	Entries map[string]*idemEntry
	inserts int
}

type idemEntry struct {
	fingerprint [32]byte
	done        chan struct{}
	resp        *Response // the answer, its body sealed
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
func sealAnswer(resp *Response, key [32]byte, nonce []byte) *Response {
	gcm := newGCM(key)
	return &Response{Status: resp.Status, Header: resp.Header.Clone(), Body: gcm.Seal(nonce, nonce, resp.Body, nil), Code: resp.Code}
}

// openAnswer returns a copy of a sealed answer with its body opened.
func openAnswer(sealed *Response, key [32]byte) (*Response, error) {
	gcm := newGCM(key)
	n := gcm.NonceSize()
	if len(sealed.Body) < n {
		return nil, errors.New("sealed answer too short")
	}
	body, err := gcm.Open(nil, sealed.Body[:n], sealed.Body[n:], nil)
	if err != nil {
		return nil, err
	}
	return &Response{Status: sealed.Status, Header: sealed.Header.Clone(), Body: body, Code: sealed.Code}, nil
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

// newIdempotencyStore returns an empty store of idempotency records.
func newIdempotencyStore() *IdempotencyStore {
	return &IdempotencyStore{Entries: map[string]*idemEntry{}}
}

// Reset drops every record.
func (st *IdempotencyStore) Reset() {
	st.Mu.Lock()
	defer st.Mu.Unlock()
	st.Entries = map[string]*idemEntry{}
}

func (st *IdempotencyStore) do(rc *Ctx, key string, run func() *Response) *Response {
	if len(key) > maxIdempotencyKeyLen {
		return ErrorResponse(InvalidField("Idempotency-Key", "must be at most %d characters", maxIdempotencyKeyLen))
	}
	owner := "ip:" + rc.ClientIP
	if rc.Principal != nil {
		owner = rc.Principal.OwnerID()
	}
	k, seal := idemKeys(owner, key)
	fp := sha256.Sum256([]byte(rc.Request.Method + " " + rc.Request.URL.Path + "?" + rc.Request.URL.RawQuery + "\x00" + string(rc.Body)))

	st.Mu.Lock()
	e := st.Entries[k]
	if e != nil && e.resp != nil && !rc.Now.Before(e.expires) {
		delete(st.Entries, k)
		e = nil
	}
	if e == nil {
		e = &idemEntry{fingerprint: fp, done: make(chan struct{}), expires: rc.Now.Add(idempotencyTTL)}
		st.Entries[k] = e
		st.purgeLocked(rc.Now)
		st.Mu.Unlock()
		nonce := make([]byte, 12)
		rc.API.IDs.Read(nonce)
		return st.runFirst(e, seal, nonce, run)
	}
	st.Mu.Unlock()

	if e.fingerprint != fp {
		return ErrorResponse(NewError(http.StatusConflict, wire.CodeIdempotencyConflict,
			"this Idempotency-Key was already used with a different request"))
	}
	select {
	case <-e.done:
	case <-rc.Request.Context().Done():
		return ErrorResponse(NewError(http.StatusConflict, wire.CodeIdempotencyConflict,
			"a request with this Idempotency-Key is still in progress"))
	}
	replay, err := openAnswer(e.resp, seal)
	if err != nil {
		return ErrorResponse(Internal()) // the same key made both: cannot happen
	}
	replay.Header.Set(HeaderIdempotentReplayed, "true")
	return replay
}

// runFirst runs the first request of a key and records its answer. If the
// handler panics, the answer recorded is the 500 internal_error the client
// gets, so that duplicates waiting for it and later retries are answered
// instead of waiting forever; the panic goes on to the pipeline's recover.
func (st *IdempotencyStore) runFirst(e *idemEntry, seal [32]byte, nonce []byte, run func() *Response) *Response {
	var resp *Response
	defer func() {
		if resp == nil {
			resp = ErrorResponse(Internal())
		}
		sealed := sealAnswer(resp, seal, nonce)
		st.Mu.Lock()
		e.resp = sealed
		st.Mu.Unlock()
		close(e.done)
	}()
	resp = run()
	return resp
}

// purgeLocked drops expired entries every 1,000 inserts, so memory stays
// bounded by a day's keys.
func (st *IdempotencyStore) purgeLocked(now time.Time) {
	st.inserts++
	if st.inserts%1000 != 0 {
		return
	}
	for k, e := range st.Entries {
		if e.resp != nil && !now.Before(e.expires) {
			delete(st.Entries, k)
		}
	}
}
