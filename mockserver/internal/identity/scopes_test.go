package identity

import (
	"slices"
	"testing"

	voiceagent "github.com/voiceagent/voiceagent-go"
)

func TestScopeListsAreTheSDKs(t *testing.T) {
	for _, tc := range []struct {
		name string
		sdk  []voiceagent.Scope
		ours []string
	}{
		{"AllScopes", voiceagent.AllScopes, allScopes},
		{"SignupDefaultScopes", voiceagent.SignupDefaultScopes, signupDefaultScopes},
		{"KeyDefaultScopes", voiceagent.KeyDefaultScopes, keyDefaultScopes},
		{"PlatformOnlyScopes", voiceagent.PlatformOnlyScopes, platformOnlyScopes},
	} {
		if !slices.Equal(scopeNames(tc.sdk), tc.ours) {
			t.Errorf("%s: the server holds %v, the SDK %v", tc.name, tc.ours, tc.sdk)
		}
	}
	for _, s := range voiceagent.AllScopes {
		if !IsScope(string(s)) || !KeyMayHold(string(s)) {
			t.Errorf("%s is not a scope a key may hold", s)
		}
		if IsPlatformOnly(string(s)) != slices.Contains(voiceagent.PlatformOnlyScopes, s) {
			t.Errorf("IsPlatformOnly(%s) = %v", s, IsPlatformOnly(string(s)))
		}
	}
	if IsScope("*") || !KeyMayHold("*") || KeyMayHold("agents:delete") || IsScope("") {
		t.Error("the wildcard is no scope but a key may hold it; nothing else is")
	}
}

// TestChangingTheSDKsListsChangesNothing changes the SDK's exported lists,
// as a program may, and checks that the server's are its own copies.
func TestChangingTheSDKsListsChangesNothing(t *testing.T) {
	first := voiceagent.AllScopes[0]
	defer func() { voiceagent.AllScopes[0] = first }()
	voiceagent.AllScopes[0] = "changed:read"
	if IsScope("changed:read") || !IsScope(string(first)) {
		t.Error("the server's scope list shares the SDK's array")
	}
	all := AllScopes()
	all[0] = "changed:write"
	if IsScope("changed:write") {
		t.Error("AllScopes returns the server's own slice")
	}
}
