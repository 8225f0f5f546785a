package store

import (
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
	// leadsByPhone and leadsByEmail: business -> key -> leads, oldest
	// first. Both are indexes of Store.Leads, kept right by its Put,
	// Insert, Delete and Update.
	leadsByPhone *KeyIndex[*Lead]
	leadsByEmail *KeyIndex[*Lead]
	// minutes: business -> minutes used by finished calls.
	minutes map[string]int
	// dnc: "" (the national registry) or a business id -> numbers.
	dnc map[string]map[string]bool
	// consent: business -> number -> consent state.
	consent map[string]map[string]string
}

func newTelephonyIndexes() *telephonyIndexes {
	return &telephonyIndexes{
		leadsByPhone: NewKeyIndex(leadPhoneKey),
		leadsByEmail: NewKeyIndex(leadEmailKey),
		minutes:      map[string]int{},
		dnc:          map[string]map[string]bool{},
		consent:      map[string]map[string]string{},
	}
}

func (s *Store) tel() *telephonyIndexes { return s.telIdx }

func emailKey(e string) string { return strings.ToLower(strings.TrimSpace(e)) }

// leadPhoneKey is a lead's key in the phone lookup: its phone exactly.
func leadPhoneKey(l *Lead) string {
	if l.Phone == nil {
		return ""
	}
	return *l.Phone
}

// leadEmailKey is a lead's key in the email lookup: its email trimmed and
// lower-cased.
func leadEmailKey(l *Lead) string {
	if l.Email == nil {
		return ""
	}
	return emailKey(*l.Email)
}

// LeadsByPhone returns a business's leads with exactly this phone, oldest
// first. The slice is the store's own: do not modify it.
func (s *Store) LeadsByPhone(businessID, phone string) []*Lead {
	return s.tel().leadsByPhone.Lookup(businessID, phone)
}

// LeadsByEmail returns a business's leads with this email (compared
// case-insensitively), oldest first. The slice is the store's own.
func (s *Store) LeadsByEmail(businessID, email string) []*Lead {
	return s.tel().leadsByEmail.Lookup(businessID, emailKey(email))
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
