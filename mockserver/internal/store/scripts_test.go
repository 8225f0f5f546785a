package store

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// NextStep takes a number's own steps in order, then "*" steps, and only
// steps of the kind and tenant asked for; a used step is passed over.
func TestNextStepOrder(t *testing.T) {
	next, _ := counter("step")
	s := NewWithIDs(next)
	add := func(tenant, kind, to, outcome string) *ScriptStep {
		return s.Scripts.Insert(&ScriptStep{Kind: kind, To: to, Outcome: outcome}, tenant, t0)
	}
	anyCall := add("a", StepCall, StepAny, StepBusy)
	first := add("a", StepCall, "+15550001", StepCompleted)
	text := add("a", StepText, "+15550001", StepFailed)
	second := add("a", StepCall, "+15550001", StepVoicemail)
	add("b", StepCall, "+15550001", StepRejected)

	for _, want := range []*ScriptStep{first, second, anyCall} {
		got := s.NextStep("a", StepCall, "+15550001")
		require.NotNil(t, got)
		assert.Equal(t, want.ID, got.ID)
		s.UseStep(got, "call-"+got.ID, t0)
		assert.False(t, got.Pending())
		assert.Equal(t, "call-"+got.ID, got.UsedBy)
	}
	assert.Nil(t, s.NextStep("a", StepCall, "+15550001"), "every call step of tenant a is used")
	assert.Equal(t, text.ID, s.NextStep("a", StepText, "+15550001").ID)
	assert.Nil(t, s.NextStep("a", StepText, "+15550002"), "a text step for another number")
	assert.Equal(t, StepRejected, s.NextStep("b", StepCall, "+15550001").Outcome)
	assert.Nil(t, s.NextStep("c", StepCall, "+15550001"))
}
