package auth

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"sync"
	"time"
)

// The login limiter (docs/security.md). A failed password check counts
// against three keys, and an attempt is refused while any of them is
// locked:
//
//   - the user name from the client address: its pairFree-th failure
//     locks the pair for backoffBase, and each further one doubles the
//     lock, up to backoffCap. Only that address waits: the same user
//     from an address that has not failed logs in as usual, so guessing
//     from somewhere else cannot lock the owner out.
//   - the client address, whatever the user name (wrong API keys count
//     here too): the same backoff from its addrFree-th failure, so one
//     address cannot spray passwords over many names.
//   - the user name from every address: the backoff from its userFree-th
//     failure (far more than one address may make), so many addresses
//     cannot share out the guessing. An address the user logged in from within
//     knownFor is exempt: a distributed attack slows the user's new
//     places down, never the ones they use.
//
// A refused attempt neither counts nor renews a lock: only a failure
// after a lock ended doubles it, so the lock an attacker can hold is
// the backoff of its own failures. A success from an address forgets
// that pair's failures (not the address's or the user's: a valid login
// must not buy an attacker free guesses). A key's failures are
// forgotten forgetAfter after its last failure or lock end. IPv6
// addresses count by their /64, the block one host is usually given.
const (
	pairFree    = 5
	addrFree    = 30
	userFree    = 100
	backoffBase = time.Second
	backoffCap  = 15 * time.Minute
	forgetAfter = time.Hour
	knownFor    = 30 * 24 * time.Hour
	// knownPerUser bounds the addresses remembered per user (the most
	// recent are kept). Only a verified password adds one, so the users
	// bound the rest.
	knownPerUser = 16
	// maxTracked bounds the failure keys: past it, forgotten entries are
	// dropped, then ones not locked, then (under a flood of distinct
	// names and addresses from as many hosts) locked ones.
	maxTracked = 100_000
)

// keyKind tells the three keys apart.
type keyKind uint8

const (
	kindPair keyKind = iota + 1 // user and host
	kindAddr                    // host, any user
	kindUser                    // user, any host
)

type limitKey struct {
	kind       keyKind
	user, host string
}

// limiter counts failures per key and remembers where users logged in.
type limiter struct {
	mu struct {
		sync.Mutex // protects entries and known
		entries    map[limitKey]*limitEntry
		known      map[string]map[string]time.Time // user → host → last login
	}
}

type limitEntry struct {
	fails int
	last  time.Time // of the last failure
	until time.Time // locked until then (zero: not locked)
}

// lock is a lock a failure started or lengthened, for the audit trail.
type lock struct {
	key   limitKey
	fails int
	d     time.Duration
	known int // kindUser: the addresses exempt from it
}

func newLimiter() *limiter {
	l := &limiter{}
	l.mu.entries = map[limitKey]*limitEntry{}
	l.mu.known = map[string]map[string]time.Time{}
	return l
}

// clientHost is the limiter's name for a client address: the host
// without the port (a client's ports change), an IPv6 address as its
// /64. "" when there is none.
func clientHost(addr string) string {
	if addr == "" {
		return ""
	}
	if h, _, err := net.SplitHostPort(addr); err == nil {
		addr = h
	}
	ip, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	ip = ip.Unmap()
	if ip.Is6() {
		p, _ := ip.WithZone("").Prefix(64)
		return p.String()
	}
	return ip.String()
}

func (e *limitEntry) forgotten(now time.Time) bool {
	return !now.Before(e.last.Add(forgetAfter)) && !now.Before(e.until.Add(forgetAfter))
}

func (e *limitEntry) locked(now time.Time) bool { return now.Before(e.until) }

// backoff is the lock a key's fails-th failure sets: none before the
// free-th, then backoffBase, doubling per failure, at most backoffCap.
func backoff(fails, free int) time.Duration {
	n := fails - free
	if n < 0 {
		return 0
	}
	if n >= 30 {
		return backoffCap
	}
	return min(backoffBase<<n, backoffCap)
}

// check returns a *LimitError when an attempt as user ("" when none or
// not a valid name) from host ("" when unknown) is refused at now.
func (l *limiter) check(now time.Time, user, host string) *LimitError {
	l.mu.Lock()
	defer l.mu.Unlock()
	var wait time.Duration
	scope := ""
	try := func(k limitKey, what string) {
		if e := l.mu.entries[k]; e != nil && e.locked(now) && e.until.Sub(now) > wait {
			wait, scope = e.until.Sub(now), what
		}
	}
	if user != "" && host != "" {
		try(limitKey{kindPair, user, host}, "for this user name from this address")
	}
	if host != "" {
		try(limitKey{kindAddr, "", host}, "from this address")
	}
	if user != "" && !l.knownFromLocked(now, user, host) {
		try(limitKey{kindUser, user, ""}, "for this user name")
	}
	if wait == 0 {
		return nil
	}
	secs := int((wait + time.Second - 1) / time.Second)
	return &LimitError{RetryAfter: wait, scope: scope,
		Message: fmt.Sprintf("too many failed attempts %s; retry in %s", scope, plural(secs, "second", "seconds"))}
}

// knownFromLocked reports whether user logged in from host within
// knownFor.
func (l *limiter) knownFromLocked(now time.Time, user, host string) bool {
	at, ok := l.mu.known[user][host]
	return ok && host != "" && now.Sub(at) < knownFor
}

// fail counts a failure of user from host against the keys that apply,
// and returns the locks it started or lengthened.
func (l *limiter) fail(now time.Time, user, host string) []lock {
	l.mu.Lock()
	defer l.mu.Unlock()
	var locks []lock
	count := func(k limitKey, free int) {
		if d, n := l.failLocked(now, k, free); d > 0 {
			lk := lock{key: k, fails: n, d: d}
			if k.kind == kindUser {
				lk.known = l.knownCountLocked(now, user)
			}
			locks = append(locks, lk)
		}
	}
	if user != "" && host != "" {
		count(limitKey{kindPair, user, host}, pairFree)
	}
	if host != "" {
		count(limitKey{kindAddr, "", host}, addrFree)
	}
	if user != "" {
		count(limitKey{kindUser, user, ""}, userFree)
	}
	return locks
}

// failLocked counts one failure of k; it returns the lock that failure
// set (0: none) and the key's failures.
func (l *limiter) failLocked(now time.Time, k limitKey, free int) (time.Duration, int) {
	e := l.mu.entries[k]
	if e != nil && e.forgotten(now) {
		e = nil
	}
	if e == nil {
		if len(l.mu.entries) >= maxTracked {
			l.shrinkLocked(now)
		}
		e = &limitEntry{}
		l.mu.entries[k] = e
	}
	e.fails++
	e.last = now
	d := backoff(e.fails, free)
	if d > 0 {
		e.until = now.Add(d)
	}
	return d, e.fails
}

func (l *limiter) knownCountLocked(now time.Time, user string) int {
	n := 0
	for _, at := range l.mu.known[user] {
		if now.Sub(at) < knownFor {
			n++
		}
	}
	return n
}

// succeed forgets the failures of user from host and remembers host as
// one user logs in from.
func (l *limiter) succeed(now time.Time, user, host string) {
	if user == "" || host == "" {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.mu.entries, limitKey{kindPair, user, host})
	hosts := l.mu.known[user]
	if hosts == nil {
		hosts = map[string]time.Time{}
		l.mu.known[user] = hosts
	}
	if _, ok := hosts[host]; !ok && len(hosts) >= knownPerUser {
		oldest, at := "", now
		for h, t := range hosts {
			if t.Before(at) || oldest == "" {
				oldest, at = h, t
			}
		}
		delete(hosts, oldest)
	}
	hosts[host] = now
}

// shrinkLocked makes room down to nine tenths of maxTracked: forgotten
// entries first, then those not locked, then any.
func (l *limiter) shrinkLocked(now time.Time) {
	target := maxTracked * 9 / 10
	for pass := 0; pass < 3 && len(l.mu.entries) > target; pass++ {
		for k, e := range l.mu.entries {
			if len(l.mu.entries) <= target {
				break
			}
			if pass == 2 || (pass == 0 && e.forgotten(now)) || (pass == 1 && !e.locked(now)) {
				delete(l.mu.entries, k)
			}
		}
	}
}

// describe says what a lock covers, for the audit trail.
func (lk lock) describe() string {
	d := lk.d.String()
	switch lk.key.kind {
	case kindPair:
		return fmt.Sprintf("user %s from %s: %d failed attempts, this user name is locked from this address for %s",
			sanitize(lk.key.user), lk.key.host, lk.fails, d)
	case kindAddr:
		return fmt.Sprintf("address %s: %d failed attempts over all user names and API keys, locked for %s", lk.key.host, lk.fails, d)
	}
	if lk.known == 0 {
		return fmt.Sprintf("user %s: %d failed attempts from all addresses, locked for %s from every address (it logged in from none lately)",
			sanitize(lk.key.user), lk.fails, d)
	}
	return fmt.Sprintf("user %s: %d failed attempts from all addresses, locked for %s except from the %s it logged in from",
		sanitize(lk.key.user), lk.fails, d, plural(lk.known, "address", "addresses"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
