package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The server-wide caps of the event log, the delivery log and the
// idempotency records before they were per tenant: past them, the oldest
// entries went whoever owned them.
const (
	oldEventCap       = 100_000
	oldLogBytes       = 32 << 20 // of each of the three
	oldDeliveryCap    = 10_000
	oldIdempotencyCap = 100_000
)

// decode decodes a JSON body into v.
func decode(t *testing.T, raw []byte, v any) {
	t.Helper()
	require.NoError(t, json.Unmarshal(raw, v), "%.300s", raw)
}

// A tenant's events, deliveries and idempotency records survive any
// amount of activity by other tenants, through the binary at its default
// caps: a tenant with a subscription to a loopback receiver, events
// delivered there and requests with an Idempotency-Key, and a small
// unrelated tenant, stay whole while a third tenant, made as large as its
// own caps allow (20,000 events, 2,000 deliveries, idempotency records of
// large responses), is copied until the server holds three times what
// the old server-wide caps kept, in events (count and bytes), deliveries
// and idempotency bytes. Afterwards the first tenant lists every event and
// delivery it had, a retry with each of its keys replays the first
// response byte for byte, and the small tenant's records are there too.
func TestTheBinaryKeepsEachTenantsRecordsWhateverOthersDo(t *testing.T) {
	t.Parallel()
	bin, err := buildBinary()
	require.NoError(t, err)
	base, admin := startBinary(t, bin, "-addr", "127.0.0.1:0", "-seed", "none", "-rate-limits=false")
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
	}))
	t.Cleanup(receiver.Close)

	type tenant struct{ business, key string }
	newTenant := func() tenant {
		status, acct := httpJSON(t, http.MethodPost, admin+"/accounts", "{}")
		require.Equal(t, http.StatusCreated, status, acct)
		return tenant{acct["business_id"].(string), acct["api_key"].(string)}
	}
	auth := func(tn tenant, more ...string) []string {
		return append([]string{"Authorization", "Bearer " + tn.key}, more...)
	}
	subscribe := func(tn tenant) {
		status, out := httpJSON(t, http.MethodPost, base+"/v1/webhooks",
			fmt.Sprintf(`{"business_id":%q,"webhook_url":%q,"events":["lead.created"]}`, tn.business, receiver.URL), auth(tn)...)
		require.Equal(t, http.StatusCreated, status, out)
	}
	// emit emits n events of tn, the i-th of type typ(i) with data(i), on
	// eight connections at once, and returns their ids in order (none when
	// ids is false: the load's are not needed).
	emit := func(tn tenant, n int, typ func(i int) string, data func(i int) string, ids bool) []string {
		out := make([]string, n)
		var wg sync.WaitGroup
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < n; i += 8 {
					status, _, raw := exchange(t, http.MethodPost, admin+"/events",
						fmt.Sprintf(`{"business_id":%q,"event":%q,"data":%s}`, tn.business, typ(i), data(i)))
					if !assert.Equal(t, http.StatusCreated, status, "%s", raw) {
						return
					}
					if !ids {
						continue
					}
					var ev struct{ ID string }
					if assert.NoError(t, json.Unmarshal(raw, &ev)) {
						out[i] = ev.ID
					}
				}
			}()
		}
		wg.Wait()
		require.False(t, t.Failed())
		return out
	}
	// knowledge posts a knowledge entry of tn with content of size bytes
	// under an Idempotency-Key, and returns the response's body.
	knowledge := func(tn tenant, key string, size int) []byte {
		status, h, raw := exchange(t, http.MethodPost, base+"/v1/knowledge", knowledgeBody(tn.business, key, size), auth(tn, "Idempotency-Key", key)...)
		require.Equal(t, http.StatusCreated, status, "%.300s", raw)
		require.Empty(t, h.Get("Idempotent-Replayed"))
		return raw
	}
	// waitDelivered waits until n deliveries of tn succeeded and returns
	// the ids of its deliveries.
	waitDelivered := func(tn tenant, n int) []string {
		status, _, raw := exchange(t, http.MethodGet, fmt.Sprintf("%s/deliveries?business_id=%s&status=succeeded&count=%d&wait=60s", admin, tn.business, n), "")
		require.Equal(t, http.StatusOK, status, "%.300s", raw)
		var out struct {
			Deliveries []struct{ ID string } `json:"deliveries"`
		}
		decode(t, raw, &out)
		require.Len(t, out.Deliveries, n)
		var ids []string
		for _, d := range out.Deliveries {
			ids = append(ids, d.ID)
		}
		return ids
	}
	lead := func(i int) string { return fmt.Sprintf(`{"id":"lead-%d","status":"new"}`, i) }

	// The tenant that must keep everything, and a small unrelated one.
	keep := newTenant()
	subscribe(keep)
	keepEvents := emit(keep, 30, func(int) string { return "lead.created" }, lead, true)
	keepDeliveries := waitDelivered(keep, 30)
	keepResponses := map[string][]byte{}
	for i := range 3 {
		key := fmt.Sprint("keep-", i)
		keepResponses[key] = knowledge(keep, key, 200)
	}
	small := newTenant()
	smallEvents := emit(small, 3, func(int) string { return "lead.scored" }, lead, true)
	smallResponse := knowledge(small, "small-1", 100)

	eventIDs := func(tn tenant) []string {
		status, _, raw := exchange(t, http.MethodGet, base+"/v1/events?limit=100", "", auth(tn)...)
		require.Equal(t, http.StatusOK, status, "%.300s", raw)
		var page struct {
			Events  []struct{ ID string } `json:"events"`
			HasMore bool                  `json:"has_more"`
		}
		decode(t, raw, &page)
		assert.False(t, page.HasMore)
		var ids []string
		for _, ev := range page.Events {
			ids = append(ids, ev.ID)
		}
		return ids
	}
	keepListed, smallListed := eventIDs(keep), eventIDs(small)
	require.Subset(t, keepListed, keepEvents)
	require.Subset(t, smallListed, smallEvents)

	// The load: a tenant as large as its own caps keep (20,000 events of
	// 8 MiB, a tenth of them delivered; 6 MiB of idempotency records),
	// then copies of it.
	load := newTenant()
	subscribe(load)
	const loadEvents, loadDelivered, loadRecords, recordSize = 20_000, 2_000, 100, 64 << 10
	pad := strings.Repeat("p", 90)
	loadType := func(i int) string {
		if i%(loadEvents/loadDelivered) == 0 {
			return "lead.created"
		}
		return "lead.scored"
	}
	loadData := func(i int) string { return fmt.Sprintf(`{"id":"lead-%d","notes":%q}`, i, pad) }
	emit(load, loadEvents, loadType, loadData, false)
	var loadResponses [][]byte
	for i := range loadRecords {
		loadResponses = append(loadResponses, knowledge(load, fmt.Sprint("load-", i), recordSize))
	}
	waitDelivered(load, loadDelivered)

	// What the load tenant holds, as the old caps counted it: an event its
	// type, its data (the server keeps the JSON sent, its members already
	// in order) and at least 200 bytes besides; an idempotency record its
	// response's body.
	var eventBytes, recordBytes int64
	for i := range loadEvents {
		eventBytes += int64(len(loadType(i)) + len(loadData(i)) + 200)
	}
	for _, body := range loadResponses {
		recordBytes += int64(len(body))
	}

	// Copies of the load tenant until the tenants like it (the copies and
	// the load tenant itself) hold three times the old caps.
	passed := func(held int) bool {
		return held*loadEvents >= 3*oldEventCap && int64(held)*eventBytes >= 3*oldLogBytes &&
			held*loadDelivered >= 3*oldDeliveryCap && int64(held)*recordBytes >= 3*oldLogBytes
	}
	held := 1
	for ; !passed(held); held++ {
		status, _, raw := exchange(t, http.MethodPost, admin+"/accounts/copy", fmt.Sprintf(`{"business_id":%q}`, load.business))
		require.Equal(t, http.StatusCreated, status, "copy %d: %.300s", held, raw)
		// ids maps each copied record's id to its copy's: one "old":"new"
		// pair a record (counted without decoding megabytes of JSON).
		require.GreaterOrEqual(t, bytes.Count(raw, []byte(`":"`)), loadEvents+loadDelivered+loadRecords,
			"the copy holds what the load tenant does: its events, deliveries and knowledge, none dropped")
	}
	t.Logf("%d copies: %d events (%d MiB), %d deliveries, %d MiB of idempotency records (%d records; their count cap was %d), besides the two tenants'",
		held-1, held*loadEvents, int64(held)*eventBytes>>20, held*loadDelivered,
		int64(held)*recordBytes>>20, held*loadRecords, oldIdempotencyCap)

	// The two tenants read exactly what they had.
	assert.Equal(t, keepListed, eventIDs(keep), "every event of the first tenant (its account's too)")
	assert.Equal(t, smallListed, eventIDs(small), "every event of the small tenant")
	assert.ElementsMatch(t, keepDeliveries, waitDelivered(keep, len(keepDeliveries)), "every delivery of the first tenant")
	replays := map[string][]byte{"small-1": smallResponse}
	for key, first := range keepResponses {
		replays[key] = first
	}
	for key, first := range replays {
		tn, size := keep, 200
		if key == "small-1" {
			tn, size = small, 100
		}
		status, h, raw := exchange(t, http.MethodPost, base+"/v1/knowledge", knowledgeBody(tn.business, key, size), auth(tn, "Idempotency-Key", key)...)
		assert.Equal(t, http.StatusCreated, status, key)
		assert.Equal(t, "true", h.Get("Idempotent-Replayed"), "a retry with %s replays", key)
		assert.Equal(t, string(first), string(raw), "%s: the first response, byte for byte", key)
	}
}

// knowledgeBody is the body of a POST /v1/knowledge creating an entry of
// business named after key, with content of size bytes.
func knowledgeBody(business, key string, size int) string {
	return fmt.Sprintf(`{"business_id":%q,"title":%q,"content":%q,"content_type":"text"}`, business, key, strings.Repeat("c", size))
}
