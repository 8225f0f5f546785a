package httpapi

import (
	"bytes"
	"sync"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
)

// Encoded is a GET answer encoded before run writes it: by its handler
// (EncodedPage.EncodeNow), or once for every read (Constant). Body must
// not be changed: it may be shared, or in a pooled buffer that goes back
// to its pool once the answer is written.
type Encoded struct {
	Body          []byte
	pooled        *[]byte
	plain, shared bool
}

// encode implements encodedAnswer.
func (e Encoded) encode() (body []byte, pooled *[]byte, plain, shared bool) {
	return e.Body, e.pooled, e.plain, e.shared
}

// AppendJSON implements jsonview.JSONAppender: where an answer is not
// written as it is (a kept idempotent answer), it is copied.
func (e Encoded) AppendJSON(b []byte) []byte {
	return append(b, bytes.TrimSuffix(e.Body, []byte("\n"))...) // the encoding's own line end goes
}

// Constant returns the answer of a value that never changes (a fixed
// catalog): encoded once (jsonview.AppendValue, which panics on a value
// it cannot encode), on its first use, and shared by every read after.
func Constant(v any) func() Encoded {
	return sync.OnceValue(func() Encoded {
		body := append(jsonview.AppendValue(nil, v), '\n')
		return Encoded{Body: body, plain: plainForJournal(body), shared: true}
	})
}
