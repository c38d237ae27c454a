package http

import (
	"fmt"
	"hash/maphash"
	"log/slog"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
)

// Rate limiting (docs/operations.md, Rate limits). Each principal may
// make Config.RateLimit requests per hour; every response says where it
// stands (X-RateLimit-Limit, -Remaining, -Reset) and one over the limit
// gets 429 with the spec's RATE_LIMIT_EXCEEDED body and Retry-After.
//
// The window is fixed and starts at the principal's first request, not
// at the top of the clock's hour, so that limited clients do not all come
// back in the same second. A fixed window lets a client make up to twice
// the limit across a window's end; the headers it gives (a count left and
// a reset time) are exact, which a token bucket's cannot be.
//
// A principal's whole state is one atomic word (the window's start in
// Unix seconds and the count), found in one of rateShards maps under a
// read lock: a request costs a map lookup and a compare-and-swap. An
// entry whose window ended holds nothing a fresh one would not, so idle
// principals are dropped without loss: each shard is swept on an insert
// at most once a minute. The table holds at most maxRatePrincipals; when
// a shard is full of live windows, a new principal's requests are let
// through uncounted until windows end (failing closed would let a flood
// of addresses lock every new client out), and the server warns.

// rateWindow is the length of a window in seconds: the spec's limit is
// per hour.
const rateWindow = 3600

// rateShards splits the table so that inserts of new principals do not
// all wait on one lock.
const rateShards = 64

// maxRatePrincipals bounds the table: about 100 MB when full.
const maxRatePrincipals = 1 << 20

// rateSweepEvery is how often, in seconds, a shard drops ended windows;
// a full shard sweeps at most once a second.
const rateSweepEvery = 60

// healthPath is exempt from the limit, so that probes keep working.
const healthPath = "/api/v1/health"

// codeRateLimit is the spec's symbolic code of a 429.
const codeRateLimit = "RATE_LIMIT_EXCEEDED"

// principal is whom a request is counted against.
type principal struct {
	addr netip.Addr
	// name is empty for an address; an authenticated request's user
	// takes the address's place ("user:<name>", with addr zero).
	name string
}

// principalOf names whom a request is counted against: its user when it
// authenticated (who, nil otherwise), so that a user's limit is the same
// from every address and users behind one address do not share one;
// else the client's address, and for IPv6 its /64 (one host has a whole
// /64 to pick addresses from). Behind a proxy every client has the
// proxy's address; X-Forwarded-For is not trusted.
func principalOf(ctx *fasthttp.RequestCtx, who *engine.Principal) principal {
	if who != nil {
		return principal{name: "user:" + who.Name}
	}
	addr, _ := netip.AddrFromSlice(ctx.RemoteIP())
	addr = addr.Unmap()
	if addr.Is6() {
		if p, err := addr.Prefix(64); err == nil {
			addr = p.Addr()
		}
	}
	return principal{addr: addr}
}

// rateLimiter counts requests per principal in fixed windows.
type rateLimiter struct {
	limit    uint32
	limitHdr []byte // limit as the header's value
	seed     maphash.Seed
	log      *slog.Logger
	// warned is the Unix second of the last "table full" warning.
	warned atomic.Int64
	shards [rateShards]rateShard
}

type rateShard struct {
	mu struct {
		sync.RWMutex
		entries map[principal]*rateEntry
		swept   int64 // Unix second of the last sweep
	}
	_ [64]byte // keeps neighbouring shards' locks off one cache line
}

// rateEntry is a principal's window: start<<32 | count.
type rateEntry struct{ state atomic.Uint64 }

func packRate(start int64, n uint32) uint64 { return uint64(start)<<32 | uint64(n) }

func unpackRate(v uint64) (start int64, n uint32) { return int64(v >> 32), uint32(v) }

// newRateLimiter returns a limiter of limit requests per hour, nil for
// no limit.
func newRateLimiter(limit int, log *slog.Logger) *rateLimiter {
	if limit <= 0 {
		return nil
	}
	limit = min(limit, 1<<31)
	l := &rateLimiter{limit: uint32(limit), limitHdr: strconv.AppendInt(nil, int64(limit), 10), seed: maphash.MakeSeed(), log: log}
	for i := range l.shards {
		l.shards[i].mu.entries = map[principal]*rateEntry{}
	}
	return l
}

// rateDecision is what the headers say about one request.
type rateDecision struct {
	allowed   bool
	remaining uint32
	reset     int64 // Unix second the window ends
}

// take counts a request of p at Unix second now.
func (l *rateLimiter) take(p principal, now int64) rateDecision {
	e := l.entry(p, now)
	if e == nil {
		return rateDecision{allowed: true, remaining: l.limit, reset: now + rateWindow}
	}
	for {
		old := e.state.Load()
		start, n := unpackRate(old)
		if now >= start+rateWindow || now < start { // ended (or the clock stepped back): a new window
			if e.state.CompareAndSwap(old, packRate(now, 1)) {
				return rateDecision{allowed: true, remaining: l.limit - 1, reset: now + rateWindow}
			}
			continue
		}
		if n >= l.limit {
			return rateDecision{remaining: 0, reset: start + rateWindow}
		}
		if e.state.CompareAndSwap(old, old+1) {
			return rateDecision{allowed: true, remaining: l.limit - n - 1, reset: start + rateWindow}
		}
	}
}

// peek reports p's standing without counting a request.
func (l *rateLimiter) peek(p principal, now int64) rateDecision {
	sh := &l.shards[l.shardOf(p)]
	sh.mu.RLock()
	e := sh.mu.entries[p]
	sh.mu.RUnlock()
	if e == nil {
		return rateDecision{allowed: true, remaining: l.limit, reset: now + rateWindow}
	}
	start, n := unpackRate(e.state.Load())
	if now >= start+rateWindow || now < start {
		return rateDecision{allowed: true, remaining: l.limit, reset: now + rateWindow}
	}
	return rateDecision{allowed: n < l.limit, remaining: l.limit - min(n, l.limit), reset: start + rateWindow}
}

// shardOf picks p's shard with a hash seeded per process, so that a
// client cannot choose addresses that all fall into one shard.
func (l *rateLimiter) shardOf(p principal) int {
	a := p.addr.As16()
	h := maphash.Bytes(l.seed, a[:])
	if p.name != "" {
		h ^= maphash.String(l.seed, p.name)
	}
	return int(h % rateShards)
}

// entry finds p's entry, adding one; nil when p's shard is full.
func (l *rateLimiter) entry(p principal, now int64) *rateEntry {
	sh := &l.shards[l.shardOf(p)]
	sh.mu.RLock()
	e := sh.mu.entries[p]
	sh.mu.RUnlock()
	if e != nil {
		return e
	}
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if e = sh.mu.entries[p]; e != nil {
		return e
	}
	full := len(sh.mu.entries) >= maxRatePrincipals/rateShards
	if since := now - sh.mu.swept; since >= rateSweepEvery || since < 0 || (full && since >= 1) {
		sh.sweep(now)
		full = len(sh.mu.entries) >= maxRatePrincipals/rateShards
	}
	if full {
		l.warnFull(now)
		return nil
	}
	e = &rateEntry{}
	e.state.Store(packRate(now, 0))
	sh.mu.entries[p] = e
	return e
}

// sweep drops the entries whose window ended; the caller holds mu. A
// request that found an entry just before it was dropped counts in the
// dropped one: at a window's end a principal may get one request more.
func (sh *rateShard) sweep(now int64) {
	sh.mu.swept = now
	for p, e := range sh.mu.entries {
		if start, _ := unpackRate(e.state.Load()); now >= start+rateWindow || now < start {
			delete(sh.mu.entries, p)
		}
	}
}

// warnFull logs, at most once a minute, that new principals go uncounted.
func (l *rateLimiter) warnFull(now int64) {
	last := l.warned.Load()
	if now-last < 60 || !l.warned.CompareAndSwap(last, now) {
		return
	}
	l.log.Warn("the rate-limit table is full: requests of new clients are not counted until windows end",
		"principals", maxRatePrincipals)
}

// The headers' names as the spec spells them: set as canonical, they
// skip fasthttp's normalizing (which would write X-Ratelimit-Limit).
var (
	hdrLimit      = []byte("X-RateLimit-Limit")
	hdrRemaining  = []byte("X-RateLimit-Remaining")
	hdrReset      = []byte("X-RateLimit-Reset")
	hdrRetryAfter = []byte("Retry-After")
)

// setHeaders writes the rate-limit headers of d.
func (l *rateLimiter) setHeaders(h *fasthttp.ResponseHeader, d rateDecision) {
	var buf [20]byte
	h.SetCanonical(hdrLimit, l.limitHdr)
	h.SetCanonical(hdrRemaining, strconv.AppendUint(buf[:0], uint64(d.remaining), 10))
	h.SetCanonical(hdrReset, strconv.AppendInt(buf[:0], d.reset, 10))
}

// limitRequest counts a request against its principal and writes the
// rate-limit headers; it returns the 429 to answer when the principal is
// over its limit. GET /api/v1/health is not counted (probes must keep
// working), but its answer carries the headers too. now is the request's
// time in Unix seconds; who is the request's authenticated principal, nil
// when there is none.
func (s *Server) limitRequest(ctx *fasthttp.RequestCtx, now int64, who *engine.Principal) *apiError {
	l := s.limiter
	if l == nil {
		return nil
	}
	p := principalOf(ctx, who)
	var d rateDecision
	if string(ctx.Path()) == healthPath {
		d = l.peek(p, now)
		d.allowed = true
	} else {
		d = l.take(p, now)
	}
	l.setHeaders(&ctx.Response.Header, d)
	if d.allowed {
		return nil
	}
	retry := max(d.reset-now, 1)
	from := "from one client address"
	if who != nil {
		from = "for one user"
	}
	return tooManyRequests(ctx, retry, fmt.Sprintf("rate limit exceeded: at most %d requests per hour %s; retry in %d seconds", l.limit, from, retry))
}

// tooManyRequests is a 429 that says to retry in retry seconds, in the
// Retry-After header and the body's retry_after: the rate limit's and
// the login limiter's (auth.go).
func tooManyRequests(ctx *fasthttp.RequestCtx, retry int64, message string) *apiError {
	var buf [20]byte
	ctx.Response.Header.SetCanonical(hdrRetryAfter, strconv.AppendInt(buf[:0], retry, 10))
	return &apiError{status: fasthttp.StatusTooManyRequests, code: codeRateLimit, retryAfter: retry, message: message}
}
