package wire

import (
	"container/list"
	"log/slog"
	"sync"
	"time"

	"github.com/quiverdb/quiver/frontend/serving"
)

// ceiling enforces the wire connection ceilings: the server's
// (MaxConnections, TCP and QUIC connections together) and each client
// address's (MaxConnectionsPerClient). Each admitted connection holds a
// slot until it closes.
//
// A flood of connections that never finish their HELLO, from many
// addresses, passes the per-client ceiling; so the server-wide one must
// not lock the others out either. The rules are the HTTP listener's
// (frontend/http, limit.go), for HELLO in place of a request head:
//
//   - The reserve: connections without a completed HELLO (no WELCOME
//     yet) may hold at most the ceiling minus ReservedConnections
//     slots. The reserved slots are for sessions that got their HELLO
//     through, which a flood of HELLOs that never end cannot reach.
//   - Eviction: at a ceiling, a newcomer takes the slot of the
//     connection the server has been waiting on for its HELLO longest,
//     which is closed unanswered. The server waits on a connection once
//     it found nothing more of the HELLO to read for stallAfter
//     (stall.go): not before it read it at all (under load the server's
//     own delay must not pass for the client's slowness), nor while a
//     HELLO that arrived is being answered (its authentication may take
//     a while). A connection with a session that completed HELLO is
//     never cut: a session is stateful (its transaction, a result
//     waiting for PULL). A QUIC connection is waited on while it has no
//     stream whose HELLO is arriving or being answered. At a client's
//     own ceiling, only that client's connections are candidates.
//   - Waiting: when no connection can go because the server has yet to
//     read the newest ones (a flood reconnecting as fast as it is
//     evicted outpaces a small ceiling on a busy machine), a newcomer
//     waits, up to admitWait and in order of arrival, for the server to
//     catch up, rather than being refused at once: the next connection
//     found waiting for its HELLO is the next to go. At most
//     maxAdmitWaiting newcomers wait.
//
// A normal client sends its HELLO at once, so it is never the one
// waited on longest, and each of its connections gets in; a slow one
// loses its slot to the next newcomer, whoever that is. When no slot can
// be freed the newcomer is refused (server.go). Every eviction, wait or
// refusal at a server-wide ceiling (the connections, or the slots
// without a HELLO) is a hit of the Saturation, which health reports as
// degraded; one client at its own ceiling is not.
type ceiling struct {
	limit, perClient int
	// greetCap bounds the slots without a completed HELLO: limit minus
	// the reserve; 0 means no bound.
	greetCap int
	sat      *serving.Saturation
	log      *slog.Logger
	conns    connEvents // may be nil
	// ready wakes a waiting newcomer (the one waiting longest: a
	// channel's receivers are served in order) when a slot may be had;
	// quit (the server's shutdown) ends every wait.
	ready chan struct{}
	quit  <-chan struct{}
	mu    struct {
		sync.Mutex                // protects the fields below and those of every slot marked so
		total      int            // slots held
		byHost     map[string]int // slots held per client address
		greeting   int            // slots without a completed HELLO
		waiters    int            // newcomers waiting for a slot
		// waiting holds the evictable slots (*slot), oldest first: by
		// when the server began to wait on them for a HELLO.
		waiting list.List
	}
}

// admitWait bounds how long a newcomer waits for a slot at a ceiling;
// maxAdmitWaiting bounds the newcomers waiting at once (past it, they
// are refused at once).
const (
	admitWait       = time.Second
	maxAdmitWaiting = 256
)

// connEvents is told of every slot taken and given back (Config.Conns).
type connEvents interface {
	Opened()
	Closed()
}

// newCeiling makes the ceilings of cfg; closing quit ends the waits.
func newCeiling(cfg Config, quit <-chan struct{}) *ceiling {
	c := &ceiling{limit: cfg.MaxConnections, perClient: cfg.MaxConnectionsPerClient, sat: cfg.Saturation,
		log: cfg.Logger, conns: cfg.Conns, ready: make(chan struct{}, maxAdmitWaiting), quit: quit}
	if r := cfg.ReservedConnections; r > 0 && r < cfg.MaxConnections {
		c.greetCap = cfg.MaxConnections - r
	}
	c.mu.byHost = map[string]int{}
	return c
}

// A slot is one admitted connection: a TCP connection (one session) or
// a QUIC connection (a session per stream).
type slot struct {
	c    *ceiling
	host string
	// evict closes the connection when a newcomer takes its slot; it is
	// called without the lock, once.
	evict func()
	// Under c.mu:
	released bool // the slot was given back (closed or evicted)
	welcomed bool // a session of the connection completed HELLO
	// pending counts the sessions the server is not waiting on (stall.go):
	// not read yet, or their HELLO arrived and is being answered.
	pending int
	// streams counts the sessions a QUIC connection began (begin): one
	// waited on with streams > 0 stalled in a stream's HELLO, rather
	// than having none yet.
	streams int
	elem    *list.Element // in waiting; nil when not evictable
}

// admit takes a slot for a connection from host, evicting connections as
// the rules allow, and waiting for one when the server has yet to read
// the newest; nil when no slot can be had. pending is the connection's
// sessions the server is not waiting on yet (a TCP connection's one; a
// QUIC connection's streams come later: begin). evict closes the
// connection should another take its slot.
func (c *ceiling) admit(host string, pending int, evict func()) *slot {
	var victims []*slot
	closeVictims := func() { // without the lock: closing takes none, but may take time
		for _, v := range victims {
			v.evict()
		}
		victims = victims[:0]
	}
	defer closeVictims()
	var deadline *time.Timer
	defer func() {
		if deadline != nil {
			deadline.Stop()
		}
	}()
	woken, expired := false, false
	c.mu.Lock()
	defer c.mu.Unlock()
	for {
		overClient := c.mu.byHost[host] >= c.perClient
		overAll := c.mu.total >= c.limit
		overGreeting := c.greetCap > 0 && c.mu.greeting >= c.greetCap
		if !overClient && !overAll && !overGreeting {
			break
		}
		if overAll || overGreeting {
			c.hitLocked(overAll)
		}
		// A newcomer does not take a slot ahead of those waiting: it is
		// theirs, in turn.
		if woken || c.mu.waiters == 0 || overClient {
			if v := c.victimLocked(host, overClient); v != nil {
				c.releaseLocked(v, false)
				victims = append(victims, v)
				continue
			}
		}
		// Waiting helps only while some connection without a HELLO is
		// not a candidate yet (it may become one once read), and only at
		// the server's ceilings: a client at its own waits for nothing.
		unsettled := c.mu.greeting - c.mu.waiting.Len()
		if overClient || expired || unsettled == 0 || (!woken && c.mu.waiters >= maxAdmitWaiting) {
			return nil
		}
		if deadline == nil {
			deadline = time.NewTimer(admitWait)
		}
		c.mu.waiters++
		c.mu.Unlock()
		closeVictims()
		select {
		case <-c.ready:
		case <-deadline.C:
			expired = true // one more look, then refused
		case <-c.quit:
			expired = true
		}
		c.mu.Lock()
		c.mu.waiters--
		woken = true
	}
	sl := &slot{c: c, host: host, evict: evict, pending: pending}
	c.mu.total++
	c.mu.byHost[host]++
	c.mu.greeting++
	sl.relistLocked()
	if c.conns != nil {
		c.conns.Opened()
	}
	return sl
}

// hitLocked records a server-wide ceiling reached, and logs the start of
// an episode.
func (c *ceiling) hitLocked(overAll bool) {
	if !c.sat.Saturated() && c.log != nil {
		c.log.Warn("wire connection ceiling reached: evicting the connections longest without a HELLO, refusing new ones when none can go",
			"max_connections", c.limit, "open", c.mu.total, "without_hello", c.mu.greeting, "without_hello_limit", c.greetCap,
			"at_max_connections", overAll)
	}
	c.sat.Hit()
}

// victimLocked is the slot a newcomer from host takes, or nil: the one
// waited on longest for its HELLO; with host at its own ceiling, the
// oldest of host's.
func (c *ceiling) victimLocked(host string, overClient bool) *slot {
	for e := c.mu.waiting.Front(); e != nil; e = e.Next() {
		if sl := e.Value.(*slot); !overClient || sl.host == host {
			return sl
		}
	}
	return nil
}

// wakeLocked tells the newcomer waiting longest that a slot may be had.
func (c *ceiling) wakeLocked() {
	if c.mu.waiters == 0 {
		return
	}
	select {
	case c.ready <- struct{}{}:
	default: // as many wake-ups pending as can be used
	}
}

// releaseLocked gives sl's slot back, once; wake: tell a waiting
// newcomer (not when a newcomer takes the slot itself).
func (c *ceiling) releaseLocked(sl *slot, wake bool) {
	if sl.released {
		return
	}
	sl.released = true
	sl.relistLocked()
	c.mu.total--
	if c.mu.byHost[sl.host]--; c.mu.byHost[sl.host] <= 0 {
		delete(c.mu.byHost, sl.host)
	}
	if !sl.welcomed {
		c.mu.greeting--
	}
	if c.conns != nil {
		c.conns.Closed()
	}
	if wake {
		c.wakeLocked()
	}
}

// open is the number of slots held.
func (c *ceiling) open() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.mu.total
}

// relistLocked puts sl at the end of the waiting list when it became
// evictable (waking a newcomer waiting for it), and takes it off when it
// no longer is.
func (sl *slot) relistLocked() {
	evictable := !sl.released && !sl.welcomed && sl.pending == 0
	switch {
	case evictable && sl.elem == nil:
		sl.elem = sl.c.mu.waiting.PushBack(sl)
		sl.c.wakeLocked()
	case !evictable && sl.elem != nil:
		sl.c.mu.waiting.Remove(sl.elem)
		sl.elem = nil
	}
}

// release gives the slot back when its connection closed (unless a
// newcomer took it already). A nil slot (a session served without a
// ceiling, in tests) has nothing to give back.
func (sl *slot) release() {
	if sl == nil {
		return
	}
	sl.c.mu.Lock()
	defer sl.c.mu.Unlock()
	sl.c.releaseLocked(sl, true)
}

// begin counts a new session of a QUIC connection (a stream): its
// HELLO is awaited, the connection no longer waited on.
func (sl *slot) begin() {
	sl.c.mu.Lock()
	defer sl.c.mu.Unlock()
	if !sl.released {
		sl.pending++
		sl.streams++
		sl.relistLocked()
	}
}

// A greeter is a session's part in its slot's state: counted while the
// server is not waiting on the session for its HELLO (it has not read
// it yet, or the HELLO arrived and is being answered). A session starts
// counted: its slot counted it at admit (TCP) or begin (QUIC). Its
// methods are no-ops without a slot (a session served without a
// ceiling, in tests) and once the slot was released.
type greeter struct {
	sl      *slot
	counted bool // under sl.c.mu
}

// stall marks the server waiting on the session for the rest of its
// HELLO.
func (g *greeter) stall() { g.set(false, false) }

// arrive marks the session's first line arrived whole.
func (g *greeter) arrive() { g.set(true, false) }

// welcome marks the session's HELLO answered with WELCOME: the
// connection holds a session now, and is never evicted.
func (g *greeter) welcome() { g.set(false, true) }

// leave marks the session's end.
func (g *greeter) leave() { g.set(false, false) }

func (g *greeter) set(counted, welcomed bool) {
	sl := g.sl
	if sl == nil {
		return
	}
	c := sl.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if sl.released {
		return
	}
	switch {
	case counted && !g.counted:
		sl.pending++
	case !counted && g.counted:
		sl.pending--
	}
	g.counted = counted
	if welcomed && !sl.welcomed {
		sl.welcomed = true
		c.mu.greeting--
		c.wakeLocked() // a slot without a HELLO came free
	}
	sl.relistLocked()
}
