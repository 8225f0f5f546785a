// Command webhook-receiver runs a webhook receiver built on the webhooks
// package's Handler, subscribes it to a business's events, and prints every
// delivery it gets with what it answered:
//
//   - verified deliveries are decoded and dispatched to the handlers
//     registered per event type (answer 200 processed);
//   - a handler that fails answers 500, and the platform retries the delivery
//     on its schedule (immediately, 5 s, 5 min, ...);
//   - a delivery seen before (a retry after success, or a replay: the same
//     webhook-id) is acknowledged without running the handlers again (200
//     duplicate);
//   - a request that is not signed with the subscription's secret is refused
//     (401).
//
// By default it runs against an in-process mock server: it makes a caller
// ring the business (the call and the lead collected from it are the
// events), fails the first delivery of call.completed on purpose, moves the
// simulated clock to the retry, replays an event, and sends a forged
// request, then stops.
//
// With VOICEAGENT_BASE_URL and VOICEAGENT_API_KEY set it subscribes on that
// service instead: it listens on WEBHOOK_RECEIVER_ADDR (default
// 127.0.0.1:8090) and subscribes VOICEAGENT_WEBHOOK_URL, the public https URL
// that reaches that address (a tunnel or a load balancer). It prints
// deliveries until interrupted (or until WEBHOOK_RECEIVER_COUNT deliveries
// were processed), then deletes the subscription.
//
//	go run ./examples/webhook-receiver
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/events"
	"github.com/voiceagent/voiceagent-go/internal/harness/examplekit"
	"github.com/voiceagent/voiceagent-go/mockserver"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// receiverPath is where the receiver mounts its handler.
const receiverPath = "/webhooks/voiceagent"

// subscribed are the event types the example subscribes to.
var subscribed = []webhooks.EventType{
	webhooks.EventCallCompleted, webhooks.EventCallFailed,
	webhooks.EventLeadCreated, webhooks.EventSMSReceived,
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "webhook-receiver:", err)
		os.Exit(1)
	}
}

// syncWriter serialises lines written from concurrent deliveries.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) say(format string, args ...any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	fmt.Fprintf(s.w, format+"\n", args...)
}

func run(ctx context.Context, w io.Writer) error {
	out := &syncWriter{w: w}
	base, key := os.Getenv("VOICEAGENT_BASE_URL"), os.Getenv("VOICEAGENT_API_KEY")
	if base != "" && key != "" {
		return runAgainstService(ctx, out, base, key)
	}
	return runAgainstMock(ctx, out)
}

// receiver is the example's HTTP server: the webhooks.Handler behind a
// middleware that prints each delivery and its answer. It is made before
// the subscription, whose secret it gets with SetSecrets.
type receiver struct {
	out       *syncWriter
	handler   *webhooks.Handler
	processed atomic.Int64
	answers   sync.Map // answer status ("processed", "duplicate", "401", ...) -> *atomic.Int64
}

// newReceiver builds the Handler, still without a secret (the subscription
// that issues it needs the receiver's URL first), and registers what the
// program does with each event type. failFirst makes the first
// call.completed delivery fail, to show a retry.
func newReceiver(out *syncWriter, failFirst bool) (*receiver, error) {
	// The middleware prints every answer; the Handler's own log of refused
	// deliveries would repeat it.
	h, err := webhooks.NewHandler(webhooks.WithErrorLog(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		return nil, err
	}
	rv := &receiver{out: out, handler: h}
	var failed atomic.Bool
	h.On(webhooks.EventLeadCreated, func(ctx context.Context, e *webhooks.Event) error {
		lead, err := e.Lead()
		if err != nil {
			return err
		}
		rv.out.say("    lead.created: %s (%s), source %s", lead.Name, lead.Phone, lead.Source)
		return nil
	})
	h.On(webhooks.EventCallCompleted, func(ctx context.Context, e *webhooks.Event) error {
		if failFirst && failed.CompareAndSwap(false, true) {
			rv.out.say("    call.completed: the CRM is down, failing this attempt (the platform will retry)")
			return errors.New("CRM unavailable")
		}
		call, err := e.Call()
		if err != nil {
			return err
		}
		rv.out.say("    call.completed: %s call of %ds, summary: %s", call.Direction, call.Duration, call.Summary)
		return nil
	})
	h.OnAny(func(ctx context.Context, e *webhooks.Event) error {
		rv.processed.Add(1)
		return nil
	})
	return rv, nil
}

// ServeHTTP prints the delivery, passes it to the Handler, and prints the
// answer.
func (rv *receiver) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != receiverPath {
		http.NotFound(w, r)
		return
	}
	// A delivery can arrive before the subscription's answer (and so its
	// secret) did: the Handler answers it 503, and the platform retries.
	rec := httptest.NewRecorder()
	rv.handler.ServeHTTP(rec, r)
	var answer struct{ Status, Error string }
	_ = json.Unmarshal(rec.Body.Bytes(), &answer)
	label := answer.Status
	if rec.Code >= 300 {
		label = strconv.Itoa(rec.Code)
	}
	n, _ := rv.answers.LoadOrStore(label, new(atomic.Int64))
	n.(*atomic.Int64).Add(1)
	detail := answer.Status
	if answer.Error != "" {
		detail = answer.Error
	}
	rv.out.say("  <- %s attempt %s, webhook-id %s: answered %d %s",
		orDash(r.Header.Get(webhooks.HeaderEvent)), orDash(r.Header.Get(webhooks.HeaderAttempt)),
		orDash(r.Header.Get(webhooks.HeaderID)), rec.Code, detail)
	for k, vs := range rec.Header() {
		w.Header()[k] = vs
	}
	w.WriteHeader(rec.Code)
	_, _ = w.Write(rec.Body.Bytes())
}

func (rv *receiver) count(label string) int64 {
	if n, ok := rv.answers.Load(label); ok {
		return n.(*atomic.Int64).Load()
	}
	return 0
}

// subscribe creates the subscription and gives the receiver's Handler its
// secret.
func subscribe(ctx context.Context, out *syncWriter, c *client.Client, rv *receiver, businessID, url string) (*webhooks.Subscription, error) {
	sub, err := c.Webhooks.Upsert(ctx, &webhooks.UpsertParams{
		BusinessID:  businessID,
		WebhookURL:  url,
		Events:      subscribed,
		Description: voiceagent.String("webhook-receiver example"),
	})
	if err != nil {
		return nil, fmt.Errorf("subscribing: %w", err)
	}
	// The secret is in this answer only: a real receiver stores it now.
	if err := rv.handler.SetSecrets(sub.Secret); err != nil {
		return nil, err
	}
	out.say("Subscribed %s to %v (subscription %s, secret %s…, shown once)", url, sub.Events, sub.ID, sub.Secret[:10])
	return sub, nil
}

func runAgainstMock(ctx context.Context, out *syncWriter) error {
	// Noon in New York: inside the hours texts may be sent.
	srv := examplekit.StartMock(mockserver.WithStartTime(time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)))
	defer srv.Close()
	acct, err := srv.NewAccount(mockserver.AccountOptions{BusinessName: "Webhook Plumbing"})
	if err != nil {
		return err
	}
	c := acct.Client()
	out.say("Started an in-process mock server at %s with business %s (number %s)", srv.BaseURL, acct.BusinessID, acct.PhoneNumber)

	rv, err := newReceiver(out, true)
	if err != nil {
		return err
	}
	hs := httptest.NewServer(rv)
	defer hs.Close()
	url := hs.URL + receiverPath
	out.say("Receiver listening at %s", url)
	sub, err := subscribe(ctx, out, c, rv, acct.BusinessID, url)
	if err != nil {
		return err
	}
	delivered := func(event webhooks.EventType, status mockserver.DeliveryStatus) mockserver.DeliveryFilter {
		return mockserver.DeliveryFilter{SubscriptionID: sub.ID, Event: string(event), Status: status}
	}
	waitCtx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()

	out.say("A caller rings %s and asks for a visit; the clock runs until the call ends", acct.PhoneNumber)
	if _, err := srv.InboundCall(mockserver.InboundCall{
		To: acct.PhoneNumber, From: "+15551230077", Duration: 60,
		Caller: mockserver.Caller{Said: "Hi, this is Ana Ruiz, my sink is leaking. Can I book a visit? ana@example.com"},
	}); err != nil {
		return err
	}
	// Answered after 2 s of ringing, the call ends 60 s later; the clock
	// stops before the first retry falls due (5 s after the end).
	srv.Advance(63 * time.Second)
	// First attempts are posted at once, in the background: wait for them.
	if len(srv.WaitDeliveries(waitCtx, delivered(webhooks.EventLeadCreated, mockserver.DeliverySucceeded).Match)) == 0 ||
		len(srv.WaitDeliveries(waitCtx, func(d *mockserver.Delivery) bool {
			return delivered(webhooks.EventCallCompleted, "").Match(d) && len(d.Attempts) == 1 && d.Status == mockserver.DeliveryPending
		})) == 0 {
		return errors.New("the first deliveries did not arrive")
	}

	out.say("Moving the clock 5 s: the platform retries the failed delivery")
	srv.Advance(5 * time.Second) // Advance waits for the retry's answer
	done := srv.Deliveries(delivered(webhooks.EventCallCompleted, mockserver.DeliverySucceeded))
	if len(done) != 1 {
		return errors.New("the retry of call.completed did not succeed")
	}
	out.say("call.completed delivered after %d attempts", len(done[0].Attempts))

	leadEvents := srv.Deliveries(delivered(webhooks.EventLeadCreated, ""))
	out.say("Replaying event %s (lead.created) through the events API: same webhook-id, so a duplicate", leadEvents[0].EventID)
	replay, err := c.Events.Replay(ctx, &events.ReplayParams{EventIDs: []string{leadEvents[0].EventID}})
	if err != nil {
		return fmt.Errorf("replaying: %w", err)
	}
	if len(srv.WaitDeliveryCount(waitCtx, len(replay.DeliveryIDs)+1, delivered(webhooks.EventLeadCreated, mockserver.DeliverySucceeded).Match)) == 0 {
		return errors.New("the replay was not delivered")
	}

	out.say("Posting a forged delivery (signed with another secret)")
	if err := forge(ctx, url); err != nil {
		return err
	}

	out.say("Summary: %d events processed, %d duplicate(s) acknowledged without processing, %d forged request(s) refused",
		rv.processed.Load(), rv.count("duplicate"), rv.count("401"))
	if _, err := c.Webhooks.Delete(ctx, sub.ID); err != nil {
		return fmt.Errorf("deleting the subscription: %w", err)
	}
	out.say("Deleted the subscription. Done.")
	return nil
}

// forge posts a body signed with a secret that is not the subscription's.
func forge(ctx context.Context, url string) error {
	other, err := webhooks.NewSecret()
	if err != nil {
		return err
	}
	body := []byte(`{"id":"evt_forged","event":"lead.created","business_id":"x","timestamp":"2026-03-10T16:00:00Z","data":{}}`)
	h, err := webhooks.SignHeaders([]string{other}, "msg_forged", time.Now(), body)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	for k, vs := range h {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(webhooks.HeaderEvent, string(webhooks.EventLeadCreated))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		return fmt.Errorf("the forged delivery got %d, want 401", resp.StatusCode)
	}
	return nil
}

func runAgainstService(ctx context.Context, out *syncWriter, base, key string) error {
	url := os.Getenv("VOICEAGENT_WEBHOOK_URL")
	if url == "" {
		return errors.New("set VOICEAGENT_WEBHOOK_URL to the public https URL that reaches this receiver (path " + receiverPath + ")")
	}
	addr := os.Getenv("WEBHOOK_RECEIVER_ADDR")
	if addr == "" {
		addr = "127.0.0.1:8090"
	}
	limit, _ := strconv.Atoi(os.Getenv("WEBHOOK_RECEIVER_COUNT"))
	c := client.New(key, voiceagent.WithBaseURL(base))
	caps, err := c.Account.Capabilities(ctx)
	if err != nil {
		return fmt.Errorf("reading the key's capabilities: %w", err)
	}
	if len(caps.Workspaces) == 0 {
		return errors.New("the key reaches no business")
	}
	business := caps.Workspaces[0]

	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	rv, err := newReceiver(out, false)
	if err != nil {
		return err
	}
	hs := &http.Server{Handler: rv, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	defer hs.Close()
	out.say("Using %s; receiver listening on %s%s", base, ln.Addr(), receiverPath)

	sub, err := subscribe(ctx, out, c, rv, business.ID, url)
	if err != nil {
		return err
	}
	defer func() {
		// A fresh context: the run's may have ended with an interrupt.
		cleanup, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := c.Webhooks.Delete(cleanup, sub.ID); err != nil {
			out.say("Could not delete subscription %s: %v", sub.ID, err)
			return
		}
		out.say("Deleted the subscription.")
	}()
	out.say("Waiting for deliveries for %s (%s): call or text your number. Ctrl-C stops.", business.Name, business.ID)
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for limit <= 0 || rv.processed.Load() < int64(limit) {
		select {
		case <-ctx.Done():
			out.say("Stopped after %d events.", rv.processed.Load())
			return nil
		case <-tick.C:
		}
	}
	out.say("Processed %d events.", rv.processed.Load())
	return nil
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
