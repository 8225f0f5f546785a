package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
)

// Section is a part of the store as data, for snapshots: the records of
// one tenant, or the server's own records that belong to no tenant
// (partners and their offers, signups in progress, the number pool).
// Indexes the store derives from records (keys by hash, users by email,
// numbers by phone, a tenant's businesses) are not in it: Import rebuilds
// them.
type Section struct {
	// Tables holds each table's records by the table's name (the Store
	// field's name in snake case, such as "calls" or "sms_messages"), as a
	// JSON array of records with the store's field names.
	Tables map[string]json.RawMessage `json:"tables"`
	// Deliveries are the webhook deliveries in the delivery log, oldest
	// first.
	Deliveries []*Delivery `json:"deliveries"`
	// EmergencyAddresses are the numbers' emergency addresses.
	EmergencyAddresses []EmergencyAddressEntry `json:"emergency_addresses"`
	// TranscriptSinks are the businesses' transcript sinks, by business id.
	TranscriptSinks map[string]*TranscriptSink `json:"transcript_sinks"`
	// ApprovalSecrets are the users' named approval callback secrets, by
	// user id, NUL and the secret's id.
	ApprovalSecrets map[string]string `json:"approval_secrets"`
	// Assistants are the simulated voice provider's assistants, by id.
	Assistants map[string]*Assistant `json:"assistants"`
	// MagicLinks are the users' one-time links.
	MagicLinks []*MagicLink `json:"magic_links"`
	// Signups are the businesses' signup records, by business id.
	Signups map[string]*SignupRecord `json:"signups"`
	// ClientsByRef maps a partner id, NUL and a client's external reference
	// to the client business.
	ClientsByRef map[string]string `json:"clients_by_ref"`
	// SDRConfigs are the SDR configurations, by business id; SDRLeads the
	// pipeline's lead states, by lead id.
	SDRConfigs map[string]*SDRConfig `json:"sdr_configs"`
	SDRLeads   map[string]*SDRLead   `json:"sdr_leads"`
	// Minutes are the minutes used by finished calls, by business id.
	Minutes map[string]int `json:"minutes"`
	// DoNotCall holds do-not-call numbers by business id ("" is the
	// national registry, in the server's section).
	DoNotCall map[string][]string `json:"do_not_call"`
	// Consent holds consent states by business id, then number.
	Consent map[string]map[string]string `json:"consent"`

	// NextNumber, ReferralCodes and SDRCronSecret are the server's own
	// (zero in a tenant's section).
	NextNumber    int               `json:"next_number,omitempty"`
	ReferralCodes map[string]string `json:"referral_codes,omitempty"`
	SDRCronSecret string            `json:"sdr_cron_secret,omitempty"`
}

// EmergencyAddressEntry is a number's emergency address in a Section.
type EmergencyAddressEntry struct {
	NumberID   string            `json:"number_id"`
	BusinessID string            `json:"business_id"`
	Address    *EmergencyAddress `json:"address"`
}

// dumpedTable is what a snapshot and the rules need of a table, whatever
// its record type.
type dumpedTable interface {
	idSourced
	records(owner func(string) bool, keep func(Record) bool) []Record
	decode(data []byte) ([]Record, error)
	putRecord(r Record)
	dropRecord(r Record)
	getRecord(id string) (Record, bool)
	heldBy(field, value string) (Record, bool)
	uniqueRules() []uniqueRule
	forgetGroup(group string)
	setSchema(sch *schema, name string)
}

// records returns the records of the owners owner keeps (nil: every
// owner) that keep keeps (nil: all of them), by owner (sorted), each
// owner's oldest first. owner is asked once an owner, and the records of
// an owner it drops are not looked at: a tenant's records are found
// without a walk over every record of the server.
func (t *Table[T]) records(owner func(string) bool, keep func(Record) bool) []Record {
	var owners []string
	for o := range t.byOwner {
		if owner == nil || owner(o) {
			owners = append(owners, o)
		}
	}
	slices.Sort(owners)
	var out []Record
	for _, o := range owners {
		for _, r := range t.byOwner[o] {
			if keep == nil || keep(r) {
				out = append(out, r)
			}
		}
	}
	return out
}

// decode decodes a JSON array of the table's records; every record needs
// an id and an owner.
func (t *Table[T]) decode(data []byte) ([]Record, error) {
	var recs []T
	if err := json.Unmarshal(data, &recs); err != nil {
		return nil, err
	}
	out := make([]Record, len(recs))
	for i, r := range recs {
		if reflect.ValueOf(r).IsNil() {
			return nil, &SectionError{Path: fmt.Sprint(i), Message: "must be a record, not null"}
		}
		if r.RecordID() == "" || r.RecordOwner() == "" {
			return nil, &SectionError{Path: fmt.Sprint(i), Message: "needs an ID and an Owner"}
		}
		out[i] = r
	}
	return out, nil
}

// putRecord puts a record a Plan checked, without the rules.
func (t *Table[T]) putRecord(r Record) { t.put(r.(T)) }

func (t *Table[T]) setSchema(sch *schema, name string) {
	t.sch, t.name, t.refs = sch, name, references[name]
}

func (t *Table[T]) dropRecord(r Record) {
	if t.byID != nil {
		t.Delete(r.RecordID())
		return
	}
	t.drop(r.(T))
}

// forgetGroup forgets the latest stamp of a stamp group whose records are
// gone, so that a tenant imported again stamps as it did.
func (t *Table[T]) forgetGroup(group string) { delete(t.last, group) }

func (t *Table[T]) getRecord(id string) (Record, bool) {
	r, ok := t.byID[id]
	return r, ok
}

// namedTables returns every table of the store by its snapshot name: the
// exported *Table fields of Store and of the structs it embeds. The map is
// the store's own: do not change it.
func (s *Store) namedTables() map[string]dumpedTable {
	if s.byName != nil {
		return s.byName
	}
	return s.findTables()
}

// findTables finds what namedTables returns, once, when the store is
// made.
func (s *Store) findTables() map[string]dumpedTable {
	out := map[string]dumpedTable{}
	var walk func(v reflect.Value)
	walk = func(v reflect.Value) {
		for i := range v.NumField() {
			f, fv := v.Type().Field(i), v.Field(i)
			switch {
			case f.Anonymous && f.IsExported() && f.Type.Kind() == reflect.Struct:
				walk(fv)
			case !f.IsExported() || fv.Kind() != reflect.Pointer || fv.IsNil():
			default:
				if t, ok := fv.Interface().(dumpedTable); ok {
					out[SnakeCase(f.Name)] = t
				}
			}
		}
	}
	walk(reflect.ValueOf(s).Elem())
	return out
}

// SnakeCase returns a Go field name in snake case: "SMSMessages" is
// "sms_messages", "ApprovalRequests" "approval_requests".
func SnakeCase(name string) string {
	var b strings.Builder
	rs := []rune(name)
	for i, r := range rs {
		if unicode.IsUpper(r) {
			if i > 0 && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
				b.WriteByte('_')
			}
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}

// SectionError is a Section that cannot be imported: Part is the index of
// its Part in the Plan, Path names the member (such as "tables.calls.3.ID")
// and Message says what is wrong with it. InUse reports that the member's
// value (an id, a key's hash, a phone number) is held by a record of
// another tenant.
type SectionError struct {
	Part    int
	Path    string
	Message string
	InUse   bool
}

// Error implements error.
func (e *SectionError) Error() string { return e.Path + ": " + e.Message }

// prefixed returns err with prefix before its path when it is a
// SectionError.
func prefixed(prefix string, err error) *SectionError {
	if se, ok := err.(*SectionError); ok {
		return &SectionError{Part: se.Part, Path: prefix + "." + se.Path, Message: se.Message, InUse: se.InUse}
	}
	return &SectionError{Path: prefix, Message: err.Error()}
}

// IsTenant reports whether id is the root business of a tenant.
func (s *Store) IsTenant(id string) bool {
	b, ok := s.Businesses.Get(id)
	return ok && b.Tenant == b.ID
}

// recordTenant is the tenant a record belongs to: its owner's, or for a
// message of the outbox or a key of one business, its business's (see
// scope.records).
func (s *Store) recordTenant(r Record) string {
	if m, ok := r.(*OutboxMessage); ok && m.BusinessID != "" {
		return s.TenantOf(m.BusinessID)
	}
	if k, ok := r.(*APIKey); ok && k.BusinessID != "" {
		return s.TenantOf(k.BusinessID)
	}
	return s.TenantOfOwner(r.RecordOwner())
}

// scope decides what a Section holds: the records of one tenant, or
// (tenant "") those of no tenant.
type scope struct {
	s      *Store
	tenant string
}

// has reports whether a record of tenant t belongs in the scope.
func (sc scope) has(t string) bool {
	if sc.tenant != "" {
		return t == sc.tenant
	}
	return !sc.s.IsTenant(t)
}

func (sc scope) business(id string) bool { return sc.has(sc.s.TenantOf(id)) }
func (sc scope) owner(id string) bool    { return sc.has(sc.s.TenantOfOwner(id)) }

// records returns the records of table t in the scope. The tenant of a
// record is its owner's (recordTenant) but in the outbox and the keys,
// whose records are looked at one by one.
func (sc scope) records(t dumpedTable) []Record {
	switch t.(type) {
	case *Table[*OutboxMessage], *Table[*APIKey]:
		return t.records(nil, func(r Record) bool { return sc.has(sc.s.recordTenant(r)) })
	}
	return t.records(sc.owner, nil)
}

// Export returns the records of tenant (a root business) as a Section;
// tenant "" returns the server's own records, those of no tenant.
func (s *Store) Export(tenant string) *Section {
	sec := s.ExportKeyed(tenant)
	sec.Tables = map[string]json.RawMessage{}
	for name, recs := range s.Records(tenant) {
		if recs == nil {
			recs = []Record{}
		}
		data, err := jsonview.Marshal(recs)
		if err != nil {
			panic(fmt.Sprintf("store: a %s record does not encode: %v", name, err))
		}
		sec.Tables[name] = data
	}
	return sec
}

// Records returns the records of tenant's tables by table name, as Export
// lists them: by owner, each owner's oldest first. They are the store's
// own records: do not change them.
func (s *Store) Records(tenant string) map[string][]Record {
	sc := scope{s, tenant}
	out := map[string][]Record{}
	for name, t := range s.namedTables() {
		out[name] = sc.records(t)
	}
	return out
}

// ExportKeyed returns what Export does but the tables' records (Tables is
// nil): the data kept beside the tables.
func (s *Store) ExportKeyed(tenant string) *Section {
	sc := scope{s, tenant}
	tel := s.tel()
	sec := &Section{
		TranscriptSinks: byBusiness(sc, s.TranscriptSinks),
		ApprovalSecrets: map[string]string{},
		Assistants:      map[string]*Assistant{},
		Signups:         byBusiness(sc, s.Signups),
		ClientsByRef:    map[string]string{},
		SDRConfigs:      byBusiness(sc, s.SDRConfigs),
		SDRLeads:        map[string]*SDRLead{},
		Minutes:         byBusiness(sc, tel.minutes),
		DoNotCall:       map[string][]string{},
		Consent:         byBusiness(sc, tel.consent),
	}
	s.Deliveries.Each(func(d *Delivery) bool {
		if sc.has(d.Tenant) {
			sec.Deliveries = append(sec.Deliveries, d)
		}
		return true
	})
	for _, id := range slices.Sorted(maps.Keys(s.EmergencyAddresses)) {
		if a := s.EmergencyAddresses[id]; sc.business(a.BusinessID) {
			sec.EmergencyAddresses = append(sec.EmergencyAddresses, EmergencyAddressEntry{NumberID: id, BusinessID: a.BusinessID, Address: a})
		}
	}
	for k, v := range s.ApprovalSecrets {
		if user, _, _ := strings.Cut(k, "\x00"); sc.owner(user) {
			sec.ApprovalSecrets[k] = v
		}
	}
	if tenant == "" {
		// The server's: the assistants of no agent.
		used := assistantsOf(s.Agents.records(nil, nil))
		for id, a := range s.Assistants {
			if !used[id] {
				sec.Assistants[id] = a
			}
		}
	} else {
		for id := range assistantsOf(sc.records(s.Agents)) {
			if a, ok := s.Assistants[id]; ok {
				sec.Assistants[id] = a
			}
		}
	}
	for _, tok := range slices.Sorted(maps.Keys(s.MagicLinks)) {
		if l := s.MagicLinks[tok]; sc.owner(l.UserID) {
			sec.MagicLinks = append(sec.MagicLinks, l)
		}
	}
	for k, v := range s.ClientsByRef {
		if sc.business(v) {
			sec.ClientsByRef[k] = v
		}
	}
	if tenant == "" {
		// The server's: the states of no lead.
		for id, v := range s.SDRLeads {
			if _, ok := s.Leads.Get(id); !ok {
				sec.SDRLeads[id] = v
			}
		}
	} else {
		for _, l := range sc.records(s.Leads) {
			if v, ok := s.SDRLeads[l.RecordID()]; ok {
				sec.SDRLeads[l.RecordID()] = v
			}
		}
	}
	for id, set := range tel.dnc {
		if id == "" && tenant == "" || id != "" && sc.business(id) {
			sec.DoNotCall[id] = slices.Sorted(maps.Keys(set))
		}
	}
	if tenant == "" {
		sec.NextNumber = s.NextNumber
		sec.ReferralCodes = maps.Clone(s.ReferralCodes)
		sec.SDRCronSecret = s.SDRCronSecret
	}
	return sec
}

// byBusiness returns the entries of m, kept by business id, of the
// businesses of the scope.
func byBusiness[V any](sc scope, m map[string]V) map[string]V {
	out := map[string]V{}
	for id, v := range m {
		if sc.business(id) {
			out[id] = v
		}
	}
	return out
}

// assistantsOf returns the voice provider's assistants of agents, by id.
func assistantsOf(agents []Record) map[string]bool {
	out := make(map[string]bool, len(agents))
	for _, r := range agents {
		out[r.(*Agent).VendorAssistantID] = true
	}
	return out
}

// CopyRecords returns a copy of recs (as Records returns them): new
// records whose every string (a map's keys too) is str of the original's,
// and every byte slice (JSON such as an event's data) text of the
// original's. A copy shares nothing with its original. It is how a tenant
// is copied with new ids without a round trip through JSON.
func CopyRecords(recs map[string][]Record, str func(string) string, text func([]byte) []byte) map[string][]Record {
	c := copier{str: str, text: text}
	out := make(map[string][]Record, len(recs))
	for name, list := range recs {
		cp := make([]Record, len(list))
		for i, r := range list {
			cp[i] = c.value(reflect.ValueOf(r)).Interface().(Record)
		}
		out[name] = cp
	}
	return out
}

// copier makes deep copies of records, passing their strings through str
// and their byte slices through text.
type copier struct {
	str  func(string) string
	text func([]byte) []byte
}

var timeType = reflect.TypeFor[time.Time]()

// exported holds exportedFields' answers by struct type.
var exported sync.Map // reflect.Type -> []int

// exportedFields returns the indexes of the exported fields of struct type
// t.
func exportedFields(t reflect.Type) []int {
	if f, ok := exported.Load(t); ok {
		return f.([]int)
	}
	var out []int
	for i := range t.NumField() {
		if t.Field(i).IsExported() {
			out = append(out, i)
		}
	}
	exported.Store(t, out)
	return out
}

// value returns a deep copy of v.
func (c copier) value(v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.String:
		if n := c.str(v.String()); n != v.String() {
			return reflect.ValueOf(n).Convert(v.Type())
		}
		return v
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type().Elem())
		out.Elem().Set(c.value(v.Elem()))
		return out
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(c.value(v.Elem()))
		return out
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return reflect.ValueOf(c.text(bytes.Clone(v.Bytes()))).Convert(v.Type())
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(c.value(v.Index(i)))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(c.value(it.Key()), c.value(it.Value()))
		}
		return out
	case reflect.Array:
		out := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			out.Index(i).Set(c.value(v.Index(i)))
		}
		return out
	case reflect.Struct:
		if v.Type() == timeType {
			return v
		}
		out := reflect.New(v.Type()).Elem()
		out.Set(v) // the unexported fields as they are
		for _, i := range exportedFields(v.Type()) {
			out.Field(i).Set(c.value(v.Field(i)))
		}
		return out
	}
	return v // numbers and booleans
}

// Remove drops every record of tenant (a root business), as Export(tenant)
// would list them, and its idempotency records, with the indexes the store
// derives from them.
func (s *Store) Remove(tenant string) {
	s.sch.mustWrite("Remove")
	s.remove(tenant)
}

// remove is Remove without the write guard.
func (s *Store) remove(tenant string) {
	sc := scope{s, tenant}
	// Every record is found before any is dropped: a record's tenant is
	// found through its businesses.
	type found struct {
		t    dumpedTable
		recs []Record
	}
	var drop []found
	for _, t := range s.namedTables() {
		drop = append(drop, found{t, sc.records(t)})
	}
	assistants := assistantsOf(sc.records(s.Agents))
	var idem []Record
	if tenant != "" {
		idem = s.idempotency.records(func(owner string) bool { return s.TenantOfOwner(owner) == tenant }, nil)
	}
	for _, r := range idem {
		s.idempotency.dropRecord(r)
	}
	if tenant != "" {
		s.idempotency.forgetGroup(tenant)
	}
	for _, f := range drop {
		for _, r := range f.recs {
			s.unindex(r)
			f.t.dropRecord(r)
		}
		if tenant != "" {
			f.t.forgetGroup(tenant)
		}
	}
	s.Deliveries.Remove(func(d *Delivery) bool { return d.Tenant == tenant })
	// The businesses are gone: what is keyed by them goes by id.
	gone := func(businessID string) bool { _, ok := s.Businesses.Get(businessID); return !ok }
	maps.DeleteFunc(s.EmergencyAddresses, func(_ string, a *EmergencyAddress) bool { return gone(a.BusinessID) })
	maps.DeleteFunc(s.TranscriptSinks, func(id string, _ *TranscriptSink) bool { return gone(id) })
	maps.DeleteFunc(s.Signups, func(id string, _ *SignupRecord) bool { return gone(id) })
	maps.DeleteFunc(s.ClientsByRef, func(_, id string) bool { return gone(id) })
	maps.DeleteFunc(s.SDRConfigs, func(id string, _ *SDRConfig) bool { return gone(id) })
	maps.DeleteFunc(s.SDRLeads, func(id string, _ *SDRLead) bool { _, ok := s.Leads.Get(id); return !ok })
	tel := s.tel()
	maps.DeleteFunc(tel.minutes, func(id string, _ int) bool { return gone(id) })
	maps.DeleteFunc(tel.dnc, func(id string, _ map[string]bool) bool { return id != "" && gone(id) })
	maps.DeleteFunc(tel.consent, func(id string, _ map[string]string) bool { return gone(id) })
	maps.DeleteFunc(s.ApprovalSecrets, func(k, _ string) bool { user, _, _ := strings.Cut(k, "\x00"); return !s.userKnown(user) })
	maps.DeleteFunc(s.MagicLinks, func(_ string, l *MagicLink) bool { return !s.userKnown(l.UserID) })
	for id := range assistants {
		delete(s.Assistants, id)
	}
}

func (s *Store) userKnown(id string) bool { _, ok := s.Users.Get(id); return ok }

// index adds r to the indexes the store derives from records.
func (s *Store) index(r Record) {
	switch r := r.(type) {
	case *User:
		if _, ok := s.UsersByEmail[r.Email]; !ok && r.Email != "" {
			s.UsersByEmail[r.Email] = r
		}
	case *Business:
		if r.Tenant == r.ID {
			s.tenants = append(s.tenants, r.ID)
		}
		for _, userID := range slices.Sorted(maps.Keys(r.Members)) {
			s.userBusinesses[userID] = append(s.userBusinesses[userID], r.ID)
		}
		if r.PartnerID != "" {
			s.partnerBusinesses[r.PartnerID] = append(s.partnerBusinesses[r.PartnerID], r.ID)
		}
	case *GovernedUpdate:
		if r.IdempotencyKey != "" {
			s.GovernedByKey[r.Owner+"\x00"+r.IdempotencyKey] = r
		}
	case *Installation:
		s.InstallationByBusiness[r.BusinessID] = r
	}
}

// unindex takes r out of the indexes the store derives from records.
func (s *Store) unindex(r Record) {
	switch r := r.(type) {
	case *User:
		if s.UsersByEmail[r.Email] == r {
			delete(s.UsersByEmail, r.Email)
		}
	case *Business:
		s.tenants = without(s.tenants, r.ID)
		for userID := range r.Members {
			withoutIn(s.userBusinesses, userID, r.ID)
		}
		if r.PartnerID != "" {
			withoutIn(s.partnerBusinesses, r.PartnerID, r.ID)
		}
	case *GovernedUpdate:
		if k := r.Owner + "\x00" + r.IdempotencyKey; s.GovernedByKey[k] == r {
			delete(s.GovernedByKey, k)
		}
	case *Installation:
		if s.InstallationByBusiness[r.BusinessID] == r {
			delete(s.InstallationByBusiness, r.BusinessID)
		}
	}
}

// withoutIn takes id out of m[key] (without), and key out of m when no id
// is left, so that removed tenants leave no entries behind.
func withoutIn(m map[string][]string, key, id string) {
	if ids := without(m[key], id); ids != nil {
		m[key] = ids
	} else {
		delete(m, key)
	}
}

// without returns ids without id, as a new slice when id is in it (the
// store hands its slices out and never changes one in place).
func without(ids []string, id string) []string {
	i := slices.Index(ids, id)
	if i < 0 {
		return ids
	}
	out := append(ids[:i:i], ids[i+1:]...)
	if len(out) == 0 {
		return nil
	}
	return out
}
