package domain

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/voiceagent/voiceagent-go"
)

func TestActorHas(t *testing.T) {
	key := &Actor{KeyID: "k", Scopes: []string{string(voiceagent.ScopeCallsRead)}}
	assert.True(t, key.Has(voiceagent.ScopeCallsRead))
	assert.False(t, key.Has(voiceagent.ScopeCallsWrite))
	assert.True(t, (&Actor{KeyID: "k", Scopes: []string{string(voiceagent.ScopeAll)}}).Has(voiceagent.ScopeCallsWrite), "the wildcard grants every scope")
	assert.False(t, (&Actor{KeyID: "k"}).Has(voiceagent.ScopeCallsRead), "a key without scopes holds none")
	assert.True(t, (&Actor{SessionID: "s"}).Has(voiceagent.ScopeCallsWrite), "a session acts as its user with every scope")
}

func TestActorReaches(t *testing.T) {
	a := &Actor{Businesses: []string{"b1", "b2"}}
	assert.True(t, a.Reaches("b2"))
	assert.False(t, a.Reaches("b3"))
}

func TestErrorUnder(t *testing.T) {
	e := InvalidField("name", "must not be empty")
	e.Details = append(e.Details, FieldError{Path: "/voice/", Message: "unknown"})
	got := e.Under("/payload", "the payload")
	assert.Equal(t, []FieldError{{Path: "/payload/name", Message: "must not be empty"}, {Path: "/payload/voice", Message: "unknown"}}, got.Details)
	assert.Equal(t, "the payload failed validation: /payload/name: must not be empty", got.Message)
	assert.Equal(t, "name", e.Details[0].Path, "the original is unchanged")
	plain := Conflict("taken")
	assert.Same(t, plain, plain.Under("/payload", "the payload"), "no details: as it is")
}

func TestErrorWrapsItsCause(t *testing.T) {
	cause := errors.New("provider down")
	e := &Error{Code: voiceagent.CodeVendorError, Message: "refused", Cause: cause}
	assert.ErrorIs(t, e, cause)
	assert.Equal(t, "vendor_error: refused", e.Error())
	assert.Equal(t, map[string]any{"a": 1}, New(voiceagent.CodeConflict, "x").With("a", 1).Extra)
}
