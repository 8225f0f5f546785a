package mockserver

import (
	"context"
	"encoding/json"
	"net/http"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
)

// A deleted tenant leaves nothing behind: its records, clock and pending
// tasks, script, fault rules, rate-limit counters, journal and usage
// entries, idempotency records; its key and session get 401, its snapshot
// 404, and the tenant list no longer has it. Another tenant is untouched.
func TestDeleteAccountRemovesEverythingOfTheTenant(t *testing.T) {
	t.Parallel()
	srv := Start(t) // rate limits on, as the binary's
	acct, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	other, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	ctx := context.Background()

	// Give the tenant something of every kind.
	c := acct.Client()
	_, err = acct.Script(Script{Calls: []CallStep{{To: "*", Outcome: "completed"}, {To: "*", Outcome: "completed"}}})
	require.NoError(t, err)
	call, err := c.Calls.Create(ctx, &calls.CreateParams{AgentID: acct.AgentID, To: "+15551230001"},
		voiceagent.WithIdempotencyKey("delete-me-1"))
	require.NoError(t, err)
	_, err = acct.AddFault(FaultRule{Path: "/v1/numbers", Status: http.StatusServiceUnavailable, Times: 100})
	require.NoError(t, err)
	_, err = srv.AddFault(FaultRule{BusinessID: other.BusinessID, Path: "/v1/numbers", LatencyMS: 1})
	require.NoError(t, err)
	pending, err := acct.Schedule()
	require.NoError(t, err)
	require.NotEmpty(t, pending, "the call's simulation waits on the tenant's clock")
	require.NotEmpty(t, acct.Requests(nil))
	_, err = other.Client().Numbers.List(ctx, nil)
	require.NoError(t, err)

	srv.platform.Read(func(tx *platform.Tx) {
		require.NotEmpty(t, tx.Idempotency().Owned(acct.UserID), "the call's idempotency record")
	})
	require.NotEmpty(t, srv.tenantBuckets(acct.BusinessID), "the key's rate-limit counter")

	require.NoError(t, acct.Delete(ctx))

	// Through the SDK and raw HTTP: the key and the session are unknown.
	_, err = c.Calls.Get(ctx, call.ID)
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusUnauthorized, apiErr.StatusCode)
	r := rawDo(t, http.MethodGet, srv.URL+"/v1/keys", "", "Cookie", "voiceagent_session="+acct.Session)
	assert.Equal(t, http.StatusUnauthorized, r.status, r.body)
	r = rawDo(t, http.MethodGet, srv.AdminURL+"/snapshot?business_id="+acct.BusinessID, "")
	assert.Equal(t, http.StatusNotFound, r.status, r.body)
	r = rawDo(t, http.MethodGet, srv.AdminURL+"/schedule?business_id="+acct.BusinessID, "")
	assert.Equal(t, http.StatusNotFound, r.status, r.body)
	for _, tv := range srv.Tenants() {
		assert.NotEqual(t, acct.BusinessID, tv.BusinessID)
	}

	// What lives outside the store went with it.
	srv.platform.Read(func(tx *platform.Tx) {
		for name, recs := range tx.Records(acct.BusinessID) {
			assert.Empty(t, recs, "table %s", name)
		}
		_, ok := tx.Users.Get(acct.UserID)
		assert.False(t, ok, "the owner")
		assert.Empty(t, tx.Idempotency().Owned(acct.UserID), "idempotency records")
		assert.NotContains(t, tx.Tenants(), acct.BusinessID)
	})
	assert.NotContains(t, srv.platform.Clocks.IDs(), acct.BusinessID, "the tenant's clock")
	assert.Empty(t, srv.tenantBuckets(acct.BusinessID), "rate-limit counters")
	for _, f := range srv.Faults() {
		assert.NotEqual(t, acct.BusinessID, f.BusinessID, "fault rule %s", f.ID)
	}
	assert.Len(t, srv.Faults(), 1, "the other tenant's rule stays")
	assert.Empty(t, srv.Requests(func(e *JournalEntry) bool { return e.BusinessID == acct.BusinessID }), "journal entries")
	entries, _ := srv.httpapi.Journal.Usage()
	assert.Positive(t, entries, "the other tenant's entries stay")

	// The other tenant works as before.
	nums, err := other.Client().Numbers.List(ctx, nil)
	require.NoError(t, err)
	assert.NotEmpty(t, nums)
	assert.Len(t, srv.Tenants(), 1)

	// Deleting again: 404, as a *Error.
	err = acct.Delete(ctx)
	var me *Error
	require.ErrorAs(t, err, &me)
	assert.Equal(t, http.StatusNotFound, me.Status)
	assert.Equal(t, "not_found", me.Code)

	// A done context deletes nothing.
	done, cancel := context.WithCancel(ctx)
	cancel()
	assert.ErrorIs(t, other.Delete(done), context.Canceled)
	assert.Len(t, srv.Tenants(), 1)
}

// DELETE /_mock/accounts/{business_id} through raw HTTP: 200 {"deleted"},
// 404 for an unknown business, 400 for a bad id and for a business of a
// tenant other than its root, 405 for another method.
func TestDeleteAccountRoute(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	url := srv.AdminURL + "/accounts/" + acct.BusinessID

	r := rawDo(t, http.MethodGet, url, "")
	assert.Equal(t, http.StatusMethodNotAllowed, r.status, r.body)
	assert.Equal(t, "DELETE", r.header.Get("Allow"))

	r = rawDo(t, http.MethodDelete, url, "")
	require.Equal(t, http.StatusOK, r.status, r.body)
	var out map[string]string
	require.NoError(t, json.Unmarshal([]byte(r.body), &out))
	assert.Equal(t, map[string]string{"deleted": acct.BusinessID}, out)
	r = rawDo(t, http.MethodGet, srv.URL+"/v1/numbers", "", bearer(acct.APIKey)...)
	assert.Equal(t, http.StatusUnauthorized, r.status, r.body)

	r = rawDo(t, http.MethodDelete, url, "")
	assert.Equal(t, http.StatusNotFound, r.status, r.body)
	assert.Equal(t, "not_found", r.code())
	r = rawDo(t, http.MethodDelete, srv.AdminURL+"/accounts/not-a-uuid", "")
	assert.Equal(t, http.StatusBadRequest, r.status, r.body)
	r = rawDo(t, http.MethodDelete, srv.AdminURL+"/accounts/", "")
	assert.Equal(t, http.StatusNotFound, r.status, "no id: no route: %s", r.body)
	r = rawDo(t, http.MethodDelete, srv.AdminURL+"/accounts/"+acct.BusinessID+"/more", "")
	assert.Equal(t, http.StatusNotFound, r.status, r.body)
}

// A seed account deleted stays deleted: a reset does not bring it back.
func TestDeletedSeedAccountIsNotProvisionedAgain(t *testing.T) {
	t.Parallel()
	srv := New()
	t.Cleanup(srv.Close)
	seed, err := srv.SeedAccount(AccountOptions{})
	require.NoError(t, err)
	keep, err := srv.SeedAccount(AccountOptions{})
	require.NoError(t, err)
	require.NoError(t, seed.Delete(context.Background()))
	srv.Reset()
	tenants := srv.Tenants()
	require.Len(t, tenants, 1)
	assert.Equal(t, keep.BusinessID, tenants[0].BusinessID)
}

// Accounts a test makes on a shared server are deleted when the test
// ends, with t.Cleanup: the server holds only what running tests use.
func TestAccountsOfASharedServerAreDeletedInCleanup(t *testing.T) {
	t.Parallel()
	shared := New()
	t.Cleanup(shared.Close)
	t.Run("a test on the shared server", func(t *testing.T) {
		acct, err := shared.NewAccount(AccountOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { _ = acct.Delete(context.Background()) })
		assert.Len(t, shared.Tenants(), 1)
	})
	assert.Empty(t, shared.Tenants(), "the subtest's account went when it ended")
}

// tenantBuckets returns the rate-limit counters of tenant's keys and
// sessions.
func (s *Server) tenantBuckets(tenant string) []string {
	var who map[string]bool
	s.platform.Read(func(tx *platform.Tx) { who = httpapi.TenantCallers(tx, tenant) })
	s.httpapi.Limits.Mu.Lock()
	defer s.httpapi.Limits.Mu.Unlock()
	var out []string
	for k := range s.httpapi.Limits.Buckets {
		for w := range who {
			if len(k) > len(w) && k[len(k)-len(w):] == w {
				out = append(out, k)
			}
		}
	}
	return out
}

// BenchmarkCopyThenDeleteKeepsMemoryFlat copies a tenant of some 1,500
// records and deletes the copy, b.N times, on one server: the heap in use
// after the loop is what it was before it (heap-growth-B/op near 0), where
// copies kept would grow it by the size of a tenant each.
func BenchmarkCopyThenDeleteKeepsMemoryFlat(b *testing.B) {
	s, accts := snapBenchServer(b, 1, 1500)
	ctx := context.Background()
	round := func() {
		cp, err := s.Copy(accts[0].BusinessID)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := cp.Client().Numbers.List(ctx, nil); err != nil { // a journal entry, a counter
			b.Fatal(err)
		}
		if err := cp.Delete(ctx); err != nil {
			b.Fatal(err)
		}
	}
	for range 20 { // warm up: the pools and maps reach their working size
		round()
	}
	before := heapInUse()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		round()
	}
	b.StopTimer()
	after := heapInUse()
	b.ReportMetric(float64(after)/(1<<20), "heap-MiB")
	b.ReportMetric((float64(after)-float64(before))/float64(b.N), "heap-growth-B/op")
	if len(s.Tenants()) != 1 {
		b.Fatalf("%d tenants after the loop, want the original alone", len(s.Tenants()))
	}
}

// heapInUse returns the heap in use after a collection.
func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}
