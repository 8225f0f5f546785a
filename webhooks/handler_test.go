package webhooks

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func newHandler(t *testing.T, secrets []string, opts ...HandlerOption) *Handler {
	t.Helper()
	h, err := NewHandler(append([]HandlerOption{WithSecrets(secrets...), WithErrorLog(quiet)}, opts...)...)
	require.NoError(t, err)
	return h
}

// delivery builds a signed request as the platform sends it.
func delivery(t testing.TB, id string, body []byte, edit ...func(http.Header)) *http.Request {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/hooks", bytes.NewReader(body))
	for k, v := range signed(t, []string{testSecret}, id, time.Now(), body) {
		req.Header[k] = v
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderAttempt, "1")
	for _, e := range edit {
		e(req.Header)
	}
	return req
}

func serve(h http.Handler, req *http.Request) (int, string) {
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.String()
}

func eventBody(id string, typ EventType) []byte {
	return []byte(fmt.Sprintf(`{"id":%q,"event":%q,"business_id":"b1","timestamp":"2025-01-02T03:04:05Z","data":{"id":"x"}}`, id, typ))
}

const callCompletedBody = `{"event":"call.completed","call_id":"c1","status":"completed","duration":95,"recording_url":"https://rec.example/c1.mp3","summary":"ok","timestamp":"2025-01-02T03:04:05Z"}`

func TestNewHandlerSecrets(t *testing.T) {
	for name, tc := range map[string]struct {
		secret string
		why    string
	}{
		"nope":              {"nope", `secret 0 does not start with "whsec_"`},
		"raw base64":        {strings.TrimPrefix(testSecret, SecretPrefix), `does not start with "whsec_"`},
		"an API key":        {"voiceagent_live_" + strings.Repeat("a", 40), `does not start with "whsec_"`},
		"not base64":        {"whsec_***", "is not whsec_ followed by standard base64"},
		"unpadded base64":   {"whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "is not whsec_ followed by standard base64"},
		"short key":         {"whsec_nope", "a key of 3 bytes"},
		"empty key":         {"whsec_", "a key of 0 bytes"},
		"key over 64 bytes": {SecretPrefix + base64.StdEncoding.EncodeToString(make([]byte, 65)), "a key of 65 bytes"},
	} {
		_, err := NewHandler(WithSecrets(testSecret, tc.secret))
		assert.ErrorIs(t, err, ErrInvalidSecret, name)
		assert.ErrorContains(t, err, strings.Replace(tc.why, "secret 0", "secret 1", 1), name)
		if len(tc.secret) > len(SecretPrefix)+4 {
			assert.NotContains(t, err.Error(), tc.secret[len(SecretPrefix):], "%s: the error never shows the secret", name)
		}
	}
	for _, ok := range []string{testSecret, " " + testSecret2 + "\n", SecretPrefix + base64.StdEncoding.EncodeToString(make([]byte, 64))} {
		_, err := NewHandler(WithSecrets(ok))
		assert.NoError(t, err, ok)
	}
	_, err := NewHandler()
	assert.NoError(t, err, "the secrets may come later (SetSecrets)")
	_, err = NewHandler(WithUnsignedCallWebhooks(true), nil)
	assert.NoError(t, err)
	assert.Panics(t, func() { newHandler(t, []string{testSecret}).On("x", nil) })
}

// A receiver is made before its subscription (which needs the receiver's
// URL, and whose answer brings the secret): until SetSecrets gives it the
// secret it answers signed deliveries 503, which the platform retries.
func TestHandlerSecretsCanComeLater(t *testing.T) {
	h := newHandler(t, nil)
	var processed atomic.Int32
	h.OnAny(func(context.Context, *Event) error { processed.Add(1); return nil })

	code, body := serve(h, delivery(t, "msg_early", eventBody("e1", EventLeadCreated)))
	assert.Equal(t, http.StatusServiceUnavailable, code, body)
	assert.JSONEq(t, `{"status":"error","error":"no signing secret yet"}`, body)
	unsigned := httptest.NewRequest(http.MethodPost, "/hooks", bytes.NewReader(eventBody("e1", EventLeadCreated)))
	code, _ = serve(h, unsigned)
	assert.Equal(t, http.StatusUnauthorized, code, "an unsigned request is refused, secret or not")

	assert.ErrorIs(t, h.SetSecrets(), ErrInvalidSecret, "no secret")
	assert.ErrorIs(t, h.SetSecrets("nope"), ErrInvalidSecret)
	require.NoError(t, h.SetSecrets(testSecret))
	code, body = serve(h, delivery(t, "msg_early", eventBody("e1", EventLeadCreated)))
	assert.Equal(t, http.StatusOK, code, body)
	assert.EqualValues(t, 1, processed.Load())

	// Rotation: the old and the new secret, then the new one alone. A
	// refused SetSecrets keeps the secrets the Handler had.
	signedWith := func(secret, id string) *http.Request {
		b := eventBody(id, EventLeadCreated)
		req := httptest.NewRequest(http.MethodPost, "/hooks", bytes.NewReader(b))
		for k, v := range signed(t, []string{secret}, id, time.Now(), b) {
			req.Header[k] = v
		}
		return req
	}
	require.NoError(t, h.SetSecrets(testSecret, testSecret2))
	code, _ = serve(h, signedWith(testSecret2, "msg_new"))
	assert.Equal(t, http.StatusOK, code)
	require.NoError(t, h.SetSecrets(testSecret2))
	assert.Error(t, h.SetSecrets(testSecret, "whsec_***"))
	code, _ = serve(h, signedWith(testSecret, "msg_old"))
	assert.Equal(t, http.StatusUnauthorized, code, "the old secret is retired")
	code, _ = serve(h, signedWith(testSecret2, "msg_new2"))
	assert.Equal(t, http.StatusOK, code)
}

// SetSecrets while deliveries are being verified (run with -race).
func TestHandlerSetSecretsWhileServing(t *testing.T) {
	h := newHandler(t, []string{testSecret})
	h.OnAny(func(context.Context, *Event) error { return nil })
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 50 {
				code, body := serve(h, delivery(t, fmt.Sprintf("msg_%d_%d", i, j), eventBody("e", EventLeadCreated)))
				assert.Equal(t, http.StatusOK, code, body)
			}
		}()
	}
	for range 100 {
		require.NoError(t, h.SetSecrets(testSecret2, testSecret))
		require.NoError(t, h.SetSecrets(testSecret))
	}
	wg.Wait()
}

func TestHandlerDispatch(t *testing.T) {
	h := newHandler(t, []string{testSecret2, testSecret})
	var got []string
	h.On(EventLeadCreated, func(ctx context.Context, e *Event) error {
		d, ok := DeliveryFromContext(ctx)
		require.True(t, ok)
		assert.Equal(t, DeliveryInfo{ID: "msg_1", Timestamp: d.Timestamp, Attempt: 3, EventType: EventLeadCreated, Verified: true}, d)
		assert.WithinDuration(t, time.Now(), d.Timestamp, 2*time.Second)
		got = append(got, "on1:"+e.ID)
		return nil
	})
	h.On(EventLeadCreated, func(_ context.Context, e *Event) error {
		got = append(got, "on2:"+string(e.Type))
		return nil
	})
	h.On(EventSMSSent, func(context.Context, *Event) error {
		got = append(got, "sms")
		return nil
	})
	h.OnAny(func(_ context.Context, e *Event) error {
		got = append(got, "any:"+string(e.Type))
		return nil
	})

	code, body := serve(h, delivery(t, "msg_1", eventBody("evt_1", EventLeadCreated), func(h http.Header) {
		h.Set(HeaderAttempt, "3")
		h.Set(HeaderEvent, string(EventSMSSent)) // not signed: the body decides
	}))
	assert.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `{"status":"processed"}`, body)
	assert.Equal(t, []string{"on1:evt_1", "on2:lead.created", "any:lead.created"}, got)

	// A type with only OnAny.
	got = nil
	code, _ = serve(h, delivery(t, "msg_2", eventBody("evt_2", EventWorkspaceReady)))
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, []string{"any:workspace.ready"}, got)
}

func TestHandlerNoHandlerIs2xx(t *testing.T) {
	h := newHandler(t, []string{testSecret})
	h.On(EventLeadCreated, func(context.Context, *Event) error { return errors.New("not called") })
	code, body := serve(h, delivery(t, "msg_1", eventBody("evt_1", "some.future_event")))
	assert.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `{"status":"ignored"}`, body)
	// A call webhook without OnCall, too.
	code, _ = serve(h, delivery(t, "msg_2", []byte(callCompletedBody)))
	assert.Equal(t, http.StatusOK, code)
}

func TestHandlerDedupe(t *testing.T) {
	h := newHandler(t, []string{testSecret})
	var runs atomic.Int32
	h.On(EventLeadCreated, func(context.Context, *Event) error { runs.Add(1); return nil })

	body := eventBody("evt_1", EventLeadCreated)
	code, _ := serve(h, delivery(t, "msg_1", body))
	require.Equal(t, http.StatusOK, code)
	// A retry: new timestamp, same webhook-id.
	code, resp := serve(h, delivery(t, "msg_1", body, func(h http.Header) { h.Set(HeaderAttempt, "2") }))
	assert.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `{"status":"duplicate"}`, resp)
	assert.Equal(t, int32(1), runs.Load())

	// Another id with the same body is another delivery (another subscription).
	code, _ = serve(h, delivery(t, "msg_2", body))
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, int32(2), runs.Load())
}

func TestHandlerErrorThenRetry(t *testing.T) {
	h := newHandler(t, []string{testSecret})
	var runs atomic.Int32
	h.On(EventLeadCreated, func(context.Context, *Event) error {
		if runs.Add(1) == 1 {
			return errors.New("database down")
		}
		return nil
	})
	body := eventBody("evt_1", EventLeadCreated)

	code, resp := serve(h, delivery(t, "msg_1", body))
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.NotContains(t, resp, "database down", "handler errors are not sent back")

	code, resp = serve(h, delivery(t, "msg_1", body))
	assert.Equal(t, http.StatusOK, code, "the failed attempt did not mark the id")
	assert.JSONEq(t, `{"status":"processed"}`, resp)

	code, resp = serve(h, delivery(t, "msg_1", body))
	assert.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `{"status":"duplicate"}`, resp)
	assert.Equal(t, int32(2), runs.Load())
}

func TestHandlerStopsAtFirstError(t *testing.T) {
	h := newHandler(t, []string{testSecret})
	var order []string
	h.On(EventLeadCreated, func(context.Context, *Event) error { order = append(order, "a"); return errors.New("x") })
	h.On(EventLeadCreated, func(context.Context, *Event) error { order = append(order, "b"); return nil })
	h.OnAny(func(context.Context, *Event) error { order = append(order, "any"); return nil })
	code, _ := serve(h, delivery(t, "msg_1", eventBody("e", EventLeadCreated)))
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Equal(t, []string{"a"}, order)
}

func TestHandlerPanic(t *testing.T) {
	var logs bytes.Buffer
	h, err := NewHandler(WithSecrets(testSecret), WithErrorLog(slog.New(slog.NewTextHandler(&logs, nil))))
	require.NoError(t, err)
	var runs atomic.Int32
	h.On(EventLeadCreated, func(context.Context, *Event) error {
		if runs.Add(1) == 1 {
			panic("boom")
		}
		return nil
	})
	body := eventBody("e", EventLeadCreated)
	code, _ := serve(h, delivery(t, "msg_1", body))
	assert.Equal(t, http.StatusInternalServerError, code)
	assert.Contains(t, logs.String(), "panicked: boom")
	assert.NotContains(t, logs.String(), strings.TrimPrefix(testSecret, "whsec_"))
	code, _ = serve(h, delivery(t, "msg_1", body))
	assert.Equal(t, http.StatusOK, code, "a panic releases the claim")

	// http.ErrAbortHandler is re-raised, after releasing.
	h.On(EventSMSSent, func(context.Context, *Event) error { panic(http.ErrAbortHandler) })
	assert.PanicsWithValue(t, http.ErrAbortHandler, func() {
		serve(h, delivery(t, "msg_2", eventBody("e2", EventSMSSent)))
	})
	r, _ := h.store.Claim(context.Background(), "msg_2")
	assert.Equal(t, Claimed, r)
}

// Many concurrent deliveries of one id: the handler runs once, and every
// other attempt is told 409 (in progress) or 200 (duplicate).
func TestHandlerConcurrentSameID(t *testing.T) {
	h := newHandler(t, []string{testSecret})
	var runs, running, maxRunning atomic.Int32
	release := make(chan struct{})
	h.On(EventLeadCreated, func(context.Context, *Event) error {
		runs.Add(1)
		n := running.Add(1)
		defer running.Add(-1)
		for {
			m := maxRunning.Load()
			if n <= m || maxRunning.CompareAndSwap(m, n) {
				break
			}
		}
		<-release
		return nil
	})
	srv := httptest.NewServer(h)
	defer srv.Close()

	body := eventBody("evt_1", EventLeadCreated)
	const n = 50
	codes := make(chan int, n)
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := delivery(t, "msg_same", body)
			out, err := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader(body))
			if !assert.NoError(t, err) {
				return
			}
			out.Header = req.Header
			resp, err := http.DefaultClient.Do(out)
			if !assert.NoError(t, err) {
				return
			}
			_ = resp.Body.Close()
			codes <- resp.StatusCode
		}()
	}
	// Let the others pile up against the running one, then let it finish.
	require.Eventually(t, func() bool { return len(codes) >= n-1 }, 5*time.Second, time.Millisecond)
	close(release)
	wg.Wait()
	close(codes)

	count := map[int]int{}
	for c := range codes {
		count[c]++
	}
	assert.Equal(t, int32(1), runs.Load())
	assert.Equal(t, int32(1), maxRunning.Load())
	assert.Equal(t, map[int]int{http.StatusOK: 1, http.StatusConflict: n - 1}, count)

	code, resp := serve(h, delivery(t, "msg_same", body))
	assert.Equal(t, http.StatusOK, code)
	assert.JSONEq(t, `{"status":"duplicate"}`, resp)
}

// Concurrent deliveries of one id whose handler fails at first: never two
// runs at once, exactly one success, and the id is done at the end.
func TestHandlerConcurrentFailures(t *testing.T) {
	h := newHandler(t, []string{testSecret})
	var runs, successes, running, overlap atomic.Int32
	h.On(EventLeadCreated, func(context.Context, *Event) error {
		if running.Add(1) > 1 {
			overlap.Add(1)
		}
		defer running.Add(-1)
		time.Sleep(time.Millisecond)
		if runs.Add(1) <= 5 {
			return errors.New("transient")
		}
		successes.Add(1)
		return nil
	})
	body := eventBody("evt_1", EventLeadCreated)
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Until the handler succeeded, and 20 more after: how many
			// attempts fit in one run depends on the machine's load.
			for after, i := 0, 0; after < 20 && i < 100_000; i++ {
				if successes.Load() > 0 {
					after++
				}
				code, _ := serve(h, delivery(t, "msg_x", body))
				switch code {
				case http.StatusOK, http.StatusConflict, http.StatusInternalServerError:
				default:
					t.Errorf("unexpected status %d", code)
				}
			}
		}()
	}
	wg.Wait()
	assert.Zero(t, overlap.Load())
	assert.Equal(t, int32(1), successes.Load())
	assert.Equal(t, int32(6), runs.Load())
}

func TestHandlerBodyLimit(t *testing.T) {
	h := newHandler(t, []string{testSecret}, WithMaxBodyBytes(100))
	var runs atomic.Int32
	h.OnAny(func(context.Context, *Event) error { runs.Add(1); return nil })

	big := []byte(`{"id":"e","event":"lead.created","data":{"pad":"` + strings.Repeat("x", 200) + `"}}`)
	code, _ := serve(h, delivery(t, "msg_1", big))
	assert.Equal(t, http.StatusRequestEntityTooLarge, code)

	// Without Content-Length (chunked), the reader stops at the cap.
	req := delivery(t, "msg_1", big)
	req.ContentLength = -1
	req.Body = io.NopCloser(io.MultiReader(bytes.NewReader(big), strings.NewReader(strings.Repeat(" ", 1<<20))))
	code, _ = serve(h, req)
	assert.Equal(t, http.StatusRequestEntityTooLarge, code)

	// At the cap exactly it passes.
	small := []byte(`{"id":"e","event":"lead.created","data":{"pad":"` + strings.Repeat("x", 100-51) + `"}}`)
	require.Len(t, small, 100)
	code, _ = serve(h, delivery(t, "msg_2", small))
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, int32(1), runs.Load())

	// Default: 1 MiB.
	h = newHandler(t, []string{testSecret}, WithMaxBodyBytes(0))
	assert.Equal(t, int64(1<<20), h.maxBodyBytes)
	huge := append(append([]byte(`{"id":"e","event":"x","data":"`), bytes.Repeat([]byte("y"), 1<<20)...), '"', '}')
	code, _ = serve(h, delivery(t, "msg_3", huge))
	assert.Equal(t, http.StatusRequestEntityTooLarge, code)
}

func TestHandlerRejects(t *testing.T) {
	h := newHandler(t, []string{testSecret})
	var runs atomic.Int32
	h.OnAny(func(context.Context, *Event) error { runs.Add(1); return nil })
	h.OnCall(func(context.Context, *CallWebhook) error { runs.Add(1); return nil })
	body := eventBody("evt_1", EventLeadCreated)

	tampered := delivery(t, "msg_1", body)
	tampered.Body = io.NopCloser(bytes.NewReader(eventBody("evt_1", EventLeadScored)))
	stale := httptest.NewRequest(http.MethodPost, "/hooks", bytes.NewReader(body))
	for k, v := range signed(t, []string{testSecret}, "msg_1", time.Now().Add(-time.Hour), body) {
		stale.Header[k] = v
	}
	get := delivery(t, "msg_1", body)
	get.Method = http.MethodGet
	notJSON := []byte("hello")

	for name, tc := range map[string]struct {
		req  *http.Request
		code int
		msg  string
	}{
		"wrong secret": {delivery(t, "msg_1", body, func(h http.Header) {
			h.Set(HeaderSignature, signed(t, []string{testSecret2}, "msg_1", time.Now(), body).Get(HeaderSignature))
		}), 401, "invalid signature"},
		"tampered body":     {tampered, 401, "invalid signature"},
		"stale":             {stale, 401, "timestamp outside tolerance"},
		"no signature":      {delivery(t, "msg_1", body, func(h http.Header) { h.Del(HeaderSignature) }), 400, "missing webhook headers"},
		"no id":             {delivery(t, "msg_1", body, func(h http.Header) { h.Del(HeaderID) }), 400, "missing webhook headers"},
		"bad timestamp":     {delivery(t, "msg_1", body, func(h http.Header) { h.Set(HeaderTimestamp, "soon") }), 400, "invalid webhook headers"},
		"garbage signature": {delivery(t, "msg_1", body, func(h http.Header) { h.Set(HeaderSignature, "xyz") }), 400, "invalid webhook headers"},
		"signed non-JSON":   {delivery(t, "msg_1", notJSON), 400, "invalid body"},
		"signed non-event":  {delivery(t, "msg_1", []byte(`{"hello":"world"}`)), 400, "invalid body"},
		"signed bad call":   {delivery(t, "msg_1", []byte(`{"event":"call.completed","call_id":"c","duration":"x"}`)), 400, "invalid body"},
		"GET":               {get, 405, "method not allowed"},
	} {
		t.Run(name, func(t *testing.T) {
			code, resp := serve(h, tc.req)
			assert.Equal(t, tc.code, code)
			assert.Contains(t, resp, tc.msg)
			assert.NotContains(t, resp, "whsec_")
		})
	}
	assert.Zero(t, runs.Load())

	for _, m := range []string{http.MethodPut, http.MethodPatch} {
		req := delivery(t, "msg_"+m, body)
		req.Method = m
		code, _ := serve(h, req)
		assert.Equal(t, http.StatusOK, code, m)
	}
}

func TestHandlerTolerance(t *testing.T) {
	body := eventBody("e", EventLeadCreated)
	req := func() *http.Request {
		r := httptest.NewRequest(http.MethodPost, "/hooks", bytes.NewReader(body))
		for k, v := range signed(t, []string{testSecret}, "msg_1", time.Now().Add(-10*time.Minute), body) {
			r.Header[k] = v
		}
		return r
	}
	code, _ := serve(newHandler(t, []string{testSecret}), req())
	assert.Equal(t, http.StatusUnauthorized, code)
	code, _ = serve(newHandler(t, []string{testSecret}, WithTolerance(time.Hour)), req())
	assert.Equal(t, http.StatusOK, code)
	code, _ = serve(newHandler(t, []string{testSecret}, WithNow(func() time.Time { return time.Now().Add(-10 * time.Minute) })), req())
	assert.Equal(t, http.StatusOK, code)
}

func TestHandlerCallWebhook(t *testing.T) {
	var got []*CallWebhook
	onCall := func(_ context.Context, c *CallWebhook) error { got = append(got, c); return nil }

	t.Run("signed", func(t *testing.T) {
		got = nil
		h := newHandler(t, []string{testSecret})
		h.OnCall(onCall)
		h.OnAny(func(context.Context, *Event) error { return errors.New("not for call webhooks") })
		code, _ := serve(h, delivery(t, "msg_c1", []byte(callCompletedBody)))
		require.Equal(t, http.StatusOK, code)
		require.Len(t, got, 1)
		assert.Equal(t, "msg_c1", got[0].ID)
		assert.Equal(t, "c1", got[0].CallID)
		assert.Equal(t, 95, got[0].Duration)
		code, resp := serve(h, delivery(t, "msg_c1", []byte(callCompletedBody)))
		assert.Equal(t, http.StatusOK, code)
		assert.JSONEq(t, `{"status":"duplicate"}`, resp)
		assert.Len(t, got, 1)

		// Unsigned is refused without the option.
		req := httptest.NewRequest(http.MethodPost, "/calls", strings.NewReader(callCompletedBody))
		req.Header.Set(HeaderID, "msg_c2")
		code, _ = serve(h, req)
		assert.Equal(t, http.StatusBadRequest, code)
	})

	t.Run("unsigned", func(t *testing.T) {
		got = nil
		h := newHandler(t, nil, WithUnsignedCallWebhooks(true))
		h.OnCall(onCall)
		var events atomic.Int32
		h.OnAny(func(context.Context, *Event) error { events.Add(1); return nil })
		unsigned := func(id, body string) *http.Request {
			req := httptest.NewRequest(http.MethodPost, "/calls", strings.NewReader(body))
			if id != "" {
				req.Header.Set(HeaderID, id)
			}
			return req
		}
		failed := `{"event":"call.failed","call_id":"c2","status":"failed","error":"busy","timestamp":"2025-01-02T03:04:05Z"}`
		code, _ := serve(h, unsigned("msg_c2", failed))
		require.Equal(t, http.StatusOK, code)
		require.Len(t, got, 1)
		assert.Equal(t, "busy", got[0].Error)
		assert.Equal(t, "msg_c2", got[0].ID)
		code, resp := serve(h, unsigned("msg_c2", failed))
		assert.Equal(t, http.StatusOK, code)
		assert.JSONEq(t, `{"status":"duplicate"}`, resp)

		// The id is required for deduplication.
		code, _ = serve(h, unsigned("", failed))
		assert.Equal(t, http.StatusBadRequest, code)
		// Standard bodies are never accepted unsigned, nor signed when the
		// handler has no secret to check them with (yet: 503, retried).
		code, _ = serve(h, unsigned("msg_e", string(eventBody("e", EventLeadCreated))))
		assert.Equal(t, http.StatusUnauthorized, code)
		code, _ = serve(h, delivery(t, "msg_e", eventBody("e", EventLeadCreated)))
		assert.Equal(t, http.StatusServiceUnavailable, code)
		assert.Zero(t, events.Load())
		assert.Len(t, got, 1)
	})

	t.Run("signed and unsigned", func(t *testing.T) {
		got = nil
		h := newHandler(t, []string{testSecret}, WithUnsignedCallWebhooks(true))
		h.OnCall(onCall)
		// A signed call webhook is still verified.
		code, _ := serve(h, delivery(t, "msg_c3", []byte(callCompletedBody), func(h http.Header) {
			h.Set(HeaderSignature, "v1,"+strings.Repeat("A", 43)+"=")
		}))
		assert.Equal(t, http.StatusUnauthorized, code)
		req := httptest.NewRequest(http.MethodPost, "/calls", strings.NewReader(callCompletedBody))
		req.Header.Set(HeaderID, "msg_c3")
		req.Header.Set(HeaderTimestamp, "1700000000")
		code, _ = serve(h, req)
		assert.Equal(t, http.StatusOK, code)
		require.Len(t, got, 1)
		d := got[0]
		assert.Equal(t, "msg_c3", d.ID)

		// An unsigned request cannot pre-empt the id of a signed delivery.
		req = httptest.NewRequest(http.MethodPost, "/calls", strings.NewReader(callCompletedBody))
		req.Header.Set(HeaderID, "msg_c4")
		code, _ = serve(h, req)
		require.Equal(t, http.StatusOK, code)
		code, resp := serve(h, delivery(t, "msg_c4", []byte(callCompletedBody)))
		assert.Equal(t, http.StatusOK, code)
		assert.JSONEq(t, `{"status":"processed"}`, resp)
		assert.Len(t, got, 3)
	})
}

func TestHandlerRaw(t *testing.T) {
	h := newHandler(t, []string{testSecret})
	var got [][]byte
	h.OnRaw(func(ctx context.Context, body []byte) error {
		d, _ := DeliveryFromContext(ctx)
		assert.Contains(t, []string{"msg_r", "msg_f"}, d.ID)
		assert.True(t, d.Verified)
		got = append(got, body)
		return nil
	})
	templated := []byte(`{"contact":{"email":"a@example.com"},"source":"voiceagent"}`)
	code, _ := serve(h, delivery(t, "msg_r", templated))
	require.Equal(t, http.StatusOK, code)
	code, _ = serve(h, delivery(t, "msg_r", templated))
	require.Equal(t, http.StatusOK, code)
	require.Len(t, got, 1)
	assert.Equal(t, templated, got[0])

	form := []byte("event=lead.created&id=evt_1")
	code, _ = serve(h, delivery(t, "msg_f", form))
	require.Equal(t, http.StatusOK, code)
	require.Len(t, got, 2)
}

type fakeStore struct {
	claimErr, completeErr error
	ctxErrs               []error
	mu                    sync.Mutex
	inner                 *MemoryDedupeStore
}

func (s *fakeStore) note(ctx context.Context) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ctxErrs = append(s.ctxErrs, ctx.Err())
}

func (s *fakeStore) Claim(ctx context.Context, id string) (ClaimResult, error) {
	s.note(ctx)
	if s.claimErr != nil {
		return 0, s.claimErr
	}
	return s.inner.Claim(ctx, id)
}

func (s *fakeStore) Complete(ctx context.Context, id string) error {
	s.note(ctx)
	if s.completeErr != nil {
		return s.completeErr
	}
	return s.inner.Complete(ctx, id)
}

func (s *fakeStore) Release(ctx context.Context, id string) error {
	s.note(ctx)
	return s.inner.Release(ctx, id)
}

func TestHandlerStore(t *testing.T) {
	body := eventBody("e", EventLeadCreated)
	ok := func(context.Context, *Event) error { return nil }

	t.Run("claim error is 503 and the handler does not run", func(t *testing.T) {
		s := &fakeStore{claimErr: errors.New("redis down"), inner: NewMemoryDedupeStore(0, 0)}
		h := newHandler(t, []string{testSecret}, WithDedupeStore(s))
		h.On(EventLeadCreated, func(context.Context, *Event) error { t.Error("ran"); return nil })
		code, _ := serve(h, delivery(t, "msg_1", body))
		assert.Equal(t, http.StatusServiceUnavailable, code)
	})
	t.Run("complete error still answers 200", func(t *testing.T) {
		s := &fakeStore{completeErr: errors.New("redis down"), inner: NewMemoryDedupeStore(0, 0)}
		h := newHandler(t, []string{testSecret}, WithDedupeStore(s))
		h.On(EventLeadCreated, ok)
		code, _ := serve(h, delivery(t, "msg_1", body))
		assert.Equal(t, http.StatusOK, code)
	})
	t.Run("store calls survive a client that hung up", func(t *testing.T) {
		s := &fakeStore{inner: NewMemoryDedupeStore(0, 0)}
		h := newHandler(t, []string{testSecret}, WithDedupeStore(s))
		h.On(EventLeadCreated, func(ctx context.Context, _ *Event) error { return ctx.Err() })
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		code, _ := serve(h, delivery(t, "msg_1", body).WithContext(ctx))
		assert.Equal(t, http.StatusInternalServerError, code)
		assert.Equal(t, []error{nil, nil}, s.ctxErrs, "Claim and Release got a live context")
		r, _ := s.inner.Claim(context.Background(), "msg_1")
		assert.Equal(t, Claimed, r, "the claim was released")
	})
	t.Run("nil store and logger mean the defaults", func(t *testing.T) {
		h, err := NewHandler(WithSecrets(testSecret), WithDedupeStore(nil), WithErrorLog(nil))
		require.NoError(t, err)
		assert.IsType(t, &MemoryDedupeStore{}, h.store)
		assert.NotNil(t, h.log)
	})
}

// Registering while serving is safe (run with -race).
func TestHandlerRegisterWhileServing(t *testing.T) {
	h := newHandler(t, []string{testSecret})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for i := 0; i < 100; i++ {
			h.On(EventLeadCreated, func(context.Context, *Event) error { return nil })
			h.OnAny(func(context.Context, *Event) error { return nil })
			h.OnCall(func(context.Context, *CallWebhook) error { return nil })
		}
	}()
	go func() {
		defer wg.Done()
		for i := 0; i < 100; i++ {
			code, _ := serve(h, delivery(t, fmt.Sprint("msg_", i), eventBody("e", EventLeadCreated)))
			assert.Equal(t, http.StatusOK, code)
		}
	}()
	wg.Wait()
}

func TestHandlerResponseIsJSON(t *testing.T) {
	h := newHandler(t, []string{testSecret})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, delivery(t, "msg_1", []byte("{}"), func(h http.Header) { h.Del(HeaderID) }))
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	var v map[string]string
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &v))
	assert.Equal(t, map[string]string{"status": "error", "error": "missing webhook headers"}, v)
}
