package mockserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/catalog"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/runs"
	"github.com/voiceagent/voiceagent-go/sms"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// snapWorld is a tenant with records in many tables and work pending: a
// completed call, a queued call, texts, an inbound text's lead, products,
// knowledge, a webhook subscription with deliveries, a run with touches
// ahead, a script step, consent and do-not-call entries.
type snapWorld struct {
	srv  *TestServer
	acct *Account
	call string // the queued call
}

func newSnapWorld(t *testing.T) *snapWorld {
	t.Helper()
	srv := Start(t, WithStartTime(afternoonET))
	acct, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	ctx := context.Background()
	c := acct.Client()
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusNoContent) }))
	t.Cleanup(receiver.Close)
	_, err = c.Webhooks.Upsert(ctx, &webhooks.UpsertParams{BusinessID: acct.BusinessID, WebhookURL: receiver.URL + "/hook"})
	require.NoError(t, err)

	done, err := c.Calls.Create(ctx, &calls.CreateParams{AgentID: acct.AgentID, To: "+14155550190"})
	require.NoError(t, err)
	_ = done
	require.NoError(t, acct.SetConsent("+14155550191", "opted_in"))
	_, err = c.SMS.Send(ctx, &sms.SendParams{To: "+14155550191", FromAgentID: acct.AgentID, Message: "Hello"})
	require.NoError(t, err)
	_, err = acct.InboundSMS(InboundSMS{From: "+14155550192", Body: "Do you open on Sundays?"})
	require.NoError(t, err)
	require.NoError(t, acct.AddDoNotCall("+14155550193"))
	_, err = c.Products.Create(ctx, &catalog.ProductCreateParams{BusinessID: acct.BusinessID, Name: "Tune-up", Attributes: map[string]any{"hours": 2}})
	require.NoError(t, err)
	_, err = c.Knowledge.Create(ctx, &catalog.KnowledgeCreateParams{BusinessID: acct.BusinessID, Title: "Hours", Content: "9 to 5", ContentType: "text"})
	require.NoError(t, err)
	acct.Advance(10 * time.Minute) // the first call and the text finish

	queued, err := c.Calls.Create(ctx, &calls.CreateParams{AgentID: acct.AgentID, To: "+14155550194"}, voiceagent.WithIdempotencyKey("queued"))
	require.NoError(t, err)
	_, err = c.Runs.Create(ctx, &runs.CreateParams{BusinessID: acct.BusinessID, ExternalRef: "snap",
		Touches: []runs.TouchParams{
			{TouchID: "t1", Channel: runs.ChannelCall, Target: runs.Target{Phone: "+14155550195"}, ScheduledAt: acct.Now().Add(time.Hour)},
		}}, voiceagent.WithIdempotencyKey("snap-run"))
	require.NoError(t, err)
	_, err = acct.Script(Script{Calls: []CallStep{{To: "+14155550196", Outcome: "busy"}}})
	require.NoError(t, err)
	return &snapWorld{srv: srv, acct: acct, call: queued.ID}
}

// reads returns the response of every GET route of the API a key or a
// session may call, and of the admin routes about the tenant, by path:
// status and body. A route that needs business_id gets the account's.
func reads(t *testing.T, srv *TestServer, acct *Account) map[string]string {
	t.Helper()
	out := map[string]string{}
	get := func(path string, admin bool) (int, string) {
		req, err := http.NewRequest(http.MethodGet, srv.HTTP.URL+path, nil)
		require.NoError(t, err)
		if !admin {
			req.Header.Set("Authorization", "Bearer "+acct.APIKey)
			req.AddCookie(&http.Cookie{Name: "voiceagent_session", Value: acct.Session})
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, string(body)
	}
	for _, rt := range httpapi.Table {
		if rt.Method != http.MethodGet || rt.Path == "/api/v1/usage" || rt.Path == "/api/v1/keys" {
			continue // the reads themselves are logged as usage; a key's last use changes
		}
		admin := rt.Auth == httpapi.AuthAdmin
		switch {
		case admin && !strings.Contains(rt.Path, "/_mock/") || rt.Path == "/_mock/requests" || rt.Path == "/_mock/ui" ||
			rt.Path == "/_mock/health" || rt.Path == "/_mock/openapi.yaml" || rt.Path == "/_mock/tenants" || rt.Path == "/_mock/faults" ||
			rt.Path == "/_mock/clock" || rt.Path == "/_mock/snapshot" || rt.Path == "/api/v1/schemas" || rt.Lock == httpapi.LockNone && !admin:
			continue // not the tenant's state: the server's, or documents naming the server
		case rt.Auth == httpapi.AuthNone:
			continue
		}
		path := rt.Path
		if admin {
			path += "?business_id=" + acct.BusinessID // without, an admin route reads every tenant
		}
		status, body := get(path, admin)
		if status == http.StatusBadRequest && !admin {
			status, body = get(path+"?business_id="+acct.BusinessID, admin)
		}
		out[rt.Path] = http.StatusText(status) + " " + body
	}
	return out
}

// A restored tenant responds to every GET as the original did when the
// snapshot was taken, byte for byte, and its clock and pending work come
// back: advancing it again yields the same events and deliveries.
func TestRestoreBringsTheWorldBack(t *testing.T) {
	t.Parallel()
	w := newSnapWorld(t)
	ctx := context.Background()
	snap, err := w.acct.Snapshot()
	require.NoError(t, err)
	assert.Equal(t, []string{w.acct.BusinessID}, snap.BusinessIDs)
	assert.Equal(t, w.acct.Now(), snap.TakenAt)
	before := reads(t, w.srv, w.acct)

	// Change the world, and let its work run.
	c := w.acct.Client()
	_, err = c.Calls.Create(ctx, &calls.CreateParams{AgentID: w.acct.AgentID, To: "+14155550197"})
	require.NoError(t, err)
	w.acct.Advance(2 * time.Hour)
	firstRun := normalized(t, reads(t, w.srv, w.acct)["/api/v1/events"])
	firstDeliveries := deliveryOutcomes(t, w.acct)
	require.NotEqual(t, before["/api/v1/calls"], reads(t, w.srv, w.acct)["/api/v1/calls"])

	require.NoError(t, w.acct.Restore(snap))
	assert.Equal(t, snap.TakenAt, w.acct.Now(), "the clock is back")
	after := reads(t, w.srv, w.acct)
	for path, want := range before {
		assert.Equal(t, want, after[path], "GET %s", path)
	}
	tasks, err := w.acct.Schedule()
	require.NoError(t, err)
	assert.Contains(t, kindsOf(tasks, w.call), "call.answer", "the queued call's work is back")

	// The same change again yields the same events, modulo new ids.
	_, err = c.Calls.Create(ctx, &calls.CreateParams{AgentID: w.acct.AgentID, To: "+14155550197"})
	require.NoError(t, err)
	w.acct.Advance(2 * time.Hour)
	assert.Equal(t, firstRun, normalized(t, reads(t, w.srv, w.acct)["/api/v1/events"]))
	assert.Equal(t, firstDeliveries, deliveryOutcomes(t, w.acct))
	call, err := c.Calls.Get(ctx, w.call)
	require.NoError(t, err)
	assert.Equal(t, calls.StatusCompleted, call.Status)
}

func kindsOf(tasks []ScheduledTask, subject string) []string {
	var out []string
	for _, t := range tasks {
		if t.SubjectID == subject {
			out = append(out, t.Kind)
		}
	}
	return out
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|conv_[0-9a-f]{24}|SM[0-9a-f]{32}`)

// normalized returns s with each distinct id (a UUID, a conversation id, a
// message sid) replaced by its order of first appearance, so two worlds
// that differ only in ids compare equal.
func normalized(t *testing.T, s string) string {
	t.Helper()
	seen := map[string]string{}
	return uuidRE.ReplaceAllStringFunc(s, func(id string) string {
		if n, ok := seen[id]; ok {
			return n
		}
		seen[id] = "id-" + strings.Repeat("x", len(seen)+1)
		return seen[id]
	})
}

// A copy reads the same world with new ids, numbers and keys; it runs on
// its own clock, and changes in one world never show in the other.
func TestCopyIsTheSameWorldWithNewIDs(t *testing.T) {
	t.Parallel()
	w := newSnapWorld(t)
	ctx := context.Background()
	cp, err := w.acct.Copy()
	require.NoError(t, err)
	assert.NotEqual(t, w.acct.BusinessID, cp.BusinessID)
	assert.NotEqual(t, w.acct.APIKey, cp.APIKey)
	assert.NotEqual(t, w.acct.PhoneNumber, cp.PhoneNumber)
	assert.Equal(t, cp.BusinessID, cp.IDs[w.acct.BusinessID])
	assert.Equal(t, cp.AgentID, cp.IDs[w.acct.AgentID])
	assert.Equal(t, w.acct.Now(), cp.Now())

	orig, copied := reads(t, w.srv, w.acct), reads(t, w.srv, cp.Account)
	back := map[string]string{cp.PhoneNumber: w.acct.PhoneNumber}
	for old, id := range cp.IDs {
		back[id] = old
	}
	delete(orig, "/api/v1/capabilities") // names the key, a new one
	for path, want := range orig {
		got := copied[path]
		for id, old := range back {
			got = strings.ReplaceAll(got, id, old)
		}
		assert.Equal(t, want, got, "GET %s of the copy, its ids mapped back", path)
	}

	// The copy's queued call completes on the copy's clock only.
	copyCall := cp.IDs[w.call]
	require.NotEmpty(t, copyCall)
	cp.Advance(2 * time.Hour)
	got, err := cp.Client().Calls.Get(ctx, copyCall)
	require.NoError(t, err)
	assert.Equal(t, calls.StatusCompleted, got.Status)
	mine, err := w.acct.Client().Calls.Get(ctx, w.call)
	require.NoError(t, err)
	assert.Equal(t, calls.StatusQueued, mine.Status, "the original's call stays queued")
	_, err = w.acct.Client().Calls.Get(ctx, copyCall)
	assert.Error(t, err, "the original's key does not see the copy's call")

	// Advancing the original as far yields the same events and
	// deliveries, modulo ids.
	w.acct.Advance(2 * time.Hour)
	events := func(a *Account) string {
		return normalized(t, strings.ReplaceAll(reads(t, w.srv, a)["/api/v1/events"], cp.PhoneNumber, w.acct.PhoneNumber))
	}
	assert.Equal(t, events(w.acct), events(cp.Account))
	assert.Equal(t, deliveryOutcomes(t, w.acct), deliveryOutcomes(t, cp.Account))
	assert.NotEmpty(t, deliveryOutcomes(t, cp.Account))

	// The copy keeps the idempotency records under their keys, with the
	// fingerprints of the original's requests: the same key with the copy's
	// ids is another request.
	_, err = cp.Client().Calls.Create(ctx, &calls.CreateParams{AgentID: cp.AgentID, To: "+14155550194"}, voiceagent.WithIdempotencyKey("queued"))
	var apiErr *voiceagent.Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, http.StatusConflict, apiErr.StatusCode)

	// Records made in one world never show in the other.
	_, err = w.acct.Client().Products.Create(ctx, &catalog.ProductCreateParams{BusinessID: w.acct.BusinessID, Name: "Only here"})
	require.NoError(t, err)
	assert.NotContains(t, reads(t, w.srv, cp.Account)["/api/v1/products"], "Only here")
}

// deliveryOutcomes returns each of the account's webhook deliveries as its
// event, status and number of attempts, oldest first.
func deliveryOutcomes(t *testing.T, acct *Account) []string {
	t.Helper()
	var out []string
	for _, d := range acct.Deliveries(DeliveryFilter{}) {
		out = append(out, fmt.Sprint(d.Event, " ", d.Status, " ", len(d.Attempts)))
	}
	return out
}

// Bad documents get a 4xx naming what is wrong and change nothing.
func TestRestoreRefusesBadDocuments(t *testing.T) {
	t.Parallel()
	w := newSnapWorld(t)
	snap, err := w.acct.Snapshot()
	require.NoError(t, err)
	before := reads(t, w.srv, w.acct)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(snap.JSON, &doc))
	edit := func(change func(doc map[string]any)) []byte {
		var d map[string]any
		require.NoError(t, json.Unmarshal(snap.JSON, &d))
		change(d)
		out, err := json.Marshal(d)
		require.NoError(t, err)
		return out
	}
	tenant := func(d map[string]any) map[string]any { return d["tenants"].([]any)[0].(map[string]any) }
	other, err := w.srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	for _, tc := range []struct {
		name   string
		body   []byte
		status int
		path   string
	}{
		{"truncated", snap.JSON[:len(snap.JSON)/2], 400, ""},
		{"not JSON", []byte("hello"), 400, ""},
		{"another format", edit(func(d map[string]any) { d["format"] = "moto-state" }), 400, "format"},
		{"another version", edit(func(d map[string]any) { d["version"] = 2 }), 400, "version"},
		{"unknown member", edit(func(d map[string]any) { d["extra"] = true }), 400, "extra"},
		{"unknown task", edit(func(d map[string]any) {
			tenant(d)["tasks"] = []any{map[string]any{"at": "2026-01-01T00:00:00Z", "kind": "call.teleport", "subject_id": "x"}}
		}), 400, "tenants.0.tasks.0.kind"},
		{"unknown table", edit(func(d map[string]any) { tenant(d)["tables"].(map[string]any)["widgets"] = []any{} }), 400, "tenants.0.tables.widgets"},
		{"a record without an id", edit(func(d map[string]any) {
			tenant(d)["tables"].(map[string]any)["leads"] = []any{map[string]any{"Owner": w.acct.BusinessID}}
		}), 400, "tenants.0.tables.leads.0"},
		{"ids of another tenant", edit(func(d map[string]any) {
			agents := tenant(d)["tables"].(map[string]any)["agents"].([]any)
			agents[0].(map[string]any)["ID"] = other.AgentID
		}), 409, "tenants.0.tables.agents.0.ID"},
		{"a record of nobody in the tenant", edit(func(d map[string]any) {
			calls := tenant(d)["tables"].(map[string]any)["calls"].([]any)
			calls[0].(map[string]any)["Owner"] = other.BusinessID
		}), 400, "tenants.0.tables.calls.0.Owner"},
		{"a number another tenant holds", edit(func(d map[string]any) {
			numbers := tenant(d)["tables"].(map[string]any)["numbers"].([]any)
			numbers[0].(map[string]any)["PhoneNumber"] = other.PhoneNumber
		}), 409, "tenants.0.tables.numbers.0.PhoneNumber"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp, err := http.Post(w.srv.AdminURL+"/snapshot", "application/json", strings.NewReader(string(tc.body)))
			require.NoError(t, err)
			defer resp.Body.Close()
			var e struct {
				Error struct {
					Code    string `json:"code"`
					Message string `json:"message"`
					Details []struct {
						Path string `json:"path"`
					} `json:"details"`
				} `json:"error"`
			}
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&e))
			assert.Equal(t, tc.status, resp.StatusCode, e.Error.Message)
			assert.NotEmpty(t, e.Error.Message)
			if tc.path != "" {
				require.NotEmpty(t, e.Error.Details, e.Error.Message)
				assert.Equal(t, tc.path, e.Error.Details[0].Path)
			}
		})
	}
	after := reads(t, w.srv, w.acct)
	for path, want := range before {
		assert.Equal(t, want, after[path], "GET %s after the refusals", path)
	}

	// The Go helpers refuse with an *Error too.
	var e *Error
	_, err = w.srv.SnapshotOf("")
	require.ErrorAs(t, err, &e)
	assert.Equal(t, http.StatusBadRequest, e.Status)
	require.ErrorAs(t, w.srv.Restore(nil), &e)
	assert.Equal(t, http.StatusBadRequest, e.Status)
	bad, err := ParseSnapshot([]byte(`{"format":"voiceagent-mock-snapshot","version":1,"tenants":[{"business_id":"x"}]}`))
	require.NoError(t, err, "ParseSnapshot reads the head only")
	require.ErrorAs(t, w.srv.Restore(bad), &e)
	assert.Equal(t, http.StatusBadRequest, e.Status)
	assert.Equal(t, "tenants.0.business_id", e.Details[0].Path)
	_, err = ParseSnapshot([]byte(`{"format":"other","version":1}`))
	assert.ErrorContains(t, err, "format")
}

// A whole server's snapshot written to a file and restored into a new
// server brings back every tenant, key and clock.
func TestStateFileRoundTrip(t *testing.T) {
	t.Parallel()
	w := newSnapWorld(t)
	path := filepath.Join(t.TempDir(), "state.json")
	require.NoError(t, w.srv.WriteSnapshotFile(path))
	before := reads(t, w.srv, w.acct)

	srv2 := Start(t)
	require.NoError(t, srv2.RestoreFile(path))
	acct2 := *w.acct
	acct2.srv = srv2.Server
	assert.Equal(t, w.acct.Now(), acct2.Now())
	assert.Equal(t, w.srv.Now(), srv2.Now(), "the base time")
	after := reads(t, srv2, &acct2)
	for p, want := range before {
		assert.Equal(t, want, after[p], "GET %s on the new server", p)
	}
}

// A state file that is a symbolic link is written through the link, which
// stays, and keeps its mode; CheckSnapshotFile removes only the temporary
// files of that file.
func TestStateFileThroughALinkKeepsItsMode(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	dir, elsewhere := t.TempDir(), t.TempDir()
	target, link := filepath.Join(elsewhere, "real.json"), filepath.Join(dir, "state.json")
	require.NoError(t, os.WriteFile(target, []byte("{}"), 0o644))
	require.NoError(t, os.Symlink(target, link))
	stale := filepath.Join(elsewhere, ".real.json.77.tmp")
	require.NoError(t, os.WriteFile(stale, []byte("{"), 0o600))

	removed, err := CheckSnapshotFile(link)
	require.NoError(t, err)
	assert.Equal(t, []string{".real.json.77.tmp"}, removed)
	assert.NoFileExists(t, stale)
	require.NoError(t, srv.WriteSnapshotFile(link))
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.Equal(t, fs.ModeSymlink, fi.Mode().Type(), "the link stays a link")
	fi, err = os.Stat(target)
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o644), fi.Mode().Perm())
	data, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"format":"voiceagent-mock-snapshot"`)

	_, err = CheckSnapshotFile(filepath.Join(dir, "no", "state.json"))
	assert.ErrorContains(t, err, "does not exist")
}

// A server made with WithIDSeed gives a copy the same ids every time.
func TestCopyIDsRepeatWithIDSeed(t *testing.T) {
	t.Parallel()
	copyIDs := func() map[string]string {
		w := newRestoreWorld(t)
		defer w.srv.Close()
		cp, err := w.acct.Copy()
		require.NoError(t, err)
		return cp.IDs
	}
	first := copyIDs()
	assert.NotEmpty(t, first)
	assert.Equal(t, first, copyIDs())
}

// A snapshot taken while requests change the tenant reads a consistent
// state: the document is encoded under the lock (under -race, encoding it
// after would read the consent lists as they change).
func TestSnapshotWhileTheTenantChanges(t *testing.T) {
	t.Parallel()
	srv := Start(t)
	acct, err := srv.NewAccount(AccountOptions{})
	require.NoError(t, err)
	require.NoError(t, acct.SetConsent("+14155550150", "opted_in"))
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 200 {
			_ = acct.SetConsent(fmt.Sprintf("+1415555%04d", i), "opted_in")
		}
	}()
	for range 20 {
		snap, err := acct.Snapshot()
		require.NoError(t, err)
		assert.Contains(t, string(snap.JSON), "+14155550150")
	}
	<-done
}
