package telephony

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
	"github.com/voiceagent/voiceagent-go/sms"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// Magic SMS numbers (docs/mockserver.md, section Magic values): checked
// before anything else.
const (
	magicSMSOnDNC    = "+15005550010" // refused: number_on_dnc
	magicSMSOptedOut = "+15005550011" // refused: number_opted_out
	magicSMSTCPA     = "+15005550013" // refused: tcpa_violation

	// MagicSMSSendFails is the number whose texts the carrier fails: the
	// text skips the compliance checks, is logged as failed and the response
	// is 500 sms_send_failed.
	MagicSMSSendFails = "+15005550012"
)

// Quiet hours: texts may reach a recipient from 08:00 to 20:59 their local
// time.
const (
	// QuietHoursEnd is the first hour of the day at which texts may be sent.
	QuietHoursEnd = 8
	// QuietHoursStart is the first hour of the evening at which texts are
	// refused (tcpa_violation).
	QuietHoursStart = 21
)

// smsDeliveryDelay is how long after sending a text is delivered.
const smsDeliveryDelay = 2 * time.Second

// MessagingServiceKey in an agent's metadata makes it send through a
// messaging service: the response's from is "messaging_service".
const MessagingServiceKey = "messaging_service_sid"

// blockedContent is the content compliance rule: carrier-filtered
// categories (cannabis, gambling, high-risk lending, firearms, adult) and
// public link shorteners, matched case-insensitively as whole words.
var blockedContent = regexp.MustCompile(`(?i)(\b(cannabis|marijuana|cbd|thc|casino|gambling|sports betting|payday loans?|guaranteed approval|debt forgiveness|free money|firearms?|xxx)\b|\b(bit\.ly|tinyurl\.com|goo\.gl|ow\.ly|t\.co)/)`)

// Opt-out and opt-in keywords of inbound texts (the message, trimmed,
// case-insensitive).
var (
	stopKeywords  = []string{"STOP", "STOPALL", "UNSUBSCRIBE", "CANCEL", "END", "QUIT", "OPTOUT"}
	startKeywords = []string{"START", "UNSTOP", "YES", "OPTIN"}
)

// areaCodeZones maps North American area codes to time zones for quiet
// hours; other +1 numbers use the sending business's time zone.
var areaCodeZones = func() map[string]string {
	m := map[string]string{}
	add := func(zone string, codes ...string) {
		for _, c := range codes {
			m[c] = zone
		}
	}
	add("America/New_York", "201", "202", "203", "212", "215", "301", "305", "347", "404", "407", "412",
		"413", "617", "646", "678", "704", "718", "732", "754", "786", "857", "860", "904", "917", "954", "973")
	add("America/Chicago", "205", "210", "214", "312", "314", "316", "405", "414", "469", "501", "504",
		"512", "612", "615", "713", "773", "816", "832", "901", "972")
	add("America/Denver", "303", "385", "406", "505", "720", "801")
	add("America/Phoenix", "480", "602")
	add("America/Los_Angeles", "206", "213", "253", "310", "323", "408", "415", "425", "503", "510",
		"619", "626", "650", "702", "714", "818", "858", "909", "916", "949")
	add("America/Anchorage", "907")
	add("Pacific/Honolulu", "808")
	return m
}()

// countryZones maps country codes outside North America to a time zone.
var countryZones = []struct{ prefix, zone string }{
	{"+44", "Europe/London"}, {"+33", "Europe/Paris"}, {"+49", "Europe/Berlin"},
	{"+34", "Europe/Madrid"}, {"+39", "Europe/Rome"}, {"+31", "Europe/Amsterdam"},
	{"+61", "Australia/Sydney"}, {"+81", "Asia/Tokyo"}, {"+91", "Asia/Kolkata"},
	{"+52", "America/Mexico_City"}, {"+55", "America/Sao_Paulo"},
}

// RecipientLocation is the time zone of a number: by area code (+1) or
// country code, else the business's.
func RecipientLocation(number string, b *store.Business) *time.Location {
	if strings.HasPrefix(number, "+1") && len(number) >= 5 {
		if z, ok := areaCodeZones[number[2:5]]; ok {
			return location(z)
		}
		return BusinessLocation(b)
	}
	for _, c := range countryZones {
		if strings.HasPrefix(number, c.prefix) {
			return location(c.zone)
		}
	}
	return BusinessLocation(b)
}

// smsCompliance is the check every outbound text passes, in order: the magic
// numbers (+15005550012 never gets here: it goes straight to the carrier,
// which fails), do-not-call (national registry and the business's list),
// consent (opted in, not opted out), quiet hours in the recipient's local
// time (loc), then content.
func smsCompliance(tx *platform.Tx, now time.Time, b *store.Business, to, body string, loc *time.Location) *domain.Error {
	switch to {
	case magicSMSOnDNC:
		return domain.New(voiceagent.CodeNumberOnDNC, to+" is on the do-not-call list")
	case magicSMSOptedOut:
		return domain.New(voiceagent.CodeNumberOptedOut, to+" has opted out of texts")
	case magicSMSTCPA:
		return domain.New(voiceagent.CodeTCPAViolation, "sending to "+to+" would violate consent law (TCPA)")
	}
	if tx.OnDNC(b.ID, to) {
		return domain.New(voiceagent.CodeNumberOnDNC, to+" is on the do-not-call list")
	}
	switch tx.Consent(b.ID, to) {
	case store.ConsentOptedOut:
		return domain.New(voiceagent.CodeNumberOptedOut, to+" has opted out of texts (replied STOP); they must text START to opt back in")
	case store.ConsentNone:
		return domain.New(voiceagent.CodeNumberOptedOut, to+" has not opted in to texts: consent comes from an inbound text or call from that number (in the mock: POST /_mock/inbound-sms, POST /_mock/consent, or srv.SetConsent in Go)")
	}
	if local := now.In(loc); local.Hour() < QuietHoursEnd || local.Hour() >= QuietHoursStart {
		return domain.New(voiceagent.CodeTCPAViolation, fmt.Sprintf(
			"quiet hours: it is %s in the recipient's time zone (%s); texts may be sent from 08:00 to 21:00 local time",
			local.Format("15:04"), loc.String())).With("recipient_local_time", local.Format(time.RFC3339))
	}
	if m := blockedContent.FindString(body); m != "" {
		return domain.New(voiceagent.CodeContentBlocked, fmt.Sprintf("the message failed the content compliance check (%q is not allowed)", m))
	}
	return nil
}

// SMSPrecheck is what SendSMS checks before a text reaches the carrier: the
// sender (the agent's number, or "messaging_service") and the compliance
// checks. It changes nothing, so a dry run can ask it too.
func SMSPrecheck(tx *platform.Tx, now time.Time, req SMSRequest) (from string, apiErr *domain.Error) {
	a := req.Agent
	from = a.PhoneNumber
	if sid, _ := a.Metadata[MessagingServiceKey].(string); sid != "" {
		from = "messaging_service"
	}
	if req.From != "" {
		from = req.From
	}
	if from == "" {
		return "", domain.NotFound("agent " + a.ID + " has no phone number to send from")
	}
	b, _ := tx.Businesses.Get(a.Owner)
	if b == nil {
		return "", domain.NotFound("agent not found: " + a.ID)
	}
	// The magic failing number skips the compliance checks, like every
	// magic number: it always reaches the carrier, which fails.
	if req.To != MagicSMSSendFails {
		loc := RecipientLocation(req.To, b)
		if req.Timezone != "" {
			loc = location(req.Timezone)
		}
		if err := smsCompliance(tx, now, b, req.To, req.Body, loc); err != nil {
			return "", err
		}
	}
	return from, nil
}

// ErrCarrierRejected is the carrier's failure on the magic failing number.
func ErrCarrierRejected(to string) *domain.Error {
	return domain.Dependency(voiceagent.CodeSMSSendFailed, "the carrier rejected the message to "+to)
}

// SMSRequest is one outbound text.
type SMSRequest struct {
	Agent *store.Agent
	To    string
	Body  string
	Lead  *store.Lead // nil: the business's lead with that number, if any
	// CarrierFault is a simulated carrier failure (fault injection), or nil.
	CarrierFault *domain.Error
	// From overrides the sending number (a communication run's number).
	From string
	// Ref is the run touch that sends the text (runs_telephony.go).
	Ref store.TouchRef
	// Timezone is the recipient's time zone when known (a run touch's
	// target); "" derives it from the number.
	Timezone string
}

// SendSMS is the one path of outbound texts (POST /v1/sms/send, and any
// platform process that texts a person): sender, compliance, then the
// carrier. A refused text is not logged; a text the carrier fails is logged
// as failed (sms.failed); a sent one is logged in the lead's thread
// (sms.sent, delivered two seconds later: sms.delivered), counts as an
// interaction and appears in the outbox.
func (s *Service) SendSMS(tx *platform.Tx, now time.Time, req SMSRequest) (*store.SMSMessage, *domain.Error) {
	a := req.Agent
	from, apiErr := SMSPrecheck(tx, now, req)
	if apiErr != nil {
		return nil, apiErr
	}
	lead := req.Lead
	if lead == nil {
		lead = tx.LeadByPhone(a.Owner, req.To)
	}
	m := &store.SMSMessage{
		MessageSID: "SM" + s.IDs.Token(16), AgentID: a.ID, Direction: store.DirectionOutbound,
		From: from, To: req.To, Body: req.Body, Status: store.SMSSent, Ref: req.Ref,
	}
	if lead != nil {
		m.LeadID = lead.ID
	}
	fault := req.CarrierFault
	var step *store.ScriptStep
	if fault == nil {
		step = tx.NextStep(tx.TenantOf(a.Owner), store.StepText, req.To)
	}
	if fault == nil {
		fault = textRefusal(step, req.To)
	}
	if fault != nil {
		m.Status, m.Error = store.SMSFailed, fault.Message
	}
	if step != nil {
		m.Step = step.ID
	}
	tx.SMSMessages.Insert(m, a.Owner, now)
	m.UpdatedAt = m.CreatedAt
	if step != nil {
		tx.UseStep(step, m.ID, now)
	}
	if fault != nil {
		s.Emit(tx, a.Owner, webhooks.EventSMSFailed, now, smsView(m))
		return m, fault
	}
	s.Emit(tx, a.Owner, webhooks.EventSMSSent, now, smsView(m))
	s.SendOutbox(tx, now, store.OutboxMessage{BusinessID: a.Owner, Channel: "sms", To: req.To, From: from, Body: req.Body})
	if lead != nil {
		s.touchLead(tx, now, lead, true)
	}
	s.Schedule(tx.TenantOf(a.Owner), clock.Task{At: now.Add(smsDeliveryDelay), Kind: TaskTextDelivery, Subject: m.ID})
	return m, nil
}

// deliverText is the task TaskTextDelivery: the carrier delivers text
// t.Subject if it is still sent (sms.delivered), and its script step's
// reply is scheduled.
func (s *Service) deliverText(tx *platform.Tx, now time.Time, t clock.Task) {
	m, ok := tx.SMSMessages.Get(t.Subject)
	if !ok || m.Status != store.SMSSent {
		return
	}
	tx.SMSMessages.Update(m, func(m *store.SMSMessage) {
		m.Status = store.SMSDelivered
		m.UpdatedAt = val.Later(m.UpdatedAt, now)
	})
	s.Emit(tx, m.Owner, webhooks.EventSMSDelivered, now, smsView(m))
	s.TextDelivered(tx, now, m)
	s.scheduleReply(tx, now, m)
}

// Kinds of the texts' tasks on the schedule (Subject: the text).
const (
	// TaskTextDelivery: the carrier delivers a sent text.
	TaskTextDelivery = "sms.delivery"
	// TaskTextReply: the recipient of a scripted text replies.
	TaskTextReply = "sms.reply"
)

// scheduleReply schedules the reply of a delivered text's script step, if
// it has one, after_seconds later (see replyText).
func (s *Service) scheduleReply(tx *platform.Tx, now time.Time, m *store.SMSMessage) {
	step, ok := tx.Scripts.Get(m.Step)
	if !ok || step.Reply == nil {
		return
	}
	at := now.Add(time.Duration(step.Reply.AfterSeconds) * time.Second)
	s.Schedule(tx.TenantOf(m.Owner), clock.Task{At: at, Kind: TaskTextReply, Subject: m.ID})
}

// replyText is the task TaskTextReply: the recipient of text t.Subject
// replies with its script step's reply, a text to the number that sent it,
// received as POST /_mock/inbound-sms receives one.
func (s *Service) replyText(tx *platform.Tx, now time.Time, t clock.Task) {
	m, ok := tx.SMSMessages.Get(t.Subject)
	if !ok {
		return
	}
	step, ok := tx.Scripts.Get(m.Step)
	if !ok || step.Reply == nil {
		return
	}
	to := m.From
	if a, ok := tx.Agents.Get(m.AgentID); ok && to == "messaging_service" {
		to = BusinessNumber(tx, a)
	}
	if n, ok := tx.NumbersByPhone[to]; ok {
		s.receiveText(tx, now, n, m.To, step.Reply.Body)
	}
}

func (s *Service) sendSMSHandler(rc *httpapi.Ctx) (any, error) {
	var body struct {
		To          string `json:"to"`
		FromAgentID string `json:"from_agent_id"`
		Message     string `json:"message"`
		LeadID      string `json:"lead_id"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	a, err := AgentOf(rc, body.FromAgentID)
	if err != nil {
		return nil, err
	}
	req := SMSRequest{Agent: a, To: body.To, Body: body.Message}
	if body.LeadID != "" {
		l, ok := rc.Tx.Leads.Get(body.LeadID)
		if !ok || l.Owner != a.Owner {
			return nil, domain.NotFound("lead not found: " + body.LeadID)
		}
		req.Lead = l
	}
	if e := rc.DependencyFault(admin.FaultTargetSMSProvider); e != nil {
		req.CarrierFault = domain.Dependency(voiceagent.CodeSMSSendFailed, "the carrier failed: "+e.Message)
	}
	m, apiErr := s.SendSMS(rc.Tx, rc.Now, req)
	if apiErr != nil {
		return nil, apiErr
	}
	return sms.Sent{
		Success: true, MessageSID: m.MessageSID, To: m.To, From: m.From,
		ID: m.ID, LeadID: val.Strp(m.LeadID), Status: m.Status,
	}, nil
}

func (s *Service) updateSMSPrompt(rc *httpapi.Ctx) (any, error) {
	var body struct {
		AgentID   string `json:"agent_id"`
		SMSPrompt string `json:"sms_prompt"`
		Reason    string `json:"reason"`
	}
	if err := rc.Decode(&body); err != nil {
		return nil, err
	}
	a, err := AgentOf(rc, body.AgentID)
	if err != nil {
		return nil, err
	}
	e := &store.PromptAudit{AgentID: a.ID, Field: "sms_prompt", OldValue: a.SMSPrompt, NewValue: body.SMSPrompt,
		Reason: body.Reason, ActorUser: rc.Principal.User.ID}
	if rc.Principal.Key != nil {
		e.ActorKey = rc.Principal.Key.Prefix
	}
	rc.Tx.PromptAudits.Insert(e, a.Owner, rc.Now)
	rc.Tx.Agents.Update(a, func(a *store.Agent) {
		a.SMSPrompt = body.SMSPrompt
		a.UpdatedAt = val.Later(a.UpdatedAt, rc.Now)
	})
	return sms.PromptUpdated{Success: true, AgentID: a.ID, Message: "SMS prompt updated"}, nil
}

func (s *Service) listSMS(rc *httpapi.Ctx) (any, error) {
	pq, owners, err := rc.ListQuery(50, 100)
	if err != nil {
		return nil, err
	}
	leadID, phone, agentID, direction := rc.Query("lead_id"), rc.Query("phone"), rc.Query("agent_id"), rc.Query("direction")
	if leadID != "" {
		l, err := leadOf(rc, leadID)
		if err != nil {
			return nil, err
		}
		owners = []string{l.Owner}
	}
	if direction != "" && direction != store.DirectionInbound && direction != store.DirectionOutbound {
		return nil, domain.InvalidField("direction", "must be inbound or outbound")
	}
	items, more := httpapi.ListPage(rc.Tx.SMSMessages, owners, pq, func(m *store.SMSMessage) bool {
		return (leadID == "" || m.LeadID == leadID) && (phone == "" || m.To == phone || m.From == phone) &&
			(agentID == "" || m.AgentID == agentID) && (direction == "" || m.Direction == direction)
	}, smsView)
	return smsList{Messages: items, HasMore: more}, nil
}

// smsList is a page of GET /v1/sms/messages.
type smsList struct {
	Messages []sms.Message `json:"messages"`
	HasMore  bool          `json:"has_more"`
}

// smsView is a text as GET /v1/sms/messages and the sms.* events show it.
func smsView(m *store.SMSMessage) sms.Message {
	return sms.Message{
		ID: m.ID, MessageSID: m.MessageSID, LeadID: val.Strp(m.LeadID), AgentID: m.AgentID,
		BusinessID: m.Owner, Direction: m.Direction, From: m.From, To: m.To, Body: m.Body,
		Status: m.Status, Error: val.Strp(m.Error), CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
		TouchRef: voiceagent.TouchRef(m.Ref),
	}
}

// inboundSMSLocked receives a text to a platform number: STOP (and the other
// opt-out keywords) revokes consent, START (and the other opt-in keywords)
// restores it, any other text grants it unless the number opted out. The
// text joins the lead's thread (a lead is created for a new number unless
// the text is a keyword) and sms.received is emitted, at the time of the
// number's tenant.
func (s *Service) inboundSMSLocked(tx *platform.Tx, to, from, body string) (admin.InboundSMSResult, *domain.Error) {
	n, ok := tx.NumbersByPhone[to]
	if !ok {
		return admin.InboundSMSResult{}, domain.NotFound(to + " is not a platform number")
	}
	return s.receiveText(tx, s.Now(tx.TenantOf(n.Owner)), n, from, body), nil
}

// receiveText receives a text from a person to the platform number n at
// now: the rules of inboundSMSLocked.
func (s *Service) receiveText(tx *platform.Tx, now time.Time, n *store.Number, from, body string) admin.InboundSMSResult {
	to, biz := n.PhoneNumber, n.Owner
	kw := strings.ToUpper(strings.TrimSpace(body))
	isStop, isStart := slices.Contains(stopKeywords, kw), slices.Contains(startKeywords, kw)
	switch {
	case isStop:
		tx.SetConsent(biz, from, store.ConsentOptedOut)
	case isStart:
		tx.SetConsent(biz, from, store.ConsentOptedIn)
	case tx.Consent(biz, from) != store.ConsentOptedOut:
		tx.SetConsent(biz, from, store.ConsentOptedIn)
	}
	var lead *store.Lead
	if isStop || isStart {
		if lead = tx.LeadByPhone(biz, from); lead != nil {
			s.touchLead(tx, now, lead, false)
		}
	} else {
		lead = s.collectLead(tx, now, biz, n.AgentID, from, extractLead(store.CallerInput{Said: body}, from), sourceSMS)
	}
	m := &store.SMSMessage{
		MessageSID: "SM" + s.IDs.Token(16), AgentID: n.AgentID, Direction: store.DirectionInbound,
		From: from, To: to, Body: body, Status: store.SMSReceived,
	}
	if lead != nil {
		m.LeadID = lead.ID
	}
	tx.SMSMessages.Insert(m, biz, now)
	m.UpdatedAt = m.CreatedAt
	s.Emit(tx, biz, webhooks.EventSMSReceived, now, smsView(m))
	return admin.InboundSMSResult{MessageID: m.ID, LeadID: m.LeadID, Consent: admin.Consent(tx.Consent(biz, from))}
}
