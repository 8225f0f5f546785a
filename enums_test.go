package voiceagent_test

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"

	voiceagent "github.com/voiceagent/voiceagent-go"
	"github.com/voiceagent/voiceagent-go/calls"
	"github.com/voiceagent/voiceagent-go/leads"
	"github.com/voiceagent/voiceagent-go/sdr"
)

// TestEnumsAreDefinedTypes keeps the SDK's enumerations defined types, as
// stripe-go's are (type ChargeStatus string), not aliases of string: a
// value of another enumeration, or a bare string variable, does not
// compile where one is expected, and go doc groups the constants under
// their type.
func TestEnumsAreDefinedTypes(t *testing.T) {
	t.Parallel()
	str := reflect.TypeFor[string]()
	for _, v := range []any{calls.StatusQueued, leads.StatusNew, sdr.SegmentCold, sdr.ActionCall, voiceagent.ScopeCallsRead} {
		typ := reflect.TypeOf(v)
		assert.NotEqual(t, str, typ, "%v is a string, not a defined type", v)
		assert.Equal(t, reflect.String, typ.Kind(), "%v", typ)
	}
	assert.NotEqual(t, reflect.TypeOf(calls.StatusCompleted), reflect.TypeOf(leads.StatusConverted), "each enumeration has its own type")
}
