package mockserver

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/voiceagent/voiceagent-go/calls"
)

// restoreWorld is FuzzRestore's server: one tenant with leads, calls, an
// inbound text, consent and do-not-call entries and a queued call (work
// pending), made the same way every time (WithIDSeed), so that an input
// the fuzzer saves in testdata/fuzz/FuzzRestore names the same records
// when it runs again.
type restoreWorld struct {
	srv   *Server
	acct  *Account
	snap  *Snapshot // the tenant's, as it was made
	leads string    // GET /api/v1/leads with the account's key
}

func newRestoreWorld(tb testing.TB) *restoreWorld {
	tb.Helper()
	s := New(WithIDSeed(1), WithStartTime(afternoonET), WithRateLimits(false))
	w := &restoreWorld{srv: s}
	fail := func(err error) {
		tb.Helper()
		if err != nil {
			s.Close()
			tb.Fatal(err)
		}
	}
	acct, err := s.NewAccount(AccountOptions{BusinessName: "Restore"})
	fail(err)
	w.acct = acct
	_, err = acct.SeedLeads([]LeadFixture{
		{Name: "Ann Lee", Phone: "+15551230001", Email: "ann@example.com", Status: "qualified", Consent: ConsentOptedIn},
		{Name: "Bo Chen", Phone: "+15551230002"},
	})
	fail(err)
	_, err = acct.SeedCalls([]CallFixture{{To: "+15551230001", Duration: 90, Summary: "Booked."}, {To: "+15551230002", Status: "no-answer"}})
	fail(err)
	_, err = acct.InboundSMS(InboundSMS{From: "+15551230003", Body: "Hi, my name is Cy, do you open on Sundays?"})
	fail(err)
	fail(acct.AddDoNotCall("+15551230004"))
	_, err = acct.Client().Calls.Create(context.Background(), &calls.CreateParams{AgentID: acct.AgentID, To: "+15551230005"})
	fail(err)
	w.snap, err = acct.Snapshot()
	fail(err)
	w.leads = w.get(tb, "/api/v1/leads")
	return w
}

// get returns the status and body of a GET with the account's key.
func (w *restoreWorld) get(tb testing.TB, path string) string {
	tb.Helper()
	req := localRequest(http.MethodGet, path, nil)
	req.Header.Set("Authorization", "Bearer "+w.acct.APIKey)
	rec := httptest.NewRecorder()
	w.srv.ServeHTTP(rec, req)
	return http.StatusText(rec.Code) + " " + rec.Body.String()
}

// restore posts doc to /_mock/snapshot and checks the answer: never a
// 5xx; a 4xx in the API's error format, with the tenant as it was (its
// snapshot and its leads the same, its key working). It returns the
// status.
func (w *restoreWorld) restore(t *testing.T, doc []byte) int {
	t.Helper()
	before, err := w.acct.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	req := localRequest(http.MethodPost, "/_mock/snapshot", bytes.NewReader(doc))
	rec := httptest.NewRecorder()
	w.srv.ServeHTTP(rec, req)
	switch {
	case rec.Code == http.StatusOK:
		return rec.Code
	case rec.Code >= 500 || rec.Code < 400:
		t.Fatalf("POST /_mock/snapshot with %q: %d %s", clip(doc), rec.Code, rec.Body)
	}
	var env struct {
		Error *struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.Error == nil || env.Error.Code == "" || env.Error.Message == "" {
		t.Fatalf("POST /_mock/snapshot with %q: %d answer not in the error format: %s", clip(doc), rec.Code, rec.Body)
	}
	after, err := w.acct.Snapshot()
	if err != nil {
		t.Fatalf("POST /_mock/snapshot with %q: %d %s, and then the tenant's snapshot fails: %v", clip(doc), rec.Code, rec.Body, err)
	}
	if !bytes.Equal(before.JSON, after.JSON) {
		t.Fatalf("POST /_mock/snapshot with %q: %d %s, and the tenant changed", clip(doc), rec.Code, rec.Body)
	}
	if got := w.get(t, "/api/v1/leads"); got != w.leads {
		t.Fatalf("POST /_mock/snapshot with %q: %d %s, and GET /api/v1/leads is now %s", clip(doc), rec.Code, rec.Body, got)
	}
	return rec.Code
}

// clip is the start of a document, for messages.
func clip(doc []byte) []byte { return doc[:min(len(doc), 300)] }

// restoreSeed is a document FuzzRestore starts from and the status
// TestRestoreSeeds expects of it.
type restoreSeed struct {
	name   string
	doc    []byte
	status int
}

// restoreSeeds are the world's snapshot and mutations of it: bad
// documents a restore must refuse whole.
func restoreSeeds(tb testing.TB, w *restoreWorld) []restoreSeed {
	tb.Helper()
	edit := func(change func(doc map[string]any)) []byte {
		var d map[string]any
		if err := json.Unmarshal(w.snap.JSON, &d); err != nil {
			tb.Fatal(err)
		}
		change(d)
		out, err := json.Marshal(d)
		if err != nil {
			tb.Fatal(err)
		}
		return out
	}
	tenant := func(d map[string]any) map[string]any { return d["tenants"].([]any)[0].(map[string]any) }
	table := func(d map[string]any, name string) []any {
		return tenant(d)["tables"].(map[string]any)[name].([]any)
	}
	whole, err := w.srv.Snapshot()
	if err != nil {
		tb.Fatal(err)
	}
	return []restoreSeed{
		{"the tenant's snapshot", w.snap.JSON, 200},
		{"the whole server's snapshot", whole.JSON, 200},
		{"empty", nil, 400},
		{"null", []byte("null"), 400},
		{"empty object", []byte("{}"), 400},
		{"truncated", w.snap.JSON[:len(w.snap.JSON)/2], 400},
		{"wrong version", edit(func(d map[string]any) { d["version"] = SnapshotVersion + 1 }), 400},
		{"wrong format", edit(func(d map[string]any) { d["format"] = "other" }), 400},
		{"a record lacking an id", edit(func(d map[string]any) { delete(table(d, "leads")[0].(map[string]any), "ID") }), 400},
		{"a null record", edit(func(d map[string]any) { table(d, "calls")[0] = nil }), 400},
		{"a duplicate tenant", edit(func(d map[string]any) { d["tenants"] = []any{tenant(d), tenant(d)} }), 400},
		{"a duplicate record", edit(func(d map[string]any) {
			tenant(d)["tables"].(map[string]any)["leads"] = append(table(d, "leads"), table(d, "leads")[0])
		}), 400},
		{"the root business missing", edit(func(d map[string]any) { tenant(d)["tables"].(map[string]any)["businesses"] = []any{} }), 400},
		{"the root business of another tenant", edit(func(d map[string]any) {
			table(d, "businesses")[0].(map[string]any)["Tenant"] = "00000000-0000-4000-8000-000000000001"
		}), 400},
		{"an unknown task", edit(func(d map[string]any) {
			tenant(d)["tasks"] = []any{map[string]any{"at": "2026-03-10T16:00:00Z", "kind": "call.teleport", "subject_id": "x"}}
		}), 400},
		{"a tenant with no time", edit(func(d map[string]any) { delete(tenant(d), "now") }), 400},
	}
}

// FuzzRestore posts arbitrary documents to POST /_mock/snapshot of a
// server holding a tenant: nothing may panic or respond 5xx, and a
// refused document (4xx) leaves the tenant as it was. It starts from the
// tenant's snapshot and mutations of it (restoreSeeds). A document that
// restores (200) may change the tenant: the next input gets a new world.
// Its inputs are large (a snapshot document is tens of kilobytes): bound
// the minimizing of each new one, or it takes most of the run.
//
//	go test ./mockserver -run '^$' -fuzz '^FuzzRestore$' -fuzztime 2m -fuzzminimizetime 50x
func FuzzRestore(f *testing.F) {
	w := newRestoreWorld(f)
	f.Cleanup(func() { w.srv.Close() })
	for _, seed := range restoreSeeds(f, w) {
		f.Add(seed.doc)
	}
	dirty := false
	f.Fuzz(func(t *testing.T, doc []byte) {
		if dirty {
			w.srv.Close()
			w, dirty = newRestoreWorld(t), false
		}
		dirty = w.restore(t, doc) == http.StatusOK
	})
}

// TestRestoreSeeds is FuzzRestore's checks on its seeds, each on a world
// of its own, with the status each must get.
func TestRestoreSeeds(t *testing.T) {
	t.Parallel()
	first := newRestoreWorld(t)
	seeds := restoreSeeds(t, first)
	first.srv.Close()
	for _, seed := range seeds {
		t.Run(seed.name, func(t *testing.T) {
			w := newRestoreWorld(t)
			defer w.srv.Close()
			if got := w.restore(t, seed.doc); got != seed.status {
				t.Errorf("status %d, want %d", got, seed.status)
			}
		})
	}
}
