package httpapi

import "sync"

// readCache caches the encoded responses of the GET routes marked Cached in
// Table, for as long as the state they were read from stands. An entry is
// filed under the path, the raw query, the caller and the tenant's time of
// the request; the cache holds the entries of one state version
// (platform.StateLock.Version), so a release of the write lock (a write
// request, a clock task, a reset, an admin helper) empties it.
type readCache struct {
	mu      sync.Mutex
	version uint64
	entries map[readKey][]byte
	bytes   int
}

// readKey names a cached response.
type readKey struct {
	path, query string
	// caller is the caller's key, or its user for a session.
	caller string
	// now is the tenant's time of the request, in Unix nanoseconds.
	now int64
}

// Bounds of the read cache: past either, it starts again empty.
const (
	readCacheEntries = 1024
	readCacheBytes   = 16 << 20
)

// readKeyOf returns the key of rc's response, and false when the request
// has no caller to file it under.
func readKeyOf(rc *Ctx) (readKey, bool) {
	p := rc.Principal
	if p == nil || p.User == nil {
		return readKey{}, false
	}
	caller := "s:" + p.User.ID
	if p.Key != nil {
		caller = "k:" + p.Key.ID
	}
	return readKey{path: rc.Request.URL.Path, query: rc.Request.URL.RawQuery, caller: caller, now: rc.Now.UnixNano()}, true
}

// get returns the body cached for k at state version v.
func (c *readCache) get(v uint64, k readKey) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != v {
		return nil, false
	}
	body, ok := c.entries[k]
	return body, ok
}

// put caches body for k, read at state version v. A body read at an older
// version than the cache's is not cached.
func (c *readCache) put(v uint64, k readKey, body []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if v < c.version {
		return
	}
	if v > c.version || c.entries == nil || len(c.entries) >= readCacheEntries || c.bytes+len(body) > readCacheBytes {
		c.version, c.entries, c.bytes = v, map[readKey][]byte{}, 0
	}
	if len(body) > readCacheBytes {
		return
	}
	c.entries[k] = body
	c.bytes += len(body)
}
