// Package signup creates accounts on the voice agent platform: the email
// verification flow (a request step that emails a six-digit code, then a
// verify step that provisions the account), payment mode, and the exchange
// of the dashboard magic link for a session cookie.
//
// Signup needs no API key. The verify step answers the account's API key
// once, with the ids of its business, intake agent and phone number, and a
// one-time dashboard_magic_link; ExchangeMagicLink turns that link into a
// dashboard session for key management:
//
//	req := &signup.RequestParams{Fields: signup.Fields{BusinessName: "Acme", Email: "owner@acme.example"}}
//	ch, err := c.Signup.Request(ctx, req)
//	// ... read the code from the email ...
//	res, err := c.Signup.Verify(ctx, &signup.VerifyParams{RequestParams: *req, ChallengeID: ch.ChallengeID, OTPCode: code})
//	session, err := c.Signup.ExchangeMagicLink(ctx, res.DashboardMagicLink)
//	dash := client.New("", voiceagent.WithSessionCookie(session))
//
// The verify step must repeat the request step's fields exactly (embedding
// the same RequestParams does that); a verify step that changes them
// invalidates the challenge.
//
// Errors: failed verify steps are *ChallengeError (with a Reason); payment
// mode without payment is *PaymentRequiredError; a partly failed
// provisioning is *ProvisioningFailedError, which still carries the key.
// Each wraps the *voiceagent.Error, so errors.Is against the voiceagent
// sentinels works too.
package signup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// Fields are the account fields every signup shape shares.
type Fields struct {
	// BusinessName names the business to provision. Required.
	BusinessName string `json:"business_name"`
	// Email is the owner's address: it receives the code and becomes the
	// sign-in. Required.
	Email string `json:"email"`
	// BusinessType is the kind of business.
	BusinessType string `json:"business_type,omitempty"`
	// Website is the business's website.
	Website string `json:"website,omitempty"`
	// PhoneForwardTo is the owner's forwarding number (E.164 preferred): it
	// sets ring-first routing, where the agent answers if nobody picks up
	// within 20 seconds.
	PhoneForwardTo string `json:"phone_forward_to,omitempty"`
	// Phone is the owner's phone, kept when PhoneForwardTo is absent (the
	// agent then answers calls directly).
	Phone string `json:"phone,omitempty"`
	// ReferralCode attributes the signup to a partner. Partners omit it for
	// their own accounts.
	ReferralCode string `json:"referral_code,omitempty"`
	// Via is the channel the signup came through.
	Via string `json:"via,omitempty"`
	// Attribution is free-form attribution data.
	Attribution map[string]any `json:"attribution,omitempty"`
	// HowHeard is how the owner heard of the service.
	HowHeard string `json:"how_heard,omitempty"`
}

// RequestParams are the request step of the email verification flow.
type RequestParams struct {
	Fields
	// APIKeyScopes are the scopes of the key the signup creates: at least
	// one, no wildcard, no platform-only scope. Default (nil): the read-only
	// set voiceagent.SignupDefaultScopes.
	APIKeyScopes []voiceagent.Scope `json:"api_key_scopes,omitempty"`
}

// VerifyParams are the verify step: the request step's params, unchanged,
// plus the challenge and the emailed code.
type VerifyParams struct {
	RequestParams
	// ChallengeID is Challenge.ChallengeID. Required.
	ChallengeID string `json:"challenge_id"`
	// OTPCode is the six-digit code sent to Email. Required.
	OTPCode string `json:"otp_code"`
	// ReplayToken is Result.ReplayToken of a completed verification: a
	// retry carrying it gets a redacted replay (same ids, no key, no links).
	ReplayToken string `json:"replay_token,omitempty"`
}

// PaymentParams are payment mode: the account is provisioned at once
// against a payment (x402 style), without email verification. Scopes cannot
// be chosen in this mode.
type PaymentParams struct {
	Fields
	// PlanID is a plan name (starter, growth, pro) or price identifier;
	// default the entry public plan.
	PlanID string `json:"plan_id,omitempty"`
	// Payment is sent as the X-PAYMENT header; without it the answer is
	// *PaymentRequiredError describing what to pay.
	Payment string `json:"-"`
}

// Challenge is the answer of the request step.
type Challenge struct {
	// Status is "otp_sent".
	Status string `json:"status"`
	// ChallengeID identifies the verification for the verify step.
	ChallengeID string `json:"challenge_id"`
	// ExpiresInSeconds is how long the code stays valid.
	ExpiresInSeconds int `json:"expires_in_seconds"`
	// ExpiresAt is when the code expires.
	ExpiresAt time.Time `json:"expires_at"`
}

// Statuses of a Result.
const (
	StatusProvisioned        = "provisioned"
	StatusProvisioningFailed = "provisioning_failed"
)

// CallRouting says how the new business's calls are answered.
type CallRouting struct {
	// Mode is "ring_first" (ForwardTo rings for RingSeconds, then the agent
	// answers) or "agent" (the agent answers directly).
	Mode        string  `json:"mode"`
	ForwardTo   string  `json:"forward_to,omitempty"`
	RingSeconds int     `json:"ring_seconds,omitempty"`
	Then        string  `json:"then,omitempty"`
	OwnerPhone  *string `json:"owner_phone,omitempty"`
}

// SetupStatus tells how far a partly failed provisioning got and how to
// resume it.
type SetupStatus struct {
	// State is "partial".
	State          string   `json:"state"`
	CompletedSteps []string `json:"completed_steps"`
	FailedSteps    []string `json:"failed_steps"`
	// RecoveryPaths are links: sign_in, key_setup, resume_setup.
	RecoveryPaths map[string]string `json:"recovery_paths"`
}

// Result is a provisioned account.
type Result struct {
	// Status is StatusProvisioned, or StatusProvisioningFailed inside a
	// *ProvisioningFailedError.
	Status string `json:"status"`
	// ActivationMode is otp or payment.
	ActivationMode string `json:"activation_mode"`
	// APIKey is the key, shown once; empty in a replay.
	APIKey       string             `json:"api_key"`
	APIKeyID     string             `json:"api_key_id"`
	APIKeyPrefix string             `json:"api_key_prefix"`
	Scopes       []voiceagent.Scope `json:"scopes"`
	UserID       string             `json:"user_id"`
	BusinessID   string             `json:"business_id"`
	AgentID      string             `json:"agent_id"`
	// PhoneNumber is the intake agent's number (nil when that step failed).
	PhoneNumber  *string   `json:"phone_number"`
	DashboardURL string    `json:"dashboard_url"`
	TrialEndsAt  time.Time `json:"trial_ends_at"`
	// DashboardMagicLink is a one-time sign-in link (see ExchangeMagicLink);
	// empty in a replay.
	DashboardMagicLink string `json:"dashboard_magic_link"`
	// PasswordSetupLink lets the owner set a password; empty in a replay.
	PasswordSetupLink string `json:"password_setup_link"`
	// ReplayToken lets a retry of the verify step get a redacted replay.
	ReplayToken string `json:"replay_token"`
	// Replayed reports a redacted replay.
	Replayed bool `json:"replayed"`
	// PlanID is the plan of payment mode.
	PlanID string `json:"plan_id"`
	// ReferredByPartnerID is the partner the referral code attributed the
	// signup to.
	ReferredByPartnerID string      `json:"referred_by_partner_id"`
	CallRouting         CallRouting `json:"call_routing"`
	// SetupStatus is set when provisioning partly failed.
	SetupStatus *SetupStatus `json:"setup_status"`
}

// Reasons of a ChallengeError.
const (
	ReasonChallengeNotFound  = "challenge_not_found"
	ReasonFieldsChanged      = "fields_changed"
	ReasonChallengeInvalid   = "challenge_invalid"
	ReasonChallengeLocked    = "challenge_locked"
	ReasonOTPExpired         = "otp_expired"
	ReasonOTPMismatch        = "otp_mismatch"
	ReasonReplayTokenInvalid = "replay_token_invalid"
)

// ChallengeError is a failed verify step (400 validation_error with a
// reason). Every reason but ReasonOTPMismatch means: request a new code.
type ChallengeError struct {
	// Reason is one of the Reason constants.
	Reason string
	// AttemptsRemaining is how many wrong codes the challenge still takes
	// (ReasonOTPMismatch only; -1 otherwise).
	AttemptsRemaining int
	// Err is the API error.
	Err *voiceagent.Error
}

// Error implements error; it never contains the key.
func (e *ChallengeError) Error() string { return e.Err.Error() + " [" + e.Reason + "]" }

// Unwrap returns the API error.
func (e *ChallengeError) Unwrap() error { return e.Err }

// PaymentRequirements say what payment mode wants in X-PAYMENT.
type PaymentRequirements struct {
	Scheme      string `json:"scheme"`
	Header      string `json:"header"`
	PlanID      string `json:"plan_id"`
	AmountCents int    `json:"amount_cents"`
	Currency    string `json:"currency"`
	Interval    string `json:"interval"`
}

// PaymentRequiredError is payment mode without a payment (402
// payment_required).
type PaymentRequiredError struct {
	Requirements PaymentRequirements
	Err          *voiceagent.Error
}

// Error implements error; it never contains the key.
func (e *PaymentRequiredError) Error() string { return e.Err.Error() }

// Unwrap returns the API error.
func (e *PaymentRequiredError) Unwrap() error { return e.Err }

// ProvisioningFailedError is a signup whose account was created but whose
// setup did not finish (503 provisioning_failed). Result still carries the
// key and the links: keep them, follow Result.SetupStatus.RecoveryPaths, and
// do not restart signup.
type ProvisioningFailedError struct {
	Result *Result
	Err    *voiceagent.Error
}

// Error implements error; it never contains the key.
func (e *ProvisioningFailedError) Error() string { return e.Err.Error() }

// Unwrap returns the API error.
func (e *ProvisioningFailedError) Unwrap() error { return e.Err }

// Service is the signup API. Get it from client.Client.Signup.
type Service struct{ b *voiceagent.Backend }

// NewService returns the service on a backend.
func NewService(b *voiceagent.Backend) *Service { return &Service{b: b} }

const path = "/v1/signup"

// Request starts the email verification flow: it emails a six-digit code
// to p.Email and answers the challenge. No account exists yet.
func (s *Service) Request(ctx context.Context, p *RequestParams, opts ...voiceagent.Option) (*Challenge, error) {
	return voiceagent.Send[Challenge](ctx, s.b, http.MethodPost, path, nil, p, opts...)
}

// Verify completes the email verification flow and provisions the
// account. Failures of the challenge are *ChallengeError; a partly failed
// provisioning is *ProvisioningFailedError (with the key).
func (s *Service) Verify(ctx context.Context, p *VerifyParams, opts ...voiceagent.Option) (*Result, error) {
	var out Result
	if err := s.b.Do(ctx, http.MethodPost, path, nil, p, &out, opts...); err != nil {
		return nil, classify(err)
	}
	return &out, nil
}

// Pay signs up in payment mode: with p.Payment sent as X-PAYMENT, the
// account is provisioned at once. Without it the answer is
// *PaymentRequiredError.
func (s *Service) Pay(ctx context.Context, p *PaymentParams, opts ...voiceagent.Option) (*Result, error) {
	if p == nil {
		p = &PaymentParams{}
	}
	body := struct {
		*PaymentParams
		ActivationMode string `json:"activation_mode"`
	}{p, "payment"}
	if p.Payment != "" {
		opts = append([]voiceagent.Option{voiceagent.WithHeader("X-PAYMENT", p.Payment)}, opts...)
	}
	var out Result
	if err := s.b.Do(ctx, http.MethodPost, path, nil, body, &out, opts...); err != nil {
		return nil, classify(err)
	}
	return &out, nil
}

// ExchangeMagicLink follows a one-time dashboard_magic_link and returns the
// dashboard session it opens (the voiceagent_session cookie), for
// voiceagent.WithSessionCookie. The link is used up, and no API key or
// session is sent with it.
func (s *Service) ExchangeMagicLink(ctx context.Context, link string, opts ...voiceagent.Option) (string, error) {
	u, err := url.Parse(link)
	if err != nil || u.Scheme == "" || u.Host == "" {
		return "", fmt.Errorf("signup: %q is not an absolute link", link)
	}
	p := u.EscapedPath()
	if u.RawQuery != "" {
		p += "?" + u.RawQuery
	}
	var resp *http.Response
	var out struct {
		Session string `json:"session"`
	}
	all := append([]voiceagent.Option{
		voiceagent.WithBaseURL(u.Scheme + "://" + u.Host),
		voiceagent.WithAPIKey(""),
		voiceagent.WithSessionCookie(""),
	}, opts...)
	all = append(all, voiceagent.WithResponseInto(&resp))
	if err := s.b.Do(ctx, http.MethodGet, p, nil, nil, &out, all...); err != nil {
		return "", err
	}
	for _, c := range resp.Cookies() {
		if c.Name == voiceagent.SessionCookieName && c.Value != "" {
			return c.Value, nil
		}
	}
	if out.Session != "" {
		return out.Session, nil
	}
	return "", errors.New("signup: the magic link's answer opened no session")
}

// classify turns the API errors of signup that carry more than a code into
// their typed errors.
func classify(err error) error {
	var apiErr *voiceagent.Error
	if !errors.As(err, &apiErr) {
		return err
	}
	switch apiErr.Code {
	case voiceagent.CodeProvisioningFailed:
		var r Result
		if json.Unmarshal(apiErr.Body, &r) == nil && r.BusinessID != "" {
			return &ProvisioningFailedError{Result: &r, Err: apiErr}
		}
	case voiceagent.CodePaymentRequired:
		var env struct {
			Error struct {
				Requirements PaymentRequirements `json:"payment_requirements"`
			} `json:"error"`
		}
		_ = json.Unmarshal(apiErr.Body, &env)
		return &PaymentRequiredError{Requirements: env.Error.Requirements, Err: apiErr}
	case voiceagent.CodeValidationError:
		var env struct {
			Error struct {
				Reason            string `json:"reason"`
				AttemptsRemaining *int   `json:"attempts_remaining"`
			} `json:"error"`
		}
		if json.Unmarshal(apiErr.Body, &env) == nil && env.Error.Reason != "" {
			ce := &ChallengeError{Reason: env.Error.Reason, AttemptsRemaining: -1, Err: apiErr}
			if env.Error.AttemptsRemaining != nil {
				ce.AttemptsRemaining = *env.Error.AttemptsRemaining
			}
			return ce
		}
	}
	return err
}
