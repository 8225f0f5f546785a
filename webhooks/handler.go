package webhooks

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultMaxBodyBytes is the largest body a [Handler] reads unless
// [WithMaxBodyBytes] says otherwise: 1 MiB.
const DefaultMaxBodyBytes int64 = 1 << 20

// HandlerOption configures a [Handler]. Every [VerifyOption] ([WithTolerance],
// [WithNow]) is a HandlerOption too.
type HandlerOption interface {
	applyHandler(*handlerConfig)
}

type handlerConfig struct {
	secrets       []string
	verify        verifyConfig
	maxBodyBytes  int64
	store         DedupeStore
	log           *slog.Logger
	allowUnsigned bool
}

type handlerOption func(*handlerConfig)

func (o handlerOption) applyHandler(c *handlerConfig) { o(c) }

// WithSecrets gives a [Handler] the secrets deliveries are verified
// against, as [Handler.SetSecrets] takes them: the subscription's signing
// secret, or the old and the new one while rotating. Without it the Handler
// has none until SetSecrets gives them (the subscription may not exist
// yet). Secrets are taken this one way throughout the package: as a list of
// strings ([WithSecrets], [Handler.SetSecrets], [ConstructEvent]).
func WithSecrets(secrets ...string) HandlerOption {
	return handlerOption(func(c *handlerConfig) { c.secrets = append(c.secrets, secrets...) })
}

// WithMaxBodyBytes caps the body a [Handler] reads; a larger body is answered
// 413 without being read further. The default is [DefaultMaxBodyBytes]; zero
// or negative n means the default.
func WithMaxBodyBytes(n int64) HandlerOption {
	return handlerOption(func(c *handlerConfig) {
		if n > 0 {
			c.maxBodyBytes = n
		}
	})
}

// WithDedupeStore sets where a [Handler] records processed message ids. The
// default is a fresh [NewMemoryDedupeStore] with default limits, which only
// deduplicates within one process. nil means the default.
func WithDedupeStore(s DedupeStore) HandlerOption {
	return handlerOption(func(c *handlerConfig) { c.store = s })
}

// WithErrorLog sets the logger a [Handler] reports rejected deliveries
// (warning) and failed handlers or store errors (error) to. The default is
// slog.Default(); nil means the default. Bodies and secrets are never logged.
func WithErrorLog(l *slog.Logger) HandlerOption {
	return handlerOption(func(c *handlerConfig) { c.log = l })
}

// WithUnsignedCallWebhooks lets a [Handler] accept per-call webhooks (the
// flat body posted to the webhook_url of a call) that carry no
// webhook-signature. The platform has no secret to sign them with (the
// webhook_url is not a subscription), so a receiver of per-call webhooks
// needs this option; authenticate such requests by a hard-to-guess token in
// the webhook_url instead (for example https://example.com/hooks/calls/<token>,
// checked by your router). A per-call webhook that is signed is still
// verified when the Handler has secrets; standard event bodies are always
// verified. The ids of unsigned deliveries are deduplicated apart from those
// of signed ones ("unsigned:" + id in the [DedupeStore]), so a forged unsigned
// request cannot make the Handler skip a genuine signed delivery. With this
// option, a Handler without secrets accepts unsigned per-call webhooks.
func WithUnsignedCallWebhooks(allow bool) HandlerOption {
	return handlerOption(func(c *handlerConfig) { c.allowUnsigned = allow })
}

// DeliveryInfo describes the delivery an event handler is running for; read
// it with [DeliveryFromContext].
type DeliveryInfo struct {
	// ID is the webhook-id header: the same on every attempt.
	ID string
	// Timestamp is the webhook-timestamp header: when this attempt was sent
	// (zero for an unsigned per-call webhook without it).
	Timestamp time.Time
	// Attempt is the X-Voiceagent-Attempt header (1 for the first attempt),
	// or 0 when absent.
	Attempt int
	// EventType is the event of the body (signed), or for a body handled by
	// [Handler.OnRaw] the X-Voiceagent-Event header (not signed).
	EventType EventType
	// Verified reports whether the signature was verified; false only for
	// an unsigned per-call webhook accepted by [WithUnsignedCallWebhooks].
	Verified bool
}

type deliveryKey struct{}

// DeliveryFromContext returns the delivery a [Handler] is dispatching, from
// the context it passes to event handlers.
func DeliveryFromContext(ctx context.Context) (DeliveryInfo, bool) {
	d, ok := ctx.Value(deliveryKey{}).(DeliveryInfo)
	return d, ok
}

// Handler is an [http.Handler] that receives deliveries from the platform:
// mount it at the URL of your subscription (or the webhook_url of your calls).
// For each request it
//
//  1. reads the body, at most [DefaultMaxBodyBytes] ([WithMaxBodyBytes]):
//     413 when larger;
//  2. verifies the signature with [Verify]: 401 when no signature matches or
//     the timestamp is outside the tolerance, 400 when headers are missing
//     or malformed;
//  3. decodes the body, the standard event envelope or the flat per-call
//     form (a body with call_id and no data): 400 when it is neither, unless
//     [Handler.OnRaw] handlers are registered;
//  4. answers 200 at once when no handler is registered for the event;
//  5. claims the webhook-id in its [DedupeStore]: 200 without running
//     anything when it was processed before, 409 when another attempt of the
//     same id is running right now (the platform retries later), 503 when
//     the store fails;
//  6. runs the handlers of the event: those registered with [Handler.On]
//     for its type, in order, then those registered with [Handler.OnAny]
//     (or [Handler.OnCall] for per-call webhooks). When all succeed the id is
//     marked processed and the answer is 200. When one returns an error or
//     panics, the rest are skipped, the claim is released and the answer is
//     500, so the platform retries the delivery and every handler runs
//     again: handlers should be idempotent for their own side effects.
//
// Only 2xx answers stop the platform's retries. Handlers receive the
// request's context, which carries a [DeliveryInfo]. Registering handlers and
// changing the secrets ([Handler.SetSecrets]) are safe while the Handler is
// serving.
//
// A Handler can be made before the subscription exists: the subscription
// needs the receiver's URL, and the secret exists only once the subscription
// does. Until [Handler.SetSecrets] gives it one, it answers signed
// deliveries 503, which the platform retries on its schedule.
type Handler struct {
	v             atomic.Pointer[verifier] // nil until the Handler has secrets
	verifyCfg     verifyConfig
	maxBodyBytes  int64
	store         DedupeStore
	log           *slog.Logger
	allowUnsigned bool

	mu    sync.RWMutex
	on    map[EventType][]func(context.Context, *Event) error
	onAny []func(context.Context, *Event) error
	calls []func(context.Context, *CallWebhook) error
	raw   []func(context.Context, []byte) error
}

// NewHandler returns a Handler configured by opts. It verifies deliveries
// against the secrets of [WithSecrets]: the subscription's signing secrets
// as the platform issues them, "whsec_" followed by the standard base64 of
// the key (24 random bytes; Standard Webhooks allows 24 to 64); give the old
// and the new one while rotating. It fails with [ErrInvalidSecret], saying
// why, when a secret is not of that form. Secrets may be left out when the
// subscription does not exist yet: give them with [Handler.SetSecrets] once
// it does.
func NewHandler(opts ...HandlerOption) (*Handler, error) {
	cfg := handlerConfig{verify: defaultVerifyConfig(), maxBodyBytes: DefaultMaxBodyBytes}
	for _, o := range opts {
		if o != nil {
			o.applyHandler(&cfg)
		}
	}
	h := &Handler{
		verifyCfg:     cfg.verify,
		maxBodyBytes:  cfg.maxBodyBytes,
		store:         cfg.store,
		log:           cfg.log,
		allowUnsigned: cfg.allowUnsigned,
		on:            make(map[EventType][]func(context.Context, *Event) error),
	}
	if len(cfg.secrets) > 0 {
		if err := h.SetSecrets(cfg.secrets...); err != nil {
			return nil, err
		}
	}
	if h.store == nil {
		h.store = NewMemoryDedupeStore(0, 0)
	}
	if h.log == nil {
		h.log = slog.Default()
	}
	return h, nil
}

// SetSecrets replaces the secrets deliveries are verified against (of the
// form [NewHandler] takes): the secret of a subscription created after the
// Handler, or the old and the new one while rotating, then the new one
// alone. Requests already being verified finish with the secrets they
// started with. It fails with [ErrInvalidSecret], saying why, and keeps the
// secrets it had, when a secret is malformed or none is given.
func (h *Handler) SetSecrets(secrets ...string) error {
	keys, err := decodeSecrets(secrets, decodeHandlerSecret)
	if err != nil {
		return err
	}
	h.v.Store(&verifier{keys: keys, cfg: h.verifyCfg})
	return nil
}

// Sizes of a signing secret's key that a Handler accepts: Standard
// Webhooks' range (the platform issues [SecretBytes]).
const (
	minSecretBytes = 24
	maxSecretBytes = 64
)

// decodeHandlerSecret returns the key of secret i as a Handler takes it:
// "whsec_" followed by the standard base64 of 24 to 64 bytes. The error
// says what is wrong without showing the secret.
func decodeHandlerSecret(secret string, i int) ([]byte, error) {
	b64, ok := strings.CutPrefix(strings.TrimSpace(secret), SecretPrefix)
	if !ok {
		return nil, fmt.Errorf("%w: secret %d does not start with %q: give the subscription's signing secret as the platform issued it (%s followed by base64)",
			ErrInvalidSecret, i, SecretPrefix, SecretPrefix)
	}
	key, err := strictBase64.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("%w: secret %d is not %s followed by standard base64", ErrInvalidSecret, i, SecretPrefix)
	}
	if len(key) < minSecretBytes || len(key) > maxSecretBytes {
		return nil, fmt.Errorf("%w: secret %d holds a key of %d bytes; a signing secret's key has %d to %d (the platform's: %d)",
			ErrInvalidSecret, i, len(key), minSecretBytes, maxSecretBytes, SecretBytes)
	}
	return key, nil
}

// On registers fn for deliveries of the standard body whose event type is
// eventType (one of the Event constants). Several handlers of one type run in
// the order they were registered.
func (h *Handler) On(eventType EventType, fn func(ctx context.Context, e *Event) error) {
	if fn == nil {
		panic("webhooks: Handler.On with a nil function")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.on[eventType] = append(h.on[eventType], fn)
}

// OnAny registers fn for every delivery of the standard body, whatever its
// type; it runs after the handlers registered with [Handler.On] for the type.
func (h *Handler) OnAny(fn func(ctx context.Context, e *Event) error) {
	if fn == nil {
		panic("webhooks: Handler.OnAny with a nil function")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.onAny = append(h.onAny, fn)
}

// OnCall registers fn for per-call webhooks: the flat body (call_id, no data)
// posted to the webhook_url of a call. The [CallWebhook] passed to fn has its
// ID set from the webhook-id header. See [WithUnsignedCallWebhooks].
func (h *Handler) OnCall(fn func(ctx context.Context, c *CallWebhook) error) {
	if fn == nil {
		panic("webhooks: Handler.OnCall with a nil function")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.calls = append(h.calls, fn)
}

// OnRaw registers fn for verified deliveries whose body is neither the
// standard event nor the flat per-call form: bodies shaped by a
// subscription's payload_template or sent with body_format form. fn receives
// the raw body; the message id is in [DeliveryFromContext]. Without an OnRaw
// handler such bodies are answered 400.
func (h *Handler) OnRaw(fn func(ctx context.Context, body []byte) error) {
	if fn == nil {
		panic("webhooks: Handler.OnRaw with a nil function")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	h.raw = append(h.raw, fn)
}

// Response statuses written in the JSON body of successful answers.
const (
	statusProcessed  = "processed"
	statusDuplicate  = "duplicate"
	statusIgnored    = "ignored"
	statusInProgress = "in_progress"
)

func writeJSON(w http.ResponseWriter, code int, status, msg string) {
	body := map[string]string{"status": status}
	if msg != "" {
		body["error"] = msg
	}
	b, _ := json.Marshal(body)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}

// reject answers an error status with a short public message and logs the
// detailed error.
func (h *Handler) reject(ctx context.Context, w http.ResponseWriter, code int, msg, msgID string, err error) {
	level := slog.LevelWarn
	if code >= 500 {
		level = slog.LevelError
	}
	attrs := []any{"status", code}
	if msgID != "" {
		attrs = append(attrs, "webhook_id", msgID)
	}
	if err != nil {
		attrs = append(attrs, "err", err)
	}
	h.log.Log(ctx, level, "webhooks: delivery not accepted: "+msg, attrs...)
	writeJSON(w, code, "error", msg)
}

// verifyStatus maps a verification error to an HTTP status and message.
func verifyStatus(err error) (int, string) {
	switch {
	case errors.Is(err, ErrMissingHeaders):
		return http.StatusBadRequest, "missing webhook headers"
	case errors.Is(err, ErrInvalidHeaders):
		return http.StatusBadRequest, "invalid webhook headers"
	case errors.Is(err, ErrTimestampTooOld), errors.Is(err, ErrTimestampTooNew):
		return http.StatusUnauthorized, "timestamp outside tolerance"
	default:
		return http.StatusUnauthorized, "invalid signature"
	}
}

type bodyKind int

const (
	kindEvent bodyKind = iota
	kindCall
	kindRaw
)

// ServeHTTP implements [http.Handler]; see [Handler] for what it answers.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
	default:
		w.Header().Set("Allow", "POST, PUT, PATCH")
		h.reject(ctx, w, http.StatusMethodNotAllowed, "method not allowed", "", nil)
		return
	}

	// 1. Body, capped.
	if r.ContentLength > h.maxBodyBytes {
		h.reject(ctx, w, http.StatusRequestEntityTooLarge, "body too large", "", fmt.Errorf("content-length %d over %d bytes", r.ContentLength, h.maxBodyBytes))
		return
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, h.maxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			h.reject(ctx, w, http.StatusRequestEntityTooLarge, "body too large", "", fmt.Errorf("body over %d bytes", h.maxBodyBytes))
			return
		}
		h.reject(ctx, w, http.StatusBadRequest, "unreadable body", "", err)
		return
	}

	// 2. Which form is it? (Looked at before verification only to decide
	// whether an unsigned per-call webhook may skip it.)
	kind := kindEvent
	var p probe
	if json.Unmarshal(body, &p) != nil {
		kind = kindRaw
	} else if p.isCallWebhook() {
		kind = kindCall
	}

	// 3. Authenticity.
	info := DeliveryInfo{}
	if n, err := strconv.Atoi(r.Header.Get(HeaderAttempt)); err == nil && n > 0 {
		info.Attempt = n
	}
	signed := signatureHeader(r.Header) != ""
	v := h.v.Load()
	unsignedOK := h.allowUnsigned && kind == kindCall && (!signed || v == nil)
	switch {
	case unsignedOK:
		info.ID = header(r.Header, canonID, HeaderID)
		if info.ID == "" {
			h.reject(ctx, w, http.StatusBadRequest, "missing webhook headers", "", fmt.Errorf("%w: %s", ErrMissingHeaders, HeaderID))
			return
		}
		if ts, err := parseTimestamp(header(r.Header, canonTimestamp, HeaderTimestamp)); err == nil && ts > 0 {
			info.Timestamp = time.Unix(ts, 0)
		}
	case v == nil && signed:
		// The subscription's secret is not known yet: the platform retries.
		w.Header().Set("Retry-After", "5")
		h.reject(ctx, w, http.StatusServiceUnavailable, "no signing secret yet", header(r.Header, canonID, HeaderID),
			errors.New("webhooks: the handler has no secrets yet (Handler.SetSecrets)"))
		return
	case v == nil:
		h.reject(ctx, w, http.StatusUnauthorized, "invalid signature", header(r.Header, canonID, HeaderID),
			errors.New("webhooks: an unsigned request, and the handler has no secrets"))
		return
	default:
		id, ts, err := v.verify(body, r.Header)
		if err != nil {
			code, msg := verifyStatus(err)
			h.reject(ctx, w, code, msg, header(r.Header, canonID, HeaderID), err)
			return
		}
		info.ID, info.Timestamp, info.Verified = id, ts, true
	}

	// 4. Decode and pick the handlers.
	var (
		ev   *Event
		call *CallWebhook
	)
	switch kind {
	case kindCall:
		call, err = ParseCallWebhook(body)
		if err != nil {
			h.reject(ctx, w, http.StatusBadRequest, "invalid body", info.ID, err)
			return
		}
		call.ID = info.ID
		info.EventType = call.Event
	case kindEvent:
		ev, err = Parse(body)
		if err != nil {
			kind = kindRaw
		} else {
			info.EventType = ev.Type
		}
	}
	if kind == kindRaw {
		info.EventType = EventType(r.Header.Get(HeaderEvent))
	}
	h.mu.RLock()
	var (
		eventFns []func(context.Context, *Event) error
		callFns  []func(context.Context, *CallWebhook) error
		rawFns   []func(context.Context, []byte) error
	)
	switch kind {
	case kindEvent:
		eventFns = append(append(eventFns, h.on[ev.Type]...), h.onAny...)
	case kindCall:
		callFns = append(callFns, h.calls...)
	case kindRaw:
		rawFns = append(rawFns, h.raw...)
	}
	h.mu.RUnlock()
	if kind == kindRaw && (len(rawFns) == 0 || !info.Verified) {
		if err == nil {
			err = fmt.Errorf("%w: not JSON", ErrInvalidPayload)
		}
		h.reject(ctx, w, http.StatusBadRequest, "invalid body", info.ID, err)
		return
	}
	if len(eventFns)+len(callFns)+len(rawFns) == 0 {
		writeJSON(w, http.StatusOK, statusIgnored, "")
		return
	}

	// 5. Deduplicate. Store calls outlive a client that hung up, so that a
	// claim is never left behind.
	// Unverified ids live in their own namespace, so that an unsigned
	// request can never pre-empt the id of a signed delivery.
	storeCtx := context.WithoutCancel(ctx)
	key := info.ID
	if !info.Verified {
		key = "unsigned:" + key
	}
	claim, err := h.store.Claim(storeCtx, key)
	if err != nil {
		h.reject(ctx, w, http.StatusServiceUnavailable, "dedupe store unavailable", info.ID, err)
		return
	}
	switch claim {
	case Claimed:
	case Done:
		writeJSON(w, http.StatusOK, statusDuplicate, "")
		return
	case InProgress:
		w.Header().Set("Retry-After", "5")
		h.log.Log(ctx, slog.LevelInfo, "webhooks: delivery already in progress", "webhook_id", info.ID)
		writeJSON(w, http.StatusConflict, statusInProgress, "")
		return
	default:
		h.reject(ctx, w, http.StatusServiceUnavailable, "dedupe store unavailable", info.ID, fmt.Errorf("webhooks: Claim answered %d", int(claim)))
		return
	}

	// 6. Dispatch.
	hctx := context.WithValue(ctx, deliveryKey{}, info)
	steps := make([]func() error, 0, len(eventFns)+len(callFns)+len(rawFns))
	for _, fn := range eventFns {
		steps = append(steps, func() error { return fn(hctx, ev) })
	}
	for _, fn := range callFns {
		steps = append(steps, func() error { return fn(hctx, call) })
	}
	for _, fn := range rawFns {
		steps = append(steps, func() error { return fn(hctx, body) })
	}
	err = h.run(hctx, key, steps)
	if err != nil {
		if rerr := h.store.Release(storeCtx, key); rerr != nil {
			h.log.Log(ctx, slog.LevelError, "webhooks: releasing the claim failed; the retry may be answered 409 until it expires", "webhook_id", info.ID, "err", rerr)
		}
		h.reject(ctx, w, http.StatusInternalServerError, "handler failed", info.ID, err)
		return
	}
	if cerr := h.store.Complete(storeCtx, key); cerr != nil {
		// The work is done: answer 2xx anyway so the platform stops.
		h.log.Log(ctx, slog.LevelError, "webhooks: recording the processed id failed; a replay may run the handlers again", "webhook_id", info.ID, "err", cerr)
	}
	writeJSON(w, http.StatusOK, statusProcessed, "")
}

// run calls each step until one fails, turning a panic into an error. A
// panic with http.ErrAbortHandler is re-raised after the claim is released.
func (h *Handler) run(ctx context.Context, msgID string, steps []func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			if p == http.ErrAbortHandler {
				_ = h.store.Release(context.WithoutCancel(ctx), msgID)
				panic(p)
			}
			err = fmt.Errorf("webhooks: event handler panicked: %v\n%s", p, debug.Stack())
		}
	}()
	for _, step := range steps {
		if err := step(); err != nil {
			return err
		}
	}
	return nil
}
