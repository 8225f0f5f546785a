package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Names of the headers a delivery carries. The first three are the Standard
// Webhooks headers covered by the signature; the X-Voiceagent headers are
// informational and are not signed.
const (
	// HeaderID is the message id: the same on every attempt of a delivery,
	// so receivers deduplicate on it.
	HeaderID = "webhook-id"
	// HeaderTimestamp is the unix time in seconds of the attempt (wall clock).
	HeaderTimestamp = "webhook-timestamp"
	// HeaderSignature is a space-separated list of "v1,<base64 signature>",
	// one per active secret of the subscription.
	HeaderSignature = "webhook-signature"
	// HeaderEvent is the event type of the delivery, for example "lead.created".
	HeaderEvent = "X-Voiceagent-Event"
	// HeaderAttempt is the 1-based number of the delivery attempt.
	HeaderAttempt = "X-Voiceagent-Attempt"
)

// SecretPrefix starts every signing secret the platform issues.
const SecretPrefix = "whsec_"

// SecretBytes is the number of random bytes in a secret made by [NewSecret].
const SecretBytes = 24

// DefaultTolerance is how far the webhook-timestamp of a delivery may be from
// the receiver's clock, in either direction, unless [WithTolerance] says
// otherwise.
const DefaultTolerance = 5 * time.Minute

// Errors returned by [Verify], [Sign], [SignHeaders] and [ConstructEvent].
// The returned errors wrap one of these with details, so test them with
// errors.Is. No error message ever contains a secret.
var (
	// ErrMissingHeaders means webhook-id, webhook-timestamp or
	// webhook-signature is absent or empty.
	ErrMissingHeaders = errors.New("webhooks: missing webhook headers")
	// ErrInvalidHeaders means a webhook header is present but malformed,
	// for example a webhook-timestamp that is not a unix time in seconds.
	ErrInvalidHeaders = errors.New("webhooks: invalid webhook headers")
	// ErrInvalidSignature means no v1 signature of the header matches the
	// body under any of the secrets: the body was altered, or it was signed
	// with another secret.
	ErrInvalidSignature = errors.New("webhooks: no matching signature")
	// ErrTimestampTooOld means the signature is valid but webhook-timestamp
	// is further in the past than the tolerance (a replayed message, or a
	// receiver clock running ahead).
	ErrTimestampTooOld = errors.New("webhooks: message timestamp too old")
	// ErrTimestampTooNew means the signature is valid but webhook-timestamp
	// is further in the future than the tolerance (a receiver clock running
	// behind).
	ErrTimestampTooNew = errors.New("webhooks: message timestamp too new")
	// ErrInvalidSecret means no secret was given, or a secret is not
	// "whsec_" (optional) followed by standard base64 of a non-empty key. A
	// [Handler] is stricter: it wants the prefix, and a key of 24 to 64
	// bytes.
	ErrInvalidSecret = errors.New("webhooks: invalid signing secret")
)

// NewSecret returns a new signing secret: "whsec_" followed by the standard
// base64 encoding of 24 bytes from crypto/rand, the form the platform issues.
func NewSecret() (string, error) {
	var b [SecretBytes]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("webhooks: generating secret: %w", err)
	}
	return SecretPrefix + base64.StdEncoding.EncodeToString(b[:]), nil
}

// decodeSecret returns the HMAC key of a secret: the standard base64 after an
// optional "whsec_" prefix. i is the position of the secret, for the message.
func decodeSecret(secret string, i int) ([]byte, error) {
	s := strings.TrimPrefix(strings.TrimSpace(secret), SecretPrefix)
	key, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%w: secret %d is not standard base64 after the %q prefix", ErrInvalidSecret, i, SecretPrefix)
	}
	if len(key) == 0 {
		return nil, fmt.Errorf("%w: secret %d is empty", ErrInvalidSecret, i)
	}
	return key, nil
}

// decodeSecrets decodes every secret with decode (given the secret and
// its index); at least one is required.
func decodeSecrets(secrets []string, decode func(secret string, i int) ([]byte, error)) ([][]byte, error) {
	if len(secrets) == 0 {
		return nil, fmt.Errorf("%w: no secret given", ErrInvalidSecret)
	}
	keys := make([][]byte, len(secrets))
	for i, s := range secrets {
		k, err := decode(s, i)
		if err != nil {
			return nil, err
		}
		keys[i] = k
	}
	return keys, nil
}

// checkMsgID rejects ids that cannot travel unchanged in an HTTP header:
// empty ones, and ones with spaces or control characters (HTTP trims
// surrounding whitespace, which would break the signature).
func checkMsgID(id string) error {
	if id == "" {
		return fmt.Errorf("%w: empty message id", ErrInvalidHeaders)
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c == 0x7f {
			return fmt.Errorf("%w: message id contains a space or control character", ErrInvalidHeaders)
		}
	}
	return nil
}

// signature computes HMAC-SHA256(key, "{id}.{ts}.{body}") without copying
// the body.
func signature(key []byte, msgID string, ts int64, body []byte) [sha256.Size]byte {
	mac := hmac.New(sha256.New, key)
	prefix := make([]byte, 0, len(msgID)+22)
	prefix = append(prefix, msgID...)
	prefix = append(prefix, '.')
	prefix = strconv.AppendInt(prefix, ts, 10)
	prefix = append(prefix, '.')
	mac.Write(prefix)
	mac.Write(body)
	var out [sha256.Size]byte
	mac.Sum(out[:0])
	return out
}

// Sign returns the Standard Webhooks signature "v1,<base64>" of body under
// secret (with or without the "whsec_" prefix), for the message id msgID sent
// at ts (whole seconds; the fraction is dropped). It is the one signing
// implementation of the project: the mock server signs its deliveries with
// it, and receivers can use it to build signed requests in their tests.
func Sign(secret, msgID string, ts time.Time, body []byte) (string, error) {
	key, err := decodeSecret(secret, 0)
	if err != nil {
		return "", err
	}
	return signWithKey(key, msgID, ts, body)
}

func signWithKey(key []byte, msgID string, ts time.Time, body []byte) (string, error) {
	if err := checkMsgID(msgID); err != nil {
		return "", err
	}
	unix := ts.Unix()
	if unix < 0 {
		return "", fmt.Errorf("%w: timestamp before 1970", ErrInvalidHeaders)
	}
	sig := signature(key, msgID, unix, body)
	return "v1," + base64.StdEncoding.EncodeToString(sig[:]), nil
}

// SignHeaders returns the headers of a delivery of body: webhook-id (msgID),
// webhook-timestamp (ts in unix seconds) and webhook-signature, which holds one
// "v1,<base64>" signature per secret, separated by spaces (several secrets are
// active while a secret is being rotated). Add them to the request with
// [http.Header] methods, or copy them over.
func SignHeaders(secrets []string, msgID string, ts time.Time, body []byte) (http.Header, error) {
	if len(secrets) == 0 {
		return nil, fmt.Errorf("%w: no secret given", ErrInvalidSecret)
	}
	sigs := make([]string, len(secrets))
	for i, s := range secrets {
		key, err := decodeSecret(s, i)
		if err != nil {
			return nil, err
		}
		sig, err := signWithKey(key, msgID, ts, body)
		if err != nil {
			return nil, err
		}
		sigs[i] = sig
	}
	h := make(http.Header, 3)
	h.Set(HeaderID, msgID)
	h.Set(HeaderTimestamp, strconv.FormatInt(ts.Unix(), 10))
	h.Set(HeaderSignature, strings.Join(sigs, " "))
	return h, nil
}

// VerifyOption configures [Verify] and [ConstructEvent]. Every VerifyOption
// is also a [HandlerOption], so the same options configure the verification
// a [Handler] does.
type VerifyOption interface {
	HandlerOption
	applyVerify(*verifyConfig)
}

type verifyConfig struct {
	tolerance time.Duration
	now       func() time.Time
}

func defaultVerifyConfig() verifyConfig {
	return verifyConfig{tolerance: DefaultTolerance, now: time.Now}
}

type verifyOption func(*verifyConfig)

func (o verifyOption) applyVerify(c *verifyConfig)   { o(c) }
func (o verifyOption) applyHandler(c *handlerConfig) { o(&c.verify) }

// WithTolerance sets how far webhook-timestamp may be from the receiver's
// clock, in either direction; the default is [DefaultTolerance] (5 minutes).
// A timestamp exactly at the tolerance passes. A zero or negative d turns the
// timestamp check off, leaving replay protection to deduplication alone; do
// that only to re-verify stored deliveries.
func WithTolerance(d time.Duration) VerifyOption {
	return verifyOption(func(c *verifyConfig) { c.tolerance = d })
}

// WithNow sets the clock the timestamp is checked against (time.Now by
// default), for tests and for re-verifying stored deliveries.
func WithNow(now func() time.Time) VerifyOption {
	return verifyOption(func(c *verifyConfig) {
		if now != nil {
			c.now = now
		}
	})
}

// strictBase64 decodes v1 signatures: standard base64 in its one
// canonical spelling.
var strictBase64 = base64.StdEncoding.Strict()

// verifier holds decoded keys so a Handler decodes its secrets once.
type verifier struct {
	keys [][]byte
	cfg  verifyConfig
}

// Verify checks that body and the webhook headers h make a delivery signed
// with one of secrets (each with or without the "whsec_" prefix) no further
// from now than the tolerance. Any secret matching any v1 signature of the
// header passes, so a receiver rotating its secret passes both the old and the
// new one. body must be the raw request body, byte for byte, as received.
//
// The error wraps [ErrInvalidSecret], [ErrMissingHeaders], [ErrInvalidHeaders],
// [ErrInvalidSignature], [ErrTimestampTooOld] or [ErrTimestampTooNew]. The
// signature is checked before the timestamp, so the two timestamp errors
// mean a genuine but stale (or early) message.
func Verify(body []byte, h http.Header, secrets []string, opts ...VerifyOption) error {
	cfg := defaultVerifyConfig()
	for _, o := range opts {
		if o != nil {
			o.applyVerify(&cfg)
		}
	}
	keys, err := decodeSecrets(secrets, decodeSecret)
	if err != nil {
		return err
	}
	_, _, err = (&verifier{keys: keys, cfg: cfg}).verify(body, h)
	return err
}

// Canonical forms of the Standard Webhooks header names, so lookups do not
// canonicalise (and allocate) on every request.
var (
	canonID        = http.CanonicalHeaderKey(HeaderID)
	canonTimestamp = http.CanonicalHeaderKey(HeaderTimestamp)
	canonSignature = http.CanonicalHeaderKey(HeaderSignature)
)

// header reads a header by its canonical name, falling back to the exact key
// name for headers built as map literals with lowercase keys.
func header(h http.Header, canon, name string) string {
	if vs := h[canon]; len(vs) > 0 && vs[0] != "" {
		return vs[0]
	}
	if vs := h[name]; len(vs) > 0 {
		return vs[0]
	}
	return ""
}

// signatureHeader joins every webhook-signature value: a sender may repeat
// the header instead of separating signatures with spaces.
func signatureHeader(h http.Header) string {
	vs := h[canonSignature]
	if len(vs) == 0 {
		vs = h[HeaderSignature]
	}
	switch len(vs) {
	case 0:
		return ""
	case 1:
		return vs[0]
	}
	return strings.Join(vs, " ")
}

// nextField returns the first space-separated field of s and the rest.
func nextField(s string) (field, rest string) {
	s = strings.TrimLeft(s, " \t")
	if i := strings.IndexAny(s, " \t"); i >= 0 {
		return s[:i], s[i:]
	}
	return s, ""
}

// parseTimestamp parses webhook-timestamp: unix seconds, digits only.
func parseTimestamp(s string) (int64, error) {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, fmt.Errorf("%w: webhook-timestamp is not unix seconds", ErrInvalidHeaders)
		}
	}
	ts, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("%w: webhook-timestamp is out of range", ErrInvalidHeaders)
	}
	return ts, nil
}

// verify checks a delivery and returns its message id and timestamp.
func (v *verifier) verify(body []byte, h http.Header) (string, time.Time, error) {
	msgID := header(h, canonID, HeaderID)
	tsHeader := header(h, canonTimestamp, HeaderTimestamp)
	sigHeader := signatureHeader(h)
	if msgID == "" || tsHeader == "" || sigHeader == "" {
		var missing []string
		if msgID == "" {
			missing = append(missing, HeaderID)
		}
		if tsHeader == "" {
			missing = append(missing, HeaderTimestamp)
		}
		if sigHeader == "" {
			missing = append(missing, HeaderSignature)
		}
		return "", time.Time{}, fmt.Errorf("%w: %s", ErrMissingHeaders, strings.Join(missing, ", "))
	}
	unix, err := parseTimestamp(tsHeader)
	if err != nil {
		return "", time.Time{}, err
	}

	// Collect the v1 signatures; other versions (v1a, ...) are skipped.
	var (
		candBuf    [4][sha256.Size]byte
		cands      = candBuf[:0]
		wellFormed bool
	)
	for rest := sigHeader; rest != ""; {
		var entry string
		entry, rest = nextField(rest)
		if entry == "" {
			break
		}
		version, sig, ok := strings.Cut(entry, ",")
		if !ok || version == "" || sig == "" {
			continue
		}
		wellFormed = true
		if version != "v1" {
			continue
		}
		var buf [sha256.Size + 2]byte // DecodedLen of 44 characters is 33
		if len(sig) != base64.StdEncoding.EncodedLen(sha256.Size) {
			continue
		}
		// Strict: the unused low bits of the last character must be zero,
		// so a signature has one spelling (the lenient decoder accepts
		// four for a 32-byte digest).
		n, err := strictBase64.Decode(buf[:], []byte(sig))
		if err != nil || n != sha256.Size {
			continue
		}
		cands = append(cands, [sha256.Size]byte(buf[:sha256.Size]))
	}
	if !wellFormed {
		return "", time.Time{}, fmt.Errorf("%w: webhook-signature holds no \"version,signature\" entry", ErrInvalidHeaders)
	}
	if len(cands) == 0 {
		return "", time.Time{}, fmt.Errorf("%w: webhook-signature holds no well-formed v1 signature", ErrInvalidSignature)
	}

	matched := false
	for _, key := range v.keys {
		want := signature(key, msgID, unix, body)
		for i := range cands {
			// Keep comparing after a match: the time spent does not
			// depend on which candidate matched.
			if hmac.Equal(want[:], cands[i][:]) {
				matched = true
			}
		}
	}
	if !matched {
		return "", time.Time{}, fmt.Errorf("%w: checked %d v1 signature(s) against %d secret(s)", ErrInvalidSignature, len(cands), len(v.keys))
	}

	ts := time.Unix(unix, 0)
	if tol := v.cfg.tolerance; tol > 0 {
		now := v.cfg.now()
		if d := now.Sub(ts); d > tol {
			return "", time.Time{}, fmt.Errorf("%w: webhook-timestamp is %s in the past, tolerance is %s", ErrTimestampTooOld, d.Truncate(time.Second), tol)
		}
		if d := ts.Sub(now); d > tol {
			return "", time.Time{}, fmt.Errorf("%w: webhook-timestamp is %s in the future, tolerance is %s", ErrTimestampTooNew, d.Truncate(time.Second), tol)
		}
	}
	return msgID, ts, nil
}
