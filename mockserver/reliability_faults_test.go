package mockserver_test

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/events"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/leads"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/sms"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// faultWays are the ways a request fails in the fault workload. The
// latency fault outlasts the client's per-attempt timeout (faultAttempt),
// so the client gives up while the handler still runs: the response is lost
// like a dropped one.
var faultWays = []struct {
	name string
	rule mockserver.FaultRule
}{
	{"429", mockserver.FaultRule{Status: http.StatusTooManyRequests, RetryAfter: new(int)}},
	{"500", mockserver.FaultRule{Status: http.StatusInternalServerError}},
	{"502", mockserver.FaultRule{Status: http.StatusBadGateway}},
	{"503", mockserver.FaultRule{Status: http.StatusServiceUnavailable}},
	{"latency", mockserver.FaultRule{LatencyMS: 700}},
	{"drop", mockserver.FaultRule{Drop: true}},
	{"drop-after-handler", mockserver.FaultRule{Drop: true, After: true}},
	{"truncate", mockserver.FaultRule{Truncate: true}},
}

const (
	faultRate    = 0.3
	faultAttempt = 250 * time.Millisecond // the client's per-attempt timeout
	faultOps     = 12                     // of each kind (calls, texts, lead updates) per way
	faultWorkers = 8
)

// TestEveryWriteHappensExactlyOnceThroughFaults runs a workload of writes
// through the SDK (calls placed, texts sent, leads updated) while 30% of
// the requests fail in one way (a subtest per way) or in all of them at
// once ("mixed"), and checks that every logical operation happened exactly
// once: each SDK call succeeded, every call and text exists once with the
// id the SDK returned (the SDK's Idempotency-Key makes a retry after a
// lost response a replay), and every lead carries its update and was
// rescored once.
//
// Leads have no create endpoint (they come from inbound calls and texts),
// so the lead write is PATCH /v1/leads of leads made by inbound texts
// beforehand (through the admin API, which faults never touch). A PATCH
// carries no Idempotency-Key: it is idempotent by itself (the same body
// leaves the same lead), which is what the rescoring count checks.
func TestEveryWriteHappensExactlyOnceThroughFaults(t *testing.T) {
	t.Parallel()
	for _, way := range faultWays {
		t.Run(way.name, func(t *testing.T) {
			t.Parallel()
			rule := way.rule
			rule.Probability = faultRate
			runFaultWorkload(t, faultOps, rule)
		})
	}
	t.Run("mixed", func(t *testing.T) {
		t.Parallel()
		// Rules are tried in order and the first that fires wins: with
		// each firing at p, none fires with probability (1-p)^k = 0.7.
		p := 1 - math.Pow(1-faultRate, 1/float64(len(faultWays)))
		var rules []mockserver.FaultRule
		for _, way := range faultWays {
			rule := way.rule
			rule.Probability = p
			rules = append(rules, rule)
		}
		runFaultWorkload(t, 3*faultOps, rules...)
	})
}

// runFaultWorkload places n calls, sends n texts and updates n leads
// through the SDK while the rules fail requests, then checks that each
// happened exactly once.
func runFaultWorkload(t *testing.T, n int, rules ...mockserver.FaultRule) {
	t.Helper()
	env := testenv.New(t, mockserver.WithRateLimits(false), mockserver.WithStartTime(time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)))
	srv, acct := env.Server, env.Account
	ctx := context.Background()

	// The leads to update, and the numbers texts go to (opted in, and
	// none of them a lead's, so a text touches no lead).
	leadIDs := make([]string, n)
	for i := range leadIDs {
		in, err := srv.InboundSMS(mockserver.InboundSMS{To: acct.PhoneNumber, From: fmt.Sprintf("+1555730%04d", i), Body: "Hello, I need a quote"})
		require.NoError(t, err)
		leadIDs[i] = in.LeadID
	}
	for i := range n {
		require.NoError(t, srv.SetConsent(acct.BusinessID, textNumber(i), mockserver.ConsentOptedIn))
	}
	for _, r := range rules {
		r.Method = "" // every write of the workload (and nothing else runs meanwhile)
		srv.AddFault(r)
	}

	c := env.ClientFor(acct.APIKey, voiceagent.WithMaxRetries(15), voiceagent.WithRetryWait(0, 0),
		voiceagent.WithHTTPClient(&http.Client{Timeout: faultAttempt}))
	type result struct{ callID, messageSID string }
	results := make([]result, n)
	work := make(chan func() error)
	var wg sync.WaitGroup
	errs := make(chan error, 3*n)
	ops := 3 * n
	for range faultWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for op := range work {
				if err := op(); err != nil {
					errs <- err
				}
			}
		}()
	}
	for i := range n {
		work <- func() error {
			name := fmt.Sprintf("Callee %d", i)
			created, err := c.Calls.Create(ctx, &calls.CreateParams{AgentID: acct.AgentID, To: callNumber(i), Name: &name})
			if err != nil {
				return fmt.Errorf("call %d: %w", i, err)
			}
			results[i].callID = created.ID
			return nil
		}
		work <- func() error {
			sent, err := c.SMS.Send(ctx, &sms.SendParams{FromAgentID: acct.AgentID, To: textNumber(i), Message: fmt.Sprintf("Text %d", i)})
			if err != nil {
				return fmt.Errorf("text %d: %w", i, err)
			}
			results[i].messageSID = sent.MessageSID
			return nil
		}
		work <- func() error {
			notes, status := fmt.Sprintf("update %d", i), leads.StatusQualified
			_, err := c.Leads.Update(ctx, &leads.UpdateParams{ID: leadIDs[i], Notes: &notes, Status: &status})
			if err != nil {
				return fmt.Errorf("lead %d: %w", i, err)
			}
			return nil
		}
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error("lost operation:", err)
	}

	// The rules fired (every one when there is one a kind; in the mixed
	// run, each fires at about 4%: most of them), and every fault cost an
	// attempt. An attempt whose client gave up (latency) finishes on the
	// server later: wait for it to be journaled.
	fired, kinds := 0, 0
	for _, r := range srv.Faults() {
		fired += r.Fired
		if r.Fired > 0 {
			kinds++
		}
	}
	if len(rules) == 1 {
		assert.Positive(t, fired, "the rule fired")
	} else {
		assert.GreaterOrEqual(t, kinds, len(rules)-2, "most kinds of fault fired")
	}
	srv.ClearFaults()
	wctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	want := int64(ops + fired)
	srv.WaitRequests(wctx, func(e *mockserver.JournalEntry) bool { return e.Seq >= want })
	attempts := len(srv.Requests(nil))
	assert.GreaterOrEqual(t, attempts, int(want), "every fault cost an attempt")
	t.Logf("%d operations, %d attempts, %d faults of %d kinds", ops, attempts, fired, kinds)

	reader := env.Client
	checkCallsOnce(t, reader, results, func(r result) string { return r.callID })
	checkTextsOnce(t, reader, acct.AgentID, results, func(r result) string { return r.messageSID })
	checkLeadsUpdatedOnce(t, reader, leadIDs)
}

// The workload's numbers, outside the platform's pool (+15552000000 up).
func callNumber(i int) string { return fmt.Sprintf("+1555710%04d", i) }
func textNumber(i int) string { return fmt.Sprintf("+1555720%04d", i) }

// checkCallsOnce: one call per logical create, with the id the SDK
// returned, to its own number.
func checkCallsOnce[R any](t *testing.T, c *client.Client, results []R, id func(R) string) {
	t.Helper()
	ctx := context.Background()
	var listed []string
	for call, err := range c.Calls.All(ctx, &calls.ListParams{Limit: 100}) {
		require.NoError(t, err)
		listed = append(listed, call.ID)
	}
	var returned []string
	for i, r := range results {
		returned = append(returned, id(r))
		call, err := c.Calls.Get(ctx, id(r))
		if assert.NoError(t, err, "call %d", i) {
			assert.Equal(t, callNumber(i), call.To, "call %d", i)
		}
	}
	assert.ElementsMatch(t, returned, listed, "every call placed exactly once, and no other")
}

// checkTextsOnce: one outbound text per logical send, with the sid the SDK
// returned.
func checkTextsOnce[R any](t *testing.T, c *client.Client, agentID string, results []R, sid func(R) string) {
	t.Helper()
	byTo := map[string][]string{}
	for m, err := range c.SMS.All(context.Background(), &sms.ListParams{Direction: "outbound", AgentID: agentID, Limit: 100}) {
		require.NoError(t, err)
		byTo[m.To] = append(byTo[m.To], m.MessageSID)
	}
	for i, r := range results {
		assert.Equal(t, []string{sid(r)}, byTo[textNumber(i)], "text %d sent exactly once", i)
	}
	assert.Len(t, byTo, len(results), "no other text")
}

// checkLeadsUpdatedOnce: every lead carries its update, and was rescored
// twice in all (when the inbound text created it, and when the update made
// it qualified), however often the update was retried.
func checkLeadsUpdatedOnce(t *testing.T, c *client.Client, leadIDs []string) {
	t.Helper()
	ctx := context.Background()
	scored := map[string]int{}
	for ev, err := range c.Events.All(ctx, &events.ListParams{Type: webhooks.EventLeadScored, Limit: 100}) {
		require.NoError(t, err)
		var l struct {
			ID string `json:"id"`
		}
		require.NoError(t, ev.DecodeData(&l))
		scored[l.ID]++
	}
	for i, id := range leadIDs {
		l, err := c.Leads.Get(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, leads.StatusQualified, l.Status, "lead %d", i)
		if assert.NotNil(t, l.Notes, "lead %d", i) {
			assert.Equal(t, fmt.Sprintf("update %d", i), *l.Notes)
		}
		assert.Equal(t, 2, scored[id], "lead %d rescored once by its update", i)
	}
}
