package httpapi

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTheReadCacheHoldsOneStateVersion(t *testing.T) {
	var c readCache
	k := readKey{path: "/api/v1/leads", query: "limit=100", caller: "k:1", now: 1}
	c.put(3, k, []byte("v3"))
	got, ok := c.get(3, k)
	assert.True(t, ok)
	assert.Equal(t, "v3", string(got))
	_, ok = c.get(4, k)
	assert.False(t, ok, "a write since: not kept")
	other := k
	other.caller = "k:2"
	_, ok = c.get(3, other)
	assert.False(t, ok, "another caller's")

	c.put(2, k, []byte("v2"))
	got, _ = c.get(3, k)
	assert.Equal(t, "v3", string(got), "a response read before the last write is not kept")
	c.put(5, k, []byte("v5"))
	_, ok = c.get(3, k)
	assert.False(t, ok, "a newer state empties the cache")
	got, _ = c.get(5, k)
	assert.Equal(t, "v5", string(got))

	for i := range readCacheEntries + 10 {
		k.now = int64(i)
		c.put(5, k, []byte("x"))
	}
	assert.LessOrEqual(t, len(c.entries), readCacheEntries)
}
