package telephony_test

import (
	"testing"
	"time"

	"github.com/voiceagent/voiceagent-go/mockserver/internal/hooks"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/identity"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// start is the simulated time every test world begins at.
var start = time.Date(2026, 3, 2, 15, 0, 0, 0, time.UTC)

// world is a platform with telephony wired as mockserver.New wires it and
// one provisioned account (a business, its intake agent and number).
type world struct {
	p    *platform.Platform
	tel  *telephony.Service
	acct *identity.Provisioned
}

func newWorld(t *testing.T) *world {
	t.Helper()
	p := platform.New(platform.Config{Start: start})
	hk := hooks.New(p)
	tel := telephony.New(p, hk)
	id := identity.New(p, httpapi.New(p), tel)
	w := &world{p: p, tel: tel}
	p.Write(func(tx *platform.Tx) {
		w.acct = id.Provision(tx, start, identity.ProvisionSpec{BusinessName: "Acme Plumbing", Email: "owner@acme.example"})
	})
	if w.acct.Agent == nil || w.acct.Number == nil {
		t.Fatalf("provisioning made no agent or number: %+v", w.acct)
	}
	return w
}

// tenant is the account's tenant, whose clock runs its calls.
func (w *world) tenant() string { return w.acct.Business.Tenant }

// advance moves the account's clock on by d, running what falls due.
func (w *world) advance(d time.Duration) { w.p.Clocks.Of(w.tenant()).Advance(d) }
