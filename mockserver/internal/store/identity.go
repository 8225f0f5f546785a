package store

import "time"

// SignupFields are the fields of a signup body that the verify step must
// repeat exactly (email compared case-insensitively). Pointers tell an
// absent field from an empty one.
type SignupFields struct {
	BusinessName   string         `json:"business_name"`
	Email          string         `json:"email"`
	BusinessType   *string        `json:"business_type,omitempty"`
	Website        *string        `json:"website,omitempty"`
	PhoneForwardTo *string        `json:"phone_forward_to,omitempty"`
	Phone          *string        `json:"phone,omitempty"`
	ReferralCode   *string        `json:"referral_code,omitempty"`
	Via            *string        `json:"via,omitempty"`
	Attribution    map[string]any `json:"attribution,omitempty"`
	HowHeard       *string        `json:"how_heard,omitempty"`
	APIKeyScopes   []string       `json:"api_key_scopes,omitempty"`
}

// Signup challenge states.
const (
	ChallengePending   = "pending"   // code sent, waiting for the verify step
	ChallengeCompleted = "completed" // verified: the account exists
	ChallengeLocked    = "locked"    // too many wrong codes
	ChallengeInvalid   = "invalid"   // a verify step changed the request's fields
)

// SignupChallenge is an email verification in progress (POST /v1/signup
// request step). Owner is "signup"; ID is the challenge_id.
type SignupChallenge struct {
	Base
	Fields    SignupFields
	Code      string
	ExpiresAt time.Time
	Attempts  int
	State     string

	// Set once the verify step provisioned the account: the replay token,
	// whether provisioning partly failed, and the response without its
	// secrets (key, links) for redacted replays.
	ReplayToken string
	Failed      bool
	Redacted    map[string]any
}

// SignupRecord is how a business came to be: its signup's attribution and
// plan. Keyed by business id in Store.Signups.
type SignupRecord struct {
	BusinessID     string
	ActivationMode string // otp or payment
	PlanID         string // payment mode
	ReferralCode   string
	ReferredBy     string // partner id the signup is attributed to
	Via            string
	HowHeard       string
	Attribution    map[string]any
}

// MagicLink is a one-time sign-in link (the signup's dashboard_magic_link)
// or a password setup link. Keyed by token in Store.MagicLinks.
type MagicLink struct {
	Token     string
	Kind      string // "magic" or "password_setup"
	UserID    string
	ExpiresAt time.Time
}

// RegisterPartner makes a partner known to signup and key management: its
// referral code (may be "") and its own id are both accepted as
// referral_code, and operators may mint partner keys for it.
func (s *Store) RegisterPartner(partnerID, code string) {
	s.sch.mustWrite("RegisterPartner")
	s.ReferralCodes[partnerID] = partnerID
	if code != "" {
		s.ReferralCodes[code] = partnerID
	}
}

// PartnerKnown reports whether a partner was registered or created a
// business.
func (s *Store) PartnerKnown(partnerID string) bool {
	if p, ok := s.ReferralCodes[partnerID]; ok && p == partnerID {
		return true
	}
	return len(s.partnerBusinesses[partnerID]) > 0
}
