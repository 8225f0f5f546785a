package voiceagent

import (
	"github.com/voiceagent/voiceagent-go/internal/wire"
)

// Scope is a permission carried by an API key.
type Scope string

// Scopes of the API (spec section 5). ScopeAll is the wildcard.
const (
	ScopeAll                    Scope = wire.ScopeAll
	ScopeWorkspacesRead         Scope = wire.ScopeWorkspacesRead
	ScopeWorkspacesWrite        Scope = wire.ScopeWorkspacesWrite
	ScopeNumbersRead            Scope = wire.ScopeNumbersRead
	ScopeNumbersWrite           Scope = wire.ScopeNumbersWrite
	ScopeAgentsRead             Scope = wire.ScopeAgentsRead
	ScopeAgentsWrite            Scope = wire.ScopeAgentsWrite
	ScopeCommunicationRunsRead  Scope = wire.ScopeCommunicationRunsRead
	ScopeCommunicationRunsWrite Scope = wire.ScopeCommunicationRunsWrite
	ScopeCallsRead              Scope = wire.ScopeCallsRead
	ScopeCallsWrite             Scope = wire.ScopeCallsWrite
	ScopeSMSRead                Scope = wire.ScopeSMSRead
	ScopeSMSWrite               Scope = wire.ScopeSMSWrite
	ScopeWebhooksRead           Scope = wire.ScopeWebhooksRead
	ScopeWebhooksWrite          Scope = wire.ScopeWebhooksWrite
	ScopeEventsRead             Scope = wire.ScopeEventsRead
	ScopeEventsReplay           Scope = wire.ScopeEventsReplay
	ScopeLifecycleWrite         Scope = wire.ScopeLifecycleWrite
	ScopeLeadsRead              Scope = wire.ScopeLeadsRead
	ScopeLeadsWrite             Scope = wire.ScopeLeadsWrite
	ScopeEmailsRead             Scope = wire.ScopeEmailsRead
	ScopeEmailsWrite            Scope = wire.ScopeEmailsWrite
	ScopeSDRRead                Scope = wire.ScopeSDRRead
	ScopeSDRWrite               Scope = wire.ScopeSDRWrite
	ScopeEvalsRead              Scope = wire.ScopeEvalsRead
	ScopeEvalsWrite             Scope = wire.ScopeEvalsWrite
	ScopeAppointmentsRead       Scope = wire.ScopeAppointmentsRead
	ScopeAppointmentsWrite      Scope = wire.ScopeAppointmentsWrite
	ScopeKnowledgeRead          Scope = wire.ScopeKnowledgeRead
	ScopeKnowledgeWrite         Scope = wire.ScopeKnowledgeWrite
	ScopeProductsRead           Scope = wire.ScopeProductsRead
	ScopeProductsWrite          Scope = wire.ScopeProductsWrite
	ScopeApprovalsWrite         Scope = wire.ScopeApprovalsWrite
	ScopeConciergeWrite         Scope = wire.ScopeConciergeWrite
	ScopeBillingRead            Scope = wire.ScopeBillingRead
	ScopeBillingWrite           Scope = wire.ScopeBillingWrite
	ScopeCallEvidenceRead       Scope = wire.ScopeCallEvidenceRead
	ScopeCallEvidenceWrite      Scope = wire.ScopeCallEvidenceWrite
	ScopeSupportWrite           Scope = wire.ScopeSupportWrite
)

// The lists below are copies of package wire's: a program that changes one
// does not change the tables an in-process mock server checks scopes with.

// AllScopes lists every scope of the API except the wildcard.
var AllScopes = scopes(wire.AllScopes)

// SignupDefaultScopes is the read-only set a signup in email verification
// mode grants when api_key_scopes is omitted.
var SignupDefaultScopes = scopes(wire.SignupDefaultScopes)

// KeyDefaultScopes is the scope set of a new standard key created without
// scopes: agents, numbers, calls, sms and emails, read and write each.
var KeyDefaultScopes = scopes(wire.KeyDefaultScopes)

// scopes returns a copy of names as scopes.
func scopes(names []string) []Scope {
	out := make([]Scope, len(names))
	for i, n := range names {
		out[i] = Scope(n)
	}
	return out
}
