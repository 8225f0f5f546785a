package mockserver

import (
	"fmt"
	"net/http"
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

// rawBody is a handler answer sent as is, with its content type, instead of
// being encoded as JSON.
type rawBody struct {
	contentType string
	body        []byte
}

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
