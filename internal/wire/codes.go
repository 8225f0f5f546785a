package wire

// Error codes: every code of spec section 7, the codes the platform adds,
// and the refinements of the agency commands (document 2). The comment of
// each names the HTTP status it comes with.
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
