package httpapi

import "slices"

// AllScopes is every scope of spec section 5.
var AllScopes = []string{
	"workspaces:read", "workspaces:write", "numbers:read", "numbers:write",
	"agents:read", "agents:write", "communication-runs:read", "communication-runs:write",
	"calls:read", "calls:write", "sms:read", "sms:write", "webhooks:read", "webhooks:write",
	"events:read", "events:replay", "lifecycle:write", "leads:read", "leads:write",
	"emails:read", "emails:write", "sdr:read", "sdr:write", "evals:read", "evals:write",
	"appointments:read", "appointments:write", "knowledge:read", "knowledge:write",
	"products:read", "products:write", "approvals:write", "concierge:write",
	"billing:read", "billing:write", "call_evidence:read", "call_evidence:write", "support:write",
}

// PlatformOnlyScopes may not be requested at signup.
var PlatformOnlyScopes = []string{"approvals:write", "concierge:write"}

// SignupDefaultScopes is the read-only set signup grants by default.
var SignupDefaultScopes = []string{
	"workspaces:read", "numbers:read", "agents:read", "communication-runs:read",
	"calls:read", "sms:read", "webhooks:read", "events:read",
}

// KeyDefaultScopes is the set of a new standard key created without scopes.
var KeyDefaultScopes = []string{
	"agents:read", "agents:write", "numbers:read", "numbers:write", "calls:read",
	"calls:write", "sms:read", "sms:write", "emails:read", "emails:write",
}

// IsScope reports whether s is a scope of the API.
func IsScope(s string) bool { return slices.Contains(AllScopes, s) }
