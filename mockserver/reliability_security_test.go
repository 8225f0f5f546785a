package mockserver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
)

// findStrings walks every value reachable from v (pointers, interfaces,
// structs with their unexported fields, slices, arrays, maps) and calls
// found with the path of each string or byte slice that contains one of
// needles. Functions and channels are not entered.
func findStrings(v reflect.Value, needles []string, found func(path, needle string)) {
	seen := map[uintptr]bool{}
	var walk func(v reflect.Value, path string, depth int)
	check := func(s, path string) {
		for _, n := range needles {
			if strings.Contains(s, n) {
				found(path, n)
			}
		}
	}
	walk = func(v reflect.Value, path string, depth int) {
		if !v.IsValid() || depth > 60 {
			return
		}
		switch v.Kind() {
		case reflect.String:
			check(v.String(), path)
		case reflect.Pointer, reflect.Interface:
			if v.IsNil() {
				return
			}
			if v.Kind() == reflect.Pointer {
				if seen[v.Pointer()] {
					return
				}
				seen[v.Pointer()] = true
			}
			walk(v.Elem(), path, depth+1)
		case reflect.Struct:
			for i := range v.NumField() {
				walk(v.Field(i), path+"."+v.Type().Field(i).Name, depth+1)
			}
		case reflect.Slice, reflect.Array:
			if v.Type().Elem().Kind() == reflect.Uint8 {
				if v.Kind() == reflect.Slice {
					check(string(v.Bytes()), path)
				} else {
					b := make([]byte, v.Len())
					for i := range b {
						b[i] = byte(v.Index(i).Uint())
					}
					check(string(b), path)
				}
				return
			}
			if v.Kind() == reflect.Slice && !v.IsNil() {
				if seen[v.Pointer()] && v.Len() > 0 {
					return
				}
				seen[v.Pointer()] = true
			}
			for i := range v.Len() {
				walk(v.Index(i), fmt.Sprintf("%s[%d]", path, i), depth+1)
			}
		case reflect.Map:
			for it := v.MapRange(); it.Next(); {
				k := it.Key()
				walk(k, path+"{key}", depth+1)
				walk(it.Value(), fmt.Sprintf("%s[%v]", path, k), depth+1)
			}
		}
	}
	walk(v, "", 0)
}

func TestFindStrings(t *testing.T) {
	t.Parallel()
	type inner struct {
		b []byte
		m map[string]any
	}
	v := &struct {
		a string
		p *inner
	}{"x", &inner{b: []byte("has SECRET here"), m: map[string]any{"k": []string{"no", "SECRET!"}}}}
	var paths []string
	findStrings(reflect.ValueOf(v), []string{"SECRET"}, func(path, _ string) { paths = append(paths, path) })
	assert.ElementsMatch(t, []string{".p.b", ".p.m[k][1]"}, paths)
}

// TestTheServerKeepsNoKeyValue mints keys every way the API mints them
// (NewAccount, the admin API, signup, POST /v1/keys, an agency's
// issue_key), with Idempotency-Keys and replays, uses them, and then walks
// everything the server keeps (store, journal, usage log, rate-limit
// buckets, fault rules): no key value is there, only its SHA-256 and its
// 20-character prefix. (An idempotency record keeps the response that
// showed a key, to show it again on a replay.) Key lookups are by that hash (a map
// of hashes, then a constant-time comparison of the hash), so no
// comparison ever runs over the key itself.
func TestTheServerKeepsNoKeyValue(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t, WithRateLimits(false))
	keys := []string{acct.APIKey}

	admin := rawDo(t, http.MethodPost, srv.AdminURL+"/accounts", `{"business_name":"Admin made"}`)
	require.Equal(t, http.StatusCreated, admin.status, "%s", admin.body)
	keys = append(keys, admin.json["api_key"].(string))

	// Signup: the request step, then the verify step with the emailed code,
	// sent twice with one Idempotency-Key.
	req := rawDo(t, http.MethodPost, srv.URL+"/v1/signup", `{"business_name":"Signed up","email":"signed@example.com"}`)
	require.Equal(t, http.StatusOK, req.status, "%s", req.body)
	otp := srv.Outbox("signed@example.com")
	require.NotEmpty(t, otp)
	verify := fmt.Sprintf(`{"business_name":"Signed up","email":"signed@example.com","challenge_id":%q,"otp_code":%q}`,
		req.json["challenge_id"], otp[len(otp)-1].OTPCode)
	for range 2 {
		r := rawDo(t, http.MethodPost, srv.URL+"/v1/signup", verify, "Idempotency-Key", "signup-1")
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		keys = append(keys, r.json["api_key"].(string))
	}

	// POST /v1/keys with the session, and its replay.
	for range 2 {
		r := rawDo(t, http.MethodPost, srv.URL+"/v1/keys", `{"name":"minted"}`,
			"Cookie", httpapi.SessionCookie+"="+acct.Session, "Idempotency-Key", "key-1")
		require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
		keys = append(keys, r.json["key"].(string))
	}

	// An agency's partner key.
	boot := rawDo(t, http.MethodPost, srv.URL+"/v1/agency-profile", `{"action":"bootstrap","brand":{"name":"A"},"support":{"email":"a@example.com","ownerName":"A","coverage":"c"}}`, bearer(acct.APIKey)...)
	require.Equal(t, http.StatusOK, boot.status, "%s", boot.body)
	partner := boot.json["profile"].(map[string]any)["partnerId"].(string)
	issued := rawDo(t, http.MethodPost, srv.URL+"/v1/agency-profile", `{"action":"issue_key","partnerId":"`+partner+`","name":"partner","scopes":["calls:read"]}`,
		append(bearer(acct.APIKey), "Idempotency-Key", "issue-1")...)
	require.Equal(t, http.StatusOK, issued.status, "%s", issued.body)
	keys = append(keys, issued.json["key"].(map[string]any)["key"].(string))

	var secrets []string
	for _, k := range keys {
		require.True(t, strings.HasPrefix(k, httpapi.KeyPrefix), k)
		assert.NotEqual(t, http.StatusUnauthorized, rawDo(t, http.MethodGet, srv.URL+"/v1/calls", "", bearer(k)...).status, "the key works")
		rec := srv.keyRecord(k)
		require.NotNil(t, rec, "a record per key")
		assert.Equal(t, sha256.Sum256([]byte(k)), rec.Hash)
		assert.Equal(t, k[:httpapi.KeyShownLen], rec.Prefix)
		secrets = append(secrets, strings.TrimPrefix(k, httpapi.KeyPrefix)[httpapi.KeyShownLen-len(httpapi.KeyPrefix):]) // the part never shown
	}

	check := func(name string, mu interface {
		Lock()
		Unlock()
	}, v any) {
		mu.Lock()
		defer mu.Unlock()
		findStrings(reflect.ValueOf(v), secrets, func(path, _ string) {
			t.Errorf("a key value is kept in %s%s", name, path)
		})
	}
	tx := srv.platform.WriteTx()
	findStrings(reflect.ValueOf(tx), secrets, func(path, _ string) {
		// An idempotency record keeps the response it replays, a key
		// value included (docs/mockserver.md, Security properties).
		if !strings.HasPrefix(path, ".state.idempotency.") {
			t.Errorf("a key value is kept in the store%s", path)
		}
	})
	assert.Equal(t, 3, tx.Idempotency().Len(), "the records that keep a key value: signup, POST /v1/keys, issue_key")
	tx.End()
	findStrings(reflect.ValueOf(srv.httpapi.Journal.List(nil)), secrets, func(path, _ string) {
		t.Errorf("a key value is kept in the journal%s", path)
	})
	srv.httpapi.Usage.Flushed(func(t2 *store.Table[*store.UsageEntry]) {
		findStrings(reflect.ValueOf(t2), secrets, func(path, _ string) {
			t.Errorf("a key value is kept in the usage log%s", path)
		})
	})
	check("the rate limits", &srv.httpapi.Limits.Mu, srv.httpapi.Limits.Buckets)
	check("the fault rules", &srv.httpapi.FaultSet.Mu, srv.httpapi.FaultSet.Rules)
}

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n int
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += n
	return n, err
}

// syncBuffer is a bytes.Buffer safe for concurrent writers (a logger).
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// TestSecretsAndCustomHeaderValuesNeverShow runs a subscription's life
// (create with custom headers, update, rotate the secret, deliveries,
// replay, reads, delete) on a server logging at debug level, records every
// response, and checks that custom header values appear in no response and no
// log, and signing secrets only in the response that made each (create,
// rotate): not in reads, the journal, the usage log, the delivery log or
// the server's log. The receiver gets both, so they are in use.
func TestSecretsAndCustomHeaderValuesNeverShow(t *testing.T) {
	t.Parallel()
	var logs syncBuffer
	s := New(WithRateLimits(false), WithStartTime(afternoonET),
		WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	t.Cleanup(s.Close)
	type response struct{ name, body string }
	var mu sync.Mutex
	var responses []response
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, r)
		mu.Lock()
		var hdr strings.Builder
		_ = rec.Header().Write(&hdr)
		responses = append(responses, response{r.Method + " " + r.URL.String(), hdr.String() + rec.Body.String()})
		mu.Unlock()
		for k, vs := range rec.Header() {
			w.Header()[k] = vs
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	}))
	t.Cleanup(hs.Close)
	api, admin := hs.URL+"/api", hs.URL+"/_mock"

	var received syncBuffer
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = r.Header.Write(&received)
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = io.WriteString(w, "ok")
	}))
	t.Cleanup(recv.Close)

	acct, err := s.NewAccount(AccountOptions{})
	require.NoError(t, err)
	key := bearer(acct.APIKey)
	custom := []string{"cust0m-Sentinel-A", "cust0m-Sentinel-B", "cust0m-Sentinel-C"}

	created := rawDo(t, http.MethodPost, api+"/v1/webhooks", `{"business_id":"`+acct.BusinessID+`","webhook_url":"`+recv.URL+`",`+
		`"events":["lead.created","sms.received"],"custom_headers":{"X-Crm-Token":"`+custom[0]+`","Authorization":"Bearer `+custom[1]+`"}}`, key...)
	require.Equal(t, http.StatusCreated, created.status, "%s", created.body)
	id, secrets := created.json["id"].(string), []string{created.json["secret"].(string)}
	up := rawDo(t, http.MethodPost, api+"/v1/webhooks", `{"id":"`+id+`","business_id":"`+acct.BusinessID+`","webhook_url":"`+recv.URL+`",`+
		`"custom_headers":{"X-Crm-Token":null,"X-Other":"`+custom[2]+`"}}`, key...)
	require.Equal(t, http.StatusOK, up.status, "%s", up.body)
	_, err = s.InboundSMS(InboundSMS{To: acct.PhoneNumber, From: "+15551238001", Body: "Hello there"})
	require.NoError(t, err)
	rotated := rawDo(t, http.MethodPost, api+"/v1/webhooks/rotate-secret", `{"id":"`+id+`"}`, key...)
	require.Equal(t, http.StatusOK, rotated.status, "%s", rotated.body)
	secrets = append(secrets, rotated.json["secret"].(string))
	_, err = s.InboundSMS(InboundSMS{To: acct.PhoneNumber, From: "+15551238002", Body: "Hello again"})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	require.Len(t, s.WaitDeliveryCount(ctx, 4, DeliveryFilter{Status: DeliverySucceeded}.Match), 4)
	for _, path := range []string{"/v1/webhooks", "/v1/webhooks?id=" + id, "/v1/events", "/v1/usage"} {
		require.Equal(t, http.StatusOK, rawDo(t, http.MethodGet, api+path, "", key...).status, path)
	}
	replay := rawDo(t, http.MethodPost, api+"/v1/events/replay", `{"since":"2000-01-01T00:00:00Z"}`, key...)
	require.Equal(t, http.StatusOK, replay.status, "%s", replay.body)
	require.Len(t, s.WaitDeliveryCount(ctx, 8, DeliveryFilter{Status: DeliverySucceeded}.Match), 8)
	for _, path := range []string{"/deliveries", "/requests"} {
		require.Equal(t, http.StatusOK, rawDo(t, http.MethodGet, admin+path, "").status, path)
	}
	require.Equal(t, http.StatusOK, rawDo(t, http.MethodDelete, api+"/v1/webhooks?id="+id, "", key...).status)

	// In use: the receiver got the custom values and signatures it can check.
	got := received.String()
	// (The update named X-Crm-Token with null, which keeps its value, and
	// left Authorization out, which drops it.)
	for _, v := range []string{custom[0], custom[2]} {
		assert.Contains(t, got, v, "the receiver gets the custom header")
	}

	never := append(slices.Clone(custom), secrets...)
	mu.Lock()
	defer mu.Unlock()
	for _, a := range responses {
		for _, v := range never {
			if (strings.HasSuffix(a.body, string(created.body)) || strings.Contains(a.name, "rotate-secret")) && strings.HasPrefix(v, "whsec_") {
				continue // the response that made a secret shows it, once
			}
			assert.NotContains(t, a.body, v, "the answer to %s", a.name)
		}
	}
	assert.Contains(t, string(created.body), secrets[0])
	journal, _ := json.Marshal(s.Requests(nil))
	deliveries, _ := json.Marshal(s.Deliveries(DeliveryFilter{}))
	usage, _ := json.Marshal(s.httpapi.Usage.Page(acct.UserID, httpapi.PageQuery{Limit: 500}, nil))
	require.Contains(t, logs.String(), `"msg":"mockserver request"`, "the server logs requests at debug level")
	for name, text := range map[string]string{"journal": string(journal), "delivery log": string(deliveries), "usage log": string(usage), "server log": logs.String()} {
		for _, v := range never {
			assert.NotContains(t, text, v, "the %s", name)
		}
	}
}

// TestWebhooksReachNoHostOutsideLoopback: a subscription may name an
// https receiver anywhere, but unless the server runs with
// WithExternalWebhooks(true) its deliveries fail at once, without a
// connection, and say why.
func TestWebhooksReachNoHostOutsideLoopback(t *testing.T) {
	t.Parallel()
	srv, acct := startWithAccount(t)
	r := rawDo(t, http.MethodPost, srv.URL+"/v1/webhooks", `{"business_id":"`+acct.BusinessID+`","webhook_url":"https://hooks.example.com/x","events":["lead.created"]}`, bearer(acct.APIKey)...)
	require.Equal(t, http.StatusCreated, r.status, "%s", r.body)
	_, err := srv.InboundSMS(InboundSMS{To: acct.PhoneNumber, From: "+15551238101", Body: "Hi"})
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d := srv.WaitDeliveries(ctx, DeliveryFilter{MinAttempts: 1}.Match)
	require.NotEmpty(t, d)
	a := d[0].Attempts[0]
	assert.Zero(t, a.StatusCode, "no answer: no connection was made")
	assert.Contains(t, a.Error, "only calls loopback hosts")
	r = rawDo(t, http.MethodPost, srv.URL+"/v1/webhooks", `{"business_id":"`+acct.BusinessID+`","webhook_url":"http://hooks.example.com/x"}`, bearer(acct.APIKey)...)
	assert.Equal(t, http.StatusBadRequest, r.status, "plain http outside loopback is refused outright")
}

// TestEveryRouteRefusesBodiesOverTheLimit sends a body one byte over 1 MiB
// to every route that reads one (every method but GET: API routes of each
// authentication, the admin API too), with and without credentials: 413
// payload_too_large in the error format, before anything else runs. A
// request declaring a Content-Length over the route's own bound gets 413
// before any of its body is read.
func TestEveryRouteRefusesBodiesOverTheLimit(t *testing.T) {
	t.Parallel()
	s := New(WithRateLimits(false))
	t.Cleanup(s.Close)
	acct, err := s.NewAccount(AccountOptions{})
	require.NoError(t, err)
	big := strings.Repeat("x", DefaultMaxBodyBytes+1)
	classes := map[string]int{}
	for _, methods := range s.httpapi.Routes {
		for _, rt := range methods {
			if rt.Method == http.MethodGet {
				continue
			}
			classes[fmt.Sprint(rt.Auth)]++
			for _, creds := range []bool{false, true} {
				req := localRequest(rt.Method, rt.Path, strings.NewReader(big))
				if creds {
					req.Header.Set("Authorization", "Bearer "+acct.APIKey)
					req.AddCookie(&http.Cookie{Name: httpapi.SessionCookie, Value: acct.Session})
				}
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, req)
				what := fmt.Sprintf("%s %s (credentials %v)", rt.Method, rt.Path, creds)
				if rt.MaxBody > DefaultMaxBodyBytes {
					// A snapshot being restored has a bound of its own.
					assert.Equal(t, http.StatusBadRequest, rec.Code, "%s reads past the server's bound: %s", what, rec.Body)
					continue
				}
				assert.Equal(t, http.StatusRequestEntityTooLarge, rec.Code, what)
				var env struct {
					Error struct{ Code, Message string } `json:"error"`
				}
				require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &env), what)
				assert.Equal(t, voiceagent.CodePayloadTooLarge, env.Error.Code, what)
				assert.Contains(t, env.Error.Message, "1048576", what)
			}

			// A Content-Length over the route's own bound: 413 before a byte is read.
			bound := int64(DefaultMaxBodyBytes)
			if rt.MaxBody > 0 {
				bound = rt.MaxBody
			}
			body := &countingReader{r: strings.NewReader(big)}
			req := localRequest(rt.Method, rt.Path, body)
			req.ContentLength = bound + 1
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			assert.Equal(t, http.StatusRequestEntityTooLarge, rec.Code, "%s %s declaring %d bytes", rt.Method, rt.Path, bound+1)
			assert.Zero(t, body.n, "%s %s read the body of a request declaring %d bytes", rt.Method, rt.Path, bound+1)
		}
	}
	for _, mode := range []httpapi.AuthMode{httpapi.AuthKey, httpapi.AuthSession, httpapi.AuthNone, httpapi.AuthAdmin} {
		assert.Positive(t, classes[fmt.Sprint(mode)], "a body-reading route of auth mode %d was tried", mode)
	}
}
