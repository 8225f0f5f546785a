package telephony

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/leads"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// The hot list reads (GET /v1/leads, GET /v1/calls, GET /v1/agents) write
// their JSON with hand-written appenders (LeadListView, callItemEncoder,
// AgentListView), kept on the records by their tables. These tests hold
// them to the SDK's types: what an appender writes must be, byte for byte,
// what encoding/json writes (without HTML escaping) for the SDK type built
// from the same record (leads.Lead, calls.Call, agents.Agent), members in the same
// order. The SDK types are built here from the store records, not from the
// views, so a field the view maps wrongly shows up too.

// stdJSON is what encoding/json writes for v without HTML escaping, as the
// mock server encodes its answers.
func stdJSON(t testing.TB, v any) string {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	require.NoError(t, enc.Encode(v))
	return strings.TrimSuffix(buf.String(), "\n")
}

// awkwardStrings are strings whose JSON encoding needs every escape.
var awkwardStrings = []string{
	"", "plain", `quote " and \ backslash`, "tab\tnew\nline\rcr\bbs\fff", "\x00\x01\x1f\x7f",
	"<html> & 'amp'", "é ü 日本語 🎉", "\u2028\u2029", "bad \xff\xfe utf8 \xc3", "\xed\xa0\x80",
}

// testLead is the i-th lead of the tests: every other one has awkward
// strings, names, contact details and an intent; every third one an agent.
func testLead(i int) *store.Lead {
	s := func(v string) *string { return &v }
	at := time.Date(2026, 6, 5, 14, 3, 4, i*1000+7, time.UTC)
	l := &store.Lead{Status: store.LeadNew, AgentID: "", Score: i, Interactions: i % 4}
	l.ID, l.Owner, l.CreatedAt, l.UpdatedAt = fmt.Sprint("lead-", i), "biz", at, at.Add(time.Second)
	if i%2 == 0 {
		w := awkwardStrings[i%len(awkwardStrings)]
		l.Name, l.FirstName, l.Email, l.Phone, l.Notes, l.Zip = s(w), s(w+"x"), s("a@b.c"), s("+15551230001"), s(w), s("")
		l.LastContactAt = &at
		l.Intent = s("quote")
	}
	if i%3 == 0 {
		l.AgentID = "agent-1"
	}
	if i%5 == 0 {
		l.Source, l.LastName = s(SourceInboundCall), s(awkwardStrings[(i+3)%len(awkwardStrings)])
	}
	return l
}

// testStore is a store with the agent "agent-1" (an awkward name) that the
// test leads name.
func testStore() (*store.Store, *store.Agent) {
	st := store.New()
	a := &store.Agent{Name: "Agent \"One\"\n<b>", VendorAssistantID: "asst_1", Status: "active"}
	a.ID, a.Owner, a.CreatedAt = "agent-1", "biz", time.Date(2026, 6, 5, 14, 0, 0, 120, time.UTC)
	st.Agents.Put(a)
	return st, a
}

// sdkLead is the list form of a lead as the SDK type: the members GET
// /v1/leads answers (the detail members stay unset, so leads.Lead omits
// them).
func sdkLead(st *store.Store, l *store.Lead) leads.Lead {
	v := leads.Lead{
		ID: l.ID, Name: l.Name, FirstName: l.FirstName, LastName: l.LastName, Email: l.Email,
		Phone: l.Phone, Status: l.Status, Source: l.Source, BusinessID: l.Owner,
		CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt,
	}
	if l.AgentID != "" {
		id := l.AgentID
		v.AgentID = &id
	}
	if a, ok := st.Agents.Get(l.AgentID); ok {
		name := a.Name
		v.AgentName = &name
	}
	return v
}

// sdkLeadDetail is the detail form of a lead as the SDK type.
func sdkLeadDetail(st *store.Store, l *store.Lead) leads.Lead {
	v := sdkLead(st, l)
	v.Zip, v.Address, v.City, v.State = l.Zip, l.Address, l.City, l.State
	v.SourceURL, v.SourcePage, v.Notes, v.Message = l.SourceURL, l.SourcePage, l.Notes, l.Message
	v.EventDate, v.EventType, v.Intent, v.LastContactAt = l.EventDate, l.EventType, l.Intent, l.LastContactAt
	v.Score, v.InteractionCount = l.Score, l.Interactions
	return v
}

// sdkAgent is the list form of an agent as the SDK type.
func sdkAgent(a *store.Agent) agents.Agent {
	v := agents.Agent{
		ID: a.ID, Name: a.Name, BusinessID: a.Owner, VendorAssistantID: a.VendorAssistantID,
		Status: a.Status, CreatedAt: a.CreatedAt,
	}
	if a.PhoneNumber != "" {
		n := a.PhoneNumber
		v.PhoneNumber = &n
	}
	return v
}

// testCall is the i-th call of the tests: awkward strings in its
// members, every other one with a summary, every third one of an agent
// that is gone (its name as placed shows).
func testCall(i int) *store.Call {
	at := time.Date(2026, 6, 5, 14, 3, 4, i*1000+7, time.UTC)
	c := &store.Call{ConversationID: "conv_" + awkwardStrings[i%len(awkwardStrings)], Status: store.CallCompleted,
		Direction: store.DirectionOutbound, AgentID: "agent-1", AgentName: "Placed by", Duration: i * 7}
	c.ID, c.Owner, c.CreatedAt = fmt.Sprint("call-", i), "biz", at
	if i%2 == 0 {
		c.Summary = awkwardStrings[(i+1)%len(awkwardStrings)] + " summary"
	}
	if i%3 == 0 {
		c.AgentID = "agent-gone"
	}
	return c
}

// sdkCall is the list form of a call as the SDK type.
func sdkCall(st *store.Store, c *store.Call) calls.Call {
	v := calls.Call{ID: c.ID, ConversationID: c.ConversationID, Status: c.Status, Duration: c.Duration,
		AgentID: c.AgentID, AgentName: c.AgentName, CreatedAt: c.CreatedAt, Direction: c.Direction}
	if a, ok := st.Agents.Get(c.AgentID); ok {
		v.AgentName = a.Name
	}
	if c.Summary != "" {
		summary := c.Summary
		v.Summary = &summary
	}
	return v
}

// leadPage, callPage and agentList are the answers of GET /v1/leads, GET
// /v1/calls and GET /v1/agents with the SDK's item types, members in the
// order the appenders write them.
type (
	leadPage struct {
		Leads   []leads.Lead `json:"leads"`
		HasMore bool         `json:"has_more"`
	}
	callPage struct {
		Calls   []calls.Call `json:"calls"`
		HasMore bool         `json:"has_more"`
	}
	agentList struct {
		Agents []agents.Agent `json:"agents"`
	}
)

// TestAppendersMatchEncodingJSON compares the appenders' bytes with
// encoding/json's for the SDK types, byte for byte: the items of the
// lead, agent and call lists (TestEncodedPagesMatchEncodingJSON checks
// the pages made of them).
func TestAppendersMatchEncodingJSON(t *testing.T) {
	t.Parallel()
	st, a := testStore()
	for i := range 40 {
		l := testLead(i)
		assert.Equal(t, stdJSON(t, sdkLead(st, l)), string(LeadListItem(st, l).AppendJSON(nil)), "lead %d", i)
	}
	agentViews := []AgentListView{AgentListItem(a)}
	wantAgents := []agents.Agent{sdkAgent(a)}
	a.PhoneNumber = "+15552000000"
	agentViews, wantAgents = append(agentViews, AgentListItem(a)), append(wantAgents, sdkAgent(a))
	for i, v := range agentViews {
		assert.Equal(t, stdJSON(t, wantAgents[i]), string(v.AppendJSON(nil)), "agent %d", i)
	}

	encodeCall := callItemEncoder(st)
	for i := range 40 {
		c := testCall(i)
		assert.Equal(t, stdJSON(t, sdkCall(st, c)), string(encodeCall(nil, c)), "call %d", i)
	}
}

// TestEncodedPagesMatchEncodingJSON compares the list answers made of kept
// encodings (GET /v1/leads, /v1/calls, /v1/agents) with encoding/json's
// for the SDK types, read twice (built, then copied), empty and full.
func TestEncodedPagesMatchEncodingJSON(t *testing.T) {
	t.Parallel()
	st, a := testStore()
	var ls []*store.Lead
	var cs []*store.Call
	wantLeads, wantCalls := []leads.Lead{}, []calls.Call{}
	for i := range 30 {
		l, c := testLead(i), testCall(i)
		st.Leads.Put(l)
		st.Calls.Put(c)
		ls, cs = append(ls, l), append(cs, c)
		wantLeads, wantCalls = append(wantLeads, sdkLead(st, l)), append(wantCalls, sdkCall(st, c))
	}
	for _, n := range []int{0, 30} {
		for range 2 {
			got, err := jsonview.EncodeJSON(httpapi.EncodedPage[*store.Lead]{Key: "leads", Records: ls[:n], More: n > 0,
				Table: st.Leads, Dep: st.Agents.Version(), Encode: leadItemEncoder(st)})
			require.NoError(t, err)
			assert.Equal(t, stdJSON(t, leadPage{Leads: wantLeads[:n], HasMore: n > 0})+"\n", string(got))
			got, err = jsonview.EncodeJSON(httpapi.EncodedPage[*store.Call]{Key: "calls", Records: cs[:n], More: n > 0,
				Table: st.Calls, Dep: st.Agents.Version(), Encode: callItemEncoder(st)})
			require.NoError(t, err)
			assert.Equal(t, stdJSON(t, callPage{Calls: wantCalls[:n], HasMore: n > 0})+"\n", string(got))
		}
	}
	for _, n := range []int{0, 1} {
		got, err := jsonview.EncodeJSON(httpapi.EncodedPage[*store.Agent]{Key: "agents", Records: []*store.Agent{a}[:n],
			Unpaged: true, Table: st.Agents, Encode: appendAgentItem})
		require.NoError(t, err)
		assert.Equal(t, stdJSON(t, agentList{Agents: []agents.Agent{sdkAgent(a)}[:n]})+"\n", string(got))
	}
}

// FuzzCallListItem holds the call list appender to calls.Call for any
// strings in its string members.
func FuzzCallListItem(f *testing.F) {
	for i, s := range awkwardStrings {
		f.Add(s, awkwardStrings[(i+1)%len(awkwardStrings)], i%2 == 0)
	}
	st, _ := testStore()
	encode := callItemEncoder(st)
	f.Fuzz(func(t *testing.T, s1, s2 string, withAgent bool) {
		c := testCall(1)
		c.ConversationID, c.Summary, c.Status, c.Direction, c.AgentName = s1, s2, s2, s1, s2
		c.AgentID = "agent-gone"
		if withAgent {
			c.AgentID = "agent-1"
		}
		if got, want := string(encode(nil, c)), stdJSON(t, sdkCall(st, c)); got != want {
			t.Fatalf("appender wrote\n%s\ncalls.Call encodes as\n%s", got, want)
		}
	})
}

// TestLeadDetailView checks the detail form of a lead, which writes its own
// JSON too (lead reads, PATCH answers, lead events). leads.Lead omits the
// detail members that are null or zero, where the detail answers each of
// them, so the bytes are compared with encoding/json of the view itself and
// the decoded answer with the SDK type.
func TestLeadDetailView(t *testing.T) {
	t.Parallel()
	st, a := testStore()
	for i := range 40 {
		l := testLead(i)
		detail := LeadDetail(st, l)
		raw := detail.AppendJSON(nil)
		assert.Equal(t, stdJSON(t, detail), string(raw), "detail of lead %d", i)
		var got leads.Lead
		require.NoError(t, json.Unmarshal(raw, &got))
		want := sdkLeadDetail(st, l)
		// Decoding replaces invalid UTF-8 with U+FFFD, as encoding did.
		var wantRT leads.Lead
		require.NoError(t, json.Unmarshal([]byte(stdJSON(t, want)), &wantRT))
		assert.Equal(t, wantRT, got, "detail of lead %d", i)
		var members map[string]any
		require.NoError(t, json.Unmarshal(raw, &members))
		for _, k := range []string{"zip", "address", "city", "state", "source_url", "source_page", "notes",
			"message", "event_date", "event_type", "score", "interaction_count", "intent", "last_contact_at"} {
			assert.Contains(t, members, k, "the detail of lead %d answers %s, null when unset", i, k)
		}
	}
	_, inherits := any(AgentDetail(a)).(jsonview.JSONAppender)
	assert.False(t, inherits, "the agent detail must not write itself as the list form")
}

// FuzzLeadListView holds the lead list appender to leads.Lead for any
// strings in its string members.
func FuzzLeadListView(f *testing.F) {
	for i, s := range awkwardStrings {
		f.Add(s, awkwardStrings[(i+1)%len(awkwardStrings)], i%2 == 0)
	}
	st, _ := testStore()
	f.Fuzz(func(t *testing.T, s1, s2 string, withAgent bool) {
		l := testLead(0)
		l.Name, l.Email, l.Source, l.Status = &s1, &s2, &s1, s2
		l.AgentID = ""
		if withAgent {
			l.AgentID = "agent-1"
		}
		if got, want := string(LeadListItem(st, l).AppendJSON(nil)), stdJSON(t, sdkLead(st, l)); got != want {
			t.Fatalf("appender wrote\n%s\nleads.Lead encodes as\n%s", got, want)
		}
	})
}

// BenchmarkLeadPageJSON encodes a page of 100 leads: the view's own
// appender, then encoding/json over the SDK type.
func BenchmarkLeadPageJSON(b *testing.B) {
	st, _ := testStore()
	items := make([]LeadListView, 100)
	sdk := make([]leads.Lead, 100)
	for i := range items {
		items[i], sdk[i] = LeadListItem(st, testLead(i)), sdkLead(st, testLead(i))
	}
	b.Run("appender", func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			_, bp := jsonview.AppendPooled(func(b []byte) []byte {
				for _, it := range items {
					b = it.AppendJSON(b)
				}
				return b
			})
			jsonview.ReleaseBuffer(bp)
		}
	})
	b.Run("kept", func(b *testing.B) {
		b.ReportAllocs()
		var recs []*store.Lead
		for i := range 100 {
			l := testLead(i)
			st.Leads.Put(l)
			recs = append(recs, l)
		}
		page := httpapi.EncodedPage[*store.Lead]{Key: "leads", Records: recs, More: true, Table: st.Leads, Encode: leadItemEncoder(st)}
		for range b.N {
			if _, err := jsonview.EncodeJSON(page); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		page := leadPage{Leads: sdk, HasMore: true}
		for range b.N {
			if _, err := jsonview.EncodeJSON(page); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestEncodedPagesFollowTheirAgent reads the lead and call pages (kept
// encodings after the first read) after each change of the agent they
// name: renamed through Update, replaced through Put, deleted. Each read
// must equal encoding/json's answer for the store as it is then: a kept
// item never shows the agent as it was.
func TestEncodedPagesFollowTheirAgent(t *testing.T) {
	t.Parallel()
	st, a := testStore()
	var ls []*store.Lead
	var cs []*store.Call
	for i := range 12 {
		l, c := testLead(i), testCall(i)
		st.Leads.Put(l)
		st.Calls.Put(c)
		ls, cs = append(ls, l), append(cs, c)
	}
	check := func(step string) {
		t.Helper()
		wantLeads, wantCalls := []leads.Lead{}, []calls.Call{}
		for i := range ls {
			wantLeads, wantCalls = append(wantLeads, sdkLead(st, ls[i])), append(wantCalls, sdkCall(st, cs[i]))
		}
		for range 2 { // built or kept, then kept
			got, err := jsonview.EncodeJSON(httpapi.EncodedPage[*store.Lead]{Key: "leads", Records: ls,
				Table: st.Leads, Dep: st.Agents.Version(), Encode: leadItemEncoder(st)})
			require.NoError(t, err)
			assert.Equal(t, stdJSON(t, leadPage{Leads: wantLeads})+"\n", string(got), "leads after %s", step)
			got, err = jsonview.EncodeJSON(httpapi.EncodedPage[*store.Call]{Key: "calls", Records: cs,
				Table: st.Calls, Dep: st.Agents.Version(), Encode: callItemEncoder(st)})
			require.NoError(t, err)
			assert.Equal(t, stdJSON(t, callPage{Calls: wantCalls})+"\n", string(got), "calls after %s", step)
		}
	}
	check("the first read")
	st.Agents.Update(a, func(a *store.Agent) { a.Name = "Renamed" })
	check("a rename")
	b := &store.Agent{Name: "Replaced", VendorAssistantID: a.VendorAssistantID, Status: a.Status}
	b.ID, b.Owner, b.CreatedAt = a.ID, a.Owner, a.CreatedAt
	st.Agents.Put(b)
	check("a replacement")
	require.True(t, st.Agents.Delete(a.ID))
	check("a delete")
	assert.Nil(t, sdkLead(st, ls[0]).AgentName, "the lead names no agent any more")
	assert.Equal(t, "Placed by", sdkCall(st, cs[1]).AgentName, "the call shows the name it was placed with")
}
