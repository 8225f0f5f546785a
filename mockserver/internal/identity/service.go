// Package identity is the identity domain of the mock server: signup and
// provisioning, accounts (the admin route and NewAccount), dashboard sessions
// and magic links, API keys, the outbox, the account reads (balance, usage,
// capabilities, schemas) and the OpenAPI documents.
package identity

import (
	"github.com/voiceagent/voiceagent-go/mockserver/internal/httpapi"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/platform"
	"github.com/voiceagent/voiceagent-go/mockserver/internal/telephony"
)

// Service is the identity domain of one server.
type Service struct {
	*platform.Platform
	httpapi   *httpapi.API
	telephony *telephony.Service
	// seeds are SeedAccount's accounts: state that outlives a reset,
	// reached with a Tx.
	seeds platform.Guarded[[]seedAccount]
}

// New returns the identity domain of engine p; provisioning makes agents and numbers through tel.
func New(p *platform.Platform, api *httpapi.API, tel *telephony.Service) *Service {
	s := &Service{Platform: p, httpapi: api, telephony: tel}
	p.OnReseed(s.reseed)
	p.OnRemoveTenant(s.forgetSeed)
	s.defineForgetTasks()
	return s
}
