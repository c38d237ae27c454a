package auth

import (
	"crypto/sha256"
	"sync"
	"time"
)

// A password check costs an argon2id hash (tens of milliseconds and
// 19 MiB): too much for HTTP Basic, which sends the password on every
// request. basicCache remembers successful checks for a while, keyed by a
// SHA-256 of the user and password, and only for the user's password
// generation of the time.
const (
	cacheTTL     = 5 * time.Minute
	cacheEntries = 10_000
)

type basicCache struct {
	mu      sync.Mutex // protects entries
	entries map[[32]byte]cacheEntry
}

type cacheEntry struct {
	user    string
	gen     uint64
	expires time.Time
}

func newBasicCache() *basicCache { return &basicCache{entries: map[[32]byte]cacheEntry{}} }

func cacheKey(user, pw string) [32]byte {
	h := sha256.New()
	h.Write([]byte(user))
	h.Write([]byte{0})
	h.Write([]byte(pw))
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// hit reports whether user/pw was verified for generation gen less than
// cacheTTL ago.
func (c *basicCache) hit(now time.Time, user, pw string, gen uint64) bool {
	k := cacheKey(user, pw)
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok {
		return false
	}
	if e.user != user || e.gen != gen || !now.Before(e.expires) {
		delete(c.entries, k)
		return false
	}
	return true
}

func (c *basicCache) add(now time.Time, user, pw string, gen uint64) {
	k := cacheKey(user, pw)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) >= cacheEntries {
		for x, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, x)
			}
		}
		for x := range c.entries {
			if len(c.entries) < cacheEntries {
				break
			}
			delete(c.entries, x)
		}
	}
	c.entries[k] = cacheEntry{user: user, gen: gen, expires: now.Add(cacheTTL)}
}

// drop forgets every entry of user (its password changed, or it is gone).
func (c *basicCache) drop(user string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.entries {
		if e.user == user {
			delete(c.entries, k)
		}
	}
}
