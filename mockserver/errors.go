package mockserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync"
)

// Error codes (spec section 7 and the mock's additions).
const (
	codeUnauthorized        = "unauthorized"
	codeForbidden           = "forbidden"
	codeNotFound            = "not_found"
	codeBadRequest          = "bad_request"
	codeInvalidRequest      = "invalid_request"
	codeValidationError     = "validation_error"
	codeRateLimited         = "rate_limited"
	codeInternalError       = "internal_error"
	codeIdempotencyConflict = "idempotency_conflict"
	codeConflict            = "conflict"
	codePayloadTooLarge     = "payload_too_large"
	codeMethodNotAllowed    = "method_not_allowed"
	codeNotImplemented      = "not_implemented"
	codeServiceUnavailable  = "service_unavailable"
	codeVendorError         = "vendor_error"
)

// fieldError names one field that failed validation.
type fieldError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// apiError is every error answer of the API: {"error": {code, message, ...}}.
// It is the one error type handlers return; writeError is its one writer.
type apiError struct {
	status  int
	code    string
	message string
	details []fieldError
	extra   map[string]any // more members of "error" (recovery_paths, nextAllowedAt)
	top     map[string]any // members beside "error" (signup's provisioning_failed)
	header  http.Header
}

func (e *apiError) Error() string { return fmt.Sprintf("%d %s: %s", e.status, e.code, e.message) }

func newError(status int, code, message string) *apiError {
	return &apiError{status: status, code: code, message: message}
}

// with adds a member to the error object.
func (e *apiError) with(key string, v any) *apiError {
	if e.extra == nil {
		e.extra = map[string]any{}
	}
	e.extra[key] = v
	return e
}

func errNotFound(msg string) *apiError { return newError(http.StatusNotFound, codeNotFound, msg) }
func errForbidden(msg string) *apiError {
	return newError(http.StatusForbidden, codeForbidden, msg)
}
func errUnauthorized(msg string) *apiError {
	return newError(http.StatusUnauthorized, codeUnauthorized, msg)
}

// errInternal is an unexpected failure of the mock itself: 500
// internal_error, details in the server's log only.
func errInternal() *apiError {
	return newError(http.StatusInternalServerError, codeInternalError, "internal error")
}

// errMissingParam is a missing query parameter: 400 bad_request.
func errMissingParam(name string) *apiError {
	return newError(http.StatusBadRequest, codeBadRequest, "missing required query parameter: "+name)
}

// errInvalid is a body or parameter that failed validation: 400 invalid_request.
func errInvalid(format string, args ...any) *apiError {
	return newError(http.StatusBadRequest, codeInvalidRequest, fmt.Sprintf(format, args...))
}

// errInvalidField is errInvalid naming the field in details.
func errInvalidField(path, format string, args ...any) *apiError {
	msg := fmt.Sprintf(format, args...)
	e := errInvalid("%s: %s", path, msg)
	e.details = []fieldError{{Path: path, Message: msg}}
	return e
}

// response is a finished answer: status, headers and the encoded body.
type response struct {
	status int
	header http.Header
	body   []byte
	// pooled, when set, is the pooled buffer body lives in: the pipeline
	// hands it back (free) once the answer is written.
	pooled *[]byte
}

// free hands a pooled body's buffer back; the body must not be used after.
func (r *response) free() {
	if r.pooled != nil {
		releaseBuffer(r.pooled)
		r.pooled, r.body = nil, nil
	}
}

// withHeader returns a copy of the answer with h added to its headers.
func (r *response) withHeader(h http.Header) *response {
	c := &response{status: r.status, header: r.header.Clone(), body: r.body, pooled: r.pooled}
	if c.header == nil {
		c.header = http.Header{}
	}
	for k, vs := range h {
		c.header[k] = vs
	}
	return c
}

// respond lets a handler choose the status and headers of a success.
type respond struct {
	status int
	body   any
	header http.Header
}

// created answers 201 with body.
func created(body any) *respond { return &respond{status: http.StatusCreated, body: body} }

// errorResponse encodes e in the API's error format.
func errorResponse(e *apiError) *response {
	obj := map[string]any{"code": e.code, "message": e.message}
	if len(e.details) > 0 {
		obj["details"] = e.details
	}
	for k, v := range e.extra {
		obj[k] = v
	}
	env := map[string]any{"error": obj}
	for k, v := range e.top {
		env[k] = v
	}
	body, err := encodeJSON(env)
	if err != nil {
		body = []byte(`{"error":{"code":"internal_error","message":"encoding the error failed"}}`)
	}
	h := e.header.Clone()
	if h == nil {
		h = http.Header{}
	}
	return &response{status: e.status, header: h, body: body}
}

// encodeJSON encodes v without HTML escaping and with a trailing newline;
// a view that writes its own JSON (jsonAppender) does so. The encoding
// happens in a pooled buffer and the answer is an exact-size copy, so an
// answer costs one allocation of its own size instead of the garbage of a
// buffer grown by doubling.
func encodeJSON(v any) ([]byte, error) {
	bp := encodeBuffers.Get().(*[]byte)
	defer releaseBuffer(bp)
	b, err := encodeInto(bp, v)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(b), nil
}

// encodePooled is encodeJSON without the copy: the answer lives in a
// pooled buffer that the caller hands back with releaseBuffer once the
// answer is written (GET answers, which nothing keeps).
func encodePooled(v any) ([]byte, *[]byte, error) {
	bp := encodeBuffers.Get().(*[]byte)
	b, err := encodeInto(bp, v)
	if err != nil {
		releaseBuffer(bp)
		return nil, nil, err
	}
	return b, bp, nil
}

// encodeInto encodes v into the buffer *bp (growing it as needed) and
// returns the encoding.
func encodeInto(bp *[]byte, v any) ([]byte, error) {
	var b []byte
	if a, ok := v.(jsonAppender); ok {
		b = append(a.appendJSON((*bp)[:0]), '\n')
	} else {
		buf := bytes.NewBuffer((*bp)[:0])
		enc := json.NewEncoder(buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return nil, err
		}
		b = buf.Bytes()
	}
	*bp = b[:0]
	return b, nil
}

// releaseBuffer returns an encoding buffer to the pool (unless it grew too
// big to keep).
func releaseBuffer(bp *[]byte) {
	if cap(*bp) <= maxPooledBuffer {
		encodeBuffers.Put(bp)
	}
}

// maxPooledBuffer bounds the encoding buffers kept for reuse (a page of
// 100 leads takes about 45 KiB).
const maxPooledBuffer = 256 << 10

var encodeBuffers = sync.Pool{New: func() any { return new([]byte) }}

// writeResponse writes a finished answer.
func writeResponse(w http.ResponseWriter, resp *response) {
	h := w.Header()
	for k, vs := range resp.header {
		h[k] = vs
	}
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/json")
	}
	w.WriteHeader(resp.status)
	_, _ = w.Write(resp.body)
}
