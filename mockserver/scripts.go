package mockserver

import (
	"testing"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// Script is steps to add to a tenant's script: what the people and carriers
// on the other end of the tenant's next outbound calls and texts do. It is
// the body of POST /_mock/scripts and the argument of Server.AddScript and
// Account.Script.
//
// Steps for a number are used in order by the tenant's next outbound calls
// or texts to it, whoever places them (the API, communication runs, the
// SDR pipeline, approval requests); steps whose To is "*" match any number
// once the number's own are used; with no step left, the default
// simulation and the magic numbers apply. Other tenants never see a
// tenant's steps.
type Script struct {
	// BusinessID is a business of the tenant (Account.Script sets it).
	BusinessID string `json:"business_id"`
	// Calls are call steps, used by outbound calls.
	Calls []CallStep `json:"calls,omitempty"`
	// Texts are text steps, used by outbound texts.
	Texts []TextStep `json:"texts,omitempty"`
}

// CallStep is what the person on the other end of an outbound call does.
type CallStep struct {
	// To is the number called, E.164, or "*" for any number.
	To string `json:"to"`
	// Outcome is completed (answered, then the conversation), no_answer,
	// busy (failed, as the magic numbers fail), voicemail (the agent leaves
	// its message; the call completes with ended_reason voicemail) or
	// rejected (POST /v1/calls responds 500 call_failed, nothing stored).
	Outcome string `json:"outcome"`
	// RingSeconds is how long the call rings before the outcome (nil: 2
	// seconds; 30 for no_answer).
	RingSeconds *int `json:"ring_seconds,omitempty"`
	// Duration is how long a completed conversation lasts, in seconds
	// (nil: derived from the number), capped by the call's max_duration.
	Duration *int `json:"duration,omitempty"`
	// Transcript is a completed call's conversation, rendered as Agent: and
	// Caller: lines (nil: the simulated one).
	Transcript []Turn `json:"transcript,omitempty"`
	// Summary is the call's summary ("": the simulated one).
	Summary string `json:"summary,omitempty"`
	// Caller is what the person tells the agent on a completed call: lead
	// collection creates or updates the lead of the number with it.
	Caller *ScriptCaller `json:"caller,omitempty"`
}

// Turn is one line of a scripted transcript.
type Turn struct {
	// Role is agent or caller.
	Role string `json:"role"`
	// Text is what was said.
	Text string `json:"text"`
}

// ScriptCaller is what the person on a scripted call tells the agent.
type ScriptCaller struct {
	Name   string `json:"name,omitempty"`
	Email  string `json:"email,omitempty"`
	Intent string `json:"intent,omitempty"`
}

// TextStep is what the carrier and the recipient do with an outbound text.
type TextStep struct {
	// To is the recipient, E.164, or "*" for any number.
	To string `json:"to"`
	// Outcome is delivered, or failed (the send responds 500
	// sms_send_failed and the text is logged as failed).
	Outcome string `json:"outcome"`
	// Reply is a text the recipient sends back (delivered only).
	Reply *TextReply `json:"reply,omitempty"`
}

// TextReply is a text the recipient of a scripted text sends back, with
// every effect of Server.InboundSMS (STOP opts the number out, a lead is
// made or scored, sms.received).
type TextReply struct {
	// AfterSeconds is how long after delivery the reply arrives.
	AfterSeconds int `json:"after_seconds"`
	// Body is the reply's text.
	Body string `json:"body"`
}

// ScriptStep is a step of a tenant's script as GET /_mock/scripts shows
// it: the step as added, whether it was used, and by what.
type ScriptStep struct {
	ID string `json:"id"`
	// BusinessID is the tenant's root business.
	BusinessID  string        `json:"business_id"`
	Kind        string        `json:"kind"` // call or text
	To          string        `json:"to"`
	Outcome     string        `json:"outcome"`
	RingSeconds *int          `json:"ring_seconds,omitempty"`
	Duration    *int          `json:"duration,omitempty"`
	Transcript  []Turn        `json:"transcript,omitempty"`
	Summary     string        `json:"summary,omitempty"`
	Caller      *ScriptCaller `json:"caller,omitempty"`
	Reply       *TextReply    `json:"reply,omitempty"`
	// Status is pending or used.
	Status string `json:"status"`
	// UsedBy is the id of the call or text that used the step (nil while
	// pending, and for a call rejected at creation).
	UsedBy *string `json:"used_by"`
	// UsedAt is when the step was used, at the tenant's time.
	UsedAt    *time.Time `json:"used_at"`
	CreatedAt time.Time  `json:"created_at"`
}

// AddScript adds the steps of sc to the script of the tenant owning
// sc.BusinessID and returns them, calls first. Nothing is added when a step
// is refused.
func (s *Server) AddScript(sc Script) ([]ScriptStep, error) {
	in := sc.internal()
	if err := httpapi.Validate("mockScript", in); err != nil {
		return nil, publicError(err)
	}
	tx := s.platform.WriteTx()
	defer tx.End()
	steps, err := s.telephony.AddScript(tx, in)
	if err != nil {
		return nil, publicError(err)
	}
	return convertSlice(steps, scriptStep), nil
}

// ScriptSteps returns the script of the tenant owning businessID, oldest
// step first, used and pending: every page GET /_mock/scripts would list.
func (s *Server) ScriptSteps(businessID string) ([]ScriptStep, error) {
	var out []ScriptStep
	pq := httpapi.PageQuery{Limit: telephony.MaxStepPage}
	for {
		page, err := s.scriptPage(businessID, pq)
		if err != nil {
			return nil, err
		}
		out = append(out, convertSlice(page.Steps, scriptStep)...)
		if !page.HasMore {
			return out, nil
		}
		pq.After = page.Steps[len(page.Steps)-1].CreatedAt
	}
}

// scriptPage reads one page of a tenant's script, under a read Tx of its own.
func (s *Server) scriptPage(businessID string, pq httpapi.PageQuery) (telephony.StepPage, error) {
	tx := s.platform.ReadTx()
	defer tx.End()
	page, err := telephony.ScriptSteps(tx, businessID, pq, "")
	if err != nil {
		return telephony.StepPage{}, publicError(err)
	}
	return page, nil
}

// ClearScript removes the pending steps of the script of the tenant owning
// businessID and returns how many it removed.
func (s *Server) ClearScript(businessID string) (int, error) {
	tx := s.platform.WriteTx()
	defer tx.End()
	n, err := telephony.ClearScript(tx, businessID)
	if err != nil {
		return 0, publicError(err)
	}
	return n, nil
}

// Script adds steps to the account's tenant's script: see Server.AddScript.
func (a *Account) Script(sc Script) ([]ScriptStep, error) {
	sc.BusinessID = a.BusinessID
	return a.srv.AddScript(sc)
}

// ScriptSteps returns the account's tenant's script: see Server.ScriptSteps.
func (a *Account) ScriptSteps() ([]ScriptStep, error) { return a.srv.ScriptSteps(a.BusinessID) }

// ClearScript removes the pending steps of the account's tenant's script.
func (a *Account) ClearScript() (int, error) { return a.srv.ClearScript(a.BusinessID) }

// VerifyScript fails t for each step of the account's tenant's script that
// no call or text used, as a mock's verification would: call it at the end
// of a test that scripted the other end.
func (a *Account) VerifyScript(t testing.TB) {
	t.Helper()
	steps, err := a.ScriptSteps()
	if err != nil {
		t.Errorf("mockserver: the script: %v", err)
		return
	}
	for _, st := range steps {
		if st.Status != "used" {
			t.Errorf("mockserver: script step %s was not used: a %s to %s, %s", st.ID, st.Kind, st.To, st.Outcome)
		}
	}
}

func (sc Script) internal() telephony.Script {
	return telephony.Script{
		BusinessID: sc.BusinessID,
		Calls: convertSlice(sc.Calls, func(c CallStep) telephony.CallStep {
			return telephony.CallStep{
				To: c.To, Outcome: c.Outcome, RingSeconds: c.RingSeconds, Duration: c.Duration,
				Transcript: convertSlice(c.Transcript, func(t Turn) store.ScriptTurn { return store.ScriptTurn(t) }),
				Summary:    c.Summary, Caller: (*store.ScriptCaller)(c.Caller),
			}
		}),
		Texts: convertSlice(sc.Texts, func(t TextStep) telephony.TextStep {
			return telephony.TextStep{To: t.To, Outcome: t.Outcome, Reply: (*store.ScriptReply)(t.Reply)}
		}),
	}
}

func scriptStep(v telephony.StepView) ScriptStep {
	return ScriptStep{
		ID: v.ID, BusinessID: v.BusinessID, Kind: v.Kind, To: v.To, Outcome: v.Outcome,
		RingSeconds: v.RingSeconds, Duration: v.Duration,
		Transcript: convertSlice(v.Transcript, func(t store.ScriptTurn) Turn { return Turn(t) }),
		Summary:    v.Summary, Caller: (*ScriptCaller)(v.Caller), Reply: (*TextReply)(v.Reply),
		Status: v.Status, UsedBy: v.UsedBy, UsedAt: v.UsedAt, CreatedAt: v.CreatedAt,
	}
}
