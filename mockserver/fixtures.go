package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// LeadFixture is a lead to store as given (Server.SeedLeads, fixtures
// files): no events, no lead collection. Empty fields are absent; see the
// mockFixtureLead schema and the package documentation's Fixtures.
type LeadFixture struct {
	// ID is the lead's id (default generated); it must not exist yet.
	ID        string `json:"id,omitempty"`
	Name      string `json:"name,omitempty"`
	FirstName string `json:"first_name,omitempty"`
	LastName  string `json:"last_name,omitempty"`
	Email     string `json:"email,omitempty"`
	Phone     string `json:"phone,omitempty"`
	// Status is one of the eight lead statuses (default new).
	Status string `json:"status,omitempty"`
	Source string `json:"source,omitempty"`
	Notes  string `json:"notes,omitempty"`
	Intent string `json:"intent,omitempty"`
	// AgentID is an agent of the business (default its oldest agent).
	AgentID string `json:"agent_id,omitempty"`
	// CreatedAt defaults to now and may not be in the future; UpdatedAt
	// defaults to CreatedAt.
	CreatedAt        *time.Time `json:"created_at,omitempty"`
	UpdatedAt        *time.Time `json:"updated_at,omitempty"`
	LastContactAt    *time.Time `json:"last_contact_at,omitempty"`
	InteractionCount int        `json:"interaction_count,omitempty"`
	// Consent is the SMS consent of Phone towards the business: opted_in,
	// opted_out or none.
	Consent string `json:"consent,omitempty"`
	// TouchCount, LastTouchAt, LastChannel and Paused are the lead's state
	// in the outbound-sales pipeline.
	TouchCount  int        `json:"touch_count,omitempty"`
	LastTouchAt *time.Time `json:"last_touch_at,omitempty"`
	LastChannel string     `json:"last_channel,omitempty"`
	Paused      bool       `json:"paused,omitempty"`
}

// CallFixture is a finished call to store as given (Server.SeedCalls,
// fixtures files): no events, no webhooks; see the mockFixtureCall schema.
type CallFixture struct {
	// ID is the call's id (default generated); it must not exist yet.
	ID string `json:"id,omitempty"`
	// AgentID is an agent of the business (default its oldest agent).
	AgentID string `json:"agent_id,omitempty"`
	// Direction is outbound (default) or inbound.
	Direction string `json:"direction,omitempty"`
	// Status is completed, failed, ended or no-answer (default completed
	// outbound, ended inbound).
	Status string `json:"status,omitempty"`
	// To is required on outbound calls, From on inbound calls; the other
	// defaults to the agent's number.
	To   string `json:"to,omitempty"`
	From string `json:"from,omitempty"`
	Name string `json:"name,omitempty"`
	// Duration is in seconds; failed calls have none.
	Duration int `json:"duration,omitempty"`
	// Error is the reason of a failed call (default no_answer).
	Error      string `json:"error,omitempty"`
	Summary    string `json:"summary,omitempty"`
	Transcript string `json:"transcript,omitempty"`
	// LeadID links the call to a lead of the business; default the lead
	// whose phone is the other party's number, if any.
	LeadID string `json:"lead_id,omitempty"`
	// CreatedAt defaults to now and may not be in the future.
	CreatedAt *time.Time `json:"created_at,omitempty"`
}

// FixtureAccount is one account of a fixtures file: what POST
// /_mock/accounts takes, and the account's leads and calls.
type FixtureAccount struct {
	BusinessName string        `json:"business_name,omitempty"`
	Email        string        `json:"email,omitempty"`
	Scopes       []string      `json:"scopes,omitempty"`
	Leads        []LeadFixture `json:"leads,omitempty"`
	Calls        []CallFixture `json:"calls,omitempty"`
}

// Fixtures is the content of a fixtures file (cmd/voiceagent-mock
// -fixtures, POST /_mock/fixtures, Server.LoadFixtures).
type Fixtures struct {
	Accounts []FixtureAccount `json:"accounts"`
}

// SeedLeads stores leads in a business as given, oldest first, and returns
// their ids in the order given. It is all or nothing: an invalid lead
// stores none.
func (s *Server) SeedLeads(businessID string, leads []LeadFixture) ([]string, error) {
	for i := range leads {
		if err := validateAs("mockFixtureLead", leads[i]); err != nil {
			return nil, fmt.Errorf("leads[%d]: %w", i, err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ids, apiErr := s.seedLeadsLocked(s.st, s.clock.Now(), businessID, leads, "/leads")
	if apiErr != nil {
		return nil, apiErr
	}
	return ids, nil
}

// SeedCalls stores finished calls in a business as given, oldest first,
// and returns their ids in the order given. It is all or nothing.
func (s *Server) SeedCalls(businessID string, calls []CallFixture) ([]string, error) {
	for i := range calls {
		if err := validateAs("mockFixtureCall", calls[i]); err != nil {
			return nil, fmt.Errorf("calls[%d]: %w", i, err)
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ids, apiErr := s.seedCallsLocked(s.st, s.clock.Now(), businessID, calls, "/calls")
	if apiErr != nil {
		return nil, apiErr
	}
	return ids, nil
}

// LoadFixtures provisions the accounts of f (as NewAccount) and stores
// their leads and calls. An invalid record stops the load with an error
// naming it; the accounts before it stay.
func (s *Server) LoadFixtures(f Fixtures) ([]*Account, error) {
	if err := validateAs("mockFixtures", f); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	accts, apiErr := s.loadFixturesLocked(f)
	if apiErr != nil {
		return accts, apiErr
	}
	return accts, nil
}

// LoadFixturesFile reads a fixtures file (JSON, see Fixtures) and loads it.
func (s *Server) LoadFixturesFile(path string) ([]*Account, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f Fixtures
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	accts, err := s.LoadFixtures(f)
	if err != nil {
		return accts, fmt.Errorf("%s: %w", path, err)
	}
	return accts, nil
}

func (s *Server) loadFixturesLocked(f Fixtures) ([]*Account, *apiError) {
	var out []*Account
	for i, fa := range f.Accounts {
		for _, sc := range fa.Scopes {
			if !isScope(sc) && sc != scopeWildcard {
				return out, errInvalidField(fmt.Sprintf("/accounts/%d/scopes", i), "unknown scope %q", sc)
			}
		}
		acct := s.newAccountLocked(AccountOptions{BusinessName: fa.BusinessName, Email: fa.Email, Scopes: fa.Scopes})
		out = append(out, acct)
		now := s.clock.Now()
		path := fmt.Sprintf("/accounts/%d", i)
		if _, err := s.seedLeadsLocked(s.st, now, acct.BusinessID, fa.Leads, path+"/leads"); err != nil {
			return out, err
		}
		if _, err := s.seedCallsLocked(s.st, now, acct.BusinessID, fa.Calls, path+"/calls"); err != nil {
			return out, err
		}
	}
	return out, nil
}

func (s *Server) adminFixtures(rc *reqCtx) (any, error) {
	var f Fixtures
	if err := rc.decode(&f); err != nil {
		return nil, err
	}
	accts, err := s.loadFixturesLocked(f)
	if err != nil {
		return nil, err
	}
	return created(map[string]any{"accounts": accts}), nil
}

// seedOrder returns the indexes of n records sorted by created_at (nil:
// now), oldest first, ties in the order given.
func seedOrder(n int, created func(i int) *time.Time, now time.Time) []int {
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	at := func(i int) time.Time {
		if t := created(i); t != nil {
			return *t
		}
		return now
	}
	slices.SortStableFunc(order, func(a, b int) int { return at(a).Compare(at(b)) })
	return order
}

// seedContext checks what every seeded record of a business needs: the
// business, its default agent, the ids (new and unique), the agent and the
// created_at (not in the future).
type seedContext struct {
	st       *store.Store
	now      time.Time
	business *store.Business
	agent    *store.Agent // the oldest agent, nil when none
	ids      map[string]bool
}

func newSeedContext(st *store.Store, now time.Time, businessID string) (*seedContext, *apiError) {
	b, ok := st.Businesses.Get(businessID)
	if !ok {
		return nil, errNotFound("business not found: " + businessID)
	}
	sc := &seedContext{st: st, now: now, business: b, ids: map[string]bool{}}
	if agents := st.Agents.Owned(b.ID); len(agents) > 0 {
		sc.agent = agents[0]
	}
	return sc, nil
}

// check validates the shared fields of one record at path.
func (sc *seedContext) check(path, id string, exists bool, agentID string, created *time.Time) (*store.Agent, *apiError) {
	if id != "" {
		if exists || sc.ids[id] {
			return nil, errInvalidField(path+"/id", "%s is already taken", id)
		}
		sc.ids[id] = true
	}
	if created != nil && created.After(sc.now) {
		return nil, errInvalidField(path+"/created_at", "may not be in the future (now is %s)", sc.now.Format(time.RFC3339))
	}
	if agentID == "" {
		if sc.agent == nil {
			return nil, errInvalidField(path+"/agent_id", "the business has no agent")
		}
		return sc.agent, nil
	}
	a, ok := sc.st.Agents.Get(agentID)
	if !ok || a.Owner != sc.business.ID {
		return nil, errInvalidField(path+"/agent_id", "must be an agent of business %s", sc.business.ID)
	}
	return a, nil
}

// stamp is the created_at of a seeded record: its own (made unique within
// the business), or a fresh stamp at now.
func seedStamp[T store.Record](t *store.Table[T], owner string, at *time.Time, now time.Time) time.Time {
	if at == nil {
		return t.Stamp(now)
	}
	return t.FreeStamp(owner, *at)
}

func (s *Server) seedLeadsLocked(st *store.Store, now time.Time, businessID string, leads []LeadFixture, path string) ([]string, *apiError) {
	sc, apiErr := newSeedContext(st, now, businessID)
	if apiErr != nil {
		return nil, apiErr
	}
	built := make([]*store.Lead, len(leads))
	for i := range leads {
		f := &leads[i]
		p := fmt.Sprintf("%s/%d", path, i)
		_, exists := st.Leads.Get(f.ID)
		a, apiErr := sc.check(p, f.ID, exists, f.AgentID, f.CreatedAt)
		if apiErr != nil {
			return nil, apiErr
		}
		l := &store.Lead{
			Name: strp(f.Name), FirstName: strp(f.FirstName), LastName: strp(f.LastName),
			Email: strp(f.Email), Phone: strp(f.Phone), Status: firstNonEmpty(f.Status, store.LeadNew),
			Source: strp(f.Source), Notes: strp(f.Notes), Intent: strp(f.Intent), AgentID: a.ID,
			Interactions: f.InteractionCount, LastContactAt: utcOrNil(f.LastContactAt),
		}
		l.ID = firstNonEmpty(f.ID, s.ids.uuid())
		l.Owner = businessID
		l.Score = leadScore(l)
		built[i] = l
	}
	for _, i := range seedOrder(len(leads), func(i int) *time.Time { return leads[i].CreatedAt }, now) {
		f, l := &leads[i], built[i]
		l.CreatedAt = seedStamp(st.Leads, businessID, f.CreatedAt, now)
		l.UpdatedAt = l.CreatedAt
		if f.UpdatedAt != nil && f.UpdatedAt.After(l.CreatedAt) {
			l.UpdatedAt = f.UpdatedAt.UTC()
		}
		st.Leads.Put(l)
		st.IndexLead(l)
		if f.Consent != "" && f.Phone != "" {
			st.SetConsent(businessID, f.Phone, f.Consent)
		}
		if f.TouchCount > 0 || f.Paused || f.LastTouchAt != nil {
			state := st.SDRLeadState(l.ID, true)
			state.TouchCount, state.Paused, state.LastChannel = f.TouchCount, f.Paused, f.LastChannel
			state.LastTouchAt = utcOrNil(f.LastTouchAt)
		}
	}
	ids := make([]string, len(built))
	for i, l := range built {
		ids[i] = l.ID
	}
	return ids, nil
}

// utcOrNil is *t in UTC, or nil.
func utcOrNil(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}

func (s *Server) seedCallsLocked(st *store.Store, now time.Time, businessID string, calls []CallFixture, path string) ([]string, *apiError) {
	sc, apiErr := newSeedContext(st, now, businessID)
	if apiErr != nil {
		return nil, apiErr
	}
	built := make([]*store.Call, len(calls))
	for i := range calls {
		f := &calls[i]
		p := fmt.Sprintf("%s/%d", path, i)
		_, exists := st.Calls.Get(f.ID)
		a, apiErr := sc.check(p, f.ID, exists, f.AgentID, f.CreatedAt)
		if apiErr != nil {
			return nil, apiErr
		}
		c := &store.Call{
			ConversationID: "conv_" + s.ids.token(12), Direction: firstNonEmpty(f.Direction, store.DirectionOutbound),
			AgentID: a.ID, AgentName: a.Name, Name: f.Name, Duration: f.Duration, Summary: f.Summary,
			Transcript: f.Transcript, MaxDuration: defaultMaxDuration, To: f.To, From: f.From,
			Answered: true,
		}
		other := c.To
		if c.Direction == store.DirectionInbound {
			c.Status = firstNonEmpty(f.Status, store.CallEnded)
			c.To = firstNonEmpty(c.To, businessNumber(st, a))
			other = c.From
		} else {
			c.Status = firstNonEmpty(f.Status, store.CallCompleted)
			c.From = firstNonEmpty(c.From, businessNumber(st, a))
		}
		if other == "" {
			field := map[string]string{store.DirectionInbound: "from", store.DirectionOutbound: "to"}[c.Direction]
			return nil, errInvalidField(p+"/"+field, "is required on %s calls", c.Direction)
		}
		if c.Status == store.CallFailed {
			if c.Duration > 0 {
				return nil, errInvalidField(p+"/duration", "a failed call never connected: it has no duration")
			}
			c.Error = firstNonEmpty(f.Error, "no_answer")
			c.EndedReason = c.Error
		}
		if c.Status == store.CallNoAnswer {
			c.EndedReason = "no_answer"
			if c.Duration > 0 {
				c.EndedReason = "voicemail"
			}
		}
		if f.LeadID != "" {
			l, ok := st.Leads.Get(f.LeadID)
			if !ok || l.Owner != businessID {
				return nil, errInvalidField(p+"/lead_id", "must be a lead of business %s", businessID)
			}
			c.LeadID = l.ID
		} else if l := st.LeadByPhone(businessID, other); l != nil {
			c.LeadID = l.ID
		}
		c.ID = firstNonEmpty(f.ID, s.ids.uuid())
		c.Owner = businessID
		built[i] = c
	}
	for _, i := range seedOrder(len(calls), func(i int) *time.Time { return calls[i].CreatedAt }, now) {
		c := built[i]
		c.CreatedAt = seedStamp(st.Calls, businessID, calls[i].CreatedAt, now)
		ended := c.CreatedAt.Add(time.Duration(c.Duration) * time.Second)
		c.EndedAt, c.UpdatedAt = &ended, ended
		if c.Duration > 0 {
			started := c.CreatedAt
			c.StartedAt = &started
			c.RecordingURL = recordingURLBase + c.ID + ".mp3"
			c.EndedReason = firstNonEmpty(c.EndedReason, "completed")
			st.AddCallMinutes(businessID, c.Duration)
		}
		st.Calls.Put(c)
	}
	ids := make([]string, len(built))
	for i, c := range built {
		ids[i] = c.ID
	}
	return ids, nil
}

// fixtureAdminRoutes: POST /_mock/fixtures loads a fixtures document.
func (s *Server) fixtureAdminRoutes() []*route {
	return []*route{{method: http.MethodPost, path: adminPrefix + "/fixtures", auth: authAdmin, lock: lockWrite,
		schema: "mockFixtures", handle: s.adminFixtures}}
}
