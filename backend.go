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
		if err := b.limits.wait(ctx, method, path); err != nil {
			return fmt.Errorf("voiceagent: waiting for the client-side rate limit: %w", err)
		}
	}

	start := time.Now()
	resp, err := b.retryClient(&cfg).Do(req)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil && !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%w)", ctxErr, err)
		}
		b.log(ctx, &cfg, method, path, 0, "", time.Since(start), err)
		return fmt.Errorf("voiceagent: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if cfg.ResponseInto != nil {
		*cfg.ResponseInto = resp
	}
	if err != nil {
		return fmt.Errorf("voiceagent: reading %s %s response: %w", method, path, err)
	}
	b.log(ctx, &cfg, method, path, resp.StatusCode, resp.Header.Get(HeaderRequestID), time.Since(start), nil)
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
	ua := userAgentPrefix + Version
	if cfg.UserAgentSuffix != "" {
		ua += " " + cfg.UserAgentSuffix
	}
	h.Set(headerUserAgent, ua)
	h.Set("Accept", contentTypeJSON)
	if hasBody {
		h.Set(headerContentType, contentTypeJSON)
	}
	key := cfg.IdempotencyKey
	if key == "" && method == http.MethodPost {
		key = uuid.NewString()
	}
	if key != "" {
		h.Set(HeaderIdempotencyKey, key)
	}
}

func (b *Backend) retryClient(cfg *RequestConfig) *retryablehttp.Client {
	hc := cfg.HTTPClient
	if hc == nil {
		hc = http.DefaultClient
	}
	return &retryablehttp.Client{
		HTTPClient:   hc,
		RetryWaitMin: cfg.RetryWaitMin,
		RetryWaitMax: cfg.RetryWaitMax,
		RetryMax:     cfg.MaxRetries,
		CheckRetry:   checkRetry(cfg.RetryWaitMax),
		Backoff:      backoff,
		ErrorHandler: retryablehttp.PassthroughErrorHandler,
		RequestLogHook: func(_ retryablehttp.Logger, r *http.Request, attempt int) {
			r.Header.Set(HeaderRetryCount, strconv.Itoa(attempt))
		},
	}
}

// checkRetry retries connection errors, 429 and 5xx (but 501), and never a
// POST without an idempotency key nor an answer carrying
// X-Voiceagent-Should-Retry: false. A Retry-After longer than maxWait is not
// waited for: the error is returned with its RetryAfter instead.
func checkRetry(maxWait time.Duration) retryablehttp.CheckRetry {
	return func(ctx context.Context, resp *http.Response, err error) (bool, error) {
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
		s := resp.StatusCode
		return s == http.StatusTooManyRequests || (s >= 500 && s != http.StatusNotImplemented), nil
	}
}

// backoff waits Retry-After when the answer has one, otherwise an
// exponential delay with equal jitter, capped at max.
func backoff(min, max time.Duration, attempt int, resp *http.Response) time.Duration {
	if ra, ok := retryAfter(resp); ok {
		return ra
	}
	d := min << attempt
	if d <= 0 || d > max {
		d = max
	}
	half := d / 2
	return half + rand.N(half+1)
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

func (b *Backend) log(ctx context.Context, cfg *RequestConfig, method, path string, status int, reqID string, d time.Duration, err error) {
	if cfg.Logger == nil {
		return
	}
	attrs := []slog.Attr{
		slog.String("method", method), slog.String("path", path),
		slog.Int("status", status), slog.String("request_id", reqID),
		slog.Duration("duration", d), slog.String("key", RedactKey(cfg.APIKey)),
	}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	cfg.Logger.LogAttrs(ctx, slog.LevelDebug, "voiceagent request", attrs...)
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
