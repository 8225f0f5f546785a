// Package domain is what the mock server's domains say to their callers,
// in their own terms and below the HTTP pipeline: the domain error (one
// of the spec's error codes, a message, the fields at fault and the
// members the spec adds to an error) and the actor an operation acts for.
// An operation returns a *Error and takes an *Actor; only the pipeline
// (package httpapi) turns a code into an HTTP status, from one table.
package domain

import (
	"fmt"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go"
)

// FieldError names one field at fault: a JSON Pointer into the input (or a
// parameter's name) and what is wrong with it.
type FieldError struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Error is an operation's refusal or failure: the error code (one of the
// codes of the root package, voiceagent.Code), a message a user can act on, and what
// else the response says about it. The pipeline shows it as
// {"error": {"code", "message", "details", ...Extra}, ...Result}.
type Error struct {
	// Code is the error code.
	Code string
	// Message says what is wrong.
	Message string
	// Details name the fields at fault.
	Details []FieldError
	// Extra are more members of the error object (recovery_paths,
	// nextAllowedAt, currentRevision, ...).
	Extra map[string]any
	// Result is what the operation did before it failed, shown beside the
	// error (a signup whose provisioning partly failed shows its key and
	// links).
	Result map[string]any
	// Transient marks the failure of a dependency (the voice provider, the
	// carrier, storage) that changed nothing: a request that failed so is
	// not remembered under its Idempotency-Key, so that a retry runs again.
	Transient bool
	// Final says that sending the same request again cannot succeed by
	// itself (a wait on the simulated clock, an account that exists in
	// part): clients are told not to retry.
	Final bool
	// RetryAfter is how long to wait before trying again (0: not said).
	RetryAfter time.Duration
	// Cause is the dependency's failure the error reports, as the fault
	// injection reported it (nil: none). Unwrap returns it.
	Cause error
}

// Error returns the code and the message.
func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Unwrap returns the dependency's failure the error reports, or nil.
func (e *Error) Unwrap() error { return e.Cause }

// With adds a member to the error object and returns e.
func (e *Error) With(key string, v any) *Error {
	if e.Extra == nil {
		e.Extra = map[string]any{}
	}
	e.Extra[key] = v
	return e
}

// Under returns a copy of e, a validation error of a value that an input
// carries at the JSON Pointer under: each detail's path is put under it,
// and the message says that what failed validation at the first. An error
// without details is returned as it is.
func (e *Error) Under(under, what string) *Error {
	if len(e.Details) == 0 {
		return e
	}
	out := *e
	out.Details = make([]FieldError, len(e.Details))
	for i, d := range e.Details {
		p := strings.TrimSuffix(d.Path, "/")
		if p != "" && !strings.HasPrefix(p, "/") {
			p = "/" + p // a field named without the pointer's slash
		}
		d.Path = under + p
		out.Details[i] = d
	}
	out.Message = what + " failed validation: " + out.Details[0].Path + ": " + out.Details[0].Message
	return &out
}

// New returns an error with a code and a message.
func New(code, message string) *Error { return &Error{Code: code, Message: message} }

// Errorf returns an error with a code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return New(code, fmt.Sprintf(format, args...))
}

// Dependency returns the failure of a dependency that changed nothing
// (Transient): a retry with the same Idempotency-Key runs again.
func Dependency(code, message string) *Error {
	return &Error{Code: code, Message: message, Transient: true}
}

// NotFound is not_found: a record that is absent or that the caller may
// not see (the two look the same).
func NotFound(message string) *Error { return New(voiceagent.CodeNotFound, message) }

// Forbidden is forbidden: the caller lacks a scope or access.
func Forbidden(message string) *Error { return New(voiceagent.CodeForbidden, message) }

// Unauthorized is unauthorized: no valid credential.
func Unauthorized(message string) *Error { return New(voiceagent.CodeUnauthorized, message) }

// Conflict is conflict: the request conflicts with the current state.
func Conflict(format string, args ...any) *Error {
	return Errorf(voiceagent.CodeConflict, format, args...)
}

// Invalid is invalid_request: input that failed validation.
func Invalid(format string, args ...any) *Error {
	return Errorf(voiceagent.CodeInvalidRequest, format, args...)
}

// InvalidField is Invalid about one field: the message names the field,
// the details hold it.
func InvalidField(path, format string, args ...any) *Error {
	msg := fmt.Sprintf(format, args...)
	e := New(voiceagent.CodeInvalidRequest, path+": "+msg)
	e.Details = []FieldError{{Path: path, Message: msg}}
	return e
}

// MissingParam is bad_request: a required query parameter is missing.
func MissingParam(name string) *Error {
	return New(voiceagent.CodeBadRequest, "missing required query parameter: "+name)
}

// Internal is internal_error: an unexpected failure of the mock itself,
// whose details go to the server's log only.
func Internal() *Error { return New(voiceagent.CodeInternalError, "internal error") }
