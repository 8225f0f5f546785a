package httpapi

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestKeyHashesRemembersKeysUpToItsBound(t *testing.T) {
	var h keyHashes
	key := KeyPrefix + "0123456789012345678901234567890123456789"
	sum, remembered := h.sum(key)
	assert.Equal(t, HashKey(key), sum)
	assert.False(t, remembered)
	h.remember(key, sum)
	sum, remembered = h.sum(key)
	assert.Equal(t, HashKey(key), sum)
	assert.True(t, remembered)

	for i := range keyHashesMax + 10 {
		k := fmt.Sprint(KeyPrefix, i)
		h.remember(k, HashKey(k))
		assert.LessOrEqual(t, len(h.m), keyHashesMax)
	}
	other := KeyPrefix + "other"
	sum, remembered = h.sum(other)
	assert.Equal(t, HashKey(other), sum, "a key not remembered is hashed")
	assert.False(t, remembered)
}
