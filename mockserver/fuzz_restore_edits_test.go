package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
)

// editWorld is FuzzRestoreEdits' server: three tenants (a, b and c), each
// with a lead, a queued call made with an Idempotency-Key (pending work
// and an idempotency record), a number, a key and a session, made the same
// way every time (WithIDSeed). The document edited holds a and b; c is the
// tenant outside it.
type editWorld struct {
	srv   *Server
	accts [3]*Account
	snaps [3]map[string]any // each tenant's snapshot document, decoded
}

func newEditWorld(tb testing.TB) *editWorld {
	tb.Helper()
	s := New(WithIDSeed(7), WithStartTime(afternoonET), WithRateLimits(false))
	w := &editWorld{srv: s}
	for i := range w.accts {
		acct, err := s.NewAccount(AccountOptions{BusinessName: fmt.Sprint("Tenant ", i)})
		if err == nil {
			_, err = acct.InboundSMS(InboundSMS{From: fmt.Sprintf("+1555123010%d", i), Body: "Hi, I am Ann, do you open on Sundays?"})
		}
		if err == nil {
			_, err = acct.Client().Calls.Create(context.Background(), &calls.CreateParams{AgentID: acct.AgentID, To: fmt.Sprintf("+1555123020%d", i)},
				voiceagent.WithIdempotencyKey("edit-call"))
		}
		if err != nil {
			s.Close()
			tb.Fatal(err)
		}
		w.accts[i] = acct
	}
	for i, acct := range w.accts {
		snap, err := acct.Snapshot()
		if err != nil {
			s.Close()
			tb.Fatal(err)
		}
		if err := json.Unmarshal(snap.JSON, &w.snaps[i]); err != nil {
			tb.Fatal(err)
		}
	}
	return w
}

// tenantOf is the tenant member of tenant i's snapshot, a fresh copy.
func (w *editWorld) tenantOf(i int) map[string]any {
	data, _ := json.Marshal(w.snaps[i]["tenants"].([]any)[0])
	var ts map[string]any
	_ = json.Unmarshal(data, &ts)
	return ts
}

// document returns the document holding tenants a and b, edited by ops:
// each three bytes (an edit, and two numbers it reads) make an edit (see
// edit).
func (w *editWorld) document(ops []byte) []byte {
	doc := map[string]any{"format": SnapshotFormat, "version": SnapshotVersion, "taken_at": w.snaps[0]["taken_at"],
		"tenants": []any{w.tenantOf(0), w.tenantOf(1)}}
	for i := 0; i+2 < len(ops); i += 3 {
		w.edit(doc, ops[i], int(ops[i+1]), int(ops[i+2]))
	}
	out, _ := json.Marshal(doc)
	return out
}

// Edits of a document (edit's op, modulo their number).
const (
	editSwapIDs = iota
	editKeyHash
	editSessionToken
	editPhoneNumber
	editReference
	editIdempotencyOwner
	editTaskSubject
	editClock
	editMember
	editLinkToken
	editCount
)

// editTables are the tables whose ids editSwapIDs swaps, and
// editReferences the references editReference moves: a table, its field
// and the table of the records it names.
var (
	editTables     = []string{"leads", "calls", "agents", "numbers", "users", "keys", "sessions", "events", "sms_messages"}
	editReferences = [][3]string{
		{"calls", "AgentID", "agents"}, {"calls", "LeadID", "leads"}, {"numbers", "AgentID", "agents"},
		{"leads", "AgentID", "agents"}, {"sms_messages", "AgentID", "agents"}, {"sms_messages", "LeadID", "leads"},
		{"keys", "Owner", "users"}, {"agents", "PhoneNumber", "numbers"},
	}
	editTimes = []string{"9999-12-31T00:00:00Z", "8999-12-31T23:59:59Z", "9000-01-01T00:00:00Z", "2000-01-01T00:00:00Z"}
)

// edit makes one edit of the document: in the document's tenant a%2 (the
// edited one), a value or a reference is taken from another tenant: the
// other tenant of the document when b is even, tenant c (outside it) when
// b is odd; b/2 picks among the choices an edit has.
func (w *editWorld) edit(doc map[string]any, op byte, a, b int) {
	tenants := doc["tenants"].([]any)
	ts := tenants[a%2].(map[string]any)
	other := tenants[1-a%2].(map[string]any)
	if b%2 == 1 {
		other = w.tenantOf(2)
	}
	pick := b / 2
	first := func(ts map[string]any, table string) map[string]any {
		recs, _ := ts["tables"].(map[string]any)[table].([]any)
		if len(recs) == 0 {
			return nil
		}
		r, _ := recs[pick%len(recs)].(map[string]any)
		return r
	}
	swap := func(table, field string) {
		x, y := first(ts, table), first(other, table)
		if x == nil || y == nil {
			return
		}
		x[field], y[field] = y[field], x[field]
	}
	switch int(op) % editCount {
	case editSwapIDs:
		swap(editTables[pick%len(editTables)], "ID")
	case editKeyHash:
		swap("keys", "Hash")
	case editSessionToken:
		swap("sessions", "Token")
	case editPhoneNumber:
		swap("numbers", "PhoneNumber")
	case editReference:
		r := editReferences[pick%len(editReferences)]
		x, y := first(ts, r[0]), first(other, r[2])
		if x != nil && y != nil {
			field := "ID"
			if r[2] == "numbers" {
				field = "PhoneNumber"
			}
			x[r[1]] = y[field]
		}
	case editIdempotencyOwner:
		idem, _ := ts["idempotency"].([]any)
		if u := first(other, "users"); len(idem) > 0 && u != nil {
			idem[0].(map[string]any)["owner"] = u["ID"]
			idem[0].(map[string]any)["body"] = map[string]any{"id": "injected"}
		}
	case editTaskSubject:
		tasks, _ := ts["tasks"].([]any)
		if c := first(other, "calls"); c != nil {
			ts["tasks"] = append(tasks, map[string]any{"at": ts["now"], "kind": "call.answer", "subject_id": c["ID"]})
		}
	case editClock:
		at := editTimes[pick%len(editTimes)]
		switch b % 3 {
		case 0:
			ts["now"] = at
		case 1:
			doc["taken_at"] = at
		default:
			if tasks, _ := ts["tasks"].([]any); len(tasks) > 0 {
				tasks[0].(map[string]any)["at"] = at
			}
		}
	case editMember:
		if biz, u := first(ts, "businesses"), first(other, "users"); biz != nil && u != nil {
			members, _ := biz["Members"].(map[string]any)
			if members != nil {
				members[u["ID"].(string)] = "admin"
			}
		}
	case editLinkToken:
		swapLinks(ts, other)
	}
}

// swapLinks swaps the tokens of the first magic links of two tenants.
func swapLinks(ts, other map[string]any) {
	x, _ := ts["magic_links"].([]any)
	y, _ := other["magic_links"].([]any)
	if len(x) == 0 || len(y) == 0 {
		return
	}
	lx, ly := x[0].(map[string]any), y[0].(map[string]any)
	lx["Token"], ly["Token"] = ly["Token"], lx["Token"]
}

// serve returns the status and body of a request to the server.
func (w *editWorld) serve(method, path, key string, body []byte) (int, []byte) {
	req := localRequest(method, path, bytes.NewReader(body))
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	rec := httptest.NewRecorder()
	w.srv.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

// state returns every tenant's snapshot and what its key reads, and the
// list of tenants.
func (w *editWorld) state(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{}
	get := func(name, path, key string) {
		code, body := w.serve(http.MethodGet, path, key, nil)
		out[name] = fmt.Sprintf("%d %s", code, body)
	}
	get("tenants", "/_mock/tenants", "")
	for i, acct := range w.accts {
		get(fmt.Sprint(i, " snapshot"), "/_mock/snapshot?business_id="+acct.BusinessID, "")
		get(fmt.Sprint(i, " leads"), "/api/v1/leads", acct.APIKey)
		get(fmt.Sprint(i, " calls"), "/api/v1/calls", acct.APIKey)
	}
	return out
}

// ids returns the ids of a list response's member (leads, calls).
func ids(body []byte, member string) []string {
	var page map[string][]struct {
		ID string `json:"id"`
	}
	_ = json.Unmarshal(body, &page)
	var out []string
	for _, r := range page[member] {
		out = append(out, r.ID)
	}
	return out
}

// checkReach fails when a key reads a lead or a call of two tenants, or
// of a tenant outside the document (c) but c's own key: after a restore
// that succeeded, no tenant reaches another's records.
func (w *editWorld) checkReach(t *testing.T, ops []byte) {
	t.Helper()
	owner := map[string]int{} // record id -> tenant, from the tenants' snapshots
	for i, acct := range w.accts {
		code, body := w.serve(http.MethodGet, "/_mock/snapshot?business_id="+acct.BusinessID, "", nil)
		if code != http.StatusOK {
			t.Fatalf("edits %v: GET /_mock/snapshot of tenant %d: %d %s", ops, i, code, body)
		}
		var doc struct {
			Tenants []struct {
				Tables map[string][]struct{ ID string } `json:"tables"`
			} `json:"tenants"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			t.Fatal(err)
		}
		for _, table := range []string{"leads", "calls"} {
			for _, r := range doc.Tenants[0].Tables[table] {
				owner[r.ID] = i
			}
		}
	}
	for i, acct := range w.accts {
		for _, member := range []string{"leads", "calls"} {
			code, body := w.serve(http.MethodGet, "/api/v1/"+member, acct.APIKey, nil)
			if code != http.StatusOK {
				continue // a key the document took away
			}
			var seen []int
			for _, id := range ids(body, member) {
				if o, ok := owner[id]; ok && !slices.Contains(seen, o) {
					seen = append(seen, o)
				}
			}
			if len(seen) > 1 || len(seen) == 1 && (seen[0] == 2) != (i == 2) {
				t.Fatalf("edits %v: tenant %d's key reads %s of tenants %v: %s", ops, i, member, seen, body)
			}
		}
	}
}

// FuzzRestoreEdits restores edited documents holding two tenants of a
// server of three: ids, key hashes, session and link tokens and phone
// numbers swapped between tenants (the document's two, or with the third
// outside it), references moved to another tenant's records, idempotency
// records given to another tenant's user, tasks naming another tenant's
// call, clocks past 9000-01-01, members of another tenant. Nothing may
// panic or respond 5xx; a refused document (4xx, in the error format)
// leaves every tenant as it was (its snapshot, what its key reads, the
// tenants' order); a restored one never lets a tenant reach another's
// records, and leaves the tenant outside the document as it was. The
// input is the list of edits (see editWorld.edit); the seeds in
// testdata/fuzz/FuzzRestoreEdits are the attacks, and run with
// plain go test.
//
//	go test ./mockserver -run '^$' -fuzz '^FuzzRestoreEdits$' -fuzztime 2m
func FuzzRestoreEdits(f *testing.F) {
	w := newEditWorld(f)
	f.Cleanup(func() { w.srv.Close() })
	f.Add([]byte{}) // the document as it is: restored
	dirty := false
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 60 {
			ops = ops[:60]
		}
		if dirty {
			w.srv.Close()
			w, dirty = newEditWorld(t), false
		}
		doc := w.document(ops)
		before := w.state(t)
		code, body := w.serve(http.MethodPost, "/_mock/snapshot", "", doc)
		switch {
		case code == http.StatusOK:
			dirty = true
			w.checkReach(t, ops)
			after := w.state(t)
			for _, k := range []string{"2 snapshot", "2 leads", "2 calls"} {
				if before[k] != after[k] {
					t.Fatalf("edits %v: restored, and the tenant outside the document changed: %s\nwas %s\nnow %s", ops, k, before[k], after[k])
				}
			}
			return
		case code >= 500 || code < 400:
			t.Fatalf("edits %v: POST /_mock/snapshot: %d %s", ops, code, body)
		}
		var env struct {
			Error *struct {
				Code    string `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(body, &env); err != nil || env.Error == nil || env.Error.Code == "" {
			t.Fatalf("edits %v: %d response not in the error format: %s", ops, code, body)
		}
		after := w.state(t)
		for k, v := range before {
			if after[k] != v {
				t.Fatalf("edits %v: refused (%d %s), and %s changed:\nwas %s\nnow %s", ops, code, body, k, v, after[k])
			}
		}
	})
}
