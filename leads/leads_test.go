package leads_test

import (
	"context"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/agents"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/leads"
	"github.com/voiceagent/voiceagent-go/mockserver"
)

var afternoonET = time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)

func newEnv(t *testing.T) *testenv.Env {
	t.Helper()
	return testenv.New(t, mockserver.WithStartTime(afternoonET))
}

// call makes a caller ring the account's number and runs the call to its
// end; it returns the call.
func call(t *testing.T, env *testenv.Env, in mockserver.InboundCall) *calls.Call {
	t.Helper()
	if in.To == "" {
		in.To = env.Account.PhoneNumber
	}
	id, err := env.Server.InboundCall(in)
	require.NoError(t, err)
	env.Server.Advance(6 * time.Minute)
	c, err := env.Client.Calls.Get(context.Background(), id)
	require.NoError(t, err)
	return c
}

func TestLeadCollectionFromACallAndDedupeOfRepeatCallers(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()

	c := call(t, env, mockserver.InboundCall{From: "+15558880001", Caller: mockserver.Caller{
		Said: "Hi, this is Maria Lopez. I'd like to book an appointment, my email is maria@example.com",
	}})
	require.NotNil(t, c.LeadID)
	l, err := env.Client.Leads.Get(ctx, *c.LeadID)
	require.NoError(t, err)
	assert.Equal(t, "Maria Lopez", *l.Name)
	assert.Equal(t, "Maria", *l.FirstName)
	assert.Equal(t, "Lopez", *l.LastName)
	assert.Equal(t, "maria@example.com", *l.Email)
	assert.Equal(t, "+15558880001", *l.Phone)
	assert.Equal(t, "booking", *l.Intent)
	assert.Equal(t, leads.StatusNew, l.Status)
	assert.Equal(t, "inbound_call", *l.Source)
	assert.Equal(t, env.Account.AgentID, *l.AgentID)
	assert.Equal(t, "Test Business Intake Agent", *l.AgentName)
	assert.Equal(t, env.Account.BusinessID, l.BusinessID)
	assert.Equal(t, 1, l.InteractionCount)
	assert.Equal(t, 80, l.Score, "10 + name 15 + email 15 + phone 10 + one interaction 10 + booking 20")
	assert.Contains(t, *l.Message, "book an appointment")
	assert.True(t, c.EndedAt.Equal(l.CreatedAt), "created when the call ends")
	require.NotNil(t, c.QualityDimensions)
	assert.Contains(t, *c.Transcript, "Caller: It's Maria Lopez.")

	// The same number calls again with a new email: the same lead changes.
	again := call(t, env, mockserver.InboundCall{From: "+15558880001", Caller: mockserver.Caller{Email: "maria@work.example", Intent: "quote"}})
	assert.Equal(t, l.ID, *again.LeadID)
	l2, err := env.Client.Leads.Get(ctx, l.ID)
	require.NoError(t, err)
	assert.Equal(t, "maria@work.example", *l2.Email)
	assert.Equal(t, "Maria Lopez", *l2.Name, "details the caller did not repeat stay")
	assert.Equal(t, "quote", *l2.Intent)
	assert.Equal(t, 2, l2.InteractionCount)
	assert.True(t, l2.UpdatedAt.After(l.UpdatedAt))
	assert.Equal(t, l.CreatedAt, l2.CreatedAt)

	// Another number, but the email of the lead: still the same lead.
	byEmail := call(t, env, mockserver.InboundCall{From: "+15558880002", Caller: mockserver.Caller{Said: "It's me again, MARIA@work.example"}})
	assert.Equal(t, l.ID, *byEmail.LeadID)

	page, err := env.Client.Leads.List(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, page.Data, 1, "a repeat caller is not a new lead")
}

func TestLeadSourcesOfVoicemailMissedCallsAndTexts(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	vm := call(t, env, mockserver.InboundCall{From: "+15558880011", Answered: voiceagent.Bool(false),
		Voicemail: "Hello, my name is Tom Baker, my sink is leaking, please call me back."})
	assert.Equal(t, calls.StatusNoAnswer, vm.Status)
	assert.Equal(t, "Caller: Hello, my name is Tom Baker, my sink is leaking, please call me back.", *vm.Transcript)
	assert.Equal(t, "voicemail", *vm.EndedReason)
	assert.NotNil(t, vm.RecordingURL)
	assert.Positive(t, vm.Duration)
	l, err := env.Client.Leads.Get(ctx, *vm.LeadID)
	require.NoError(t, err)
	assert.Equal(t, "voicemail", *l.Source)
	assert.Equal(t, "Tom Baker", *l.Name)
	assert.Equal(t, "support", *l.Intent)

	missed := call(t, env, mockserver.InboundCall{From: "+15558880012", Answered: voiceagent.Bool(false)})
	assert.Equal(t, calls.StatusNoAnswer, missed.Status)
	assert.Nil(t, missed.Transcript)
	assert.Equal(t, 0, missed.Duration)
	l, err = env.Client.Leads.Get(ctx, *missed.LeadID)
	require.NoError(t, err)
	assert.Equal(t, "missed_call", *l.Source)
	assert.Nil(t, l.Name)
	assert.Nil(t, l.Intent)
	assert.Equal(t, 30, l.Score, "10 + phone 10 + one interaction 10")

	in, err := env.Server.InboundSMS(mockserver.InboundSMS{To: env.Account.PhoneNumber, From: "+15558880013", Body: "Hi, how much is a cleaning?"})
	require.NoError(t, err)
	l, err = env.Client.Leads.Get(ctx, in.LeadID)
	require.NoError(t, err)
	assert.Equal(t, "sms", *l.Source)
	assert.Equal(t, "quote", *l.Intent)

	bySource, err := env.Client.Leads.List(ctx, &leads.ListParams{Source: "voicemail"})
	require.NoError(t, err)
	require.Len(t, bySource.Data, 1)
	assert.Equal(t, *vm.LeadID, bySource.Data[0].ID)
}

func TestDetailShowsEveryFieldWithNulls(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	c := call(t, env, mockserver.InboundCall{From: "+15558880021"})
	var raw map[string]any
	err := env.Client.Do(context.Background(), http.MethodGet, "/v1/leads", url.Values{"id": {*c.LeadID}}, nil, &raw)
	require.NoError(t, err)
	for _, k := range []string{"id", "name", "first_name", "last_name", "email", "phone", "status", "source",
		"agent_id", "agent_name", "business_id", "created_at", "updated_at", "zip", "address", "city", "state",
		"source_url", "source_page", "notes", "message", "event_date", "event_type"} {
		assert.Contains(t, raw, k)
	}
	for _, k := range []string{"name", "first_name", "last_name", "email", "zip", "address", "city", "state",
		"source_url", "source_page", "notes", "message", "event_date", "event_type"} {
		assert.Nil(t, raw[k], k)
	}

	var list struct {
		Leads   []map[string]any `json:"leads"`
		HasMore *bool            `json:"has_more"`
	}
	err = env.Client.Do(context.Background(), http.MethodGet, "/v1/leads", nil, nil, &list)
	require.NoError(t, err)
	require.Len(t, list.Leads, 1)
	require.NotNil(t, list.HasMore)
	assert.False(t, *list.HasMore)
	assert.ElementsMatch(t, []string{"id", "name", "first_name", "last_name", "email", "phone", "status", "source",
		"agent_id", "agent_name", "business_id", "created_at", "updated_at"}, slices.Collect(maps.Keys(list.Leads[0])), "the list form")
}

func TestListFilters(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	var ids []string
	for i, in := range []mockserver.Caller{
		{Name: "Ann One", Email: "ann@example.com"},
		{Name: "Bob Two", Email: "bob@example.com"},
		{Name: "Cy Three"},
	} {
		c := call(t, env, mockserver.InboundCall{From: "+1555888003" + string(rune('0'+i)), Caller: in})
		ids = append(ids, *c.LeadID)
	}
	_, err := env.Client.Leads.Update(ctx, &leads.UpdateParams{ID: ids[1], Status: voiceagent.Ptr(leads.StatusQualified), Source: voiceagent.String("web")})
	require.NoError(t, err)
	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	_, err = env.Server.InboundCall(mockserver.InboundCall{To: other.PhoneNumber, From: "+15558880030"}) // the same phone, another tenant
	require.NoError(t, err)
	env.Server.Advance(6 * time.Minute)
	second, err := env.Client.Agents.Create(ctx, &agents.CreateParams{BusinessID: env.Account.BusinessID, Name: "Second", SystemPrompt: "x"})
	require.NoError(t, err)

	list := func(p *leads.ListParams) []string {
		t.Helper()
		page, err := env.Client.Leads.List(ctx, p)
		require.NoError(t, err)
		var out []string
		for _, l := range page.Data {
			out = append(out, l.ID)
		}
		return out
	}
	assert.Equal(t, []string{ids[2], ids[1], ids[0]}, list(nil), "newest first, this tenant only")
	assert.Equal(t, []string{ids[1]}, list(&leads.ListParams{Status: leads.StatusQualified}))
	assert.Equal(t, []string{ids[2], ids[0]}, list(&leads.ListParams{Status: leads.StatusNew}))
	assert.Empty(t, list(&leads.ListParams{Status: leads.StatusLost}))
	assert.Equal(t, []string{ids[1]}, list(&leads.ListParams{Source: "web"}))
	assert.Equal(t, []string{ids[2], ids[0]}, list(&leads.ListParams{Source: "inbound_call"}))
	assert.Equal(t, []string{ids[2], ids[1], ids[0]}, list(&leads.ListParams{AgentID: env.Account.AgentID}))
	assert.Empty(t, list(&leads.ListParams{AgentID: second.ID}))
	assert.Equal(t, []string{ids[0]}, list(&leads.ListParams{Phone: "+15558880030"}))
	assert.Empty(t, list(&leads.ListParams{Phone: "+1555888003"}), "phone is exact")
	assert.Equal(t, []string{ids[1]}, list(&leads.ListParams{Email: "BOB@example.com"}))
	assert.Empty(t, list(&leads.ListParams{Email: "bob@example"}), "email is exact")
	assert.Empty(t, list(&leads.ListParams{Email: "bob@example.com", Status: leads.StatusNew}), "filters combine")
	assert.Equal(t, []string{ids[0]}, list(&leads.ListParams{Phone: "+15558880030", BusinessID: env.Account.BusinessID}))

	p1, err := env.Client.Leads.List(ctx, &leads.ListParams{Limit: 2})
	require.NoError(t, err)
	assert.True(t, p1.HasMore)
	assert.Equal(t, []string{ids[0]}, list(&leads.ListParams{Limit: 2, After: p1.NextCursor}))
	pp, err := env.Client.Leads.List(ctx, &leads.ListParams{Email: "ann@example.com", Limit: 1})
	require.NoError(t, err)
	assert.False(t, pp.HasMore)

	for _, p := range []*leads.ListParams{{Status: "won"}, {Limit: 101}, {Limit: -5}, {After: "soon"}} {
		_, err := env.Client.Leads.List(ctx, p)
		assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest, "%+v", p)
	}
	_, err = env.Client.Leads.List(ctx, &leads.ListParams{BusinessID: other.BusinessID})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
}

func TestUpdateChangesOnlySentFields(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	c := call(t, env, mockserver.InboundCall{From: "+15558880041", Caller: mockserver.Caller{Name: "Dee Four", Email: "dee@example.com", Said: "price please"}})
	before, err := env.Client.Leads.Get(ctx, *c.LeadID)
	require.NoError(t, err)

	up, err := env.Client.Leads.Update(ctx, &leads.UpdateParams{
		ID: before.ID, Notes: voiceagent.String("Wants a quote by Friday"), City: voiceagent.String("Austin"),
		State: voiceagent.String("TX"), Zip: voiceagent.String("78701"), Address: voiceagent.String("1 Main St"),
		Status: voiceagent.Ptr(leads.StatusQualified),
	})
	require.NoError(t, err)
	assert.Equal(t, "Wants a quote by Friday", *up.Notes)
	assert.Equal(t, "Austin", *up.City)
	assert.Equal(t, "TX", *up.State)
	assert.Equal(t, "78701", *up.Zip)
	assert.Equal(t, "1 Main St", *up.Address)
	assert.Equal(t, leads.StatusQualified, up.Status)
	assert.Equal(t, before.Name, up.Name, "unsent fields stay")
	assert.Equal(t, before.Email, up.Email)
	assert.Equal(t, before.Phone, up.Phone)
	assert.Equal(t, before.Source, up.Source)
	assert.Equal(t, before.CreatedAt, up.CreatedAt)
	assert.True(t, up.UpdatedAt.After(before.UpdatedAt), "updated_at moves")
	assert.Equal(t, before.Score+10, up.Score, "qualified adds 10")

	// The clock does not move between two updates: updated_at still does.
	up2, err := env.Client.Leads.Update(ctx, &leads.UpdateParams{ID: before.ID, FirstName: voiceagent.String("Deedee")})
	require.NoError(t, err)
	assert.True(t, up2.UpdatedAt.After(up.UpdatedAt))
	assert.Equal(t, "Deedee", *up2.FirstName)
	assert.Equal(t, "Dee Four", *up2.Name, "only the sent field changes")

	clear := &leads.UpdateParams{ID: before.ID, Name: voiceagent.String("D. Four"), Phone: voiceagent.String("+15558880049")}
	clear.SetNull("email", "notes")
	up3, err := env.Client.Leads.Update(ctx, clear)
	require.NoError(t, err)
	assert.Nil(t, up3.Email)
	assert.Nil(t, up3.Notes)
	assert.Equal(t, "D. Four", *up3.Name)
	assert.Equal(t, "Austin", *up3.City)
	got, err := env.Client.Leads.Get(ctx, before.ID)
	require.NoError(t, err)
	assert.Equal(t, up3, got, "the answer is the stored lead")

	byNew, err := env.Client.Leads.List(ctx, &leads.ListParams{Phone: "+15558880049"})
	require.NoError(t, err)
	require.Len(t, byNew.Data, 1, "the phone lookup follows a changed phone")
	byOld, err := env.Client.Leads.List(ctx, &leads.ListParams{Phone: "+15558880041"})
	require.NoError(t, err)
	assert.Empty(t, byOld.Data)
	byOldEmail, err := env.Client.Leads.List(ctx, &leads.ListParams{Email: "dee@example.com"})
	require.NoError(t, err)
	assert.Empty(t, byOldEmail.Data)

	conv, err := env.Client.Leads.Update(ctx, &leads.UpdateParams{ID: before.ID, Status: voiceagent.Ptr(leads.StatusConverted)})
	require.NoError(t, err)
	assert.Equal(t, 100, conv.Score)
	for _, s := range []leads.Status{leads.StatusContacted, leads.StatusLost, leads.StatusUnqualified, leads.StatusSpam, leads.StatusDoNotContact, leads.StatusNew} {
		l, err := env.Client.Leads.Update(ctx, &leads.UpdateParams{ID: before.ID, Status: voiceagent.Ptr(s)})
		require.NoError(t, err, s)
		assert.Equal(t, s, l.Status)
	}
}

func TestUpdateErrors(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	c := call(t, env, mockserver.InboundCall{From: "+15558880051"})
	id := *c.LeadID

	for name, body := range map[string]map[string]any{
		"status won":    {"id": id, "status": "won"},
		"status null":   {"id": id, "status": nil},
		"bad email":     {"id": id, "email": "nope"},
		"bad phone":     {"id": id, "phone": "555"},
		"unknown field": {"id": id, "score": 99},
		"no id":         {"status": "new"},
		"id not a uuid": {"id": "lead-1"},
	} {
		err := env.Client.Do(ctx, http.MethodPatch, "/v1/leads", nil, body, nil)
		assert.ErrorIs(t, err, voiceagent.ErrInvalidRequest, name)
	}
	l, err := env.Client.Leads.Get(ctx, id)
	require.NoError(t, err)
	assert.Equal(t, leads.StatusNew, l.Status, "rejected updates change nothing")

	_, err = env.Client.Leads.Update(ctx, &leads.UpdateParams{ID: "00000000-0000-4000-8000-000000000000"})
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)
	other := testenv.NewAccount(t, env.Server, mockserver.AccountOptions{})
	_, err = env.ClientFor(other.APIKey).Leads.Update(ctx, &leads.UpdateParams{ID: id, Notes: voiceagent.String("x")})
	assert.ErrorIs(t, err, voiceagent.ErrNotFound, "another tenant's lead")
	_, err = env.ClientFor(other.APIKey).Leads.Get(ctx, id)
	assert.ErrorIs(t, err, voiceagent.ErrNotFound)

	ro := env.ClientFor(testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"leads:read"}}).APIKey)
	_, err = ro.Leads.Update(ctx, &leads.UpdateParams{ID: id})
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
	none := env.ClientFor(testenv.NewAccount(t, env.Server, mockserver.AccountOptions{Scopes: []voiceagent.Scope{"calls:read"}}).APIKey)
	_, err = none.Leads.List(ctx, nil)
	assert.ErrorIs(t, err, voiceagent.ErrForbidden)
}

func TestAllWalksLeadsWhileNewOnesArrive(t *testing.T) {
	t.Parallel()
	env := newEnv(t)
	ctx := context.Background()
	want := map[string]bool{}
	for i := range 5 {
		in, err := env.Server.InboundSMS(mockserver.InboundSMS{To: env.Account.PhoneNumber, From: "+155588801" + string(rune('0'+i)) + "0", Body: "hello"})
		require.NoError(t, err)
		want[in.LeadID] = true
	}
	seen := map[string]bool{}
	n := 0
	for l, err := range env.Client.Leads.All(ctx, &leads.ListParams{Limit: 2}) {
		require.NoError(t, err)
		require.False(t, seen[l.ID], "repeated")
		seen[l.ID] = true
		n++
		_, err = env.Server.InboundSMS(mockserver.InboundSMS{To: env.Account.PhoneNumber, From: "+155588802" + string(rune('0'+n)) + "0", Body: "new lead mid-walk"})
		require.NoError(t, err)
	}
	assert.Equal(t, want, seen)
	total := 0
	for _, err := range env.Client.Leads.All(ctx, nil) {
		require.NoError(t, err)
		total++
	}
	assert.Equal(t, 10, total)
}
