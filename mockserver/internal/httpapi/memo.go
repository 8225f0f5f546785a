package httpapi

import "sync"

// memo remembers values that cost more to make than to look up (a key's
// hash, a served document, a redacted text), by key, up to a bound given
// to put: when full it starts again empty, so it never grows without
// bound (a client sending ever new keys, Host names or answers only makes
// it make them again). Lookups share its lock.
type memo[K comparable, V any] struct {
	mu sync.RWMutex
	m  map[K]V
}

// get returns the value remembered for k.
func (m *memo[K, V]) get(k K) (V, bool) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	v, ok := m.m[k]
	return v, ok
}

// put remembers v for k, emptying the memo first when it holds max
// values.
func (m *memo[K, V]) put(k K, v V, max int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || len(m.m) >= max {
		m.m = make(map[K]V)
	}
	m.m[k] = v
}
