package httpapi

import (
	"fmt"
	"net/http"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
)

// FieldError names one field that failed validation.
type FieldError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Error is every error response of the API: {"error": {code, message, ...}}.
// It is the one error type handlers return; ErrorResponse turns it into
// the Response that writeResponse writes.
type Error struct {
	Status  int
	Code    string
	Message string
	Details []FieldError
	extra   map[string]any // more members of "error" (recovery_paths, nextAllowedAt)
	Top     map[string]any // members beside "error" (signup's provisioning_failed)
	Header  http.Header
	// Transient marks the failure of a dependency (the voice provider, the
	// carrier, storage, an injected dependency fault) that changed
	// nothing: a 5xx response so marked is not remembered under the
	// request's Idempotency-Key, so a retry runs again (see
	// docs/mockserver.md, section Idempotency).
	Transient bool
}

// Error implements error.
func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// NewError returns an error response with a status, a code and a message.
func NewError(status int, code, message string) *Error {
	return &Error{Status: status, Code: code, Message: message}
}

// With adds a member to the error object.
func (e *Error) With(key string, v any) *Error {
	if e.extra == nil {
		e.extra = map[string]any{}
	}
	e.extra[key] = v
	return e
}

// DependencyError is the failure of a dependency that changed nothing
// (Transient): a retry with the same Idempotency-Key runs again.
func DependencyError(status int, code, message string) *Error {
	e := NewError(status, code, message)
	e.Transient = true
	return e
}

// NotFound is a 404 not_found.
func NotFound(msg string) *Error { return NewError(http.StatusNotFound, voiceagent.CodeNotFound, msg) }

// Forbidden is a 403 forbidden.
func Forbidden(msg string) *Error {
	return NewError(http.StatusForbidden, voiceagent.CodeForbidden, msg)
}

// Unauthorized is a 401 unauthorized.
func Unauthorized(msg string) *Error {
	return NewError(http.StatusUnauthorized, voiceagent.CodeUnauthorized, msg)
}

// Internal is an unexpected failure of the mock itself: 500
// internal_error, details in the server's log only.
func Internal() *Error {
	return NewError(http.StatusInternalServerError, voiceagent.CodeInternalError, "internal error")
}

// MissingParam is a missing query parameter: 400 bad_request.
func MissingParam(name string) *Error {
	return NewError(http.StatusBadRequest, voiceagent.CodeBadRequest, "missing required query parameter: "+name)
}

// Invalid is a body or parameter that failed validation: 400 invalid_request.
func Invalid(format string, args ...any) *Error {
	return NewError(http.StatusBadRequest, voiceagent.CodeInvalidRequest, fmt.Sprintf(format, args...))
}

// InvalidField is Invalid naming the field in details.
func InvalidField(path, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	e := Invalid("%s: %s", path, msg)
	e.Details = []FieldError{{Path: path, Message: msg}}
	return e
}

// ErrorResponse encodes e in the API's error format.
func ErrorResponse(e *Error) *Response {
	obj := map[string]any{"code": e.Code, "message": e.Message}
	if len(e.Details) > 0 {
		obj["details"] = e.Details
	}
	for k, v := range e.extra {
		obj[k] = v
	}
	env := map[string]any{"error": obj}
	for k, v := range e.Top {
		env[k] = v
	}
	body, err := jsonview.EncodeJSON(env)
	if err != nil {
		body = []byte(`{"error":{"code":"internal_error","message":"encoding the error failed"}}`)
	}
	h := e.Header.Clone()
	if h == nil {
		h = http.Header{}
	}
	return &Response{Status: e.Status, Header: h, Body: body, Code: e.Code, transient: e.Transient}
}
