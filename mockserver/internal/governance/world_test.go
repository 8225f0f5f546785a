package governance

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/domain"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/hooks"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/identity"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/store"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// start is the simulated time every test world begins at.
var start = time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)

// world is a platform with the domains governance uses, wired as
// mockserver.New wires them, and two provisioned accounts.
type world struct {
	p      *platform.Platform
	gov    *Service
	acct   *identity.Provisioned
	other  *identity.Provisioned // another tenant
	key    *domain.Actor         // a key of the account with every scope
	dash   *domain.Actor         // the account's dashboard session
	failed bool                  // the voice provider fails (providerFault)
}

func newWorld(t *testing.T) *world {
	t.Helper()
	p := platform.New(platform.Config{Start: start, ApprovalCallbackHosts: []string{"hooks.example"}})
	hk := hooks.New(p)
	tel := telephony.New(p, hk)
	id := identity.New(p, httpapi.New(p), tel)
	w := &world{p: p, gov: New(p, hk, tel)}
	p.Write(func(tx *platform.Tx) {
		w.acct = id.Provision(tx, start, identity.ProvisionSpec{BusinessName: "Acme Plumbing", Email: "owner@acme.example"})
		w.other = id.Provision(tx, start, identity.ProvisionSpec{BusinessName: "Other Co", Email: "owner@other.example"})
	})
	require.NotNil(t, w.acct.Number)
	w.key = w.withScopes(string(voiceagent.ScopeAll))
	w.dash = w.actor("", w.acct.Session.ID)
	return w
}

// actor is the account's caller with a key (keyID, holding scopes) or a
// session (sessionID).
func (w *world) actor(keyID, sessionID string, scopes ...string) *domain.Actor {
	return &domain.Actor{UserID: w.acct.User.ID, KeyID: keyID, SessionID: sessionID, Scopes: scopes,
		Businesses: []string{w.acct.Business.ID}, Tenant: w.acct.Business.Tenant}
}

// withScopes is a caller whose key holds only scopes.
func (w *world) withScopes(scopes ...string) *domain.Actor {
	return w.actor("key", "", scopes...)
}

// providerFault is the voice provider's simulated failure while w.failed.
func (w *world) providerFault() *domain.Error {
	if w.failed {
		return domain.Dependency("bad_gateway", "the provider is down")
	}
	return nil
}

// advance moves the account's clock on by d, running what falls due.
func (w *world) advance(d time.Duration) { w.p.Clocks.Of(w.key.Tenant).Advance(d) }

// agent returns the account's agent as stored now.
func (w *world) agent() *store.Agent {
	var a *store.Agent
	w.p.Read(func(tx *platform.Tx) { a, _ = tx.Agents.Get(w.acct.Agent.ID) })
	return a
}

// request is a governed update request with the body's JSON, decoded as
// the handler decodes it.
func request(t *testing.T, body string) *GovernedRequest {
	t.Helper()
	var req GovernedRequest
	require.NoError(t, json.Unmarshal([]byte(body), &req))
	require.NoError(t, json.Unmarshal([]byte(body), &req.Sent))
	return &req
}

// submit submits req of who at the account's current time.
func (w *world) submit(who *domain.Actor, req *GovernedRequest) (Submitted, error) {
	var out Submitted
	var err error
	w.p.Write(func(tx *platform.Tx) {
		out, err = w.gov.Submit(tx, w.p.Now(w.key.Tenant), who, req, w.providerFault)
	})
	return out, err
}

// responseBody is the body of the response to a submission: the stored
// update's view, or the error of a rejection.
func responseBody(out Submitted) []byte {
	if out.Rejection != nil {
		return httpapi.ErrorResponse(out.Rejection).Body
	}
	return out.Body
}

// apiError is err as an API error with code.
func apiError(t *testing.T, err error, code string) *domain.Error {
	t.Helper()
	var e *domain.Error
	require.ErrorAs(t, err, &e)
	require.Equal(t, code, e.Code, e.Message)
	return e
}

// paths are the detail paths of an API error.
func paths(e *domain.Error) []string {
	var out []string
	for _, d := range e.Details {
		out = append(out, d.Path)
	}
	return out
}
