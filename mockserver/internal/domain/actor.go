package domain

import (
	"slices"

	"github.com/voiceagent/voiceagent-go"
)

// Actor is who an operation acts for: a user, with an API key or a
// dashboard session, the scopes it holds and the businesses it reaches.
type Actor struct {
	// UserID is the user's id.
	UserID string
	// KeyID is the API key the actor acts with; "" for a dashboard session
	// (SessionID), which acts as the user and holds every scope.
	KeyID string
	// SessionID is the dashboard session the actor acts with ("" for a key,
	// or a session that has ended).
	SessionID string
	// Scopes are the key's scopes (voiceagent.ScopeAll grants every one).
	Scopes []string
	// Businesses are the ids of the businesses the actor reaches, oldest
	// first. The slice may be the store's: read it, do not change it.
	Businesses []string
	// Tenant is the tenant the actor acts in (the root business of its
	// account; "" for a user without a business): its clock and its
	// scoped faults apply.
	Tenant string
}

// Has reports whether the actor holds a scope. A session holds every
// scope.
func (a *Actor) Has(scope voiceagent.Scope) bool {
	if a.KeyID == "" {
		return true
	}
	return slices.Contains(a.Scopes, string(scope)) || slices.Contains(a.Scopes, string(voiceagent.ScopeAll))
}

// Reaches reports whether the actor may act on a business.
func (a *Actor) Reaches(businessID string) bool {
	return slices.Contains(a.Businesses, businessID)
}
