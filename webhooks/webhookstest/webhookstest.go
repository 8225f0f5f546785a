// Package webhookstest checks a webhook receiver the way the platform
// exercises it: deliveries of every event type with sample data, signed as
// the platform signs them, and the forged, stale, rotated and repeated
// deliveries a receiver must tell apart. [Check] runs the checks against a
// URL; [CheckHandler] against an http.Handler in a test.
//
// The checks (their ids are the Check constants) are those of the mock
// server's POST /_mock/receiver-checks and of the voiceagent-mock
// check-receiver command, which run this package:
//
//   - accepts_valid, once per event type: a correctly signed delivery with
//     the sample data of the type (webhooks.SampleData) gets a 2xx;
//   - rejects_tampered_body: the body changed after signing gets a 4xx;
//   - rejects_wrong_secret: a delivery signed with another secret gets a 4xx;
//   - rejects_missing_signature: no webhook-signature header gets a 4xx;
//   - rejects_stale_timestamp: correctly signed, 10 minutes old: a 4xx;
//   - rejects_future_timestamp: correctly signed, 10 minutes ahead: a 4xx;
//   - accepts_rotated_secret: two signatures, the first from an unknown
//     secret: a 2xx;
//   - accepts_redelivery: the same webhook-id and body again: a 2xx;
//   - responds_in_time: every response within the attempt timeout (10 s);
//   - accepts_unknown_event (recommended, not required): a type not in
//     webhooks.EventTypes gets a 2xx.
//
// Every delivery carries the headers the platform sends (webhook-id,
// webhook-timestamp and webhook-signature, signed by webhooks.SignHeaders,
// then Content-Type, X-Voiceagent-Event and X-Voiceagent-Attempt) and the
// standard body {"id", "event", "business_id", "timestamp", "data"}. A
// failed check's detail shows the request sent, the status and the first
// bytes of the response, and what to fix.
package webhookstest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/voiceagent/voiceagent-go/internal/wire"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// Ids of the checks.
const (
	CheckAcceptsValid            = "accepts_valid"
	CheckRejectsTamperedBody     = "rejects_tampered_body"
	CheckRejectsWrongSecret      = "rejects_wrong_secret"
	CheckRejectsMissingSignature = "rejects_missing_signature"
	CheckRejectsStaleTimestamp   = "rejects_stale_timestamp"
	CheckRejectsFutureTimestamp  = "rejects_future_timestamp"
	CheckAcceptsRotatedSecret    = "accepts_rotated_secret"
	CheckAcceptsRedelivery       = "accepts_redelivery"
	CheckRespondsInTime          = "responds_in_time"
	CheckAcceptsUnknownEvent     = "accepts_unknown_event"
)

// CheckIDs returns the ids of the checks in the order they run (an
// accepts_valid check runs once per event type).
func CheckIDs() []string {
	return []string{
		CheckAcceptsValid, CheckRejectsTamperedBody, CheckRejectsWrongSecret, CheckRejectsMissingSignature,
		CheckRejectsStaleTimestamp, CheckRejectsFutureTimestamp, CheckAcceptsRotatedSecret,
		CheckAcceptsRedelivery, CheckRespondsInTime, CheckAcceptsUnknownEvent,
	}
}

// AttemptTimeout is how long a receiver has to answer one delivery, as
// the platform's attempts: 10 seconds.
const AttemptTimeout = 10 * time.Second

// UnknownEventType is the event type of the accepts_unknown_event check: one
// the platform does not send today, as a newer platform might.
const UnknownEventType webhooks.EventType = "voiceagent.check_unknown"

// skew is how far the stale and future deliveries are from now.
const skew = 10 * time.Minute

// maxShown is how much of a response a detail quotes.
const maxShown = 200

// Result is the outcome of one check.
type Result struct {
	// ID is the check (a Check constant).
	ID string `json:"id"`
	// Event is the event type of an accepts_valid check, else empty.
	Event webhooks.EventType `json:"event,omitempty"`
	// Required is false for a recommended check (accepts_unknown_event).
	Required bool `json:"required"`
	// Passed reports whether the receiver answered as it should.
	Passed bool `json:"passed"`
	// Status is the receiver's HTTP status (the last one when the check
	// sends several), 0 when it did not answer.
	Status int `json:"status"`
	// DurationMS is how long the receiver took, in milliseconds.
	DurationMS int64 `json:"duration_ms"`
	// Detail says, for a failed check, what was sent, what came back and
	// what to fix; for a passed one, what was checked.
	Detail string `json:"detail"`
}

// Report is the outcome of a run of the checks against one receiver.
type Report struct {
	// URL is the receiver checked.
	URL string `json:"url"`
	// Passed is true when every required check passed.
	Passed bool `json:"passed"`
	// Checks are the results, in the order the checks ran.
	Checks []Result `json:"checks"`
}

// Failed returns the results of the checks that failed, required or not.
func (r *Report) Failed() []Result {
	var out []Result
	for _, c := range r.Checks {
		if !c.Passed {
			out = append(out, c)
		}
	}
	return out
}

// Option configures [Check].
type Option func(*config)

type config struct {
	headers http.Header
	client  *http.Client
	events  []webhooks.EventType
	records webhooks.SampleRecords
	timeout time.Duration
	now     func() time.Time
}

// WithHTTPClient sets the client deliveries are sent with; its Timeout is
// replaced by the attempt timeout. The default is a client like
// http.DefaultClient's that follows no redirect.
func WithHTTPClient(c *http.Client) Option { return func(cfg *config) { cfg.client = c } }

// WithHeaders adds headers to every delivery, as a subscription's custom
// headers are (a receiver may require a token in one). Their values are
// shown as [redacted] in the details.
func WithHeaders(h http.Header) Option {
	return func(cfg *config) {
		if cfg.headers == nil {
			cfg.headers = http.Header{}
		}
		for k, vs := range h {
			cfg.headers[http.CanonicalHeaderKey(k)] = append([]string(nil), vs...)
		}
	}
}

// WithEvents limits the accepts_valid checks to the event types given;
// the default is every type of webhooks.EventTypes. The other checks use
// the first type given.
func WithEvents(types ...webhooks.EventType) Option {
	return func(cfg *config) { cfg.events = append(cfg.events, types...) }
}

// WithRecords sets the records the sample data takes its values from
// (webhooks.SampleData); the default is the samples' own values.
func WithRecords(r webhooks.SampleRecords) Option { return func(cfg *config) { cfg.records = r } }

// WithAttemptTimeout sets how long a receiver has to answer one delivery;
// the default is [AttemptTimeout].
func WithAttemptTimeout(d time.Duration) Option {
	return func(cfg *config) {
		if d > 0 {
			cfg.timeout = d
		}
	}
}

// ErrUsage wraps the errors of [Check] for arguments it cannot run with.
var ErrUsage = errors.New("webhookstest: cannot run the checks")

// Check runs the checks against the receiver at rawURL, whose deliveries
// are signed with secret (the subscription's "whsec_..." secret), and
// returns the report. It fails only when the arguments are unusable: a URL
// that is not absolute http(s), a secret not in whsec_ form, or an event
// type that is not one of webhooks.EventTypes; an unreachable receiver
// fails its checks instead.
func Check(ctx context.Context, rawURL, secret string, opts ...Option) (*Report, error) {
	cfg := config{timeout: AttemptTimeout, now: time.Now}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("%w: the URL must be absolute http:// or https://, not %q", ErrUsage, rawURL)
	}
	if err := CheckSecret(secret); err != nil {
		return nil, err
	}
	if len(cfg.events) == 0 {
		cfg.events = webhooks.EventTypes()
	}
	for _, t := range cfg.events {
		if !webhooks.IsEventType(string(t)) {
			return nil, fmt.Errorf("%w: %q is not an event type", ErrUsage, t)
		}
	}
	client := &http.Client{}
	if cfg.client != nil {
		c := *cfg.client
		client = &c
	}
	client.Timeout = cfg.timeout
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	r := &runner{ctx: ctx, url: rawURL, secret: secret, cfg: cfg, client: client}
	return r.run()
}

// CheckSecret reports whether secret is a signing secret in the form the
// platform issues: "whsec_" followed by standard base64. The error wraps
// [ErrUsage].
func CheckSecret(secret string) error {
	if !strings.HasPrefix(secret, webhooks.SecretPrefix) {
		return fmt.Errorf("%w: the secret must be the subscription's signing secret, %s followed by base64", ErrUsage, webhooks.SecretPrefix)
	}
	if _, err := webhooks.Sign(secret, "msg_check", time.Unix(0, 0), nil); err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	return nil
}

// runner runs the checks of one Check call.
type runner struct {
	ctx    context.Context
	url    string
	secret string
	cfg    config
	client *http.Client
	report Report
	slow   []string // deliveries that got no answer in time
}

// delivery is one request of a check.
type delivery struct {
	event  webhooks.EventType
	id     string
	body   []byte
	header http.Header
}

// sent is the outcome of one delivery.
type sent struct {
	status   int
	answer   []byte
	err      error
	duration time.Duration
}

func (s sent) ok() bool { return s.err == nil && s.status >= 200 && s.status < 300 }
func (s sent) rejected() bool {
	return s.err == nil && s.status >= 400 && s.status < 500
}

func (r *runner) run() (*Report, error) {
	r.report.URL = r.url
	for _, t := range r.cfg.events {
		d := r.signed(t, r.cfg.now(), r.secret)
		res := r.send(d)
		r.add(Result{ID: CheckAcceptsValid, Event: t, Required: true}, d, res, res.ok(),
			"answer 2xx once the signature verifies: a receiver that refuses a valid "+string(t)+" delivery makes the platform retry it for a day and then fail it")
	}
	first := r.cfg.events[0]

	// The body changed after signing.
	d := r.signed(first, r.cfg.now(), r.secret)
	d.body = tamper(d.body)
	res := r.send(d)
	r.add(Result{ID: CheckRejectsTamperedBody, Required: true}, d, res, res.rejected(),
		"verify webhook-signature over the raw body bytes, before parsing, and answer 4xx when no signature matches")

	other, err := webhooks.NewSecret()
	if err != nil {
		return nil, err
	}
	d = r.signed(first, r.cfg.now(), other)
	res = r.send(d)
	r.add(Result{ID: CheckRejectsWrongSecret, Required: true}, d, res, res.rejected(),
		"verify with the subscription's secret and answer 4xx when the signature is from another one")

	d = r.signed(first, r.cfg.now(), r.secret)
	d.header.Del(webhooks.HeaderSignature)
	res = r.send(d)
	r.add(Result{ID: CheckRejectsMissingSignature, Required: true}, d, res, res.rejected(),
		"answer 4xx to a request without webhook-signature: anyone can post to your URL")

	d = r.signed(first, r.cfg.now().Add(-skew), r.secret)
	res = r.send(d)
	r.add(Result{ID: CheckRejectsStaleTimestamp, Required: true}, d, res, res.rejected(),
		"refuse a webhook-timestamp more than 5 minutes from your clock (a replayed delivery) with 4xx")

	d = r.signed(first, r.cfg.now().Add(skew), r.secret)
	res = r.send(d)
	r.add(Result{ID: CheckRejectsFutureTimestamp, Required: true}, d, res, res.rejected(),
		"refuse a webhook-timestamp more than 5 minutes ahead of your clock with 4xx")

	rotating, err := webhooks.NewSecret()
	if err != nil {
		return nil, err
	}
	d = r.signedWith(first, r.cfg.now(), []string{rotating, r.secret})
	res = r.send(d)
	r.add(Result{ID: CheckAcceptsRotatedSecret, Required: true}, d, res, res.ok(),
		"webhook-signature lists one signature per active secret, separated by spaces, while a secret is rotated: accept the delivery when any of them matches")

	// The same webhook-id and body twice: a retry of a delivery the
	// receiver already processed.
	d = r.signed(first, r.cfg.now(), r.secret)
	res = r.send(d)
	if res.ok() {
		again := r.resigned(d, 2)
		res = r.send(again)
		r.add(Result{ID: CheckAcceptsRedelivery, Required: true}, again, res, res.ok(),
			"answer 2xx to a webhook-id you processed before (without processing it again): the platform retries until it gets a 2xx")
	} else {
		r.add(Result{ID: CheckAcceptsRedelivery, Required: true}, d, res, false,
			"the first delivery of the pair was refused; answer 2xx to a valid delivery, then 2xx again to its redelivery")
	}

	inTime := Result{ID: CheckRespondsInTime, Required: true, Passed: len(r.slow) == 0}
	if inTime.Passed {
		inTime.Detail = fmt.Sprintf("every response came within %s", r.cfg.timeout)
	} else {
		inTime.Detail = fmt.Sprintf("no response within %s to: %s. Answer first and do slow work afterwards (a queue): the platform gives up on an attempt after %s and retries it",
			r.cfg.timeout, strings.Join(r.slow, ", "), r.cfg.timeout)
	}
	r.report.Checks = append(r.report.Checks, inTime)

	d = r.signedData(UnknownEventType, r.cfg.now(), []string{r.secret}, json.RawMessage(`{}`))
	res = r.send(d)
	r.add(Result{ID: CheckAcceptsUnknownEvent, Required: false}, d, res, res.ok(),
		"answer 2xx to a verified event of a type you do not handle: the platform may add types")

	r.report.Passed = true
	for _, c := range r.report.Checks {
		if c.Required && !c.Passed {
			r.report.Passed = false
		}
	}
	return &r.report, nil
}

// signed builds a delivery of event type t with its sample data, sent at
// ts and signed with secret.
func (r *runner) signed(t webhooks.EventType, ts time.Time, secret string) delivery {
	return r.signedWith(t, ts, []string{secret})
}

func (r *runner) signedWith(t webhooks.EventType, ts time.Time, secrets []string) delivery {
	return r.signedData(t, ts, secrets, webhooks.SampleData(t, r.cfg.records))
}

func (r *runner) signedData(t webhooks.EventType, ts time.Time, secrets []string, data json.RawMessage) delivery {
	id := uuid.NewString() // the form of the platform's event ids
	businessID := r.cfg.records.BusinessID
	if businessID == "" {
		businessID = webhooks.SampleBusinessID
	}
	at := r.cfg.records.At
	if at.IsZero() {
		at = ts
	}
	body, _ := json.Marshal(struct {
		ID         string             `json:"id"`
		Event      webhooks.EventType `json:"event"`
		BusinessID string             `json:"business_id"`
		Timestamp  string             `json:"timestamp"`
		Data       json.RawMessage    `json:"data"`
	}{id, t, businessID, at.UTC().Format(wire.TimeLayout), data})
	h, _ := webhooks.SignHeaders(secrets, id, ts, body) // secrets checked by Check; the id is a uuid
	for k, vs := range r.cfg.headers {
		h[k] = vs
	}
	h.Set("Content-Type", "application/json")
	h.Set(webhooks.HeaderEvent, string(t))
	h.Set(webhooks.HeaderAttempt, "1")
	h.Set("User-Agent", "voiceagent-receiver-check/1")
	return delivery{event: t, id: id, body: body, header: h}
}

// resigned is attempt n of d: the same id and body, signed now.
func (r *runner) resigned(d delivery, n int) delivery {
	h, _ := webhooks.SignHeaders([]string{r.secret}, d.id, r.cfg.now(), d.body)
	for k, v := range d.header {
		if h.Get(k) == "" {
			h[k] = v
		}
	}
	h.Set(webhooks.HeaderAttempt, strconv.Itoa(n))
	return delivery{event: d.event, id: d.id, body: d.body, header: h}
}

// tamper changes a signed body the way an attacker would: the same shape,
// another value (the business).
func tamper(body []byte) []byte {
	var m map[string]json.RawMessage
	if json.Unmarshal(body, &m) != nil {
		return append(bytes.Clone(body), ' ')
	}
	m["business_id"] = json.RawMessage(`"00000000-0000-4000-8000-000000000bad"`)
	out, _ := json.Marshal(m)
	return out
}

// send posts d and records a delivery without an answer in time.
func (r *runner) send(d delivery) sent {
	req, err := http.NewRequestWithContext(r.ctx, http.MethodPost, r.url, bytes.NewReader(d.body))
	if err != nil {
		return sent{err: err}
	}
	req.Header = d.header.Clone()
	start := time.Now()
	resp, err := r.client.Do(req)
	if err != nil {
		out := sent{err: err, duration: time.Since(start)}
		var ue *url.Error
		if errors.As(err, &ue) && ue.Timeout() {
			r.slow = append(r.slow, "webhook-id "+d.id)
			out.err = fmt.Errorf("no response within %s", r.cfg.timeout)
		}
		return out
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxShown))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	return sent{status: resp.StatusCode, answer: answer, duration: time.Since(start)}
}

// add records a check's result.
func (r *runner) add(c Result, d delivery, res sent, passed bool, advice string) {
	c.Passed, c.Status, c.DurationMS = passed, res.status, res.duration.Milliseconds()
	want := "2xx"
	if strings.HasPrefix(c.ID, "rejects_") {
		want = "4xx"
	}
	got := fmt.Sprintf("%d", res.status)
	if res.err != nil {
		got = "no response (" + res.err.Error() + ")"
	} else if len(res.answer) > 0 {
		got += " " + strconv.Quote(string(res.answer))
	}
	if passed {
		c.Detail = fmt.Sprintf("wanted %s, got %s", want, got)
	} else {
		c.Detail = fmt.Sprintf("wanted %s, got %s. %s. Request sent: %s",
			want, got, strings.ToUpper(advice[:1])+advice[1:], r.describe(d))
	}
	r.report.Checks = append(r.report.Checks, c)
}

// describe shows a request so that it can be sent again (with curl).
func (r *runner) describe(d delivery) string {
	names := make([]string, 0, len(d.header))
	for k := range d.header {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("curl -X POST " + shellQuote(r.url))
	for _, k := range names {
		v := d.header.Get(k)
		if _, custom := r.cfg.headers[http.CanonicalHeaderKey(k)]; custom {
			v = "[redacted]"
		}
		b.WriteString(" -H " + shellQuote(http.CanonicalHeaderKey(k)+": "+v))
	}
	b.WriteString(" --data-binary " + shellQuote(string(d.body)))
	return b.String()
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }
