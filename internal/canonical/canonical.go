// Package canonical writes the canonical JSON form of a value and its
// fingerprint, the one definition the SDK (agency.Fingerprint) and the mock
// server share.
//
// The canonical form of a JSON value: objects with their members sorted by
// key (bytewise, UTF-8), no insignificant whitespace, numbers in the shortest
// form that reads back as the same float64 (the encoding/json form: integers
// without exponent or fraction below 1e21), strings with only the escapes
// JSON requires (no HTML escaping; U+2028 and U+2029 are escaped as
// encoding/json does). Array order is kept. The fingerprint is the SHA-256 of
// the canonical form in 64 lowercase hexadecimal characters.
package canonical

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// JSON returns the canonical form of v: v is encoded with encoding/json,
// decoded into generic values and encoded again with sorted keys.
func JSON(v any) ([]byte, error) {
	raw, ok := v.(json.RawMessage)
	if !ok {
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	var generic any
	if err := json.Unmarshal(raw, &generic); err != nil {
		return nil, fmt.Errorf("canonical: %w", err)
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(generic); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Fingerprint returns the SHA-256 of the canonical form of v in 64
// lowercase hexadecimal characters.
func Fingerprint(v any) (string, error) {
	b, err := JSON(v)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}
