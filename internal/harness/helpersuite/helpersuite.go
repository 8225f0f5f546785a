// Package helpersuite checks the Go admin helpers of package mockserver
// (Server and Account) against any door to a server: a server made with
// mockserver.New in the test's process, the standalone binary or a
// container reached with mockserver.Connect. The helpers are one client of
// the admin API, so each door must answer them alike; Run is called by the
// tests of each door.
package helpersuite

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/signup"
	"github.com/voiceagent/voiceagent-go/sms"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// Options says what a door can do besides the admin API.
type Options struct {
	// Receivers is true when the server can deliver webhooks to a receiver
	// on the test's loopback (in process, the binary; not a container
	// without host networking).
	Receivers bool
	// Reset is true when the test owns the server, so Run may end by
	// resetting it.
	Reset bool
}

// Run checks every helper of Server and Account that the admin API offers
// against srv, each in a subtest.
func Run(t *testing.T, srv *mockserver.Server, o Options) {
	ctx := context.Background()
	newAccount := func(t *testing.T) *mockserver.Account {
		t.Helper()
		acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Helper Suite"})
		if err != nil {
			t.Fatalf("NewAccount: %v", err)
		}
		if acct.APIKey == "" || acct.BusinessID == "" || acct.PhoneNumber == "" {
			t.Fatalf("NewAccount returned %+v", acct.Account)
		}
		return acct
	}

	t.Run("accounts, tenants and refusals", func(t *testing.T) {
		acct := newAccount(t)
		found := false
		for _, tn := range srv.Tenants() {
			found = found || tn.BusinessID == acct.BusinessID && tn.BusinessName == "Helper Suite"
		}
		if !found {
			t.Errorf("Tenants() lacks %s", acct.BusinessID)
		}
		_, err := srv.NewAccount(mockserver.AccountOptions{Scopes: []voiceagent.Scope{"nothing:write"}})
		var e *mockserver.Error
		if !errors.As(err, &e) || e.Status != http.StatusBadRequest || e.Code != voiceagent.CodeInvalidRequest {
			t.Errorf("an unknown scope: %v, want a 400 invalid_request *mockserver.Error", err)
		}
	})

	t.Run("tenant clocks", func(t *testing.T) {
		acct, other := newAccount(t), newAccount(t)
		before, otherBefore := acct.Now(), other.Now()
		if got := acct.Advance(90 * time.Minute); !got.Equal(before.Add(90 * time.Minute)) {
			t.Errorf("Advance returned %v, want %v", got, before.Add(90*time.Minute))
		}
		if got := acct.Now(); !got.Equal(before.Add(90 * time.Minute)) {
			t.Errorf("Now after Advance is %v", got)
		}
		if got := other.Now(); !got.Equal(otherBefore) {
			t.Errorf("another tenant's clock moved: %v, was %v", got, otherBefore)
		}
	})

	t.Run("faults, fast retries and the journal", func(t *testing.T) {
		acct := newAccount(t)
		zero := 0
		f, err := acct.AddFault(mockserver.FaultRule{Method: "GET", Path: "/v1/calls", Status: 503, Times: 1, RetryAfter: &zero})
		if err != nil || f.ID == "" || f.BusinessID != acct.BusinessID {
			t.Fatalf("AddFault: %+v, %v", f, err)
		}
		seq := srv.LatestRequestSeq()
		start := time.Now()
		if _, err := acct.Client().Calls.List(ctx, nil); err != nil {
			t.Fatalf("the client did not retry the 503: %v", err)
		}
		d := time.Since(start)
		if d > 5*time.Second {
			t.Errorf("one retry took %v: the client's retry waits are not the test-sized ones", d)
		}
		t.Logf("an injected 503 and the client's retry took %v", d)
		fired := -1
		for _, r := range srv.Faults() {
			if r.ID == f.ID {
				fired = r.Fired
			}
		}
		if fired != 1 {
			t.Errorf("Faults() shows the rule fired %d times, want 1", fired)
		}
		mine := acct.Requests(mockserver.RequestFilter{Path: "/v1/calls", After: seq}.Match)
		if len(mine) != 2 || mine[0].Status != 503 || mine[0].FaultID != f.ID || mine[1].Status != 200 {
			t.Errorf("Account.Requests: %d entries %+v, want the 503 then the 200", len(mine), mine)
		}
		all := srv.Requests(mockserver.RequestFilter{BusinessID: acct.BusinessID, After: seq}.Match)
		if len(all) != len(mine) {
			t.Errorf("Server.Requests found %d, Account.Requests %d", len(all), len(mine))
		}
		waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		if got := srv.WaitRequests(waitCtx, mockserver.RequestFilter{Status: 200, BusinessID: acct.BusinessID, After: seq}.Match); len(got) != 1 {
			t.Errorf("WaitRequests found %d", len(got))
		}
		if got := acct.WaitRequests(waitCtx, mockserver.RequestFilter{Status: 503, After: seq}.Match); len(got) != 1 || got[0].FaultID != f.ID {
			t.Errorf("Account.WaitRequests: %+v", got)
		}
		g, err := acct.AddFault(mockserver.FaultRule{Path: "/v1/leads", Status: 500})
		if err != nil {
			t.Fatal(err)
		}
		if !srv.RemoveFault(g.ID) || srv.RemoveFault(g.ID) {
			t.Errorf("RemoveFault: the rule is not removed exactly once")
		}
		if _, err := srv.AddFault(mockserver.FaultRule{Path: "/v1/nothing", Status: 500}); err == nil {
			t.Errorf("AddFault took a path no route has")
		}
	})

	t.Run("the journal keeps bodies as sent", func(t *testing.T) {
		acct := newAccount(t)
		seq := srv.LatestRequestSeq()
		body := `{"agent_id": "` + acct.AgentID + `", "to": "+15551230001"}` + "\n"
		req, _ := http.NewRequest(http.MethodPost, strings.TrimSuffix(srv.LoopbackURL(), "/")+"/api/v1/calls", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+acct.APIKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		es := acct.Requests(mockserver.RequestFilter{After: seq}.Match)
		if len(es) != 1 || es[0].Request.Body != body || !es[0].Request.BodyIsJSON() {
			t.Errorf("the journaled body is not the body sent: %+v", es)
		}
	})

	t.Run("scripts, schedule and provider calls", func(t *testing.T) {
		acct := newAccount(t)
		const to = "+14155550100"
		steps, err := acct.Script(mockserver.Script{Calls: []mockserver.CallStep{{To: to, Outcome: admin.OutcomeNoAnswer}}})
		if err != nil || len(steps) != 1 || steps[0].Status != admin.StepPending || steps[0].Outcome != admin.OutcomeNoAnswer {
			t.Fatalf("Script: %+v, %v", steps, err)
		}
		if _, err := acct.Script(mockserver.Script{Calls: []mockserver.CallStep{{To: to, Outcome: "no-answer"}}}); err == nil {
			t.Errorf("Script took the call status's spelling no-answer as an outcome")
		}
		c := acct.Client()
		created, err := c.Calls.Create(ctx, &calls.CreateParams{AgentID: acct.AgentID, To: to})
		if err != nil {
			t.Fatal(err)
		}
		tasks, err := acct.Schedule()
		if err != nil || len(tasks) == 0 {
			t.Fatalf("Schedule: %v, %v", tasks, err)
		}
		if pc, ok := srv.ProviderCall(created.ID); !ok || pc.CallID != created.ID || pc.To != to {
			t.Errorf("ProviderCall: %+v, %v", pc, ok)
		}
		if _, ok := srv.ProviderCall("00000000-0000-4000-8000-000000000000"); ok {
			t.Errorf("ProviderCall found an unknown call")
		}
		acct.Advance(time.Minute)
		call, err := c.Calls.Get(ctx, created.ID)
		if err != nil || call.Status != calls.StatusFailed || call.Error == nil || *call.Error != "no_answer" {
			t.Errorf("the scripted call: %+v, %v", call, err)
		}
		got, err := acct.ScriptSteps()
		if err != nil || len(got) != 1 || got[0].Status != admin.StepUsed || got[0].UsedBy == nil || *got[0].UsedBy != created.ID {
			t.Errorf("ScriptSteps: %+v, %v", got, err)
		}
		acct.VerifyScript(t)
		if _, err := acct.Script(mockserver.Script{Texts: []mockserver.TextStep{{To: to, Outcome: admin.OutcomeDelivered}}}); err != nil {
			t.Fatal(err)
		}
		if n, err := acct.ClearScript(); err != nil || n != 1 {
			t.Errorf("ClearScript removed %d, %v; want 1", n, err)
		}
	})

	t.Run("inbound calls and texts, consent and do-not-call", func(t *testing.T) {
		acct := newAccount(t)
		const caller = "+14155550111"
		id, err := acct.InboundCall(mockserver.InboundCall{From: caller, Caller: mockserver.Caller{Said: "my name is Jane Doe"}})
		if err != nil || id == "" {
			t.Fatalf("InboundCall: %q, %v", id, err)
		}
		acct.Advance(10 * time.Minute)
		call, err := acct.Client().Calls.Get(ctx, id)
		if err != nil || call.Status != calls.StatusEnded {
			t.Errorf("the inbound call: %+v, %v", call, err)
		}
		if _, err := srv.InboundCall(mockserver.InboundCall{To: "+15550000000", From: caller}); err == nil {
			t.Errorf("InboundCall to no number worked")
		}
		r, err := acct.InboundSMS(mockserver.InboundSMS{From: caller, Body: "STOP"})
		if err != nil || r.Consent != mockserver.ConsentOptedOut || r.MessageID == "" {
			t.Errorf("InboundSMS STOP: %+v, %v", r, err)
		}
		if got := acct.Consent(caller); got != mockserver.ConsentOptedOut {
			t.Errorf("Consent after STOP: %s", got)
		}
		if err := acct.SetConsent(caller, mockserver.ConsentOptedIn); err != nil || acct.Consent(caller) != mockserver.ConsentOptedIn {
			t.Errorf("SetConsent: %v, now %s", err, acct.Consent(caller))
		}
		if err := acct.AddDoNotCall(caller); err != nil {
			t.Fatal(err)
		}
		text := &sms.SendParams{To: caller, FromAgentID: acct.AgentID, Message: "Hello"}
		_, err = acct.Client().SMS.Send(ctx, text)
		var ve *voiceagent.Error
		if !errors.As(err, &ve) || ve.Code != voiceagent.CodeNumberOnDNC {
			t.Errorf("a text to a do-not-call number: %v, want number_on_dnc", err)
		}
		if err := acct.RemoveDoNotCall(caller); err != nil {
			t.Fatal(err)
		}
		if _, err := acct.Client().SMS.Send(ctx, text); err != nil {
			t.Errorf("a text after RemoveDoNotCall: %v", err)
		}
	})

	t.Run("snapshots, restores and copies", func(t *testing.T) {
		acct := newAccount(t)
		snap, err := acct.Snapshot()
		if err != nil || len(snap.BusinessIDs) != 1 || snap.BusinessIDs[0] != acct.BusinessID {
			t.Fatalf("Snapshot: %+v, %v", snap, err)
		}
		c := acct.Client()
		if _, err := c.Calls.Create(ctx, &calls.CreateParams{AgentID: acct.AgentID, To: "+15551230002"}); err != nil {
			t.Fatal(err)
		}
		cp, err := acct.Copy()
		if err != nil || cp.BusinessID == acct.BusinessID || cp.IDs[acct.BusinessID] != cp.BusinessID {
			t.Fatalf("Copy: %+v, %v", cp, err)
		}
		if page, err := cp.Client().Calls.List(ctx, nil); err != nil || len(page.Data) != 1 {
			t.Errorf("the copy's calls: %v, %v", page, err)
		}
		if err := acct.Restore(snap); err != nil {
			t.Fatal(err)
		}
		if page, err := c.Calls.List(ctx, nil); err != nil || len(page.Data) != 0 {
			t.Errorf("after Restore: %v, %v (want no call)", page, err)
		}
		bad := *snap
		bad.JSON = []byte(`{"format":"voiceagent-mock-snapshot","version":1,"tenants":[{}]}`)
		var e *mockserver.Error
		if err := srv.Restore(&bad); !errors.As(err, &e) || e.Status != http.StatusBadRequest {
			t.Errorf("Restore of a bad document: %v", err)
		}
	})

	t.Run("fixtures, seeded records and the outbox", func(t *testing.T) {
		accts, err := srv.LoadFixtures(mockserver.Fixtures{Accounts: []mockserver.FixtureAccount{{
			BusinessName: "Fixture Co", Leads: []mockserver.LeadFixture{{Name: "Jane Doe", Phone: "+14155550199"}},
		}}})
		if err != nil || len(accts) != 1 {
			t.Fatalf("LoadFixtures: %v, %v", accts, err)
		}
		page, err := accts[0].Client().Leads.List(ctx, nil)
		if err != nil || len(page.Data) != 1 || page.Data[0].Name == nil || *page.Data[0].Name != "Jane Doe" {
			t.Errorf("the fixture's leads: %+v, %v", page, err)
		}
		leadIDs, err := accts[0].SeedLeads([]mockserver.LeadFixture{{Name: "Ana Ruiz", Phone: "+14155550198"}})
		if err != nil || len(leadIDs) != 1 {
			t.Errorf("SeedLeads: %v, %v", leadIDs, err)
		}
		callIDs, err := accts[0].SeedCalls([]mockserver.CallFixture{{To: "+14155550198", Duration: 60}})
		if err != nil || len(callIDs) != 1 {
			t.Errorf("SeedCalls: %v, %v", callIDs, err)
		}
		if got, err := accts[0].Client().Calls.Get(ctx, callIDs[0]); err != nil || got.Status != calls.StatusCompleted || got.Duration != 60 {
			t.Errorf("the seeded call: %+v, %v", got, err)
		}
		var e *mockserver.Error
		if _, err := accts[0].SeedLeads([]mockserver.LeadFixture{{Status: "nothing"}}); !errors.As(err, &e) || e.Status != http.StatusBadRequest {
			t.Errorf("SeedLeads of a bad lead: %v, want a 400 *mockserver.Error", err)
		}
		email := "helper-suite-" + accts[0].BusinessID[:8] + "@example.com"
		if _, err := accts[0].Client().Signup.Request(ctx, &signup.RequestParams{Fields: signup.Fields{BusinessName: "Outbox Co", Email: email}}); err != nil {
			t.Fatalf("signup: %v", err)
		}
		waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		m, ok := srv.WaitOutbox(waitCtx, email, nil)
		if !ok || m.OTPCode == "" || m.Channel != admin.ChannelEmail {
			t.Errorf("WaitOutbox: %+v, %v", m, ok)
		}
		if got := srv.Outbox(email); len(got) != 1 || got[0].ID != m.ID {
			t.Errorf("Outbox: %+v", got)
		}
	})

	if o.Receivers {
		t.Run("events and deliveries", func(t *testing.T) {
			acct := newAccount(t)
			var hits atomic.Int32
			rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				hits.Add(1)
				w.WriteHeader(http.StatusNoContent)
			}))
			defer rcv.Close()
			if _, err := acct.Client().Webhooks.Upsert(ctx, &webhooks.UpsertParams{BusinessID: acct.BusinessID, WebhookURL: rcv.URL + "/hook"}); err != nil {
				t.Fatal(err)
			}
			id, err := acct.EmitEvent(webhooks.EventLeadCreated, map[string]any{"id": "lead_1"})
			if err != nil || id == "" {
				t.Fatalf("EmitEvent: %q, %v", id, err)
			}
			waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
			defer cancel()
			ds := srv.WaitDeliveries(waitCtx, mockserver.DeliveryFilter{EventID: id, Status: mockserver.DeliverySucceeded}.Match)
			if len(ds) != 1 || ds[0].Kind != mockserver.DeliveryKindSubscription || ds[0].Tenant != acct.BusinessID {
				t.Fatalf("WaitDeliveries: %+v", ds)
			}
			if got := acct.Deliveries(mockserver.DeliveryFilter{}); len(got) != 1 || got[0].ID != ds[0].ID {
				t.Errorf("Account.Deliveries: %+v", got)
			}
			if got := acct.WaitDeliveries(waitCtx, nil); len(got) != 1 || got[0].ID != ds[0].ID {
				t.Errorf("Account.WaitDeliveries: %+v", got)
			}
			replay, err := srv.ReplayDelivery(ds[0].ID)
			if err != nil || replay.ReplayOf != ds[0].ID || replay.MessageID != ds[0].MessageID {
				t.Errorf("ReplayDelivery: %+v, %v", replay, err)
			}
			if got := srv.WaitDeliveryCount(waitCtx, 2, mockserver.DeliveryFilter{Tenant: acct.BusinessID, Status: mockserver.DeliverySucceeded}.Match); len(got) != 2 || hits.Load() != 2 {
				t.Errorf("WaitDeliveryCount: %d deliveries, %d requests received", len(got), hits.Load())
			}
			if _, err := srv.ReplayDelivery("d_nothing"); !errors.Is(err, mockserver.ErrDeliveryNotFound) {
				t.Errorf("ReplayDelivery of an unknown delivery: %v", err)
			}
		})
	}

	t.Run("rate limits and deleting an account", func(t *testing.T) {
		acct := newAccount(t)
		if _, err := acct.Client().Calls.List(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if n, err := acct.ClearRateLimits(); err != nil || n == 0 {
			t.Errorf("ClearRateLimits after a request dropped %d counters, %v", n, err)
		}
		if err := acct.Delete(ctx); err != nil {
			t.Fatalf("Delete: %v", err)
		}
		if _, err := acct.Client().Calls.List(ctx, nil, voiceagent.WithMaxRetries(0)); !errors.Is(err, voiceagent.ErrUnauthorized) {
			t.Errorf("the deleted account's key: %v, want 401", err)
		}
		var e *mockserver.Error
		if err := acct.Delete(ctx); !errors.As(err, &e) || e.Status != http.StatusNotFound {
			t.Errorf("Delete again: %v, want a 404 *mockserver.Error", err)
		}
	})

	t.Run("the base clock", func(t *testing.T) {
		acct := newAccount(t)
		base, mine := srv.Now(), acct.Now()
		if got := srv.Advance(time.Hour); !got.Equal(base.Add(time.Hour)) {
			t.Errorf("Server.Advance returned %v, want %v", got, base.Add(time.Hour))
		}
		if got := acct.Now(); !got.Equal(mine.Add(time.Hour)) {
			t.Errorf("a tenant's clock after Server.Advance: %v, want %v", got, mine.Add(time.Hour))
		}
	})

	if o.Reset {
		t.Run("reset", func(t *testing.T) {
			newAccount(t)
			srv.ResetEmpty()
			if got := srv.Tenants(); len(got) != 0 {
				t.Errorf("Tenants after ResetEmpty: %+v", got)
			}
		})
	}
}
