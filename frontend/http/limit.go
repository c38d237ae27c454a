package http

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
)

// limitListener enforces the connection ceilings at accept time: the
// server's (--max-connections) and each client address's
// (MaxConnectionsPerClient), so that one client cannot take every slot.
// At a ceiling, a keep-alive connection idle for at least reclaimAfter
// gives its slot to the newcomer (the longest idle first): idle
// connections cannot lock new clients out until their idle timeout. A
// connection in the middle of a request is never cut. When no slot can be
// freed, the newcomer is answered by the listener itself, off the accept
// loop, and closed: GET /api/v1/health gets the real health answer (a
// monitor must see the server alive while clients exhaust its
// connections), any other request 503 with the spec's error body (08006:
// clients retry with backoff).
type limitListener struct {
	net.Listener
	limit, perClient int
	health           func() []byte
	conns            ConnCounter // told of admitted connections; may be nil
	active           atomic.Int64
	mu               struct {
		sync.Mutex                           // protects byClient and conns
		byClient   map[string]int            // open connections per client address
		conns      map[*countedConn]struct{} // open connections
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

func newLimitListener(ln net.Listener, limit, perClient int, health func() []byte, conns ConnCounter) *limitListener {
	l := &limitListener{Listener: ln, limit: limit, perClient: perClient, health: health, conns: conns}
	l.mu.byClient = map[string]int{}
	l.mu.conns = map[*countedConn]struct{}{}
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
		client := clientAddr(c)
		if cc, ok := l.admit(c, client); ok {
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

// admit takes a slot for connection c from client, if both ceilings
// allow it, freeing the slot of an idle connection if need be.
func (l *limitListener) admit(c net.Conn, client string) (*countedConn, bool) {
	for attempt := 0; attempt < 2; attempt++ {
		victim, ok := l.take(client)
		if ok {
			cc := &countedConn{Conn: c, l: l, client: client}
			l.mu.Lock()
			l.mu.conns[cc] = struct{}{}
			l.mu.Unlock()
			if l.conns != nil {
				l.conns.Opened()
			}
			return cc, true
		}
		if victim == nil {
			return nil, false
		}
		victim.Close() // gives its slot back; then try again
	}
	return nil, false
}

// take counts a connection from client against both ceilings. At a
// ceiling it returns the longest-idle connection that may give up its
// slot (of the same client when that client's ceiling is the one
// reached), or nil when none may.
func (l *limitListener) take(client string) (victim *countedConn, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	overAll := l.limit > 0 && l.active.Load() >= int64(l.limit)
	overClient := l.perClient > 0 && l.mu.byClient[client] >= l.perClient
	if !overAll && !overClient {
		l.active.Add(1)
		l.mu.byClient[client]++
		return nil, true
	}
	oldest := time.Now().Add(-reclaimAfter).UnixNano()
	for cc := range l.mu.conns {
		since := cc.idleSince.Load()
		if since == 0 || since > oldest || (overClient && cc.client != client) {
			continue
		}
		if victim == nil || since < victim.idleSince.Load() {
			victim = cc
		}
	}
	return victim, false
}

// release gives a connection's slot back.
func (l *limitListener) release(cc *countedConn) {
	l.active.Add(-1)
	if l.conns != nil {
		l.conns.Closed()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.mu.conns, cc)
	if l.mu.byClient[cc.client]--; l.mu.byClient[cc.client] <= 0 {
		delete(l.mu.byClient, cc.client)
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
	if tc, ok := c.(*net.TCPConn); ok {
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

// countedConn gives its slot back when closed (once).
type countedConn struct {
	net.Conn
	l      *limitListener
	client string
	once   sync.Once
	// idleSince is when the connection went idle between keep-alive
	// requests (unix nanoseconds), 0 while it serves or awaits its first
	// request (connState).
	idleSince atomic.Int64
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.release(c) })
	return c.Conn.Close()
}

// connState records when a connection goes idle between requests and
// when it becomes busy again (fasthttp's ConnState hook).
func connState(c net.Conn, st fasthttp.ConnState) {
	cc, ok := c.(*countedConn)
	if !ok {
		return
	}
	switch st {
	case fasthttp.StateIdle:
		cc.idleSince.Store(time.Now().UnixNano())
	default:
		cc.idleSince.Store(0)
	}
}
