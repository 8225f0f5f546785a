package store

import (
	"maps"
	"math"
	"slices"
	"sync/atomic"
	"time"
)

// Store is the whole state of one mock server. Resources add their tables
// here; everything is reachable from one value so that a reset is a swap.
//
// Every *Table field (here or in an embedded struct such as AgencyTables) is
// found by NewWithIDs, which gives it the store's id source: a table added
// later needs nothing more than its field and its NewTable in New.
type Store struct {
	Users      *Table[*User]
	Businesses *Table[*Business]
	Keys       *Table[*APIKey]
	Sessions   *Table[*Session]
	Agents     *Table[*Agent]
	Numbers    *Table[*Number]
	Events     *Table[*Event]
	Outbox     *Table[*OutboxMessage]
	Challenges *Table[*SignupChallenge]
	Webhooks   *Table[*Webhook]
	// Deliveries is the webhook delivery log (a ring buffer).
	Deliveries *DeliveryLog

	// Calls, leads, texts and their side records (telephony).
	Calls        *Table[*Call]
	Leads        *Table[*Lead]
	SMSMessages  *Table[*SMSMessage]
	PromptAudits *Table[*PromptAudit]
	// Scripts are the tenants' script steps (scripts.go), owned by the
	// tenant's root business.
	Scripts *Table[*ScriptStep]

	// Catalog, communication runs and governance (catalog.go, runs.go,
	// governance.go).
	Products         *Table[*Product]
	Knowledge        *Table[*KnowledgeEntry]
	Runs             *Table[*CommunicationRun]
	GovernedUpdates  *Table[*GovernedUpdate]
	ApprovalRequests *Table[*ApprovalRequest]
	// GovernedByKey finds a governed update by business id + "\x00" +
	// idempotency_key.
	GovernedByKey map[string]*GovernedUpdate
	// EmergencyAddresses holds the emergency address of a number, by number id.
	EmergencyAddresses map[string]*EmergencyAddress
	// TranscriptSinks holds a business's transcript sink, by business id.
	TranscriptSinks map[string]*TranscriptSink
	// ApprovalSecrets holds named approval callback secrets, by user id +
	// "\x00" + callback_secret_id.
	ApprovalSecrets map[string]string

	// KeysByHash finds a key by the SHA-256 of its value: a unique index
	// of Keys, kept by the table (read only).
	KeysByHash map[[32]byte]*APIKey
	// SessionsByToken finds a session by its cookie value: a unique index
	// of Sessions, kept by the table (read only).
	SessionsByToken map[string]*Session
	// UsersByEmail finds a user by lower-cased email. Emails are not
	// unique (a copy's users keep theirs): it holds the user that had the
	// email first.
	UsersByEmail map[string]*User
	// NumbersByPhone finds an assigned number by E.164 value: a unique
	// index of Numbers, kept by the table (read only).
	NumbersByPhone map[string]*Number
	// Assistants are the simulated voice provider's assistants, by id.
	Assistants map[string]*Assistant
	// NextNumber is the sequence of the number pool.
	NextNumber int
	// MagicLinks are one-time sign-in and password setup links, by token.
	MagicLinks map[string]*MagicLink
	// Signups are the signup records (attribution, plan), by business id.
	Signups map[string]*SignupRecord
	// ReferralCodes maps a referral code (or a partner's own id) to the
	// partner id (see RegisterPartner).
	ReferralCodes map[string]string

	// AgencyTables hold partners, offers, enrollments and installations.
	AgencyTables
	// SDRTables hold the outbound-sales pipeline's configs, states and log.
	SDRTables

	// userBusinesses and partnerBusinesses are the business ids of a
	// user and of a partner, oldest first. A slice handed out is never
	// changed in place: an id is appended past its end, and a removal
	// makes a new slice, so callers may keep one (a request's Principal).
	userBusinesses    map[string][]string
	partnerBusinesses map[string][]string
	tenants           []string // root businesses, oldest first
	telIdx            *telephonyIndexes
	// agentsByAssistant finds an agent by its assistant at the voice
	// provider: a unique index of Agents.
	agentsByAssistant map[string]*Agent
	// byName holds every table by its snapshot name (namedTables); names
	// are their names, sorted.
	byName map[string]dumpedTable
	names  []string
	// sch is the store's schema, which its tables share.
	sch *schema
	// idempotency holds the idempotency records, by IdempotencyID. It is
	// no snapshot table (a snapshot carries a tenant's records apart).
	idempotency *Table[*IdempotencyRecord]
	// dropped is set by Drop when a reset replaced the store.
	dropped atomic.Bool
}

// NewWithIDs returns an empty store whose tables take the ids of inserted
// records from next (see Table.Insert and Table.SetIDSource). next is
// typically the server's uuid generator; the store adds no locking around
// it.
func NewWithIDs(next func() string) *Store {
	s := New()
	for _, t := range s.tables() {
		t.SetIDSource(next)
	}
	return s
}

// idSourced is what every *Table is, whatever its record type.
type idSourced interface {
	SetIDSource(next func() string)
	SetStampGroup(group func(owner string) string)
	SetTenancy(tenant func(Record) string)
}

// tables returns every table of the store: the exported *Table fields of
// Store and of the structs it embeds (AgencyTables, SDRTables), and the
// idempotency records.
func (s *Store) tables() []idSourced {
	out := []idSourced{s.idempotency}
	for _, t := range s.namedTables() {
		out = append(out, t)
	}
	return out
}

// Drop marks the store as replaced by a reset. A scheduled task (a webhook
// delivery attempt, a simulated call step) that captured the store when it
// was scheduled checks Dropped when it runs and does nothing on a dropped
// store, instead of comparing its store with the server's current one. The
// reset calls Drop on the old store when it swaps in the new one. Drop may
// be called more than once.
func (s *Store) Drop() { s.dropped.Store(true) }

// Dropped reports whether Drop was called: the store was replaced by a
// reset and its scheduled tasks must stop. Safe to call without the
// server's lock.
func (s *Store) Dropped() bool { return s.dropped.Load() }

// New returns an empty store. Its tables have no id source: Insert needs
// records with ids (use NewWithIDs to have them given).
func New() *Store {
	s := &Store{
		Users:         NewTable[*User](),
		Businesses:    NewTable[*Business](),
		Keys:          NewTable[*APIKey](),
		Sessions:      NewTable[*Session](),
		Agents:        NewTable[*Agent](),
		Numbers:       NewTable[*Number](),
		Events:        NewTable[*Event](),
		Outbox:        NewTable[*OutboxMessage](),
		Challenges:    NewTable[*SignupChallenge](),
		Webhooks:      NewTable[*Webhook](),
		Deliveries:    NewDeliveryLog(math.MaxInt, math.MaxInt64),
		Calls:         NewTable[*Call](),
		Leads:         NewTable[*Lead](),
		SMSMessages:   NewTable[*SMSMessage](),
		PromptAudits:  NewTable[*PromptAudit](),
		Scripts:       NewTable[*ScriptStep](),
		UsersByEmail:  map[string]*User{},
		Assistants:    map[string]*Assistant{},
		MagicLinks:    map[string]*MagicLink{},
		Signups:       map[string]*SignupRecord{},
		ReferralCodes: map[string]string{},
		AgencyTables:  newAgencyTables(),
		SDRTables:     newSDRTables(),

		Products:           NewTable[*Product](),
		Knowledge:          NewTable[*KnowledgeEntry](),
		Runs:               NewTable[*CommunicationRun](),
		GovernedUpdates:    NewTable[*GovernedUpdate](),
		ApprovalRequests:   NewTable[*ApprovalRequest](),
		GovernedByKey:      map[string]*GovernedUpdate{},
		EmergencyAddresses: map[string]*EmergencyAddress{},
		TranscriptSinks:    map[string]*TranscriptSink{},
		ApprovalSecrets:    map[string]string{},

		userBusinesses:    map[string][]string{},
		partnerBusinesses: map[string][]string{},

		telIdx:      newTelephonyIndexes(),
		idempotency: NewTable[*IdempotencyRecord](),
	}
	s.Leads.AddIndex(s.telIdx.leadsByPhone)
	s.Leads.AddIndex(s.telIdx.leadsByEmail)
	s.KeysByHash = addUnique(s.Keys, "Hash", map[[32]byte]*APIKey{}, func(k *APIKey) ([32]byte, bool) { return k.Hash, true })
	s.SessionsByToken = addUnique(s.Sessions, "Token", map[string]*Session{}, func(x *Session) (string, bool) { return x.Token, x.Token != "" })
	s.NumbersByPhone = addUnique(s.Numbers, "PhoneNumber", map[string]*Number{}, func(n *Number) (string, bool) { return n.PhoneNumber, n.PhoneNumber != "" })
	s.agentsByAssistant = addUnique(s.Agents, "VendorAssistantID", map[string]*Agent{}, func(a *Agent) (string, bool) { return a.VendorAssistantID, a.VendorAssistantID != "" })
	s.sch = &schema{s: s}
	s.byName = s.findTables()
	s.names = slices.Sorted(maps.Keys(s.byName))
	for name, t := range s.byName {
		t.setSchema(s.sch, name)
	}
	for _, t := range s.tables() {
		t.SetStampGroup(s.TenantOfOwner)
		t.SetTenancy(s.RetentionTenant)
	}
	return s
}

// Idempotency returns the table of idempotency records (filed by
// IdempotencyID).
func (s *Store) Idempotency() *Table[*IdempotencyRecord] { return s.idempotency }

// RetentionTenant returns the tenant whose bounds r, a record of a bounded
// table (see Retention), counts against: its tenant (the tenant of its
// owner, or of the business an outbox message was sent for), or "" for a
// record of no tenant (a signup's code, a request without a caller), which
// count together.
func (s *Store) RetentionTenant(r Record) string {
	if t := s.recordTenant(r); s.IsTenant(t) {
		return t
	}
	return ""
}

// InsertBusiness stores a new business created at now, its own owner (with
// a new id unless it has one), and indexes its members and partner. A
// business without a Tenant is a tenant of its own.
func (s *Store) InsertBusiness(b *Business, now time.Time) *Business {
	s.sch.mustWrite("InsertBusiness")
	if b.ID == "" {
		b.ID = s.Businesses.nextID()
	}
	if b.Tenant == "" {
		b.Tenant = b.ID
	}
	s.Businesses.Insert(b, b.ID, now)
	if b.Tenant == b.ID {
		s.tenants = append(s.tenants, b.ID)
	}
	for userID := range b.Members {
		s.userBusinesses[userID] = append(s.userBusinesses[userID], b.ID)
	}
	if b.PartnerID != "" {
		s.partnerBusinesses[b.PartnerID] = append(s.partnerBusinesses[b.PartnerID], b.ID)
	}
	return b
}

// AddMember gives a user a role on a business.
func (s *Store) AddMember(b *Business, userID, role string) {
	s.sch.mustWrite("AddMember")
	if _, ok := b.Members[userID]; !ok {
		s.userBusinesses[userID] = append(s.userBusinesses[userID], b.ID)
	}
	b.Members[userID] = role
}

// RemoveMember takes a user's role on a business away.
func (s *Store) RemoveMember(b *Business, userID string) {
	s.sch.mustWrite("RemoveMember")
	if _, ok := b.Members[userID]; !ok {
		return
	}
	delete(b.Members, userID)
	ids := s.userBusinesses[userID]
	for i, id := range ids {
		if id == b.ID {
			s.userBusinesses[userID] = append(ids[:i:i], ids[i+1:]...)
			break
		}
	}
}

// BusinessesOf returns the ids of the businesses where the user is a member,
// oldest first. The slice is the store's own: do not modify it.
func (s *Store) BusinessesOf(userID string) []string { return s.userBusinesses[userID] }

// BusinessesOfPartner returns the ids of the businesses a partner created,
// oldest first. The slice is the store's own: do not modify it.
func (s *Store) BusinessesOfPartner(partnerID string) []string {
	return s.partnerBusinesses[partnerID]
}

// TenantOf returns the tenant of a business: the root business of the
// account that owns it ("" for an unknown business).
func (s *Store) TenantOf(businessID string) string {
	if b, ok := s.Businesses.Get(businessID); ok {
		return b.Tenant
	}
	return ""
}

// TenantOfOwner is the tenant of a record's owner: the tenant of a
// business, or of a user's first business; any other owner is its own. It
// is also the tables' stamp group.
// Records of one tenant share a clock, so their created_at stamps are
// strictly increasing across the tenant's businesses, and a page over
// several of them never skips or repeats a record.
func (s *Store) TenantOfOwner(owner string) string {
	if t := s.TenantOf(owner); t != "" {
		return t
	}
	if bs := s.userBusinesses[owner]; len(bs) > 0 {
		if t := s.TenantOf(bs[0]); t != "" {
			return t
		}
	}
	return owner
}

// Tenants returns the root businesses of every tenant, oldest first.
func (s *Store) Tenants() []string { return s.tenants }
