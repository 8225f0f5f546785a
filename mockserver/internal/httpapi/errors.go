package httpapi

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/jsonview"
)

// statuses is the one table of HTTP statuses: the status of an error
// response with each error code (spec section 7, document 2, and the codes
// the platform adds). A code it lacks is a 500.
//
// vendor_error has "4xx or 5xx" in the spec: it reports the voice
// provider's failure, and its response has the status that failure came
// with (the fault injected into the provider, which a *domain.Error holds
// as its Cause), the table's 500 when it has none.
var statuses = map[string]int{
	voiceagent.CodeUnauthorized:           http.StatusUnauthorized,
	voiceagent.CodeForbidden:              http.StatusForbidden,
	voiceagent.CodeNotFound:               http.StatusNotFound,
	voiceagent.CodeBadRequest:             http.StatusBadRequest,
	voiceagent.CodeInvalidRequest:         http.StatusBadRequest,
	voiceagent.CodeValidationError:        http.StatusBadRequest,
	voiceagent.CodeEmailExists:            http.StatusConflict,
	voiceagent.CodeNumberOnDNC:            http.StatusBadRequest,
	voiceagent.CodeNumberOptedOut:         http.StatusBadRequest,
	voiceagent.CodeContentBlocked:         http.StatusBadRequest,
	voiceagent.CodeTCPAViolation:          http.StatusBadRequest,
	voiceagent.CodeSMSSendFailed:          http.StatusInternalServerError,
	voiceagent.CodeVendorError:            http.StatusInternalServerError,
	voiceagent.CodeCallFailed:             http.StatusInternalServerError,
	voiceagent.CodePaymentRequired:        http.StatusPaymentRequired,
	voiceagent.CodeRateLimited:            http.StatusTooManyRequests,
	voiceagent.CodeInternalError:          http.StatusInternalServerError,
	voiceagent.CodeProvisioningFailed:     http.StatusServiceUnavailable,
	voiceagent.CodeIdempotencyConflict:    http.StatusConflict,
	voiceagent.CodeConflict:               http.StatusConflict,
	voiceagent.CodePayloadTooLarge:        http.StatusRequestEntityTooLarge,
	voiceagent.CodeNotImplemented:         http.StatusNotImplemented,
	voiceagent.CodeServiceUnavailable:     http.StatusServiceUnavailable,
	voiceagent.CodeMethodNotAllowed:       http.StatusMethodNotAllowed,
	voiceagent.CodeStaleRevision:          http.StatusConflict,
	voiceagent.CodeFingerprintMismatch:    http.StatusConflict,
	voiceagent.CodeInvalidState:           http.StatusConflict,
	voiceagent.CodeReconciliationRequired: http.StatusConflict,
	voiceagent.CodeApprovalRequired:       http.StatusForbidden,
}

// StatusOf returns the HTTP status of an error response with code.
func StatusOf(code string) int {
	if s, ok := statuses[code]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Error is an error response the pipeline makes itself with a status or
// headers of its own, beside its code's: a method not allowed (with
// Allow), a body that is not JSON (415), a rate limit (with RateLimit-*
// and Retry-After), the admin token's challenge, an injected fault (any
// status). Operations return a *domain.Error; ErrorResponse writes both.
type Error struct {
	Status  int // 0: the code's (StatusOf)
	Code    string
	Message string
	Details []domain.FieldError
	Header  http.Header
	// Transient is domain.Error's Transient: the failure of a dependency
	// that changed nothing (an injected dependency fault).
	Transient bool
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("%d %s: %s", e.status(), e.Code, e.Message)
}

// status is the error's status: its own, else its code's.
func (e *Error) status() int {
	if e.Status != 0 {
		return e.Status
	}
	return StatusOf(e.Code)
}

// newError returns an error response with a status of its own, a code and
// a message.
func newError(status int, code, message string) *Error {
	return &Error{Status: status, Code: code, Message: message}
}

// withHeader returns the error of e, a domain error, with the headers of
// its response.
func withHeader(e *domain.Error, h http.Header) *Error {
	return &Error{Code: e.Code, Message: e.Message, Details: e.Details, Header: h, Transient: e.Transient}
}

// isAPIError reports whether err is, or wraps, an error of the API (a
// *domain.Error or an *Error), which ErrorResponse shows as it is.
func isAPIError(err error) bool {
	var de *domain.Error
	var pe *Error
	return errors.As(err, &de) || errors.As(err, &pe)
}

// Status returns the HTTP status of the response ErrorResponse makes of err.
func Status(err error) int { return ErrorResponse(err).Status }

// ErrorResponse is the one error writer: it encodes err in the API's error
// format, {"error": {"code", "message", "details", ...}}, with its status
// and headers. A *domain.Error (found with errors.As) has its code's status
// (StatusOf), or that of the dependency's failure it reports (Cause, an
// injected fault); a *Error has its own; any other error is a 500
// internal_error (the caller logs it).
func ErrorResponse(err error) *Response {
	var de *domain.Error
	if errors.As(err, &de) {
		return domainResponse(de)
	}
	var pe *Error
	if errors.As(err, &pe) {
		return encodeError(pe.status(), pe.Header.Clone(), pe.Code, pe.Message, pe.Details, nil, nil, pe.Transient)
	}
	return domainResponse(domain.Internal())
}

// domainResponse is the response of a domain error.
func domainResponse(e *domain.Error) *Response {
	status, h := StatusOf(e.Code), http.Header{}
	var cause *Error
	if errors.As(e.Cause, &cause) {
		status, h = cause.status(), cause.Header.Clone()
		if h == nil {
			h = http.Header{}
		}
	}
	if e.RetryAfter > 0 {
		h.Set("Retry-After", strconv.Itoa(int(max((e.RetryAfter+time.Second-1)/time.Second, 1))))
	}
	if e.Final {
		h.Set(HeaderShouldRetry, "false")
	}
	return encodeError(status, h, e.Code, e.Message, e.Details, e.Extra, e.Result, e.Transient)
}

// encodeError encodes an error response.
func encodeError(status int, h http.Header, code, message string, details []domain.FieldError, extra, beside map[string]any, transient bool) *Response {
	obj := map[string]any{"code": code, "message": message}
	if len(details) > 0 {
		obj["details"] = details
	}
	for k, v := range extra {
		obj[k] = v
	}
	env := map[string]any{"error": obj}
	for k, v := range beside {
		env[k] = v
	}
	body, err := jsonview.EncodeJSON(env)
	if err != nil {
		body = []byte(`{"error":{"code":"internal_error","message":"encoding the error failed"}}`)
	}
	if h == nil {
		h = http.Header{}
	}
	return &Response{Status: status, Header: h, Body: body, Code: code, transient: transient}
}
