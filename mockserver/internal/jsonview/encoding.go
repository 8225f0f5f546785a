// Package jsonview encodes what the mock server shows as JSON: responses,
// events, delivery bodies, snapshot documents. It encodes as encoding/json
// does, without HTML escaping, with one difference: every time.Time is
// written in one form with a fixed precision (wire.TimeLayout: RFC 3339 in
// UTC with nine fractional digits), so that string order is time order.
// A string is written as given, whatever it looks like (invalid UTF-8
// becomes U+FFFD, as with encoding/json, written as the character).
package jsonview

import (
	stdjson "encoding/json"
	"errors"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/voiceagent/voiceagent-go/internal/wire"
)

// options are encoding/json's behaviour (the v1 options) without HTML
// escaping, with the two types whose encoding differs from it: time.Time
// (the fixed form) and encoding/json's Number, which this encoder would
// otherwise write as a string.
var options = json.JoinOptions(
	jsonv1.DefaultOptionsV1(),
	jsontext.EscapeForHTML(false),
	json.WithMarshalers(json.JoinMarshalers(
		json.MarshalToFunc(func(enc *jsontext.Encoder, t time.Time) error {
			var buf [48]byte
			b, err := wire.AppendTime(buf[:0], t)
			if err != nil {
				return err
			}
			return enc.WriteToken(jsontext.String(string(b)))
		}),
		json.MarshalToFunc(func(enc *jsontext.Encoder, n stdjson.Number) error {
			v := jsontext.Value(n)
			if n == "" {
				v = jsontext.Value("0")
			}
			if !v.IsValid() || v.Kind() != '0' {
				return errors.New("jsonview: invalid number literal " + string(n))
			}
			return enc.WriteValue(v)
		}),
	)),
)

// Marshal returns the JSON encoding of v.
func Marshal(v any) ([]byte, error) { return json.Marshal(v, options) }

// MustMarshal returns the JSON encoding of a value the server built
// itself, which cannot fail.
func MustMarshal(v any) []byte {
	b, err := json.Marshal(v, options)
	if err != nil {
		panic("mockserver: encoding " + err.Error())
	}
	return b
}

// EncodeJSON returns the JSON encoding of v followed by a newline, as
// encoding/json's Encoder writes it.
func EncodeJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v, options)
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}
