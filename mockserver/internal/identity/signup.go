package identity

import (
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/clock"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
	"github.com/voiceagent/voiceagent-go/signup"
)

// Signup's lifetimes, limits and magic values (see docs/mockserver.md, section Signup).
const (
	otpTTL           = 10 * time.Minute
	otpMaxAttempts   = 5
	magicLinkTTL     = 15 * time.Minute
	passwordSetupTTL = 7 * 24 * time.Hour
	// challengeRetention is how long after its code expires a challenge is
	// stored (a completed one responds to replays until then).
	challengeRetention = 24 * time.Hour
	linkRetention      = 24 * time.Hour

	provisioningFailsDomain = "@provisioning-fails.example"
	dashboardBase           = "https://app.voiceagent.example"
	signupKeyName           = "Signup Key"
	defaultPlan             = "starter"

	headerPayment = "X-PAYMENT"
)

// Paths of the dashboard links signup sends (docs/mockserver.md, section
// Dashboard sessions).
const (
	// MagicLinkPath is the one-time sign-in link: GET with ?token= opens a
	// dashboard session.
	MagicLinkPath = "/api/auth/magic"
	// PasswordSetupPath is the password setup link: GET with ?token= shows
	// what the setup page would.
	PasswordSetupPath = "/api/auth/password-setup"
)

// Reasons of a failed verify step (error.reason, beside validation_error).
const (
	reasonChallengeNotFound  = "challenge_not_found"
	reasonFieldsChanged      = "fields_changed"
	reasonChallengeInvalid   = "challenge_invalid"
	reasonChallengeLocked    = "challenge_locked"
	reasonOTPExpired         = "otp_expired"
	reasonOTPMismatch        = "otp_mismatch"
	reasonReplayTokenInvalid = "replay_token_invalid"
)

// signupPlans are the plans of payment mode, monthly price in cents; the
// price identifiers price_<plan>_monthly name the same plans.
var signupPlans = map[string]int{"starter": 4900, "growth": 14900, "pro": 39900}

// signup picks the body shape: activation_mode payment is payment mode; a
// challenge_id or otp_code makes a verify step; anything else is a request
// step (whose schema then reports what is wrong).
func (s *Service) signup(rc *httpapi.Ctx) (any, error) {
	var probe struct {
		ActivationMode any             `json:"activation_mode"`
		ChallengeID    json.RawMessage `json:"challenge_id"`
		OTPCode        json.RawMessage `json:"otp_code"`
	}
	_ = json.Unmarshal(rc.Body, &probe) // invalid JSON is reported by rc.DecodeAs
	switch {
	case probe.ActivationMode == "payment":
		return s.signupPayment(rc)
	case probe.ChallengeID != nil || probe.OTPCode != nil:
		return s.signupVerify(rc)
	default:
		return s.signupRequest(rc)
	}
}

// signupPlan is what the checks shared by the three shapes resolved.
type signupPlan struct {
	email      string
	partnerID  string // the referring partner, if any
	forwardTo  string // normalized phone_forward_to
	phone      string // normalized phone
	failNumber bool   // the magic provisioning-fails domain
}

// checkSignup runs the checks every body shape shares, after its schema:
// referral code (before email_exists, so a partner signing up its own
// address learns why), email not registered, phone numbers normalizable.
func (s *Service) checkSignup(rc *httpapi.Ctx, f *store.SignupFields) (*signupPlan, error) {
	p := &signupPlan{email: strings.ToLower(strings.TrimSpace(f.Email))}
	if f.ReferralCode != nil && *f.ReferralCode != "" {
		partner, ok := rc.Tx.ReferralCodes[*f.ReferralCode]
		if !ok {
			return nil, errSignupField("/referral_code", "unknown referral code %q", *f.ReferralCode)
		}
		if u, ok := rc.Tx.UsersByEmail[p.email]; ok && u.PartnerID == partner {
			return nil, errSignupField("/referral_code", "a partner cannot refer itself: omit referral_code for your own accounts")
		}
		p.partnerID = partner
	}
	if _, ok := rc.Tx.UsersByEmail[p.email]; ok {
		return nil, errEmailExists(p.email)
	}
	for _, ph := range []struct {
		path string
		in   *string
		out  *string
	}{{"/phone_forward_to", f.PhoneForwardTo, &p.forwardTo}, {"/phone", f.Phone, &p.phone}} {
		if ph.in == nil || strings.TrimSpace(*ph.in) == "" {
			continue
		}
		n, ok := signupPhone(*ph.in)
		if !ok {
			return nil, errSignupField(ph.path, "%q is not a phone number (E.164 preferred, for example +15551230001)", *ph.in)
		}
		*ph.out = n
	}
	p.failNumber = strings.HasSuffix(p.email, provisioningFailsDomain)
	return p, nil
}

func (s *Service) signupRequest(rc *httpapi.Ctx) (any, error) {
	var f store.SignupFields
	if err := rc.DecodeAs("signupOtpRequest", &f); err != nil {
		return nil, err
	}
	if _, err := s.checkSignup(rc, &f); err != nil {
		return nil, err
	}
	ch := &store.SignupChallenge{
		Fields:    f,
		Code:      fmt.Sprintf("%06d", s.IDs.Intn(1_000_000)),
		ExpiresAt: rc.Now.Add(otpTTL).UTC(),
		State:     store.ChallengePending,
	}
	rc.Tx.Challenges.Insert(ch, "signup", rc.Now)
	s.Schedule("", clock.Task{At: ch.ExpiresAt.Add(challengeRetention), Kind: TaskForgetChallenge, Subject: ch.ID})
	s.SendOutbox(rc.Tx, rc.Now, store.OutboxMessage{
		Channel: "email", To: strings.ToLower(strings.TrimSpace(f.Email)), From: "no-reply@voiceagent.example",
		Subject: "Your voiceagent verification code",
		Body: fmt.Sprintf("Your verification code for %s is %s. It expires in %d minutes.",
			f.BusinessName, ch.Code, int(otpTTL.Minutes())),
		OTPCode: ch.Code,
	})
	return signup.Challenge{
		Status:           "otp_sent",
		ChallengeID:      ch.ID,
		ExpiresInSeconds: int(otpTTL.Seconds()),
		ExpiresAt:        ch.ExpiresAt,
	}, nil
}

func (s *Service) signupVerify(rc *httpapi.Ctx) (any, error) {
	var body struct {
		store.SignupFields
		ChallengeID string  `json:"challenge_id"`
		OTPCode     string  `json:"otp_code"`
		ReplayToken *string `json:"replay_token"`
	}
	if err := rc.DecodeAs("signupOtpVerify", &body); err != nil {
		return nil, err
	}
	ch, ok := rc.Tx.Challenges.Get(body.ChallengeID)
	if !ok {
		return nil, errChallenge(reasonChallengeNotFound, "no such challenge (or it is over a day past its expiry): request a new code")
	}
	if diff := diffSignupFields(&ch.Fields, &body.SignupFields); len(diff) > 0 {
		if ch.State == store.ChallengePending {
			ch.State = store.ChallengeInvalid
		}
		e := errChallenge(reasonFieldsChanged, "verification invalid: the verify step must repeat the request step's fields and scopes exactly; request a new code")
		e.Details = diff
		return nil, e
	}
	switch ch.State {
	case store.ChallengeCompleted:
		return s.signupReplay(ch, body.ReplayToken)
	case store.ChallengeInvalid:
		return nil, errChallenge(reasonChallengeInvalid, "verification invalid: an earlier verify step changed the request's fields; request a new code")
	case store.ChallengeLocked:
		return nil, errChallenge(reasonChallengeLocked, "too many wrong codes: this challenge is locked; request a new code")
	}
	if body.ReplayToken != nil {
		return nil, errChallenge(reasonReplayTokenInvalid, "replay_token is only for retrying a completed verification; this challenge is not verified yet")
	}
	if !rc.Now.Before(ch.ExpiresAt) {
		return nil, errChallenge(reasonOTPExpired, "the code expired: request a new one")
	}
	if subtle.ConstantTimeCompare([]byte(body.OTPCode), []byte(ch.Code)) != 1 {
		ch.Attempts++
		left := otpMaxAttempts - ch.Attempts
		if left <= 0 {
			ch.State = store.ChallengeLocked
			return nil, errChallenge(reasonChallengeLocked, "wrong code, and too many wrong codes: this challenge is locked; request a new code")
		}
		return nil, errChallenge(reasonOTPMismatch, fmt.Sprintf("wrong code: %d attempt(s) left", left)).
			With("attempts_remaining", left)
	}
	plan, err := s.checkSignup(rc, &body.SignupFields)
	if err != nil {
		return nil, err
	}
	return s.signupProvision(rc, &body.SignupFields, plan, "otp", "", ch)
}

// signupReplay responds to a verify step on a completed challenge: with the
// right replay_token, the first response without its key and links.
func (s *Service) signupReplay(ch *store.SignupChallenge, token *string) (any, error) {
	if token == nil {
		email := strings.ToLower(strings.TrimSpace(ch.Fields.Email))
		e := errEmailExists(email)
		e.Message = "this challenge was already verified and the account exists: retry with its replay_token for a redacted replay, or sign in"
		return nil, e
	}
	if subtle.ConstantTimeCompare([]byte(*token), []byte(ch.ReplayToken)) != 1 {
		return nil, errChallenge(reasonReplayTokenInvalid, "replay_token does not match this challenge's verification")
	}
	body := maps.Clone(ch.Redacted)
	body["replayed"] = true
	if ch.Failed {
		return nil, errProvisioningFailed(body)
	}
	return body, nil
}

func (s *Service) signupPayment(rc *httpapi.Ctx) (any, error) {
	var body struct {
		store.SignupFields
		PlanID *string `json:"plan_id"`
	}
	if err := rc.DecodeAs("signupPayment", &body); err != nil {
		return nil, err
	}
	plan := defaultPlan
	if body.PlanID != nil {
		p, ok := signupPlanFor(*body.PlanID)
		if !ok {
			return nil, errSignupField("/plan_id", "unknown plan %q: one of starter, growth, pro or price_<plan>_monthly", *body.PlanID)
		}
		plan = p
	}
	sp, err := s.checkSignup(rc, &body.SignupFields)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(rc.Request.Header.Get(headerPayment)) == "" {
		return nil, domain.New(voiceagent.CodePaymentRequired,
			"payment mode needs an "+headerPayment+" header carrying the payment for plan "+plan+" (x402)").
			With("payment_requirements", map[string]any{
				"scheme": "x402", "header": headerPayment, "plan_id": plan,
				"amount_cents": signupPlans[plan], "currency": "USD", "interval": "month",
			})
	}
	return s.signupProvision(rc, &body.SignupFields, sp, "payment", plan, nil)
}

func signupPlanFor(id string) (string, bool) {
	if _, ok := signupPlans[id]; ok {
		return id, true
	}
	if p, ok := strings.CutPrefix(id, "price_"); ok {
		if p, ok = strings.CutSuffix(p, "_monthly"); ok {
			if _, known := signupPlans[p]; known {
				return p, true
			}
		}
	}
	return "", false
}

// signupProvision creates the account, its links and the response: 201, or
// 503 provisioning_failed (the account exists) for the magic domain. ch is
// the verified challenge (nil in payment mode).
func (s *Service) signupProvision(rc *httpapi.Ctx, f *store.SignupFields, sp *signupPlan, mode, plan string, ch *store.SignupChallenge) (any, error) {
	scopes := f.APIKeyScopes
	if len(scopes) == 0 {
		scopes = slices.Clone(signupDefaultScopes)
	}
	pr := s.Provision(rc.Tx, rc.Now, ProvisionSpec{
		BusinessName: f.BusinessName, Email: sp.email, BusinessType: strOrEmpty(f.BusinessType),
		Website: strOrEmpty(f.Website), ForwardTo: sp.forwardTo, Phone: sp.phone, Scopes: scopes,
		KeyName: signupKeyName, NumberFails: sp.failNumber,
	})
	b := pr.Business
	rec := &store.SignupRecord{
		BusinessID: b.ID, ActivationMode: mode, PlanID: plan, ReferralCode: strOrEmpty(f.ReferralCode),
		ReferredBy: sp.partnerID, Via: strOrEmpty(f.Via), HowHeard: strOrEmpty(f.HowHeard), Attribution: f.Attribution,
	}
	rc.Tx.Signups[b.ID] = rec
	base := serverLinkBase(rc.Request)
	magic := base + MagicLinkPath + "?token=" + s.newLink(rc.Tx, rc.Now, "magic", pr.User.ID, magicLinkTTL)
	setup := base + PasswordSetupPath + "?token=" + s.newLink(rc.Tx, rc.Now, "password_setup", pr.User.ID, passwordSetupTTL)
	dashboard := dashboardBase + "/b/" + b.ID

	redacted := map[string]any{
		"status":          "provisioned",
		"activation_mode": mode,
		"api_key_prefix":  pr.Key.Prefix,
		"api_key_id":      pr.Key.ID,
		"scopes":          slices.Clone(pr.Key.Scopes),
		"user_id":         pr.User.ID,
		"business_id":     b.ID,
		"agent_id":        pr.Agent.ID,
		"phone_number":    nil,
		"dashboard_url":   dashboard,
		"trial_ends_at":   b.TrialEndsAt,
		"call_routing":    callRoutingView(b),
		"replayed":        false,
	}
	if pr.Number != nil {
		redacted["phone_number"] = pr.Number.PhoneNumber
	}
	if plan != "" {
		redacted["plan_id"] = plan
	}
	if sp.partnerID != "" {
		redacted["referred_by_partner_id"] = sp.partnerID
	}
	if pr.FailedStep != "" {
		redacted["status"] = voiceagent.CodeProvisioningFailed
		redacted["setup_status"] = map[string]any{
			"state":           "partial",
			"completed_steps": []string{"user", "business", "agent", "api_key", "session"},
			"failed_steps":    []string{pr.FailedStep},
			"recovery_paths":  signupRecoveryPaths(sp.email, b.ID),
		}
	}
	answer := maps.Clone(redacted)
	answer["api_key"] = pr.APIKey
	answer["dashboard_magic_link"] = magic
	answer["password_setup_link"] = setup
	if ch != nil {
		ch.State = store.ChallengeCompleted
		ch.ReplayToken = "rpl_" + s.IDs.Token(16)
		ch.Failed = pr.FailedStep != ""
		ch.Redacted = redacted
		answer["replay_token"] = ch.ReplayToken
	}
	s.SendOutbox(rc.Tx, rc.Now, store.OutboxMessage{
		BusinessID: b.ID, Channel: "email", To: sp.email, From: "no-reply@voiceagent.example",
		Subject: "Welcome to voiceagent: sign in to " + b.Name,
		Body:    "Your workspace " + b.Name + " is ready. Sign in within 15 minutes with this one-time link: " + magic,
		Link:    magic,
	})
	if pr.FailedStep != "" {
		return nil, errProvisioningFailed(answer)
	}
	return httpapi.Created(answer), nil
}

// linkTenant is the tenant whose clock a link expires on: its user's.
func (s *Service) linkTenant(tx *platform.Tx, l *store.MagicLink) string {
	if t := tx.TenantOfOwner(l.UserID); t != l.UserID {
		return t
	}
	return ""
}

// Kinds of identity's tasks on the schedule.
const (
	// TaskForgetChallenge forgets an expired signup challenge (Subject).
	TaskForgetChallenge = "signup.forget_challenge"
	// TaskForgetLink forgets an expired magic link of a user (Subject; the
	// link's token is a secret and is not shown).
	TaskForgetLink = "magic_link.forget"
)

// newLink stores a link token for a user, forgotten a day after it expires
// (until then it responds "expired").
func (s *Service) newLink(tx *platform.Tx, now time.Time, kind, userID string, ttl time.Duration) string {
	l := &store.MagicLink{Token: s.IDs.Token(24), Kind: kind, UserID: userID, ExpiresAt: now.Add(ttl).UTC()}
	tx.MagicLinks[l.Token] = l
	s.Schedule(s.linkTenant(tx, l), clock.Task{At: l.ExpiresAt.Add(linkRetention), Kind: TaskForgetLink, Subject: l.UserID})
	return l.Token
}

// defineForgetTasks defines the kinds of identity's tasks.
func (s *Service) defineForgetTasks() {
	s.DefineTask(TaskForgetChallenge, func(tx *platform.Tx, _ time.Time, t clock.Task) { tx.Challenges.Delete(t.Subject) })
	s.DefineTask(TaskForgetLink, forgetLinks)
}

// forgetLinks is the task TaskForgetLink: it forgets the links of user
// t.Subject whose retention ended by t.At (the task names the user, not
// the link, whose token is a secret; a link's task falls due when its
// retention ends).
func forgetLinks(tx *platform.Tx, _ time.Time, t clock.Task) {
	for token, l := range tx.MagicLinks {
		if l.UserID == t.Subject && !l.ExpiresAt.Add(linkRetention).After(t.At) {
			delete(tx.MagicLinks, token)
		}
	}
}

// exchangeMagicLink is GET /api/auth/magic?token=: a one-time link that
// opens a dashboard session (cookie voiceagent_session).
func (s *Service) exchangeMagicLink(rc *httpapi.Ctx) (any, error) {
	token, err := rc.RequireQuery("token")
	if err != nil {
		return nil, err
	}
	l, ok := rc.Tx.MagicLinks[token]
	if !ok || l.Kind != "magic" {
		return nil, domain.Unauthorized("this sign-in link is invalid or was already used")
	}
	delete(rc.Tx.MagicLinks, token)
	now := s.Now(s.linkTenant(rc.Tx, l))
	if !now.Before(l.ExpiresAt) {
		return nil, domain.Unauthorized("this sign-in link expired")
	}
	if _, ok := rc.Tx.Users.Get(l.UserID); !ok {
		return nil, domain.Unauthorized("the link's account no longer exists")
	}
	sess := s.newSession(rc.Tx, now, l.UserID)
	c := &http.Cookie{
		Name: httpapi.SessionCookie, Value: sess.Token, Path: "/", Expires: sess.ExpiresAt,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: rc.Request.TLS != nil,
	}
	return &httpapi.Respond{
		Status: http.StatusOK,
		Body:   map[string]any{"session": sess.Token, "user_id": l.UserID, "expires_at": sess.ExpiresAt},
		Header: http.Header{"Set-Cookie": {c.String()}},
	}, nil
}

// passwordSetupLink is GET /api/auth/password-setup?token=: what the
// password setup page would show (the link stays valid until it expires).
func (s *Service) passwordSetupLink(rc *httpapi.Ctx) (any, error) {
	token, err := rc.RequireQuery("token")
	if err != nil {
		return nil, err
	}
	l, ok := rc.Tx.MagicLinks[token]
	if !ok || l.Kind != "password_setup" || !s.Now(s.linkTenant(rc.Tx, l)).Before(l.ExpiresAt) {
		return nil, domain.Unauthorized("this password setup link is invalid or expired")
	}
	u, ok := rc.Tx.Users.Get(l.UserID)
	if !ok {
		return nil, domain.Unauthorized("the link's account no longer exists")
	}
	return map[string]any{"user_id": u.ID, "email": u.Email, "expires_at": l.ExpiresAt}, nil
}

// serverLinkBase is the scheme and host the request reached, for links to this
// server.
func serverLinkBase(r *http.Request) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// callRoutingView shows how a business's calls are answered: ring-first (the
// owner's forwarding number rings for 20 seconds, then the agent answers) or
// the agent directly.
func callRoutingView(b *store.Business) map[string]any {
	if b.ForwardTo != "" {
		return map[string]any{"mode": "ring_first", "forward_to": b.ForwardTo, "ring_seconds": b.RingFirstSeconds, "then": "agent"}
	}
	return map[string]any{"mode": "agent", "owner_phone": val.Nullable(b.Phone)}
}

func signupRecoveryPaths(email, businessID string) map[string]string {
	p := map[string]string{
		"sign_in":   dashboardBase + "/sign-in?email=" + url.QueryEscape(email),
		"key_setup": dashboardBase + "/settings/api-keys",
	}
	if businessID != "" {
		p["resume_setup"] = dashboardBase + "/b/" + businessID + "/setup"
	}
	return p
}

func errEmailExists(email string) *domain.Error {
	return domain.New(voiceagent.CodeEmailExists,
		"an account with this email already exists: sign in, or create a key from the dashboard").
		With("recovery_paths", signupRecoveryPaths(email, ""))
}

// errProvisioningFailed is the 503 of a partly failed provisioning: the
// response (key and links included) beside the error, which repeats the
// recovery paths. It tells clients not to retry.
func errProvisioningFailed(answer map[string]any) *domain.Error {
	e := domain.New(voiceagent.CodeProvisioningFailed,
		"the account was created but its setup did not finish (phone number): keep the key, follow setup_status.recovery_paths, do not restart signup")
	if setup, ok := answer["setup_status"].(map[string]any); ok {
		e = e.With("recovery_paths", setup["recovery_paths"])
	}
	e.Result, e.Final = answer, true
	return e
}

// errSignupField is a signup field failure: 400 validation_error naming the
// field (a JSON Pointer) in details.
func errSignupField(path, format string, args ...any) *domain.Error {
	msg := fmt.Sprintf(format, args...)
	e := domain.New(voiceagent.CodeValidationError, strings.TrimPrefix(path, "/")+": "+msg)
	e.Details = []domain.FieldError{{Path: path, Message: msg}}
	return e
}

// errChallenge is a failed verify step: 400 validation_error with
// error.reason.
func errChallenge(reason, msg string) *domain.Error {
	return domain.New(voiceagent.CodeValidationError, msg).With("reason", reason)
}

// diffSignupFields names the fields of a verify step that differ from the
// request step's: email case-insensitively, scopes as sets (sent or not
// counts), an absent string the same as an empty one.
func diffSignupFields(req, ver *store.SignupFields) []domain.FieldError {
	var d []domain.FieldError
	add := func(name string) {
		d = append(d, domain.FieldError{Path: "/" + name, Message: "differs from the request step"})
	}
	if req.BusinessName != ver.BusinessName {
		add("business_name")
	}
	if !strings.EqualFold(strings.TrimSpace(req.Email), strings.TrimSpace(ver.Email)) {
		add("email")
	}
	for _, f := range []struct {
		name string
		a, b *string
	}{
		{"business_type", req.BusinessType, ver.BusinessType},
		{"website", req.Website, ver.Website},
		{"phone_forward_to", req.PhoneForwardTo, ver.PhoneForwardTo},
		{"phone", req.Phone, ver.Phone},
		{"referral_code", req.ReferralCode, ver.ReferralCode},
		{"via", req.Via, ver.Via},
		{"how_heard", req.HowHeard, ver.HowHeard},
	} {
		if strOrEmpty(f.a) != strOrEmpty(f.b) {
			add(f.name)
		}
	}
	if (len(req.Attribution) > 0 || len(ver.Attribution) > 0) && !reflect.DeepEqual(req.Attribution, ver.Attribution) {
		add("attribution")
	}
	switch {
	case req.APIKeyScopes != nil && ver.APIKeyScopes == nil:
		d = append(d, domain.FieldError{Path: "/api_key_scopes", Message: "removed: the request step set scopes"})
	case req.APIKeyScopes == nil && ver.APIKeyScopes != nil:
		d = append(d, domain.FieldError{Path: "/api_key_scopes", Message: "added: the request step set none"})
	case !sameScopeSet(req.APIKeyScopes, ver.APIKeyScopes):
		d = append(d, domain.FieldError{Path: "/api_key_scopes", Message: "changed: the scope set must equal the request step's"})
	}
	return d
}

func sameScopeSet(a, b []string) bool {
	a, b = slices.Clone(a), slices.Clone(b)
	slices.Sort(a)
	slices.Sort(b)
	return slices.Equal(slices.Compact(a), slices.Compact(b))
}

func strOrEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// signupPhone turns a phone number in a common written form ("+1 555
// 123-4567", "(555) 123-4567", "5551234567") into E.164; a 10-digit number
// without a plus is taken as North American.
func signupPhone(in string) (string, bool) {
	in = strings.TrimSpace(in)
	plus := strings.HasPrefix(in, "+")
	var digits strings.Builder
	for _, r := range strings.TrimPrefix(in, "+") {
		switch {
		case r >= '0' && r <= '9':
			digits.WriteRune(r)
		case strings.ContainsRune(" -.()", r):
		default:
			return "", false
		}
	}
	d := digits.String()
	if !plus {
		switch {
		case len(d) == 10:
			d = "1" + d
		case len(d) == 11 && d[0] == '1':
		default:
			return "", false
		}
	}
	if len(d) < 2 || len(d) > 15 || d[0] == '0' {
		return "", false
	}
	return "+" + d, true
}
