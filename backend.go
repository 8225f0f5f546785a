package voiceagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-querystring/query"
	"github.com/google/uuid"
	"github.com/hashicorp/go-retryablehttp"
)

// Headers the SDK sends or reads.
const (
	HeaderIdempotencyKey   = "Idempotency-Key"
	HeaderIdempotentReplay = "Idempotent-Replayed"
	HeaderRequestID        = "X-Request-Id"
	HeaderRetryCount       = "X-Voiceagent-Retry-Count"
	headerAuthorization    = "Authorization"
	headerUserAgent        = "User-Agent"
	headerContentType      = "Content-Type"
	headerRetryAfter       = "Retry-After"
	contentTypeJSON        = "application/json"
	userAgentPrefix        = "voiceagent-go/"
)

// userAgent is the SDK's User-Agent.
const userAgent = userAgentPrefix + Version

// HeaderShouldRetry "false" on an answer tells the SDK not to retry it (for
// example signup's 503 provisioning_failed: the account exists).
const HeaderShouldRetry = "X-Voiceagent-Should-Retry"

// Backend performs the HTTP requests of every service. One Backend is shared
// by all the services of a client; it holds no global state, so clients with
// different keys live side by side.
type Backend struct {
	cfg    RequestConfig
	limits *clientLimits
}

// NewBackend returns a Backend configured by the defaults (including the
// VOICEAGENT_API_KEY and VOICEAGENT_BASE_URL environment variables) and opts.
func NewBackend(opts ...Option) *Backend {
	return &Backend{cfg: DefaultConfig().Apply(opts...), limits: newClientLimits()}
}

// Config returns a copy of the backend's configuration.
func (b *Backend) Config() RequestConfig { return b.cfg.Apply() }

// Do sends one logical request: method and path (relative to the base URL,
// for example "/v1/agents"), query encoded from a struct with `url:` tags
// (or nil), body encoded as JSON (or nil), and the JSON answer decoded into
// out (or discarded when out is nil). Non-2xx answers return an *Error.
func (b *Backend) Do(ctx context.Context, method, path string, query, body, out any, opts ...Option) error {
	cfg := b.cfg.Apply(opts...)
	if cfg.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, cfg.Timeout)
		defer cancel()
	}
	u, err := buildURL(cfg.BaseURL, path, query)
	if err != nil {
		return err
	}
	var payload []byte
	if body != nil {
		if payload, err = marshalBody(body); err != nil {
			return fmt.Errorf("voiceagent: encoding request body: %w", err)
		}
	}
	req, err := retryablehttp.NewRequestWithContext(ctx, method, u, payload)
	if err != nil {
		return fmt.Errorf("voiceagent: %w", err)
	}
	b.setHeaders(req.Header, &cfg, method, body != nil)

	if cfg.RateLimiting {
		if err := b.limits.wait(ctx, cfg.APIKey, method, path); err != nil {
			return fmt.Errorf("voiceagent: waiting for the client-side rate limit: %w", err)
		}
	}

	rc, attempts := b.retryClient(ctx, &cfg, path)
	resp, err := rc.Do(req)
	if err != nil {
		if resp != nil {
			resp.Body.Close()
		}
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%w)", ctxErr, err)
		}
		return fmt.Errorf("voiceagent: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := attempts.answer(resp)
	if cfg.ResponseInto != nil {
		*cfg.ResponseInto = resp
	}
	if err != nil {
		return fmt.Errorf("voiceagent: reading %s %s response: %w", method, path, err)
	}
	if resp.StatusCode >= 300 {
		return errorFromResponse(resp, data)
	}
	if out == nil || len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("voiceagent: decoding %s %s response (request %s): %w",
			method, path, resp.Header.Get(HeaderRequestID), err)
	}
	return nil
}

func (b *Backend) setHeaders(h http.Header, cfg *RequestConfig, method string, hasBody bool) {
	for k, vs := range cfg.Header {
		for _, v := range vs {
			h.Add(k, v)
		}
	}
	if cfg.APIKey != "" {
		h.Set(headerAuthorization, "Bearer "+cfg.APIKey)
	}
	if cfg.SessionCookie != "" {
		h.Add("Cookie", (&http.Cookie{Name: SessionCookieName, Value: cfg.SessionCookie}).String())
	}
	ua := userAgent
	if cfg.UserAgentSuffix != "" {
		ua += " " + cfg.UserAgentSuffix
	}
	h.Set(headerUserAgent, ua)
	h.Set("Accept", contentTypeJSON)
	if hasBody {
		h.Set(headerContentType, contentTypeJSON)
	}
	key := cfg.IdempotencyKey
	if key == "" {
		key = h.Get(HeaderIdempotencyKey) // given with WithHeader
	}
	if key == "" && method == http.MethodPost {
		key = uuid.NewString()
	}
	if key != "" {
		h.Set(HeaderIdempotencyKey, key)
	}
}

// retryClient is the retrying engine of one logical request. Each attempt
// goes through an attemptTransport (whole answer read, attempt logged) and
// carries X-Voiceagent-Retry-Count.
func (b *Backend) retryClient(ctx context.Context, cfg *RequestConfig, path string) (*retryablehttp.Client, *attemptTransport) {
	hc := http.DefaultClient
	if cfg.HTTPClient != nil {
		hc = cfg.HTTPClient
	}
	at := &attemptTransport{base: hc.Transport, cfg: cfg, path: path, ctx: ctx, timeout: hc.Timeout}
	attempts := *hc // a copy: the caller's client is never changed
	attempts.Transport = at
	// The client's Timeout bounds each attempt in attemptTransport: left on
	// the copy, net/http would take its slow path for a transport it does
	// not know (a goroutine, a timer and a dozen allocations per request).
	attempts.Timeout = 0
	return &retryablehttp.Client{
		HTTPClient:   &attempts,
		RetryWaitMin: cfg.RetryWaitMin,
		RetryWaitMax: cfg.RetryWaitMax,
		RetryMax:     cfg.MaxRetries,
		CheckRetry:   checkRetry(cfg.RetryWaitMax),
		Backoff:      backoff,
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
		RequestLogHook: func(_ retryablehttp.Logger, r *http.Request, attempt int) {
			// retryablehttp shallow-copies the request between attempts, so
			// a retry's header map is shared with the previous attempt:
			// replace it (the first attempt's is its own).
			if attempt > 0 {
				r.Header = r.Header.Clone()
			}
			r.Header.Set(HeaderRetryCount, strconv.Itoa(attempt))
		},
	}, at
}

// attemptTransport performs one attempt of a logical request. It reads the
// whole answer, so that an answer cut short is a failed attempt (retried
// like a dropped connection) rather than a decoding error after the
// retries, and it logs the attempt. It leaves the caller's idle connections
// alone (retryablehttp would close them after a failed request).
type attemptTransport struct {
	base http.RoundTripper // nil: http.DefaultTransport
	cfg  *RequestConfig
	path string
	ctx  context.Context
	// timeout bounds one attempt, answer read included (the caller's
	// http.Client.Timeout; 0: none).
	timeout time.Duration
	// last and lastData are the last answer read whole, so that Do takes
	// its bytes instead of reading them again (net/http may wrap the body).
	last     *http.Response
	lastData []byte
}

// RoundTrip implements http.RoundTripper.
func (t *attemptTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	base := t.base
	if base == nil {
		base = http.DefaultTransport
	}
	if err := r.Context().Err(); err != nil {
		return nil, err // an ended context sends nothing, whatever the transport
	}
	if t.timeout > 0 {
		ctx, cancel := context.WithTimeout(r.Context(), t.timeout)
		defer cancel() // the answer is read whole before RoundTrip returns
		r = r.WithContext(ctx)
	}
	start := time.Now()
	resp, err := base.RoundTrip(r)
	if err == nil {
		var data []byte
		data, err = readAll(resp.Body, resp.ContentLength)
		resp.Body.Close()
		if err != nil {
			err = fmt.Errorf("reading the answer (status %d): %w", resp.StatusCode, err)
			resp = nil
		} else {
			resp.Body = io.NopCloser(bytes.NewReader(data))
			resp.ContentLength = int64(len(data))
			t.last, t.lastData = resp, data
		}
	}
	t.log(r, resp, err, time.Since(start))
	return resp, err
}

// answer returns the bytes of the final answer: those the last attempt
// read, or what is left to read when another transport answered.
func (t *attemptTransport) answer(resp *http.Response) ([]byte, error) {
	if resp == t.last {
		return t.lastData, nil
	}
	return io.ReadAll(resp.Body)
}

// readAll reads r to the end, in one allocation when the length is known.
func readAll(r io.Reader, length int64) ([]byte, error) {
	if length < 0 || length > 1<<26 {
		return io.ReadAll(r)
	}
	buf := bytes.NewBuffer(make([]byte, 0, length+1)) // +1: EOF without growing
	_, err := buf.ReadFrom(r)
	return buf.Bytes(), err
}

// CloseIdleConnections deliberately does nothing: see attemptTransport.
func (t *attemptTransport) CloseIdleConnections() {}

func (t *attemptTransport) log(r *http.Request, resp *http.Response, err error, d time.Duration) {
	l := t.cfg.Logger
	if l == nil {
		return
	}
	attempt, _ := strconv.Atoi(r.Header.Get(HeaderRetryCount))
	attrs := []slog.Attr{
		slog.String("method", r.Method), slog.String("path", t.path),
		slog.Int("attempt", attempt), slog.Duration("duration", d),
		slog.String("key", RedactKey(t.cfg.APIKey)),
	}
	if resp != nil {
		attrs = append(attrs, slog.Int("status", resp.StatusCode),
			slog.String("request_id", resp.Header.Get(HeaderRequestID)))
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	l.LogAttrs(t.ctx, slog.LevelDebug, "voiceagent request", attrs...)
}

// checkRetry retries connection errors (and answers cut short), 429 and 5xx
// (but 501), and never a POST without an idempotency key nor an answer
// carrying X-Voiceagent-Should-Retry: false. A Retry-After
// longer than maxWait is not waited for: the error is returned with its
// RetryAfter instead. An answer that needs no retry is returned even when
// the context ended meanwhile.
func checkRetry(maxWait time.Duration) retryablehttp.CheckRetry {
	return func(ctx context.Context, resp *http.Response, err error) (bool, error) {
		if err == nil && !retryableStatus(resp.StatusCode) {
			return false, nil
		}
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if err != nil {
			return retryablehttp.DefaultRetryPolicy(ctx, resp, err)
		}
		req := resp.Request
		if req != nil && req.Method == http.MethodPost && req.Header.Get(HeaderIdempotencyKey) == "" {
			return false, nil
		}
		if resp.Header.Get(HeaderShouldRetry) == "false" {
			return false, nil
		}
		if ra, ok := retryAfter(resp); ok && ra > maxWait {
			return false, nil
		}
		return true, nil
	}
}

func retryableStatus(s int) bool {
	return s == http.StatusTooManyRequests || (s >= 500 && s != http.StatusNotImplemented)
}

// backoff waits Retry-After when the answer has one, otherwise
// min * 2^attempt capped at max, with equal jitter: a random wait between
// half of that and all of it. min <= 0 means no wait.
func backoff(min, max time.Duration, attempt int, resp *http.Response) time.Duration {
	if ra, ok := retryAfter(resp); ok {
		return ra
	}
	if min <= 0 || max <= 0 {
		return 0
	}
	d := max
	if attempt >= 0 && attempt < 63 && min <= max>>attempt {
		d = min << attempt
	}
	half := d / 2
	return half + rand.N(d-half+1)
}

func retryAfter(resp *http.Response) (time.Duration, bool) {
	if resp == nil {
		return 0, false
	}
	v := resp.Header.Get(headerRetryAfter)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.Atoi(v); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0), true
	}
	return 0, false
}

// RedactKey returns the non-secret prefix of an API key followed by "…", for
// logs: the first 20 characters, which the API also shows as the key's prefix.
func RedactKey(k string) string {
	if k == "" {
		return ""
	}
	const prefixLen = 20
	if len(k) <= prefixLen {
		return "…"
	}
	return k[:prefixLen] + "…"
}

func buildURL(base, path string, q any) (string, error) {
	u := strings.TrimRight(base, "/") + path
	if q == nil || (reflect.ValueOf(q).Kind() == reflect.Pointer && reflect.ValueOf(q).IsNil()) {
		return u, nil
	}
	vals, ok := q.(url.Values)
	if !ok {
		var err error
		if vals, err = query.Values(q); err != nil {
			return "", fmt.Errorf("voiceagent: encoding query: %w", err)
		}
	}
	if len(vals) == 0 {
		return u, nil
	}
	if err := checkIDs(path, vals); err != nil {
		return "", err
	}
	if !strings.ContainsAny(u, "?#") {
		return u + "?" + vals.Encode(), nil // the common case: nothing to merge
	}
	parsed, err := url.Parse(u)
	if err != nil {
		return "", fmt.Errorf("voiceagent: bad base URL: %w", err)
	}
	existing := parsed.Query()
	for k, vs := range vals {
		existing[k] = append(existing[k], vs...)
	}
	parsed.RawQuery = existing.Encode()
	return parsed.String(), nil
}

// checkIDs refuses a query that names a record by an empty id (an id
// parameter, or one whose name ends in _id, present without a value):
// GET /v1/calls?id= would otherwise read the list, not a record.
func checkIDs(path string, vals url.Values) error {
	for name, vs := range vals {
		if name != "id" && !strings.HasSuffix(name, "_id") {
			continue
		}
		for _, v := range vs {
			if v == "" {
				return fmt.Errorf("%w: the %s of %s must not be empty (nothing was sent)", ErrEmptyID, name, path)
			}
		}
	}
	return nil
}

// IDQuery is the query of a request that names one record by id (?id=):
// the read, delete and revoke calls of the ?id= style resources.
type IDQuery struct {
	ID string `url:"id"`
}

// NullFields, embedded in update params, sends explicit JSON nulls for the
// fields named with SetNull (a nil pointer field is simply left out).
type NullFields struct{ names []string }

// SetNull marks JSON field names to be sent as null.
func (n *NullFields) SetNull(names ...string) { n.names = append(n.names, names...) }

// NullFieldNames returns the JSON field names to be sent as null.
func (n NullFields) NullFieldNames() []string { return n.names }

func marshalBody(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	nf, ok := v.(interface{ NullFieldNames() []string })
	if !ok || len(nf.NullFieldNames()) == 0 {
		return b, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	for _, name := range nf.NullFieldNames() {
		m[name] = json.RawMessage("null")
	}
	return json.Marshal(m)
}
