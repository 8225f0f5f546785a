// Command sdr-autopilot puts a business's outbound sales on autopilot with
// the SDR pipeline, printing each step:
//
//  1. configure the pipeline: enabled, calls, texts and emails on, at most
//     one touch a day and four in all, business hours 9 to 17;
//  2. leads arrive: callers and texters reach the business's number, and
//     older leads are already there (a warm contact, a trial ending, a quiet
//     one reachable only by email, one nobody can reach, ...);
//  3. read the pipeline: every lead in its segment, with its score and the
//     next action the cadence allows;
//  4. preview a run (dry run), then run it: calls queued, texts and emails
//     sent, a lead nobody can reach escalated, the others skipped with a
//     reason;
//  5. read the report and the activity log;
//  6. let the clock run: the scheduled runner runs the pipeline every two
//     hours by itself and calls a lead who rang in the meantime; a second
//     touch of that lead is refused by the cadence (429, with the time the
//     next touch is allowed).
//
// By default it runs against an in-process mock server whose simulated
// clock starts on a weekday morning in New York and is moved forward
// instead of waiting; the leads are simulated callers and texters and
// fixtures (Server.SeedLeads). With VOICEAGENT_BASE_URL and
// VOICEAGENT_API_KEY set (a key with sdr:read and sdr:write) it uses the
// leads of that account's business (VOICEAGENT_BUSINESS_ID, else the
// business of the key's first agent) and only reads: the configuration,
// the pipeline, a dry run when the pipeline is enabled, the report and the
// activity. Set SDR_AUTOPILOT_LIVE=1 to also save the configuration above
// and run the pipeline for real: that places calls and sends texts and
// emails to the business's leads, and leaves the runner on.
//
//	go run ./examples/sdr-autopilot
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/internal/harness/examplekit"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/sdr"
)

// mockStart is when the mock's clock starts: Tuesday 10:00 in New York
// (the business's time zone), inside business hours and outside the SMS
// quiet hours.
var mockStart = time.Date(2026, 3, 10, 14, 0, 0, 0, time.UTC)

// The configuration the example saves.
var config = sdr.ConfigParams{
	Enabled:            voiceagent.Bool(true),
	AutoCall:           voiceagent.Bool(true),
	AutoSMS:            voiceagent.Bool(true),
	AutoEmail:          voiceagent.Bool(true),
	MinTouchGapHours:   voiceagent.Int(24),
	MaxTouches:         voiceagent.Int(4),
	BusinessHoursStart: voiceagent.Int(9),
	BusinessHoursEnd:   voiceagent.Int(17),
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "sdr-autopilot:", err)
		os.Exit(1)
	}
}

// autopilot is one run: where it prints, the client, the business, and the
// mock server when it runs against one (nil against a real service).
type autopilot struct {
	out        io.Writer
	c          *client.Client
	businessID string
	srv        *mockserver.Server
	acct       *mockserver.Account
	names      map[string]string // lead id -> name, for printing
	zone       *time.Location    // where times are printed
}

func (a *autopilot) say(format string, args ...any) { fmt.Fprintf(a.out, format+"\n", args...) }

func run(ctx context.Context, out io.Writer) error {
	a := &autopilot{out: out, names: map[string]string{}}
	base, key := os.Getenv("VOICEAGENT_BASE_URL"), os.Getenv("VOICEAGENT_API_KEY")
	if base != "" && key != "" {
		a.say("Using %s with the key in VOICEAGENT_API_KEY", base)
		a.c = client.New(key, voiceagent.WithBaseURL(base))
		return a.againstService(ctx, os.Getenv("SDR_AUTOPILOT_LIVE") == "1")
	}

	m := examplekit.StartMock(mockserver.WithStartTime(mockStart))
	defer m.Close()
	a.srv, base = m.Server, m.BaseURL
	a.say("Started an in-process mock server at %s; its clock reads %s", base, a.clock(a.srv.Now()))
	var err error
	if a.acct, err = a.srv.NewAccount(mockserver.AccountOptions{BusinessName: "Brightside Solar"}); err != nil {
		return err
	}
	a.businessID = a.acct.BusinessID
	a.c = a.acct.Client()
	a.say("Business Brightside Solar (%s), number %s", a.businessID, a.acct.PhoneNumber)
	return a.againstMock(ctx)
}

// againstMock is the whole walk-through on the in-process mock.
func (a *autopilot) againstMock(ctx context.Context) error {
	cfg, err := a.configure(ctx)
	if err != nil {
		return err
	}
	if err := a.seedLeads(); err != nil {
		return err
	}
	if err := a.pipeline(ctx); err != nil {
		return err
	}
	if _, err := a.run(ctx, true); err != nil {
		return err
	}
	if _, err := a.run(ctx, false); err != nil {
		return err
	}
	// Calls ring and end, emails go out 30 s after they are queued.
	a.srv.Advance(10 * time.Minute)
	a.say("Ten minutes later (%s) the calls have ended and the emails are sent", a.clock(a.srv.Now()))
	if err := a.report(ctx); err != nil {
		return err
	}
	if err := a.activity(ctx, 20); err != nil {
		return err
	}
	if err := a.scheduledRunner(ctx, cfg); err != nil {
		return err
	}
	a.say("Done.")
	return nil
}

// againstService reads the pipeline of a real account; live also saves the
// configuration and runs the pipeline for real.
func (a *autopilot) againstService(ctx context.Context, live bool) error {
	var how string
	var err error
	if a.businessID, how, err = examplekit.Business(ctx, a.c); err != nil {
		return err
	}
	a.say("Business %s (%s)", a.businessID, how)
	cfg, err := a.c.SDR.GetConfig(ctx, a.businessID)
	if err != nil {
		return fmt.Errorf("reading the configuration: %w", err)
	}
	a.printConfig("The current configuration", cfg)
	if live {
		if cfg, err = a.configure(ctx); err != nil {
			return err
		}
	} else {
		a.say("Read-only: set SDR_AUTOPILOT_LIVE=1 to save the configuration and run the pipeline for real")
	}
	if err := a.pipeline(ctx); err != nil {
		return err
	}
	if !cfg.Enabled {
		a.say("The pipeline is not enabled, so it cannot run, not even dry")
	} else {
		if _, err := a.run(ctx, true); err != nil {
			return err
		}
		if live {
			res, err := a.run(ctx, false)
			if err != nil {
				return err
			}
			if touched := firstTouch(res); touched != "" {
				if err := a.secondTouch(ctx, touched); err != nil {
					return err
				}
			}
		}
	}
	if err := a.report(ctx); err != nil {
		return err
	}
	if err := a.activity(ctx, 20); err != nil {
		return err
	}
	if cfg, err = a.c.SDR.GetConfig(ctx, a.businessID); err != nil {
		return fmt.Errorf("reading the configuration: %w", err)
	}
	if cfg.NextRunAt != nil {
		a.say("The scheduled runner runs next at %s", a.clock(*cfg.NextRunAt))
	}
	a.say("Done.")
	return nil
}

// configure saves the example's configuration.
func (a *autopilot) configure(ctx context.Context) (*sdr.Config, error) {
	p := config
	p.BusinessID = a.businessID
	cfg, err := a.c.SDR.UpdateConfig(ctx, &p)
	if err != nil {
		return nil, fmt.Errorf("configuring the pipeline: %w", err)
	}
	a.printConfig("Configured the pipeline", cfg)
	return cfg, nil
}

func (a *autopilot) printConfig(what string, cfg *sdr.Config) {
	if cfg.Timezone != "" {
		a.setZone(cfg.Timezone)
	}
	var channels []string
	for _, ch := range []struct {
		on   bool
		name string
	}{{cfg.AutoCall, "calls"}, {cfg.AutoSMS, "texts"}, {cfg.AutoEmail, "emails"}} {
		if ch.on {
			channels = append(channels, ch.name)
		}
	}
	if len(channels) == 0 {
		channels = []string{"no channel"}
	}
	a.say("%s: enabled %t, %s; a touch every %dh at most, %d touches in all; business hours %02d:00-%02d:00 %s",
		what, cfg.Enabled, strings.Join(channels, ", "), cfg.MinTouchGapHours, cfg.MaxTouches,
		cfg.BusinessHoursStart, cfg.BusinessHoursEnd, cfg.Timezone)
	if cfg.NextRunAt != nil {
		a.say("  the scheduled runner runs every two hours, next at %s", a.clock(*cfg.NextRunAt))
	}
}

// seedLeads brings leads to the mock's business: a caller and a texter
// reach its number now, and older leads are stored as fixtures in the
// states that show the pipeline's segments.
func (a *autopilot) seedLeads() error {
	if _, err := a.srv.InboundCall(mockserver.InboundCall{
		To: a.acct.PhoneNumber, From: "+15551230101", Duration: 75,
		Caller: mockserver.Caller{Said: "Hi, this is Dana Whitfield. How much would solar panels cost for my roof? dana@example.com"},
	}); err != nil {
		return fmt.Errorf("simulating a caller: %w", err)
	}
	a.say("A caller (+15551230101) asked for a quote on the phone")
	if _, err := a.srv.InboundSMS(mockserver.InboundSMS{To: a.acct.PhoneNumber, From: "+15551230102", Body: "Hi, I'm Omar Haddad. Do you install home batteries too?"}); err != nil {
		return fmt.Errorf("simulating a texter: %w", err)
	}
	a.say("A texter (+15551230102) asked about batteries")
	a.srv.Advance(2 * time.Minute) // the call ends, lead collection runs

	now := a.srv.Now()
	ago := func(d time.Duration) *time.Time { t := now.Add(-d); return &t }
	day := 24 * time.Hour
	fixtures := []mockserver.LeadFixture{
		{Name: "Priya Natarajan", Phone: "+15551230103", Email: "priya@example.com", Source: "web_form", Status: "contacted",
			Consent: "opted_in", CreatedAt: ago(4 * day), LastContactAt: ago(36 * time.Hour), InteractionCount: 2},
		{Name: "Lukas Berg", Phone: "+15551230104", Email: "lukas@example.com", Source: "trial_signup",
			CreatedAt: ago(12 * day), LastContactAt: ago(5 * day), InteractionCount: 1},
		{Name: "Grace Kim", Email: "grace@example.com", Source: "web_form", Status: "contacted",
			CreatedAt: ago(8 * day), LastContactAt: ago(6 * day), InteractionCount: 1},
		{Name: "Anonymous visitor", Source: "chat", Notes: "asked about financing, left no contact details",
			CreatedAt: ago(2 * day)},
		{Name: "Sam Ortiz", Phone: "+15551230105", Email: "sam@example.com", Source: "referral", Paused: true,
			CreatedAt: ago(2 * day), LastContactAt: ago(2 * day), InteractionCount: 1},
		{Name: "Mei Tanaka", Phone: "+15551230106", Source: "web_form", Status: "contacted",
			CreatedAt: ago(3 * day), TouchCount: 1, LastTouchAt: ago(3 * time.Hour), LastChannel: "call"},
		{Name: "Rosa Diaz", Phone: "+15551230107", Email: "rosa@example.com", Source: "web_form", Status: "contacted",
			CreatedAt: ago(20 * day), TouchCount: 4, LastTouchAt: ago(3 * day), LastChannel: "email"},
		{Name: "Tom Alvarez", Phone: "+15551230108", Source: "referral", Status: "converted",
			CreatedAt: ago(30 * day)},
	}
	if _, err := a.srv.SeedLeads(a.businessID, fixtures); err != nil {
		return fmt.Errorf("seeding leads: %w", err)
	}
	a.say("Loaded %d older leads (fixtures): a warm contact, a trial ending, a quiet one with only an email,", len(fixtures))
	a.say("  one without contact details, a paused one, one touched 3h ago, one touched 4 times, a customer")
	return nil
}

// learnNames reads the pipeline to name the leads that arrived since the
// last read.
func (a *autopilot) learnNames(ctx context.Context) error {
	p, err := a.c.SDR.Pipeline(ctx, &sdr.PipelineParams{BusinessID: a.businessID, Limit: 1000})
	if err != nil {
		return fmt.Errorf("reading the pipeline: %w", err)
	}
	for _, l := range p.Leads {
		a.names[l.ID] = examplekit.Str(l.Name)
	}
	return nil
}

// pipeline reads the segmented pipeline and prints it.
func (a *autopilot) pipeline(ctx context.Context) error {
	p, err := a.c.SDR.Pipeline(ctx, &sdr.PipelineParams{BusinessID: a.businessID, Limit: 50})
	if err != nil {
		return fmt.Errorf("reading the pipeline: %w", err)
	}
	s := p.Summary
	a.say("Pipeline: %d leads, %d actionable now, %d on manual review", s.TotalLeads, s.Actionable, s.NeedsManual)
	a.say("  segments: %s", examplekit.Counts(s.Segments))
	for _, l := range p.Leads {
		a.names[l.ID] = examplekit.Str(l.Name)
		state := "actionable"
		switch {
		case l.NextAction == sdr.ActionNone:
			state = "left alone"
		case l.Paused:
			state = "paused"
		case l.NextActionAt != nil:
			state = "held until " + a.clock(*l.NextActionAt)
		}
		a.say("  %-18s %-18s score %3d  touches %d  next %-5s %s", examplekit.Str(l.Name), l.Segment, l.Score, l.TouchCount, l.NextAction, state)
	}
	return nil
}

// run runs the pipeline, or previews the run.
func (a *autopilot) run(ctx context.Context, dry bool) (*sdr.RunResult, error) {
	res, err := a.c.SDR.Run(ctx, &sdr.RunParams{BusinessID: a.businessID, DryRun: dry})
	if err != nil {
		return nil, fmt.Errorf("running the pipeline (dry %t): %w", dry, err)
	}
	what := "Ran the pipeline"
	if dry {
		what = "Dry run (nothing dispatched)"
	}
	a.printRun(what, res)
	return res, nil
}

func (a *autopilot) printRun(what string, res *sdr.RunResult) {
	s := res.Summary
	a.say("%s: calls queued %d, texts sent %d, emails queued %d, escalated %d, failed %d; in business hours %t",
		what, s.CallsQueued, s.SMSSent, s.EmailsQueued, s.Escalated, s.Failed, res.InBusinessHours)
	for _, r := range res.Results {
		a.say("  %-8s %-18s %s", r.Action, a.name(r.LeadID), r.Detail)
	}
	for _, e := range res.Errors {
		a.say("  error    %-18s %s %s: %s", a.name(e.LeadID), e.Action, e.Code, e.Message)
	}
	if res.Skipped > 0 {
		a.say("  skipped %d: %s", res.Skipped, examplekit.Counts(res.SkippedByReason))
	}
}

// report reads today's report.
func (a *autopilot) report(ctx context.Context) error {
	r, err := a.c.SDR.Report(ctx, &sdr.ReportParams{BusinessID: a.businessID, Period: sdr.PeriodToday})
	if err != nil {
		return fmt.Errorf("reading the report: %w", err)
	}
	a.say("Report for today (since %s): %d new leads, %d hot, %d stale", a.clock(r.Since), r.NewLeads, r.HotLeads, r.StaleLeads)
	a.say("  actions:  %s", examplekit.Counts(r.Actions))
	a.say("  outcomes: %s", examplekit.Counts(r.Outcomes))
	return nil
}

// activity prints the newest entries of the activity log, oldest first.
func (a *autopilot) activity(ctx context.Context, limit int) error {
	entries, err := a.c.SDR.ListActivity(ctx, &sdr.ActivityParams{BusinessID: a.businessID, Limit: limit})
	if err != nil {
		return fmt.Errorf("reading the activity: %w", err)
	}
	a.say("Activity (%d entries):", len(entries))
	for _, e := range slices.Backward(entries) {
		ok := "ok"
		if !e.Success {
			ok = "FAILED"
		}
		a.say("  %s  %-9s %-8s %-18s %-6s %s", a.clock(e.CreatedAt), e.Trigger, e.Action, a.name(e.LeadID), ok, e.Detail)
	}
	return nil
}

// scheduledRunner lets the mock's clock run to the runner's next run: a
// caller who rang in the meantime gets called by the runner, and a second
// touch of that caller is refused by the cadence.
func (a *autopilot) scheduledRunner(ctx context.Context, cfg *sdr.Config) error {
	if cfg.NextRunAt == nil {
		return errors.New("the enabled pipeline has no next run")
	}
	next := *cfg.NextRunAt
	a.srv.Advance(time.Hour)
	if _, err := a.srv.InboundCall(mockserver.InboundCall{
		To: a.acct.PhoneNumber, From: "+15551230109", Duration: 60,
		Caller: mockserver.Caller{Said: "My name is Ken Adams, I'd like to book a site survey. ken@example.com"},
	}); err != nil {
		return fmt.Errorf("simulating a caller: %w", err)
	}
	a.say("At %s a new caller (+15551230109) asked to book a site survey", a.clock(a.srv.Now()))

	a.srv.Advance(next.Sub(a.srv.Now()))
	a.say("The clock reaches %s, the scheduled runner's time:", a.clock(a.srv.Now()))
	if err := a.learnNames(ctx); err != nil {
		return err
	}
	entries, err := a.c.SDR.ListActivity(ctx, &sdr.ActivityParams{BusinessID: a.businessID, Limit: 20})
	if err != nil {
		return fmt.Errorf("reading the activity: %w", err)
	}
	var touched string
	for _, e := range slices.Backward(entries) {
		if e.Trigger == "scheduled" {
			a.say("  %s  %-9s %-8s %-18s %s", a.clock(e.CreatedAt), e.Trigger, e.Action, a.name(e.LeadID), e.Detail)
			if e.Success && isTouch(e.Action) && touched == "" {
				touched = e.LeadID
			}
		}
	}
	if touched == "" {
		return errors.New("the scheduled run touched no lead")
	}
	after, err := a.c.SDR.GetConfig(ctx, a.businessID)
	if err != nil {
		return fmt.Errorf("reading the configuration: %w", err)
	}
	a.say("  last run %s (%s); next run %s", a.clock(*after.LastRunAt), examplekit.Str(after.LastRunTrigger), a.clock(*after.NextRunAt))

	a.srv.Advance(5 * time.Minute)
	return a.secondTouch(ctx, touched)
}

// secondTouch tries to text a lead just touched: the cadence refuses it
// with the time the next touch is allowed.
func (a *autopilot) secondTouch(ctx context.Context, leadID string) error {
	_, err := a.c.SDR.Act(ctx, &sdr.ActionParams{BusinessID: a.businessID, LeadID: leadID, Action: sdr.ActionSMS})
	var apiErr *voiceagent.Error
	switch {
	case err == nil:
		return fmt.Errorf("a second touch of %s was not refused", a.name(leadID))
	case errors.As(err, &apiErr) && apiErr.StatusCode == 429 && apiErr.NextAllowedAt != nil:
		a.say("A second touch of %s now is refused: %d %s, next touch allowed at %s (Retry-After %s)",
			a.name(leadID), apiErr.StatusCode, apiErr.Code, a.clock(*apiErr.NextAllowedAt), apiErr.RetryAfter)
		return nil
	default:
		return fmt.Errorf("a second touch of %s: %w", a.name(leadID), err)
	}
}

// firstTouch is the first lead a run touched, or "".
func firstTouch(res *sdr.RunResult) string {
	for _, r := range res.Results {
		if r.Success && isTouch(r.Action) {
			return r.LeadID
		}
	}
	return ""
}

func isTouch(action sdr.Action) bool {
	return action == sdr.ActionCall || action == sdr.ActionSMS || action == sdr.ActionEmail
}

// name is a lead's name when the pipeline read showed it, else its id.
func (a *autopilot) name(leadID string) string {
	if n, ok := a.names[leadID]; ok {
		return n
	}
	return leadID
}

// clock prints a time in the business's time zone (New York until the
// configuration names it: the platform's default, and the mock business's).
func (a *autopilot) clock(t time.Time) string {
	if a.zone == nil {
		a.setZone("America/New_York")
	}
	return t.In(a.zone).Format("Mon 15:04 MST")
}

// setZone prints times in the IANA zone name (UTC when unknown here).
func (a *autopilot) setZone(name string) { a.zone = examplekit.Zone(name) }
