package store

import (
	"slices"
	"strings"
	"time"
)

// Lead statuses: the spec's five and the quickstart's three more.
const (
	LeadNew          = "new"
	LeadContacted    = "contacted"
	LeadQualified    = "qualified"
	LeadConverted    = "converted"
	LeadLost         = "lost"
	LeadUnqualified  = "unqualified"
	LeadSpam         = "spam"
	LeadDoNotContact = "do_not_contact"
)

// LeadStatuses lists every valid lead status.
var LeadStatuses = []string{
	LeadNew, LeadContacted, LeadQualified, LeadConverted, LeadLost,
	LeadUnqualified, LeadSpam, LeadDoNotContact,
}

// Lead is a prospective customer, created from calls and texts. Owner is
// its business. Nil pointers are absent values (JSON null).
type Lead struct {
	Base
	Name, FirstName, LastName *string
	Email, Phone              *string
	Status                    string
	Source                    *string
	AgentID                   string
	Zip, Address, City, State *string
	SourceURL, SourcePage     *string
	Notes, Message            *string
	EventDate, EventType      *string
	Intent                    *string
	Score                     int
	Interactions              int
	LastContactAt             *time.Time
	UpdatedAt                 time.Time
}

// telephonyIndexes are the lookups of calls, leads and texts.
type telephonyIndexes struct {
	// leadsByPhone and leadsByEmail: business -> key -> leads, oldest first.
	leadsByPhone map[string]map[string][]*Lead
	leadsByEmail map[string]map[string][]*Lead
	// minutes: business -> minutes used by finished calls.
	minutes map[string]int
	// dnc: "" (the national registry) or a business id -> numbers.
	dnc map[string]map[string]bool
	// consent: business -> number -> consent state.
	consent map[string]map[string]string
}

func newTelephonyIndexes() *telephonyIndexes {
	return &telephonyIndexes{
		leadsByPhone: map[string]map[string][]*Lead{},
		leadsByEmail: map[string]map[string][]*Lead{},
		minutes:      map[string]int{},
		dnc:          map[string]map[string]bool{},
		consent:      map[string]map[string]string{},
	}
}

func (s *Store) tel() *telephonyIndexes { return s.telIdx }

func emailKey(e string) string { return strings.ToLower(strings.TrimSpace(e)) }

// IndexLead adds a lead to the phone and email lookups; call it after Put
// and after changing a lead's phone or email (UnindexLead first).
func (s *Store) IndexLead(l *Lead) {
	t := s.tel()
	if l.Phone != nil && *l.Phone != "" {
		addIndex(t.leadsByPhone, l.Owner, *l.Phone, l)
	}
	if l.Email != nil && *l.Email != "" {
		addIndex(t.leadsByEmail, l.Owner, emailKey(*l.Email), l)
	}
}

// UnindexLead removes a lead from the phone and email lookups.
func (s *Store) UnindexLead(l *Lead) {
	t := s.tel()
	if l.Phone != nil {
		removeIndex(t.leadsByPhone, l.Owner, *l.Phone, l)
	}
	if l.Email != nil {
		removeIndex(t.leadsByEmail, l.Owner, emailKey(*l.Email), l)
	}
}

func addIndex(idx map[string]map[string][]*Lead, owner, key string, l *Lead) {
	m := idx[owner]
	if m == nil {
		m = map[string][]*Lead{}
		idx[owner] = m
	}
	list := m[key]
	i, _ := slices.BinarySearchFunc(list, l, func(a, b *Lead) int { return a.CreatedAt.Compare(b.CreatedAt) })
	m[key] = slices.Insert(list, i, l)
}

func removeIndex(idx map[string]map[string][]*Lead, owner, key string, l *Lead) {
	m := idx[owner]
	list := m[key]
	if i := slices.Index(list, l); i >= 0 {
		list = slices.Delete(list, i, i+1)
	}
	if len(list) == 0 {
		delete(m, key)
	} else {
		m[key] = list
	}
}

// LeadsByPhone returns a business's leads with exactly this phone, oldest
// first. The slice is the store's own: do not modify it.
func (s *Store) LeadsByPhone(businessID, phone string) []*Lead {
	return s.tel().leadsByPhone[businessID][phone]
}

// LeadsByEmail returns a business's leads with this email (compared
// case-insensitively), oldest first. The slice is the store's own.
func (s *Store) LeadsByEmail(businessID, email string) []*Lead {
	return s.tel().leadsByEmail[businessID][emailKey(email)]
}

// LeadByPhone returns a business's oldest lead with this phone, or nil.
func (s *Store) LeadByPhone(businessID, phone string) *Lead {
	if l := s.LeadsByPhone(businessID, phone); len(l) > 0 {
		return l[0]
	}
	return nil
}

// LeadByEmail returns a business's oldest lead with this email, or nil.
func (s *Store) LeadByEmail(businessID, email string) *Lead {
	if l := s.LeadsByEmail(businessID, email); len(l) > 0 {
		return l[0]
	}
	return nil
}
