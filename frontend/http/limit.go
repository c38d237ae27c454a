package http

import (
	"bufio"
	"bytes"
	"container/list"
	"io"
	"log/slog"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/serving"
)

// limitListener enforces the connection ceilings at accept time: the
// server's (--max-connections) and each client address's
// (MaxConnectionsPerClient), so that one client cannot take every slot.
//
// A flood of slow connections from many addresses passes the per-client
// ceiling, so the server-wide one must not lock the others out either.
// Each admitted connection is in one phase (conn.go): receiving a
// request head, receiving a body, busy (the handler runs or the answer is
// written), or idle between keep-alive requests. Two rules follow:
//
//   - The reserve: connections receiving a head may hold at most the
//     ceiling minus ReservedConnections slots. The reserved slots are
//     for connections that got a request through, which a flood of
//     heads that never end cannot reach.
//   - Eviction: at a ceiling, a newcomer takes the slot of the connection
//     that has been receiving its head longest; failing that, of the
//     longest-idle keep-alive connection (idle for reclaimAfter at
//     least); failing that, of the connection that has been receiving
//     its body longest. A busy connection is never cut, nor a new one
//     the server has not read yet (under load the server's delay must
//     not pass for the client's), nor a body, or a head of which no
//     byte arrived, younger than the eviction grace: the server may
//     begin to read a connection before the request its client sent at
//     connect arrives, and a newcomer taking that slot closed a normal
//     request unanswered. A head that began and has not ended is slow
//     whatever its age. At a client's own ceiling, only that client's
//     connections are candidates.
//
// A normal client sends its head at once, so it is never the one mid-head
// longest, and each of its connections gets in; a slow one loses its slot
// to the next newcomer, whoever that is. When no slot can be freed the
// newcomer is answered by the listener itself, off the accept loop, and
// closed: GET /api/v1/health gets the real health answer (a monitor must
// see the server alive while clients exhaust its connections), any other
// request 503 with the spec's error body (08006: clients retry with
// backoff). Every eviction or refusal at a server-wide ceiling is a hit
// of the Saturation, which health reports as degraded.
type limitListener struct {
	net.Listener
	limit, perClient int
	// headCap bounds the connections receiving a head: limit minus the
	// reserve; 0 means no bound.
	headCap int
	// evictGrace is how long a head or body is safe from eviction.
	evictGrace time.Duration
	health     func() []byte
	conns      ConnCounter // told of admitted connections; may be nil
	sat        *serving.Saturation
	log        *slog.Logger
	timing     connTiming
	mu         struct {
		sync.Mutex                // protects the fields below and the phase lists of every countedConn
		total      int            // open connections
		byClient   map[string]int // open connections per client address
		// The open connections by phase, each list oldest first (by when
		// the connection entered the phase); busy ones are in none, and
		// new ones (not read yet) only counted, in fresh.
		heads, idles, bodies list.List
		fresh                int
	}
	// rejecting counts the over-ceiling connections being answered;
	// past maxRejecting the listener closes them unanswered, so a flood
	// cannot pile up goroutines either.
	rejecting atomic.Int64
}

// maxRejecting bounds the connections answered over the ceiling at once.
const maxRejecting = 256

// rejectTimeout bounds how long answering one over-ceiling connection
// may take: a client that sends its request head slowly gets nothing.
const rejectTimeout = time.Second

// reclaimAfter is how long a keep-alive connection must have been idle
// before a newcomer at a ceiling may take its slot.
const reclaimAfter = time.Second

// limits are the limitListener's settings.
type limits struct {
	limit, perClient, reserve int
	evictGrace                time.Duration
	timing                    connTiming
	health                    func() []byte
	conns                     ConnCounter
	sat                       *serving.Saturation
	log                       *slog.Logger
}

func newLimitListener(ln net.Listener, o limits) *limitListener {
	l := &limitListener{Listener: ln, limit: o.limit, perClient: o.perClient, health: o.health, conns: o.conns,
		sat: o.sat, log: o.log, timing: o.timing, evictGrace: max(o.evictGrace, 0)}
	if o.limit > 0 && o.reserve > 0 && o.reserve < o.limit {
		l.headCap = o.limit - o.reserve
	}
	l.mu.byClient = map[string]int{}
	return l
}

// rejectBody is the answer to a connection over a ceiling.
var rejectBody = appendError(nil, &apiError{code: engine.CodeUnavailable, category: engine.CatUnavailable,
	message: "the server is at its connection limit (max_connections, or the limit per client address); retry later"})

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if cc := l.admit(c); cc != nil {
			return cc, nil
		}
		if l.rejecting.Add(1) > maxRejecting {
			l.rejecting.Add(-1)
			c.Close()
			continue
		}
		go func() {
			defer l.rejecting.Add(-1)
			l.reject(c)
		}()
	}
}

// acceptedAt is implemented by connections that were accepted before
// they reached this listener (the wire protocol's sniffing, which reads
// the first byte): the head's deadline counts from then.
type acceptedAt interface{ AcceptedAt() time.Time }

// admit takes a slot for c, evicting connections as the rules allow;
// nil when no slot can be freed.
func (l *limitListener) admit(c net.Conn) *countedConn {
	client := clientAddr(c)
	now := time.Now()
	since := now
	if a, ok := c.(acceptedAt); ok && !a.AcceptedAt().IsZero() && a.AcceptedAt().Before(now) {
		since = a.AcceptedAt()
	}
	var victims []*countedConn
	defer func() { // after the unlock: closing takes no lock, but may take time
		for _, v := range victims {
			v.Conn.Close()
		}
	}()
	l.mu.Lock()
	defer l.mu.Unlock()
	for {
		overClient := l.perClient > 0 && l.mu.byClient[client] >= l.perClient
		overAll := l.limit > 0 && l.mu.total >= l.limit
		overHeads := l.headCap > 0 && l.mu.heads.Len()+l.mu.fresh >= l.headCap
		if !overClient && !overAll && !overHeads {
			break
		}
		if overAll || overHeads {
			l.hitLocked(overAll)
		}
		v := l.victimLocked(client, overClient, overAll, now)
		if v == nil {
			return nil
		}
		l.evictLocked(v)
		victims = append(victims, v)
	}
	cc := &countedConn{Conn: c, l: l, client: client}
	cc.headSince = since
	cc.phase.Store(uint32(phaseNew))
	l.listLocked(cc, now)
	l.mu.total++
	l.mu.byClient[client]++
	if l.conns != nil {
		l.conns.Opened()
	}
	return cc
}

// hitLocked records a server-wide ceiling reached, and logs the start of
// an episode.
func (l *limitListener) hitLocked(overAll bool) {
	if !l.sat.Saturated() && l.log != nil {
		l.log.Warn("connection ceiling reached: evicting the connections slowest to send their request, refusing new ones when none can go",
			"max_connections", l.limit, "open", l.mu.total, "receiving_head", l.mu.heads.Len(), "head_limit", l.headCap, "at_max_connections", overAll)
	}
	l.sat.Hit()
}

// victimLocked picks the connection whose slot a newcomer from client
// takes, or nil: with the client at its own ceiling, one of its own;
// otherwise, at the head bound only, the one mid-head longest; at the
// server's ceiling, by the order of the type's comment.
func (l *limitListener) victimLocked(client string, overClient, overAll bool, now time.Time) *countedConn {
	of := func(cc *countedConn) bool { return !overClient || cc.client == client }
	// A head that has not begun to arrive, or a body, younger than the
	// grace may be a request on its way: the server began to read before
	// its bytes arrived. A head that began and has not ended is a slow
	// one (a request sent whole arrives in one read).
	before := now.Add(-l.evictGrace)
	graced := func(cc *countedConn) bool { return of(cc) && !cc.listedAt.After(before) }
	slowHead := func(cc *countedConn) bool { return graced(cc) || (of(cc) && cc.headBegun.Load()) }
	if v := oldest(&l.mu.heads, slowHead); v != nil {
		return v
	}
	if !overClient && !overAll {
		return nil // at the head bound, every head new: refused
	}
	idleBefore := now.Add(-reclaimAfter)
	if v := oldest(&l.mu.idles, func(cc *countedConn) bool { return of(cc) && cc.listedAt.Before(idleBefore) }); v != nil {
		return v
	}
	return oldest(&l.mu.bodies, graced)
}

// oldest is the first connection of a phase list that ok accepts. The
// lists are in order of entry, so the first that passes is the oldest.
func oldest(ls *list.List, ok func(*countedConn) bool) *countedConn {
	for e := ls.Front(); e != nil; e = e.Next() {
		if cc := e.Value.(*countedConn); ok(cc) {
			return cc
		}
	}
	return nil
}

// evictLocked takes an admitted connection's slot back; the caller
// closes it. A connection whose own Close is releasing it right now
// leaves its list here and its slot when that Close gets the lock.
func (l *limitListener) evictLocked(cc *countedConn) {
	if cc.released.CompareAndSwap(false, true) {
		l.releaseLocked(cc)
		return
	}
	l.unlistLocked(cc)
}

// releaseLocked gives a connection's slot back (once: the caller set
// cc.released).
func (l *limitListener) releaseLocked(cc *countedConn) {
	l.unlistLocked(cc)
	l.mu.total--
	if l.mu.byClient[cc.client]--; l.mu.byClient[cc.client] <= 0 {
		delete(l.mu.byClient, cc.client)
	}
	if l.conns != nil {
		l.conns.Closed()
	}
}

// unlistLocked takes cc off its phase list (or count).
func (l *limitListener) unlistLocked(cc *countedConn) {
	if cc.fresh {
		l.mu.fresh--
		cc.fresh = false
	}
	if cc.elem == nil {
		return
	}
	switch phase(cc.phase.Load()) {
	case phaseHead:
		l.mu.heads.Remove(cc.elem)
	case phaseBody:
		l.mu.bodies.Remove(cc.elem)
	case phaseIdle:
		l.mu.idles.Remove(cc.elem)
	}
	cc.elem = nil
}

// listLocked puts cc at the end of its phase's list (or count), listed
// at now.
func (l *limitListener) listLocked(cc *countedConn, now time.Time) {
	cc.listedAt = now
	switch phase(cc.phase.Load()) {
	case phaseNew:
		l.mu.fresh++
		cc.fresh = true
	case phaseHead:
		cc.elem = l.mu.heads.PushBack(cc)
	case phaseBody:
		cc.elem = l.mu.bodies.PushBack(cc)
	case phaseIdle:
		cc.elem = l.mu.idles.PushBack(cc)
	}
}

// clientAddr is the address a connection counts against: the remote IP.
func clientAddr(c net.Conn) string {
	if ta, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		return ta.IP.String()
	}
	return c.RemoteAddr().String()
}

// reject answers a connection over a ceiling within rejectTimeout. It
// reads the request head first: a client that sees an answer before it
// sent its request takes it for garbage. Closing a socket with unread
// data in it resets the connection, and the client may then lose the
// answer; so the server half-closes after writing and discards what the
// client still sends until it closes.
func (l *limitListener) reject(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(rejectTimeout))
	r := bufio.NewReaderSize(io.LimitReader(c, 64<<10), 4096)
	var requestLine []byte
	for {
		line, err := r.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
		if requestLine == nil {
			requestLine = append([]byte(nil), line...)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			break // the blank line ending the head
		}
	}
	status, body := "503 Service Unavailable", rejectBody
	if isHealthRequest(requestLine) {
		status, body = "200 OK", l.health()
	}
	head := "HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n"
	if _, err := c.Write(append([]byte(head), body...)); err != nil {
		return
	}
	if tc, ok := c.(interface{ CloseWrite() error }); ok {
		_ = tc.CloseWrite()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(c, 1<<20))
}

// isHealthRequest reports whether a request line asks for the health
// endpoint.
func isHealthRequest(line []byte) bool {
	fields := bytes.Fields(line)
	return len(fields) == 3 && string(fields[0]) == "GET" && string(fields[1]) == "/api/v1/health"
}
