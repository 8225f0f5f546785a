package runs

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/hooks"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// start is the tests' fixed start time: 11:00 in New York (EDT), outside
// texts' quiet hours.
var start = time.Date(2026, 3, 10, 15, 0, 0, 0, time.UTC)

// world is one server's platform and runs domain, wired as mockserver.New
// wires them: a business with an intake agent and its number, a second
// agent without a number, a lead; and another business with its own agent
// and lead.
type world struct {
	p                  *platform.Platform
	runs               *Service
	biz, other         *store.Business
	intake, bare       *store.Agent
	number             *store.Number
	lead               *store.Lead
	otherAgent         *store.Agent
	otherLead, noAgent string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	seed := uint64(7)
	p := platform.New(platform.Config{Start: start, IDSeed: &seed})
	tel := telephony.New(p, hooks.New(p))
	w := &world{p: p, runs: New(p, tel)}
	p.Write(func(tx *platform.Tx) {
		w.biz = tx.InsertBusiness(&store.Business{Name: "Acme", Timezone: "America/New_York"}, start)
		w.bare = &store.Agent{Name: "Bare", Status: "active"}
		tx.Agents.Insert(w.bare, w.biz.ID, start)
		w.intake = &store.Agent{Name: "Sam", Status: "active", PhoneNumber: "+15550100001", Intake: true}
		tx.Agents.Insert(w.intake, w.biz.ID, start)
		w.number = &store.Number{PhoneNumber: w.intake.PhoneNumber, AgentID: w.intake.ID}
		tx.Numbers.Insert(w.number, w.biz.ID, start)
		tx.NumbersByPhone[w.number.PhoneNumber] = w.number
		w.lead = &store.Lead{Status: store.LeadNew}
		tx.Leads.Insert(w.lead, w.biz.ID, start)

		w.other = tx.InsertBusiness(&store.Business{Name: "Other"}, start)
		w.otherAgent = &store.Agent{Name: "Theirs", Status: "active"}
		tx.Agents.Insert(w.otherAgent, w.other.ID, start)
		ol := &store.Lead{Status: store.LeadNew}
		tx.Leads.Insert(ol, w.other.ID, start)
		w.otherLead = ol.ID
		w.noAgent = tx.InsertBusiness(&store.Business{Name: "Empty"}, start).ID
	})
	return w
}

// plan plans in at now.
func (w *world) plan(now time.Time, in RunInput) (p *Plan) {
	w.p.Read(func(tx *platform.Tx) { p = PlanRun(tx, now, in) })
	return p
}

func strp(s string) *string        { return &s }
func timep(t time.Time) *time.Time { return &t }

// paths are the paths of field errors.
func paths(errs []domain.FieldError) []string {
	out := []string{}
	for _, e := range errs {
		out = append(out, e.Path)
	}
	return out
}

func call(id string, at time.Time) TouchInput {
	return TouchInput{TouchID: id, Channel: "call", Target: store.RunTarget{Phone: "+15550142001"}, ScheduledAt: at}
}

func text(id string, at time.Time) TouchInput {
	return TouchInput{TouchID: id, Channel: "sms", Target: store.RunTarget{Phone: "+15550142002"}, ScheduledAt: at, Message: strp("Hello")}
}

// TestPlanRunTouches: when each touch runs, and what is wrong or worth a
// warning, by path.
func TestPlanRunTouches(t *testing.T) {
	h := func(n int) time.Time { return start.Add(time.Duration(n) * time.Hour) }
	window := func(tc TouchInput, notBefore, notAfter *time.Time) TouchInput {
		tc.TimingWindow = &store.TimingWindow{NotBefore: notBefore, NotAfter: notAfter}
		return tc
	}
	for _, tc := range []struct {
		name     string
		touches  []TouchInput
		exec     []time.Time
		errors   []string
		warnings []string
	}{
		{name: "a call and a text", touches: []TouchInput{call("a", h(2)), text("b", h(1))}, exec: []time.Time{h(2), h(1)}},
		{name: "before the window", touches: []TouchInput{window(call("a", h(1)), timep(h(3)), timep(h(5)))},
			exec: []time.Time{h(3)}, warnings: []string{"/touches/0/scheduled_at"}},
		{name: "inside the window", touches: []TouchInput{window(call("a", h(4)), timep(h(3)), timep(h(5)))}, exec: []time.Time{h(4)}},
		{name: "after the window", touches: []TouchInput{window(call("a", h(6)), timep(h(3)), timep(h(5)))},
			exec: []time.Time{h(6)}, errors: []string{"/touches/0/scheduled_at"}},
		{name: "a window that closes before it opens", touches: []TouchInput{window(call("a", h(4)), timep(h(5)), timep(h(3)))},
			exec: []time.Time{{}}, errors: []string{"/touches/0/timing_window"}},
		{name: "a window closed already", touches: []TouchInput{window(call("a", h(-2)), nil, timep(h(-1)))},
			exec: []time.Time{start}, errors: []string{"/touches/0/timing_window/not_after"}, warnings: []string{"/touches/0/scheduled_at"}},
		{name: "in the past", touches: []TouchInput{call("a", h(-1))}, exec: []time.Time{start}, warnings: []string{"/touches/0/scheduled_at"}},
		{name: "a duplicate touch id", touches: []TouchInput{call("a", h(1)), text("a", h(2))},
			exec: []time.Time{h(1), h(2)}, errors: []string{"/touches/1/touch_id"}},
		{name: "a text without a message", touches: []TouchInput{func() TouchInput { x := text("a", h(1)); x.Message = strp("  "); return x }()},
			exec: []time.Time{h(1)}, errors: []string{"/touches/0/message"}},
		{name: "a call with an sms category", touches: []TouchInput{func() TouchInput { x := call("a", h(1)); x.SMSCategory = strp("marketing"); return x }()},
			exec: []time.Time{h(1)}, warnings: []string{"/touches/0/sms_category"}},
		{name: "a bad phone and time zone", touches: []TouchInput{func() TouchInput {
			x := call("a", h(1))
			x.Target.Phone, x.Target.Timezone = "5550142001", strp("Mars/Olympus")
			return x
		}()}, exec: []time.Time{h(1)}, errors: []string{"/touches/0/target/phone", "/touches/0/target/timezone"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorld(t)
			p := w.plan(start, RunInput{BusinessID: w.biz.ID, ExternalRef: "ref", Touches: tc.touches})
			assert.Equal(t, tc.exec, p.ExecuteAt, "execute_at")
			assert.Equal(t, append([]string{}, tc.errors...), paths(p.Errors), "errors")
			assert.Equal(t, append([]string{}, tc.warnings...), paths(p.Warnings), "warnings")
			for _, e := range append(p.Errors, p.Warnings...) {
				assert.NotEmpty(t, e.Message, e.Path)
			}
		})
	}
}

// TestPlanRunResolvesTheSender: the agent and number a run calls and
// texts from, and the errors when there is none, by path.
func TestPlanRunResolvesTheSender(t *testing.T) {
	w := newWorld(t)
	one := []TouchInput{call("a", start.Add(time.Hour))}
	for _, tc := range []struct {
		name   string
		in     func(in *RunInput)
		agent  *store.Agent
		number *store.Number
		errors []string
	}{
		{name: "the intake agent by default", in: func(*RunInput) {}, agent: w.intake, number: w.number},
		{name: "the agent of the number given by phone", in: func(in *RunInput) { in.AssignedNumberID = strp(w.number.PhoneNumber) },
			agent: w.intake, number: w.number},
		{name: "the number given by id", in: func(in *RunInput) { in.AssignedNumberID = &w.number.ID }, agent: w.intake, number: w.number},
		{name: "an agent without a number", in: func(in *RunInput) { in.AgentID = &w.bare.ID },
			agent: w.bare, errors: []string{"/assigned_number_id"}},
		{name: "an agent without a number, with a number", in: func(in *RunInput) { in.AgentID, in.AssignedNumberID = &w.bare.ID, &w.number.ID },
			agent: w.bare, number: w.number},
		{name: "another business's agent", in: func(in *RunInput) { in.AgentID = &w.otherAgent.ID }, errors: []string{"/agent_id"}},
		{name: "an unknown number", in: func(in *RunInput) { in.AssignedNumberID = strp("+15550199999") },
			agent: w.intake, errors: []string{"/assigned_number_id"}},
		{name: "a malformed number", in: func(in *RunInput) { in.AssignedNumberID = strp("+0123") },
			agent: w.intake, errors: []string{"/assigned_number_id"}},
		{name: "a business without agents", in: func(in *RunInput) { in.BusinessID = w.noAgent }, errors: []string{"/agent_id"}},
		{name: "another business's lead", in: func(in *RunInput) {
			in.Touches = []TouchInput{call("a", start.Add(time.Hour))}
			in.Touches[0].Target.LeadID = &w.otherLead
		}, agent: w.intake, number: w.number, errors: []string{"/touches/0/target/lead_id"}},
		{name: "its own lead", in: func(in *RunInput) {
			in.Touches = []TouchInput{call("a", start.Add(time.Hour))}
			in.Touches[0].Target.LeadID = &w.lead.ID
		}, agent: w.intake, number: w.number},
	} {
		in := RunInput{BusinessID: w.biz.ID, Touches: one}
		tc.in(&in)
		p := w.plan(start, in)
		assert.Same(t, tc.agent, p.Agent, "%s: agent", tc.name)
		assert.Same(t, tc.number, p.Number, "%s: number", tc.name)
		assert.Equal(t, append([]string{}, tc.errors...), paths(p.Errors), "%s: errors", tc.name)
	}
}

// TestPreviewOrdersTouchesByExecution: the preview lists touches in the
// order they run, and its summary counts them.
func TestPreviewOrdersTouchesByExecution(t *testing.T) {
	w := newWorld(t)
	p := w.plan(start, RunInput{BusinessID: w.biz.ID, Touches: []TouchInput{
		call("late", start.Add(3*time.Hour)), text("early", start.Add(time.Hour)), call("middle", start.Add(2*time.Hour)),
	}})
	require.Empty(t, p.Errors)
	v := previewOf(p)
	var order []string
	for _, t := range v.Touches {
		order = append(order, t.TouchID)
	}
	assert.Equal(t, []string{"early", "middle", "late"}, order)
	assert.Equal(t, previewSummary{Touches: 3, Calls: 2, SMS: 1, FirstAt: start.Add(time.Hour), LastAt: start.Add(3 * time.Hour)}, v.Summary)
	assert.Equal(t, w.intake.ID, v.AgentID)
	assert.Equal(t, w.number.PhoneNumber, v.FromNumber)
}

// TestCreateRunRunsTouchesOnTheClock: each touch runs when the tenant's
// clock reaches it: a text without consent is skipped with the compliance
// code, a call is placed and completes, and the run completes with it.
func TestCreateRunRunsTouchesOnTheClock(t *testing.T) {
	w := newWorld(t)
	var run *store.CommunicationRun
	w.p.Write(func(tx *platform.Tx) {
		p := PlanRun(tx, start, RunInput{BusinessID: w.biz.ID, ExternalRef: "spring", Touches: []TouchInput{
			call("call", start.Add(time.Hour)), text("text", start.Add(30*time.Minute)),
		}})
		require.Empty(t, p.Errors)
		run = w.runs.CreateRun(tx, start, p, "key-1")
	})
	status := func() (run0, call, text string, r *store.CommunicationRun) {
		w.p.Read(func(tx *platform.Tx) {
			got, ok := tx.Runs.Get(run.ID)
			require.True(t, ok)
			r = got
			run0, call, text = got.Status, got.Touches[0].Status, got.Touches[1].Status
		})
		return
	}
	s, c, x, _ := status()
	assert.Equal(t, []string{runScheduled, touchScheduled, touchScheduled}, []string{s, c, x})
	assert.Equal(t, "key-1", run.IdempotencyKey)
	assert.Equal(t, w.intake.ID, run.AgentID)

	clock := w.p.Clocks.Of(w.biz.Tenant)
	clock.Advance(31 * time.Minute)
	s, c, x, r := status()
	assert.Equal(t, []string{runRunning, touchScheduled, touchSkipped}, []string{s, c, x})
	require.NotNil(t, r.Touches[1].Error)
	assert.Equal(t, voiceagent.CodeNumberOptedOut, r.Touches[1].Error.Code)
	assert.Equal(t, start.Add(30*time.Minute), *r.Touches[1].StartedAt)

	clock.Advance(30 * time.Minute)
	s, c, _, r = status()
	assert.Equal(t, []string{runRunning, touchRunning}, []string{s, c})
	require.NotEmpty(t, r.Touches[0].CallID)
	assert.Equal(t, start.Add(time.Hour), *r.Touches[0].StartedAt)

	clock.Advance(time.Hour)
	s, c, _, r = status()
	assert.Equal(t, []string{runCompleted, telephony.TouchCompleted}, []string{s, c})
	require.NotNil(t, r.Touches[0].Duration)
	assert.Positive(t, *r.Touches[0].Duration)
	require.NotNil(t, r.CompletedAt)
}
