package voiceagent

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/voiceagent/voiceagent-go/internal/wire"
)

func TestScopeListsAreCopiesOfWire(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		sdk   []Scope
		table []string
	}{
		{"AllScopes", AllScopes, wire.AllScopes},
		{"SignupDefaultScopes", SignupDefaultScopes, wire.SignupDefaultScopes},
		{"KeyDefaultScopes", KeyDefaultScopes, wire.KeyDefaultScopes},
	} {
		require.Len(t, tc.sdk, len(tc.table), tc.name)
		for i := range tc.table {
			assert.Equal(t, tc.table[i], string(tc.sdk[i]), tc.name)
		}
		tc.sdk[0] += "x"
		assert.NotEqual(t, tc.table[0], string(tc.sdk[0]), "%s shares wire's array: a program changing it would change the mock's table", tc.name)
		tc.sdk[0] = Scope(tc.table[0])
	}
}
