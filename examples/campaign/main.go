// Command campaign runs a recall campaign of a dental office as a
// communication run: calls and texts to its patients over three days,
// printing each step:
//
//  1. validate the run: a draft with mistakes is answered with every
//     problem by JSON Pointer path, the corrected run is valid (with a
//     warning: a text scheduled before its window opens waits for it);
//  2. preview it: each touch in the order it will run, from which number;
//  3. create it with an idempotency key; a retry with the same key returns
//     the same run;
//  4. let the days pass: each touch fires at its time, calls ring and end,
//     texts are delivered, a call nobody answers fails and a text to a
//     patient who never agreed to texts is skipped by SMS compliance;
//  5. read the finished run;
//  6. match the call.* and sms.* events of the event log back to the
//     campaign (external_ref) and to each touch (touch_id).
//
// By default it runs against an in-process mock server whose simulated
// clock starts on a Monday at 09:00 in New York (texts may reach people from
// 08:00 to 21:00 their time, so a campaign's clock starts in the daytime)
// and is moved forward touch by touch instead of waiting days. With
// VOICEAGENT_BASE_URL and VOICEAGENT_API_KEY set (a key with
// communication-runs:read and :write and events:read) it runs against that
// service, for the business VOICEAGENT_BUSINESS_ID (else the business of
// the key's first agent): it validates and previews a run, and creates it
// only when CAMPAIGN_TO names the number to call and text (yours, E.164;
// the text is sent only if that number agreed to texts from the business).
// It then polls the run until it ends, and reads its events.
//
//	go run ./examples/campaign
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/events"
	"github.com/voiceagent/voiceagent-go/internal/harness/examplekit"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/runs"
)

// mockStart is when the mock's clock starts: Monday 1 June 2026, 09:00 in
// New York.
var mockStart = time.Date(2026, 6, 1, 13, 0, 0, 0, time.UTC)

// campaignDays is how many days the mock's clock runs.
const campaignDays = 3

// pollEvery is how often the run is read against a real service (tests
// shorten it); runTimeout bounds how long it is watched there.
var (
	pollEvery  = 5 * time.Second
	runTimeout = 30 * time.Minute
)

// The mock's patients. Ivy never agreed to texts; +15005550001 is the
// mock's magic number that never answers.
var patients = []mockserver.LeadFixture{
	{Name: "Jane Cooper", Phone: "+15551230201", Email: "jane@example.com", Source: "patient_list", Consent: "opted_in"},
	{Name: "Luis Ortega", Phone: "+15551230202", Source: "patient_list", Consent: "opted_in"},
	{Name: "Noah Fields", Phone: "+15005550001", Source: "patient_list", Consent: "opted_in"},
	{Name: "Ivy Chen", Phone: "+15551230204", Source: "patient_list"},
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "campaign:", err)
		os.Exit(1)
	}
}

// campaign is one run of the program.
type campaign struct {
	out        io.Writer
	c          *client.Client
	srv        *mockserver.Server // nil against a real service
	businessID string
	ref        string            // the run's external_ref
	zone       *time.Location    // where times are printed
	names      map[string]string // touch id -> who it reaches
	states     map[string]string // touch id -> the state last printed
}

func (k *campaign) say(format string, args ...any) { fmt.Fprintf(k.out, format+"\n", args...) }

func run(ctx context.Context, out io.Writer) error {
	k := &campaign{out: out, names: map[string]string{}, states: map[string]string{}}
	base, key := os.Getenv("VOICEAGENT_BASE_URL"), os.Getenv("VOICEAGENT_API_KEY")
	if base != "" && key != "" {
		k.say("Using %s with the key in VOICEAGENT_API_KEY", base)
		k.c = client.New(key, voiceagent.WithBaseURL(base))
		k.zone = time.Local
		return k.againstService(ctx, os.Getenv("CAMPAIGN_TO"))
	}

	k.zone = examplekit.Zone("America/New_York") // the mock business's
	m := examplekit.StartMock(mockserver.WithStartTime(mockStart))
	defer m.Close()
	k.srv, base = m.Server, m.BaseURL
	k.say("Started an in-process mock server at %s; its clock reads %s", base, k.clock(k.srv.Now()))
	acct, err := k.srv.NewAccount(mockserver.AccountOptions{BusinessName: "Harbor Dental"})
	if err != nil {
		return err
	}
	k.businessID = acct.BusinessID
	k.c = acct.Client()
	leadIDs, err := k.srv.SeedLeads(acct.BusinessID, patients)
	if err != nil {
		return fmt.Errorf("seeding patients: %w", err)
	}
	k.say("Business Harbor Dental, number %s; %d patients are leads (Ivy never agreed to texts)", acct.PhoneNumber, len(leadIDs))
	return k.againstMock(ctx, k.mockRun(leadIDs))
}

// mockRun is the recall campaign over three days on the mock.
func (k *campaign) mockRun(leadIDs []string) *runs.CreateParams {
	k.ref = "recall-2026-06"
	day := func(d, hour, minute int) time.Time {
		return time.Date(2026, 6, 1+d, hour, minute, 0, 0, k.zone)
	}
	lead := func(i int) runs.Target {
		p := patients[i]
		return runs.Target{Phone: p.Phone, LeadID: voiceagent.String(leadIDs[i]), Name: voiceagent.String(p.Name)}
	}
	text := func(s string) *string { return voiceagent.String(s) }
	return &runs.CreateParams{
		BusinessID: k.businessID, ExternalRef: k.ref,
		Metadata: map[string]any{"campaign": "six-month recall"},
		Touches: []runs.TouchParams{
			{TouchID: "jane-call-1", Channel: runs.ChannelCall, Target: lead(0), ScheduledAt: day(0, 10, 0),
				Message: text("Hi Jane, this is Harbor Dental: you're due for your six-month check-up."),
				Context: map[string]any{"reason": "six-month recall", "last_visit": "2025-11-28"}},
			{TouchID: "noah-call-1", Channel: runs.ChannelCall, Target: lead(2), ScheduledAt: day(0, 11, 0),
				Context: map[string]any{"reason": "six-month recall"}},
			{TouchID: "ivy-sms-1", Channel: runs.ChannelSMS, Target: lead(3), ScheduledAt: day(0, 14, 0),
				Message: text("Hi Ivy, Harbor Dental here: time for your check-up. Reply to book.")},
			// Drafted for early morning: the window holds it until 10:00.
			{TouchID: "luis-sms-1", Channel: runs.ChannelSMS, Target: lead(1), ScheduledAt: day(1, 6, 30),
				TimingWindow: &runs.TimingWindow{NotBefore: voiceagent.Ptr(day(1, 10, 0)), NotAfter: voiceagent.Ptr(day(1, 18, 0))},
				Message:      text("Hi Luis, Harbor Dental here: you're due for a cleaning. We'll call you tomorrow.")},
			{TouchID: "jane-sms-1", Channel: runs.ChannelSMS, Target: lead(0), ScheduledAt: day(1, 10, 30),
				Message: text("Thanks for your time yesterday, Jane! Reply with a day that suits you.")},
			{TouchID: "luis-call-1", Channel: runs.ChannelCall, Target: lead(1), ScheduledAt: day(2, 10, 0),
				Context: map[string]any{"reason": "cleaning"}},
			{TouchID: "noah-call-2", Channel: runs.ChannelCall, Target: lead(2), ScheduledAt: day(2, 15, 0),
				Metadata: map[string]any{"attempt": 2}},
		},
	}
}

// againstMock validates, previews and creates the run, then lets the
// mock's clock run through the campaign's days.
func (k *campaign) againstMock(ctx context.Context, p *runs.CreateParams) error {
	if err := k.validateDraft(ctx, p); err != nil {
		return err
	}
	r, err := k.prepareAndCreate(ctx, p)
	if err != nil {
		return err
	}
	first := time.Date(2026, 6, 1, 0, 0, 0, 0, k.zone)
	for d := range campaignDays {
		start, end := first.AddDate(0, 0, d), first.AddDate(0, 0, d+1)
		k.say("Day %d, %s:", d+1, start.Format("Monday 2 January"))
		if err := k.runDay(ctx, r.ID, end); err != nil {
			return err
		}
	}
	return k.finish(ctx, r.ID)
}

// againstService validates and previews a run to CAMPAIGN_TO (a sample
// number without it); with it, it creates the run and polls it to the end.
func (k *campaign) againstService(ctx context.Context, to string) error {
	var how string
	var err error
	if k.businessID, how, err = examplekit.Business(ctx, k.c); err != nil {
		return err
	}
	k.say("Business %s (%s)", k.businessID, how)
	k.ref = "voiceagent-go-campaign-" + time.Now().UTC().Format("20060102T150405")
	phone := to
	if phone == "" {
		phone = "+15555550123"
	}
	now := time.Now()
	p := &runs.CreateParams{
		BusinessID: k.businessID, ExternalRef: k.ref,
		Touches: []runs.TouchParams{
			{TouchID: "call-1", Channel: runs.ChannelCall, Target: runs.Target{Phone: phone}, ScheduledAt: now.Add(time.Minute),
				Message: voiceagent.String("Hi, this is a test call of a communication run from voiceagent-go."),
				Context: map[string]any{"reason": "testing communication runs"}},
			{TouchID: "sms-1", Channel: runs.ChannelSMS, Target: runs.Target{Phone: phone}, ScheduledAt: now.Add(2 * time.Minute),
				Message: voiceagent.String("A test text of a communication run from voiceagent-go.")},
		},
	}
	if err := k.validateDraft(ctx, p); err != nil {
		return err
	}
	if to == "" {
		if _, err := k.validateAndPreview(ctx, p); err != nil {
			return err
		}
		k.say("Set CAMPAIGN_TO to a number you own (E.164) to create the run; stopping here.")
		k.say("Done.")
		return nil
	}
	r, err := k.prepareAndCreate(ctx, p)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, runTimeout)
	defer cancel()
	for {
		cur, err := k.c.Runs.Get(ctx, r.ID)
		if err != nil {
			return fmt.Errorf("reading the run: %w", err)
		}
		k.printTouches(cur)
		if cur.Status == runs.StatusCompleted || cur.Status == runs.StatusFailed {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for run %s to end: %w", r.ID, ctx.Err())
		case <-time.After(pollEvery):
		}
	}
	return k.finish(ctx, r.ID)
}

// validateDraft validates a draft of p with mistakes: the problems are in
// the answer, by path.
func (k *campaign) validateDraft(ctx context.Context, p *runs.CreateParams) error {
	draft := *p
	draft.Touches = slices.Clone(p.Touches)
	last := len(draft.Touches) - 1
	draft.Touches[0].Target.Phone = "555-0100"             // not E.164
	draft.Touches[last].TouchID = draft.Touches[0].TouchID // twice the same id
	for i, t := range draft.Touches {
		if t.Channel == runs.ChannelSMS {
			draft.Touches[i].Message = nil // a text without its text
			break
		}
	}
	v, err := k.c.Runs.Validate(ctx, &draft)
	if err != nil {
		return fmt.Errorf("validating the draft: %w", err)
	}
	k.say("Validated a draft with mistakes: valid %t, %d errors", v.Valid, len(v.Errors))
	for _, e := range v.Errors {
		k.say("  %-28s %s", e.Path, e.Message)
	}
	if v.Valid {
		return errors.New("the draft with mistakes was valid")
	}
	return nil
}

// validateAndPreview validates p and previews it.
func (k *campaign) validateAndPreview(ctx context.Context, p *runs.CreateParams) (*runs.Preview, error) {
	v, err := k.c.Runs.Validate(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("validating the run: %w", err)
	}
	k.say("Validated the corrected run: valid %t, %d touches, %d errors, %d warnings", v.Valid, v.Touches, len(v.Errors), len(v.Warnings))
	for _, w := range v.Warnings {
		k.say("  warning %-20s %s", w.Path, w.Message)
	}
	for _, e := range v.Errors {
		k.say("  error %-22s %s", e.Path, e.Message)
	}
	if !v.Valid {
		return nil, errors.New("the run is not valid")
	}
	pv, err := k.c.Runs.Preview(ctx, p)
	if err != nil {
		return nil, fmt.Errorf("previewing the run: %w", err)
	}
	s := pv.Summary
	k.say("Preview: %d touches (%d calls, %d texts) from %s, %s to %s:",
		s.Touches, s.Calls, s.SMS, pv.FromNumber, k.clock(s.FirstAt), k.clock(s.LastAt))
	for _, t := range pv.Touches {
		k.names[t.TouchID] = name(t.Name, t.To)
		moved := ""
		switch {
		case t.ExecuteAt.Equal(t.ScheduledAt):
		case t.TimingWindow != nil && t.TimingWindow.NotBefore != nil && t.ExecuteAt.Equal(*t.TimingWindow.NotBefore):
			moved = " (scheduled " + k.clock(t.ScheduledAt) + ", held until its window opens)"
		default:
			moved = " (scheduled " + k.clock(t.ScheduledAt) + ", already past: at once)"
		}
		k.say("  %s  %-12s %-4s %-12s %s%s", k.clock(t.ExecuteAt), t.TouchID, t.Channel, k.names[t.TouchID], t.To, moved)
	}
	return pv, nil
}

// prepareAndCreate validates, previews and creates the run, then retries
// the create with the same idempotency key.
func (k *campaign) prepareAndCreate(ctx context.Context, p *runs.CreateParams) (*runs.Run, error) {
	if _, err := k.validateAndPreview(ctx, p); err != nil {
		return nil, err
	}
	idem := voiceagent.WithIdempotencyKey(k.ref + "/create")
	r, err := k.c.Runs.Create(ctx, p, idem)
	if err != nil {
		return nil, fmt.Errorf("creating the run: %w", err)
	}
	k.say("Created run %s (external_ref %s): %s, agent %s, from %s", r.ID, r.ExternalRef, r.Status, r.AgentID, r.FromNumber)
	for _, t := range r.Touches {
		k.states[t.TouchID] = t.Status
	}

	var resp *http.Response
	again, err := k.c.Runs.Create(ctx, p, idem, voiceagent.WithResponseInto(&resp))
	if err != nil {
		return nil, fmt.Errorf("retrying the create: %w", err)
	}
	k.say("Retried the create with the same Idempotency-Key: run %s again (Idempotent-Replayed: %s)",
		again.ID, resp.Header.Get("Idempotent-Replayed"))
	if again.ID != r.ID {
		return nil, fmt.Errorf("the retry created another run %s", again.ID)
	}
	return r, nil
}

// runDay moves the mock's clock through a day, touch by touch, printing
// each touch's state as it changes: to the next touch's time, then minute
// by minute while a call or text is under way, then to the end of the day.
func (k *campaign) runDay(ctx context.Context, runID string, end time.Time) error {
	for {
		r, err := k.c.Runs.Get(ctx, runID)
		if err != nil {
			return fmt.Errorf("reading the run: %w", err)
		}
		k.printTouches(r)
		now := k.srv.Now()
		next := end
		for _, t := range r.Touches {
			switch {
			case t.Status == runs.StatusRunning:
				next = minTime(next, now.Add(time.Minute))
			case t.Status == runs.StatusScheduled && t.ExecuteAt.Before(next):
				next = t.ExecuteAt
			}
		}
		if !next.After(now) {
			next = now.Add(time.Second) // never stand still
		}
		k.srv.Advance(next.Sub(now))
		if !next.Before(end) {
			return nil
		}
	}
}

// printTouches prints the touches whose state changed since the last read,
// with the time of the change.
func (k *campaign) printTouches(r *runs.Run) {
	for _, t := range r.Touches {
		if k.states[t.TouchID] == t.Status {
			continue
		}
		k.states[t.TouchID] = t.Status
		at, detail := t.ExecuteAt, ""
		switch t.Status {
		case runs.StatusRunning:
			at = deref(t.StartedAt, at)
			if t.CallID != nil {
				detail = "call " + *t.CallID + " placed"
			}
			if t.MessageSID != nil {
				detail = "text " + *t.MessageSID + " sent"
			}
		case runs.StatusCompleted:
			at = deref(t.CompletedAt, at)
			if t.Channel == runs.ChannelCall && t.Duration != nil {
				detail = fmt.Sprintf("the call lasted %s", time.Duration(*t.Duration)*time.Second)
			} else {
				detail = "delivered"
			}
		default: // failed, skipped, canceled
			at = deref(t.CompletedAt, at)
			if t.Error != nil {
				detail = t.Error.Code + ": " + t.Error.Message
			}
		}
		k.say("  %s  %-12s %-4s %-12s %-9s %s", k.clock(at), t.TouchID, t.Channel, k.names[t.TouchID], t.Status, detail)
	}
}

// finish reads the finished run and matches its events.
func (k *campaign) finish(ctx context.Context, runID string) error {
	r, err := k.c.Runs.Get(ctx, runID)
	if err != nil {
		return fmt.Errorf("reading the run: %w", err)
	}
	k.say("Run %s is %s: %s; started %s, ended %s",
		r.ID, r.Status, examplekit.Counts(r.TouchCounts), k.clock(deref(r.StartedAt, time.Time{})), k.clock(deref(r.CompletedAt, time.Time{})))
	for _, t := range r.Touches {
		if t.Status == runs.StatusCompleted && t.Summary != nil {
			k.say("  %-12s %s", t.TouchID, *t.Summary)
		}
	}
	return k.matchEvents(ctx, r)
}

// matchEvents reads the event log and matches the call.* and sms.* events
// of the run back to its touches by external_ref and touch_id.
func (k *campaign) matchEvents(ctx context.Context, r *runs.Run) error {
	var mine []*events.Event
	for e, err := range k.c.Events.All(ctx, &events.ListParams{BusinessID: k.businessID, Limit: 100}) {
		if err != nil {
			return fmt.Errorf("reading events: %w", err)
		}
		if ref, _ := touchRef(e); ref.ExternalRef == k.ref {
			mine = append(mine, e)
		}
		if e.CreatedAt.Before(r.CreatedAt) {
			break // the log is newest first: older events are not the run's
		}
	}
	k.say("Events of %s in the log (call.* and sms.*, matched by external_ref and touch_id):", k.ref)
	perTouch := map[string][]string{}
	for _, e := range slices.Backward(mine) {
		ref, id := touchRef(e)
		t := r.Touch(ref.TouchID)
		if t == nil || ref.CommunicationRunID != r.ID {
			return fmt.Errorf("event %s names touch %q of run %q, not of run %s", e.ID, ref.TouchID, ref.CommunicationRunID, r.ID)
		}
		if id != deref(t.CallID, "") && id != deref(t.MessageSID, "") {
			return fmt.Errorf("event %s is about %s, which touch %s did not make", e.ID, id, ref.TouchID)
		}
		perTouch[ref.TouchID] = append(perTouch[ref.TouchID], string(e.Type))
		k.say("  %s  %-14s touch %-12s %s", k.clock(e.Timestamp), e.Type, ref.TouchID, k.names[ref.TouchID])
	}
	for _, t := range r.Touches {
		if len(perTouch[t.TouchID]) == 0 {
			k.say("  %-12s no event: %s before any call or text (%s)", t.TouchID, t.Status, errCode(t.Error))
		}
	}
	k.say("Matched %d events to %d of the run's %d touches", len(mine), len(perTouch), len(r.Touches))
	k.say("Done.")
	return nil
}

// touchRef is the run touch an event's call or text belongs to, and the
// call's id or the text's message_sid; empty for other events.
func touchRef(e *events.Event) (voiceagent.TouchRef, string) {
	if c, err := e.Call(); err == nil {
		return c.TouchRef, c.ID
	}
	if m, err := e.Message(); err == nil {
		return m.TouchRef, m.MessageSID
	}
	return voiceagent.TouchRef{}, ""
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

// deref is *p, or otherwise when p is nil.
func deref[T any](p *T, otherwise T) T {
	if p == nil {
		return otherwise
	}
	return *p
}

func errCode(e *runs.TouchError) string {
	if e == nil {
		return "no error"
	}
	return e.Code
}

// name is the first name of a touch's target, else its number.
func name(n *string, phone string) string {
	if n == nil || strings.TrimSpace(*n) == "" {
		return phone
	}
	return strings.Fields(*n)[0]
}

// clock prints a time in the campaign's zone ("-" for none).
func (k *campaign) clock(t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	return t.In(k.zone).Format("Mon 15:04:05 MST")
}
