package store

// Store is the whole state of one mock server. Resources add their tables
// here; everything is reachable from one value so that a reset is a swap.
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

	// KeysByHash finds a key by the SHA-256 of its value.
	KeysByHash map[[32]byte]*APIKey
	// SessionsByToken finds a session by its cookie value.
	SessionsByToken map[string]*Session
	// UsersByEmail finds a user by lower-cased email.
	UsersByEmail map[string]*User
	// NumbersByPhone finds an assigned number by E.164 value.
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

	userBusinesses    map[string][]string
	partnerBusinesses map[string][]string
	telIdx            *telephonyIndexes
}

// New returns an empty store.
func New() *Store {
	return &Store{
		Users:           NewTable[*User](),
		Businesses:      NewTable[*Business](),
		Keys:            NewTable[*APIKey](),
		Sessions:        NewTable[*Session](),
		Agents:          NewTable[*Agent](),
		Numbers:         NewTable[*Number](),
		Events:          NewTable[*Event](),
		Outbox:          NewTable[*OutboxMessage](),
		Challenges:      NewTable[*SignupChallenge](),
		Webhooks:        NewTable[*Webhook](),
		Deliveries:      NewDeliveryLog(DefaultDeliveryLogSize),
		Calls:           NewTable[*Call](),
		Leads:           NewTable[*Lead](),
		SMSMessages:     NewTable[*SMSMessage](),
		PromptAudits:    NewTable[*PromptAudit](),
		KeysByHash:      map[[32]byte]*APIKey{},
		SessionsByToken: map[string]*Session{},
		UsersByEmail:    map[string]*User{},
		NumbersByPhone:  map[string]*Number{},
		Assistants:      map[string]*Assistant{},
		MagicLinks:      map[string]*MagicLink{},
		Signups:         map[string]*SignupRecord{},
		ReferralCodes:   map[string]string{},
		AgencyTables:    newAgencyTables(),
		SDRTables:       newSDRTables(),

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
		telIdx:            newTelephonyIndexes(),
	}
}

// AddBusiness stores a new business and indexes its members and partner.
func (s *Store) AddBusiness(b *Business) {
	s.Businesses.Put(b)
	for userID := range b.Members {
		s.userBusinesses[userID] = append(s.userBusinesses[userID], b.ID)
	}
	if b.PartnerID != "" {
		s.partnerBusinesses[b.PartnerID] = append(s.partnerBusinesses[b.PartnerID], b.ID)
	}
}

// AddMember gives a user a role on a business.
func (s *Store) AddMember(b *Business, userID, role string) {
	if _, ok := b.Members[userID]; !ok {
		s.userBusinesses[userID] = append(s.userBusinesses[userID], b.ID)
	}
	b.Members[userID] = role
}

// RemoveMember takes a user's role on a business away.
func (s *Store) RemoveMember(b *Business, userID string) {
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
