package telephony

import (
	"fmt"
	"hash/fnv"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // business and recipient time zones without the host's zoneinfo

	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// DefaultMaxDuration is the longest a call lasts, in seconds, when neither
// the request nor the agent sets max_duration (spec section 8).
const DefaultMaxDuration = 600

// RecordingURLBase is where finished calls' recordings are: the call's
// recording_url is this, the call's id and ".mp3".
const RecordingURLBase = "https://recordings.voiceagent.example/"

// RecordingURL is the recording_url of a call: RecordingURLBase, its id
// and ".mp3" when it has a recording, else "".
func RecordingURL(c *store.Call) string {
	if !c.Recorded {
		return ""
	}
	return RecordingURLBase + c.ID + ".mp3"
}

// Simulated call timings (docs/mockserver.md, section Call states).
const (
	outboundRingTime     = 2 * time.Second  // queued -> in-progress (or busy)
	noAnswerRingTime     = 30 * time.Second // how long an unanswered call rings
	inboundRingTime      = 2 * time.Second  // ringing -> in-progress
	minSimulatedDuration = 30               // seconds
	maxSimulatedDuration = 300              // seconds
)

// Magic call numbers (docs/mockserver.md, section Magic values).
const (
	magicCallNoAnswer = "+15005550001" // rings 30 seconds, then fails: no_answer
	magicCallBusy     = "+15005550002" // fails after the ring time: busy

	// MagicCallFailed is the number whose calls the carrier refuses:
	// POST /v1/calls responds 500 call_failed and stores nothing.
	MagicCallFailed = "+15005550003"
)

// hash32 is the deterministic source of everything "derived from the
// number": durations and quality scores.
func hash32(s string) uint32 {
	h := fnv.New32a()
	_, _ = h.Write([]byte(s))
	return h.Sum32()
}

// simulatedDuration is a conversation's length derived from a number: 30 to
// 300 seconds.
func simulatedDuration(number string) int {
	return minSimulatedDuration + int(hash32(number)%uint32(maxSimulatedDuration-minSimulatedDuration+1))
}

// qualityFor scores a finished conversation from 1 to 10 per dimension:
// a base derived from the other party's number, plus information gathering
// for each detail captured, and resolution lowered when the call was cut by
// max_duration.
func qualityFor(number string, captured int, capped bool) *store.QualityDimensions {
	h := hash32("quality:" + number)
	q := &store.QualityDimensions{
		Professionalism:      7 + int(h%4),
		Empathy:              6 + int((h>>4)%5),
		InformationGathering: min(10, 5+int((h>>8)%3)+captured),
		Resolution:           6 + int((h>>12)%5),
	}
	if capped {
		q.Resolution = 3
	}
	return q
}

var (
	locMu    sync.Mutex
	locCache = map[string]*time.Location{}
)

// location loads a time zone once; unknown names fall back to UTC.
func location(name string) *time.Location {
	locMu.Lock()
	defer locMu.Unlock()
	if l, ok := locCache[name]; ok {
		return l
	}
	l, err := time.LoadLocation(name)
	if err != nil {
		l = time.UTC
	}
	locCache[name] = l
	return l
}

// BusinessLocation is a business's time zone (America/New_York by default).
func BusinessLocation(b *store.Business) *time.Location {
	if b == nil || b.Timezone == "" {
		return location("America/New_York")
	}
	return location(b.Timezone)
}

// timeOfDay is morning (05:00-11:59), afternoon (12:00-16:59) or evening
// (17:00-04:59) at t in loc.
func timeOfDay(t time.Time, loc *time.Location) string {
	switch h := t.In(loc).Hour(); {
	case h >= 5 && h < 12:
		return "morning"
	case h >= 12 && h < 17:
		return "afternoon"
	}
	return "evening"
}

// callVariables are the enrichment variables the agent's prompt receives.
// With a lead (lead_id, or a lead whose phone is the number called): name,
// lead_score, lead_status, interaction_count, days_since_first_contact and
// lead_source; always: business_name, business_phone and time_of_day; name
// also when the request gives one.
func callVariables(now time.Time, b *store.Business, from string, lead *store.Lead, name string) store.CallVariables {
	v := store.CallVariables{BusinessName: b.Name, BusinessPhone: from, TimeOfDay: timeOfDay(now, BusinessLocation(b)), Name: name}
	if lead != nil {
		if v.Name == "" && lead.Name != nil {
			v.Name = *lead.Name
		}
		v.Lead = true
		v.LeadScore, v.LeadStatus, v.InteractionCount = int32(lead.Score), lead.Status, int32(lead.Interactions)
		v.DaysSinceFirstContact = int32(now.Sub(lead.CreatedAt) / (24 * time.Hour))
		v.LeadSource = lead.Source
	}
	return v
}

// fillVariables replaces {{name}} placeholders in text with the variables.
func fillVariables(text string, v store.CallVariables) string {
	if !strings.Contains(text, "{{") {
		return text
	}
	vars := v.Map()
	pairs := make([]string, 0, 2*len(vars))
	for k, v := range vars {
		s := ""
		if v != nil {
			s = fmt.Sprint(v)
		}
		pairs = append(pairs, "{{"+k+"}}", s, "{{ "+k+" }}", s)
	}
	return strings.NewReplacer(pairs...).Replace(text)
}

// outboundOpening is the opening line of an outbound call: the request's
// firstMessage, else the agent's outbound greeting, else a generated one.
func outboundOpening(override string, a *store.Agent, b *store.Business, name string) string {
	switch {
	case override != "":
		return override
	case a.OutboundFirstMessage != "":
		return a.OutboundFirstMessage
	case name != "":
		return fmt.Sprintf("Hi %s, this is %s calling from %s.", name, a.Name, b.Name)
	}
	return fmt.Sprintf("Hi, this is %s calling from %s.", a.Name, b.Name)
}

// outboundConversation writes the transcript and summary of a completed
// outbound call.
func outboundConversation(c *store.Call, b *store.Business, capped bool) (transcript, summary string) {
	who := c.Name
	if who == "" {
		who = c.To
	}
	about := "a follow-up on their recent inquiry"
	if c.Context != "" {
		about = c.Context
	}
	lines := []string{
		"Agent: " + c.FirstMessage,
		"Caller: Hi, yes, this is " + httpapi.FirstNonEmpty(c.Name, "me") + ".",
		"Agent: I'm calling about " + strings.TrimSuffix(about, ".") + ".",
		"Caller: Sure, that works for me.",
	}
	if capped {
		lines = append(lines, "Agent: We've reached the time limit for this call, so I'll follow up by text. Goodbye.")
		summary = fmt.Sprintf("Outbound call to %s about %s; the call reached its %d-second limit before wrapping up.",
			who, strings.TrimSuffix(about, "."), c.MaxDuration)
	} else {
		lines = append(lines,
			"Agent: Great, I've noted that. Is there anything else I can help with?",
			"Caller: No, that's all. Thanks!",
			"Agent: Thank you for your time. Goodbye from "+b.Name+"!")
		summary = fmt.Sprintf("Outbound call to %s about %s; the caller agreed and the agent noted the next step.",
			who, strings.TrimSuffix(about, "."))
	}
	return strings.Join(lines, "\n"), summary
}

// inboundConversation writes the transcript and summary of an answered
// inbound call from what the caller said and what lead collection found.
func inboundConversation(c *store.Call, a *store.Agent, b *store.Business, info leadInfo, transferTo string, capped bool) (transcript, summary string) {
	said := httpapi.FirstNonEmpty(c.CallerInfo().Said, "Hi, I have a question.")
	lines := []string{"Agent: " + httpapi.FirstNonEmpty(a.FirstMessage, DefaultGreeting), "Caller: " + said}
	if info.name != "" {
		lines = append(lines, "Agent: Thanks for calling "+b.Name+". May I have your name?", "Caller: It's "+info.name+".")
	} else {
		lines = append(lines, "Agent: Thanks for calling "+b.Name+". May I have your name?", "Caller: I'd rather not say.")
	}
	if info.email != "" {
		lines = append(lines, "Agent: And what's the best email to reach you?", "Caller: "+info.email+".")
	}
	who := httpapi.FirstNonEmpty(info.name, c.From)
	switch {
	case capped:
		lines = append(lines, "Agent: We've reached the time limit for this call; someone will call you back. Goodbye.")
		summary = fmt.Sprintf("Inbound call from %s (%s); the call reached its %d-second limit before wrapping up.", who, info.intent, c.MaxDuration)
	case transferTo != "":
		lines = append(lines, "Agent: Of course. Let me transfer you to a member of our team now.")
		summary = fmt.Sprintf("Inbound call from %s (%s); the caller asked for a person and was transferred to %s.", who, info.intent, transferTo)
	default:
		lines = append(lines,
			"Agent: Thank you"+prefixed(", ", info.name)+". I've noted that you're calling about "+intentPhrase(info.intent)+"; someone will follow up shortly.",
			"Caller: Thanks, bye.")
		summary = fmt.Sprintf("Inbound call from %s about %s: %q.", who, intentPhrase(info.intent), truncate(said, 120))
	}
	if captured := info.captured(); len(captured) > 0 && transferTo == "" {
		summary += " Captured: " + strings.Join(captured, ", ") + "."
	}
	return strings.Join(lines, "\n"), summary
}

// voicemailDuration is the length of a voicemail: about two and a half
// words a second, at least 5 seconds.
func voicemailDuration(text string) int {
	return max(5, len(strings.Fields(text))*2/5)
}

func intentPhrase(intent string) string {
	switch intent {
	case intentBooking:
		return "booking an appointment"
	case IntentQuote:
		return "a price quote"
	case intentSupport:
		return "a problem that needs support"
	case intentCancel:
		return "a cancellation"
	case intentHuman:
		return "speaking with a person"
	}
	return "a general inquiry"
}

func prefixed(prefix, s string) string {
	if s == "" {
		return ""
	}
	return prefix + s
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
