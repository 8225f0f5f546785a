package store

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
)

// Part is one part of what a Plan puts in the store: the records of one
// tenant, or the records of no tenant (a whole server's).
type Part struct {
	// Tenant is the tenant's root business; "" for the records of no
	// tenant.
	Tenant string
	// Section holds the part's records (in its Tables, unless Records is
	// set) and the data kept beside them.
	Section *Section
	// Records are the records of Section's tables already decoded, by
	// table name (a copy's, CopyRecords); nil: Section.Tables is decoded.
	Records map[string][]Record
	// Originals maps the id of each record of a copy to its original's
	// (nil: the part is no copy). A copy's business lists whom its
	// original lists.
	Originals map[string]string
}

// Plan is a checked import: parts that replace what the store holds of
// their tenants (or are added), checked against the store as it will be,
// that is the store without the tenants replaced, plus the parts. Apply
// makes the change, on the store as Plan checked it: a write between the
// two makes Apply panic.
type Plan struct {
	s *Store
	// writes is the store's count of writes when it was checked.
	writes uint64
	parts  []Part
	recs   []map[string][]Record
	// replaced holds the tenants the parts replace ("": the records of no
	// tenant, with a part of them).
	replaced map[string]bool
	// ids and values find the parts' records by table and id, and by
	// table, unique field and value.
	ids    map[string]map[string]held
	values map[string]map[any]held
	// deliveries finds the parts' deliveries by id.
	deliveries map[string]int
	// server reports whether a part holds the records of no tenant (a
	// whole server's document).
	server  bool
	applied bool
}

// held is where a Plan's part holds a record: the part and the record.
type held struct {
	part int
	rec  Record
}

// Plan checks parts, to put in the store in place of what it holds of
// their tenants, against every rule of the store (unique values,
// references within a tenant, owners, times before clock.End) and returns
// the checked Plan, or a *SectionError naming the part and the member that
// breaks a rule (InUse: a value another tenant holds). Plan changes
// nothing.
func (s *Store) Plan(parts []Part) (*Plan, error) {
	p := &Plan{s: s, writes: s.sch.writes, parts: parts, replaced: map[string]bool{}, ids: map[string]map[string]held{},
		values: map[string]map[any]held{}, deliveries: map[string]int{}}
	tables := s.namedTables()
	for i, pt := range parts {
		switch {
		case pt.Tenant == "":
			p.server = true
			p.replaced[""] = true
		case s.IsTenant(pt.Tenant):
			p.replaced[pt.Tenant] = true
		}
		recs := pt.Records
		if recs == nil {
			recs = map[string][]Record{}
			for _, name := range slices.Sorted(maps.Keys(pt.Section.Tables)) {
				t, ok := tables[name]
				if !ok {
					return nil, p.fail(i, "tables."+name, "is not a table of this server")
				}
				decoded, err := t.decode(pt.Section.Tables[name])
				if err != nil {
					se := prefixed("tables."+name, err)
					se.Part = i
					return nil, se
				}
				recs[name] = decoded
			}
		}
		for _, name := range slices.Sorted(maps.Keys(recs)) {
			if _, ok := tables[name]; !ok {
				return nil, p.fail(i, "tables."+name, "is not a table of this server")
			}
		}
		p.recs = append(p.recs, recs)
	}
	for _, check := range []func() *SectionError{p.checkIDs, p.checkValues, p.checkOwners, p.checkReferences, p.checkMembers, p.checkKeyed} {
		if err := check(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// fail returns the error of part i's member at path.
func (p *Plan) fail(i int, path, format string, args ...any) *SectionError {
	return &SectionError{Part: i, Path: path, Message: fmt.Sprintf(format, args...)}
}

// inUse returns the error of part i's member at path whose value another
// tenant holds.
func (p *Plan) inUse(i int, path, format string, args ...any) *SectionError {
	e := p.fail(i, path, format, args...)
	e.InUse = true
	return e
}

// each calls fn for every record of every part: its part, table, index
// and the record, parts in order, tables by name, records in order, until
// fn returns an error.
func (p *Plan) each(fn func(i int, table string, j int, r Record) *SectionError) *SectionError {
	for i, recs := range p.recs {
		for _, name := range slices.Sorted(maps.Keys(recs)) {
			for j, r := range recs[name] {
				if err := fn(i, name, j, r); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// kept reports whether a record of the store (of tenant t, "" none) stays
// once the plan is applied: its tenant is not replaced.
func (p *Plan) kept(t string) bool { return !p.replaced[t] }

// checkIDs refuses a record without an id or an owner, created at a time
// a clock may not show, whose id a record of its table holds in the part
// (400), in another part or in the store once the tenants are replaced
// (409).
func (p *Plan) checkIDs() *SectionError {
	return p.each(func(i int, table string, j int, r Record) *SectionError {
		path := func(field string) string { return fmt.Sprintf("tables.%s.%d%s", table, j, field) }
		if r.RecordID() == "" || r.RecordOwner() == "" {
			return p.fail(i, path(""), "needs an ID and an Owner")
		}
		if err := clock.CheckTime(r.RecordCreated()); err != nil {
			return p.fail(i, path(".CreatedAt"), "%v", err)
		}
		ids := p.ids[table]
		if ids == nil {
			ids = map[string]held{}
			p.ids[table] = ids
		}
		id := r.RecordID()
		if h, ok := ids[id]; ok {
			if h.part == i {
				return p.fail(i, path(".ID"), "id %s is repeated in the table", id)
			}
			return p.inUse(i, path(".ID"), "id %s is in use by another tenant of the document", id)
		}
		ids[id] = held{i, r}
		if cur, ok := p.s.byName[table].getRecord(id); ok && p.kept(p.s.tenantOfRecord(cur)) {
			return p.inUse(i, path(".ID"), "id %s is in use", id)
		}
		return nil
	})
}

// checkValues refuses a record whose value of a unique index (a key's
// hash, a session's token, a phone number) another record holds: in the
// part (400), in another part or in the store once the tenants are
// replaced (409).
func (p *Plan) checkValues() *SectionError {
	rules := map[string][]uniqueRule{}
	for name, t := range p.s.byName {
		if u := t.uniqueRules(); len(u) > 0 {
			rules[name] = u
		}
	}
	return p.each(func(i int, table string, j int, r Record) *SectionError {
		for _, u := range rules[table] {
			v, ok := u.valueOf(r)
			if !ok {
				continue
			}
			name := table + "." + u.field()
			values := p.values[name]
			if values == nil {
				values = map[any]held{}
				p.values[name] = values
			}
			path := fmt.Sprintf("tables.%s.%d.%s", table, j, u.field())
			if h, dup := values[v]; dup {
				if h.part == i {
					return p.fail(i, path, "%s %s is repeated in the table", u.field(), shown(v))
				}
				return p.inUse(i, path, "%s %s is in use by another tenant of the document", u.field(), shown(v))
			}
			values[v] = held{i, r}
			if cur, ok := u.holder(v); ok && p.kept(p.s.tenantOfRecord(cur)) {
				return p.inUse(i, path, "%s %s is in use", u.field(), shown(v))
			}
		}
		return nil
	})
}

// shown is a unique value as an error shows it: a hash as the start of its
// hex.
func shown(v any) string {
	if h, ok := v.([32]byte); ok {
		return fmt.Sprintf("%x...", h[:4])
	}
	return fmt.Sprint(v)
}

// find implements world for the store as it will be: a part's record, or
// one of the store that stays.
func (p *Plan) find(table, by, value string) (Record, string, bool) {
	var h held
	var ok bool
	if by == "" {
		h, ok = p.ids[table][value]
	} else {
		h, ok = p.values[table+"."+by][value]
	}
	if ok {
		return h.rec, p.parts[h.part].Tenant, true
	}
	rec, t, ok := p.s.find(table, by, value)
	if !ok || !p.kept(t) {
		return nil, "", false
	}
	return rec, t, true
}

// TenantOf returns the tenant of the record with the id in any table (or
// the delivery log) once the plan is applied ("" a record of no tenant),
// and whether there is one: what a task's subject names.
func (p *Plan) TenantOf(id string) (string, bool) {
	if i, ok := p.deliveries[id]; ok {
		return p.parts[i].Tenant, true
	}
	for _, name := range p.s.names {
		if _, t, ok := p.find(name, "", id); ok {
			return t, true
		}
	}
	if d, ok := p.s.Deliveries.Get(id); ok {
		if t := p.deliveryTenant(d); p.kept(t) {
			return t, true
		}
	}
	return "", false
}

// HasUser reports whether part i holds the user with the id.
func (p *Plan) HasUser(i int, id string) bool {
	h, ok := p.ids["users"][id]
	return ok && h.part == i
}

// deliveryTenant is the tenant of a delivery of the store ("" none).
func (p *Plan) deliveryTenant(d *Delivery) string {
	if p.s.IsTenant(d.Tenant) {
		return d.Tenant
	}
	return ""
}

// checkOwners refuses a tenant's part holding a record of another tenant
// or of no tenant: its root business must be a business of the part that
// is its own tenant, every business must be of the tenant, and every
// record owned by one of the part's businesses or users (a key or an
// outbox message of one business: by that business).
func (p *Plan) checkOwners() *SectionError {
	for i, pt := range p.parts {
		if pt.Tenant == "" {
			continue
		}
		recs := p.recs[i]
		owners := map[string]bool{}
		root := false
		for j, r := range recs["businesses"] {
			b := r.(*Business)
			if b.Tenant != pt.Tenant {
				return p.fail(i, fmt.Sprintf("tables.businesses.%d.Tenant", j), "must be the tenant's root business %s", pt.Tenant)
			}
			root = root || b.ID == pt.Tenant
			owners[b.ID] = true
		}
		if !root {
			return p.fail(i, "business_id", "must be a business of tables.businesses that is its own tenant")
		}
		for _, r := range recs["users"] {
			owners[r.RecordID()] = true
		}
		for _, name := range slices.Sorted(maps.Keys(recs)) {
			for j, r := range recs[name] {
				owner := r.RecordOwner()
				if m, ok := r.(*OutboxMessage); ok && m.BusinessID != "" {
					owner = m.BusinessID
				}
				if k, ok := r.(*APIKey); ok && k.BusinessID != "" {
					owner = k.BusinessID // a member's key for one of the tenant's businesses
				}
				if !owners[owner] {
					return p.fail(i, fmt.Sprintf("tables.%s.%d.Owner", name, j), "%s is none of the tenant's businesses and users", owner)
				}
			}
		}
	}
	return nil
}

// checkReferences refuses a record naming a record of another tenant (see
// references).
func (p *Plan) checkReferences() *SectionError {
	return p.each(func(i int, table string, j int, r Record) *SectionError {
		if field, v, broken := brokenReference(p, references[table], r, p.parts[i].Tenant); broken {
			return p.fail(i, fmt.Sprintf("tables.%s.%d.%s", table, j, field), "%s is a record of another tenant", v)
		}
		return nil
	})
}

// checkMembers refuses a business whose owner or member is a user of
// another tenant, unless the business lists the user already (a member
// an agency assigned, the owner of an account made for a registered
// email, restored as it was, or copied: a copy lists whom its original
// lists) or the document is a whole server's holding that tenant too: a
// document never gives a user a business of a tenant it does not hold.
func (p *Plan) checkMembers() *SectionError {
	return p.each(func(i int, table string, j int, r Record) *SectionError {
		if table != "businesses" {
			return nil
		}
		b := r.(*Business)
		users := slices.Sorted(maps.Keys(b.Members))
		if b.OwnerUserID != "" && b.Members[b.OwnerUserID] == "" {
			users = append(users, b.OwnerUserID)
		}
		for _, u := range users {
			_, t, ok := p.find("users", "", u)
			if !ok || t == "" || t == p.parts[i].Tenant {
				continue
			}
			id := b.ID
			if orig, ok := p.parts[i].Originals[id]; ok {
				id = orig
			}
			if cur, ok := p.s.Businesses.Get(id); ok && (cur.Members[u] != "" || cur.OwnerUserID == u) {
				continue
			}
			if p.server && p.holds(t) {
				continue
			}
			field := "Members"
			if u == b.OwnerUserID {
				field = "OwnerUserID"
			}
			return p.fail(i, fmt.Sprintf("tables.businesses.%d.%s", j, field), "%s is a user of another tenant", u)
		}
		return nil
	})
}

// holds reports whether a part is tenant t's.
func (p *Plan) holds(t string) bool {
	return slices.ContainsFunc(p.parts, func(pt Part) bool { return pt.Tenant == t })
}

// checkKeyed checks the data kept beside the tables: deliveries, emergency
// addresses, magic links, assistants, entries kept by business, user or
// lead, the server's own data, and the bound of pending script steps.
func (p *Plan) checkKeyed() *SectionError {
	for i, pt := range p.parts {
		for _, check := range []func(int, Part) *SectionError{p.checkPendingSteps, p.checkDeliveries, p.checkByNumber, p.checkLinks, p.checkAssistants, p.checkByOwner, p.checkServerData} {
			if err := check(i, pt); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkPendingSteps refuses a part whose script holds more than
// MaxPendingSteps pending steps, naming the first step beyond the bound:
// a restore meets the bound POST /_mock/scripts meets.
func (p *Plan) checkPendingSteps(i int, _ Part) *SectionError {
	n := 0
	for j, r := range p.recs[i]["scripts"] {
		st, ok := r.(*ScriptStep)
		if !ok || !st.Pending() {
			continue
		}
		if n++; n > MaxPendingSteps {
			return p.fail(i, fmt.Sprintf("tables.scripts.%d", j), "is pending step %d of the tenant's script: a tenant holds at most %d", n, MaxPendingSteps)
		}
	}
	return nil
}

// checkDeliveries refuses a delivery without an id, whose id another
// holds, of another tenant's business, or naming a record of another
// tenant.
func (p *Plan) checkDeliveries(i int, pt Part) *SectionError {
	tenant := pt.Tenant
	businesses := p.businessesOf(i)
	for j, d := range pt.Section.Deliveries {
		path := fmt.Sprintf("deliveries.%d", j)
		switch {
		case d == nil || d.ID == "":
			return p.fail(i, path, "needs an ID")
		case tenant != "" && (d.Tenant != tenant || !businesses[d.BusinessID]):
			return p.fail(i, path+".BusinessID", "must be a business of the tenant")
		}
		if err := clock.CheckTime(d.CreatedAt); err != nil {
			return p.fail(i, path+".CreatedAt", "%v", err)
		}
		if k, ok := p.deliveries[d.ID]; ok {
			if k == i {
				return p.fail(i, path+".ID", "id %s is repeated in the deliveries", d.ID)
			}
			return p.inUse(i, path+".ID", "id %s is in use by another tenant of the document", d.ID)
		}
		p.deliveries[d.ID] = i
		if cur, ok := p.s.Deliveries.Get(d.ID); ok && p.kept(p.deliveryTenant(cur)) {
			return p.inUse(i, path+".ID", "id %s is in use", d.ID)
		}
		for _, rf := range deliveryReferences {
			v := rf.get(d)
			if v == "" {
				continue
			}
			if _, t, ok := p.find(rf.tables[0], "", v); ok && t != "" && t != tenant {
				return p.fail(i, path+"."+rf.field, "%s is a record of another tenant", v)
			}
		}
	}
	return nil
}

// businessesOf returns the ids of part i's businesses.
func (p *Plan) businessesOf(i int) map[string]bool {
	out := map[string]bool{}
	for _, r := range p.recs[i]["businesses"] {
		out[r.RecordID()] = true
	}
	return out
}

// partOwns reports whether id names a record of table in part i's tenant
// once the plan is applied: in part i, or (for the records of no tenant)
// a record of no tenant.
func (p *Plan) partOwns(i int, table, id string) bool {
	if p.parts[i].Tenant != "" {
		h, ok := p.ids[table][id]
		return ok && h.part == i
	}
	_, t, ok := p.find(table, "", id)
	return !ok || t == ""
}

// checkByNumber refuses an emergency address without a number or an
// address, of a number of another part or tenant, or whose number another
// tenant's address holds.
func (p *Plan) checkByNumber(i int, pt Part) *SectionError {
	businesses := p.businessesOf(i)
	seen := map[string]bool{}
	for j, e := range pt.Section.EmergencyAddresses {
		path := fmt.Sprintf("emergency_addresses.%d", j)
		switch {
		case e.Address == nil || e.NumberID == "":
			return p.fail(i, path, "needs a number_id and an address")
		case pt.Tenant != "" && !businesses[e.BusinessID]:
			return p.fail(i, path+".business_id", "must be a business of the tenant")
		case !p.partOwns(i, "numbers", e.NumberID):
			return p.fail(i, path+".number_id", "must be a number of the tenant")
		case seen[e.NumberID]:
			return p.fail(i, path+".number_id", "number %s has two addresses", e.NumberID)
		}
		seen[e.NumberID] = true
		if cur, ok := p.s.EmergencyAddresses[e.NumberID]; ok && p.kept(p.s.tenantOfBusiness(cur.BusinessID)) {
			return p.inUse(i, path+".number_id", "number %s has an address of another tenant", e.NumberID)
		}
	}
	return nil
}

// tenantOfBusiness is the tenant of a business of the store ("" none).
func (s *Store) tenantOfBusiness(id string) string {
	if t := s.TenantOf(id); s.IsTenant(t) {
		return t
	}
	return ""
}

// tenantOfOwner is the tenant of a record's owner (a business or a user;
// "" none).
func (s *Store) tenantOfOwner(id string) string {
	if t := s.TenantOfOwner(id); s.IsTenant(t) {
		return t
	}
	return ""
}

// checkLinks refuses a magic link without a token, whose token another
// link holds, or of a user of another part or tenant.
func (p *Plan) checkLinks(i int, pt Part) *SectionError {
	for j, l := range pt.Section.MagicLinks {
		path := fmt.Sprintf("magic_links.%d", j)
		switch {
		case l == nil || l.Token == "":
			return p.fail(i, path, "needs a Token")
		case !p.partOwns(i, "users", l.UserID):
			return p.fail(i, path+".UserID", "must be a user of the tenant")
		}
		name := "magic_links.Token"
		if p.values[name] == nil {
			p.values[name] = map[any]held{}
		}
		if h, dup := p.values[name][l.Token]; dup {
			if h.part == i {
				return p.fail(i, path+".Token", "the token is repeated in the links")
			}
			return p.inUse(i, path+".Token", "the token is in use by another tenant of the document")
		}
		p.values[name][l.Token] = held{part: i}
		if cur, ok := p.s.MagicLinks[l.Token]; ok && p.kept(p.s.tenantOfOwner(cur.UserID)) {
			return p.inUse(i, path+".Token", "the token is in use")
		}
	}
	return nil
}

// checkAssistants refuses an assistant of no agent of the part (a tenant's
// assistants are its agents') or whose id another tenant's holds.
func (p *Plan) checkAssistants(i int, pt Part) *SectionError {
	for _, id := range slices.Sorted(maps.Keys(pt.Section.Assistants)) {
		path := "assistants." + id
		if pt.Section.Assistants[id] == nil {
			return p.fail(i, path, "must be an assistant, not null")
		}
		h, ok := p.values["agents.VendorAssistantID"][id]
		if pt.Tenant != "" && (!ok || h.part != i) {
			return p.fail(i, path, "is the assistant of no agent of the tenant")
		}
		if ok && h.part != i {
			return p.inUse(i, path, "is the assistant of an agent of another tenant of the document")
		}
		if _, taken := p.s.Assistants[id]; taken {
			t := ""
			if a, ok := p.s.agentsByAssistant[id]; ok {
				t = p.s.tenantOfRecord(a)
			}
			if p.kept(t) {
				return p.inUse(i, path, "the assistant's id is in use")
			}
		}
	}
	return nil
}

// checkByOwner checks the entries kept by business, user or lead: a
// tenant's are its own; the server's name no tenant's record.
func (p *Plan) checkByOwner(i int, pt Part) *SectionError {
	sec := pt.Section
	byTable := []struct {
		member string
		table  string
		keys   []string
	}{
		{"transcript_sinks", "businesses", slices.Sorted(maps.Keys(sec.TranscriptSinks))},
		{"signups", "businesses", slices.Sorted(maps.Keys(sec.Signups))},
		{"sdr_configs", "businesses", slices.Sorted(maps.Keys(sec.SDRConfigs))},
		{"minutes", "businesses", slices.Sorted(maps.Keys(sec.Minutes))},
		{"do_not_call", "businesses", slices.Sorted(maps.Keys(sec.DoNotCall))},
		{"consent", "businesses", slices.Sorted(maps.Keys(sec.Consent))},
		{"sdr_leads", "leads", slices.Sorted(maps.Keys(sec.SDRLeads))},
	}
	for _, m := range byTable {
		for _, id := range m.keys {
			if pt.Tenant == "" && m.member == "do_not_call" && id == "" {
				continue // the national registry
			}
			if !p.partOwns(i, m.table, id) {
				what := map[string]string{"businesses": "a business", "leads": "a lead"}[m.table]
				return p.fail(i, m.member+"."+id, "must be %s of the tenant", what)
			}
		}
	}
	for _, k := range slices.Sorted(maps.Keys(sec.ApprovalSecrets)) {
		if user, _, _ := strings.Cut(k, "\x00"); !p.partOwns(i, "users", user) {
			return p.fail(i, "approval_secrets."+strings.ReplaceAll(k, "\x00", "/"), "must be a secret of a user of the tenant")
		}
	}
	for _, k := range slices.Sorted(maps.Keys(sec.ClientsByRef)) {
		path := "clients_by_ref." + strings.ReplaceAll(k, "\x00", "/")
		if !p.partOwns(i, "businesses", sec.ClientsByRef[k]) {
			return p.fail(i, path, "must be a business of the tenant")
		}
		name := "clients_by_ref"
		if p.values[name] == nil {
			p.values[name] = map[any]held{}
		}
		if _, dup := p.values[name][k]; dup {
			return p.inUse(i, path, "the client reference is in use by another tenant of the document")
		}
		p.values[name][k] = held{part: i}
		if cur, ok := p.s.ClientsByRef[k]; ok && p.kept(p.s.tenantOfBusiness(cur)) {
			return p.inUse(i, path, "the client reference is in use")
		}
	}
	return nil
}

// checkServerData refuses the server's own data (the number pool, the
// referral codes, the runner's secret) in a tenant's part.
func (p *Plan) checkServerData(i int, pt Part) *SectionError {
	if pt.Tenant == "" {
		return nil
	}
	switch sec := pt.Section; {
	case sec.NextNumber != 0:
		return p.fail(i, "next_number", "is the server's: a tenant's section has none")
	case len(sec.ReferralCodes) > 0:
		return p.fail(i, "referral_codes", "are the server's: a tenant's section has none")
	case sec.SDRCronSecret != "":
		return p.fail(i, "sdr_cron_secret", "is the server's: a tenant's section has none")
	case sec.DoNotCall[""] != nil:
		return p.fail(i, "do_not_call.", "the national registry is the server's")
	}
	return nil
}

// Apply changes the store as the plan says: it removes what the store
// holds of the parts' tenants and puts the parts in. A replaced tenant
// keeps its place among the tenants (Tenants); a new one comes last.
// Apply panics when called twice, through a read Tx, or when the store
// was written since Plan.
func (p *Plan) Apply() {
	s := p.s
	switch {
	case p.applied:
		panic("store: a Plan applied twice")
	case s.sch.writes != p.writes:
		panic("store: the store was written between Plan and Apply: plan again")
	}
	s.sch.mustWrite("Apply")
	p.applied = true
	order := slices.Clone(s.tenants)
	emails := map[string]string{} // email -> the id of the user that held it
	for t := range p.replaced {
		for _, r := range (scope{s, t}).records(s.Users) {
			if u := r.(*User); u.Email != "" && s.UsersByEmail[u.Email] == u {
				emails[u.Email] = u.ID
			}
		}
	}
	for _, pt := range p.parts {
		if p.replaced[pt.Tenant] {
			s.remove(pt.Tenant)
		}
	}
	for i := range p.parts {
		p.put(i)
	}
	p.indexEmails(emails)
	for i, pt := range p.parts {
		if pt.Tenant != "" {
			for _, u := range p.recs[i]["users"] {
				s.homeFirst(u.RecordID(), pt.Tenant)
			}
		}
	}
	kept := make([]string, 0, len(s.tenants))
	for _, id := range order {
		if s.IsTenant(id) {
			kept = append(kept, id)
		}
	}
	for _, id := range s.tenants {
		if !slices.Contains(order, id) {
			kept = append(kept, id)
		}
	}
	s.tenants = kept
}

// put puts part i's records and data in the store.
func (p *Plan) put(i int) {
	s, sec := p.s, p.parts[i].Section
	tables := s.namedTables()
	recs := p.recs[i]
	// Businesses first, so the others' stamp groups are their tenants.
	names := slices.Sorted(maps.Keys(recs))
	slices.SortStableFunc(names, func(a, b string) int { return boolRank(b == "businesses") - boolRank(a == "businesses") })
	for _, name := range names {
		for _, r := range recs[name] {
			tables[name].putRecord(r)
			s.index(r)
		}
	}
	for _, d := range sec.Deliveries {
		s.Deliveries.Add(d)
	}
	for _, e := range sec.EmergencyAddresses {
		e.Address.NumberID, e.Address.BusinessID = e.NumberID, e.BusinessID
		s.EmergencyAddresses[e.NumberID] = e.Address
	}
	maps.Copy(s.TranscriptSinks, sec.TranscriptSinks)
	maps.Copy(s.ApprovalSecrets, sec.ApprovalSecrets)
	maps.Copy(s.Assistants, sec.Assistants)
	for _, l := range sec.MagicLinks {
		s.MagicLinks[l.Token] = l
	}
	maps.Copy(s.Signups, sec.Signups)
	maps.Copy(s.ClientsByRef, sec.ClientsByRef)
	maps.Copy(s.SDRConfigs, sec.SDRConfigs)
	maps.Copy(s.SDRLeads, sec.SDRLeads)
	tel := s.tel()
	maps.Copy(tel.minutes, sec.Minutes)
	for id, numbers := range sec.DoNotCall {
		set := tel.dnc[id]
		if set == nil {
			set = map[string]bool{}
			tel.dnc[id] = set
		}
		for _, n := range numbers {
			set[n] = true
		}
	}
	for id, v := range sec.Consent {
		tel.consent[id] = maps.Clone(v)
	}
	s.NextNumber = max(s.NextNumber, sec.NextNumber)
	maps.Copy(s.ReferralCodes, sec.ReferralCodes)
	if sec.SDRCronSecret != "" {
		s.SDRCronSecret = sec.SDRCronSecret
	}
}

// indexEmails gives the parts' users their emails in UsersByEmail: first
// the users that held them before (held: email to user id), then the
// others, each where no user holds the email. A user restored never takes
// an email over from a user of another tenant.
func (p *Plan) indexEmails(held map[string]string) {
	s := p.s
	var rest []*User
	for i := range p.parts {
		for _, r := range p.recs[i]["users"] {
			u := r.(*User)
			if u.Email == "" {
				continue
			}
			if held[u.Email] == u.ID {
				s.UsersByEmail[u.Email] = u
			} else {
				rest = append(rest, u)
			}
		}
	}
	for _, u := range rest {
		if _, ok := s.UsersByEmail[u.Email]; !ok {
			s.UsersByEmail[u.Email] = u
		}
	}
}

// homeFirst puts the businesses of tenant first among a user's, keeping
// their order: a user's tenant is its first business's (TenantOfOwner),
// and a user of tenant restored stays the tenant's whatever other
// tenants' businesses list it.
func (s *Store) homeFirst(userID, tenant string) {
	ids := s.userBusinesses[userID]
	if len(ids) < 2 || s.TenantOf(ids[0]) == tenant {
		return
	}
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if s.TenantOf(id) == tenant {
			out = append(out, id)
		}
	}
	for _, id := range ids {
		if s.TenantOf(id) != tenant {
			out = append(out, id)
		}
	}
	s.userBusinesses[userID] = out
}

// Import puts sec, a Section of Export(tenant), in the store in place of
// what it holds of tenant ("" the records of no tenant): Plan and Apply
// of one part. It returns Plan's error and changes nothing then.
func (s *Store) Import(sec *Section, tenant string) error {
	p, err := s.Plan([]Part{{Tenant: tenant, Section: sec}})
	if err != nil {
		return err
	}
	p.Apply()
	return nil
}

func boolRank(b bool) int {
	if b {
		return 1
	}
	return 0
}
