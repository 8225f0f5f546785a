package telephony

import (
	"encoding/json"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// Lead sources the platform sets when it creates a lead.
const (
	// SourceInboundCall is the source of a lead an answered inbound call
	// created.
	SourceInboundCall = "inbound_call"
	sourceVoicemail   = "voicemail"
	sourceMissedCall  = "missed_call"
	sourceSMS         = "sms"
	// sourceOutboundCall is the source of a lead a scripted outbound
	// call's caller details created.
	sourceOutboundCall = "outbound_call"
)

// Intents that lead collection recognises in what a caller says.
const (
	intentHuman   = "human"
	intentCancel  = "cancellation"
	intentBooking = "booking"
	// IntentQuote is the intent of a caller who asks for a price.
	IntentQuote   = "quote"
	intentSupport = "support"
	intentInquiry = "inquiry"
)

// intentRules map keywords of what a caller says to an intent; the first
// rule with a matching keyword wins.
var intentRules = []struct {
	intent string
	re     *regexp.Regexp
}{
	{intentHuman, regexp.MustCompile(`(?i)\b(human|real person|a person|representative|operator|manager|speak (to|with) someone|transfer me)\b`)},
	{intentCancel, regexp.MustCompile(`(?i)\bcancel`)},
	{intentBooking, regexp.MustCompile(`(?i)\b(book|booking|appointment|schedule|reserve|reservation|availability)\b`)},
	{IntentQuote, regexp.MustCompile(`(?i)\b(quote|price|pricing|cost|estimate|how much)\b`)},
	{intentSupport, regexp.MustCompile(`(?i)\b(broken|leak|leaking|problem|issue|not working|repair|fix)\b`)},
}

// intentPoints is what an intent adds to a lead's score.
var intentPoints = map[string]int{intentBooking: 20, IntentQuote: 15, intentInquiry: 5}

var (
	reSaidName  = regexp.MustCompile(`(?:[Mm]y name is|[Tt]his is|[Ii] am|[Ii]'m|[Ii]t's)\s+([A-Z][a-zA-Z'-]+(?:\s+[A-Z][a-zA-Z'-]+)?)`)
	reSaidEmail = regexp.MustCompile(`[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}`)
	reSaidPhone = regexp.MustCompile(`\+[1-9][0-9]{7,14}`)
)

// leadInfo is what lead collection extracted from a conversation.
type leadInfo struct {
	name, first, last string
	email, phone      string
	intent, said      string
}

// captured names the details the conversation captured.
func (i leadInfo) captured() []string {
	var out []string
	if i.name != "" {
		out = append(out, "name")
	}
	if i.email != "" {
		out = append(out, "email")
	}
	if i.phone != "" {
		out = append(out, "phone")
	}
	return out
}

// extractLead is the agents' built-in lead collection: the caller's name,
// email, phone and intent, from what the caller gave explicitly or, failing
// that, from what they said ("my name is Jane Doe", an email address, a
// +E.164 callback number, keywords). The phone defaults to the caller's
// number.
func extractLead(in store.CallerInput, callerNumber string) leadInfo {
	info := leadInfo{name: strings.TrimSpace(in.Name), email: strings.TrimSpace(in.Email),
		phone: strings.TrimSpace(in.Phone), said: strings.TrimSpace(in.Said), intent: strings.ToLower(strings.TrimSpace(in.Intent))}
	if info.name == "" {
		if m := reSaidName.FindStringSubmatch(info.said); m != nil {
			info.name = m[1]
		}
	}
	if info.email == "" {
		info.email = reSaidEmail.FindString(info.said)
	}
	if info.phone == "" {
		info.phone = reSaidPhone.FindString(info.said)
	}
	if info.phone == "" {
		info.phone = callerNumber
	}
	if info.intent == "" && info.said != "" {
		info.intent = intentInquiry
		for _, r := range intentRules {
			if r.re.MatchString(info.said) {
				info.intent = r.intent
				break
			}
		}
	}
	if f := strings.Fields(info.name); len(f) > 0 {
		info.first = f[0]
		info.last = strings.Join(f[1:], " ")
	}
	return info
}

// LeadScore is a lead's score, 0 to 100: converted leads score 100; lost,
// unqualified, spam and do_not_contact leads 0; any other lead 10, plus 15
// for a name, 15 for an email, 10 for a phone, 10 per interaction (at most
// 30), 20 for a booking intent, 15 for a quote and 5 for a general inquiry,
// and 10 when qualified; at most 100.
func LeadScore(l *store.Lead) int {
	switch l.Status {
	case store.LeadConverted:
		return 100
	case store.LeadLost, store.LeadUnqualified, store.LeadSpam, store.LeadDoNotContact:
		return 0
	}
	score := 10
	for _, p := range []struct {
		v   *string
		pts int
	}{{l.Name, 15}, {l.Email, 15}, {l.Phone, 10}} {
		if p.v != nil && *p.v != "" {
			score += p.pts
		}
	}
	score += min(30, 10*l.Interactions)
	if l.Intent != nil {
		score += intentPoints[*l.Intent]
	}
	if l.Status == store.LeadQualified {
		score += 10
	}
	return min(100, score)
}

// Rescore recomputes a lead's score and emits lead.scored when it changed.
func (s *Service) Rescore(tx *platform.Tx, now time.Time, l *store.Lead) {
	if sc := LeadScore(l); sc != l.Score {
		tx.Leads.Update(l, func(l *store.Lead) { l.Score = sc })
		s.Emit(tx, l.Owner, webhooks.EventLeadScored, now, LeadDetail(tx, l))
	}
}

// collectLead records what a conversation collected: the business's lead
// with the caller's number (or the phone or email they gave) is updated,
// otherwise a new lead is created (lead.created, then lead.scored). Either
// way the interaction is counted.
func (s *Service) collectLead(tx *platform.Tx, now time.Time, businessID, agentID, callerNumber string, info leadInfo, source string) *store.Lead {
	l := tx.LeadByPhone(businessID, callerNumber)
	if l == nil && info.phone != "" {
		l = tx.LeadByPhone(businessID, info.phone)
	}
	if l == nil && info.email != "" {
		l = tx.LeadByEmail(businessID, info.email)
	}
	if l == nil {
		nl := &store.Lead{Status: store.LeadNew, Source: val.Strp(source), AgentID: agentID, Interactions: 1}
		applyLeadInfo(nl, info)
		nl.Score = LeadScore(nl)
		tx.Leads.Insert(nl, businessID, now)
		nl.UpdatedAt = nl.CreatedAt
		nl.LastContactAt = &nl.CreatedAt
		view := LeadDetail(tx, nl)
		s.Emit(tx, businessID, webhooks.EventLeadCreated, now, view)
		s.Emit(tx, businessID, webhooks.EventLeadScored, now, view)
		return nl
	}
	tx.Leads.Update(l, func(l *store.Lead) { applyLeadInfo(l, info) })
	s.touchLead(tx, now, l, false)
	return l
}

// applyLeadInfo copies what a conversation captured onto a lead: newer
// details replace older ones; details not captured stay.
func applyLeadInfo(l *store.Lead, info leadInfo) {
	if info.name != "" {
		l.Name, l.FirstName, l.LastName = val.Strp(info.name), val.Strp(info.first), val.Strp(info.last)
	}
	if info.email != "" {
		l.Email = val.Strp(info.email)
	}
	if info.phone != "" && (l.Phone == nil || *l.Phone == "") {
		l.Phone = val.Strp(info.phone)
	}
	if info.said != "" {
		l.Message = val.Strp(info.said)
	}
	if info.intent != "" {
		l.Intent = val.Strp(info.intent)
	}
}

// touchLead counts one interaction with a lead (a call or a text); an
// outbound contact moves a new lead to contacted.
func (s *Service) touchLead(tx *platform.Tx, now time.Time, l *store.Lead, outbound bool) {
	tx.Leads.Update(l, func(l *store.Lead) {
		l.Interactions++
		at := now.UTC()
		l.LastContactAt = &at
		if outbound && l.Status == store.LeadNew {
			l.Status = store.LeadContacted
		}
		l.UpdatedAt = val.Later(l.UpdatedAt, now)
	})
	s.Rescore(tx, now, l)
}

// leadOf returns a lead the caller has access to, or 404.
func leadOf(rc *httpapi.Ctx, id string) (*store.Lead, error) {
	return httpapi.Reachable(rc, rc.Tx.Leads, id, "lead")
}

func (s *Service) getLeads(rc *httpapi.Ctx) (any, error) {
	if id := rc.Query("id"); id != "" {
		l, err := leadOf(rc, id)
		if err != nil {
			return nil, err
		}
		return LeadDetail(rc.Tx, l), nil
	}
	status := rc.Query("status")
	if status != "" && !slices.Contains(store.LeadStatuses, status) {
		return nil, domain.InvalidField("status", "must be one of %s", strings.Join(store.LeadStatuses, ", "))
	}
	pq, owners, err := rc.ListQuery(50, 100)
	if err != nil {
		return nil, err
	}
	source, agentID, phone, email := rc.Query("source"), rc.Query("agent_id"), rc.Query("phone"), rc.Query("email")
	match := func(l *store.Lead) bool {
		return (status == "" || l.Status == status) &&
			(source == "" || (l.Source != nil && *l.Source == source)) &&
			(agentID == "" || l.AgentID == agentID) &&
			(phone == "" || (l.Phone != nil && *l.Phone == phone)) &&
			(email == "" || (l.Email != nil && strings.EqualFold(*l.Email, email)))
	}
	var recs []*store.Lead
	var more bool
	if phone != "" || email != "" {
		// Exact lookups read the index, not the table.
		var cands []*store.Lead
		for _, o := range owners {
			if phone != "" {
				cands = append(cands, rc.Tx.LeadsByPhone(o, phone)...)
			} else {
				cands = append(cands, rc.Tx.LeadsByEmail(o, email)...)
			}
		}
		recs, more = pageOf(cands, pq, match)
	} else {
		recs, more = httpapi.PageRecords(rc.Tx.Leads, owners, pq, match)
	}
	items := make([]LeadListView, len(recs))
	for i, l := range recs {
		items[i] = LeadListItem(rc.Tx, l)
	}
	return leadList{Leads: items, HasMore: more}, nil
}

// leadList is a page of GET /v1/leads.
type leadList struct {
	Leads   []LeadListView `json:"leads"`
	HasMore bool           `json:"has_more"`
}

// pageOf pages a small candidate set (from an index) like
// httpapi.PageRecords does a table: newest first, before the cursor,
// filtered.
func pageOf[T store.Record](cands []T, pq httpapi.PageQuery, match func(T) bool) ([]T, bool) {
	slices.SortFunc(cands, func(a, b T) int { return b.RecordCreated().Compare(a.RecordCreated()) })
	var out []T
	for _, r := range cands {
		if !pq.After.IsZero() && !r.RecordCreated().Before(pq.After) {
			continue
		}
		if match != nil && !match(r) {
			continue
		}
		if len(out) == pq.Limit {
			return out, true
		}
		out = append(out, r)
	}
	return out, false
}

func (s *Service) updateLead(rc *httpapi.Ctx) (any, error) {
	if err := rc.Decode(nil); err != nil {
		return nil, err
	}
	var sent map[string]json.RawMessage
	if err := httpapi.DecodeLoose(rc.Body, &sent); err != nil {
		return nil, domain.Invalid("request body must be a JSON object")
	}
	var id string
	_ = json.Unmarshal(sent["id"], &id)
	l, err := leadOf(rc, id)
	if err != nil {
		return nil, err
	}
	rc.Tx.Leads.Update(l, func(l *store.Lead) {
		fields := map[string]**string{
			"name": &l.Name, "first_name": &l.FirstName, "last_name": &l.LastName,
			"email": &l.Email, "phone": &l.Phone, "source": &l.Source, "notes": &l.Notes,
			"address": &l.Address, "city": &l.City, "state": &l.State, "zip": &l.Zip,
		}
		for name, raw := range sent {
			if dst, ok := fields[name]; ok {
				var v *string
				_ = json.Unmarshal(raw, &v)
				*dst = v
			}
		}
		if raw, ok := sent["status"]; ok {
			_ = json.Unmarshal(raw, &l.Status)
		}
		l.UpdatedAt = val.Later(l.UpdatedAt, rc.Now)
	})
	s.Rescore(rc.Tx, rc.Now, l)
	return LeadDetail(rc.Tx, l), nil
}

// LeadListView is a lead in GET /v1/leads: the spec's list form, the
// members of leads.Lead.
type LeadListView struct {
	ID         string    `json:"id"`
	Name       *string   `json:"name"`
	FirstName  *string   `json:"first_name"`
	LastName   *string   `json:"last_name"`
	Email      *string   `json:"email"`
	Phone      *string   `json:"phone"`
	Status     string    `json:"status"`
	Source     *string   `json:"source"`
	AgentID    *string   `json:"agent_id"`
	AgentName  *string   `json:"agent_name"`
	BusinessID string    `json:"business_id"`
	CreatedAt  time.Time `json:"created_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// leadDetailView is a lead in GET /v1/leads?id=, PATCH responses and lead
// events: the list form, the spec's detail fields, and the mock's score,
// interaction_count, intent and last_contact_at.
type leadDetailView struct {
	LeadListView
	Zip              *string    `json:"zip"`
	Address          *string    `json:"address"`
	City             *string    `json:"city"`
	State            *string    `json:"state"`
	SourceURL        *string    `json:"source_url"`
	SourcePage       *string    `json:"source_page"`
	Notes            *string    `json:"notes"`
	Message          *string    `json:"message"`
	EventDate        *string    `json:"event_date"`
	EventType        *string    `json:"event_type"`
	Score            int        `json:"score"`
	InteractionCount int        `json:"interaction_count"`
	Intent           *string    `json:"intent"`
	LastContactAt    *time.Time `json:"last_contact_at"`
}

// LeadListItem is a lead in GET /v1/leads.
func LeadListItem(tx *platform.Tx, l *store.Lead) LeadListView {
	v := LeadListView{
		ID: l.ID, Name: l.Name, FirstName: l.FirstName, LastName: l.LastName,
		Email: l.Email, Phone: l.Phone, Status: l.Status, Source: l.Source,
		AgentID: val.Strp(l.AgentID), BusinessID: l.Owner, CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt,
	}
	if a, ok := tx.Agents.Get(l.AgentID); ok {
		name := a.Name
		v.AgentName = &name
	}
	return v
}

// LeadDetail is a lead in GET /v1/leads?id=, PATCH responses and lead events.
func LeadDetail(tx *platform.Tx, l *store.Lead) leadDetailView {
	return leadDetailView{
		LeadListView: LeadListItem(tx, l),
		Zip:          l.Zip, Address: l.Address, City: l.City, State: l.State,
		SourceURL: l.SourceURL, SourcePage: l.SourcePage, Notes: l.Notes, Message: l.Message,
		EventDate: l.EventDate, EventType: l.EventType, Score: l.Score, InteractionCount: l.Interactions,
		Intent: l.Intent, LastContactAt: l.LastContactAt,
	}
}
