// Package jsonview encodes the mock server's responses and events as JSON:
// encoding/json without HTML escaping, followed by a newline.
package jsonview

import (
	"bytes"
	"encoding/json"
)

// EncodeJSON encodes v as encoding/json does, without HTML escaping and
// with a trailing newline.
func EncodeJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
