package mockserver

import (
	"errors"
	"fmt"
	"strings"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/hooks"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
)

// Error is how a Go admin helper reports that the server refused what it
// was given (an invalid fault rule, an unknown business, a bad fixture, an
// unknown delivery, ...): the error the matching admin route responds
// with. Inspect it with errors.As:
//
//	var e *mockserver.Error
//	if errors.As(err, &e) && e.Status == http.StatusNotFound { ... }
//
// A helper may wrap it with context (the file of a fixtures file, the
// index of a seeded record).
type Error struct {
	// Status is the HTTP status the admin route responds with (400 for an
	// invalid value, 404 for an unknown record, 409 for a conflict).
	Status int
	// Code is the error code of the response (invalid_request, not_found,
	// conflict, ...).
	Code string
	// Message says what is wrong.
	Message string
	// Details name the fields at fault, when the error is about fields.
	Details []ErrorDetail

	err error // what Unwrap returns: ErrDeliveryNotFound, ...
}

// ErrorDetail names one field that failed validation.
type ErrorDetail struct {
	// Path is the field: a JSON pointer into the value given ("/accounts/0/leads/2/phone"),
	// or a field name.
	Path string `json:"path"`
	// Message says what is wrong with it.
	Message string `json:"message"`
}

// Error returns the status, the code and the message.
func (e *Error) Error() string { return fmt.Sprintf("%d %s: %s", e.Status, e.Code, e.Message) }

// Unwrap returns the sentinel error the Error stands for
// (ErrDeliveryNotFound, ErrDeliveryNotReplayable), or nil.
func (e *Error) Unwrap() error { return e.err }

// Errors of ReplayDelivery, inside an *Error: test for them with errors.Is.
var (
	// ErrDeliveryNotFound is a delivery id the log does not hold (never
	// made, or pushed out of the ring buffer).
	ErrDeliveryNotFound = errors.New("mockserver: no such delivery in the log")
	// ErrDeliveryNotReplayable is a subscription delivery whose
	// subscription is gone or inactive.
	ErrDeliveryNotReplayable = errors.New("mockserver: a subscription's delivery is replayable only while the subscription exists and is active")
)

// publicError returns err with the internal error it holds, if any, made
// an *Error: the one place the helpers' errors cross from the domains to
// their callers. Context wrapped around it stays, word for word; other
// errors (a file that cannot be read) are returned as they are.
func publicError(err error) error {
	if err == nil {
		return nil
	}
	var pe *Error
	var de *domain.Error
	var ae *httpapi.Error
	switch {
	case errors.As(err, &pe):
		return err
	case errors.Is(err, hooks.ErrDeliveryNotFound):
		return &Error{Status: httpapi.StatusOf(voiceagent.CodeNotFound), Code: voiceagent.CodeNotFound, Message: ErrDeliveryNotFound.Error(), err: ErrDeliveryNotFound}
	case errors.Is(err, hooks.ErrDeliveryNotReplayable):
		return &Error{Status: httpapi.StatusOf(voiceagent.CodeConflict), Code: voiceagent.CodeConflict, Message: ErrDeliveryNotReplayable.Error(), err: ErrDeliveryNotReplayable}
	case errors.As(err, &de):
		pe = &Error{Status: httpapi.Status(de), Code: de.Code, Message: de.Message}
		for _, d := range de.Details {
			pe.Details = append(pe.Details, ErrorDetail(d))
		}
		return withContext(err, de, pe)
	case errors.As(err, &ae):
		pe = &Error{Status: httpapi.Status(ae), Code: ae.Code, Message: ae.Message}
		for _, d := range ae.Details {
			pe.Details = append(pe.Details, ErrorDetail(d))
		}
		return withContext(err, ae, pe)
	}
	return err
}

// withContext returns pe, the *Error of inner, with the context err wraps
// around inner: err's text with inner's replaced by pe's.
func withContext(err, inner error, pe *Error) error {
	if err == inner {
		return pe
	}
	ctx, ok := strings.CutSuffix(err.Error(), inner.Error())
	if !ok {
		return &wrapped{msg: err.Error(), err: pe}
	}
	return &wrapped{msg: ctx + pe.Error(), err: pe}
}

// wrapped is an *Error with the context a domain wrapped around it: its
// text is the whole message, and errors.As finds the *Error.
type wrapped struct {
	msg string
	err *Error
}

// Error returns the whole message, context included.
func (w *wrapped) Error() string { return w.msg }

// Unwrap returns the *Error.
func (w *wrapped) Unwrap() error { return w.err }

// invalidFixtures is a fixtures file that does not decode.
func invalidFixtures(path string, err error) error {
	return fmt.Errorf("%s: %w", path, &Error{Status: httpapi.StatusOf(voiceagent.CodeInvalidRequest), Code: voiceagent.CodeInvalidRequest,
		Message: "the fixtures are not valid JSON: " + err.Error()})
}
