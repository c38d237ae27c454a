package auth

import (
	"fmt"
	"net"
	"sync"
	"time"
)

// The login limiter's rules (docs/security.md): at 5 failures within 15
// minutes for a user name, or 30 for a client address, further attempts
// for it are refused, even with the right password, until the window
// passes.
const (
	limitWindow  = 15 * time.Minute
	limitPerUser = 5
	limitPerAddr = 30
	// maxTracked bounds the limiter's memory: past it, expired entries are
	// dropped, then (under a flood of distinct names) arbitrary ones.
	maxTracked = 100_000
)

// limiter counts failures per key ("u\x00name", "a\x00host").
type limiter struct {
	mu      sync.Mutex // protects entries
	entries map[string]*limitEntry
}

type limitEntry struct {
	count int
	start time.Time // of the window the count is in
	until time.Time // refused until then (zero: not refused)
}

func newLimiter() *limiter { return &limiter{entries: map[string]*limitEntry{}} }

func userKey(name string) string { return "u\x00" + name }

// addrKey is the address's host part: a client's ports change.
func addrKey(addr string) string {
	if addr == "" {
		return ""
	}
	if h, _, err := net.SplitHostPort(addr); err == nil {
		addr = h
	}
	return "a\x00" + addr
}

func (e *limitEntry) expired(now time.Time) bool {
	return !now.Before(e.start.Add(limitWindow)) && !now.Before(e.until)
}

// check returns a *LimitError when any of keys is refused at now.
func (l *limiter) check(now time.Time, keys ...string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var wait time.Duration
	for _, k := range keys {
		if e := l.entries[k]; k != "" && e != nil && now.Before(e.until) {
			wait = max(wait, e.until.Sub(now))
		}
	}
	if wait == 0 {
		return nil
	}
	return &LimitError{RetryAfter: wait, Message: fmt.Sprintf("too many failed attempts; retry in %d seconds", int64((wait+time.Second-1)/time.Second))}
}

// fail counts a failure against the user key and the address key.
func (l *limiter) fail(now time.Time, user, addr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.failLocked(now, user, limitPerUser)
	l.failLocked(now, addr, limitPerAddr)
}

func (l *limiter) failLocked(now time.Time, k string, limit int) {
	if k == "" {
		return
	}
	e := l.entries[k]
	if e != nil && e.expired(now) {
		e = nil
	}
	if e == nil {
		if len(l.entries) >= maxTracked {
			l.shrinkLocked(now)
		}
		e = &limitEntry{start: now}
		l.entries[k] = e
	}
	e.count++
	if e.count >= limit {
		e.until = now.Add(limitWindow)
	}
}

// succeed forgets the user key's failures.
func (l *limiter) succeed(user string) {
	l.mu.Lock()
	delete(l.entries, user)
	l.mu.Unlock()
}

// shrinkLocked makes room: expired entries first, then arbitrary ones
// until a tenth is free.
func (l *limiter) shrinkLocked(now time.Time) {
	for k, e := range l.entries {
		if e.expired(now) {
			delete(l.entries, k)
		}
	}
	for k := range l.entries {
		if len(l.entries) < maxTracked*9/10 {
			break
		}
		delete(l.entries, k)
	}
}
