package voiceagent

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Error codes of the API: every code of spec section 7, the codes the
// platform adds, and the refinements of the agency commands (document 2).
// The comment of each names the HTTP status it comes with.
//
// This block is the one definition of the codes: the mock server responds
// with these, and a test holds the OpenAPI documents' error code enums
// equal to it.
const (
	CodeUnauthorized    = "unauthorized"     // 401: key missing, invalid, expired or revoked
	CodeForbidden       = "forbidden"        // 403: key lacks scope or business access
	CodeNotFound        = "not_found"        // 404: resource absent or not accessible
	CodeBadRequest      = "bad_request"      // 400: a required query parameter is missing
	CodeInvalidRequest  = "invalid_request"  // 400: invalid JSON, missing fields or failed validation
	CodeValidationError = "validation_error" // 400: a signup field failed validation
	CodeEmailExists     = "email_exists"     // 409: the signup email is already registered
	CodeNumberOnDNC     = "number_on_dnc"    // 400: recipient on the do-not-call list
	CodeNumberOptedOut  = "number_opted_out" // 400: recipient has not opted in, or has opted out, of SMS
	CodeContentBlocked  = "content_blocked"  // 400: SMS content failed the compliance check
	CodeTCPAViolation   = "tcpa_violation"   // 400: consent-law compliance violation
	CodeSMSSendFailed   = "sms_send_failed"  // 500: SMS delivery failed
	CodeVendorError     = "vendor_error"     // 4xx or 5xx: the voice provider failed
	CodeCallFailed      = "call_failed"      // 500: the outbound call could not be placed
	CodePaymentRequired = "payment_required" // 402: payment header required (signup)
	CodeRateLimited     = "rate_limited"     // 429: too many requests
	CodeInternalError   = "internal_error"   // 500: unexpected error

	// Codes the platform adds to spec section 7.
	CodeProvisioningFailed  = "provisioning_failed"  // 503: signup provisioning partly failed
	CodeIdempotencyConflict = "idempotency_conflict" // 409: Idempotency-Key reused with another body
	CodeConflict            = "conflict"             // 409: the request conflicts with the current state
	CodePayloadTooLarge     = "payload_too_large"    // 413: the request body is too large
	CodeNotImplemented      = "not_implemented"      // 501: the operation is not implemented
	CodeServiceUnavailable  = "service_unavailable"  // 503: the service cannot answer now
	CodeMethodNotAllowed    = "method_not_allowed"   // 405: the path does not take this method

	// Refinements of 409 and 403 on the agency commands (document 2).
	CodeStaleRevision          = "stale_revision"          // 409: expectedRevision is not the current revision
	CodeFingerprintMismatch    = "fingerprint_mismatch"    // 409: the fingerprint is not the content's
	CodeInvalidState           = "invalid_state"           // 409: the record's state does not allow the command
	CodeReconciliationRequired = "reconciliation_required" // 409: the provider's outcome must be reconciled first
	CodeApprovalRequired       = "approval_required"       // 403: the exact owner approval is missing
)

// ErrorDetail names one field that failed validation.
type ErrorDetail struct {
	Path    string `json:"path"`
	Message string `json:"message"`
}

// Error is a non-2xx answer of the API. Compare with errors.Is against the
// sentinels below (same Code matches) or read it with errors.As.
type Error struct {
	// StatusCode is the HTTP status.
	StatusCode int `json:"-"`
	// Code is the API error code, one of the Code constants.
	Code string `json:"code"`
	// Message is the human-readable explanation.
	Message string `json:"message"`
	// Details lists field failures, when the API names them.
	Details []ErrorDetail `json:"details,omitempty"`
	// RecoveryPaths tells how to resume (signup errors).
	RecoveryPaths map[string]string `json:"recovery_paths,omitempty"`
	// NextAllowedAt is when a cadence-limited action becomes allowed (SDR).
	NextAllowedAt *time.Time `json:"nextAllowedAt,omitempty"`
	// RequestID is the X-Request-Id of the answer.
	RequestID string `json:"-"`
	// RetryAfter is the Retry-After of the answer, when it had one.
	RetryAfter time.Duration `json:"-"`
	// Body is the raw response body, for fields this type does not model.
	Body []byte `json:"-"`
}

// Error implements error. It never contains credentials.
func (e *Error) Error() string {
	s := fmt.Sprintf("voiceagent: %d %s: %s", e.StatusCode, e.Code, e.Message)
	if e.RequestID != "" {
		s += " (request " + e.RequestID + ")"
	}
	return s
}

// Is reports whether target is an *Error with the same Code (and the same
// StatusCode when target sets one), so errors.Is(err, ErrNotFound) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	if !ok {
		return false
	}
	return t.Code == e.Code && (t.StatusCode == 0 || t.StatusCode == e.StatusCode)
}

// ErrEmptyID is the error of a call that names a record by an empty id
// (calls.Get(ctx, ""), ...): the SDK refuses it before sending anything.
// Match it with errors.Is(err, voiceagent.ErrEmptyID).
var ErrEmptyID = errors.New("voiceagent: empty id")

// Sentinel errors for errors.Is; they match any *Error with the same code.
var (
	ErrUnauthorized        = &Error{Code: CodeUnauthorized}
	ErrForbidden           = &Error{Code: CodeForbidden}
	ErrNotFound            = &Error{Code: CodeNotFound}
	ErrBadRequest          = &Error{Code: CodeBadRequest}
	ErrInvalidRequest      = &Error{Code: CodeInvalidRequest}
	ErrValidation          = &Error{Code: CodeValidationError}
	ErrEmailExists         = &Error{Code: CodeEmailExists}
	ErrNumberOnDNC         = &Error{Code: CodeNumberOnDNC}
	ErrNumberOptedOut      = &Error{Code: CodeNumberOptedOut}
	ErrContentBlocked      = &Error{Code: CodeContentBlocked}
	ErrTCPAViolation       = &Error{Code: CodeTCPAViolation}
	ErrSMSSendFailed       = &Error{Code: CodeSMSSendFailed}
	ErrVendor              = &Error{Code: CodeVendorError}
	ErrCallFailed          = &Error{Code: CodeCallFailed}
	ErrPaymentRequired     = &Error{Code: CodePaymentRequired}
	ErrRateLimited         = &Error{Code: CodeRateLimited}
	ErrInternal            = &Error{Code: CodeInternalError}
	ErrProvisioningFailed  = &Error{Code: CodeProvisioningFailed}
	ErrIdempotencyConflict = &Error{Code: CodeIdempotencyConflict}
	ErrConflict            = &Error{Code: CodeConflict}
	ErrPayloadTooLarge     = &Error{Code: CodePayloadTooLarge}
	ErrNotImplemented      = &Error{Code: CodeNotImplemented}
	ErrServiceUnavailable  = &Error{Code: CodeServiceUnavailable}

	ErrStaleRevision          = &Error{Code: CodeStaleRevision}
	ErrFingerprintMismatch    = &Error{Code: CodeFingerprintMismatch}
	ErrInvalidState           = &Error{Code: CodeInvalidState}
	ErrReconciliationRequired = &Error{Code: CodeReconciliationRequired}
	ErrApprovalRequired       = &Error{Code: CodeApprovalRequired}
	ErrMethodNotAllowed       = &Error{Code: CodeMethodNotAllowed}
)

// errorFromResponse decodes a non-2xx answer. A body that is not in the
// API's error format still gives an *Error, with a code derived from the
// status; a member of the error object with an unexpected shape is skipped
// without losing the others.
func errorFromResponse(resp *http.Response, body []byte) *Error {
	e := &Error{StatusCode: resp.StatusCode, Body: body, RequestID: resp.Header.Get(HeaderRequestID)}
	var env struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &env) == nil && len(env.Error) > 0 {
		var obj map[string]json.RawMessage
		if json.Unmarshal(env.Error, &obj) == nil {
			_ = json.Unmarshal(obj["code"], &e.Code)
			_ = json.Unmarshal(obj["message"], &e.Message)
			_ = json.Unmarshal(obj["details"], &e.Details)
			_ = json.Unmarshal(obj["recovery_paths"], &e.RecoveryPaths)
			var at time.Time
			if json.Unmarshal(obj["nextAllowedAt"], &at) == nil && !at.IsZero() {
				e.NextAllowedAt = &at
			}
		} else {
			// {"error": "text"} form.
			_ = json.Unmarshal(env.Error, &e.Message)
		}
	}
	if ra, ok := retryAfter(resp); ok {
		e.RetryAfter = ra
	}
	if e.Code == "" {
		e.Code = codeForStatus(resp.StatusCode)
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	return e
}

func codeForStatus(status int) string {
	switch status {
	case http.StatusBadRequest:
		return CodeBadRequest
	case http.StatusUnauthorized:
		return CodeUnauthorized
	case http.StatusPaymentRequired:
		return CodePaymentRequired
	case http.StatusForbidden:
		return CodeForbidden
	case http.StatusNotFound:
		return CodeNotFound
	case http.StatusConflict:
		return CodeConflict
	case http.StatusRequestEntityTooLarge:
		return CodePayloadTooLarge
	case http.StatusTooManyRequests:
		return CodeRateLimited
	case http.StatusNotImplemented:
		return CodeNotImplemented
	case http.StatusMethodNotAllowed:
		return CodeMethodNotAllowed
	case http.StatusServiceUnavailable:
		return CodeServiceUnavailable
	}
	if status < 500 {
		return CodeBadRequest
	}
	return CodeInternalError
}
