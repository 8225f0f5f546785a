package wire

import "slices"

// Scopes of the API (spec section 5). ScopeAll is the wildcard, which
// grants every scope.
const (
	ScopeAll                    = "*"
	ScopeWorkspacesRead         = "workspaces:read"
	ScopeWorkspacesWrite        = "workspaces:write"
	ScopeNumbersRead            = "numbers:read"
	ScopeNumbersWrite           = "numbers:write"
	ScopeAgentsRead             = "agents:read"
	ScopeAgentsWrite            = "agents:write"
	ScopeCommunicationRunsRead  = "communication-runs:read"
	ScopeCommunicationRunsWrite = "communication-runs:write"
	ScopeCallsRead              = "calls:read"
	ScopeCallsWrite             = "calls:write"
	ScopeSMSRead                = "sms:read"
	ScopeSMSWrite               = "sms:write"
	ScopeWebhooksRead           = "webhooks:read"
	ScopeWebhooksWrite          = "webhooks:write"
	ScopeEventsRead             = "events:read"
	ScopeEventsReplay           = "events:replay"
	ScopeLifecycleWrite         = "lifecycle:write"
	ScopeLeadsRead              = "leads:read"
	ScopeLeadsWrite             = "leads:write"
	ScopeEmailsRead             = "emails:read"
	ScopeEmailsWrite            = "emails:write"
	ScopeSDRRead                = "sdr:read"
	ScopeSDRWrite               = "sdr:write"
	ScopeEvalsRead              = "evals:read"
	ScopeEvalsWrite             = "evals:write"
	ScopeAppointmentsRead       = "appointments:read"
	ScopeAppointmentsWrite      = "appointments:write"
	ScopeKnowledgeRead          = "knowledge:read"
	ScopeKnowledgeWrite         = "knowledge:write"
	ScopeProductsRead           = "products:read"
	ScopeProductsWrite          = "products:write"
	ScopeApprovalsWrite         = "approvals:write"
	ScopeConciergeWrite         = "concierge:write"
	ScopeBillingRead            = "billing:read"
	ScopeBillingWrite           = "billing:write"
	ScopeCallEvidenceRead       = "call_evidence:read"
	ScopeCallEvidenceWrite      = "call_evidence:write"
	ScopeSupportWrite           = "support:write"
)

// AllScopes lists every scope of the API except the wildcard, in the order
// of spec section 5. Callers must not modify it.
var AllScopes = []string{
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

// PlatformOnlyScopes are the scopes a signup may not request: only the
// platform grants them. Callers must not modify it.
var PlatformOnlyScopes = []string{ScopeApprovalsWrite, ScopeConciergeWrite}

// SignupDefaultScopes is the read-only set a signup in email verification
// mode grants when api_key_scopes is omitted. Callers must not modify it.
var SignupDefaultScopes = []string{
	ScopeWorkspacesRead, ScopeNumbersRead, ScopeAgentsRead, ScopeCommunicationRunsRead,
	ScopeCallsRead, ScopeSMSRead, ScopeWebhooksRead, ScopeEventsRead,
}

// KeyDefaultScopes is the scope set of a new standard key created without
// scopes: agents, numbers, calls, sms and emails, read and write each.
// Callers must not modify it.
var KeyDefaultScopes = []string{
	ScopeAgentsRead, ScopeAgentsWrite, ScopeNumbersRead, ScopeNumbersWrite,
	ScopeCallsRead, ScopeCallsWrite, ScopeSMSRead, ScopeSMSWrite,
	ScopeEmailsRead, ScopeEmailsWrite,
}

// IsScope reports whether s is a scope of the API, that is one of
// AllScopes. The wildcard ScopeAll is not.
func IsScope(s string) bool { return slices.Contains(AllScopes, s) }
