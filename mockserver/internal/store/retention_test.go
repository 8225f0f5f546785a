package store

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// usageTenant is the Retention.Tenant of the usage-style tables of these
// tests: the entry's Tenant.
func usageTenant(e *UsageEntry) string { return e.Tenant }

// TestALogTableKeepsTheNewestPerOwnerAndPerTenant drives a usage-style log
// table (no id index) past its bounds, with owners of two tenants that
// write at different rates, and checks what it keeps: the newest records
// of each owner, the newest of each tenant, and every record of a tenant
// that stays within its bounds however busy the other is.
func TestALogTableKeepsTheNewestPerOwnerAndPerTenant(t *testing.T) {
	const perOwner, perTenant = 50, 120
	n := 0
	tb := NewLogTable[*UsageEntry]()
	tb.SetIDSource(func() string { n++; return "u" + strconv.Itoa(n) })
	tb.SetRetention(Retention[*UsageEntry]{PerOwner: perOwner, PerTenant: perTenant, Tenant: usageTenant})
	put := map[string][]*UsageEntry{}
	tenantOf := map[string]string{}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 5_000 {
		owner, tenant := "busy", "loud"
		switch {
		case i%500 == 1:
			owner, tenant = "calm", "calm" // a tenant of its own, writing little
		case i%3 == 0:
			owner = "quiet" + strconv.Itoa(i%9) // three owners of the loud tenant
		}
		tenantOf[owner] = tenant
		e := tb.Insert(&UsageEntry{Endpoint: "/v1/leads", Tenant: tenant}, owner, at.Add(time.Duration(i)*time.Second))
		put[owner] = append(put[owner], e)
	}

	perTenantKept := map[string]int{}
	for owner, all := range put {
		got := tb.Owned(owner)
		assert.LessOrEqual(t, len(got), perOwner, owner)
		if len(got) > 0 {
			assert.Equal(t, all[len(all)-len(got):], got, "%s keeps its newest", owner)
		}
		for _, e := range all {
			assert.Equal(t, keptOf(e).seq != 0, len(got) > 0 && !e.CreatedAt.Before(got[0].CreatedAt), "%s %s", owner, e.ID)
		}
		perTenantKept[tenantOf[owner]] += len(got)
	}
	assert.Len(t, put["calm"], 10)
	assert.Equal(t, 10, perTenantKept["calm"], "the calm tenant keeps every record, however busy the loud one")
	assert.Equal(t, perTenant, perTenantKept["loud"])
	for tenant, want := range perTenantKept {
		got, _ := tb.Retained(tenant)
		assert.Equal(t, want, got, tenant)
	}
	assert.Equal(t, tb.Len(), perTenantKept["loud"]+perTenantKept["calm"])
	assert.LessOrEqual(t, tb.ret.log.Slots(), 4*tb.Len()+65, "the retention's log stays within a small multiple of the records kept")
}

// TestInsertRunKeepsWhatInsertOfEachKeeps drives two log tables with the
// same records: one by Insert of each, one by InsertRun of the runs of
// one owner in queues of every size (as the usage log moves its queue in),
// with clocks that repeat and go back, and checks after every queue that
// both hold the same records, stamped alike, and count them alike.
func TestInsertRunKeepsWhatInsertOfEachKeeps(t *testing.T) {
	const perOwner, perTenant = 60, 100
	each, runs := NewLogTable[*UsageEntry](), NewLogTable[*UsageEntry]()
	for _, tb := range []*Table[*UsageEntry]{each, runs} {
		tb.SetRetention(Retention[*UsageEntry]{PerOwner: perOwner, PerTenant: perTenant, Tenant: usageTenant})
	}
	owners := []string{"quiet1", "busy", "quiet2"}
	tenants := map[string]string{"busy": "t1", "quiet1": "t1", "quiet2": "t2"}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	id := 0
	for queue := 1; id < 3_000; queue = queue%37 + 1 {
		var batch []*UsageEntry
		var batchOwners []string
		for range queue {
			id++
			owner := "busy" // runs of one owner, as a busy user makes
			if id%5 == 0 {
				owner = owners[(id/5)%len(owners)]
			}
			when := at.Add(time.Duration(id/3) * time.Second) // repeats
			if id%11 == 0 {
				when = when.Add(-time.Hour) // a clock set back
			}
			each.Insert(&UsageEntry{Base: Base{ID: strconv.Itoa(id)}, Endpoint: "/v1/leads", Tenant: tenants[owner]}, owner, when)
			batch = append(batch, &UsageEntry{Base: Base{ID: strconv.Itoa(id), CreatedAt: when}, Endpoint: "/v1/leads", Tenant: tenants[owner]})
			batchOwners = append(batchOwners, owner)
		}
		for start := 0; start < len(batch); {
			end := start + 1
			for end < len(batch) && batchOwners[end] == batchOwners[start] {
				end++
			}
			runs.InsertRun(batchOwners[start], batch[start:end])
			start = end
		}
		require.Equal(t, each.Len(), runs.Len(), "after record %d", id)
		for _, owner := range owners {
			require.Equal(t, stamps(each, owner), stamps(runs, owner), "%s after record %d", owner, id)
		}
	}
	n, _ := runs.Retained("t1")
	assert.Equal(t, perTenant, n, "the bound per tenant was reached")
	assert.LessOrEqual(t, len(runs.byOwner["busy"]), perOwner)
	n, _ = runs.Retained("t2")
	assert.Equal(t, perOwner, n, "the bound per owner was reached")
}

// stamps lists an owner's records in a table as id@created_at, oldest first.
func stamps(tb *Table[*UsageEntry], owner string) []string {
	var out []string
	for _, e := range tb.byOwner[owner] {
		out = append(out, e.ID+"@"+e.CreatedAt.Format(time.RFC3339Nano))
	}
	return out
}

// TestAStoreBoundsEachTenantsLogsApart: in a store, the event log, the
// outbox and the idempotency records count each tenant's records alone
// (the tenant of a record's business, or of its user; messages and
// records of no tenant together): a tenant flooding all three, in count
// and in bytes, keeps its own newest and pushes out nothing of two quiet
// tenants, nor of the records of no tenant; removing the busy tenant frees
// its share.
func TestAStoreBoundsEachTenantsLogsApart(t *testing.T) {
	const perTenant, bytesPerTenant = 100, 64 << 10
	next, _ := counter("id")
	st := NewWithIDs(next)
	st.Events.SetRetention(Retention[*Event]{PerTenant: perTenant, BytesPerTenant: bytesPerTenant, Cost: EventBytes})
	st.Outbox.SetRetention(Retention[*OutboxMessage]{PerTenant: perTenant})
	st.Idempotency().SetRetention(Retention[*IdempotencyRecord]{PerTenant: perTenant, BytesPerTenant: bytesPerTenant, Cost: IdempotencyBytes})

	tenant := func(name string) (root, second, user string) {
		b := st.InsertBusiness(&Business{Base: Base{ID: name}, Members: map[string]string{name + "-user": RoleOwner}}, t0)
		b2 := st.InsertBusiness(&Business{Base: Base{ID: name + "-2"}, Tenant: b.ID, Members: map[string]string{}}, t0)
		st.Users.Insert(&User{Base: Base{ID: name + "-user"}}, name+"-user", t0)
		return b.ID, b2.ID, name + "-user"
	}
	quiet, quiet2, quietUser := tenant("quiet")
	calm, _, calmUser := tenant("calm")
	busy, busy2, busyUser := tenant("busy")

	at := t0
	tick := func() time.Time { at = at.Add(time.Second); return at }
	event := func(biz string, data int) *Event {
		return st.Events.Insert(&Event{Type: "lead.created", Data: []byte(`"` + strings.Repeat("d", data) + `"`)}, biz, tick())
	}
	message := func(biz string) *OutboxMessage {
		return st.Outbox.Insert(&OutboxMessage{BusinessID: biz, Channel: "sms", Body: "code"}, "outbox", tick())
	}
	record := func(owner, key string, body int) *IdempotencyRecord {
		return st.Idempotency().Insert(&IdempotencyRecord{Base: Base{ID: IdempotencyID(owner, key)}, Key: key, Status: 201, Body: []byte(strings.Repeat("b", body))}, owner, tick())
	}

	var quietEvents []*Event
	for i := range 10 {
		quietEvents = append(quietEvents, event([]string{quiet, quiet2}[i%2], 20))
	}
	calmEvents := []*Event{event(calm, 20), event(calm, 20), event(calm, 20)}
	quietMessages := []*OutboxMessage{message(quiet), message(quiet2)}
	signupCodes := []*OutboxMessage{message(""), message("")}
	quietRecords := []*IdempotencyRecord{record(quietUser, "k1", 500), record(quietUser, "k2", 500)}
	calmRecords := []*IdempotencyRecord{record(calmUser, "k1", 500)}
	anonymous := []*IdempotencyRecord{record("ip:192.0.2.1", "k1", 500)}

	// The busy tenant: past the count in small records, past the bytes in
	// large ones, on both of its businesses.
	for i := range 3 * perTenant {
		event([]string{busy, busy2}[i%2], 20)
		message([]string{busy, busy2}[i%2])
		record(busyUser, fmt.Sprint("small", i), 10)
	}
	for i := range 50 {
		event(busy, 4<<10)
		record(busyUser, fmt.Sprint("large", i), 4<<10)
	}

	for _, e := range append(quietEvents, calmEvents...) {
		got, ok := st.Events.Get(e.ID)
		require.True(t, ok, "event %s of %s", e.ID, e.Owner)
		assert.Same(t, e, got)
	}
	for _, m := range append(quietMessages, signupCodes...) {
		_, ok := st.Outbox.Get(m.ID)
		assert.True(t, ok, "message %s for %q", m.ID, m.BusinessID)
	}
	for _, r := range append(append(quietRecords, calmRecords...), anonymous...) {
		_, ok := st.Idempotency().Get(r.ID)
		assert.True(t, ok, "record %s", r.ID)
	}

	n, bytes := st.Events.Retained(busy)
	assert.LessOrEqual(t, n, perTenant)
	assert.LessOrEqual(t, bytes, int64(bytesPerTenant))
	assert.Less(t, n, perTenant, "the large events pushed out more than the count would")
	newest := st.Events.Owned(busy)
	assert.Equal(t, 4<<10+2, len(newest[len(newest)-1].Data), "the busy tenant keeps its newest")
	n, _ = st.Events.Retained(quiet)
	assert.Equal(t, 10, n, "both businesses of the quiet tenant count as one tenant")
	n, _ = st.Outbox.Retained(busy)
	assert.Equal(t, perTenant, n)
	n, _ = st.Outbox.Retained("")
	assert.Equal(t, 2, n, "messages of no tenant count together")
	n, bytes = st.Idempotency().Retained(busy)
	assert.LessOrEqual(t, n, perTenant)
	assert.LessOrEqual(t, bytes, int64(bytesPerTenant))
	n, _ = st.Idempotency().Retained("")
	assert.Equal(t, 1, n, "a request without a caller's record counts with no tenant")

	st.Remove(busy)
	for _, bounded := range []interface{ Retained(string) (int, int64) }{st.Events, st.Outbox, st.Idempotency()} {
		n, bytes := bounded.Retained(busy)
		assert.Zero(t, n, "a removed tenant's share is free")
		assert.Zero(t, bytes)
	}
	assert.Equal(t, 13, st.Events.Len(), "the quiet and the calm tenants' events")
	assert.Empty(t, st.Idempotency().Owned(busyUser), "the removed tenant's idempotency records")
	assert.Equal(t, 4, st.Idempotency().Len(), "the other tenants' records and the one of no tenant stay")
	assert.Empty(t, st.BusinessesOf(busyUser))
	_, held := st.userBusinesses[busyUser]
	assert.False(t, held, "no entry is left for the removed tenant's user")
}

// DeleteFunc removes the records it matches from a log table (no id
// index) with their places in the retention, and forgets the stamp of an
// owner it leaves without records.
func TestDeleteFuncRemovesFromALogTable(t *testing.T) {
	n := 0
	tb := NewLogTable[*UsageEntry]()
	tb.SetIDSource(func() string { n++; return "u" + strconv.Itoa(n) })
	tb.SetRetention(Retention[*UsageEntry]{PerOwner: 100, PerTenant: 100, Tenant: usageTenant})
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 30 {
		owner, tenant := "stays", "kept"
		if i%3 == 0 {
			owner, tenant = "goes", "gone"
		}
		tb.Insert(&UsageEntry{Endpoint: "/v1/leads", Tenant: tenant}, owner, at.Add(time.Duration(i)*time.Second))
	}
	mixed := tb.Insert(&UsageEntry{Endpoint: "/v1/calls", Tenant: "gone"}, "stays", at.Add(time.Minute))

	assert.Equal(t, 11, tb.DeleteFunc(func(e *UsageEntry) bool { return e.Tenant == "gone" }))
	assert.Equal(t, 20, tb.Len())
	assert.Empty(t, tb.Owned("goes"))
	assert.NotContains(t, tb.Owners(), "goes")
	assert.Len(t, tb.Owned("stays"), 20)
	assert.NotContains(t, tb.Owned("stays"), mixed)
	assert.Zero(t, keptOf(mixed).seq, "out of the retention's log")
	n, _ = tb.Retained("gone")
	assert.Zero(t, n)
	n, _ = tb.Retained("kept")
	assert.Equal(t, 20, n)
	_, stamped := tb.last["goes"]
	assert.False(t, stamped, "an owner left without records has no stamp kept")
	assert.Zero(t, tb.DeleteFunc(func(*UsageEntry) bool { return false }))
}
