package store

import (
	"fmt"
	"sync/atomic"
)

// The store's rules are what every record obeys, however it comes in (a
// request through Insert and Update, a restore or a copy through Plan):
//
//   - Unique values. A table's id is held by one record; so are the values
//     of its unique indexes: a key's hash, a session's token, a number's
//     phone number, an agent's assistant at the voice provider.
//   - References stay in their tenant. A field that names a record of
//     another table (a call's agent and lead, a number's agent, a key's
//     user, ...: the references table below) never names a record of
//     another tenant. A record of no tenant may be named by anyone; a
//     reference to no record at all (an agent since deleted) is allowed.
//
// A write that breaks a rule panics: the domains check what they are asked
// before they write, so a broken rule there is a programming error. A Plan
// checks the same rules on a whole document before anything changes, and
// says what is wrong (a *SectionError).

// schema is what a store and its tables share: the guard that refuses a
// write without the write lock (GuardWrites), and the store the rules of
// references read.
type schema struct {
	s *Store
	// guarded is set by GuardWrites; open between BeginWrite and
	// EndWrite.
	guarded, open atomic.Bool
	// writes counts the writes, so that a Plan knows the store is as it
	// checked it.
	writes uint64
}

// mustWrite panics when the store's writes are guarded and no write is
// open: op was called through a read Tx. Otherwise it counts a write. A
// nil schema (a table of no store) allows every write.
func (sc *schema) mustWrite(op string) {
	if sc == nil {
		return
	}
	if sc.guarded.Load() && !sc.open.Load() {
		panic("store: " + op + " without the write lock: the state was written through a read Tx (begin a write Tx, platform.WriteTx, to change it)")
	}
	sc.writes++
}

// GuardWrites makes every write to s (Insert, Put, Update, Delete, the
// keyed data's setters, Plan.Apply, Remove) panic unless it comes between
// BeginWrite and EndWrite: the server's write Tx calls them, so a write
// through a read Tx is refused.
func (s *Store) GuardWrites() { s.sch.guarded.Store(true) }

// BeginWrite opens the store for writes (see GuardWrites): platform.WriteTx
// calls it once it holds the write lock.
func (s *Store) BeginWrite() { s.sch.open.Store(true) }

// EndWrite closes what BeginWrite opened: Tx.End calls it before it
// releases the write lock.
func (s *Store) EndWrite() { s.sch.open.Store(false) }

// uniqueIndex is a unique index of a table of records T.
type uniqueIndex[T Record] interface {
	Index[T]
	// clash returns the record of another id that holds r's value.
	clash(r T) (T, bool)
	rule() uniqueRule
}

// uniqueRule is a unique index as a Plan sees it, whatever its types.
type uniqueRule interface {
	// field is the record's field the value is read from.
	field() string
	// valueOf returns r's value (false: r has none, and is not indexed).
	valueOf(r Record) (any, bool)
	// holder returns the record that holds value.
	holder(value any) (Record, bool)
}

// unique indexes the records of a table by a value no two of them share,
// in a map the store shows (KeysByHash, NumbersByPhone, ...): the table
// keeps it right, and Put and Update refuse a record whose value another
// holds.
type unique[T Record, K comparable] struct {
	name  string
	value func(T) (K, bool)
	m     map[K]T
}

// addUnique attaches a unique index of t's records by value, kept in m,
// and returns m. field names the record's field value reads.
func addUnique[T Record, K comparable](t *Table[T], field string, m map[K]T, value func(T) (K, bool)) map[K]T {
	u := &unique[T, K]{name: field, value: value, m: m}
	t.uniques = append(t.uniques, u)
	t.AddIndex(u)
	return m
}

func (u *unique[T, K]) add(r T) {
	if k, ok := u.value(r); ok {
		u.m[k] = r
	}
}

func (u *unique[T, K]) remove(r T) {
	if k, ok := u.value(r); ok {
		if cur, held := u.m[k]; held && cur.base() == r.base() {
			delete(u.m, k)
		}
	}
}

func (u *unique[T, K]) clash(r T) (T, bool) {
	var zero T
	k, ok := u.value(r)
	if !ok {
		return zero, false
	}
	cur, held := u.m[k]
	if !held || cur.RecordID() == r.RecordID() {
		return zero, false
	}
	return cur, true
}

func (u *unique[T, K]) rule() uniqueRule { return u }
func (u *unique[T, K]) field() string    { return u.name }

func (u *unique[T, K]) valueOf(r Record) (any, bool) {
	k, ok := u.value(r.(T))
	return k, ok
}

func (u *unique[T, K]) holder(value any) (Record, bool) {
	k, ok := value.(K)
	if !ok {
		return nil, false
	}
	r, held := u.m[k]
	return r, held
}

// reference is a field of a table's records that names records of
// another table, by id or by the value of one of its unique indexes.
type reference struct {
	// field is the field's name, as a snapshot's path names it.
	field string
	// tables are the tables whose records it may name.
	tables []string
	// by is the unique field of the tables it names records by ("": their
	// ids).
	by string
	// one returns the field's value in r ("" names nothing); many its
	// values, for a field that holds several (one is nil then).
	one  func(r Record) string
	many func(r Record) []string
}

// ref is a reference by the string value of one field of records T.
func ref[T Record](field string, tables []string, get func(T) string) reference {
	return reference{field: field, tables: tables, one: func(r Record) string { return get(r.(T)) }}
}

// Table names, for the references.
var (
	inAgents    = []string{"agents"}
	inLeads     = []string{"leads"}
	inCalls     = []string{"calls"}
	inNumbers   = []string{"numbers"}
	inUsers     = []string{"users"}
	inWebhooks  = []string{"webhooks"}
	inEvents    = []string{"events"}
	inApprovals = []string{"approval_requests"}
)

// references are the references of each table's records, by table name.
// Business members are not among them: a user may be a member of another
// tenant's business (see checkMembers).
var references = map[string][]reference{
	"numbers": {ref("AgentID", inAgents, func(n *Number) string { return n.AgentID })},
	"agents":  {{field: "PhoneNumber", tables: inNumbers, by: "PhoneNumber", one: func(r Record) string { return r.(*Agent).PhoneNumber }}},
	"calls": {
		ref("AgentID", inAgents, func(c *Call) string { return c.AgentID }),
		ref("LeadID", inLeads, func(c *Call) string { return c.LeadID }),
	},
	"leads": {ref("AgentID", inAgents, func(l *Lead) string { return l.AgentID })},
	"sms_messages": {
		ref("AgentID", inAgents, func(m *SMSMessage) string { return m.AgentID }),
		ref("LeadID", inLeads, func(m *SMSMessage) string { return m.LeadID }),
	},
	"prompt_audits": {ref("AgentID", inAgents, func(a *PromptAudit) string { return a.AgentID })},
	"keys":          {ref("Owner", inUsers, func(k *APIKey) string { return k.Owner })},
	"runs": {
		ref("AgentID", inAgents, func(r *CommunicationRun) string { return r.AgentID }),
		ref("FromNumberID", inNumbers, func(r *CommunicationRun) string { return r.FromNumberID }),
		{field: "Touches", tables: inCalls, many: func(r Record) []string {
			var ids []string
			for _, t := range r.(*CommunicationRun).Touches {
				if t != nil && t.CallID != "" {
					ids = append(ids, t.CallID)
				}
			}
			return ids
		}},
		{field: "Touches", tables: inLeads, many: func(r Record) []string {
			var ids []string
			for _, t := range r.(*CommunicationRun).Touches {
				if t != nil && t.Target.LeadID != nil && *t.Target.LeadID != "" {
					ids = append(ids, *t.Target.LeadID)
				}
			}
			return ids
		}},
	},
	"approval_requests": {ref("CallID", inCalls, func(a *ApprovalRequest) string { return a.CallID })},
	"sdr_activity": {
		ref("LeadID", inLeads, func(a *SDRActivity) string { return a.LeadID }),
		ref("CallID", inCalls, func(a *SDRActivity) string { return a.CallID }),
		ref("EmailID", []string{"sdr_mails"}, func(a *SDRActivity) string { return a.EmailID }),
	},
	"sdr_mails": {ref("LeadID", inLeads, func(m *SDRMail) string { return m.LeadID })},
	"scripts":   {ref("UsedBy", []string{"calls", "sms_messages"}, func(s *ScriptStep) string { return s.UsedBy })},
}

// deliveryReferences are the references of a delivery (not a table's
// record: the delivery log holds them).
var deliveryReferences = []struct {
	field  string
	tables []string
	get    func(d *Delivery) string
}{
	{"SubscriptionID", inWebhooks, func(d *Delivery) string { return d.SubscriptionID }},
	{"CallID", inCalls, func(d *Delivery) string { return d.CallID }},
	{"ApprovalRequestID", inApprovals, func(d *Delivery) string { return d.ApprovalRequestID }},
	{"EventID", inEvents, func(d *Delivery) string { return d.EventID }},
}

// world is the state the rules read: the store as it is (a write), or as
// it will be once a Plan is applied.
type world interface {
	// find returns the record of table whose field by (its id when by is
	// "") holds value, and its tenant ("" for a record of no tenant).
	find(table, by, value string) (rec Record, tenant string, ok bool)
}

// brokenReference returns the first of refs, the references of r, a
// record belonging to tenant ("" none), that names a record of another
// tenant: its field and value.
func brokenReference(w world, refs []reference, r Record, tenant string) (field, value string, broken bool) {
	for _, rf := range refs {
		if rf.one != nil {
			if v := rf.one(r); v != "" && names(w, rf, r, v, tenant) {
				return rf.field, v, true
			}
			continue
		}
		for _, v := range rf.many(r) {
			if names(w, rf, r, v, tenant) {
				return rf.field, v, true
			}
		}
	}
	return "", "", false
}

// names reports whether v, the value of reference rf of r, names a record
// of another tenant than tenant.
func names(w world, rf reference, r Record, v, tenant string) bool {
	for _, tn := range rf.tables {
		_, t, ok := w.find(tn, rf.by, v)
		if !ok || t == "" || t == tenant {
			continue
		}
		if k, isKey := r.(*APIKey); isKey && rf.field == "Owner" && keyOfMember(w, k) {
			continue
		}
		return true
	}
	return false
}

// keyOfMember reports whether k is a key for one business of a member of
// it: a user of another tenant may hold one (a member an agency assigned,
// or the owner of a business of an account made for a registered email).
func keyOfMember(w world, k *APIKey) bool {
	if k.BusinessID == "" {
		return false
	}
	b, _, ok := w.find("businesses", "", k.BusinessID)
	return ok && b.(*Business).Members[k.Owner] != ""
}

// find implements world for the store as it is.
func (s *Store) find(table, by, value string) (Record, string, bool) {
	t, ok := s.byName[table]
	if !ok {
		return nil, "", false
	}
	var rec Record
	if by == "" {
		rec, ok = t.getRecord(value)
	} else {
		rec, ok = t.heldBy(by, value)
	}
	if !ok {
		return nil, "", false
	}
	return rec, s.tenantOfRecord(rec), true
}

// tenantOfRecord is the tenant a record belongs to ("" none): its
// owner's, the tenant of an outbox message's or a key's business, a
// business's own.
func (s *Store) tenantOfRecord(r Record) string {
	if b, ok := r.(*Business); ok {
		if b.Tenant == b.ID || s.IsTenant(b.Tenant) {
			return b.Tenant
		}
		return ""
	}
	if t := s.recordTenant(r); s.IsTenant(t) {
		return t
	}
	return ""
}

// mustReferToItsTenant panics when r, a record of table whose references
// are refs, names a record of another tenant.
func (s *Store) mustReferToItsTenant(table string, refs []reference, r Record) {
	if field, v, broken := brokenReference(s, refs, r, s.tenantOfRecord(r)); broken {
		panic(fmt.Sprintf("store: %s record %q names in %s %q, a record of another tenant", table, r.RecordID(), field, v))
	}
}

// heldBy returns the record whose field (one of the table's unique
// indexes) holds value.
func (t *Table[T]) heldBy(field, value string) (Record, bool) {
	for _, u := range t.uniques {
		if r := u.rule(); r.field() == field {
			return r.holder(value)
		}
	}
	return nil, false
}

// uniqueRules returns the table's unique indexes.
func (t *Table[T]) uniqueRules() []uniqueRule {
	out := make([]uniqueRule, len(t.uniques))
	for i, u := range t.uniques {
		out[i] = u.rule()
	}
	return out
}
