package http

import (
	"container/list"
	"net"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"
)

// phase is where an admitted connection is in its request cycle. The
// listener's eviction order reads it (limit.go), and so do the
// connection's read deadlines: a head must arrive within HeaderTimeout,
// a body at MinBodyRate.
type phase uint32

const (
	// phaseNew: admitted, and not read yet: the server has not begun to
	// wait for the client. Such a connection counts as a head, but is not
	// evicted: under load, the server's own delay in reading it must not
	// pass for the client's slowness.
	phaseNew phase = iota
	// phaseHead: receiving a request's line and headers, from the
	// server's first read (or a keep-alive request's first byte) until
	// the blank line that ends them.
	phaseHead
	// phaseBody: the head arrived; the body is arriving, or the request
	// waits for its handler.
	phaseBody
	// phaseBusy: the handler runs or the answer is being written; or the
	// connection was taken over (a WebSocket).
	phaseBusy
	// phaseIdle: a keep-alive connection between requests.
	phaseIdle
)

// connTiming are the deadlines of heads and bodies.
type connTiming struct {
	// header is how long a head may take from its start.
	header time.Duration
	// bodyGrace is how long a body may take before minBodyRate applies;
	// minBodyRate (bytes per second, 0: none) is the average rate a body
	// must keep from its start on after that.
	bodyGrace   time.Duration
	minBodyRate int
}

// countedConn is an admitted connection: it gives its slot back when
// closed (once), and follows its phase. It sees the bytes the server
// reads: a head ends at the first empty line after a non-empty one, and
// from then on the bytes count as body until the handler runs (whatever
// bytes fasthttp's buffer took ahead make no difference to the order of
// eviction). fasthttp sets the read deadlines it wants (ReadTimeout,
// HeaderReceived's body timeout, IdleTimeout); while a head or a body
// arrives, the connection applies the earlier of that deadline and its
// own: the head's start plus the header timeout, counted from the accept
// (sniffing included) for a connection's first request; for a body, the
// time by which the bytes so far were due at the minimum rate.
type countedConn struct {
	net.Conn
	l      *limitListener
	client string
	// released is set once the slot was given back (by Close, or by the
	// listener evicting the connection).
	released atomic.Bool
	// phase is written under l.mu by the goroutine serving the
	// connection, and read by it freely and by the listener under l.mu.
	phase atomic.Uint32
	// elem is the connection's entry in its phase's list (l.mu), nil
	// while new, busy or released; fresh is set while it is counted as
	// new (l.mu); listedAt is when it entered its phase (l.mu).
	elem     *list.Element
	fresh    bool
	listedAt time.Time

	// Owned by the goroutine serving the connection.
	headSince time.Time // when the current head began
	bodySince time.Time // when the current body began
	bodyBytes int64     // body bytes read since bodySince
	lineEnds  int       // consecutive line ends in the head so far
	inHead    bool      // a byte other than CR or LF was seen in the head
	applied   time.Time // the read deadline last set on Conn
	// headBegun is set once a byte of the current head (other than a
	// line end) arrived: the listener reads it.
	headBegun atomic.Bool
	// want is the read deadline asked for (unix nanoseconds, 0: none).
	want atomic.Int64
	// hijacked is set once a handler took the connection over: its
	// deadlines then pass straight through, from whatever goroutine.
	hijacked atomic.Bool
}

func (c *countedConn) Close() error {
	if c.released.CompareAndSwap(false, true) {
		c.l.mu.Lock()
		c.l.releaseLocked(c)
		c.l.mu.Unlock()
	}
	return c.Conn.Close()
}

// setPhase moves the connection to phase p (the serving goroutine only).
func (c *countedConn) setPhase(p phase, now time.Time) {
	old := phase(c.phase.Load())
	if old == p {
		return
	}
	headSince := now
	if old == phaseNew {
		// The deadline counts from the accept, but a server slow to begin
		// reading leaves the request the eviction grace to arrive.
		headSince = c.headSince
		if t := c.l.timing.header; t > 0 {
			if floor := now.Add(min(c.l.evictGrace, t) - t); headSince.Before(floor) {
				headSince = floor
			}
		}
	}
	if p == phaseHead {
		c.headBegun.Store(false) // before it is listed as a head
	}
	l := c.l
	l.mu.Lock()
	if !c.released.Load() {
		l.unlistLocked(c)
		c.phase.Store(uint32(p))
		l.listLocked(c, now)
	} else {
		c.phase.Store(uint32(p))
	}
	l.mu.Unlock()
	switch p {
	case phaseHead:
		c.headSince, c.lineEnds, c.inHead = headSince, 0, false
	case phaseBody:
		c.bodySince, c.bodyBytes = now, 0
	}
	if old == phaseHead || old == phaseBody {
		c.applyDeadline() // lift this phase's own deadline
	}
}

// Read reads and follows the phase: the first read starts the head (the
// server waits for the client from now on), an idle connection's first
// byte starts a head, a head's end starts the body.
func (c *countedConn) Read(p []byte) (int, error) {
	ph := phase(c.phase.Load())
	if ph == phaseNew {
		c.setPhase(phaseHead, time.Now())
		ph = phaseHead
	}
	if ph == phaseHead || ph == phaseBody {
		c.applyDeadline()
	}
	n, err := c.Conn.Read(p)
	if n <= 0 {
		return n, err
	}
	read := p[:n]
	switch ph {
	case phaseIdle:
		c.setPhase(phaseHead, time.Now())
		fallthrough
	case phaseHead:
		if end := c.headEnd(read); end >= 0 {
			c.setPhase(phaseBody, time.Now())
			c.bodyBytes = int64(n - end)
		} else if c.inHead && !c.headBegun.Load() {
			c.headBegun.Store(true)
		}
	case phaseBody:
		c.bodyBytes += int64(n)
	}
	return n, err
}

// headEnd returns the offset just past the empty line that ends the head
// in b, or -1 when the head goes on. Line ends before the request line
// (which HTTP lets a client send) do not end it.
func (c *countedConn) headEnd(b []byte) int {
	for i, x := range b {
		switch x {
		case '\n':
			if c.inHead {
				if c.lineEnds++; c.lineEnds == 2 {
					return i + 1
				}
			}
		case '\r':
		default:
			c.inHead, c.lineEnds = true, 0
		}
	}
	return -1
}

// SetReadDeadline records the deadline fasthttp (or a handler that took
// the connection over) wants and applies it, or an earlier one of the
// phase.
func (c *countedConn) SetReadDeadline(t time.Time) error {
	c.storeWant(t)
	return c.applyDeadline()
}

// SetDeadline sets both deadlines, the read one as SetReadDeadline does.
func (c *countedConn) SetDeadline(t time.Time) error {
	c.storeWant(t)
	if err := c.Conn.SetWriteDeadline(t); err != nil {
		return err
	}
	return c.applyDeadline()
}

func (c *countedConn) storeWant(t time.Time) {
	if t.IsZero() {
		c.want.Store(0)
		return
	}
	c.want.Store(t.UnixNano())
}

// applyDeadline sets the read deadline: the one wanted, or the phase's
// when that is earlier.
func (c *countedConn) applyDeadline() error {
	var d time.Time
	if w := c.want.Load(); w != 0 {
		d = time.Unix(0, w)
	}
	if c.hijacked.Load() {
		return c.Conn.SetReadDeadline(d)
	}
	var own time.Time
	switch phase(c.phase.Load()) {
	case phaseNew, phaseHead:
		if t := c.l.timing.header; t > 0 {
			own = c.headSince.Add(t)
		}
	case phaseBody:
		if r := c.l.timing.minBodyRate; r > 0 {
			own = c.bodySince.Add(c.l.timing.bodyGrace + time.Duration(c.bodyBytes)*time.Second/time.Duration(r))
		}
	}
	if !own.IsZero() && (d.IsZero() || own.Before(d)) {
		d = own
	}
	if d.Equal(c.applied) {
		return nil
	}
	c.applied = d
	return c.Conn.SetReadDeadline(d)
}

// connState follows fasthttp's view of a connection (its ConnState
// hook): a request starts (Active; after an idle connection's first
// byte, or at once for a connection's first request), a keep-alive
// connection goes idle, a handler takes it over (Hijacked).
func connState(c net.Conn, st fasthttp.ConnState) {
	cc, ok := c.(*countedConn)
	if !ok {
		return
	}
	switch st {
	case fasthttp.StateActive:
		if phase(cc.phase.Load()) == phaseIdle {
			cc.setPhase(phaseHead, time.Now()) // a pipelined request, already buffered
		}
	case fasthttp.StateIdle:
		cc.setPhase(phaseIdle, time.Now())
	case fasthttp.StateHijacked:
		cc.setPhase(phaseBusy, time.Now())
		cc.hijacked.Store(true)
	}
}

// markBusy moves a request's connection to phaseBusy: its request has
// arrived whole and is being answered.
func markBusy(ctx *fasthttp.RequestCtx) {
	if cc, ok := ctx.Conn().(*countedConn); ok {
		cc.setPhase(phaseBusy, time.Now())
	}
}
