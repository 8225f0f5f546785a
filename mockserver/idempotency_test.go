package mockserver

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
)

// countRoute is a test-only POST that counts its runs and responds with the count.
func countRoute(runs *atomic.Int32) Option {
	return withRoutes(&httpapi.Route{Method: http.MethodPost, Path: "/api/v1/_test/count", Handle: func(rc *httpapi.Ctx) (any, error) {
		n := runs.Add(1)
		return httpapi.Created(map[string]any{"run": n, "id": rc.API.IDs.UUID()}), nil
	}})
}

func TestIdempotentReplayAndConflict(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	srv, acct := startWithAccount(t, countRoute(&runs))
	url := srv.URL + "/v1/_test/count"
	hdr := append(bearer(acct.APIKey), "Idempotency-Key", "order-1")

	first := rawDo(t, http.MethodPost, url, `{"a":1}`, hdr...)
	require.Equal(t, http.StatusCreated, first.status)
	assert.Empty(t, first.header.Get(httpapi.HeaderIdempotentReplayed))

	replay := rawDo(t, http.MethodPost, url, `{"a":1}`, hdr...)
	assert.Equal(t, http.StatusCreated, replay.status)
	assert.Equal(t, "true", replay.header.Get(httpapi.HeaderIdempotentReplayed))
	assert.Equal(t, string(first.body), string(replay.body), "the first answer, byte for byte")
	assert.NotEqual(t, first.header.Get("X-Request-Id"), replay.header.Get("X-Request-Id"), "a replay is its own request")
	assert.Equal(t, int32(1), runs.Load())

	for name, body := range map[string]string{"other body": `{"a":2}`, "no body": ``} {
		r := rawDo(t, http.MethodPost, url, body, hdr...)
		assert.Equal(t, http.StatusConflict, r.status, name)
		assert.Equal(t, "idempotency_conflict", r.code(), name)
	}
	r := rawDo(t, http.MethodPost, url+"?x=1", `{"a":1}`, hdr...)
	assert.Equal(t, "idempotency_conflict", r.code(), "the query is part of the request")
	r = rawDo(t, http.MethodPost, srv.URL+"/v1/agents", `{"a":1}`, hdr...)
	assert.Equal(t, "idempotency_conflict", r.code(), "so is the path")
	assert.Equal(t, int32(1), runs.Load())

	// Keys are per user: another account's same key is another request.
	other, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	r = rawDo(t, http.MethodPost, url, `{"a":1}`, append(bearer(other.APIKey), "Idempotency-Key", "order-1")...)
	assert.Empty(t, r.header.Get(httpapi.HeaderIdempotentReplayed))
	assert.Equal(t, int32(2), runs.Load())

	// Without a key every POST runs.
	rawDo(t, http.MethodPost, url, `{"a":1}`, bearer(acct.APIKey)...)
	rawDo(t, http.MethodPost, url, `{"a":1}`, bearer(acct.APIKey)...)
	assert.Equal(t, int32(4), runs.Load())

	long := rawDo(t, http.MethodPost, url, `{}`, append(bearer(acct.APIKey), "Idempotency-Key", strings.Repeat("k", 256))...)
	assert.Equal(t, http.StatusBadRequest, long.status)
	assert.Equal(t, "invalid_request", long.code())
	assert.Equal(t, int32(4), runs.Load())
}

func TestIdempotencyKeysExpireAfter24HoursOfSimulatedTime(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	srv, acct := startWithAccount(t, countRoute(&runs))
	url := srv.URL + "/v1/_test/count"
	hdr := append(bearer(acct.APIKey), "Idempotency-Key", "k")
	rawDo(t, http.MethodPost, url, `{}`, hdr...)
	srv.Advance(24*time.Hour - time.Second)
	r := rawDo(t, http.MethodPost, url, `{}`, hdr...)
	assert.Equal(t, "true", r.header.Get(httpapi.HeaderIdempotentReplayed), "still remembered just before 24 hours")
	srv.Advance(time.Second)
	r = rawDo(t, http.MethodPost, url, `{"changed":true}`, hdr...)
	assert.Equal(t, http.StatusCreated, r.status, "an expired key may be used for another request")
	assert.Empty(t, r.header.Get(httpapi.HeaderIdempotentReplayed))
	assert.Equal(t, int32(2), runs.Load())
}

func TestConcurrentDuplicatesRunTheHandlerOnce(t *testing.T) {
	t.Parallel()
	const n = 8
	var runs atomic.Int32
	release := make(chan struct{})
	blocking := withRoutes(&httpapi.Route{Method: http.MethodPost, Path: "/api/v1/_test/block", Lock: httpapi.LockNone,
		Handle: func(rc *httpapi.Ctx) (any, error) {
			runs.Add(1)
			<-release
			return httpapi.Created(map[string]any{"id": rc.API.IDs.UUID()}), nil
		}})
	s := New(blocking)
	t.Cleanup(s.Close)
	acct, err := s.NewAccount(AccountOptions{})
	require.NoError(t, err)
	// Release the handler once all the requests are in flight, so the
	// duplicates meet the running first.
	hs, allIn := countingServer(t, s, n)
	go func() { <-allIn; close(release) }()

	resps := make([]rawResp, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resps[i] = rawDo(t, http.MethodPost, hs.URL+"/api/v1/_test/block", `{"x":1}`, append(bearer(acct.APIKey), "Idempotency-Key", "same")...)
		}()
	}
	wg.Wait()
	assert.Equal(t, int32(1), runs.Load())
	replays := 0
	for _, a := range resps {
		assert.Equal(t, http.StatusCreated, a.status)
		assert.Equal(t, string(resps[0].body), string(a.body))
		if a.header.Get(httpapi.HeaderIdempotentReplayed) == "true" {
			replays++
		}
	}
	assert.Equal(t, n-1, replays)
}

func TestConcurrentDuplicateCreatesOfARateLimitedRoute(t *testing.T) {
	t.Parallel()
	// POST /v1/agents carries RateLimit-* headers: adding them to the response
	// that concurrent replays read was a data race (go test -race). The test
	// holds the state lock until every duplicate is in flight, so they all
	// meet the first one's response being made.
	const n = 8
	s := New()
	t.Cleanup(s.Close)
	acct, err := s.NewAccount(AccountOptions{})
	require.NoError(t, err)
	hs, allIn := countingServer(t, s, n)
	body := `{"business_id":"` + acct.BusinessID + `","name":"Once","system_prompt":"p"}`

	tx := s.platform.WriteTx()
	go func() { <-allIn; tx.End() }()
	resps := make([]rawResp, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resps[i] = rawDo(t, http.MethodPost, hs.URL+"/api/v1/agents", body, append(bearer(acct.APIKey), "Idempotency-Key", "create-once")...)
		}()
	}
	wg.Wait()
	replays := 0
	for i, a := range resps {
		require.Equal(t, http.StatusCreated, a.status, "answer %d: %s", i, a.body)
		assert.Equal(t, string(resps[0].body), string(a.body))
		assert.NotEmpty(t, a.header.Get("RateLimit-Limit"), "every answer has its own rate limit headers")
		if a.header.Get(httpapi.HeaderIdempotentReplayed) == "true" {
			replays++
		}
	}
	assert.Equal(t, n-1, replays)
	tx = s.platform.ReadTx()
	agents := len(tx.Agents.Owned(acct.BusinessID))
	tx.End()
	assert.Equal(t, 2, agents, "the intake agent and exactly one more")
}

// countingServer serves s on loopback and closes allIn once n requests
// have reached it.
func countingServer(t *testing.T, s *Server, n int32) (*httptest.Server, <-chan struct{}) {
	var arrived atomic.Int32
	allIn := make(chan struct{})
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if arrived.Add(1) == n {
			close(allIn)
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(hs.Close)
	return hs, allIn
}

// TestAnIdempotencyRecordIsWrittenInTheTxOfItsChange: a snapshot waiting
// for the lock while a request with an Idempotency-Key changes the state
// holds the change and the key's record together, since the record is
// written in the request's Tx rather than after it; a server restored
// from it replays the request, byte for byte, instead of running it again.
func TestAnIdempotencyRecordIsWrittenInTheTxOfItsChange(t *testing.T) {
	t.Parallel()
	var runs atomic.Int32
	var server atomic.Pointer[TestServer]
	snapped := make(chan *Snapshot, 1)
	change := withRoutes(&httpapi.Route{Method: http.MethodPost, Path: "/api/v1/_test/change", Handle: func(rc *httpapi.Ctx) (any, error) {
		n := runs.Add(1)
		ev := rc.API.Emit(rc.Tx, rc.Tenant, "lead.created", rc.Now, map[string]any{"run": n})
		if n == 1 {
			// A reader that takes the lock the moment this Tx ends. The
			// pause lets it queue; it never decides the outcome.
			tenant := rc.Tenant
			go func() {
				snap, err := server.Load().SnapshotOf(tenant)
				assert.NoError(t, err)
				snapped <- snap
			}()
			time.Sleep(50 * time.Millisecond)
		}
		return httpapi.Created(map[string]any{"run": n, "event_id": ev.ID}), nil
	}})
	srv, acct := startWithAccount(t, change)
	server.Store(srv)
	url := srv.URL + "/v1/_test/change"
	hdr := append(bearer(acct.APIKey), "Idempotency-Key", "change-1")

	first := rawDo(t, http.MethodPost, url, `{}`, hdr...)
	require.Equal(t, http.StatusCreated, first.status, "%s", first.body)
	snap := <-snapped
	var doc struct {
		Tenants []struct {
			Idempotency []struct{ Key string } `json:"idempotency"`
			Tables      struct {
				Events []struct{ ID string } `json:"events"`
			} `json:"tables"`
		} `json:"tenants"`
	}
	require.NoError(t, json.Unmarshal(snap.JSON, &doc))
	require.Len(t, doc.Tenants, 1)
	var events, keys []string
	for _, ev := range doc.Tenants[0].Tables.Events {
		events = append(events, ev.ID)
	}
	for _, r := range doc.Tenants[0].Idempotency {
		keys = append(keys, r.Key)
	}
	assert.Contains(t, events, first.json["event_id"], "the snapshot holds the change")
	assert.Contains(t, keys, "change-1", "and the record of its key")

	require.NoError(t, srv.Restore(snap))
	again := rawDo(t, http.MethodPost, url, `{}`, hdr...)
	assert.Equal(t, "true", again.header.Get(httpapi.HeaderIdempotentReplayed), "%s", again.body)
	assert.Equal(t, string(first.body), string(again.body), "the first response, byte for byte")
	assert.Equal(t, int32(1), runs.Load(), "the retry did not run again")
}
