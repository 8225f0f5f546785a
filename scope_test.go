package voiceagent

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/voiceagent/voiceagent-go/internal/wire"
)

func TestScopeListsAreCopiesOfWire(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		sdk, table []Scope
	}{
		{"AllScopes", AllScopes, wire.AllScopes},
		{"SignupDefaultScopes", SignupDefaultScopes, wire.SignupDefaultScopes},
		{"KeyDefaultScopes", KeyDefaultScopes, wire.KeyDefaultScopes},
	} {
		assert.Equal(t, tc.table, tc.sdk, tc.name)
		assert.NotSame(t, &tc.table[0], &tc.sdk[0], "%s shares wire's array: a program changing it would change the mock's table", tc.name)
	}
}
