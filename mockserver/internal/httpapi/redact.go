package httpapi

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
)

// What the journal never keeps: the secrets a request or its response may
// carry are replaced before an entry is stored, so neither GET
// /_mock/requests, the dashboard nor a Go test reading the journal sees
// them. The rules are in docs/mockserver.md, section "Request journal".

// redactedValue replaces a secret in a body or a header value.
const redactedValue = "[redacted]"

// secretMembers are JSON members whose values the journal never keeps, at
// any depth of a body: every string and number inside them is replaced
// (object member names are kept, so custom_headers still shows which
// headers were set). The outbox is where tests read OTP codes; the
// journal does not repeat them.
var secretMembers = []string{"custom_headers", "otp_code", "password", "replay_token", "secret", "secrets", "session", "token"}

// maySecretMember reports whether a body may name one of secretMembers: a
// quoted name, or a \u escape (a member name may be written with escapes).
// One pass over the quotes: most bodies have none of the names, and the
// journal checks every body.
func maySecretMember(body []byte) bool {
	if bytes.IndexByte(body, '\\') >= 0 && bytes.Contains(body, []byte(`\u`)) {
		return true
	}
	for {
		i := bytes.IndexByte(body, '"')
		if i < 0 {
			return false
		}
		body = body[i+1:]
		if len(body) == 0 {
			return false
		}
		switch body[0] {
		case 'c', 'o', 'p', 'r', 's', 't':
			for _, m := range secretMembers {
				if len(body) > len(m) && body[len(m)] == '"' && string(body[:len(m)]) == m {
					return true
				}
			}
		}
	}
}

// Secret values recognised wherever they appear, in bodies and header
// values: API keys (their shown prefix is kept), signing secrets, and
// secret parameters of URLs (the signup's dashboard_magic_link).
var (
	keyValue    = regexp.MustCompile(`voiceagent_live_[0-9A-Za-z]{40}`)
	signingKey  = regexp.MustCompile(`whsec_[0-9A-Za-z+/]+=*`)
	secretInURL = regexp.MustCompile(`([?&](?:` + strings.Join(secretParams, "|") + `)=)[^&"'\s\\#]+`)
)

// mayHoldSecretValue reports whether s may hold a value redactValues
// replaces: each has an underscore (keys, signing secrets) or an equals
// sign (URL parameters), which most header values lack.
func mayHoldSecretValue(s string) bool {
	return strings.IndexByte(s, '_') >= 0 || strings.IndexByte(s, '=') >= 0
}

// holdsSecretValue reports whether redactValues would change s.
func holdsSecretValue(s []byte) bool {
	if bytes.IndexByte(s, '_') < 0 && bytes.IndexByte(s, '=') < 0 {
		return false
	}
	if bytes.Contains(s, []byte(KeyPrefix)) && keyValue.Match(s) || bytes.Contains(s, []byte("whsec_")) && signingKey.Match(s) {
		return true
	}
	return holdsSecretParam(s)
}

// holdsSecretParam reports whether secretInURL matches s: a secret
// parameter (secretParams) preceded by '?' or '&' and followed by "=" and
// a character of a value. It finds what the expression finds in one pass
// over the equals signs, without running the expression, which is slow on
// long texts.
func holdsSecretParam(s []byte) bool {
	for i := bytes.IndexByte(s, '='); i >= 0; {
		if i+1 < len(s) && strings.IndexByte("&\"'\t\n\f\r \\#", s[i+1]) < 0 {
			for _, p := range secretParams {
				if at := i - len(p); at > 0 && string(s[at:i]) == p && (s[at-1] == '?' || s[at-1] == '&') {
					return true
				}
			}
		}
		next := bytes.IndexByte(s[i+1:], '=')
		if next < 0 {
			return false
		}
		i += 1 + next
	}
	return false
}

// plainForJournal reports whether the journal keeps b as it is: b names
// none of secretMembers and holds none of the values redactValues
// replaces.
func plainForJournal(b []byte) bool {
	return !maySecretMember(b) && !holdsSecretValue(b)
}

// redactValues replaces the secret values that keyValue, signingKey and
// secretInURL recognise in s.
func redactValues(s string) string {
	if !mayHoldSecretValue(s) {
		return s
	}
	if strings.Contains(s, KeyPrefix) {
		s = keyValue.ReplaceAllStringFunc(s, func(k string) string { return k[:KeyShownLen] + redactedValue })
	}
	if strings.Contains(s, "whsec_") {
		s = signingKey.ReplaceAllString(s, "whsec_"+redactedValue)
	}
	for _, p := range secretParams {
		if strings.Contains(s, p+"=") {
			s = secretInURL.ReplaceAllString(s, "${1}REDACTED")
			break
		}
	}
	return s
}

// redactMembersOf is body with the values of secretMembers replaced when
// it may name one. cut says body is the start of a longer body: a JSON
// text that ends early is redacted up to where it ends. A body naming a
// member that is not valid JSON is replaced whole. The secret values
// redactValues finds are left to the caller.
func redactMembersOf(body []byte, cut bool) []byte {
	if !maySecretMember(body) {
		return body
	}
	out, err := redactMembers(body, cut)
	if err != nil {
		return []byte(redactedValue + " (not valid JSON, and may name a secret member)")
	}
	return out
}

// redactMembers rewrites a JSON text with the values of secretMembers
// replaced, keeping the order of members (the text comes out compact).
// With cut, the text may end early: the token it ends in is kept as it is
// unless it is a secret member's.
func redactMembers(body []byte, cut bool) ([]byte, error) {
	type frame struct {
		object, wantKey, secret bool
		n                       int // values (members) written so far
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var out bytes.Buffer
	var stack []frame
	pending := false // the next value is a secret member's
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if !cut || !errors.Is(err, io.ErrUnexpectedEOF) {
				return nil, err
			}
			if !pending && (len(stack) == 0 || !stack[len(stack)-1].secret) {
				out.Write(body[dec.InputOffset():])
			}
			break
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			out.WriteByte(byte(d))
			stack = stack[:len(stack)-1]
			continue
		}
		var top *frame
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if top != nil && top.object && top.wantKey {
			name, _ := tok.(string)
			if top.n > 0 {
				out.WriteByte(',')
			}
			top.n++
			writeJSONString(&out, name)
			out.WriteByte(':')
			top.wantKey = false
			pending = top.secret || slices.Contains(secretMembers, name)
			continue
		}
		secret := pending || (top != nil && top.secret)
		pending = false
		if top != nil {
			if top.object {
				top.wantKey = true
			} else {
				if top.n > 0 {
					out.WriteByte(',')
				}
				top.n++
			}
		}
		switch v := tok.(type) {
		case json.Delim:
			out.WriteByte(byte(v))
			stack = append(stack, frame{object: v == '{', wantKey: v == '{', secret: secret})
		case string:
			if secret {
				v = redactedValue
			}
			writeJSONString(&out, v)
		case json.Number:
			if secret {
				writeJSONString(&out, redactedValue)
			} else {
				out.WriteString(v.String())
			}
		case bool:
			if v {
				out.WriteString("true")
			} else {
				out.WriteString("false")
			}
		case nil:
			out.WriteString("null")
		}
	}
	return out.Bytes(), nil
}

// writeJSONString writes s as a JSON string, without escaping HTML
// characters (the journal shows bodies as they were).
func writeJSONString(out *bytes.Buffer, s string) {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	out.Truncate(out.Len() - 1)
}

// appendHeaderText appends to text the name and the value of each value
// of h as the journal keeps them (see appendRedactedValue), each one
// preceded by its length (headerLen), and returns it with the number of
// pairs appended. A name or a redacted value is cut as Truncate cuts it
// at MaxJournalField bytes, and the pairs stop before the text appended
// would pass maxHeaderText bytes. The journal keeps headers as such texts
// (headerOfText reads them back).
func appendHeaderText(text []byte, h http.Header) ([]byte, int) {
	start, pairs := len(text), 0
	for name, vs := range h {
		for _, v := range vs {
			before := len(text)
			text = appendTruncated(binary.LittleEndian.AppendUint32(text, 0), name, MaxJournalField)
			text = endHeaderString(text, before)
			at := len(text)
			text = appendRedactedValue(binary.LittleEndian.AppendUint32(text, 0), name, v)
			if redacted := text[at+headerLen:]; len(redacted) > MaxJournalField {
				// Cut after redacting, so that no secret is cut in two.
				text = appendTruncated(text[:at+headerLen], string(redacted), MaxJournalField)
			}
			text = endHeaderString(text, at)
			if len(text)-start > maxHeaderText {
				return text[:before], pairs
			}
			pairs++
		}
	}
	return text, pairs
}

// maxHeaderText bounds the header text of a request or a response the
// journal keeps (16 KiB).
const maxHeaderText = JournalBodyCap

// endHeaderString writes the length of the string appended to text after
// its length's place at at.
func endHeaderString(text []byte, at int) []byte {
	binary.LittleEndian.PutUint32(text[at:], uint32(len(text)-at-headerLen))
	return text
}

// headerLen is the size of the length before each string of a header
// text.
const headerLen = 4

// headerOfText makes pairs name and value pairs of a header text
// (appendHeaderText) a header, with room for extra more names, and
// returns the rest of the text.
func headerOfText(text []byte, pairs, extra int) (http.Header, []byte) {
	h := make(http.Header, pairs+extra)
	next := func() string {
		n := int(binary.LittleEndian.Uint32(text))
		s := string(text[headerLen : headerLen+n])
		text = text[headerLen+n:]
		return s
	}
	for range pairs {
		name := next()
		h[name] = append(h[name], next())
	}
	return h, text
}

// appendRedactedValue appends a header value as the journal keeps it:
// credentials replaced (Authorization and Proxy-Authorization keep their
// scheme and a key's shown prefix, cookies their names, X-PAYMENT
// nothing), and the secret values redactValues finds replaced in every
// other header.
func appendRedactedValue(text []byte, name, v string) []byte {
	switch name {
	case "Authorization", "Proxy-Authorization":
		return appendRedactedCredentials(text, v)
	case "Cookie", "Set-Cookie":
		return append(text, redactCookies(v, name == "Set-Cookie")...)
	case "X-Payment":
		return append(text, redactedValue...)
	default:
		return append(text, redactValues(v)...)
	}
}

// appendRedactedCredentials appends an Authorization value with its
// scheme and, for an API key, its shown prefix kept.
func appendRedactedCredentials(text []byte, v string) []byte {
	scheme, cred, ok := strings.Cut(v, " ")
	if !ok {
		return append(text, redactedValue...)
	}
	text = append(append(text, scheme...), ' ')
	if cred = strings.TrimSpace(cred); isKeyValue(cred) {
		text = append(text, cred[:KeyShownLen]...)
	}
	return append(text, redactedValue...)
}

// isKeyValue reports whether s is an API key and nothing else (keyValue
// matching all of s), without a regular expression: it is checked on
// every request's Authorization header.
func isKeyValue(s string) bool {
	if len(s) != len(KeyPrefix)+KeyRandomLen || !strings.HasPrefix(s, KeyPrefix) {
		return false
	}
	for i := len(KeyPrefix); i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'A' <= c && c <= 'Z' || 'a' <= c && c <= 'z') {
			return false
		}
	}
	return true
}

// redactCookies keeps the names of a Cookie value, or the name and the
// attributes of a Set-Cookie value, never a cookie's value.
func redactCookies(v string, set bool) string {
	parts := strings.Split(v, ";")
	for i, p := range parts {
		name, _, ok := strings.Cut(p, "=")
		if !ok || (set && i > 0 && isCookieAttribute(name)) {
			continue // Path=/, Expires=..., Max-Age=...: not secrets
		}
		parts[i] = name + "=" + redactedValue
	}
	return strings.Join(parts, ";")
}

// isCookieAttribute reports whether name is an attribute of a Set-Cookie
// value rather than a cookie.
func isCookieAttribute(name string) bool {
	switch strings.ToLower(strings.TrimSpace(name)) {
	case "path", "domain", "expires", "max-age", "samesite", "priority":
		return true
	}
	return false
}
