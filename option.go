package voiceagent

import (
	"log/slog"
	"net/http"
	"os"
	"time"
)

// DefaultBaseURL is used when neither [WithBaseURL] nor VOICEAGENT_BASE_URL
// gives a base URL.
const DefaultBaseURL = "https://api.voiceagent.example/api"

// Defaults of the request configuration.
const (
	DefaultMaxRetries = 2
	DefaultTimeout    = 60 * time.Second
	DefaultRetryWait  = 500 * time.Millisecond
	DefaultRetryMax   = 30 * time.Second
)

// SessionCookieName is the name of the dashboard session cookie.
const SessionCookieName = "voiceagent_session"

// RequestConfig is the resolved configuration of one request. Options modify
// it; the client's options are applied first, then the call's.
type RequestConfig struct {
	// BaseURL ends with /api, for example https://api.voiceagent.example/api.
	BaseURL string
	// APIKey is sent as a bearer token. Never logged.
	APIKey string
	// SessionCookie is a dashboard session, sent as the voiceagent_session cookie.
	SessionCookie string
	// HTTPClient performs the requests.
	HTTPClient *http.Client
	// MaxRetries is how many times a failed attempt is retried (0: never).
	MaxRetries int
	// RetryWaitMin and RetryWaitMax bound the backoff between attempts.
	RetryWaitMin, RetryWaitMax time.Duration
	// Timeout bounds a whole logical request, retries included (0: none).
	Timeout time.Duration
	// Logger receives one debug record per attempt, with the key redacted.
	Logger *slog.Logger
	// UserAgentSuffix is appended to the SDK's User-Agent.
	UserAgentSuffix string
	// RateLimiting enables the client-side rate limits.
	RateLimiting bool
	// IdempotencyKey is sent on the request; empty means generated for POSTs.
	IdempotencyKey string
	// Header holds extra headers sent on the request.
	Header http.Header
	// ResponseInto, when set, receives the final *http.Response (its body
	// already read and closed).
	ResponseInto **http.Response
}

// Option configures a client or a single call.
type Option func(*RequestConfig)

// DefaultConfig returns the configuration before any option: environment
// variables VOICEAGENT_API_KEY and VOICEAGENT_BASE_URL, otherwise defaults.
func DefaultConfig() RequestConfig {
	base := os.Getenv("VOICEAGENT_BASE_URL")
	if base == "" {
		base = DefaultBaseURL
	}
	return RequestConfig{
		BaseURL:      base,
		APIKey:       os.Getenv("VOICEAGENT_API_KEY"),
		HTTPClient:   http.DefaultClient,
		MaxRetries:   DefaultMaxRetries,
		RetryWaitMin: DefaultRetryWait,
		RetryWaitMax: DefaultRetryMax,
		Timeout:      DefaultTimeout,
		RateLimiting: true,
	}
}

// Apply applies opts in order to a copy of c and returns it. The copy's
// Header is its own, so options never change the original.
func (c RequestConfig) Apply(opts ...Option) RequestConfig {
	c.Header = c.Header.Clone()
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	return c
}

// WithBaseURL sets the base URL (ending with /api).
func WithBaseURL(u string) Option { return func(c *RequestConfig) { c.BaseURL = u } }

// WithAPIKey sets the bearer key.
func WithAPIKey(k string) Option { return func(c *RequestConfig) { c.APIKey = k } }

// WithSessionCookie sets the dashboard session used by key management
// (/v1/keys) and the outbound-sales pipeline.
func WithSessionCookie(s string) Option { return func(c *RequestConfig) { c.SessionCookie = s } }

// WithHTTPClient sets the HTTP client that performs requests.
func WithHTTPClient(h *http.Client) Option { return func(c *RequestConfig) { c.HTTPClient = h } }

// WithMaxRetries sets how many times a failed attempt is retried.
func WithMaxRetries(n int) Option { return func(c *RequestConfig) { c.MaxRetries = max(n, 0) } }

// WithRetryWait bounds the backoff between attempts.
func WithRetryWait(min, max time.Duration) Option {
	return func(c *RequestConfig) { c.RetryWaitMin, c.RetryWaitMax = min, max }
}

// WithTimeout bounds a whole logical request, retries included; 0 disables it.
func WithTimeout(d time.Duration) Option { return func(c *RequestConfig) { c.Timeout = d } }

// WithLogger logs each attempt at debug level; credentials are never logged.
func WithLogger(l *slog.Logger) Option { return func(c *RequestConfig) { c.Logger = l } }

// WithUserAgentSuffix appends s to the User-Agent header.
func WithUserAgentSuffix(s string) Option { return func(c *RequestConfig) { c.UserAgentSuffix = s } }

// WithRateLimiting turns the client-side rate limits on or off.
func WithRateLimiting(on bool) Option { return func(c *RequestConfig) { c.RateLimiting = on } }

// WithIdempotencyKey sends k as the Idempotency-Key of the request.
func WithIdempotencyKey(k string) Option { return func(c *RequestConfig) { c.IdempotencyKey = k } }

// WithHeader adds a header to the request.
func WithHeader(name, value string) Option {
	return func(c *RequestConfig) {
		if c.Header == nil {
			c.Header = http.Header{}
		}
		c.Header.Add(name, value)
	}
}

// WithResponseInto stores the final HTTP response in *dst, so a caller can
// read headers such as X-Request-Id on successful calls.
func WithResponseInto(dst **http.Response) Option {
	return func(c *RequestConfig) { c.ResponseInto = dst }
}
