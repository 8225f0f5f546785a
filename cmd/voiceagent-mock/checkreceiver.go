package main

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/voiceagent/voiceagent-go/webhooks"
	"github.com/voiceagent/voiceagent-go/webhooks/webhookstest"
)

// secretVariable holds the signing secret of check-receiver when -secret
// is not given.
const secretVariable = "VOICEAGENT_WEBHOOK_SECRET"

const checkReceiverUsage = `Usage: voiceagent-mock check-receiver [-secret S] [-events a,b] [-format text|json|junit] URL

Runs the receiver checks against the webhook receiver at URL (any http or
https URL; no server is needed): a correctly signed delivery of each event
type with sample data, and tampered, wrongly signed, unsigned, stale,
future, rotated and repeated deliveries, each answer timed against the
platform's 10 s attempt timeout. The secret is the subscription's signing
secret (whsec_...), from -secret or $` + secretVariable + `.

Exits 0 when every required check passes, 1 when one fails, 2 for bad usage.

Flags:
`

// checkReceiver is the check-receiver subcommand: it runs
// webhookstest.Check against a URL and prints the report as text, JSON
// or JUnit XML.
func checkReceiver(ctx context.Context, args []string, env func(string) (string, bool), stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("check-receiver", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	secret := fs.String("secret", "", "the subscription's signing secret, whsec_... [$"+secretVariable+"]")
	events := fs.String("events", "", "comma-separated event types of the accepts_valid checks (default every type)")
	format := fs.String("format", "text", "output: text, json or junit")
	bad := func(format string, a ...any) int {
		fmt.Fprintf(stderr, "voiceagent-mock check-receiver: "+format+"\nRun voiceagent-mock check-receiver -help for the usage.\n", a...)
		return exitBadArgs
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, checkReceiverUsage)
			fs.SetOutput(stdout)
			fs.PrintDefaults()
			return exitOK
		}
		return bad("%v", err)
	}
	if fs.NArg() != 1 {
		return bad("give exactly one receiver URL (got %d arguments)", fs.NArg())
	}
	if *secret == "" {
		*secret, _ = env(secretVariable)
	}
	if *secret == "" {
		return bad("no secret: give -secret or set %s", secretVariable)
	}
	switch *format {
	case "text", "json", "junit":
	default:
		return bad("-format must be text, json or junit, not %q", *format)
	}
	var opts []webhookstest.Option
	if *events != "" {
		var types []webhooks.EventType
		for _, e := range strings.Split(*events, ",") {
			types = append(types, webhooks.EventType(strings.TrimSpace(e)))
		}
		opts = append(opts, webhookstest.WithEvents(types...))
	}
	report, err := webhookstest.Check(ctx, fs.Arg(0), *secret, opts...)
	if err != nil {
		return bad("%v", err)
	}
	switch *format {
	case "json":
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(report)
	case "junit":
		writeJUnit(stdout, report)
	default:
		writeText(stdout, report)
	}
	if !report.Passed {
		return exitFailed
	}
	return exitOK
}

// checkName is a check's name in the outputs: its id, with the event type
// of an accepts_valid check.
func checkName(c webhookstest.Result) string {
	if c.Event != "" {
		return c.ID + " " + string(c.Event)
	}
	return c.ID
}

// writeText prints one line per check, the detail of failed ones, and a
// verdict.
func writeText(w io.Writer, r *webhookstest.Report) {
	fmt.Fprintf(w, "Receiver checks of %s\n", r.URL)
	failed := 0
	for _, c := range r.Checks {
		mark := "PASS"
		switch {
		case c.Passed:
		case c.Required:
			mark = "FAIL"
			failed++
		default:
			mark = "WARN"
		}
		fmt.Fprintf(w, "%s  %-45s %3d %5dms\n", mark, checkName(c), c.Status, c.DurationMS)
		if !c.Passed {
			fmt.Fprintf(w, "      %s\n", c.Detail)
		}
	}
	if r.Passed {
		fmt.Fprintf(w, "passed: every required check of %d passed\n", len(r.Checks))
	} else {
		fmt.Fprintf(w, "failed: %d required check(s) failed\n", failed)
	}
}

// JUnit XML, as CI systems read it: one testcase per check.
type junitSuites struct {
	XMLName xml.Name     `xml:"testsuites"`
	Suites  []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Time     string      `xml:"time,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Time      string        `xml:"time,attr"`
	Failure   *junitFailure `xml:"failure,omitempty"`
	SystemOut string        `xml:"system-out,omitempty"`
}

type junitFailure struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr"`
	Text    string `xml:",chardata"`
}

// writeJUnit prints the report as JUnit XML: a <testcase> per check, with
// a <failure> for each failed one (a recommended check that failed is
// reported in system-out, not as a failure).
func writeJUnit(w io.Writer, r *webhookstest.Report) {
	s := junitSuite{Name: "receiver checks " + r.URL, Tests: len(r.Checks)}
	var total int64
	for _, c := range r.Checks {
		total += c.DurationMS
		tc := junitCase{Name: checkName(c), ClassName: "voiceagent.receiver_checks", Time: seconds(c.DurationMS)}
		switch {
		case c.Passed:
		case c.Required:
			s.Failures++
			tc.Failure = &junitFailure{Message: fmt.Sprintf("%s: status %d", c.ID, c.Status), Type: c.ID, Text: c.Detail}
		default:
			tc.SystemOut = "recommended check failed: " + c.Detail
		}
		s.Cases = append(s.Cases, tc)
	}
	s.Time = seconds(total)
	fmt.Fprint(w, xml.Header)
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	_ = enc.Encode(junitSuites{Suites: []junitSuite{s}})
	fmt.Fprintln(w)
}

func seconds(ms int64) string { return fmt.Sprintf("%.3f", float64(ms)/1000) }
