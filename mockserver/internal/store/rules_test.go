package store

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tenantWorld returns a store holding tenants a, b and c, each with a user
// (u<t>), a business (<t>), an agent (agent-<t>) with its assistant, a
// number (num-<t>, phone +1555000000<i>), a key (hash [i]), a session
// (sess-<t>), a lead (lead-<t>), a call (call-<t>) and a magic link
// (link-<t>).
func tenantWorld() *Store {
	s := New()
	for i, t := range []string{"a", "b", "c"} {
		u := "u" + t
		s.Users.Insert(&User{Base: Base{ID: u}, Email: u + "@example.com"}, u, t0)
		s.InsertBusiness(&Business{Base: Base{ID: t}, OwnerUserID: u, Members: map[string]string{u: RoleOwner}}, t0)
		s.UsersByEmail[u+"@example.com"] = mustGet(s.Users, u)
		a := s.Agents.Insert(&Agent{Base: Base{ID: "agent-" + t}, VendorAssistantID: "asst-" + t}, t, t0)
		s.Assistants[a.VendorAssistantID] = &Assistant{ID: a.VendorAssistantID}
		phone := fmt.Sprintf("+1555000000%d", i)
		s.Numbers.Insert(&Number{Base: Base{ID: "num-" + t}, PhoneNumber: phone, AgentID: a.ID}, t, t0)
		s.Keys.Insert(&APIKey{Base: Base{ID: "key-" + t}, Hash: [32]byte{byte(i + 1)}, Active: true}, u, t0)
		s.Sessions.Insert(&Session{Base: Base{ID: "sess-" + t}, Token: "sess_" + t}, u, t0)
		s.Leads.Insert(&Lead{Base: Base{ID: "lead-" + t}, AgentID: a.ID}, t, t0)
		s.Calls.Insert(&Call{Base: Base{ID: "call-" + t}, AgentID: a.ID, LeadID: "lead-" + t}, t, t0)
		s.MagicLinks["link-"+t] = &MagicLink{Token: "link-" + t, UserID: u, ExpiresAt: t0}
	}
	return s
}

// mustGet returns the record of a table with the id.
func mustGet[T Record](tb *Table[T], id string) T {
	r, ok := tb.Get(id)
	if !ok {
		panic("no record " + id)
	}
	return r
}

// panicsWith returns what fn panics with ("" when it does not).
func panicsWith(fn func()) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	fn()
	return ""
}

// A write never gives a record an id, or a unique value (a key's hash, a
// session's token, a phone number, an assistant), another record holds.
func TestWritesKeepUniqueValuesUnique(t *testing.T) {
	s := tenantWorld()
	for name, write := range map[string]func(){
		"an id in use":         func() { s.Leads.Insert(&Lead{Base: Base{ID: "lead-b"}}, "a", t0) },
		"an id in use, at":     func() { s.Leads.InsertAt(&Lead{Base: Base{ID: "lead-b"}}, "a", t0) },
		"a key's hash":         func() { s.Keys.Insert(&APIKey{Base: Base{ID: "k2"}, Hash: [32]byte{2}}, "ua", t0) },
		"a session's token":    func() { s.Sessions.Insert(&Session{Base: Base{ID: "s2"}, Token: "sess_b"}, "ua", t0) },
		"a phone number":       func() { s.Numbers.Put(&Number{Base: Base{ID: "n2", Owner: "a"}, PhoneNumber: "+15550000001"}) },
		"an assistant":         func() { s.Agents.Insert(&Agent{Base: Base{ID: "agent2"}, VendorAssistantID: "asst-b"}, "a", t0) },
		"an update's new hash": func() { s.Keys.Update(mustGet(s.Keys, "key-a"), func(k *APIKey) { k.Hash = [32]byte{3} }) },
	} {
		msg := panicsWith(write)
		assert.Contains(t, msg, "store: ", name)
	}
	assert.Equal(t, "key-b", s.KeysByHash[[32]byte{2}].ID, "the holder keeps its value")
	assert.Equal(t, "num-b", s.NumbersByPhone["+15550000001"].ID)
	assert.Equal(t, "sess-b", s.SessionsByToken["sess_b"].ID)

	// Replacing a record by its own id keeps its values.
	s.Keys.Put(&APIKey{Base: Base{ID: "key-b", Owner: "ub", CreatedAt: t0}, Hash: [32]byte{2}})
	assert.Equal(t, "key-b", s.KeysByHash[[32]byte{2}].ID)
	s.Keys.Delete("key-b")
	assert.Nil(t, s.KeysByHash[[32]byte{2}], "a deleted key is found by its hash no more")
}

// A write never makes a record name a record of another tenant: a number
// routing to another tenant's agent, a call of another tenant's agent or
// lead, a key of a user of another tenant. A reference to no record, or
// to a record of no tenant, is allowed.
func TestWritesReferWithinTheirTenant(t *testing.T) {
	s := tenantWorld()
	for name, write := range map[string]func(){
		"a number to another tenant's agent": func() {
			s.Numbers.Insert(&Number{PhoneNumber: "+15559990000", AgentID: "agent-b", Base: Base{ID: "n9"}}, "a", t0)
		},
		"a call with another tenant's agent": func() { s.Calls.Insert(&Call{Base: Base{ID: "c9"}, AgentID: "agent-b"}, "a", t0) },
		"a call with another tenant's lead":  func() { s.Calls.Insert(&Call{Base: Base{ID: "c9"}, LeadID: "lead-b"}, "a", t0) },
		"an update to another tenant's lead": func() { s.Calls.Update(mustGet(s.Calls, "call-a"), func(c *Call) { c.LeadID = "lead-c" }) },
		"a key of another tenant's user":     func() { s.Keys.Insert(&APIKey{Base: Base{ID: "k9"}, Hash: [32]byte{9}, BusinessID: "a"}, "ub", t0) },
	} {
		assert.Contains(t, panicsWith(write), "a record of another tenant", name)
	}
	assert.Empty(t, panicsWith(func() { s.Calls.Insert(&Call{Base: Base{ID: "c10"}, AgentID: "gone"}, "a", t0) }), "a reference to no record")
	s.Users.Insert(&User{Base: Base{ID: "loose"}}, "loose", t0)
	assert.Empty(t, panicsWith(func() {
		s.Keys.Insert(&APIKey{Base: Base{ID: "k10"}, Hash: [32]byte{10}, BusinessID: "a"}, "loose", t0)
	}), "a user of no tenant")
	b := mustGet(s.Businesses, "a")
	s.AddMember(b, "ub", RoleMember)
	assert.Empty(t, panicsWith(func() {
		s.Keys.Insert(&APIKey{Base: Base{ID: "k11"}, Hash: [32]byte{11}, BusinessID: "a"}, "ub", t0)
	}), "a key for one business of a member of it")
}

// GuardWrites makes every write outside BeginWrite and EndWrite panic, saying
// it came through a read Tx; reads go on.
func TestGuardedWritesNeedTheWriteLock(t *testing.T) {
	s := tenantWorld()
	s.GuardWrites()
	const want = "without the write lock: the state was written through a read Tx"
	for name, write := range map[string]func(){
		"Insert":         func() { s.Leads.Insert(&Lead{Base: Base{ID: "l9"}}, "a", t0) },
		"Update":         func() { s.Leads.Update(mustGet(s.Leads, "lead-a"), func(*Lead) {}) },
		"Delete":         func() { s.Leads.Delete("lead-a") },
		"InsertBusiness": func() { s.InsertBusiness(&Business{Base: Base{ID: "d"}, Members: map[string]string{}}, t0) },
		"AddMember":      func() { s.AddMember(mustGet(s.Businesses, "a"), "ub", RoleMember) },
		"SetDNC":         func() { s.SetDNC("a", "+15550001111", true) },
		"SetConsent":     func() { s.SetConsent("a", "+15550001111", ConsentOptedIn) },
		"AddCallMinutes": func() { s.AddCallMinutes("a", 60) },
		"Remove":         func() { s.Remove("a") },
		"Import":         func() { _ = s.Import(s.Export("a"), "a") },
	} {
		assert.Contains(t, panicsWith(write), want, name)
	}
	_, ok := s.Leads.Get("lead-a")
	assert.True(t, ok, "reads work")
	s.BeginWrite()
	assert.Empty(t, panicsWith(func() { s.Leads.Insert(&Lead{Base: Base{ID: "l9"}}, "a", t0) }))
	s.EndWrite()
	assert.Contains(t, panicsWith(func() { s.Leads.Delete("l9") }), want)
}

// edited returns tenant's section with change applied to its JSON.
func edited(t *testing.T, s *Store, tenant string, change func(doc map[string]any)) *Section {
	t.Helper()
	data, err := json.Marshal(s.Export(tenant))
	require.NoError(t, err)
	var doc map[string]any
	require.NoError(t, json.Unmarshal(data, &doc))
	change(doc)
	data, err = json.Marshal(doc)
	require.NoError(t, err)
	var sec Section
	require.NoError(t, json.Unmarshal(data, &sec))
	return &sec
}

// record returns the i-th record of a table in a section's JSON.
func record(doc map[string]any, table string, i int) map[string]any {
	return doc["tables"].(map[string]any)[table].([]any)[i].(map[string]any)
}

// states returns every tenant's section as JSON, the tenants in order and
// the indexes by value, to compare before and after a refusal.
func states(t *testing.T, s *Store) string {
	t.Helper()
	out := map[string]any{"tenants": s.Tenants(), "server": s.Export("")}
	for _, tn := range s.Tenants() {
		out[tn] = s.Export(tn)
	}
	idx := map[string]string{}
	for h, k := range s.KeysByHash {
		idx[fmt.Sprintf("key %x", h[:1])] = k.ID
	}
	for tok, x := range s.SessionsByToken {
		idx["session "+tok] = x.ID
	}
	for p, n := range s.NumbersByPhone {
		idx["number "+p] = n.ID
	}
	for e, u := range s.UsersByEmail {
		idx["user "+e] = u.ID
	}
	for id, a := range s.agentsByAssistant {
		idx["assistant "+id] = a.ID
	}
	for u := range s.userBusinesses {
		idx["businesses of "+u] = fmt.Sprint(s.BusinessesOf(u))
	}
	out["indexes"] = idx
	data, err := json.Marshal(out)
	require.NoError(t, err)
	return string(data)
}

// A Plan refuses a tenant's section that breaks a rule, naming the member:
// InUse (409) for a value another tenant holds, and changes nothing for
// any tenant: records, indexes, the tenants' order.
func TestPlanRefusesWhatBreaksARule(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(doc map[string]any)
		path   string
		inUse  bool
	}{
		{"another tenant's key hash", func(d map[string]any) {
			h := make([]any, 32)
			for i := range h {
				h[i] = 0.0
			}
			h[0] = 2.0
			record(d, "keys", 0)["Hash"] = h
		}, "tables.keys.0.Hash", true},
		{"another tenant's session token", func(d map[string]any) { record(d, "sessions", 0)["Token"] = "sess_b" }, "tables.sessions.0.Token", true},
		{"another tenant's phone number", func(d map[string]any) { record(d, "numbers", 0)["PhoneNumber"] = "+15550000001" }, "tables.numbers.0.PhoneNumber", true},
		{"another tenant's assistant", func(d map[string]any) {
			record(d, "agents", 0)["VendorAssistantID"] = "asst-b"
			d["assistants"] = map[string]any{"asst-b": map[string]any{"ID": "asst-b"}}
		}, "tables.agents.0.VendorAssistantID", true},
		{"another tenant's id", func(d map[string]any) { record(d, "leads", 0)["ID"] = "lead-b" }, "tables.leads.0.ID", true},
		{"another tenant's magic link", func(d map[string]any) {
			d["magic_links"].([]any)[0].(map[string]any)["Token"] = "link-b"
		}, "magic_links.0.Token", true},
		{"a number routing to another tenant's agent", func(d map[string]any) { record(d, "numbers", 0)["AgentID"] = "agent-b" }, "tables.numbers.0.AgentID", false},
		{"a call of another tenant's agent", func(d map[string]any) { record(d, "calls", 0)["AgentID"] = "agent-b" }, "tables.calls.0.AgentID", false},
		{"a call of another tenant's lead", func(d map[string]any) { record(d, "calls", 0)["LeadID"] = "lead-b" }, "tables.calls.0.LeadID", false},
		{"a member of another tenant", func(d map[string]any) {
			record(d, "businesses", 0)["Members"].(map[string]any)["ub"] = RoleAdmin
		}, "tables.businesses.0.Members", false},
		{"a key acting as another tenant's user", func(d map[string]any) {
			record(d, "keys", 0)["Owner"] = "ub"
			record(d, "keys", 0)["BusinessID"] = "a"
		}, "tables.keys.0.Owner", false},
		{"a link of another tenant's user", func(d map[string]any) {
			d["magic_links"].([]any)[0].(map[string]any)["UserID"] = "ub"
		}, "magic_links.0.UserID", false},
		{"an address of another tenant's number", func(d map[string]any) {
			d["emergency_addresses"] = []any{map[string]any{"number_id": "num-b", "business_id": "a", "address": map[string]any{}}}
		}, "emergency_addresses.0.number_id", false},
		{"an SDR state of another tenant's lead", func(d map[string]any) {
			d["sdr_leads"] = map[string]any{"lead-b": map[string]any{"LeadID": "lead-b"}}
		}, "sdr_leads.lead-b", false},
		{"the server's referral codes", func(d map[string]any) {
			d["referral_codes"] = map[string]any{"code": "partner"}
		}, "referral_codes", false},
		{"a time past the clocks' end", func(d map[string]any) { record(d, "leads", 0)["CreatedAt"] = "9999-12-31T00:00:00Z" }, "tables.leads.0.CreatedAt", false},
		{"more pending script steps than the bound", func(d map[string]any) {
			steps := make([]any, MaxPendingSteps+1)
			for j := range steps {
				steps[j] = map[string]any{"ID": fmt.Sprintf("step-%d", j), "Owner": "a", "CreatedAt": "2026-01-01T00:00:00Z",
					"Kind": StepCall, "To": StepAny, "Outcome": StepCompleted}
			}
			d["tables"].(map[string]any)["scripts"] = steps
		}, fmt.Sprintf("tables.scripts.%d", MaxPendingSteps), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tenantWorld()
			sec := edited(t, s, "a", tc.change)
			before := states(t, s)
			err := s.Import(sec, "a")
			var se *SectionError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.path, se.Path, se.Message)
			assert.Equal(t, tc.inUse, se.InUse, se.Message)
			assert.Equal(t, before, states(t, s), "a refused import changes nothing")
		})
	}
}

// A refused part of a plan of several changes nothing: not the tenants it
// would replace, not a third tenant's key and session, not the order of
// the tenants.
func TestARefusedPlanChangesNoTenant(t *testing.T) {
	s := tenantWorld()
	before := states(t, s)
	good := s.Export("b")
	bad := edited(t, s, "a", func(d map[string]any) { record(d, "sessions", 0)["Token"] = "sess_c" })
	_, err := s.Plan([]Part{{Tenant: "b", Section: good}, {Tenant: "a", Section: bad}})
	var se *SectionError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 1, se.Part)
	assert.True(t, se.InUse)
	assert.Equal(t, before, states(t, s))
	assert.Equal(t, "sess-c", s.SessionsByToken["sess_c"].ID)
	assert.Equal(t, "key-c", s.KeysByHash[[32]byte{3}].ID)

	// Accepted, a replaced tenant keeps its place.
	p, err := s.Plan([]Part{{Tenant: "b", Section: good}, {Tenant: "a", Section: s.Export("a")}})
	require.NoError(t, err)
	p.Apply()
	assert.Equal(t, []string{"a", "b", "c"}, s.Tenants())
	assert.Equal(t, before, states(t, s), "restoring what the store holds changes nothing")
	assert.Contains(t, panicsWith(p.Apply), "applied twice")

	p, err = s.Plan([]Part{{Tenant: "a", Section: s.Export("a")}})
	require.NoError(t, err)
	s.SetDNC("a", "+15550001111", true)
	assert.Contains(t, panicsWith(p.Apply), "written between Plan and Apply")
}

// A business may list a user of another tenant when the store lists it so
// already (an agency's member, an account made for a registered email,
// restored as it was), or in a whole server's document that holds both
// tenants; a user restored stays its tenant's, whatever other businesses
// list it.
func TestMembersOfAnotherTenant(t *testing.T) {
	s := tenantWorld()
	s.AddMember(mustGet(s.Businesses, "a"), "ub", RoleAdmin)
	require.NoError(t, s.Import(s.Export("a"), "a"), "listed already")
	require.NoError(t, s.Import(s.Export("b"), "b"))
	assert.Equal(t, "b", s.TenantOfOwner("ub"), "ub stays b's")
	assert.Equal(t, []string{"b", "a"}, s.BusinessesOf("ub"))

	fresh := New()
	parts := []Part{{Section: s.Export("")}}
	for _, tn := range s.Tenants() {
		parts = append(parts, Part{Tenant: tn, Section: s.Export(tn)})
	}
	p, err := fresh.Plan(parts)
	require.NoError(t, err, "a whole server's document")
	p.Apply()
	assert.Equal(t, states(t, s), states(t, fresh))

	_, err = fresh.Plan(parts[1:2])
	require.NoError(t, err, "a's document alone, on a server that lists ub in a already")
	other := tenantWorld()
	_, err = other.Plan(parts[1:2])
	var se *SectionError
	require.ErrorAs(t, err, &se, "a's document alone, on a server where a does not list ub")
	assert.Equal(t, "tables.businesses.0.Members", se.Path)
}

// A task's subject and an idempotency record's owner are checked against
// the plan: TenantOf finds the tenant of a record of any table once the
// plan is applied, HasUser the users of a part.
func TestPlanTenantOfAndHasUser(t *testing.T) {
	s := tenantWorld()
	p, err := s.Plan([]Part{{Tenant: "a", Section: s.Export("a")}})
	require.NoError(t, err)
	for id, want := range map[string]string{"call-a": "a", "call-b": "b", "ua": "a", "agent-c": "c"} {
		got, ok := p.TenantOf(id)
		assert.True(t, ok, id)
		assert.Equal(t, want, got, id)
	}
	_, ok := p.TenantOf("nothing")
	assert.False(t, ok)
	assert.True(t, p.HasUser(0, "ua"))
	assert.False(t, p.HasUser(0, "ub"))
	s.Leads.Insert(&Lead{Base: Base{ID: "gone-soon"}}, "a", t0.Add(time.Second))
	p, err = s.Plan([]Part{{Tenant: "a", Section: edited(t, s, "a", func(d map[string]any) {
		leads := d["tables"].(map[string]any)["leads"].([]any)
		d["tables"].(map[string]any)["leads"] = leads[:1]
	})}})
	require.NoError(t, err)
	_, ok = p.TenantOf("gone-soon")
	assert.False(t, ok, "a record of a replaced tenant the part does not hold is gone")
}
