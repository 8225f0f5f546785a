package webhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	standardwebhooks "github.com/standard-webhooks/standard-webhooks/libraries/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const (
	testSecret  = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	testSecret2 = "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD"
	testMsgID   = "msg_p5jXN8AQM9LWM0D4loKWxJek"
)

var (
	testBody = []byte(`{"id":"evt_1","event":"lead.created","business_id":"b1","timestamp":"2025-01-02T03:04:05Z","data":{"id":"lead_1"}}`)
	testTime = time.Unix(1_700_000_000, 0)
)

func at(t time.Time) VerifyOption { return WithNow(func() time.Time { return t }) }

func signed(t testing.TB, secrets []string, id string, ts time.Time, body []byte) http.Header {
	t.Helper()
	h, err := SignHeaders(secrets, id, ts, body)
	require.NoError(t, err)
	return h
}

func TestNewSecret(t *testing.T) {
	s, err := NewSecret()
	require.NoError(t, err)
	require.True(t, strings.HasPrefix(s, "whsec_"), s)
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(s, "whsec_"))
	require.NoError(t, err)
	assert.Len(t, key, 24)
	assert.Len(t, s, len("whsec_")+32)

	s2, err := NewSecret()
	require.NoError(t, err)
	assert.NotEqual(t, s, s2)

	// A fresh secret signs and verifies.
	h := signed(t, []string{s}, testMsgID, testTime, testBody)
	assert.NoError(t, Verify(testBody, h, []string{s}, at(testTime)))
}

func TestSignKnownVector(t *testing.T) {
	// Computed independently from the scheme's definition.
	key, _ := base64.StdEncoding.DecodeString("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(testMsgID + "." + strconv.FormatInt(testTime.Unix(), 10) + "." + string(testBody)))
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))

	got, err := Sign(testSecret, testMsgID, testTime, testBody)
	require.NoError(t, err)
	assert.Equal(t, want, got)

	// The prefix is optional; sub-second precision is dropped.
	got, err = Sign(strings.TrimPrefix(testSecret, "whsec_"), testMsgID, testTime.Add(999*time.Millisecond), testBody)
	require.NoError(t, err)
	assert.Equal(t, want, got)
}

func TestSignHeaders(t *testing.T) {
	h := signed(t, []string{testSecret, testSecret2}, testMsgID, testTime, testBody)
	assert.Equal(t, testMsgID, h.Get("webhook-id"))
	assert.Equal(t, "1700000000", h.Get("webhook-timestamp"))
	sigs := strings.Split(h.Get("webhook-signature"), " ")
	require.Len(t, sigs, 2)
	s1, _ := Sign(testSecret, testMsgID, testTime, testBody)
	s2, _ := Sign(testSecret2, testMsgID, testTime, testBody)
	assert.Equal(t, []string{s1, s2}, sigs)

	_, err := SignHeaders(nil, testMsgID, testTime, testBody)
	assert.ErrorIs(t, err, ErrInvalidSecret)
	_, err = SignHeaders([]string{testSecret, "whsec_!!"}, testMsgID, testTime, testBody)
	assert.ErrorIs(t, err, ErrInvalidSecret)
}

func TestSignRejects(t *testing.T) {
	for name, tc := range map[string]struct {
		secret, id string
		ts         time.Time
		want       error
	}{
		"bad base64":         {"whsec_not base64!", testMsgID, testTime, ErrInvalidSecret},
		"empty secret":       {"whsec_", testMsgID, testTime, ErrInvalidSecret},
		"empty id":           {testSecret, "", testTime, ErrInvalidHeaders},
		"id with space":      {testSecret, "msg 1", testTime, ErrInvalidHeaders},
		"id with newline":    {testSecret, "msg\r\nX-Evil: 1", testTime, ErrInvalidHeaders},
		"timestamp pre-1970": {testSecret, testMsgID, time.Unix(-1, 0), ErrInvalidHeaders},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Sign(tc.secret, tc.id, tc.ts, testBody)
			assert.ErrorIs(t, err, tc.want)
		})
	}
}

func TestVerifyRoundTrip(t *testing.T) {
	h := signed(t, []string{testSecret}, testMsgID, testTime, testBody)
	require.NoError(t, Verify(testBody, h, []string{testSecret}, at(testTime)))
	// Without the prefix too, and with surrounding whitespace (env files).
	require.NoError(t, Verify(testBody, h, []string{" MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw\n"}, at(testTime)))
	// An empty body is a body like any other.
	h = signed(t, []string{testSecret}, testMsgID, testTime, nil)
	require.NoError(t, Verify([]byte{}, h, []string{testSecret}, at(testTime)))
}

// TestVerifyAcceptsOneSpellingOfASignature checks that a signature verifies
// only in its canonical base64: a 32-byte digest leaves two bits of the
// last character unused, and a lenient decoder accepted all four values
// of them (FuzzVerify found it; its input is in the corpus).
func TestVerifyAcceptsOneSpellingOfASignature(t *testing.T) {
	h := signed(t, []string{testSecret}, testMsgID, testTime, testBody)
	sig := h.Get(HeaderSignature)
	require.True(t, strings.HasSuffix(sig, "="), sig)
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
	last := strings.IndexByte(alphabet, sig[len(sig)-2])
	verified := 0
	for low := range 4 {
		spelling := sig[:len(sig)-2] + string(alphabet[last&^3|low]) + "="
		h.Set(HeaderSignature, spelling)
		err := Verify(testBody, h, []string{testSecret}, at(testTime))
		if spelling == sig {
			assert.NoError(t, err)
			verified++
			continue
		}
		assert.ErrorIs(t, err, ErrInvalidSignature, spelling)
	}
	assert.Equal(t, 1, verified)
}

func TestVerifyErrors(t *testing.T) {
	good := signed(t, []string{testSecret}, testMsgID, testTime, testBody)
	with := func(k, v string) http.Header {
		h := good.Clone()
		if v == "" {
			h.Del(k)
		} else {
			h.Set(k, v)
		}
		return h
	}
	sig := good.Get(HeaderSignature)
	otherSig, _ := Sign(testSecret2, testMsgID, testTime, testBody)

	for name, tc := range map[string]struct {
		body    []byte
		h       http.Header
		secrets []string
		want    error
		msg     string
	}{
		"no secrets":          {testBody, good, nil, ErrInvalidSecret, "no secret"},
		"bad secret":          {testBody, good, []string{testSecret, "whsec_%%%"}, ErrInvalidSecret, "secret 1"},
		"empty key":           {testBody, good, []string{"whsec_"}, ErrInvalidSecret, "empty"},
		"no headers":          {testBody, http.Header{}, []string{testSecret}, ErrMissingHeaders, "webhook-id, webhook-timestamp, webhook-signature"},
		"no id":               {testBody, with(HeaderID, ""), []string{testSecret}, ErrMissingHeaders, "webhook-id"},
		"no timestamp":        {testBody, with(HeaderTimestamp, ""), []string{testSecret}, ErrMissingHeaders, "webhook-timestamp"},
		"no signature":        {testBody, with(HeaderSignature, ""), []string{testSecret}, ErrMissingHeaders, "webhook-signature"},
		"timestamp not int":   {testBody, with(HeaderTimestamp, "1700000000.5"), []string{testSecret}, ErrInvalidHeaders, "unix seconds"},
		"timestamp RFC3339":   {testBody, with(HeaderTimestamp, "2023-11-14T22:13:20Z"), []string{testSecret}, ErrInvalidHeaders, "unix seconds"},
		"timestamp negative":  {testBody, with(HeaderTimestamp, "-1700000000"), []string{testSecret}, ErrInvalidHeaders, "unix seconds"},
		"timestamp huge":      {testBody, with(HeaderTimestamp, "99999999999999999999999"), []string{testSecret}, ErrInvalidHeaders, "out of range"},
		"signature garbage":   {testBody, with(HeaderSignature, "garbage"), []string{testSecret}, ErrInvalidHeaders, "version,signature"},
		"only v1a":            {testBody, with(HeaderSignature, "v1a,"+strings.TrimPrefix(sig, "v1,")), []string{testSecret}, ErrInvalidSignature, "no well-formed v1"},
		"v1 not base64":       {testBody, with(HeaderSignature, "v1,@@@@"), []string{testSecret}, ErrInvalidSignature, ""},
		"v1 truncated":        {testBody, with(HeaderSignature, sig[:20]), []string{testSecret}, ErrInvalidSignature, ""},
		"tampered body":       {append([]byte(testBody[:len(testBody)-1]), ' ', '}'), good, []string{testSecret}, ErrInvalidSignature, "1 secret(s)"},
		"other secret":        {testBody, good, []string{testSecret2}, ErrInvalidSignature, ""},
		"other id":            {testBody, with(HeaderID, "msg_other"), []string{testSecret}, ErrInvalidSignature, ""},
		"other timestamp":     {testBody, with(HeaderTimestamp, "1700000001"), []string{testSecret}, ErrInvalidSignature, ""},
		"signed by other key": {testBody, with(HeaderSignature, otherSig), []string{testSecret}, ErrInvalidSignature, ""},
		"uppercase version":   {testBody, with(HeaderSignature, "V1,"+strings.TrimPrefix(sig, "v1,")), []string{testSecret}, ErrInvalidSignature, ""},
	} {
		t.Run(name, func(t *testing.T) {
			err := Verify(tc.body, tc.h, tc.secrets, at(testTime))
			require.ErrorIs(t, err, tc.want)
			assert.Contains(t, err.Error(), tc.msg)
			// Exactly one sentinel.
			n := 0
			for _, s := range []error{ErrMissingHeaders, ErrInvalidHeaders, ErrInvalidSignature, ErrTimestampTooOld, ErrTimestampTooNew, ErrInvalidSecret} {
				if errors.Is(err, s) {
					n++
				}
			}
			assert.Equal(t, 1, n, err.Error())
		})
	}
}

func TestVerifyErrorsNeverContainSecrets(t *testing.T) {
	raw := strings.TrimPrefix(testSecret, "whsec_")
	bad := "whsec_" + raw[:10] + "!" + raw[11:]
	good := signed(t, []string{testSecret}, testMsgID, testTime, testBody)
	errs := []error{
		Verify(testBody, good, []string{bad}),
		Verify(testBody, good, []string{testSecret2}, at(testTime)),
		Verify(testBody, good, []string{testSecret}, at(testTime.Add(time.Hour))),
	}
	_, err := Sign(bad, testMsgID, testTime, testBody)
	errs = append(errs, err)
	for _, err := range errs {
		require.Error(t, err)
		for _, s := range []string{raw, raw[:10], strings.TrimPrefix(testSecret2, "whsec_"), good.Get(HeaderSignature)[3:]} {
			assert.NotContains(t, err.Error(), s)
		}
	}
}

func TestVerifyRotation(t *testing.T) {
	// The platform signs with old and new while rotating: two signatures.
	both := signed(t, []string{testSecret, testSecret2}, testMsgID, testTime, testBody)
	oldOnly := signed(t, []string{testSecret}, testMsgID, testTime, testBody)
	newOnly := signed(t, []string{testSecret2}, testMsgID, testTime, testBody)

	for name, h := range map[string]http.Header{"both": both, "old": oldOnly, "new": newOnly} {
		t.Run(name, func(t *testing.T) {
			// A receiver that knows both accepts any of them.
			assert.NoError(t, Verify(testBody, h, []string{testSecret, testSecret2}, at(testTime)))
			assert.NoError(t, Verify(testBody, h, []string{testSecret2, testSecret}, at(testTime)))
		})
	}
	// A receiver that knows one accepts the two-signature header.
	assert.NoError(t, Verify(testBody, both, []string{testSecret}, at(testTime)))
	assert.NoError(t, Verify(testBody, both, []string{testSecret2}, at(testTime)))
	assert.ErrorIs(t, Verify(testBody, newOnly, []string{testSecret}, at(testTime)), ErrInvalidSignature)

	// Signatures in repeated header lines, extra spaces, unknown versions.
	h := oldOnly.Clone()
	h.Set(HeaderSignature, "v1a,AAAA")
	h.Add(HeaderSignature, "  v2,xyz   "+newOnly.Get(HeaderSignature)+" ")
	assert.NoError(t, Verify(testBody, h, []string{testSecret2}, at(testTime)))

	// A map literal with lowercase keys (not canonicalised) is read too.
	lower := http.Header{
		"webhook-id":        {testMsgID},
		"webhook-timestamp": {"1700000000"},
		"webhook-signature": {both.Get(HeaderSignature)},
	}
	assert.NoError(t, Verify(testBody, lower, []string{testSecret}, at(testTime)))
}

func TestVerifyTolerance(t *testing.T) {
	h := signed(t, []string{testSecret}, testMsgID, testTime, testBody)
	v := func(now time.Time, opts ...VerifyOption) error {
		return Verify(testBody, h, []string{testSecret}, append([]VerifyOption{at(now)}, opts...)...)
	}
	tol := 5 * time.Minute
	assert.NoError(t, v(testTime))
	assert.NoError(t, v(testTime.Add(tol)), "exactly at the tolerance, late")
	assert.NoError(t, v(testTime.Add(-tol)), "exactly at the tolerance, early")
	assert.ErrorIs(t, v(testTime.Add(tol+time.Nanosecond)), ErrTimestampTooOld)
	assert.ErrorIs(t, v(testTime.Add(-tol-time.Nanosecond)), ErrTimestampTooNew)
	assert.ErrorIs(t, v(testTime.Add(time.Hour)), ErrTimestampTooOld)
	assert.ErrorIs(t, v(testTime.Add(-time.Hour)), ErrTimestampTooNew)

	err := v(testTime.Add(10 * time.Minute))
	assert.Contains(t, err.Error(), "10m0s in the past, tolerance is 5m0s")

	// Custom tolerance.
	assert.NoError(t, v(testTime.Add(time.Hour), WithTolerance(time.Hour)))
	assert.ErrorIs(t, v(testTime.Add(2*time.Second), WithTolerance(time.Second)), ErrTimestampTooOld)
	// Zero turns the check off.
	assert.NoError(t, v(testTime.Add(1000*time.Hour), WithTolerance(0)))
	assert.NoError(t, v(time.Unix(0, 0), WithTolerance(-1)))

	// The signature is checked first: a forged stale message is a bad signature.
	assert.ErrorIs(t, Verify(testBody, h, []string{testSecret2}, at(testTime.Add(time.Hour))), ErrInvalidSignature)

	// Default clock: a message signed now passes, one from an hour ago fails.
	now := signed(t, []string{testSecret}, testMsgID, time.Now(), testBody)
	assert.NoError(t, Verify(testBody, now, []string{testSecret}))
	old := signed(t, []string{testSecret}, testMsgID, time.Now().Add(-time.Hour), testBody)
	assert.ErrorIs(t, Verify(testBody, old, []string{testSecret}), ErrTimestampTooOld)
	assert.NoError(t, Verify(testBody, now, []string{testSecret}, WithNow(nil)), "nil keeps time.Now")
}

// Our signatures are verified by the Standard Webhooks reference library, and
// the reference library's are verified by Verify.
func TestInteropStandardWebhooks(t *testing.T) {
	secret, err := NewSecret()
	require.NoError(t, err)
	ref, err := standardwebhooks.NewWebhook(secret)
	require.NoError(t, err)
	now := time.Now()

	t.Run("ours verified by reference", func(t *testing.T) {
		h := signed(t, []string{testSecret2, secret}, testMsgID, now, testBody)
		require.NoError(t, ref.Verify(testBody, h))
		require.Error(t, ref.Verify(append([]byte{' '}, testBody...), h))
	})
	t.Run("reference verified by ours", func(t *testing.T) {
		sig, err := ref.Sign(testMsgID, now, testBody)
		require.NoError(t, err)
		ours, err := Sign(secret, testMsgID, now, testBody)
		require.NoError(t, err)
		assert.Equal(t, ours, sig)

		h := http.Header{}
		h.Set(standardwebhooks.HeaderWebhookID, testMsgID)
		h.Set(standardwebhooks.HeaderWebhookTimestamp, strconv.FormatInt(now.Unix(), 10))
		h.Set(standardwebhooks.HeaderWebhookSignature, sig)
		require.NoError(t, Verify(testBody, h, []string{secret}))
		// With the key given without prefix to the reference library.
		ref2, err := standardwebhooks.NewWebhook(strings.TrimPrefix(secret, "whsec_"))
		require.NoError(t, err)
		sig2, _ := ref2.Sign("msg_2", now, nil)
		h.Set(HeaderID, "msg_2")
		h.Set(HeaderSignature, sig2)
		require.NoError(t, Verify(nil, h, []string{secret}))
	})
	t.Run("header names match", func(t *testing.T) {
		assert.Equal(t, standardwebhooks.HeaderWebhookID, HeaderID)
		assert.Equal(t, standardwebhooks.HeaderWebhookTimestamp, HeaderTimestamp)
		assert.Equal(t, standardwebhooks.HeaderWebhookSignature, HeaderSignature)
	})
}

func FuzzVerify(f *testing.F) {
	f.Add([]byte(testBody), testMsgID, int64(1_700_000_000), "v1,abc", "1700000000", []byte("key"))
	f.Add([]byte{}, "x", int64(0), "", "", []byte{0})
	f.Add([]byte("\x00\xff"), "msg_\xff", int64(1<<62), "v1, v1,==== v1a,x ,,, v1,"+strings.Repeat("A", 44), "-1", []byte(strings.Repeat("k", 100)))
	f.Add([]byte("{}"), "msg.1.2", int64(42), "v1,"+strings.Repeat("/", 43)+"=", "0042", []byte("k"))
	// Structured seeds: real signatures, each made invalid one way, so the
	// fuzzer starts from headers of the right shape.
	for _, c := range []struct {
		body []byte
		id   string
		ts   int64
		key  []byte
	}{
		{[]byte(testBody), testMsgID, testTime.Unix(), []byte("0123456789abcdef0123")},
		{[]byte(`{"event":"lead.created","data":{"name":"Ada"}}`), "9b2c1e4e-6f0a-4c1d-8e2b-1f3a5c7d9e0f", 1_780_000_000, []byte{0, 1, 2, 255}},
		{nil, "msg_empty", 0, []byte("k")},
	} {
		secret := base64.StdEncoding.EncodeToString(c.key)
		sig, err := Sign(secret, c.id, time.Unix(c.ts, 0), c.body)
		if err != nil {
			f.Fatal(err)
		}
		ts := strconv.FormatInt(c.ts, 10)
		flipped := []byte(sig)
		flipped[len(flipped)-3] ^= 1
		for _, m := range []struct{ sig, ts string }{
			{string(flipped), ts},                         // one bit off
			{sig, strconv.FormatInt(c.ts+1, 10)},          // signed for another time
			{sig, " " + ts},                               // padded with a space
			{"v2" + sig[2:], ts},                          // another version
			{strings.TrimRight(sig, "="), ts},             // padding dropped
			{"v1," + sig, ts},                             // version twice
			{"v1,short " + string(flipped) + "  v1,", ts}, // a list with no good entry
			{strings.ToUpper(sig), ts},                    // case changed
		} {
			f.Add(c.body, c.id, c.ts, m.sig, m.ts, c.key)
			f.Add(append(slices.Clone(c.body), ' '), c.id, c.ts, sig, ts, c.key) // the body changed
			f.Add(c.body, c.id+"x", c.ts, sig, ts, c.key)                        // the id changed
		}
	}
	f.Fuzz(func(t *testing.T, body []byte, id string, ts int64, sigHeader, tsHeader string, key []byte) {
		secret := base64.StdEncoding.EncodeToString(key)

		// Headers never panic, verify only when they carry the genuine
		// signature of this id, timestamp and body (anything else would be
		// forging HMAC-SHA256; the seeds put genuine ones a mutation away),
		// and otherwise fail with one of the sentinels.
		h := http.Header{}
		h.Set(HeaderID, id)
		h.Set(HeaderTimestamp, tsHeader)
		h.Set(HeaderSignature, sigHeader)
		err := Verify(body, h, []string{secret}, WithTolerance(0))
		if err == nil {
			at, perr := strconv.ParseInt(tsHeader, 10, 64)
			want, serr := Sign(secret, id, time.Unix(at, 0), body)
			if perr != nil || serr != nil || !slices.Contains(strings.Fields(sigHeader), want) {
				t.Fatalf("headers verified without the genuine signature: %q %q %q", id, tsHeader, sigHeader)
			}
			return
		}
		known := false
		for _, s := range []error{ErrMissingHeaders, ErrInvalidHeaders, ErrInvalidSignature, ErrInvalidSecret} {
			known = known || errors.Is(err, s)
		}
		if !known {
			t.Fatalf("unexpected error: %v", err)
		}

		// A valid signature over the fuzzed body always verifies.
		sent := time.Unix(ts, 0)
		hs, err := SignHeaders([]string{secret}, id, sent, body)
		if err != nil {
			if len(key) > 0 && checkMsgID(id) == nil && ts >= 0 {
				t.Fatalf("SignHeaders failed on valid input: %v", err)
			}
			return
		}
		if err := Verify(body, hs, []string{secret}, at(sent)); err != nil {
			t.Fatalf("valid signature did not verify: %v", err)
		}
		// And fails over any other body.
		other := append(append([]byte{}, body...), 'x')
		if err := Verify(other, hs, []string{secret}, at(sent)); !errors.Is(err, ErrInvalidSignature) {
			t.Fatalf("tampered body: %v", err)
		}
	})
}

func BenchmarkVerify(b *testing.B) {
	body := []byte(`{"id":"evt_1","event":"call.completed","business_id":"b1","timestamp":"2025-01-02T03:04:05Z","data":{"id":"call_1","status":"completed","duration":120,"summary":"` + strings.Repeat("x", 1500) + `"}}`)
	b.Run("one secret", func(b *testing.B) {
		h := signed(b, []string{testSecret}, testMsgID, testTime, body)
		secrets := []string{testSecret}
		now := at(testTime)
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for i := 0; i < b.N; i++ {
			if err := Verify(body, h, secrets, now); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("rotation two secrets", func(b *testing.B) {
		h := signed(b, []string{testSecret2}, testMsgID, testTime, body)
		secrets := []string{testSecret, testSecret2}
		now := at(testTime)
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for i := 0; i < b.N; i++ {
			if err := Verify(body, h, secrets, now); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("handler verifier", func(b *testing.B) {
		h := signed(b, []string{testSecret}, testMsgID, testTime, body)
		keys, _ := decodeSecrets([]string{testSecret}, decodeSecret)
		v := &verifier{keys: keys, cfg: verifyConfig{tolerance: DefaultTolerance, now: func() time.Time { return testTime }}}
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for i := 0; i < b.N; i++ {
			if _, _, err := v.verify(body, h); err != nil {
				b.Fatal(err)
			}
		}
	})
}
