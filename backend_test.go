package voiceagent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	testBase = "https://api.test.example/api"
	testKey  = "voiceagent_live_0123456789ABCDEFGHIJabcdefghijKLMNOPQRST"
)

// fakeAPI is an httpmock transport that answers every request with the next
// of a list of answers (the last one repeats) and records what it received.
type fakeAPI struct {
	t  *testing.T
	mt *httpmock.MockTransport

	mu      sync.Mutex
	reqs    []*http.Request
	bodies  []string
	answers []httpmock.Responder
}

func newFakeAPI(t *testing.T, answers ...httpmock.Responder) *fakeAPI {
	t.Helper()
	f := &fakeAPI{t: t, mt: httpmock.NewMockTransport(), answers: answers}
	f.mt.RegisterNoResponder(func(r *http.Request) (*http.Response, error) {
		f.mu.Lock()
		i := len(f.reqs)
		var body []byte
		if r.Body != nil {
			body, _ = io.ReadAll(r.Body)
		}
		f.reqs = append(f.reqs, r)
		f.bodies = append(f.bodies, string(body))
		a := f.answers[min(i, len(f.answers)-1)]
		f.mu.Unlock()
		return a(r)
	})
	return f
}

// backend returns a backend on the fake with instant retries and no
// client-side rate limits, plus opts.
func (f *fakeAPI) backend(opts ...Option) *Backend {
	base := []Option{
		WithBaseURL(testBase), WithAPIKey(testKey), WithHTTPClient(&http.Client{Transport: f.mt}),
		WithRetryWait(0, 0), WithRateLimiting(false),
	}
	return NewBackend(append(base, opts...)...)
}

func (f *fakeAPI) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

func (f *fakeAPI) req(i int) *http.Request {
	f.mu.Lock()
	defer f.mu.Unlock()
	require.Greater(f.t, len(f.reqs), i, "request %d was not made", i)
	return f.reqs[i]
}

func (f *fakeAPI) body(i int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.bodies[i]
}

func jsonAnswer(status int, body string, header ...string) httpmock.Responder {
	return func(r *http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(status, body)
		resp.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(header); i += 2 {
			resp.Header.Set(header[i], header[i+1])
		}
		resp.Request = r
		return resp, nil
	}
}

var (
	ok200      = jsonAnswer(200, `{"ok":true}`, "X-Request-Id", "req_ok")
	connReset  = httpmock.NewErrorResponder(errors.New("connection reset by peer"))
	overloaded = jsonAnswer(503, `{"error":{"code":"service_unavailable","message":"busy"}}`)
)

func TestRetriesConnectionErrors429And5xxWithOneCountedHeaderPerAttempt(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, connReset, jsonAnswer(429, `{"error":{"code":"rate_limited","message":"slow down"}}`), overloaded, ok200)
	var out struct{ OK bool }
	err := f.backend(WithMaxRetries(3)).Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, &out)
	require.NoError(t, err)
	assert.True(t, out.OK)
	require.Equal(t, 4, f.calls())
	for i := range 4 {
		assert.Equal(t, []string{string(rune('0' + i))}, f.req(i).Header.Values(HeaderRetryCount), "attempt %d", i)
	}
}

func TestRetryableStatuses(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		status int
		retry  bool
	}{
		{429, true}, {500, true}, {502, true}, {503, true}, {504, true},
		{501, false}, {400, false}, {401, false}, {403, false}, {404, false}, {409, false}, {422, false},
	} {
		f := newFakeAPI(t, jsonAnswer(tc.status, `{"error":{"code":"x","message":"y"}}`), ok200)
		err := f.backend(WithMaxRetries(1)).Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, nil)
		if tc.retry {
			assert.NoError(t, err, "status %d is retried", tc.status)
			assert.Equal(t, 2, f.calls(), "status %d", tc.status)
		} else {
			var apiErr *Error
			require.ErrorAs(t, err, &apiErr, "status %d", tc.status)
			assert.Equal(t, tc.status, apiErr.StatusCode)
			assert.Equal(t, 1, f.calls(), "status %d is not retried", tc.status)
		}
	}
}

func TestRetriesExhaustedReturnTheLastAnswer(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, overloaded)
	err := f.backend(WithMaxRetries(2)).Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, nil)
	assert.ErrorIs(t, err, ErrServiceUnavailable)
	assert.Equal(t, 3, f.calls())

	f = newFakeAPI(t, connReset)
	err = f.backend(WithMaxRetries(1)).Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "connection reset by peer")
	assert.Equal(t, 2, f.calls())

	f = newFakeAPI(t, overloaded)
	err = f.backend(WithMaxRetries(0)).Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, nil)
	assert.ErrorIs(t, err, ErrServiceUnavailable)
	assert.Equal(t, 1, f.calls(), "WithMaxRetries(0) never retries")
}

// errAfterReader yields some bytes, then fails as a connection cut
// mid-answer does.
type errAfterReader struct{ data *strings.Reader }

func (r *errAfterReader) Read(p []byte) (int, error) {
	if r.data.Len() == 0 {
		return 0, io.ErrUnexpectedEOF
	}
	return r.data.Read(p)
}
func (r *errAfterReader) Close() error { return nil }

func TestAnAnswerCutShortIsRetried(t *testing.T) {
	t.Parallel()
	truncated := func(r *http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(200, "")
		resp.Body = &errAfterReader{strings.NewReader(`{"ok":tr`)}
		resp.Request = r
		return resp, nil
	}
	f := newFakeAPI(t, truncated, ok200)
	var out struct{ OK bool }
	require.NoError(t, f.backend().Do(context.Background(), http.MethodPost, "/v1/things", nil, map[string]int{"a": 1}, &out))
	assert.True(t, out.OK)
	require.Equal(t, 2, f.calls())
	assert.Equal(t, f.req(0).Header.Get(HeaderIdempotencyKey), f.req(1).Header.Get(HeaderIdempotencyKey))

	f = newFakeAPI(t, truncated)
	err := f.backend(WithMaxRetries(0)).Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, &out)
	assert.ErrorIs(t, err, io.ErrUnexpectedEOF)
}

func TestBackoffIsExponentialWithEqualJitterWithinBounds(t *testing.T) {
	t.Parallel()
	minWait, maxWait := 100*time.Millisecond, 5*time.Second
	for attempt := range 200 {
		ceil := maxWait
		if attempt < 6 { // 100ms * 2^6 > 5s
			ceil = minWait << attempt
		}
		for range 20 {
			d := backoff(minWait, maxWait, attempt, nil)
			require.GreaterOrEqual(t, d, ceil/2, "attempt %d", attempt)
			require.LessOrEqual(t, d, ceil, "attempt %d", attempt)
		}
	}
	seen := map[time.Duration]bool{}
	for range 50 {
		seen[backoff(minWait, maxWait, 3, nil)] = true
	}
	assert.Greater(t, len(seen), 1, "the wait is jittered")

	// A minimum so large that doubling it overflows stays capped.
	huge := time.Duration(1<<62 + 1)
	for attempt := range 70 {
		d := backoff(huge, maxWait, attempt, nil)
		require.GreaterOrEqual(t, d, maxWait/2, "attempt %d", attempt)
		require.LessOrEqual(t, d, maxWait, "attempt %d", attempt)
	}
	assert.Zero(t, backoff(0, maxWait, 3, nil), "no minimum: no wait")
}

func TestBackoffHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	resp := func(v string) *http.Response {
		return &http.Response{StatusCode: 429, Header: http.Header{"Retry-After": {v}}}
	}
	assert.Equal(t, 7*time.Second, backoff(time.Millisecond, time.Minute, 0, resp("7")))
	assert.Equal(t, time.Duration(0), backoff(time.Millisecond, time.Minute, 4, resp("0")))
	d := backoff(time.Millisecond, time.Minute, 0, resp(time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)))
	assert.Greater(t, d, 59*time.Minute, "HTTP-date form")
	assert.LessOrEqual(t, d, time.Hour)
	d = backoff(time.Second, time.Minute, 0, resp("soon"))
	assert.True(t, d >= 500*time.Millisecond && d <= time.Second, "an unreadable Retry-After falls back to the backoff: %s", d)
}

func TestRetryAfterIsWaitedWhenWithinTheMaximum(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, jsonAnswer(429, `{"error":{"code":"rate_limited","message":"x"}}`, "Retry-After", "0"), ok200)
	// A backoff of an hour would hang the test: Retry-After 0 must win.
	err := f.backend(WithRetryWait(time.Hour, time.Hour)).Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, nil)
	require.NoError(t, err)
	assert.Equal(t, 2, f.calls())
}

func TestRetryAfterBeyondTheMaximumIsNotWaitedFor(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, jsonAnswer(429, `{"error":{"code":"rate_limited","message":"later"}}`, "Retry-After", "120", "X-Request-Id", "req_429"), ok200)
	err := f.backend(WithRetryWait(0, 30*time.Second), WithMaxRetries(5)).Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, nil)
	var apiErr *Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 120*time.Second, apiErr.RetryAfter)
	assert.Equal(t, "req_429", apiErr.RequestID)
	assert.ErrorIs(t, err, ErrRateLimited)
	assert.Equal(t, 1, f.calls())
}

func TestPOSTsCarryOneIdempotencyKeyReusedOnEveryRetry(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, connReset, overloaded, ok200)
	b := f.backend(WithMaxRetries(2))
	require.NoError(t, b.Do(context.Background(), http.MethodPost, "/v1/things", nil, map[string]string{"a": "b"}, nil))
	require.Equal(t, 3, f.calls())
	key := f.req(0).Header.Get(HeaderIdempotencyKey)
	_, err := uuid.Parse(key)
	require.NoError(t, err, "a generated key is a UUID: %q", key)
	for i := range 3 {
		assert.Equal(t, []string{key}, f.req(i).Header.Values(HeaderIdempotencyKey), "attempt %d", i)
		assert.JSONEq(t, `{"a":"b"}`, f.body(i), "the body is sent again on attempt %d", i)
	}

	require.NoError(t, b.Do(context.Background(), http.MethodPost, "/v1/things", nil, nil, nil))
	other := f.req(3).Header.Get(HeaderIdempotencyKey)
	assert.NotEmpty(t, other)
	assert.NotEqual(t, key, other, "each logical request has its own key")

	require.NoError(t, b.Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, nil))
	assert.Empty(t, f.req(4).Header.Get(HeaderIdempotencyKey), "GETs carry no key")
	require.NoError(t, b.Do(context.Background(), http.MethodPatch, "/v1/things", nil, nil, nil))
	assert.Empty(t, f.req(5).Header.Get(HeaderIdempotencyKey), "PATCHes carry no generated key")
}

func TestCallersIdempotencyKeyIsUsed(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, overloaded, ok200)
	b := f.backend()
	require.NoError(t, b.Do(context.Background(), http.MethodPost, "/v1/things", nil, nil, nil, WithIdempotencyKey("order-42")))
	assert.Equal(t, []string{"order-42"}, f.req(0).Header.Values(HeaderIdempotencyKey))
	assert.Equal(t, []string{"order-42"}, f.req(1).Header.Values(HeaderIdempotencyKey))

	require.NoError(t, b.Do(context.Background(), http.MethodPost, "/v1/things", nil, nil, nil, WithHeader(HeaderIdempotencyKey, "from-header")))
	assert.Equal(t, []string{"from-header"}, f.req(2).Header.Values(HeaderIdempotencyKey), "a key given as a header is kept")

	require.NoError(t, b.Do(context.Background(), http.MethodDelete, "/v1/things", nil, nil, nil, WithIdempotencyKey("del-1")))
	assert.Equal(t, "del-1", f.req(3).Header.Get(HeaderIdempotencyKey), "any method may carry a caller's key")
}

func TestCancellingTheContextStopsRetryingAtOnce(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	f := newFakeAPI(t, func(r *http.Request) (*http.Response, error) {
		cancel() // the caller gives up while the first attempt is answered
		return overloaded(r)
	})
	// The backoff is an hour: only the cancellation can end the call.
	err := f.backend(WithRetryWait(time.Hour, time.Hour), WithMaxRetries(5)).Do(ctx, http.MethodGet, "/v1/things", nil, nil, nil)
	require.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, 1, f.calls())

	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	f = newFakeAPI(t, ok200)
	err = f.backend().Do(ctx, http.MethodGet, "/v1/things", nil, nil, nil)
	require.ErrorIs(t, err, context.Canceled)
	assert.Zero(t, f.calls(), "an ended context sends nothing")
}

func TestWithTimeoutBoundsTheLogicalRequest(t *testing.T) {
	t.Parallel()
	hang := func(r *http.Request) (*http.Response, error) {
		<-r.Context().Done()
		return nil, r.Context().Err()
	}
	f := newFakeAPI(t, hang)
	err := f.backend(WithTimeout(20*time.Millisecond), WithMaxRetries(3)).Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, 1, f.calls(), "no retry once the deadline passed")

	// A per-call WithTimeout(0) removes the client's bound.
	f = newFakeAPI(t, ok200)
	b := f.backend(WithTimeout(time.Nanosecond))
	require.Error(t, b.Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, nil))
	require.NoError(t, b.Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, nil, WithTimeout(0)))
}

func TestTheHTTPClientTimeoutBoundsEachAttempt(t *testing.T) {
	t.Parallel()
	var hung atomic.Int32
	hangOnce := func(r *http.Request) (*http.Response, error) {
		if hung.Add(1) == 1 {
			<-r.Context().Done() // the first attempt never answers
			return nil, r.Context().Err()
		}
		return httpmock.NewStringResponse(http.StatusOK, `{"ok":true}`), nil
	}
	f := newFakeAPI(t, hangOnce)
	hc := &http.Client{Transport: f.mt, Timeout: 30 * time.Millisecond}
	var out struct{ OK bool }
	err := f.backend(WithHTTPClient(hc), WithMaxRetries(1)).Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, &out)
	require.NoError(t, err, "the attempt that timed out is retried")
	assert.True(t, out.OK)
	assert.Equal(t, 2, f.calls())
	assert.Equal(t, 30*time.Millisecond, hc.Timeout, "the caller's client is not changed")

	f = newFakeAPI(t, func(r *http.Request) (*http.Response, error) {
		<-r.Context().Done()
		return nil, r.Context().Err()
	})
	hc = &http.Client{Transport: f.mt, Timeout: 10 * time.Millisecond}
	err = f.backend(WithHTTPClient(hc), WithMaxRetries(2)).Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, nil)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, 3, f.calls(), "every attempt is bounded, and retried")
}

func TestPerCallOptionsOverrideTheClientWithoutChangingIt(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, ok200)
	var got *http.Response
	b := f.backend(WithHeader("X-Team", "sales"), WithUserAgentSuffix("crm/1.0"))
	before := b.Config()

	require.NoError(t, b.Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, nil,
		WithAPIKey("voiceagent_live_other"), WithHeader("X-Trace", "t1"), WithUserAgentSuffix("job/2"),
		WithBaseURL("https://eu.test.example/api"), WithResponseInto(&got)))
	r := f.req(0)
	assert.Equal(t, "Bearer voiceagent_live_other", r.Header.Get("Authorization"))
	assert.Equal(t, "sales", r.Header.Get("X-Team"))
	assert.Equal(t, "t1", r.Header.Get("X-Trace"))
	assert.Equal(t, "voiceagent-go/"+Version+" job/2", r.Header.Get("User-Agent"))
	assert.Equal(t, "eu.test.example", r.URL.Host)
	require.NotNil(t, got)

	require.NoError(t, b.Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, nil))
	r = f.req(1)
	assert.Equal(t, "Bearer "+testKey, r.Header.Get("Authorization"))
	assert.Equal(t, "sales", r.Header.Get("X-Team"))
	assert.Empty(t, r.Header.Get("X-Trace"), "a call's header does not stick to the client")
	assert.Equal(t, "voiceagent-go/"+Version+" crm/1.0", r.Header.Get("User-Agent"))
	assert.Equal(t, "api.test.example", r.URL.Host)

	after := b.Config()
	assert.Equal(t, before.Header, after.Header)
	assert.Equal(t, before.APIKey, after.APIKey)
	assert.Nil(t, after.ResponseInto)
}

func TestErrorDecodingFillsEveryField(t *testing.T) {
	t.Parallel()
	body := `{"error":{"code":"rate_limited","message":"too soon","details":[{"path":"/leadId","message":"cadence"}],` +
		`"recovery_paths":{"sign_in":"https://x.example/login","key_setup":"https://x.example/keys"},` +
		`"nextAllowedAt":"2026-06-05T10:00:00Z","extra":1}}`
	f := newFakeAPI(t, jsonAnswer(429, body, "X-Request-Id", "req_123", "Retry-After", "7"))
	err := f.backend(WithMaxRetries(0)).Do(context.Background(), http.MethodPost, "/sdr/action", nil, nil, nil)

	var apiErr *Error
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, 429, apiErr.StatusCode)
	assert.Equal(t, CodeRateLimited, apiErr.Code)
	assert.Equal(t, "too soon", apiErr.Message)
	assert.Equal(t, []ErrorDetail{{Path: "/leadId", Message: "cadence"}}, apiErr.Details)
	assert.Equal(t, map[string]string{"sign_in": "https://x.example/login", "key_setup": "https://x.example/keys"}, apiErr.RecoveryPaths)
	require.NotNil(t, apiErr.NextAllowedAt)
	assert.Equal(t, time.Date(2026, 6, 5, 10, 0, 0, 0, time.UTC), apiErr.NextAllowedAt.UTC())
	assert.Equal(t, "req_123", apiErr.RequestID)
	assert.Equal(t, 7*time.Second, apiErr.RetryAfter)
	assert.JSONEq(t, body, string(apiErr.Body))
	assert.Equal(t, "voiceagent: 429 rate_limited: too soon (request req_123)", apiErr.Error())

	assert.ErrorIs(t, err, ErrRateLimited)
	assert.NotErrorIs(t, err, ErrNotFound)
	assert.ErrorIs(t, err, &Error{Code: CodeRateLimited, StatusCode: 429}, "a target with a status matches that status")
	assert.NotErrorIs(t, err, &Error{Code: CodeRateLimited, StatusCode: 503})
}

func TestErrorDecodingOfOtherBodies(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, body string
		status     int
		code, msg  string
		sentinel   *Error
	}{
		{"html from a proxy", "<html>Bad Gateway</html>", 502, CodeInternalError, "Bad Gateway", ErrInternal},
		{"empty", "", 404, CodeNotFound, "Not Found", ErrNotFound},
		{"string error", `{"error":"nope"}`, 403, CodeForbidden, "nope", ErrForbidden},
		{"no error member", `{"message":"x"}`, 401, CodeUnauthorized, "Unauthorized", ErrUnauthorized},
		{"method", "", 405, CodeMethodNotAllowed, "Method Not Allowed", ErrMethodNotAllowed},
		{"other 4xx", "", 422, CodeBadRequest, "Unprocessable Entity", ErrBadRequest},
		{"unavailable", "", 503, CodeServiceUnavailable, "Service Unavailable", ErrServiceUnavailable},
		{"odd members keep the rest", `{"error":{"code":"sdr_paused","message":"m","details":"x","nextAllowedAt":"soon","recovery_paths":[1]}}`,
			400, "sdr_paused", "m", &Error{Code: "sdr_paused"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFakeAPI(t, jsonAnswer(tc.status, tc.body))
			err := f.backend(WithMaxRetries(0)).Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, nil)
			var apiErr *Error
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tc.status, apiErr.StatusCode)
			assert.Equal(t, tc.code, apiErr.Code)
			assert.Equal(t, tc.msg, apiErr.Message)
			assert.Equal(t, tc.body, string(apiErr.Body))
			assert.ErrorIs(t, err, tc.sentinel)
			assert.Nil(t, apiErr.NextAllowedAt)
		})
	}
}

func TestSuccessWithABodyThatIsNotJSONIsAnErrorNamingTheRequest(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, jsonAnswer(200, "<html>", "X-Request-Id", "req_html"))
	var out struct{}
	err := f.backend().Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, &out)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "req_html")
	var apiErr *Error
	assert.False(t, errors.As(err, &apiErr))

	f = newFakeAPI(t, jsonAnswer(204, ""))
	require.NoError(t, f.backend().Do(context.Background(), http.MethodDelete, "/v1/things", nil, nil, &out), "an empty success decodes to nothing")
}

func TestTheKeyNeverAppearsInErrorsOrLogs(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f := newFakeAPI(t, connReset, jsonAnswer(500, `{"error":{"code":"internal_error","message":"boom"}}`, "X-Request-Id", "req_500"),
		jsonAnswer(401, `{"error":{"code":"unauthorized","message":"invalid API key"}}`, "X-Request-Id", "req_401"))
	b := f.backend(WithLogger(logger), WithMaxRetries(2), WithSessionCookie("sess_secret"))
	err := b.Do(context.Background(), http.MethodPost, "/v1/things", url.Values{"q": {"1"}}, map[string]string{"a": "b"}, nil)
	require.ErrorIs(t, err, ErrUnauthorized)
	assert.NotContains(t, err.Error(), testKey)
	assert.NotContains(t, err.Error(), testKey[20:])

	f2 := newFakeAPI(t, connReset)
	err2 := f2.backend(WithLogger(logger), WithMaxRetries(0)).Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, nil)
	require.Error(t, err2)
	assert.NotContains(t, err2.Error(), testKey[20:])

	logs := buf.String()
	assert.NotContains(t, logs, testKey[20:], "only the key's 20-character prefix may be logged")
	assert.NotContains(t, logs, "sess_secret")
	lines := strings.Split(strings.TrimSpace(logs), "\n")
	require.Len(t, lines, 4, "one record per attempt")
	var recs []map[string]any
	for _, l := range lines {
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(l), &m))
		recs = append(recs, m)
	}
	assert.Equal(t, RedactKey(testKey), recs[0]["key"])
	assert.Equal(t, testKey[:20]+"…", recs[0]["key"])
	assert.Contains(t, recs[0]["error"], "connection reset")
	assert.Equal(t, 1.0, recs[1]["attempt"])
	assert.Equal(t, 500.0, recs[1]["status"])
	assert.Equal(t, "req_500", recs[1]["request_id"])
	assert.Equal(t, 2.0, recs[2]["attempt"])
	assert.Equal(t, 401.0, recs[2]["status"])
	assert.Equal(t, "/v1/things", recs[2]["path"])
	assert.Equal(t, "DEBUG", recs[2]["level"])

	assert.Equal(t, "", RedactKey(""))
	assert.Equal(t, "…", RedactKey("short"))
}

func TestStandardHeaders(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, ok200)
	b := f.backend()
	require.NoError(t, b.Do(context.Background(), http.MethodGet, "/v1/things", nil, nil, nil))
	r := f.req(0)
	assert.Equal(t, "voiceagent-go/"+Version, r.Header.Get("User-Agent"))
	assert.Equal(t, "Bearer "+testKey, r.Header.Get("Authorization"))
	assert.Equal(t, "application/json", r.Header.Get("Accept"))
	assert.Empty(t, r.Header.Get("Content-Type"), "no body, no content type")
	assert.Empty(t, r.Header.Get("Cookie"))

	require.NoError(t, b.Do(context.Background(), http.MethodPatch, "/v1/things", nil, struct{}{}, nil, WithUserAgentSuffix("myapp/3.1")))
	r = f.req(1)
	assert.Equal(t, "voiceagent-go/"+Version+" myapp/3.1", r.Header.Get("User-Agent"))
	assert.Equal(t, "application/json", r.Header.Get("Content-Type"))

	require.NoError(t, b.Do(context.Background(), http.MethodGet, "/v1/keys", nil, nil, nil, WithAPIKey(""), WithSessionCookie("sess_abc")))
	r = f.req(2)
	c, err := r.Cookie(SessionCookieName)
	require.NoError(t, err)
	assert.Equal(t, "sess_abc", c.Value)
	assert.Empty(t, r.Header.Get("Authorization"), "no key, no Authorization")
}

func TestQueries(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, ok200)
	b := f.backend()
	ctx := context.Background()
	type params struct {
		Status string     `url:"status,omitempty"`
		Limit  int        `url:"limit,omitempty"`
		After  string     `url:"after,omitempty"`
		Since  *time.Time `url:"since,omitempty"`
	}
	require.NoError(t, b.Do(ctx, http.MethodGet, "/v1/things", url.Values{"id": {"a b"}, "tag": {"x", "y"}}, nil, nil))
	require.NoError(t, b.Do(ctx, http.MethodGet, "/v1/things", &params{Status: "new", Limit: 10, After: "2026-01-01T00:00:00.000000001Z"}, nil, nil))
	require.NoError(t, b.Do(ctx, http.MethodGet, "/v1/things", (*params)(nil), nil, nil))
	require.NoError(t, b.Do(ctx, http.MethodGet, "/v1/things", params{}, nil, nil))
	require.NoError(t, b.Do(ctx, http.MethodGet, "/v1/things?fixed=1", url.Values{"more": {"2"}}, nil, nil))

	assert.Equal(t, url.Values{"id": {"a b"}, "tag": {"x", "y"}}, f.req(0).URL.Query())
	assert.Equal(t, url.Values{"status": {"new"}, "limit": {"10"}, "after": {"2026-01-01T00:00:00.000000001Z"}}, f.req(1).URL.Query())
	assert.Empty(t, f.req(2).URL.RawQuery, "a nil params pointer sends no query")
	assert.Empty(t, f.req(3).URL.RawQuery, "omitempty fields are left out")
	assert.Equal(t, url.Values{"fixed": {"1"}, "more": {"2"}}, f.req(4).URL.Query())
	assert.Equal(t, "/api/v1/things", f.req(0).URL.Path)

	err := b.Do(ctx, http.MethodGet, "/v1/things", map[string]string{"x": "y"}, nil, nil)
	require.Error(t, err, "a query must be a struct or url.Values")
	assert.Equal(t, 5, f.calls())
}

func TestNullFieldsSendExplicitNulls(t *testing.T) {
	t.Parallel()
	type update struct {
		NullFields `json:"-"`
		ID         string  `json:"id"`
		Name       *string `json:"name,omitempty"`
		Notes      *string `json:"notes,omitempty"`
		Email      *string `json:"email,omitempty"`
	}
	f := newFakeAPI(t, ok200)
	b := f.backend()
	p := &update{ID: "l1", Name: String("Ada")}
	p.SetNull("notes", "email")
	require.NoError(t, b.Do(context.Background(), http.MethodPatch, "/v1/leads", nil, p, nil))
	assert.JSONEq(t, `{"id":"l1","name":"Ada","notes":null,"email":null}`, f.body(0))
	assert.Equal(t, []string{"notes", "email"}, p.NullFieldNames())

	require.NoError(t, b.Do(context.Background(), http.MethodPatch, "/v1/leads", nil, &update{ID: "l2"}, nil))
	assert.JSONEq(t, `{"id":"l2"}`, f.body(1), "nil pointers are left out, not nulled")
}

func TestWithResponseIntoExposesHeadersOnSuccess(t *testing.T) {
	t.Parallel()
	f := newFakeAPI(t, jsonAnswer(201, `{"id":"x"}`, "X-Request-Id", "req_9", "Idempotent-Replayed", "true"))
	var resp *http.Response
	var out struct{ ID string }
	require.NoError(t, f.backend().Do(context.Background(), http.MethodPost, "/v1/things", nil, nil, &out, WithResponseInto(&resp)))
	require.NotNil(t, resp)
	assert.Equal(t, 201, resp.StatusCode)
	assert.Equal(t, "req_9", resp.Header.Get(HeaderRequestID))
	assert.Equal(t, "true", resp.Header.Get(HeaderIdempotentReplay))
	assert.Equal(t, "x", out.ID)
}

func TestDefaultConfigReadsTheEnvironment(t *testing.T) {
	t.Setenv("VOICEAGENT_API_KEY", testKey)
	t.Setenv("VOICEAGENT_BASE_URL", "http://127.0.0.1:9/api")
	c := DefaultConfig()
	assert.Equal(t, testKey, c.APIKey)
	assert.Equal(t, "http://127.0.0.1:9/api", c.BaseURL)
	assert.Equal(t, DefaultMaxRetries, c.MaxRetries)
	assert.Equal(t, DefaultTimeout, c.Timeout)
	assert.True(t, c.RateLimiting)

	t.Setenv("VOICEAGENT_BASE_URL", "")
	assert.Equal(t, DefaultBaseURL, DefaultConfig().BaseURL)
	assert.Equal(t, 0, NewBackend(WithMaxRetries(-3)).Config().MaxRetries, "negative retries mean none")
}
