// Package agency manages an agency (partner) on the platform: its profile
// and members, its branded offers, the enrollment of client businesses
// into them with the owner's approval, and the installations that follow.
//
// The four resources are services of [Service], reached from the client:
//
//	c.Agency.Profile.Bootstrap(ctx, &agency.BootstrapParams{...})
//	c.Agency.Offers.Save(ctx, &agency.SaveOfferParams{...})
//	c.Agency.Enrollments.Create(ctx, &agency.CreateEnrollmentParams{...})
//	c.Agency.Installations.ApproveHandoff(ctx, &agency.StepParams{...})
//
// Every command is a method with typed params; the SDK adds the action
// field the API selects the command with. Reads (Get, List, All) need
// workspaces:read; profile and offer commands workspaces:write; enrollment
// commands workspaces:write and agents:write; installation commands
// workspaces:write (RunScenarios also evals:write, and launching the care
// package sms:write).
//
// # Guards
//
// Commands that change a reviewed record carry the revision read last
// (ExpectedRevision) and fail with [voiceagent.ErrStaleRevision] (409) when
// it changed; commands that commit what was previewed carry its fingerprint
// and fail with [voiceagent.ErrFingerprintMismatch] (409) when it differs.
// A fingerprint is the SHA-256 of the canonical JSON of the content, so a
// program can compute it itself with [Fingerprint]. Enrolling needs the
// owner's approval of the exact fingerprint ([voiceagent.ErrApprovalRequired],
// 403). Create and Enroll need a stable idempotency key (IdempotencyKey in
// their params): a retry with the same key returns the first receipt.
//
// # Unavailable dependencies
//
// When a dependency of the platform is unavailable a command answers 503,
// but it is not lost: the platform retains it and applies it when the
// dependency returns. [RetainedOperation] reads the retained operation from
// the error; reads list retained operations with their outcome. Reads
// answer 503 too rather than reporting nothing.
package agency

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/internal/canonical"
)

// API paths of the four resources.
const (
	pathProfile       = "/v1/agency-profile"
	pathOffers        = "/v1/agency-offers"
	pathEnrollments   = "/v1/agency-enrollments"
	pathInstallations = "/v1/agency-installations"
)

// Service is the agency API. Get it from client.Client.Agency.
type Service struct {
	// Profile manages the agency, its members, invites and partner keys.
	Profile *ProfileService
	// Offers manages branded offers: drafted, previewed, published, archived.
	Offers *OffersService
	// Enrollments enrolls client businesses into published offers.
	Enrollments *EnrollmentsService
	// Installations reviews and hands off installed clients.
	Installations *InstallationsService
}

// NewService returns the service on a backend.
func NewService(b *voiceagent.Backend) *Service {
	return &Service{
		Profile:       &ProfileService{b: b},
		Offers:        &OffersService{b: b},
		Enrollments:   &EnrollmentsService{b: b},
		Installations: &InstallationsService{b: b},
	}
}

// Fingerprint returns the fingerprint the platform computes for content:
// the SHA-256, in 64 lowercase hex characters, of its canonical JSON
// (object keys sorted bytewise, no insignificant whitespace, numbers in
// their shortest round-trip form, no HTML escaping). v is anything
// encoding/json encodes, or a json.RawMessage.
//
// What is fingerprinted: an offer's draft; an enrollment session's
// {"offerVersionId", "entries"}; a client's facts (its facts revision); a
// route receipt's or handoff's content; a pending update's {"updateId",
// "kind", "parts", "proposed"}.
func Fingerprint(v any) (string, error) { return canonical.Fingerprint(v) }

// ListParams select a page of an agency's offers, enrollment sessions or
// installations.
type ListParams struct {
	// PartnerID is the agency; empty means the caller's own.
	PartnerID string `url:"partnerId,omitempty"`
	// After is the id of the last record of the previous page.
	After string `url:"after,omitempty"`
}

// GetParams name one record of an agency.
type GetParams struct {
	// PartnerID is the agency; empty means the caller's own.
	PartnerID string `url:"partnerId,omitempty"`
	// ID is the offer, session or installation id.
	ID string `url:"id"`
}

// Operation is a command the platform retained while a dependency was
// unavailable, and its outcome once retried.
type Operation struct {
	OperationID string `json:"operationId"`
	// Resource is profile, offers, enrollments or installations.
	Resource string `json:"resource"`
	Action   string `json:"action"`
	// Status is pending, applied (Result holds the receipt) or rejected
	// (Error says why).
	Status   string `json:"status"`
	Attempts int    `json:"attempts"`
	// Result is the command's receipt once applied; decode it into the
	// receipt type of the resource (for example *OfferReceipt).
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *OperationError `json:"error,omitempty"`
	CreatedAt time.Time       `json:"createdAt"`
	UpdatedAt time.Time       `json:"updatedAt"`
}

// OperationError is why a retained command was rejected when retried.
type OperationError struct {
	Status  int    `json:"status"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Operation statuses.
const (
	OperationPending  = "pending"
	OperationApplied  = "applied"
	OperationRejected = "rejected"
)

// RetainedOperation returns the operation a 503 answer of a command
// retained, if err is one.
func RetainedOperation(err error) (*Operation, bool) {
	var apiErr *voiceagent.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusServiceUnavailable {
		return nil, false
	}
	var env struct {
		Error struct {
			Operation *Operation `json:"operation"`
		} `json:"error"`
	}
	if json.Unmarshal(apiErr.Body, &env) != nil || env.Error.Operation == nil {
		return nil, false
	}
	return env.Error.Operation, true
}

// ReceiptHeader is what every command receipt carries.
type ReceiptHeader struct {
	Action     string    `json:"action"`
	ReceiptID  string    `json:"receiptId"`
	RecordedAt time.Time `json:"recordedAt"`
}

// command sends one command: params encoded as JSON with the action added.
func command[T any](ctx context.Context, b *voiceagent.Backend, path, action string, params any, opts []voiceagent.Option) (*T, error) {
	body, err := withAction(action, params)
	if err != nil {
		return nil, err
	}
	return voiceagent.Send[T](ctx, b, http.MethodPost, path, nil, body, opts...)
}

// withAction encodes params with "action" as the first member.
func withAction(action string, params any) (json.RawMessage, error) {
	if rv := reflect.ValueOf(params); !rv.IsValid() || (rv.Kind() == reflect.Pointer && rv.IsNil()) {
		return nil, fmt.Errorf("agency: %s needs params", action)
	}
	b, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("agency: encoding %s: %w", action, err)
	}
	a, _ := json.Marshal(action)
	out := append([]byte(`{"action":`), a...)
	if len(b) > 2 {
		out = append(append(out, ','), b[1:]...)
	} else {
		out = append(out, '}')
	}
	return out, nil
}

// idempotent adds the stable idempotency key a command needs: key, or one
// already given with voiceagent.WithIdempotencyKey; without either it is an
// error, sent nowhere.
func idempotent(action, key string, opts []voiceagent.Option) ([]voiceagent.Option, error) {
	if key != "" {
		return append(opts, voiceagent.WithIdempotencyKey(key)), nil
	}
	if voiceagent.DefaultConfig().Apply(opts...).IdempotencyKey != "" {
		return opts, nil
	}
	return nil, fmt.Errorf("agency: %s needs a stable IdempotencyKey (the same on every retry of this command)", action)
}

// listPage reads one page of a list whose items are under key; id gives an
// item's id, the next page's cursor.
func listPage[T any](ctx context.Context, b *voiceagent.Backend, path, key string, p *ListParams, id func(*T) string, opts []voiceagent.Option) (*voiceagent.Page[T], []Operation, error) {
	var out map[string]json.RawMessage
	if err := b.Do(ctx, http.MethodGet, path, p, nil, &out, opts...); err != nil {
		return nil, nil, err
	}
	page := &voiceagent.Page[T]{}
	var ops []Operation
	if err := decodeMembers(out, map[string]any{key: &page.Data, "has_more": &page.HasMore, "operations": &ops}); err != nil {
		return nil, nil, fmt.Errorf("agency: decoding %s: %w", path, err)
	}
	if n := len(page.Data); n > 0 {
		page.NextCursor = id(&page.Data[n-1])
	}
	return page, ops, nil
}

func decodeMembers(m map[string]json.RawMessage, dst map[string]any) error {
	for k, d := range dst {
		if raw, ok := m[k]; ok {
			if err := json.Unmarshal(raw, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// get reads one record by id.
func get[T any](ctx context.Context, b *voiceagent.Backend, path string, p *GetParams, opts []voiceagent.Option) (*T, error) {
	if p == nil || p.ID == "" {
		return nil, errors.New("agency: Get needs an ID")
	}
	return voiceagent.Send[T](ctx, b, http.MethodGet, path, p, nil, opts...)
}

// operations reads the retained operations of a resource.
func operations(ctx context.Context, b *voiceagent.Backend, path, partnerID string, opts []voiceagent.Option) ([]Operation, error) {
	return voiceagent.ListItems[Operation](ctx, b, path, "operations", &ListParams{PartnerID: partnerID}, opts...)
}
