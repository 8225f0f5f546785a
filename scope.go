package voiceagent

// Scope is a permission carried by an API key.
type Scope string

// Scopes of the API (spec section 5), in its order. ScopeAll is the
// wildcard, which grants every scope.
//
// These constants and the lists below are the one definition of the
// scopes: the mock server grants and checks these, and a test holds the
// OpenAPI documents' scope enums equal to AllScopes.
const (
	ScopeAll                    Scope = "*"
	ScopeWorkspacesRead         Scope = "workspaces:read"
	ScopeWorkspacesWrite        Scope = "workspaces:write"
	ScopeNumbersRead            Scope = "numbers:read"
	ScopeNumbersWrite           Scope = "numbers:write"
	ScopeAgentsRead             Scope = "agents:read"
	ScopeAgentsWrite            Scope = "agents:write"
	ScopeCommunicationRunsRead  Scope = "communication-runs:read"
	ScopeCommunicationRunsWrite Scope = "communication-runs:write"
	ScopeCallsRead              Scope = "calls:read"
	ScopeCallsWrite             Scope = "calls:write"
	ScopeSMSRead                Scope = "sms:read"
	ScopeSMSWrite               Scope = "sms:write"
	ScopeWebhooksRead           Scope = "webhooks:read"
	ScopeWebhooksWrite          Scope = "webhooks:write"
	ScopeEventsRead             Scope = "events:read"
	ScopeEventsReplay           Scope = "events:replay"
	ScopeLifecycleWrite         Scope = "lifecycle:write"
	ScopeLeadsRead              Scope = "leads:read"
	ScopeLeadsWrite             Scope = "leads:write"
	ScopeEmailsRead             Scope = "emails:read"
	ScopeEmailsWrite            Scope = "emails:write"
	ScopeSDRRead                Scope = "sdr:read"
	ScopeSDRWrite               Scope = "sdr:write"
	ScopeEvalsRead              Scope = "evals:read"
	ScopeEvalsWrite             Scope = "evals:write"
	ScopeAppointmentsRead       Scope = "appointments:read"
	ScopeAppointmentsWrite      Scope = "appointments:write"
	ScopeKnowledgeRead          Scope = "knowledge:read"
	ScopeKnowledgeWrite         Scope = "knowledge:write"
	ScopeProductsRead           Scope = "products:read"
	ScopeProductsWrite          Scope = "products:write"
	ScopeApprovalsWrite         Scope = "approvals:write"
	ScopeConciergeWrite         Scope = "concierge:write"
	ScopeBillingRead            Scope = "billing:read"
	ScopeBillingWrite           Scope = "billing:write"
	ScopeCallEvidenceRead       Scope = "call_evidence:read"
	ScopeCallEvidenceWrite      Scope = "call_evidence:write"
	ScopeSupportWrite           Scope = "support:write"
)

// AllScopes lists every scope of the API except the wildcard, in the order
// of spec section 5.
var AllScopes = []Scope{
	ScopeWorkspacesRead, ScopeWorkspacesWrite, ScopeNumbersRead, ScopeNumbersWrite,
	ScopeAgentsRead, ScopeAgentsWrite, ScopeCommunicationRunsRead, ScopeCommunicationRunsWrite,
	ScopeCallsRead, ScopeCallsWrite, ScopeSMSRead, ScopeSMSWrite, ScopeWebhooksRead,
	ScopeWebhooksWrite, ScopeEventsRead, ScopeEventsReplay, ScopeLifecycleWrite,
	ScopeLeadsRead, ScopeLeadsWrite, ScopeEmailsRead, ScopeEmailsWrite, ScopeSDRRead,
	ScopeSDRWrite, ScopeEvalsRead, ScopeEvalsWrite, ScopeAppointmentsRead,
	ScopeAppointmentsWrite, ScopeKnowledgeRead, ScopeKnowledgeWrite, ScopeProductsRead,
	ScopeProductsWrite, ScopeApprovalsWrite, ScopeConciergeWrite, ScopeBillingRead,
	ScopeBillingWrite, ScopeCallEvidenceRead, ScopeCallEvidenceWrite, ScopeSupportWrite,
}

// PlatformOnlyScopes are the scopes only the platform grants: a signup may
// not request them, nor an agency hand them to a partner key.
var PlatformOnlyScopes = []Scope{ScopeApprovalsWrite, ScopeConciergeWrite}

// SignupDefaultScopes is the read-only set a signup in email verification
// mode grants when api_key_scopes is omitted.
var SignupDefaultScopes = []Scope{
	ScopeWorkspacesRead, ScopeNumbersRead, ScopeAgentsRead, ScopeCommunicationRunsRead,
	ScopeCallsRead, ScopeSMSRead, ScopeWebhooksRead, ScopeEventsRead,
}

// KeyDefaultScopes is the scope set of a new standard key created without
// scopes: agents, numbers, calls, sms and emails, read and write each.
var KeyDefaultScopes = []Scope{
	ScopeAgentsRead, ScopeAgentsWrite, ScopeNumbersRead, ScopeNumbersWrite,
	ScopeCallsRead, ScopeCallsWrite, ScopeSMSRead, ScopeSMSWrite,
	ScopeEmailsRead, ScopeEmailsWrite,
}
