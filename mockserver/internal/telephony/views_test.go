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
	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// The list views of the hot reads (GET /v1/leads, GET /v1/calls, GET
// /v1/agents) are held to the SDK's types: a view encodes, byte for byte,
// as the SDK type built from the same record (leads.Lead, calls.Call,
// agents.Agent), members in the same order. The SDK types are built here
// from the store records, not from the views, so a field the view maps
// wrongly shows up too.

// stdJSON is what encoding/json writes for v without HTML escaping, as the
// mock server encodes its responses.
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
func testStore() (*platform.Tx, *store.Agent) {
	st := platform.New(platform.Config{}).WriteTx()
	a := &store.Agent{Name: "Agent \"One\"\n<b>", VendorAssistantID: "asst_1", Status: "active"}
	a.ID, a.Owner, a.CreatedAt = "agent-1", "biz", time.Date(2026, 6, 5, 14, 0, 0, 120, time.UTC)
	st.Agents.Put(a)
	return st, a
}

// sdkLead is the list form of a lead as the SDK type: the members GET
// /v1/leads responses (the detail members stay unset, so leads.Lead omits
// them).
func sdkLead(st *platform.Tx, l *store.Lead) leads.Lead {
	v := leads.Lead{
		ID: l.ID, Name: l.Name, FirstName: l.FirstName, LastName: l.LastName, Email: l.Email,
		Phone: l.Phone, Status: leads.Status(l.Status), Source: l.Source, BusinessID: l.Owner,
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
func sdkLeadDetail(st *platform.Tx, l *store.Lead) leads.Lead {
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
func sdkCall(st *platform.Tx, c *store.Call) calls.Call {
	v := calls.Call{ID: c.ID, ConversationID: c.ConversationID, Status: calls.Status(c.Status), Duration: c.Duration,
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

// leadPage and callPage are the responses of GET /v1/leads and GET
// /v1/calls with the SDK's item types.
type (
	leadPage struct {
		Leads   []leads.Lead `json:"leads"`
		HasMore bool         `json:"has_more"`
	}
	callPage struct {
		Calls   []calls.Call `json:"calls"`
		HasMore bool         `json:"has_more"`
	}
)

// TestListViewsMatchTheSDKTypes compares the items of the lead, agent and
// call lists with encoding/json's for the SDK types, byte for byte, and a
// page of each with the SDK types' page.
func TestListViewsMatchTheSDKTypes(t *testing.T) {
	t.Parallel()
	st, a := testStore()
	wantLeads, gotLeads := []leads.Lead{}, []LeadListView{}
	for i := range 40 {
		l := testLead(i)
		st.Leads.Put(l)
		assert.Equal(t, stdJSON(t, sdkLead(st, l)), stdJSON(t, LeadListItem(st, l)), "lead %d", i)
		wantLeads, gotLeads = append(wantLeads, sdkLead(st, l)), append(gotLeads, LeadListItem(st, l))
	}
	assert.Equal(t, stdJSON(t, leadPage{Leads: wantLeads, HasMore: true}), stdJSON(t, leadList{Leads: gotLeads, HasMore: true}))
	assert.Equal(t, `{"leads":[],"has_more":false}`, stdJSON(t, leadList{Leads: []LeadListView{}}))

	assert.Equal(t, stdJSON(t, sdkAgent(a)), stdJSON(t, AgentListItem(a)))
	a.PhoneNumber = "+15552000000"
	assert.Equal(t, stdJSON(t, sdkAgent(a)), stdJSON(t, AgentListItem(a)))

	wantCalls, gotCalls := []calls.Call{}, []calls.Call{}
	for i := range 40 {
		c := testCall(i)
		assert.Equal(t, stdJSON(t, sdkCall(st, c)), stdJSON(t, callListItem(st, c)), "call %d", i)
		wantCalls, gotCalls = append(wantCalls, sdkCall(st, c)), append(gotCalls, callListItem(st, c))
	}
	assert.Equal(t, stdJSON(t, callPage{Calls: wantCalls}), stdJSON(t, callList{Calls: gotCalls}))
}

// TestLeadDetailView checks the detail form of a lead (lead reads, PATCH
// responses, lead events). leads.Lead omits the detail members that are
// null or zero, where the detail shows each of them, so the decoded
// response is compared with the SDK type and the members are counted.
func TestLeadDetailView(t *testing.T) {
	t.Parallel()
	st, _ := testStore()
	for i := range 40 {
		l := testLead(i)
		detail := LeadDetail(st, l)
		raw := []byte(stdJSON(t, detail))
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
}

// BenchmarkLeadPageJSON encodes a page of 100 leads as GET /v1/leads
// does: the views made from the records, then encoded.
func BenchmarkLeadPageJSON(b *testing.B) {
	st, _ := testStore()
	recs := make([]*store.Lead, 100)
	for i := range recs {
		recs[i] = testLead(i)
		st.Leads.Put(recs[i])
	}
	b.ReportAllocs()
	for range b.N {
		items := make([]LeadListView, len(recs))
		for i, l := range recs {
			items[i] = LeadListItem(st, l)
		}
		if _, err := jsonview.EncodeJSON(leadList{Leads: items, HasMore: true}); err != nil {
			b.Fatal(err)
		}
	}
}
