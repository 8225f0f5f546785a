package identity

import (
	"fmt"
	voiceagent "github.com/voiceagent/voiceagent-go"
	"slices"
	"strings"
	"time"

	"github.com/voiceagent/voiceagent-go/account"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/val"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// Lifetimes of what provisioning creates.
const (
	sessionTTL    = 30 * 24 * time.Hour
	trialDuration = 14 * 24 * time.Hour
	// numberPoolStart is the first number of the pool: +15552000000. The pool
	// never hands out the magic +1500555xxxx numbers.
	numberPoolStart = 5552000000
)

// ProvisionSpec says what to provision for a new tenant.
type ProvisionSpec struct {
	BusinessName string
	Email        string
	BusinessType string
	Website      string
	ForwardTo    string // owner forwarding number: ring-first routing
	Phone        string
	Scopes       []string
	PartnerID    string // the partner that created or referred the business
	KeyName      string
	// NumberFails makes the phone number step fail (signup's magic
	// provisioning-fails domain): no number, workspace.provisioning_failed
	// instead of workspace.ready.
	NumberFails bool
	// NoCredentials provisions no key and no session (a client business an
	// agency enrolls: its owner signs in on their own).
	NoCredentials bool
	// Preset, when set, gives the tenant the user, business and agent ids,
	// the number, the key and the session of an account provisioned before
	// (a seed account made again after a reset) instead of new ones.
	Preset *admin.Account
	// Tenant is the tenant the new business joins (an agency's client
	// joins the agency's); "" makes it a tenant of its own.
	Tenant string
}

// Provisioned is what Provision created. Key, APIKey and Session are
// empty with ProvisionSpec.NoCredentials.
type Provisioned struct {
	User     *store.User
	Business *store.Business
	Agent    *store.Agent
	Number   *store.Number
	Key      *store.APIKey
	APIKey   string // the key's value, shown once
	Session  *store.Session
	// FailedStep names the step that failed ("" when none); Number is nil
	// when it is "phone_number".
	FailedStep string
}

// Provision creates a tenant as signup does: the user (or reuses the one
// with that email), a business, an intake agent with lead collection and
// its assistant at the voice provider, a number from the pool, a key and a
// dashboard session (neither with spec.NoCredentials). It emits
// workspace.created, phone_number.assigned and workspace.ready
// (workspace.provisioning_failed instead when spec.NumberFails).
func (s *Service) Provision(tx *platform.Tx, now time.Time, spec ProvisionSpec) *Provisioned {
	out := &Provisioned{}
	email := strings.ToLower(strings.TrimSpace(spec.Email))
	if u, ok := tx.UsersByEmail[email]; ok {
		out.User = u
	} else {
		out.User = &store.User{Email: email, EmailConfirmed: true}
		out.User.ID = s.IDs.UUID() // a user owns itself
		if spec.Preset != nil {
			out.User.ID = spec.Preset.UserID
		}
		tx.Users.Insert(out.User, out.User.ID, now)
		tx.UsersByEmail[email] = out.User
	}
	b := &store.Business{
		Name:               spec.BusinessName,
		OwnerUserID:        out.User.ID,
		Members:            map[string]string{},
		PartnerID:          spec.PartnerID,
		BusinessType:       spec.BusinessType,
		Website:            spec.Website,
		Phone:              spec.Phone,
		ForwardTo:          spec.ForwardTo,
		SubscriptionStatus: "active",
		Tenant:             spec.Tenant,
		TrialEndsAt:        now.Add(trialDuration).UTC(),
		Timezone:           "America/New_York",
	}
	if spec.ForwardTo != "" {
		b.RingFirstSeconds = 20
	}
	b.Members[out.User.ID] = store.RoleOwner
	if spec.Preset != nil {
		b.ID = spec.Preset.BusinessID
	}
	tx.InsertBusiness(b, now)
	out.Business = b
	s.Emit(tx, b.ID, webhooks.EventWorkspaceCreated, now, workspaceView(b))

	a := &store.Agent{
		Name:           spec.BusinessName + " Intake Agent",
		Status:         "active",
		InboundPrompt:  "You are the friendly intake agent of " + spec.BusinessName + ". Greet the caller, learn their name, email, phone and what they need, and promise a follow-up.",
		OutboundPrompt: "You are calling on behalf of " + spec.BusinessName + ". Be brief and helpful.",
		SMSPrompt:      "You text on behalf of " + spec.BusinessName + ". Keep messages short.",
		FirstMessage:   telephony.DefaultGreeting,
		Voice:          telephony.DefaultVoice,
		Model:          telephony.DefaultModel,
		Metadata:       map[string]any{},
		LeadCollection: true,
		Intake:         true,
	}
	if spec.Preset != nil {
		a.ID = spec.Preset.AgentID
	}
	tx.Agents.Insert(a, b.ID, now)
	a.UpdatedAt = a.CreatedAt
	// Through Update: the agents are found by their assistant.
	tx.Agents.Update(a, func(a *store.Agent) { s.telephony.CreateAssistant(tx, a) })
	out.Agent = a
	if spec.NumberFails {
		out.FailedStep = "phone_number"
	} else {
		phone := ""
		if spec.Preset != nil {
			phone = spec.Preset.PhoneNumber
		}
		out.Number = s.assignNumber(tx, now, b, a, phone)
	}

	if !spec.NoCredentials {
		scopes := spec.Scopes
		if len(scopes) == 0 {
			scopes = slices.Clone(signupDefaultScopes)
		}
		name := spec.KeyName
		if name == "" {
			name = "Default Key"
		}
		if spec.Preset != nil {
			out.APIKey = spec.Preset.APIKey
			out.Key = s.insertKey(tx, now, out.User.ID, out.APIKey, name, scopes, "", "")
			out.Session = s.insertSession(tx, now, out.User.ID, spec.Preset.Session)
		} else {
			out.APIKey, out.Key = s.IssueKey(tx, now, out.User.ID, name, scopes, "", "")
			out.Session = s.newSession(tx, now, out.User.ID)
		}
	}
	if out.FailedStep != "" {
		s.Emit(tx, b.ID, webhooks.EventWorkspaceProvisioningFailed, now, failedWorkspace{workspaceView(b), out.FailedStep})
	} else {
		s.Emit(tx, b.ID, webhooks.EventWorkspaceReady, now, workspaceView(b))
	}
	return out
}

// IssueKey creates a key for a user and returns its value (shown once) and
// record. businessID "" gives access to all the user's
// businesses; partnerID makes a
// partner key.
func (s *Service) IssueKey(tx *platform.Tx, now time.Time, userID, name string, scopes []string, businessID, partnerID string) (string, *store.APIKey) {
	value := httpapi.KeyPrefix + s.IDs.Base62(httpapi.KeyRandomLen)
	return value, s.insertKey(tx, now, userID, value, name, scopes, businessID, partnerID)
}

// insertKey stores a key of the given value for a user (IssueKey, or a
// seed account's key made again after a reset).
func (s *Service) insertKey(tx *platform.Tx, now time.Time, userID, value, name string, scopes []string, businessID, partnerID string) *store.APIKey {
	k := &store.APIKey{
		Hash:       httpapi.HashKey(value),
		Prefix:     value[:httpapi.KeyShownLen],
		Name:       name,
		Scopes:     slices.Clone(scopes),
		BusinessID: businessID,
		PartnerID:  partnerID,
		Active:     true,
	}
	tx.Keys.Insert(k, userID, now)
	return k
}

// newSession opens a dashboard session for a user.
func (s *Service) newSession(tx *platform.Tx, now time.Time, userID string) *store.Session {
	return s.insertSession(tx, now, userID, "sess_"+s.IDs.Token(24))
}

// insertSession stores a dashboard session with the given token.
func (s *Service) insertSession(tx *platform.Tx, now time.Time, userID, token string) *store.Session {
	sess := &store.Session{Token: token, ExpiresAt: now.Add(sessionTTL)}
	tx.Sessions.Insert(sess, userID, now)
	return sess
}

// assignNumber gives an agent a number and emits phone_number.assigned: phone
// when it is not empty (a seed account's number made again after a reset),
// otherwise the next number of the pool that nobody holds.
func (s *Service) assignNumber(tx *platform.Tx, now time.Time, b *store.Business, a *store.Agent, phone string) *store.Number {
	if phone == "" {
		phone = nextPoolNumber(tx)
	}
	n := &store.Number{PhoneNumber: phone, AgentID: a.ID}
	tx.Numbers.Insert(n, b.ID, now)
	a.PhoneNumber = phone
	s.Emit(tx, b.ID, webhooks.EventPhoneNumberAssigned, now, telephony.NumberView(n))
	return n
}

// nextPoolNumber takes the next number of the pool that nobody holds.
func nextPoolNumber(tx *platform.Tx) string {
	for {
		next := fmt.Sprintf("+1%d", numberPoolStart+tx.NextNumber)
		tx.NextNumber++
		if tx.NumbersByPhone[next] == nil {
			return next
		}
	}
}

// NewAccount provisions a ready tenant without signup: a user, a business,
// an intake agent, a number, a key and a session. Every account is its own
// tenant, so parallel tests can share one server.
func (s *Service) NewAccount(opts admin.AccountOptions) (*admin.Account, error) {
	if err := checkScopes(val.Strings[string](opts.Scopes)); err != nil {
		return nil, err
	}
	tx := s.WriteTx()
	defer tx.End()
	return s.CreateAccount(tx, opts), nil
}

// checkScopes refuses a scope the API does not have.
func checkScopes(scopes []string) error {
	for _, sc := range scopes {
		if !KeyMayHold(string(sc)) {
			return domain.InvalidField("scopes", "unknown scope %q", sc)
		}
	}
	return nil
}

// CreateAccount provisions a ready tenant as NewAccount does, with the
// state at hand; opts must hold known scopes.
func (s *Service) CreateAccount(tx *platform.Tx, opts admin.AccountOptions) *admin.Account {
	acct, _ := s.provisionAccount(tx, opts, nil)
	return acct
}

// seedAccount is an account SeedAccount made: its options with every
// default filled in, and what it was given.
type seedAccount struct {
	opts admin.AccountOptions
	acct admin.Account
}

// SeedAccount is NewAccount for an account the server keeps: every reset
// (unless asked to leave the server empty) provisions it again with the
// same ids, number, key and session, so a key printed at start keeps
// working. The standalone binary's demo account is one.
func (s *Service) SeedAccount(opts admin.AccountOptions) (*admin.Account, error) {
	if err := checkScopes(val.Strings[string](opts.Scopes)); err != nil {
		return nil, err
	}
	tx := s.WriteTx()
	defer tx.End()
	acct, resolved := s.provisionAccount(tx, opts, nil)
	s.seeds.Set(tx, append(s.seeds.Get(tx), seedAccount{opts: resolved, acct: *acct}))
	return acct, nil
}

// reseed provisions every seed account again (after a reset) and reports
// how many.
func (s *Service) reseed(tx *platform.Tx) int {
	seeds := s.seeds.Get(tx)
	for i := range seeds {
		s.provisionAccount(tx, seeds[i].opts, &seeds[i].acct)
	}
	return len(seeds)
}

// provisionAccount provisions an account with opts (the defaults filled
// in, as it returns them), or again as preset when preset is not nil.
func (s *Service) provisionAccount(tx *platform.Tx, opts admin.AccountOptions, preset *admin.Account) (*admin.Account, admin.AccountOptions) {
	if opts.BusinessName == "" {
		opts.BusinessName = "Test Business"
	}
	if opts.Email == "" {
		opts.Email = "owner-" + s.IDs.Token(6) + "@example.com"
	}
	if len(opts.Scopes) == 0 {
		opts.Scopes = val.Strings[voiceagent.Scope](AllScopes())
	}
	var partnerID, code string
	switch {
	case opts.Partner && preset != nil:
		partnerID, code = preset.PartnerID, preset.ReferralCode
	case opts.Partner:
		partnerID, code = s.IDs.UUID(), "ref_"+s.IDs.Token(5)
	}
	if partnerID != "" {
		tx.RegisterPartner(partnerID, code)
	}
	pr := s.Provision(tx, s.Now(""), ProvisionSpec{
		BusinessName: opts.BusinessName, Email: opts.Email, Scopes: val.Strings[string](opts.Scopes), KeyName: "Test Key",
		PartnerID: partnerID, Preset: preset,
	})
	if opts.Operator {
		pr.User.Operator = true
	}
	if partnerID != "" {
		pr.User.PartnerID = partnerID
	}
	return &admin.Account{
		APIKey:       pr.APIKey,
		BusinessID:   pr.Business.ID,
		AgentID:      pr.Agent.ID,
		PhoneNumber:  pr.Number.PhoneNumber,
		UserID:       pr.User.ID,
		Session:      pr.Session.Token,
		PartnerID:    partnerID,
		ReferralCode: code,
	}, opts
}

// DeleteAccount deletes the tenant whose root business is businessID
// (platform.RemoveTenant): every record, its clock and pending tasks, its
// scripts, fault rules, rate-limit counters and retained log entries; its
// keys and sessions are unknown afterwards. A seed account deleted is no
// longer provisioned again by a reset. It returns 400 when businessID is
// not a UUID or is a business of a tenant other than its root, 404 when
// no such business exists.
func (s *Service) DeleteAccount(tx *platform.Tx, businessID string) error {
	tenant, err := httpapi.TenantIn(tx, businessID)
	if err != nil {
		return err
	}
	if tenant != businessID {
		return domain.InvalidField("business_id", "%s is a business of the tenant %s: delete the tenant by its root business", businessID, tenant)
	}
	s.RemoveTenant(tx, tenant)
	return nil
}

// forgetSeed drops a deleted tenant's seed account (OnRemoveTenant).
func (s *Service) forgetSeed(tx *platform.Tx, tenant string) {
	seeds := s.seeds.Get(tx)
	kept := slices.DeleteFunc(slices.Clone(seeds), func(sa seedAccount) bool { return sa.acct.BusinessID == tenant })
	if len(kept) != len(seeds) {
		s.seeds.Set(tx, kept)
	}
}

func (s *Service) adminDeleteAccount(rc *httpapi.Ctx) (any, error) {
	id := rc.Request.PathValue("business_id")
	if err := s.DeleteAccount(rc.Tx, id); err != nil {
		return nil, err
	}
	return map[string]string{"deleted": id}, nil
}

// workspaceView is a business as GET /v1/capabilities and the workspace.*
// events show it.
func workspaceView(b *store.Business) account.Workspace {
	trialEnds := b.TrialEndsAt
	return account.Workspace{
		ID:                 b.ID,
		Name:               b.Name,
		BusinessType:       val.Strp(b.BusinessType),
		Website:            val.Strp(b.Website),
		SubscriptionStatus: b.SubscriptionStatus,
		TrialEndsAt:        &trialEnds,
		PartnerID:          b.PartnerID,
		CreatedAt:          b.CreatedAt,
	}
}

// failedWorkspace is the data of workspace.provisioning_failed: the
// workspace and the step that failed.
type failedWorkspace struct {
	account.Workspace
	FailedStep string `json:"failed_step"`
}

func (s *Service) adminAccounts(rc *httpapi.Ctx) (any, error) {
	var opts admin.AccountOptions
	if len(strings.TrimSpace(string(rc.Body))) > 0 {
		if err := rc.Decode(&opts); err != nil {
			return nil, err
		}
	}
	for _, sc := range opts.Scopes {
		if !KeyMayHold(string(sc)) {
			return nil, domain.InvalidField("scopes", "unknown scope %q", sc)
		}
	}
	return httpapi.Created(s.CreateAccount(rc.Tx, opts)), nil
}
