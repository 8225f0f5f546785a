package mockserver

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/identity"
)

// Account is a ready tenant: what NewAccount returns and POST
// /_mock/accounts responds with. Its tenant has a clock of its own (Advance, Now) and fault rules
// of its own (AddFault), and Client hands out an SDK client already
// pointed at the server, so tests in parallel on one server each use their
// own account and never see each other.
type Account struct {
	APIKey      string `json:"api_key"`
	BusinessID  string `json:"business_id"`
	AgentID     string `json:"agent_id"`
	PhoneNumber string `json:"phone_number"`
	UserID      string `json:"user_id"`
	// Session is a dashboard session token (the voiceagent_session cookie),
	// for key management: voiceagent.WithSessionCookie(acct.Session).
	Session string `json:"session"`
	// PartnerID and ReferralCode are set for AccountOptions.Partner.
	PartnerID    string `json:"partner_id,omitempty"`
	ReferralCode string `json:"referral_code,omitempty"`

	srv *Server
}

// account is a's public face on s.
func (s *Server) account(a *identity.Account) *Account {
	return &Account{
		APIKey: a.APIKey, BusinessID: a.BusinessID, AgentID: a.AgentID, PhoneNumber: a.PhoneNumber,
		UserID: a.UserID, Session: a.Session, PartnerID: a.PartnerID, ReferralCode: a.ReferralCode, srv: s,
	}
}

// accounts is account of each, keeping err.
func (s *Server) accounts(as []*identity.Account, err error) ([]*Account, error) {
	out := make([]*Account, 0, len(as))
	for _, a := range as {
		out = append(out, s.account(a))
	}
	return out, publicError(err)
}

// Client returns an SDK client of the account: its key, the server's base
// URL, and no client-side rate limiting (the server enforces the API's
// limits itself; switch them off with WithRateLimits(false)). opts come
// last, so they can change any of it. A server started with Start is
// reached over its loopback port; one made with New, which listens
// nowhere, is called in-process.
func (a *Account) Client(opts ...voiceagent.Option) *client.Client { return a.srv.Client(a, opts...) }

// Now returns the account's tenant's simulated time.
func (a *Account) Now() time.Time { return a.srv.tenantNow(a.BusinessID) }

// Advance moves the account's tenant's clock forward by d, running every
// simulated process of the tenant that falls due on the way (calls, texts,
// deliveries and their retries, runs, the SDR schedule), and returns the
// tenant's new time. Other tenants' clocks do not move.
func (a *Account) Advance(d time.Duration) time.Time { return a.srv.advanceTenant(a.BusinessID, d) }

// AddFault installs a fault injection rule that fires only on requests of
// the account's tenant (by key or session), and returns it with its id.
func (a *Account) AddFault(f FaultRule) (FaultRule, error) {
	f.BusinessID = a.BusinessID
	return a.srv.AddFault(f)
}

// Client returns an SDK client of acct against this server: see
// Account.Client.
func (s *Server) Client(acct *Account, opts ...voiceagent.Option) *client.Client {
	base := []voiceagent.Option{voiceagent.WithRateLimiting(false)}
	if s.baseURL != "" {
		base = append(base, voiceagent.WithBaseURL(s.baseURL))
	} else {
		base = append(base, voiceagent.WithBaseURL("http://mockserver.invalid/api"),
			voiceagent.WithHTTPClient(&http.Client{Transport: inProcess{s}}))
	}
	return client.New(acct.APIKey, append(base, opts...)...)
}

// tenantNow is the time of the tenant owning a business (the base time for
// an unknown one).
func (s *Server) tenantNow(businessID string) time.Time {
	t, err := s.httpapi.TenantOfBusiness(businessID)
	if err != nil {
		return s.Now()
	}
	return s.platform.Now(t)
}

// advanceTenant moves the clock of the tenant owning a business.
func (s *Server) advanceTenant(businessID string, d time.Duration) time.Time {
	t, err := s.httpapi.TenantOfBusiness(businessID)
	if err != nil {
		panic("mockserver: Advance: " + err.Error())
	}
	return s.platform.Clocks.Of(t).Advance(d)
}

// inProcess is an http.RoundTripper that serves requests with the server's
// handler, for a server that listens nowhere.
type inProcess struct{ s *Server }

// errDropped is what a dropped connection (an injected fault) looks like
// to an in-process client.
var errDropped = errors.New("mockserver: the connection was closed without an answer (an injected fault)")

// RoundTrip serves r in-process.
func (t inProcess) RoundTrip(r *http.Request) (resp *http.Response, err error) {
	defer func() {
		if v := recover(); v != nil {
			if v != http.ErrAbortHandler {
				panic(v)
			}
			resp, err = nil, errDropped
		}
	}()
	in := r.Clone(r.Context())
	in.RemoteAddr = "127.0.0.1:1"
	in.RequestURI = r.URL.RequestURI()
	if in.Body == nil {
		in.Body = http.NoBody
	}
	rec := httptest.NewRecorder()
	t.s.ServeHTTP(rec, in)
	resp = rec.Result()
	resp.Request = r
	return resp, nil
}
