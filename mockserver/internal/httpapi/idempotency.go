package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// Bounds of the idempotency records (WithIdempotencyLimit).
const (
	// IdempotencyTTL is how long a key is remembered: 24 hours of its
	// tenant's simulated time, and 24 hours of real time, whichever ends
	// first.
	IdempotencyTTL = 24 * time.Hour
	// DefaultIdempotencyRecords and DefaultIdempotencyBytes bound the
	// records kept: past either, the oldest go.
	DefaultIdempotencyRecords = 100_000
	DefaultIdempotencyBytes   = 32 << 20
	maxIdempotencyKeyLen      = 255
)

// IdempotencyStore remembers the response of every POST that carried an
// Idempotency-Key, per key owner (the caller's user, or the client IP on
// unauthenticated routes), for IdempotencyTTL. A replay with the same
// method, path and body gets the first response with Idempotent-Replayed:
// true; a different request with the same key gets 409
// idempotency_conflict. A second request arriving while the first is still
// running waits for its response.
//
// A response is remembered only when the request changed state or failed
// for good (see docs/mockserver.md, section Idempotency): responses made up by fault injection or rate
// limiting (the handler did not run) and 5xx responses of a dependency that
// failed and changed nothing (Error.Transient: vendor_error,
// sms_send_failed, call_failed, an injected dependency fault) are not, so
// a retry runs the handler again.
//
// Records expire on the simulated clock of the request's tenant (Ctx.Now)
// and on real time, and the store keeps at most maxRecords records and
// maxBytes bytes (idemEntry.cost): past either, the oldest go first.
//
// A record is a plain record: the response as it was sent, filed under
// its owner and Idempotency-Key. A response may carry a key value (POST
// /v1/keys, signup) or a signing secret; like every response it is
// redacted where it is shown (the journal), not where it is kept.
type IdempotencyStore struct {
	Mu      sync.Mutex
	Entries map[string]*idemEntry
	// order holds the records in the order they were made, from head on
	// (records since dropped stay until they reach the head or the queue
	// is compacted).
	order []*idemEntry
	head  int
	bytes int64

	maxRecords int
	maxBytes   int64
	// WallNow is the real clock of real-time expiry (time.Now; tests
	// replace it).
	WallNow func() time.Time
}

type idemEntry struct {
	key         string // the name it is filed under (idemName)
	fingerprint [32]byte
	done        chan struct{}
	resp        *Response // the response, once made
	expires     time.Time // on the tenant's simulated clock
	wallExpires time.Time // in real time
	cost        int64     // what it counts against maxBytes, once it has a response
}

// idemEntryOverhead is what a record costs besides its response's bytes: the
// entry, its map slot and name, the response's struct and header map.
const idemEntryOverhead = 320

// answerCost is what a stored response counts against the byte bound.
func answerCost(resp *Response) int64 {
	n := int64(idemEntryOverhead + len(resp.Body))
	for k, vs := range resp.Header {
		n += int64(len(k))
		for _, v := range vs {
			n += int64(len(v))
		}
	}
	return n
}

// idemName is the name a record of owner's Idempotency-Key is filed
// under.
func idemName(owner, key string) string { return owner + "\x00" + key }

// copyResponse returns a copy of resp with its own header map, for a
// record to keep or a replay to change.
func copyResponse(resp *Response) *Response {
	return &Response{Status: resp.Status, Header: resp.Header.Clone(), Body: resp.Body, Code: resp.Code}
}

// newIdempotencyStore returns an empty store of idempotency records
// keeping at most maxRecords records and maxBytes bytes (the defaults when
// not positive).
func newIdempotencyStore(maxRecords int, maxBytes int64) *IdempotencyStore {
	if maxRecords <= 0 {
		maxRecords = DefaultIdempotencyRecords
	}
	if maxBytes <= 0 {
		maxBytes = DefaultIdempotencyBytes
	}
	return &IdempotencyStore{Entries: map[string]*idemEntry{}, maxRecords: maxRecords, maxBytes: maxBytes, WallNow: time.Now}
}

// Reset drops every record.
func (st *IdempotencyStore) Reset() {
	st.Mu.Lock()
	defer st.Mu.Unlock()
	st.Entries = map[string]*idemEntry{}
	st.order, st.head, st.bytes = nil, 0, 0
}

// Usage returns how many records the store keeps and their bytes.
func (st *IdempotencyStore) Usage() (records int, bytes int64) {
	st.Mu.Lock()
	defer st.Mu.Unlock()
	return len(st.Entries), st.bytes
}

// expired reports whether a finished record is past its time at the
// tenant's now or in real time.
func (e *idemEntry) expired(now, wall time.Time) bool {
	return e.resp != nil && (!now.Before(e.expires) || !wall.Before(e.wallExpires))
}

// forgetLocked drops a record if it is still the one filed under its name.
func (st *IdempotencyStore) forgetLocked(e *idemEntry) {
	if st.Entries[e.key] == e {
		delete(st.Entries, e.key)
		st.bytes -= e.cost
	}
}

func (st *IdempotencyStore) do(rc *Ctx, key string, run func() *Response) *Response {
	switch {
	case key == "":
		return ErrorResponse(InvalidField("Idempotency-Key", "must not be empty: send a key of 1 to %d characters, or leave the header out", maxIdempotencyKeyLen))
	case len(key) > maxIdempotencyKeyLen:
		return ErrorResponse(InvalidField("Idempotency-Key", "must be at most %d characters", maxIdempotencyKeyLen))
	}
	owner := "ip:" + rc.ClientIP
	if rc.Principal != nil {
		owner = rc.Principal.OwnerID()
	}
	k := idemName(owner, key)
	fp := sha256.Sum256([]byte(rc.Request.Method + " " + rc.Request.URL.Path + "?" + rc.Request.URL.RawQuery + "\x00" + string(rc.Body)))

	st.Mu.Lock()
	wall := st.WallNow()
	e := st.Entries[k]
	if e != nil && e.expired(rc.Now, wall) {
		st.forgetLocked(e)
		e = nil
	}
	if e == nil {
		e = &idemEntry{key: k, fingerprint: fp, done: make(chan struct{}),
			expires: rc.Now.Add(IdempotencyTTL), wallExpires: wall.Add(IdempotencyTTL)}
		st.Entries[k] = e
		st.order = append(st.order, e)
		st.trimLocked(wall)
		st.Mu.Unlock()
		return st.runFirst(e, run)
	}
	st.Mu.Unlock()

	if e.fingerprint != fp {
		return ErrorResponse(NewError(http.StatusConflict, voiceagent.CodeIdempotencyConflict,
			"this Idempotency-Key was already used with a different request"))
	}
	select {
	case <-e.done:
	case <-rc.Request.Context().Done():
		return ErrorResponse(NewError(http.StatusConflict, voiceagent.CodeIdempotencyConflict,
			"a request with this Idempotency-Key is still in progress"))
	}
	replay := copyResponse(e.resp)
	if replay.Header == nil {
		replay.Header = http.Header{}
	}
	replay.Header.Set(HeaderIdempotentReplayed, "true")
	return replay
}

// runFirst runs the first request of a key and records its response. If the
// handler panics, the response recorded is the 500 internal_error the client
// gets, so that duplicates waiting for it and later retries get
// instead of waiting forever; the panic goes on to the pipeline's recover.
// A transient 5xx (Error.Transient) is handed to the duplicates already
// waiting but not kept: the next request with the key runs again.
func (st *IdempotencyStore) runFirst(e *idemEntry, run func() *Response) *Response {
	var resp *Response
	defer func() {
		if resp == nil {
			resp = ErrorResponse(Internal())
		}
		kept := copyResponse(resp)
		st.Mu.Lock()
		e.resp = kept
		if resp.transient && resp.Status >= http.StatusInternalServerError {
			st.forgetLocked(e)
		} else if st.Entries[e.key] == e {
			e.cost = answerCost(kept)
			st.bytes += e.cost
			st.trimLocked(st.WallNow())
		}
		st.Mu.Unlock()
		close(e.done)
	}()
	resp = run()
	return resp
}

// trimLocked drops the oldest records while the store is past its bounds
// or their real time is over (records are made in real-time order, so
// those are the oldest too); records expired on a tenant's clock go when
// next looked up, or with the oldest. The newest record always stays.
func (st *IdempotencyStore) trimLocked(wall time.Time) {
	for st.head < len(st.order)-1 {
		e := st.order[st.head]
		if st.Entries[e.key] == e && len(st.Entries) <= st.maxRecords && st.bytes <= st.maxBytes &&
			(e.resp == nil || wall.Before(e.wallExpires)) {
			break
		}
		st.order[st.head] = nil
		st.head++
		st.forgetLocked(e)
	}
	// Compact when dropped records are most of the queue.
	if queued := len(st.order) - st.head; st.head > 1024 && st.head > queued {
		st.order, st.head = append([]*idemEntry(nil), st.order[st.head:]...), 0
	} else if queued > 1024 && queued > 2*len(st.Entries) {
		kept := make([]*idemEntry, 0, 2*len(st.Entries))
		for _, e := range st.order[st.head:] {
			if st.Entries[e.key] == e {
				kept = append(kept, e)
			}
		}
		st.order, st.head = kept, 0
	}
}

// IdempotencyRecord is a finished idempotency record as data, for
// snapshots: who sent the key, the key, the request's fingerprint, when the
// record expires on the tenant's clock, and the response it replays.
type IdempotencyRecord struct {
	Owner       string          `json:"owner"`
	Key         string          `json:"key"`
	Fingerprint string          `json:"fingerprint"` // hex SHA-256
	ExpiresAt   time.Time       `json:"expires_at"`
	Status      int             `json:"status"`
	Header      http.Header     `json:"header,omitempty"`
	Body        json.RawMessage `json:"body,omitempty"`
	Code        string          `json:"code,omitempty"`
}

// Export returns the finished records of the owners keep reports true
// for, oldest first. A record whose response is not JSON is left out (the
// API's responses are).
func (st *IdempotencyStore) Export(keep func(owner string) bool) []IdempotencyRecord {
	st.Mu.Lock()
	defer st.Mu.Unlock()
	out := []IdempotencyRecord{}
	for _, e := range st.order[st.head:] {
		if e == nil || st.Entries[e.key] != e || e.resp == nil {
			continue
		}
		owner, key, _ := strings.Cut(e.key, "\x00")
		if !keep(owner) || len(e.resp.Body) > 0 && !json.Valid(e.resp.Body) {
			continue
		}
		out = append(out, IdempotencyRecord{Owner: owner, Key: key, Fingerprint: hex.EncodeToString(e.fingerprint[:]),
			ExpiresAt: e.expires, Status: e.resp.Status, Header: e.resp.Header, Body: e.resp.Body, Code: e.resp.Code})
	}
	return out
}

// CheckRecords reports the first record that cannot be imported: its
// index and what is wrong (-1 and "" when every record can).
func CheckRecords(recs []IdempotencyRecord) (int, string) {
	for i, r := range recs {
		fp, err := hex.DecodeString(r.Fingerprint)
		switch {
		case r.Owner == "" || r.Key == "":
			return i, "needs an owner and a key"
		case err != nil || len(fp) != sha256.Size:
			return i, "fingerprint must be 64 hex digits"
		case r.Status < 100 || r.Status > 599:
			return i, "status must be an HTTP status"
		}
	}
	return -1, ""
}

// Import adds recs (checked with CheckRecords), replacing records with the
// same owner and key. They expire in real time a TTL from now.
func (st *IdempotencyStore) Import(recs []IdempotencyRecord) {
	st.Mu.Lock()
	defer st.Mu.Unlock()
	wall := st.WallNow()
	for _, r := range recs {
		var fp [32]byte
		_, _ = hex.Decode(fp[:], []byte(r.Fingerprint))
		done := make(chan struct{})
		close(done)
		resp := &Response{Status: r.Status, Header: r.Header, Body: r.Body, Code: r.Code}
		e := &idemEntry{key: idemName(r.Owner, r.Key), fingerprint: fp, done: done, resp: resp,
			expires: r.ExpiresAt, wallExpires: wall.Add(IdempotencyTTL), cost: answerCost(resp)}
		if old := st.Entries[e.key]; old != nil {
			st.forgetLocked(old)
		}
		st.Entries[e.key] = e
		st.bytes += e.cost
		st.order = append(st.order, e)
	}
	st.trimLocked(wall)
}

// Remove drops the records of the owners match reports true for.
func (st *IdempotencyStore) Remove(match func(owner string) bool) {
	st.Mu.Lock()
	defer st.Mu.Unlock()
	for k, e := range st.Entries {
		if owner, _, _ := strings.Cut(k, "\x00"); match(owner) {
			st.forgetLocked(e)
		}
	}
}
