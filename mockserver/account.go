package mockserver

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"time"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/client"
	"github.com/voiceagent/voiceagent-go/mockserver/admin"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/webhooks"
)

// Account is a ready tenant: what NewAccount returns and POST
// /_mock/accounts responds with. Its tenant has a clock of its own (Advance, Now) and fault rules
// of its own (AddFault), and Client hands out an SDK client already
// pointed at the server, so tests in parallel on one server each use their
// own account and never see each other.
type Account struct {
	// Account is the account's key, business, agent, number, user and
	// session (admin.Account).
	admin.Account

	srv *Server
}

// account is a's public face on s.
func (s *Server) account(a *admin.Account) *Account {
	return &Account{Account: *a, srv: s}
}

// AccountOf returns the Account of a tenant made elsewhere (a key and a
// business the standalone binary printed at start, an account another
// process made) on s, so its helpers and Client work on it.
func (s *Server) AccountOf(a admin.Account) *Account { return s.account(&a) }

// accounts is account of each, keeping err.
func (s *Server) accounts(as []*admin.Account, err error) ([]*Account, error) {
	out := make([]*Account, 0, len(as))
	for _, a := range as {
		out = append(out, s.account(a))
	}
	return out, publicError(err)
}

// Client returns an SDK client of the account: its key, the server's base
// URL, no client-side rate limiting (the server enforces the API's limits
// itself; switch them off with WithRateLimits(false)), and test-sized
// retry waits: it retries what the SDK retries, as often, but waits
// ClientRetryWaitMin to ClientRetryWaitMax between attempts instead of
// half a second and more, and returns at once an answer whose Retry-After
// is longer (a 429), so that a test of a failure path (an injected 503, the
// magic numbers) takes milliseconds. opts come last, so they can change
// any of it (voiceagent.WithRetryWait restores the SDK's waits). A server
// started with Start is reached over its loopback port, one reached with
// Connect at its URL; one made with New, which listens nowhere, is called
// in process. voiceagent.WithHTTPClient works on each: on a server made
// with New a client whose Transport is nil is served in process (a copy of
// it, its timeout, jar and redirect policy kept), and one with a transport
// of its own is pointed at a loopback port the server opens then
// (LoopbackURL), since only a network can carry its requests.
func (a *Account) Client(opts ...voiceagent.Option) *client.Client { return a.srv.Client(a, opts...) }

// The retry waits of the clients Account.Client and Server.Client return.
const (
	ClientRetryWaitMin = time.Millisecond
	ClientRetryWaitMax = 10 * time.Millisecond
)

// Now returns the account's tenant's simulated time.
func (a *Account) Now() time.Time { return a.srv.clock(a.BusinessID) }

// Advance moves the account's tenant's clock forward by d, running every
// simulated process of the tenant that falls due on the way (calls, texts,
// deliveries and their retries, runs, the SDR schedule), and returns the
// tenant's new time. Other tenants' clocks do not move. Like
// Server.Advance, it panics when d is negative or longer than 400 days, or
// when the clock would reach 9000-01-01T00:00:00Z, where POST
// /_mock/clock/advance answers 400: time never moves back.
func (a *Account) Advance(d time.Duration) time.Time { return a.srv.advance(a.BusinessID, d) }

// AddFault installs a fault injection rule that fires only on requests of
// the account's tenant (by key or session), and returns it with its id.
func (a *Account) AddFault(f FaultRule) (FaultRule, error) {
	f.BusinessID = a.BusinessID
	return a.srv.AddFault(f)
}

// Delete deletes the account's tenant, as DELETE
// /_mock/accounts/{business_id} does: every record of its businesses, its
// clock and pending tasks, its scripts, fault rules, rate-limit counters
// and retained log entries. Its key and session get 401 afterwards. A test
// that makes an account on a server it shares with other tests (Start
// once for a package, the binary, a container) deletes it when it ends:
//
//	t.Cleanup(func() { _ = acct.Delete(context.Background()) })
//
// It returns a *Error (404 not_found) when the tenant is gone already, and
// ctx's error when ctx is done.
func (a *Account) Delete(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return a.srv.api.do(ctx, http.MethodDelete, "/accounts/"+url.PathEscape(a.BusinessID), nil, nil, nil)
}

// ClearRateLimits drops the rate-limit counters of the account's tenant's
// keys and sessions: see Server.ClearRateLimits.
func (a *Account) ClearRateLimits() (int, error) { return a.srv.ClearRateLimits("", a.BusinessID) }

// The account's forms of the Server's helpers: the same, for the account's
// own business (and its number where one is called or texted).

// InboundCall makes a caller ring the account's number (in.To when set)
// and returns the call's id: see Server.InboundCall.
func (a *Account) InboundCall(in InboundCall) (string, error) {
	if in.To == "" {
		in.To = a.PhoneNumber
	}
	return a.srv.InboundCall(in)
}

// InboundSMS makes a person text the account's number (in.To when set):
// see Server.InboundSMS.
func (a *Account) InboundSMS(in InboundSMS) (InboundSMSResult, error) {
	if in.To == "" {
		in.To = a.PhoneNumber
	}
	return a.srv.InboundSMS(in)
}

// SetConsent sets a number's SMS consent towards the account's business:
// see Server.SetConsent.
func (a *Account) SetConsent(phone string, status Consent) error {
	return a.srv.SetConsent(a.BusinessID, phone, status)
}

// Consent returns a number's SMS consent towards the account's business.
func (a *Account) Consent(phone string) Consent { return a.srv.Consent(a.BusinessID, phone) }

// AddDoNotCall puts a number on the business's do-not-call list: see
// Server.AddDoNotCall.
func (a *Account) AddDoNotCall(phone string) error { return a.srv.AddDoNotCall(a.BusinessID, phone) }

// RemoveDoNotCall takes a number off the business's do-not-call list.
func (a *Account) RemoveDoNotCall(phone string) error {
	return a.srv.RemoveDoNotCall(a.BusinessID, phone)
}

// SeedCalls stores finished calls in the account's business: see
// Server.SeedCalls.
func (a *Account) SeedCalls(calls []CallFixture) ([]string, error) {
	return a.srv.SeedCalls(a.BusinessID, calls)
}

// SeedLeads stores leads in the account's business: see Server.SeedLeads.
func (a *Account) SeedLeads(leads []LeadFixture) ([]string, error) {
	return a.srv.SeedLeads(a.BusinessID, leads)
}

// EmitEvent records an event of the account's business and delivers it:
// see Server.EmitEvent.
func (a *Account) EmitEvent(eventType webhooks.EventType, data any) (string, error) {
	return a.srv.EmitEvent(a.BusinessID, eventType, data)
}

// Deliveries returns the deliveries of the account's tenant that pass the
// filter, oldest first (f.Tenant is set to the account's).
func (a *Account) Deliveries(f DeliveryFilter) []Delivery {
	f.Tenant = a.BusinessID
	return a.srv.Deliveries(f)
}

// WaitDeliveries waits until at least one delivery of the account's tenant
// matches (nil: any), or ctx ends, and returns the matching ones: see
// Server.WaitDeliveries.
func (a *Account) WaitDeliveries(ctx context.Context, match func(*Delivery) bool) []Delivery {
	return a.srv.waitDeliveries(ctx, 1, DeliveryFilter{Tenant: a.BusinessID}, match)
}

// Requests returns the journaled requests of the account's tenant, oldest
// first, for which match (nil: all) reports true.
func (a *Account) Requests(match func(*JournalEntry) bool) []JournalEntry {
	es, _, err := a.srv.requests(context.Background(), a.BusinessID, func(e *JournalEntry) bool {
		return e.BusinessID == a.BusinessID && (match == nil || match(e))
	})
	must(err)
	return es
}

// WaitRequests waits until at least one journaled request of the account's
// tenant matches (nil: any), or ctx ends, and returns the matching ones:
// see Server.WaitRequests.
func (a *Account) WaitRequests(ctx context.Context, match func(*JournalEntry) bool) []JournalEntry {
	return a.srv.waitRequests(ctx, a.BusinessID, func(e *JournalEntry) bool {
		return e.BusinessID == a.BusinessID && (match == nil || match(e))
	})
}

// MinutesUsed returns the minutes the account's business's calls used.
func (a *Account) MinutesUsed() int { return a.srv.MinutesUsed(a.BusinessID) }

// Client returns an SDK client of acct against this server: see
// Account.Client.
func (s *Server) Client(acct *Account, opts ...voiceagent.Option) *client.Client {
	before, after := s.clientOptions(opts)
	return client.New(acct.APIKey, append(append(before, opts...), after...)...)
}

// clientOptions are the options of the clients Client returns, before and
// after the caller's opts. A server that listens nowhere (New) is called
// in process, through its handler, also when the caller gives an HTTP
// client whose Transport is nil (a copy of it is used, with the in-process
// transport, given after the caller's options); a client with a transport
// of its own (a recorder, a proxy) can only carry requests over a network,
// so the server then opens a loopback port (LoopbackURL) and the client is
// pointed there.
func (s *Server) clientOptions(opts []voiceagent.Option) (before, after []voiceagent.Option) {
	before = []voiceagent.Option{voiceagent.WithRateLimiting(false), voiceagent.WithRetryWait(ClientRetryWaitMin, ClientRetryWaitMax)}
	if s.baseURL != "" {
		return append(before, voiceagent.WithBaseURL(s.baseURL)), nil
	}
	hc := voiceagent.DefaultConfig().Apply(opts...).HTTPClient
	switch {
	case hc == nil || hc == http.DefaultClient:
		return append(before, voiceagent.WithBaseURL(inProcessRoot+"/api"),
			voiceagent.WithHTTPClient(&http.Client{Transport: inProcess{s}})), nil
	case hc.Transport == nil:
		in := *hc
		in.Transport = inProcess{s}
		return append(before, voiceagent.WithBaseURL(inProcessRoot+"/api")), []voiceagent.Option{voiceagent.WithHTTPClient(&in)}
	}
	return append(before, voiceagent.WithBaseURL(s.LoopbackURL()+"/api")), nil
}

// clock returns the time of the tenant owning businessID ("": the base
// time), from GET /_mock/clock.
func (s *Server) clock(businessID string) time.Time {
	var c admin.Clock
	s.mustAdmin(http.MethodGet, "/clock", query("business_id", businessID), nil, &c)
	return c.Now
}

// advance moves the clock of the tenant owning businessID ("": the base
// time and every tenant) through POST /_mock/clock/advance; it panics
// where the route answers 400 (see Server.Advance).
func (s *Server) advance(businessID string, d time.Duration) time.Time {
	checkAdvance(d)
	body := map[string]any{"seconds": d.Seconds()}
	if businessID != "" {
		body["business_id"] = businessID
	}
	var c admin.Clock
	if err := s.admin(http.MethodPost, "/clock/advance", nil, body, &c); err != nil {
		panic(fmt.Sprintf("mockserver: Advance(%s): %v", d, err))
	}
	return c.Now
}

// checkAdvance panics when POST /_mock/clock/advance would refuse to move
// a clock by d (its body's schema: 0 to 400 days), with the route's
// message.
func checkAdvance(d time.Duration) {
	if err := httpapi.Validate("mockClockAdvance", map[string]float64{"seconds": d.Seconds()}); err != nil {
		panic(fmt.Sprintf("mockserver: Advance(%s): %v", d, err))
	}
}

// inProcessRoot is the root URL of a server called in process: its
// transport serves every request with the server's handler, whatever the
// host (a loopback name, which the admin API serves without a token).
const inProcessRoot = "http://localhost"

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
