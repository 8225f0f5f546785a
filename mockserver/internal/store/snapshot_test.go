package store

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fill sets every settable field of v, recursively, to a value that is not
// the zero value, so that a field a snapshot loses shows.
func fill(v reflect.Value, n *int) {
	*n++
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprint("s", *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n % 100))
	case reflect.Uint8:
		v.SetUint(uint64(*n % 200))
	case reflect.Float64:
		v.SetFloat(float64(*n) + 0.5)
	case reflect.Pointer:
		v.Set(reflect.New(v.Type().Elem()))
		fill(v.Elem(), n)
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 { // []byte, json.RawMessage
			v.SetBytes([]byte(fmt.Sprintf(`{"n":%d}`, *n)))
			return
		}
		v.Set(reflect.MakeSlice(v.Type(), 1, 1))
		fill(v.Index(0), n)
	case reflect.Array:
		for i := range v.Len() {
			fill(v.Index(i), n)
		}
	case reflect.Map:
		v.Set(reflect.MakeMap(v.Type()))
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, n)
		fill(e, n)
		v.SetMapIndex(k, e)
	case reflect.Interface:
		v.Set(reflect.ValueOf(fmt.Sprint("any", *n)))
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(time.Date(2026, 3, 10, 16, 0, *n%60, *n, time.UTC)))
			return
		}
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				fill(v.Field(i), n)
			}
		}
		if reflect.PointerTo(v.Type()).Implements(reflect.TypeFor[json.Unmarshaler]()) {
			// A type with its own JSON form (one of its fields, say): the
			// value that form keeps.
			data, err := json.Marshal(v.Addr().Interface())
			if err == nil {
				fresh := reflect.New(v.Type())
				if json.Unmarshal(data, fresh.Interface()) == nil {
					v.Set(fresh.Elem())
				}
			}
		}
	}
}

// fillTables puts a record with every field set (fill) into every table of
// s but businesses and those skipped, each of business "biz", with the
// indexes derived from it.
func fillTables(s *Store, skip ...string) {
	n := 0
	for name, tbl := range s.namedTables() {
		if name == "businesses" || slices.Contains(skip, name) {
			continue
		}
		typ := reflect.TypeOf(tbl).Elem().Field(0).Type.Elem() // byID's value type: the record's pointer
		r := reflect.New(typ.Elem())
		fill(r.Elem(), &n)
		rec := r.Interface().(Record)
		b := rec.base()
		b.ID, b.Owner, b.CreatedAt = "rec-"+name, "biz", t0.Add(time.Duration(n)*time.Second)
		if m, ok := rec.(*OutboxMessage); ok {
			m.BusinessID = "biz"
		}
		if k, ok := rec.(*APIKey); ok {
			k.BusinessID = "biz"
		}
		tbl.putRecord(rec)
		s.index(rec)
	}
}

// Every table of the store goes into a tenant's section and comes back
// from it whole: a record with every field set is exported, imported
// into a new store and exported again, the same. A table (or a record
// field) added later that a snapshot does not carry fails here.
func TestEveryTableRoundTripsThroughASection(t *testing.T) {
	src := New()
	biz := &Business{Base: Base{ID: "biz"}, Members: map[string]string{"user": RoleOwner}}
	src.InsertBusiness(biz, t0)
	src.Users.Put(&User{Base: Base{ID: "user", Owner: "user", CreatedAt: t0}, Email: "a@example.com"})
	fillTables(src, "users")
	// The keyed data beside the tables.
	src.Deliveries.Add(&Delivery{ID: "d1", Tenant: "biz", BusinessID: "biz", Body: []byte(`{}`), Status: "pending"})
	src.EmergencyAddresses["rec-numbers"] = &EmergencyAddress{NumberID: "rec-numbers", BusinessID: "biz", Address: map[string]any{"city": "Austin"}}
	src.TranscriptSinks["biz"] = &TranscriptSink{URL: "https://example.com/t", Enabled: true}
	src.ApprovalSecrets["user\x00sec"] = "secret"
	src.MagicLinks["tok"] = &MagicLink{Token: "tok", Kind: "magic", UserID: "user", ExpiresAt: t0}
	src.Signups["biz"] = &SignupRecord{BusinessID: "biz", PlanID: "pro"}
	src.ClientsByRef["partner\x00ref"] = "biz"
	src.SDRConfigs["biz"] = &SDRConfig{BusinessID: "biz", Enabled: true}
	src.SDRLeads["rec-leads"] = &SDRLead{LeadID: "rec-leads", TouchCount: 2}
	src.tel().minutes["biz"] = 3
	src.SetDNC("biz", "+15550001111", true)
	src.tel().consent["biz"] = map[string]string{"+15550002222": "opted_in"}
	src.Agents.Owned("biz")[0].VendorAssistantID = "asst"
	src.Assistants["asst"] = &Assistant{ID: "asst", Name: "A"}

	sec := src.Export("biz")
	first, err := json.Marshal(sec)
	require.NoError(t, err)
	for name := range src.namedTables() {
		assert.NotEqual(t, "[]", string(sec.Tables[name]), "table %s is in the tenant's section", name)
	}

	dst := New()
	var back Section
	require.NoError(t, json.Unmarshal(first, &back))
	require.NoError(t, dst.Import(&back, "biz"))
	second, err := json.Marshal(dst.Export("biz"))
	require.NoError(t, err)
	assert.JSONEq(t, string(first), string(second))
	dstTables := dst.namedTables()
	for name, tbl := range src.namedTables() {
		for _, r := range tbl.records(nil, nil) {
			got, ok := dstTables[name].getRecord(r.RecordID())
			require.True(t, ok, "%s %s is imported", name, r.RecordID())
			assert.Equal(t, r, got, "%s: every field of the record comes back (none hidden from JSON)", name)
		}
	}
	assert.Equal(t, []string{"biz"}, dst.Tenants())
	assert.Equal(t, dst.Keys.Owned("biz")[0], dst.KeysByHash[dst.Keys.Owned("biz")[0].Hash], "keys are found by hash")

	// Remove takes it all out again.
	dst.Remove("biz")
	empty, err := json.Marshal(dst.Export("biz"))
	require.NoError(t, err)
	assert.NotContains(t, string(empty), `"ID"`)
	assert.Empty(t, dst.Tenants())
	assert.Empty(t, dst.KeysByHash)
}

// A scope finds its records owner by owner (scope.records): the same
// records as deciding record by record where each belongs
// (recordTenant), for every table, with records of two tenants (their
// businesses and their users), of no tenant, and keys and outbox messages
// of one tenant's user for the other tenant's business.
func TestScopeRecordsAreTheTenantsRecords(t *testing.T) {
	s := New()
	s.InsertBusiness(&Business{Base: Base{ID: "a"}, Members: map[string]string{"ua": RoleOwner}}, t0)
	s.InsertBusiness(&Business{Base: Base{ID: "a2"}, Tenant: "a", Members: map[string]string{"ua": RoleOwner}}, t0)
	s.InsertBusiness(&Business{Base: Base{ID: "b"}, Members: map[string]string{"ub": RoleOwner}}, t0)
	n := 0
	for name, tbl := range s.namedTables() {
		if name == "businesses" {
			continue
		}
		typ := reflect.TypeOf(tbl).Elem().Field(0).Type.Elem()
		for _, owner := range []string{"a", "a2", "ua", "b", "ub", "loose"} {
			n++
			rec := reflect.New(typ.Elem()).Interface().(Record)
			b := rec.base()
			b.ID, b.Owner, b.CreatedAt = fmt.Sprintf("%s-%s", name, owner), owner, t0.Add(time.Duration(n)*time.Second)
			switch r := rec.(type) {
			case *OutboxMessage:
				r.BusinessID = map[string]string{"ua": "b", "ub": "a2"}[owner]
			case *APIKey:
				r.BusinessID = map[string]string{"ua": "b", "ub": "a2"}[owner]
			}
			tbl.putRecord(rec)
		}
	}
	ids := func(recs []Record) []string {
		var out []string
		for _, r := range recs {
			out = append(out, r.RecordID())
		}
		return out
	}
	for _, tenant := range []string{"a", "b", ""} {
		sc := scope{s, tenant}
		for name, tbl := range s.namedTables() {
			want := tbl.records(nil, func(r Record) bool { return sc.has(s.recordTenant(r)) })
			got := sc.records(tbl)
			if name != "businesses" || tenant != "" { // every business here is a tenant's
				require.NotEmpty(t, got, "%s of tenant %q", name, tenant)
			}
			assert.Equal(t, ids(want), ids(got), "%s of tenant %q", name, tenant)
		}
	}
}

// The snapshot knows every field of the store: a table is carried by
// name, and every other field is listed here with where a section holds
// it. A field added later fails until it is carried (or said to be
// derived) and listed.
func TestEveryStoreFieldIsCarried(t *testing.T) {
	carried := map[string]string{
		"Deliveries": "deliveries", "GovernedByKey": "derived", "EmergencyAddresses": "emergency_addresses",
		"TranscriptSinks": "transcript_sinks", "ApprovalSecrets": "approval_secrets", "KeysByHash": "derived",
		"SessionsByToken": "derived", "UsersByEmail": "derived", "NumbersByPhone": "derived", "Assistants": "assistants",
		"NextNumber": "next_number", "MagicLinks": "magic_links", "Signups": "signups", "ReferralCodes": "referral_codes",
		"InstallationByBusiness": "derived", "ClientsByRef": "clients_by_ref", "SDRConfigs": "sdr_configs",
		"SDRLeads": "sdr_leads", "SDRCronSecret": "sdr_cron_secret", "userBusinesses": "derived",
		"partnerBusinesses": "derived", "tenants": "derived", "telIdx": "minutes, do_not_call, consent; leads' lookups derived",
		"dropped": "not state", "agentsByAssistant": "derived", "byName": "not state", "names": "not state", "sch": "not state",
		"idempotency": "beside the section, in the tenant's idempotency records",
	}
	tables := New().namedTables()
	var walk func(typ reflect.Type)
	walk = func(typ reflect.Type) {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.Anonymous && f.Type.Kind() == reflect.Struct {
				walk(f.Type)
				continue
			}
			if _, ok := tables[SnakeCase(f.Name)]; ok {
				continue
			}
			_, ok := carried[f.Name]
			assert.True(t, ok, "Store.%s: say how a snapshot carries it", f.Name)
		}
	}
	walk(reflect.TypeFor[Store]())
	jsonNames := map[string]bool{}
	for i := range reflect.TypeFor[Section]().NumField() {
		jsonNames[strings.Split(reflect.TypeFor[Section]().Field(i).Tag.Get("json"), ",")[0]] = true
	}
	for field, where := range carried {
		if where != "derived" && where != "not state" && !strings.Contains(where, ",") {
			assert.True(t, jsonNames[where], "Store.%s is carried in Section.%s", field, where)
		}
	}
}

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{"Calls": "calls", "SMSMessages": "sms_messages", "ApprovalRequests": "approval_requests",
		"SDRActivity": "sdr_activity", "Keys": "keys", "PromptAudits": "prompt_audits"} {
		assert.Equal(t, want, SnakeCase(in))
	}
}

// Import refuses a record whose id another tenant's record holds (409:
// InUse), and changes nothing; importing a tenant again replaces it.
func TestImportRefusesIDsInUse(t *testing.T) {
	s := New()
	s.InsertBusiness(&Business{Base: Base{ID: "a"}, Members: map[string]string{}}, t0)
	s.Leads.Put(&Lead{Base: Base{ID: "lead", Owner: "a", CreatedAt: t0}})
	sec := s.Export("a")
	require.NoError(t, s.Import(sec, "a"), "a tenant imported again replaces itself")
	assert.Equal(t, []string{"a"}, s.Tenants())

	other := &Section{Tables: map[string]json.RawMessage{
		"businesses": json.RawMessage(`[{"ID":"b","Owner":"b","Tenant":"b"}]`),
		"leads":      json.RawMessage(`[{"ID":"lead","Owner":"b"}]`),
	}}
	err := s.Import(other, "b")
	var se *SectionError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "tables.leads.0.ID", se.Path)
	assert.True(t, se.InUse)
	assert.Equal(t, 1, s.Businesses.Len())
	assert.Equal(t, 1, s.Leads.Len())
	assert.Equal(t, []string{"a"}, s.Tenants())
}

// An id repeated in a table of a section is refused as such (400, not
// InUse); records of no tenant import with the server's part.
func TestImportRefusesAnIDRepeatedInATable(t *testing.T) {
	s := New()
	sec := &Section{Tables: map[string]json.RawMessage{
		"users": json.RawMessage(`[{"ID":"u","Owner":"u","Email":"u@example.com"}]`),
		"leads": json.RawMessage(`[{"ID":"l","Owner":"nobody"}]`),
	}, Deliveries: []*Delivery{{ID: "d", Tenant: "nobody"}}}
	require.NoError(t, s.Import(sec, ""))
	assert.Equal(t, 1, s.Users.Len()+s.Leads.Len()-1)
	assert.Equal(t, "u", s.UsersByEmail["u@example.com"].ID)
	require.NoError(t, s.Import(sec, ""), "the records of no tenant replace themselves")
	assert.Equal(t, 2, s.Users.Len()+s.Leads.Len())

	sec.Tables["leads"] = json.RawMessage(`[{"ID":"m","Owner":"o"},{"ID":"m","Owner":"o"}]`)
	err := New().Import(sec, "")
	var se *SectionError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "tables.leads.1.ID", se.Path)
	assert.Contains(t, se.Message, "repeated")
	assert.False(t, se.InUse)
}

// CopyRecords copies every field of a record of every table: with strings
// and bytes kept, a copy equals its original; a copy shares nothing with
// it (changing the copy's maps and slices leaves the original as it was);
// every string goes through str, map keys included.
func TestCopyRecordsCopiesEveryField(t *testing.T) {
	s := New()
	s.InsertBusiness(&Business{Base: Base{ID: "biz"}, Members: map[string]string{"user": RoleOwner}}, t0)
	fillTables(s)
	recs := s.Records("biz")
	before, err := json.Marshal(recs)
	require.NoError(t, err)

	same := CopyRecords(recs, func(s string) string { return s }, func(b []byte) []byte { return b })
	for name, list := range recs {
		require.Len(t, same[name], len(list), name)
		for i, r := range list {
			assert.Equal(t, r, same[name][i], "%s: the copy equals its original", name)
			assert.NotSame(t, r, same[name][i], name)
		}
	}
	b := same["businesses"][0].(*Business)
	b.Members["someone"] = RoleAdmin
	same["calls"][0].(*Call).Quality.Empathy = 99
	after, err := json.Marshal(recs)
	require.NoError(t, err)
	assert.JSONEq(t, string(before), string(after), "changing a copy leaves the original")

	marked := CopyRecords(recs, func(s string) string { return s + "'" }, func(b []byte) []byte { return b })
	bm := marked["businesses"][0].(*Business)
	assert.Equal(t, "biz'", bm.ID)
	assert.Equal(t, RoleOwner+"'", bm.Members["user'"], "map keys and values")
	assert.Equal(t, "rec-calls'", marked["calls"][0].RecordID())
}
