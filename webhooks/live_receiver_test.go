package webhooks_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/internal/harness/testenv"
	"github.com/voiceagent/voiceagent-go/leads"
	"github.com/voiceagent/voiceagent-go/sms"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// daytime is 12:00 in New York, the businesses' time zone (and the local
// time of the +1555 test numbers): texts are outside quiet hours.
var daytime = time.Date(2026, 3, 10, 16, 0, 0, 0, time.UTC)

// liveRequest is one request a liveReceiver got.
type liveRequest struct {
	received
	Path string
	// Status is what the receiver answered.
	Status int
	// Signed reports a webhook-signature header; RefErr is then the
	// verdict of the Standard Webhooks reference library.
	Signed bool
	RefErr error
}

// liveRaw is a templated or form body the handler accepted (OnRaw).
type liveRaw struct {
	Body []byte
	Info webhooks.DeliveryInfo
}

// liveReceiver is a receiver on loopback built the way a user builds one:
// a webhooks.NewHandler (signed events, unsigned per-call webhooks,
// templated bodies), mounted behind a middleware that also verifies every
// signed request with the Standard Webhooks reference library and can
// answer the first requests 500 before the handler sees them.
type liveReceiver struct {
	*httptest.Server
	failFirst int
	changed   chan struct{}

	mu       sync.Mutex
	h        http.Handler
	ref      *standardwebhooks.Webhook
	requests []liveRequest
	events   []*webhooks.Event
	calls    []*webhooks.CallWebhook
	raws     []liveRaw
}

func newLiveReceiver(t *testing.T, failFirst int) *liveReceiver {
	t.Helper()
	r := &liveReceiver{failFirst: failFirst, changed: make(chan struct{}, 1)}
	r.Server = httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(r.Close)
	return r
}

// liveSubscription subscribes a new liveReceiver (answering its first
// failFirst requests 500) to events of the account's business.
func liveSubscription(t *testing.T, env *testenv.Env, failFirst int, events ...webhooks.EventType) (*liveReceiver, *webhooks.Subscription) {
	t.Helper()
	recv := newLiveReceiver(t, failFirst)
	sub := subscribe(t, env, &webhooks.UpsertParams{WebhookURL: recv.URL, Events: events})
	recv.arm(t, sub.Secret)
	return recv, sub
}

// arm installs the handler once the subscription's secret is known.
func (r *liveReceiver) arm(t *testing.T, secret string) {
	t.Helper()
	h, err := webhooks.NewHandler(webhooks.WithSecrets(secret), webhooks.WithUnsignedCallWebhooks(true),
		webhooks.WithErrorLog(slog.New(slog.NewTextHandler(io.Discard, nil))))
	require.NoError(t, err)
	ref, err := standardwebhooks.NewWebhook(secret)
	require.NoError(t, err)
	h.OnAny(func(ctx context.Context, e *webhooks.Event) error {
		ctx.Value(handledKey{}).(*handledNow).event = e
		return nil
	})
	h.OnCall(func(ctx context.Context, c *webhooks.CallWebhook) error {
		ctx.Value(handledKey{}).(*handledNow).call = c
		return nil
	})
	h.OnRaw(func(ctx context.Context, body []byte) error {
		info, _ := webhooks.DeliveryFromContext(ctx)
		ctx.Value(handledKey{}).(*handledNow).raw = &liveRaw{Body: body, Info: info}
		return nil
	})
	r.mu.Lock()
	r.h, r.ref = h, ref
	r.mu.Unlock()
}

// handledNow is what the handler ran for during one request; serve records
// it with the request, at once, so that a test that saw the one sees the
// other.
type handledNow struct {
	event *webhooks.Event
	call  *webhooks.CallWebhook
	raw   *liveRaw
}

type handledKey struct{}

// statusWriter remembers the status a handler wrote.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(code int) {
	w.status = code
	w.ResponseWriter.WriteHeader(code)
}

func (r *liveReceiver) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	n, h, ref := len(r.requests)+1, r.h, r.ref
	r.mu.Unlock()
	lr := liveRequest{received: received{Method: req.Method, Header: req.Header.Clone(), Body: body}, Path: req.URL.Path}
	if req.Header.Get(webhooks.HeaderSignature) != "" && ref != nil {
		lr.Signed, lr.RefErr = true, ref.Verify(body, req.Header)
	}
	sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
	var now handledNow
	switch {
	case h == nil:
		sw.WriteHeader(http.StatusServiceUnavailable)
	case n <= r.failFirst:
		sw.WriteHeader(http.StatusInternalServerError)
	default:
		req.Body = io.NopCloser(bytes.NewReader(body))
		h.ServeHTTP(sw, req.WithContext(context.WithValue(req.Context(), handledKey{}, &now)))
	}
	lr.Status = sw.status
	r.mu.Lock()
	r.requests = append(r.requests, lr)
	if now.event != nil {
		r.events = append(r.events, now.event)
	}
	if now.call != nil {
		r.calls = append(r.calls, now.call)
	}
	if now.raw != nil {
		r.raws = append(r.raws, *now.raw)
	}
	r.mu.Unlock()
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

// waitFor waits until cond, called under the receiver's lock, holds.
func (r *liveReceiver) waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		r.mu.Lock()
		ok := cond()
		r.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatalf("the receiver is still waiting for %s", what)
		}
	}
}

// event waits for the handler to run for an event of type typ and returns
// the first one.
func (r *liveReceiver) event(t *testing.T, typ webhooks.EventType) *webhooks.Event {
	t.Helper()
	var found *webhooks.Event
	r.waitFor(t, "a "+string(typ)+" event", func() bool {
		i := slices.IndexFunc(r.events, func(e *webhooks.Event) bool { return e.Type == typ })
		if i >= 0 {
			found = r.events[i]
		}
		return found != nil
	})
	return found
}

// call waits for the handler to run for a per-call webhook.
func (r *liveReceiver) call(t *testing.T) *webhooks.CallWebhook {
	t.Helper()
	r.waitFor(t, "a per-call webhook", func() bool { return len(r.calls) > 0 })
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[0]
}

// raw waits for the handler to accept n templated or form bodies and
// returns the n-th.
func (r *liveReceiver) raw(t *testing.T, n int) liveRaw {
	t.Helper()
	r.waitFor(t, "a templated body", func() bool { return len(r.raws) >= n })
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.raws[n-1]
}

// got returns the requests so far.
func (r *liveReceiver) got() []liveRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.requests)
}

// handled returns the events the handler ran for so far.
func (r *liveReceiver) handled() []*webhooks.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// assertReferenceVerified checks that the reference library accepted every
// signed request and returns how many there were.
func (r *liveReceiver) assertReferenceVerified(t *testing.T) int {
	t.Helper()
	signed := 0
	for _, lr := range r.got() {
		if lr.Signed {
			signed++
			assert.NoError(t, lr.RefErr, "the Standard Webhooks reference library verifies %s", lr.Header.Get(webhooks.HeaderEvent))
		}
	}
	return signed
}

func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// assertSameFields checks that a typed view has a field for every member
// of the event's data, and no other.
func assertSameFields(t *testing.T, e *webhooks.Event, typed any) {
	t.Helper()
	var sent, back map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(e.Data, &sent))
	raw, err := json.Marshal(typed)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(raw, &back))
	assert.ElementsMatch(t, slices.Collect(maps.Keys(sent)), slices.Collect(maps.Keys(back)), "the fields of %s", e.Type)
}

// callData is a call read through the API, as the accessor shows it.
func callData(c *calls.Call) webhooks.CallData {
	var q *webhooks.Quality
	if c.QualityDimensions != nil {
		q = (*webhooks.Quality)(c.QualityDimensions)
	}
	return webhooks.CallData{
		ID: c.ID, ConversationID: c.ConversationID, Status: string(c.Status), Direction: c.Direction, Duration: c.Duration,
		AgentID: c.AgentID, AgentName: c.AgentName, BusinessID: c.BusinessID, LeadID: c.LeadID,
		To: c.To, From: deref(c.From), Name: deref(c.Name), Summary: deref(c.Summary),
		RecordingURL: deref(c.RecordingURL), Transcript: deref(c.Transcript), QualityDimensions: q,
		Context: deref(c.Context), MaxDuration: c.MaxDuration, Error: deref(c.Error), EndedReason: deref(c.EndedReason),
		Voicemail: deref(c.Voicemail), StartedAt: deref(c.StartedAt), EndedAt: deref(c.EndedAt),
		CreatedAt: c.CreatedAt, UpdatedAt: deref(c.UpdatedAt),
	}
}

// leadData is a lead read through the API, as the accessor shows it.
func leadData(l *leads.Lead) webhooks.LeadData {
	return webhooks.LeadData{
		ID: l.ID, Name: deref(l.Name), FirstName: deref(l.FirstName), LastName: deref(l.LastName),
		Email: deref(l.Email), Phone: deref(l.Phone), Status: string(l.Status), Source: deref(l.Source),
		AgentID: deref(l.AgentID), AgentName: deref(l.AgentName), BusinessID: l.BusinessID,
		Zip: deref(l.Zip), Address: deref(l.Address), City: deref(l.City), State: deref(l.State),
		SourceURL: deref(l.SourceURL), SourcePage: deref(l.SourcePage), Notes: deref(l.Notes),
		Message: deref(l.Message), EventDate: deref(l.EventDate), EventType: deref(l.EventType),
		Score: l.Score, InteractionCount: l.InteractionCount, Intent: deref(l.Intent),
		LastContactAt: deref(l.LastContactAt), CreatedAt: l.CreatedAt, UpdatedAt: l.UpdatedAt,
	}
}

// messageData is a text read through the API, as the accessor shows it.
func messageData(m *sms.Message) webhooks.MessageData {
	return webhooks.MessageData{
		ID: m.ID, MessageSID: m.MessageSID, LeadID: m.LeadID, AgentID: m.AgentID, BusinessID: m.BusinessID,
		Direction: m.Direction, From: m.From, To: m.To, Body: m.Body, Status: m.Status, Error: deref(m.Error),
		CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
	}
}
