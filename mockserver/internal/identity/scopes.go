package identity

import (
	"slices"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

// The scope lists of the API as the strings keys hold. Their one
// definition is the SDK's (package voiceagent); these are copies taken when
// the package is initialized, so a program that changes
// voiceagent.AllScopes does not change what the server grants or checks.
var (
	allScopes           = scopeNames(voiceagent.AllScopes)
	signupDefaultScopes = scopeNames(voiceagent.SignupDefaultScopes)
	keyDefaultScopes    = scopeNames(voiceagent.KeyDefaultScopes)
	platformOnlyScopes  = scopeNames(voiceagent.PlatformOnlyScopes)
)

// scopeNames returns a copy of scopes as strings.
func scopeNames(scopes []voiceagent.Scope) []string {
	out := make([]string, len(scopes))
	for i, s := range scopes {
		out[i] = string(s)
	}
	return out
}

// AllScopes returns every scope of the API except the wildcard, in the
// order of spec section 5, as a new slice.
func AllScopes() []string { return slices.Clone(allScopes) }

// IsScope reports whether s is a scope of the API. The wildcard is not.
func IsScope(s string) bool { return slices.Contains(allScopes, s) }

// KeyMayHold reports whether a key may hold s: a scope of the API or the
// wildcard.
func KeyMayHold(s string) bool { return IsScope(s) || s == string(voiceagent.ScopeAll) }

// IsPlatformOnly reports whether only the platform grants s: a signup may
// not request it, nor an agency hand it to a partner key.
func IsPlatformOnly(s string) bool { return slices.Contains(platformOnlyScopes, s) }
