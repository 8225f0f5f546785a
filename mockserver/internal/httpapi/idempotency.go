package httpapi

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"slices"
	"sync"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

const (
	// IdempotencyTTL is how long a key is remembered: 24 hours of its
	// tenant's simulated time, and 24 hours of real time, whichever ends
	// first.
	IdempotencyTTL       = 24 * time.Hour
	maxIdempotencyKeyLen = 255
)

// IdempotencyStore makes every POST that carried an Idempotency-Key
// idempotent, per key owner (the caller's user, or the client IP on
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
// The records are the store's (store.IdempotencyRecord, in
// Store.Idempotency): a record is looked up and written in the Tx the
// handler runs in, so a snapshot, a reset or another request sees the
// change and its record together or neither. They expire on the
// simulated clock of the request's tenant (Ctx.Now) and in real time, and
// the store keeps each tenant's newest within platform.Limits. A record is
// the response as it was sent; a response may carry a key value (POST
// /v1/keys, signup) or a signing secret, and like every response it is
// redacted where it is shown (the journal), not where it is kept.
//
// What the IdempotencyStore holds itself is the requests with a key while
// they run, so that a duplicate waits for the first one's response.
type IdempotencyStore struct {
	mu      sync.Mutex
	running map[string]*idemRun // by store.IdempotencyID
	wallNow func() time.Time    // the real clock of real-time expiry
}

// idemRun is a request with an Idempotency-Key while it runs: duplicates
// wait for done, then get resp.
type idemRun struct {
	fingerprint [32]byte
	done        chan struct{}
	resp        *Response
	// conflict reports that resp is the 409 of a record made by another
	// request: duplicates get it as it is, not as a replay.
	conflict bool
}

// idemRequest is a request with an Idempotency-Key as run sees it: whose
// key, the request's fingerprint, the real time it came.
type idemRequest struct {
	owner, key  string
	fingerprint [32]byte
	wall        time.Time
	run         *idemRun
}

// copyResponse returns a copy of resp with its own header map, for a
// replay to change.
func copyResponse(resp *Response) *Response {
	return &Response{Status: resp.Status, Header: resp.Header.Clone(), Body: resp.Body, Code: resp.Code}
}

// newIdempotencyStore returns an IdempotencyStore with no request running.
func newIdempotencyStore() *IdempotencyStore {
	return &IdempotencyStore{running: map[string]*idemRun{}, wallNow: time.Now}
}

// SetWallClock makes now the real clock the records expire on (time.Now
// by default): a test's clock.
func (st *IdempotencyStore) SetWallClock(now func() time.Time) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.wallNow = now
}

// do runs a POST that carried Idempotency-Key key: a duplicate of a
// request still running waits for its response; otherwise run (the
// pipeline's run, which calls within in the handler's Tx) looks up the
// key's record and runs the handler only without one.
func (st *IdempotencyStore) do(rc *Ctx, key string, run func() *Response) (resp *Response) {
	switch {
	case key == "":
		return ErrorResponse(domain.InvalidField("Idempotency-Key", "must not be empty: send a key of 1 to %d characters, or leave the header out", maxIdempotencyKeyLen))
	case len(key) > maxIdempotencyKeyLen:
		return ErrorResponse(domain.InvalidField("Idempotency-Key", "must be at most %d characters", maxIdempotencyKeyLen))
	}
	q := &idemRequest{owner: "ip:" + rc.ClientIP, key: key}
	if rc.Principal != nil {
		q.owner = rc.Principal.OwnerID()
	}
	q.fingerprint = sha256.Sum256([]byte(rc.Request.Method + " " + rc.Request.URL.Path + "?" + rc.Request.URL.RawQuery + "\x00" + string(rc.Body)))
	id := store.IdempotencyID(q.owner, key)

	st.mu.Lock()
	q.wall = st.wallNow()
	if r := st.running[id]; r != nil {
		st.mu.Unlock()
		return r.await(rc, q.fingerprint)
	}
	q.run = &idemRun{fingerprint: q.fingerprint, done: make(chan struct{})}
	st.running[id] = q.run
	st.mu.Unlock()
	defer func() {
		// A panic leaves resp nil: the duplicates get the 500 the
		// client gets, and the panic goes on to the pipeline's recover.
		if resp == nil {
			resp = ErrorResponse(domain.Internal())
		}
		q.run.resp = copyResponse(resp)
		st.mu.Lock()
		delete(st.running, id)
		st.mu.Unlock()
		close(q.run.done)
	}()
	rc.idem = q
	return run()
}

// await is the response of a duplicate of r, a request still running: its
// response once it has one, as a replay.
func (r *idemRun) await(rc *Ctx, fingerprint [32]byte) *Response {
	if r.fingerprint != fingerprint {
		return idemConflict()
	}
	select {
	case <-r.done:
	case <-rc.Request.Context().Done():
		return ErrorResponse(domain.New(voiceagent.CodeIdempotencyConflict,
			"a request with this Idempotency-Key is still in progress"))
	}
	if r.conflict {
		return copyResponse(r.resp)
	}
	return replay(r.resp)
}

// idemConflict is the response to a request whose key was used for
// another.
func idemConflict() *Response {
	return ErrorResponse(domain.New(voiceagent.CodeIdempotencyConflict,
		"this Idempotency-Key was already used with a different request"))
}

// replay is resp as a replay sends it: a copy marked Idempotent-Replayed.
func replay(resp *Response) *Response {
	out := copyResponse(resp)
	if out.Header == nil {
		out.Header = http.Header{}
	}
	out.Header.Set(HeaderIdempotentReplayed, "true")
	return out
}

// within runs handle, the handler of rc, a request with an Idempotency-Key,
// in tx, a write Tx: the key's record replays (or is 409 for another
// request); without one handle runs and its response is recorded in tx
// (record). If handle panics, the record is the 500 the client gets.
func (st *IdempotencyStore) within(tx *platform.Tx, rc *Ctx, handle func() *Response) (resp *Response) {
	if resp := st.lookup(tx, rc); resp != nil {
		return resp
	}
	defer func() {
		if v := recover(); v != nil {
			st.record(tx, rc, ErrorResponse(domain.Internal()))
			panic(v)
		}
	}()
	resp = handle()
	st.record(tx, rc, resp)
	return resp
}

// lookup returns the response to rc from its key's record in tx: a replay,
// or 409 when the record is another request's; nil when there is no record
// (an expired one is deleted).
func (st *IdempotencyStore) lookup(tx *platform.Tx, rc *Ctx) *Response {
	q := rc.idem
	id := store.IdempotencyID(q.owner, q.key)
	rec, ok := tx.Idempotency().Get(id)
	switch {
	case !ok:
		return nil
	case expired(rec, rc.Now, q.wall):
		tx.Idempotency().Delete(id)
		return nil
	case rec.Fingerprint != q.fingerprint:
		q.run.conflict = true
		return idemConflict()
	}
	return replay(&Response{Status: rec.Status, Header: rec.Header, Body: rec.Body, Code: rec.Code})
}

// expired reports whether a record is past its time at the tenant's now or
// in real time.
func expired(rec *store.IdempotencyRecord, now, wall time.Time) bool {
	return !now.Before(rec.ExpiresAt) || !wall.Before(rec.WallExpiresAt)
}

// record writes resp as the response of rc's key in tx, unless it is a
// transient 5xx (a retry runs again). The owner's oldest records whose
// real time is over go first (records are made in real-time order): those
// of a key nobody uses again go even on a clock nobody advances.
func (st *IdempotencyStore) record(tx *platform.Tx, rc *Ctx, resp *Response) {
	if resp.transient && resp.Status >= http.StatusInternalServerError {
		return
	}
	q, t := rc.idem, tx.Idempotency()
	for list := t.Owned(q.owner); len(list) > 0 && !q.wall.Before(list[0].WallExpiresAt); list = t.Owned(q.owner) {
		t.Delete(list[0].ID)
	}
	t.Insert(&store.IdempotencyRecord{
		Base: store.Base{ID: store.IdempotencyID(q.owner, q.key)}, Key: q.key, Fingerprint: q.fingerprint,
		ExpiresAt: rc.Now.Add(IdempotencyTTL), WallExpiresAt: q.wall.Add(IdempotencyTTL),
		Status: resp.Status, Header: resp.Header.Clone(), Body: resp.Body, Code: resp.Code,
	}, q.owner, rc.Now)
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

// Export returns the records of the owners keep reports true for, in tx,
// by owner, each owner's oldest first. A record whose response is not JSON
// is left out (the API's responses are).
func (st *IdempotencyStore) Export(tx *platform.Tx, keep func(owner string) bool) []IdempotencyRecord {
	t := tx.Idempotency()
	var owners []string
	for _, o := range t.Owners() {
		if keep(o) {
			owners = append(owners, o)
		}
	}
	slices.Sort(owners)
	out := []IdempotencyRecord{}
	for _, owner := range owners {
		for _, r := range t.Owned(owner) {
			if len(r.Body) > 0 && !json.Valid(r.Body) {
				continue
			}
			out = append(out, IdempotencyRecord{Owner: owner, Key: r.Key, Fingerprint: hex.EncodeToString(r.Fingerprint[:]),
				ExpiresAt: r.ExpiresAt, Status: r.Status, Header: r.Header, Body: r.Body, Code: r.Code})
		}
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

// Import adds recs (checked with CheckRecords) to tx, replacing records
// with the same owner and key. They expire in real time a TTL from now. A
// body gets back the newline that ends every JSON body the pipeline sends,
// which a document's JSON drops, so that a replay is the first response
// byte for byte.
func (st *IdempotencyStore) Import(tx *platform.Tx, recs []IdempotencyRecord) {
	st.mu.Lock()
	wall := st.wallNow()
	st.mu.Unlock()
	for _, r := range recs {
		body := []byte(r.Body)
		if len(body) > 0 && body[len(body)-1] != '\n' {
			body = append(body[:len(body):len(body)], '\n')
		}
		rec := &store.IdempotencyRecord{Base: store.Base{ID: store.IdempotencyID(r.Owner, r.Key)}, Key: r.Key,
			ExpiresAt: r.ExpiresAt, WallExpiresAt: wall.Add(IdempotencyTTL),
			Status: r.Status, Header: r.Header, Body: body, Code: r.Code}
		_, _ = hex.Decode(rec.Fingerprint[:], []byte(r.Fingerprint))
		tx.Idempotency().Insert(rec, r.Owner, r.ExpiresAt.Add(-IdempotencyTTL))
	}
}
