package identity

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// The snapshot document's format name and version. A document of another
// format or version is refused; a change that older documents cannot be
// read by makes a new version.
const (
	SnapshotFormat  = "voiceagent-mock-snapshot"
	SnapshotVersion = 1
)

// Snapshot is the snapshot document (GET /_mock/snapshot): every record of
// some tenants, their clocks and their pending work, and for a whole server
// its own records and base time.
type Snapshot struct {
	Format  string `json:"format"`
	Version int    `json:"version"`
	// TakenAt is the tenant's time for a tenant's snapshot, the base time
	// for a whole server's.
	TakenAt time.Time        `json:"taken_at"`
	Tenants []TenantSnapshot `json:"tenants"`
	// Server holds what belongs to no tenant; only a whole server's
	// snapshot has it.
	Server *ServerSnapshot `json:"server,omitempty"`
}

// TenantSnapshot is one tenant in a snapshot: its root business, its time,
// its pending work, its idempotency records and its records.
type TenantSnapshot struct {
	BusinessID  string                      `json:"business_id"`
	Now         time.Time                   `json:"now"`
	Tasks       []admin.ScheduledTask       `json:"tasks"`
	Idempotency []httpapi.IdempotencyRecord `json:"idempotency"`
	store.Section
}

// ServerSnapshot is what a whole server's snapshot holds beside its
// tenants: the base clock's pending work and the records of no tenant.
type ServerSnapshot struct {
	Tasks []admin.ScheduledTask `json:"tasks"`
	// SeedAccounts are the accounts a reset provisions again (the
	// binary's demo account), with their keys: a server restored from the
	// document keeps them.
	SeedAccounts []SeedAccountState `json:"seed_accounts,omitempty"`
	store.Section
}

// SeedAccountState is a seed account in a snapshot: its options and what
// it was given.
type SeedAccountState struct {
	Options admin.AccountOptions `json:"options"`
	Account admin.Account        `json:"account"`
}

// Snapshot returns the JSON of the snapshot of the tenant owning
// businessID, or of the whole server when businessID is "": 400 for an id
// that is not a UUID, 404 for an unknown business. The document is encoded
// under the read lock: its records are the store's own, which requests
// change once the lock is released.
func (s *Service) Snapshot(businessID string) (json.RawMessage, error) {
	tx := s.ReadTx()
	defer tx.End()
	var doc *Snapshot
	if businessID == "" {
		doc = &Snapshot{Format: SnapshotFormat, Version: SnapshotVersion, TakenAt: s.Clocks.Now(""), Tenants: []TenantSnapshot{}}
		// The idempotency records are read once and sorted by tenant.
		idem := map[string][]httpapi.IdempotencyRecord{}
		for _, r := range s.httpapi.Idem.Export(tx, func(string) bool { return true }) {
			t := tx.TenantOfOwner(r.Owner)
			idem[t] = append(idem[t], r)
		}
		for _, t := range tx.Tenants() {
			doc.Tenants = append(doc.Tenants, s.tenantSnapshot(tx, t, tx.Export(t), idem[t]))
		}
		doc.Server = &ServerSnapshot{Tasks: httpapi.ScheduledTasks(s.Clocks.Base().Tasks()), Section: *tx.Export("")}
		for _, sa := range s.seeds.Get(tx) {
			doc.Server.SeedAccounts = append(doc.Server.SeedAccounts, SeedAccountState{Options: sa.opts, Account: sa.acct})
		}
	} else {
		tenant, err := httpapi.TenantIn(tx, businessID)
		if err != nil {
			return nil, err
		}
		ts := s.exportTenant(tx, tenant)
		doc = &Snapshot{Format: SnapshotFormat, Version: SnapshotVersion, TakenAt: ts.Now, Tenants: []TenantSnapshot{ts}}
	}
	return jsonview.Marshal(doc)
}

func (s *Service) exportTenant(tx *platform.Tx, tenant string) TenantSnapshot {
	return s.tenantSnapshot(tx, tenant, tx.Export(tenant), s.idempotencyOf(tx, tenant))
}

// idempotencyOf returns the finished idempotency records of tenant.
func (s *Service) idempotencyOf(tx *platform.Tx, tenant string) []httpapi.IdempotencyRecord {
	return s.httpapi.Idem.Export(tx, func(owner string) bool { return tx.TenantOfOwner(owner) == tenant })
}

// tenantSnapshot returns tenant's snapshot holding sec and its idempotency
// records idem.
func (s *Service) tenantSnapshot(tx *platform.Tx, tenant string, sec *store.Section, idem []httpapi.IdempotencyRecord) TenantSnapshot {
	c := s.Clocks.Of(tenant)
	if idem == nil {
		idem = []httpapi.IdempotencyRecord{}
	}
	return TenantSnapshot{BusinessID: tenant, Now: c.Now(), Tasks: httpapi.ScheduledTasks(c.Tasks()), Idempotency: idem, Section: *sec}
}

// CheckSnapshotHead checks that data is JSON with the format and version of
// a snapshot document this server reads: 400 invalid_request naming
// format or version otherwise.
func CheckSnapshotHead(data []byte) error {
	var head struct {
		Format  *string `json:"format"`
		Version *int    `json:"version"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return jsonError(err)
	}
	switch {
	case head.Format == nil:
		return domain.InvalidField("format", "is required: %q", SnapshotFormat)
	case *head.Format != SnapshotFormat:
		return domain.InvalidField("format", "must be %q, not %q", SnapshotFormat, *head.Format)
	case head.Version == nil:
		return domain.InvalidField("version", "is required: %d", SnapshotVersion)
	case *head.Version != SnapshotVersion:
		return domain.InvalidField("version", "%d is not a version this server reads (it reads %d)", *head.Version, SnapshotVersion)
	}
	return nil
}

// ParseSnapshot decodes and checks a snapshot document: 400 invalid_request
// naming what is wrong (error.details[].path) for JSON that is not a
// document of this format and version.
func (s *Service) ParseSnapshot(data []byte) (*Snapshot, error) {
	if err := CheckSnapshotHead(data); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	doc := &Snapshot{}
	if err := dec.Decode(doc); err != nil {
		return nil, jsonError(err)
	}
	if dec.More() {
		return nil, domain.Invalid("the document must be one JSON object")
	}
	if err := clock.CheckTime(doc.TakenAt); err != nil {
		return nil, domain.InvalidField("taken_at", "%v", err)
	}
	seen := map[string]bool{}
	for i, ts := range doc.Tenants {
		path := fmt.Sprintf("tenants.%d", i)
		switch {
		case !httpapi.IsUUID(ts.BusinessID):
			return nil, domain.InvalidField(path+".business_id", "must be a UUID")
		case seen[ts.BusinessID]:
			return nil, domain.InvalidField(path+".business_id", "names a tenant already in the document")
		case ts.Now.IsZero():
			return nil, domain.InvalidField(path+".now", "is required")
		}
		if err := clock.CheckTime(ts.Now); err != nil {
			return nil, domain.InvalidField(path+".now", "%v", err)
		}
		seen[ts.BusinessID] = true
		if err := s.checkTasks(path, ts.Tasks); err != nil {
			return nil, err
		}
		if j, msg := httpapi.CheckRecords(ts.Idempotency); j >= 0 {
			return nil, domain.InvalidField(fmt.Sprintf("%s.idempotency.%d", path, j), "%s", msg)
		}
	}
	if doc.Server != nil {
		if err := s.checkTasks("server", doc.Server.Tasks); err != nil {
			return nil, err
		}
	}
	return doc, nil
}

func (s *Service) checkTasks(path string, tasks []admin.ScheduledTask) error {
	for j, t := range tasks {
		if !s.TaskDefined(t.Kind) {
			return domain.InvalidField(fmt.Sprintf("%s.tasks.%d.kind", path, j), "%q is not a kind of task of this server", t.Kind)
		}
		if t.At.IsZero() {
			return domain.InvalidField(fmt.Sprintf("%s.tasks.%d.at", path, j), "is required")
		}
		if err := clock.CheckTime(t.At); err != nil {
			return domain.InvalidField(fmt.Sprintf("%s.tasks.%d.at", path, j), "%v", err)
		}
	}
	return nil
}

// jsonError is the 400 of a document that does not decode.
func jsonError(err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return domain.Invalid("the document is not valid JSON at byte %d: %v", syn.Offset, err)
	case errors.As(err, &typ) && typ.Field != "":
		return domain.InvalidField(typ.Field, "must be %s, not a JSON %s", typ.Type, typ.Value)
	case errors.Is(err, io.ErrUnexpectedEOF) || err.Error() == "unexpected EOF":
		return domain.Invalid("the document is truncated: %v", err)
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		return domain.InvalidField(strings.Trim(f, `"`), "is not a member of a snapshot document")
	}
	return domain.Invalid("the document does not decode: %s", msg)
}

// Restore restores a snapshot document: each tenant in it replaces the
// tenant with the same root business, or is added, with its clock at the
// document's time and its pending work; a whole server's document also
// replaces the records of no tenant and sets the base time. It is all or
// nothing, as a careful import: the whole document is checked against the
// store's rules (store.Plan) and its pending work and idempotency records
// against the tenants they come with, before anything changes; a refused
// document changes nothing, for any tenant.
func (s *Service) Restore(doc *Snapshot) error {
	tx := s.WriteTx()
	defer tx.End()
	var parts []store.Part
	var prefixes []string
	if doc.Server != nil {
		parts = append(parts, store.Part{Section: &doc.Server.Section})
		prefixes = append(prefixes, "server")
	}
	for i := range doc.Tenants {
		parts = append(parts, store.Part{Tenant: doc.Tenants[i].BusinessID, Section: &doc.Tenants[i].Section})
		prefixes = append(prefixes, fmt.Sprintf("tenants.%d", i))
	}
	plan, err := tx.Plan(parts)
	if err != nil {
		return sectionError(prefixes, err)
	}
	if doc.Server != nil {
		if err := checkWork(plan, "server", "", doc.Server.Tasks); err != nil {
			return err
		}
	}
	offset := len(parts) - len(doc.Tenants)
	for i, ts := range doc.Tenants {
		if err := checkTenantWork(plan, offset+i, fmt.Sprintf("tenants.%d", i), ts); err != nil {
			return err
		}
	}
	// Checked: now the change. Apply removes what the store holds of the
	// replaced tenants, their idempotency records included.
	plan.Apply()
	if doc.Server != nil {
		s.Clocks.Set("", doc.TakenAt)
		s.resume("", doc.Server.Tasks)
		var seeds []seedAccount
		for _, sa := range doc.Server.SeedAccounts {
			seeds = append(seeds, seedAccount{opts: sa.Options, acct: sa.Account})
		}
		s.seeds.Set(tx, seeds)
	}
	for _, ts := range doc.Tenants {
		s.startTenant(tx, ts)
	}
	return nil
}

// checkTenantWork checks what a tenant brings beside its records, against
// the plan that imports them (part i, at path): its tasks name no record
// of another tenant, and its idempotency records are its users'.
func checkTenantWork(plan *store.Plan, i int, path string, ts TenantSnapshot) error {
	if err := checkWork(plan, path, ts.BusinessID, ts.Tasks); err != nil {
		return err
	}
	for j, r := range ts.Idempotency {
		if !plan.HasUser(i, r.Owner) {
			return domain.InvalidField(fmt.Sprintf("%s.idempotency.%d.owner", path, j), "%s is not a user of the tenant", r.Owner)
		}
	}
	return nil
}

// checkWork refuses a task (of tenant, "" the base clock's) whose subject
// is a record of another tenant: a task acts on its subject when its
// clock reaches it.
func checkWork(plan *store.Plan, path, tenant string, tasks []admin.ScheduledTask) error {
	for j, t := range tasks {
		if t.SubjectID == "" {
			continue
		}
		if owner, ok := plan.TenantOf(t.SubjectID); ok && owner != "" && owner != tenant {
			return domain.InvalidField(fmt.Sprintf("%s.tasks.%d.subject_id", path, j), "%s is a record of another tenant", t.SubjectID)
		}
	}
	return nil
}

// startTenant sets an imported tenant's clock and pending work, and its
// idempotency records.
func (s *Service) startTenant(tx *platform.Tx, ts TenantSnapshot) {
	s.httpapi.Idem.Import(tx, ts.Idempotency)
	s.Clocks.Set(ts.BusinessID, ts.Now)
	s.resume(ts.BusinessID, ts.Tasks)
}

func (s *Service) resume(tenant string, tasks []admin.ScheduledTask) {
	for _, t := range tasks {
		if err := s.Resume(tenant, httpapi.TaskOf(t)); err != nil {
			panic("identity: a checked task does not resume: " + err.Error())
		}
	}
}

// sectionError is the response to a document a Plan refused: 409
// conflict for a value another tenant holds, 400 invalid_request
// otherwise, naming the member (prefixes name the parts' members).
func sectionError(prefixes []string, err error) error {
	var se *store.SectionError
	if !errors.As(err, &se) {
		return domain.Invalid("%v", err)
	}
	path := prefixes[se.Part] + "." + se.Path
	if se.InUse {
		e := domain.New(voiceagent.CodeConflict, path+": "+se.Message+" by another tenant")
		e.Details = []domain.FieldError{{Path: path, Message: se.Message}}
		return e
	}
	return domain.InvalidField(path, "%s", se.Message)
}

// SeedAccounts returns the seed accounts (SeedAccount), oldest first.
func (s *Service) SeedAccounts() []*admin.Account {
	tx := s.ReadTx()
	defer tx.End()
	seeds := s.seeds.Get(tx)
	out := make([]*admin.Account, len(seeds))
	for i := range seeds {
		a := seeds[i].acct
		out[i] = &a
	}
	return out
}

// CopyTenant makes a new tenant holding a copy of every record of the
// tenant owning businessID, at the same time and with its pending work:
// new ids everywhere (references follow), new numbers from the pool, new
// key values and session tokens. It returns a new key with every scope and
// a session for the copy of the business's owner.
func (s *Service) CopyTenant(businessID string) (*admin.AccountCopy, error) {
	tx := s.WriteTx()
	defer tx.End()
	tenant, err := httpapi.TenantIn(tx, businessID)
	if err != nil {
		return nil, err
	}
	// The records are copied in memory: only the data beside them goes
	// through JSON.
	orig := s.tenantSnapshot(tx, tenant, tx.ExportKeyed(tenant), s.idempotencyOf(tx, tenant))
	recs := tx.Records(tenant)
	r := s.newRemapper(tx, &orig, recs)
	cp, copies, err := r.copyOf(&orig, recs)
	if err != nil {
		return nil, err
	}
	// A partner's reference to a client names the original's business.
	cp.ClientsByRef = map[string]string{}
	originals := make(map[string]string, len(r.ids))
	for old, id := range r.ids {
		originals[id] = old
	}
	plan, err := tx.Plan([]store.Part{{Tenant: cp.BusinessID, Section: &cp.Section, Records: copies, Originals: originals}})
	if err == nil {
		err = checkTenantWork(plan, 0, "copy", *cp)
	}
	if err != nil {
		return nil, fmt.Errorf("identity: a copy does not import: %w", err)
	}
	plan.Apply()
	s.startTenant(tx, *cp)

	now := s.Clocks.Now(cp.BusinessID)
	b, _ := tx.Businesses.Get(r.ids[businessID])
	out := &admin.AccountCopy{IDs: r.ids}
	out.BusinessID = b.ID
	out.UserID = b.OwnerUserID
	out.APIKey, _ = s.IssueKey(tx, now, b.OwnerUserID, "copy", AllScopes(), "", "")
	out.Session = s.newSession(tx, now, b.OwnerUserID).Token
	if agents := tx.Agents.Owned(b.ID); len(agents) > 0 {
		out.AgentID, out.PhoneNumber = agents[0].ID, agents[0].PhoneNumber
	}
	return out, nil
}

// remapper rewrites a tenant's snapshot into its copy's: every record id,
// number, session token and link token is replaced by a new one wherever
// it appears in the document's JSON, and every key gets a new value.
type remapper struct {
	ids     map[string]string // record ids, old to new
	strings map[string]string // other strings to replace where they are a whole JSON string
	gen     *platform.IDGen
}

func (s *Service) newRemapper(tx *platform.Tx, ts *TenantSnapshot, recs map[string][]store.Record) *remapper {
	r := &remapper{ids: map[string]string{}, strings: map[string]string{}, gen: s.IDs}
	for _, name := range slices.Sorted(maps.Keys(recs)) {
		for _, rec := range recs[name] {
			r.ids[rec.RecordID()] = s.IDs.UUID()
		}
	}
	for _, d := range ts.Deliveries {
		r.ids[d.ID] = s.IDs.UUID()
	}
	for _, id := range slices.Sorted(maps.Keys(ts.Assistants)) {
		r.ids[id] = s.IDs.UUID()
	}
	for old, id := range r.ids {
		if !httpapi.IsUUID(old) {
			r.strings[old] = id
		}
	}
	for _, n := range recs["numbers"] {
		r.strings[n.(*store.Number).PhoneNumber] = nextPoolNumber(tx)
	}
	for _, sess := range recs["sessions"] {
		r.strings[sess.(*store.Session).Token] = "sess_" + s.IDs.Token(24)
	}
	for _, l := range ts.MagicLinks {
		r.strings[l.Token] = s.IDs.Token(len(l.Token) / 2)
	}
	return r
}

// copyOf returns the copy of a tenant's snapshot whose records are recs:
// the records copied in memory, the rest of the snapshot through JSON;
// every key gets a new value, shown to nobody.
func (r *remapper) copyOf(orig *TenantSnapshot, recs map[string][]store.Record) (*TenantSnapshot, map[string][]store.Record, error) {
	data, err := json.Marshal(orig)
	if err != nil {
		return nil, nil, err
	}
	var cp TenantSnapshot
	if err := json.Unmarshal(r.text(data), &cp); err != nil {
		return nil, nil, err
	}
	for _, d := range cp.Deliveries {
		d.Body = r.text(d.Body) // base64 in the JSON: not rewritten with it
	}
	copies := store.CopyRecords(recs, r.str, r.text)
	for _, rec := range copies["keys"] {
		k := rec.(*store.APIKey)
		value := httpapi.KeyPrefix + r.gen.Base62(httpapi.KeyRandomLen)
		k.Hash, k.Prefix = httpapi.HashKey(value), value[:httpapi.KeyShownLen]
	}
	return &cp, copies, nil
}

// str returns s replaced as text replaces it in JSON: a whole string to
// replace, or the UUIDs of copied records within it.
func (r *remapper) str(s string) string {
	if n, ok := r.strings[s]; ok {
		return n
	}
	if n, ok := r.ids[s]; ok {
		return n
	}
	if len(s) <= 36 || !strings.Contains(s, "-") {
		return s
	}
	return string(r.uuids([]byte(s)))
}

// text returns JSON text b with every UUID of a copied record replaced by
// its copy's, and every other string to replace replaced where it is a
// whole JSON string.
func (r *remapper) text(b []byte) []byte {
	out := r.uuids(b)
	for old, n := range r.strings {
		out = bytes.ReplaceAll(out, []byte(`"`+old+`"`), []byte(`"`+n+`"`))
	}
	return out
}

// uuids returns b with every UUID of a copied record replaced by its
// copy's (b itself when it holds none).
func (r *remapper) uuids(b []byte) []byte {
	out := make([]byte, 0, len(b))
	last := 0
	for i := 0; i+36 <= len(b); i++ {
		if b[i+8] != '-' || b[i+13] != '-' || b[i+18] != '-' || b[i+23] != '-' {
			continue
		}
		if n, ok := r.ids[string(b[i:i+36])]; ok {
			out = append(append(out, b[last:i]...), n...)
			last = i + 36
			i += 35
		}
	}
	if last == 0 {
		return b
	}
	return append(out, b[last:]...)
}
