package store

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// counter returns an id source giving prefix1, prefix2, ... and a pointer
// to the number of ids given.
func counter(prefix string) (func() string, *int) {
	n := new(int)
	return func() string { *n++; return fmt.Sprint(prefix, *n) }, n
}

func sp(s string) *string { return &s }

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestInsertGivesIDOwnerAndStrictlyIncreasingCreatedAt(t *testing.T) {
	tb := NewTable[*rec]()
	next, calls := counter("id")
	tb.SetIDSource(next)
	local := t0.In(time.FixedZone("x", 3600))

	a := tb.Insert(&rec{n: 1}, "biz", local)
	b := tb.Insert(&rec{n: 2}, "biz", local)        // frozen clock
	c := tb.Insert(&rec{n: 3}, "biz", t0.Add(-1))   // clock going back
	d := tb.Insert(&rec{n: 4}, "other", t0.Add(-1)) // another owner keeps its own time
	assert.Equal(t, []string{"id1", "id2", "id3", "id4"}, []string{a.ID, b.ID, c.ID, d.ID})
	assert.Equal(t, []string{"biz", "biz", "biz", "other"}, []string{a.Owner, b.Owner, c.Owner, d.Owner})
	assert.Equal(t, t0, a.CreatedAt, "the first stamp is now, in UTC")
	assert.Equal(t, time.UTC, a.CreatedAt.Location())
	assert.True(t, b.CreatedAt.After(a.CreatedAt))
	assert.True(t, c.CreatedAt.After(b.CreatedAt))
	assert.Equal(t, t0.Add(-1), d.CreatedAt)
	assert.Equal(t, 4, tb.Len())
	assert.Equal(t, []*rec{a, b, c}, tb.Owned("biz"))
	got, ok := tb.Get("id3")
	require.True(t, ok)
	assert.Same(t, c, got)

	// An explicit id is kept and the source is not called; owner and
	// created_at are set all the same.
	e := tb.Insert(&rec{Base: Base{ID: "mine", Owner: "ignored"}}, "biz", t0)
	assert.Equal(t, "mine", e.ID)
	assert.Equal(t, "biz", e.Owner)
	assert.True(t, e.CreatedAt.After(c.CreatedAt))
	assert.Equal(t, 4, *calls)
	got, ok = tb.Get("mine")
	require.True(t, ok)
	assert.Same(t, e, got)

	// Stamp and Insert share one sequence.
	assert.True(t, tb.Stamp("biz", t0).After(e.CreatedAt))
}

func TestInsertWithoutIDSourcePanics(t *testing.T) {
	tb := NewTable[*rec]()
	defer func() {
		msg, _ := recover().(string)
		assert.Contains(t, msg, "without an id source")
		assert.Contains(t, msg, "*store.rec")
		assert.Equal(t, 0, tb.Len(), "nothing stored")
	}()
	tb.Insert(&rec{}, "biz", t0)
	t.Fatal("Insert did not panic")
}

func TestInsertWithoutIDSourceKeepsAnExplicitID(t *testing.T) {
	st := New()
	l := st.Leads.Insert(&Lead{Base: Base{ID: "l1"}, Phone: sp("+15550001")}, "biz", t0)
	assert.Same(t, l, st.LeadByPhone("biz", "+15550001"))
	assert.Panics(t, func() { st.Calls.Insert(&Call{}, "biz", t0) }, "New gives no id source")
}

func TestLeadUpdateReindexesPhoneAndEmail(t *testing.T) {
	next, _ := counter("lead")
	st := NewWithIDs(next)
	l := st.Leads.Insert(&Lead{Phone: sp("+15550001"), Email: sp("Ann@Example.com")}, "biz", t0)
	other := st.Leads.Insert(&Lead{Phone: sp("+15550001")}, "biz2", t0)

	assert.Same(t, l, st.LeadByPhone("biz", "+15550001"), "Insert indexes the lead")
	assert.Same(t, l, st.LeadByEmail("biz", " ann@example.COM"))
	assert.Same(t, other, st.LeadByPhone("biz2", "+15550001"), "lookups are per business")

	st.Leads.Update(l, func(l *Lead) {
		l.Phone = sp("+15550002")
		l.Email = sp("ann@new.example")
		l.Status = LeadContacted
	})
	assert.Nil(t, st.LeadByPhone("biz", "+15550001"))
	assert.Empty(t, st.LeadsByPhone("biz", "+15550001"))
	assert.Nil(t, st.LeadByEmail("biz", "ann@example.com"))
	assert.Same(t, l, st.LeadByPhone("biz", "+15550002"))
	assert.Same(t, l, st.LeadByEmail("biz", "ANN@new.example"))
	assert.Equal(t, LeadContacted, l.Status)
	assert.Same(t, other, st.LeadByPhone("biz2", "+15550001"), "another business's lead is untouched")

	st.Leads.Update(l, func(l *Lead) { l.Phone, l.Email = nil, sp("") })
	assert.Nil(t, st.LeadByPhone("biz", "+15550002"))
	assert.Nil(t, st.LeadByEmail("biz", "ann@new.example"))
	assert.Nil(t, st.LeadByEmail("biz", ""), "an empty email is not a key")
	assert.Equal(t, 1, st.tel().leadsByPhone.Len())
	assert.Equal(t, 0, st.tel().leadsByEmail.Len())
}

func TestLeadPutAndDeleteMaintainIndexes(t *testing.T) {
	st := New()
	l := &Lead{Base: Base{ID: "l1", Owner: "biz", CreatedAt: st.Leads.Stamp("biz", t0)}, Phone: sp("+15550001"), Email: sp("a@x.com")}
	st.Leads.Put(l)
	assert.Same(t, l, st.LeadByPhone("biz", "+15550001"))
	assert.Same(t, l, st.LeadByEmail("biz", "A@X.COM"))

	// A replacement with the same id takes the old record's place.
	repl := &Lead{Base: l.Base, Phone: sp("+15550002")}
	st.Leads.Put(repl)
	assert.Nil(t, st.LeadByPhone("biz", "+15550001"))
	assert.Nil(t, st.LeadByEmail("biz", "a@x.com"))
	assert.Same(t, repl, st.LeadByPhone("biz", "+15550002"))

	// Putting the same record again does not list it twice.
	st.Leads.Put(repl)
	assert.Len(t, st.LeadsByPhone("biz", "+15550002"), 1)

	assert.True(t, st.Leads.Delete("l1"))
	assert.Nil(t, st.LeadByPhone("biz", "+15550002"))
	assert.Equal(t, 0, st.tel().leadsByPhone.Len())
	assert.Empty(t, st.tel().leadsByPhone.byKey, "empty lists and owners are dropped")
}

func TestPuttingAgainDoesNotDuplicate(t *testing.T) {
	next, _ := counter("lead")
	st := NewWithIDs(next)
	// Three leads with one phone, put newest first: lookups are oldest
	// first.
	var leads []*Lead
	for i := range 3 {
		l := &Lead{Base: Base{ID: fmt.Sprint("l", i), Owner: "biz", CreatedAt: t0.Add(time.Duration(3-i) * time.Hour)}, Phone: sp("+15550001")}
		st.Leads.Put(l)
		st.Leads.Put(l)
		leads = append(leads, l)
	}
	assert.Equal(t, []*Lead{leads[2], leads[1], leads[0]}, st.LeadsByPhone("biz", "+15550001"))

	// A change through Update moves the lead from its old key to its new
	// one; Update back, then an Update that changes nothing: no duplicate.
	l := leads[1]
	st.Leads.Update(l, func(l *Lead) { l.Phone = sp("+15550002") })
	assert.Equal(t, []*Lead{leads[2], leads[0]}, st.LeadsByPhone("biz", "+15550001"))
	assert.Equal(t, []*Lead{l}, st.LeadsByPhone("biz", "+15550002"))
	st.Leads.Update(l, func(l *Lead) { l.Phone = sp("+15550001") })
	st.Leads.Update(l, func(*Lead) {})
	assert.Empty(t, st.LeadsByPhone("biz", "+15550002"))
	assert.Equal(t, []*Lead{leads[2], leads[1], leads[0]}, st.LeadsByPhone("biz", "+15550001"))
	assert.Equal(t, 3, st.tel().leadsByPhone.Len())
}

func TestUpdateOfARecordNoLongerInTheTableOnlyChangesIt(t *testing.T) {
	next, _ := counter("lead")
	st := NewWithIDs(next)
	l := st.Leads.Insert(&Lead{Phone: sp("+15550001")}, "biz", t0)
	st.Leads.Delete(l.ID)
	st.Leads.Update(l, func(l *Lead) { l.Phone = sp("+15550002") })
	assert.Equal(t, "+15550002", *l.Phone)
	assert.Nil(t, st.LeadByPhone("biz", "+15550002"))
	assert.Equal(t, 0, st.Leads.Len())

	// A replaced record is not the table's either.
	m := st.Leads.Insert(&Lead{Phone: sp("+15550003")}, "biz", t0)
	st.Leads.Put(&Lead{Base: m.Base, Phone: sp("+15550004")})
	st.Leads.Update(m, func(l *Lead) { l.Phone = sp("+15550005") })
	assert.Nil(t, st.LeadByPhone("biz", "+15550005"))
	assert.NotNil(t, st.LeadByPhone("biz", "+15550004"))
}

func TestUpdateMovesARecordWhoseOwnerOrCreatedAtChanges(t *testing.T) {
	tb := NewTable[*rec]()
	next, _ := counter("r")
	tb.SetIDSource(next)
	a := tb.Insert(&rec{}, "biz", t0)
	b := tb.Insert(&rec{}, "biz", t0)
	tb.Update(a, func(r *rec) { r.CreatedAt = b.CreatedAt.Add(time.Hour) })
	assert.Equal(t, []*rec{b, a}, tb.Owned("biz"))
	assert.True(t, tb.Stamp("biz", t0).After(a.CreatedAt), "later stamps stay after it")
	tb.Update(b, func(r *rec) { r.Owner = "other" })
	assert.Equal(t, []*rec{a}, tb.Owned("biz"))
	assert.Equal(t, []*rec{b}, tb.Owned("other"))
	assert.Equal(t, 2, tb.Len())

	assert.PanicsWithValue(t, `store: Update changed the id of *store.rec "r1" to "x"`,
		func() { tb.Update(a, func(r *rec) { r.ID = "x" }) })
}

func TestAddIndexIndexesTheRecordsAlreadyThere(t *testing.T) {
	tb := NewTable[*rec]()
	tb.Put(mkrec("a", "biz", t0, 1))
	tb.Put(mkrec("b", "biz", t0.Add(time.Second), 2))
	tb.Put(mkrec("c", "biz", t0.Add(2*time.Second), 1))
	x := NewKeyIndex(func(r *rec) string { return fmt.Sprint(r.n) })
	tb.AddIndex(x)
	assert.Len(t, x.Lookup("biz", "1"), 2)
	assert.Equal(t, "a", x.Lookup("biz", "1")[0].ID)
	tb.Delete("a")
	assert.Len(t, x.Lookup("biz", "1"), 1)
	assert.Nil(t, x.Lookup("biz", ""))
}

// storeTables walks the Store struct (and the structs it embeds) for every
// field whose type is a *Table, independently of Store.tables.
func storeTables(v reflect.Value, prefix string, out map[string]reflect.Value) {
	for i := range v.NumField() {
		f, fv := v.Type().Field(i), v.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			storeTables(fv, prefix+f.Name+".", out)
			continue
		}
		if f.Type.Kind() == reflect.Pointer && strings.HasPrefix(f.Type.Elem().Name(), "Table[") {
			if f.IsExported() {
				out[prefix+f.Name] = fv
			} else {
				out[prefix+f.Name] = reflect.Value{} // filled by the caller, through an accessor
			}
		}
	}
}

func TestNewWithIDsSetsTheSourceOnEveryTable(t *testing.T) {
	next, calls := counter("id")
	st := NewWithIDs(next)
	tables := map[string]reflect.Value{}
	storeTables(reflect.ValueOf(st).Elem(), "", tables)
	require.Contains(t, tables, "idempotency")
	tables["idempotency"] = reflect.ValueOf(st.Idempotency())
	require.GreaterOrEqual(t, len(tables), 28, "the walk finds the tables")
	assert.Len(t, st.tables(), len(tables), "NewWithIDs reaches every table")
	for name, tv := range tables {
		require.False(t, tv.IsNil(), "%s: New makes the table", name)
		// The record type is the type argument of Table: the first result
		// of Get.
		elem := tv.MethodByName("Get").Type().Out(0)
		before := *calls
		out := tv.MethodByName("Insert").Call([]reflect.Value{reflect.New(elem.Elem()), reflect.ValueOf("owner"), reflect.ValueOf(t0)})
		r := out[0].Interface().(Record)
		assert.Equal(t, fmt.Sprint("id", before+1), r.RecordID(), name)
		assert.Equal(t, "owner", r.RecordOwner(), name)
		got := tv.MethodByName("Get").Call([]reflect.Value{reflect.ValueOf(r.RecordID())})
		assert.True(t, got[1].Bool(), "%s: Get finds the inserted record", name)
	}
	assert.Equal(t, len(tables), *calls)
}

func TestDropAndDropped(t *testing.T) {
	old := New()
	assert.False(t, old.Dropped())
	old.Drop()
	assert.True(t, old.Dropped())
	old.Drop()
	assert.True(t, old.Dropped(), "Drop twice is fine")
	assert.False(t, New().Dropped(), "a new store is not dropped")
}

// BenchmarkTableInsert inserts records into a table with an id source.
func BenchmarkTableInsert(b *testing.B) {
	tb := NewTable[*rec]()
	ids := make([]string, b.N)
	recs := make([]*rec, b.N)
	for i := range b.N {
		ids[i], recs[i] = fmt.Sprint("id", i), &rec{n: i}
	}
	k := 0
	tb.SetIDSource(func() string { k++; return ids[k-1] })
	owners := []string{"a", "b", "c", "d"}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		tb.Insert(recs[i], owners[i%len(owners)], t0)
	}
}

// BenchmarkLeadUpdate changes the phone of leads of a store holding 10,000,
// through Update, which re-indexes them.
func BenchmarkLeadUpdate(b *testing.B) {
	const n = 10_000
	next, _ := counter("lead")
	st := NewWithIDs(next)
	leads := make([]*Lead, n)
	phones := make([][2]*string, n)
	for i := range n {
		phones[i] = [2]*string{sp(fmt.Sprintf("+1555%07d", i)), sp(fmt.Sprintf("+1666%07d", i))}
		leads[i] = st.Leads.Insert(&Lead{Phone: phones[i][0], Email: sp(fmt.Sprintf("lead%d@example.com", i))}, "biz", t0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		l, p := leads[i%n], phones[i%n][(i/n+1)%2]
		st.Leads.Update(l, func(l *Lead) { l.Phone = p })
	}
	b.StopTimer()
	l := leads[0]
	if st.LeadByPhone("biz", *l.Phone) != l {
		b.Fatal("lead not found by its phone")
	}
}

func TestBusinessListsHandedOutNeverChange(t *testing.T) {
	s := NewWithIDs(func() string { return "" })
	n := 0
	s.Businesses.SetIDSource(func() string { n++; return fmt.Sprint("biz", n) })
	add := func() *Business {
		return s.InsertBusiness(&Business{Members: map[string]string{"user": "owner"}, PartnerID: "partner"}, t0)
	}
	first, second := add(), add()
	kept, keptOfPartner := s.BusinessesOf("user"), s.BusinessesOfPartner("partner")
	require.Equal(t, []string{first.ID, second.ID}, kept)
	s.RemoveMember(first, "user")
	add()
	s.RemoveMember(second, "user")
	assert.Equal(t, []string{first.ID, second.ID}, kept, "a removal or an addition makes a new list or goes past the end")
	assert.Equal(t, []string{first.ID, second.ID}, keptOfPartner)
	assert.Equal(t, []string{"biz3"}, s.BusinessesOf("user"))
}
