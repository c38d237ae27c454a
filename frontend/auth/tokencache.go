package auth

import (
	"sync"
	"time"
)

// tokenCache remembers access tokens whose signature and claims were
// verified, keyed by the whole token text, so that a client presenting
// the same token on every request does not pay for the JWT's JSON
// decoding and HMAC each time (about 25 µs, more than the rest of a small
// request; BenchmarkReadRequestAuth). Only what verification proved is
// kept: a different text (a tampered token) misses and is verified in
// full. Expiry is checked on every hit, and the user, generation and
// session checks run after the cache as before, so revocation is still
// immediate.
type tokenCache struct {
	mu      sync.Mutex
	entries map[string]cachedClaims
}

type cachedClaims struct {
	user, sid string
	gen, bm   uint64
	exp       time.Time
}

// maxCachedTokens bounds the cache: past it, an arbitrary entry makes
// room (a miss only costs a full verification).
const maxCachedTokens = 10_000

func newTokenCache() *tokenCache { return &tokenCache{entries: map[string]cachedClaims{}} }

// get returns the verified claims of tok while it has not expired at now.
func (c *tokenCache) get(tok string, now time.Time) (cachedClaims, bool) {
	c.mu.Lock()
	e, ok := c.entries[tok]
	if ok && !now.Before(e.exp) {
		delete(c.entries, tok)
		ok = false
	}
	c.mu.Unlock()
	return e, ok
}

// put remembers tok's verified claims.
func (c *tokenCache) put(tok string, e cachedClaims) {
	c.mu.Lock()
	if len(c.entries) >= maxCachedTokens {
		for k := range c.entries {
			delete(c.entries, k)
			break
		}
	}
	c.entries[tok] = e
	c.mu.Unlock()
}

// clear forgets every token: the signing key changed.
func (c *tokenCache) clear() {
	c.mu.Lock()
	clear(c.entries)
	c.mu.Unlock()
}
