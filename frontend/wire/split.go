package wire

import (
	"container/list"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// Split shares one TCP listener between the wire protocol and the HTTP
// API, as --listen does: a connection whose first byte is '{' (a JSON
// object, the start of HELLO) is served by the wire protocol, any other
// by whoever serves the returned listener (the HTTP server). The first
// byte is read off the accept loop, on a goroutine per connection and
// within SniffTimeout, so a client that sends nothing blocks no one; it
// is then closed. The byte is not lost: the HTTP server reads it first,
// and the connection tells it when it was accepted (AcceptedAt), so that
// the HTTP head's deadline counts the sniffing too.
//
// Closing the returned listener, or Shutdown, closes ln.
func (s *Server) Split(ln net.Listener) net.Listener {
	h := &httpListener{Listener: ln, conns: make(chan net.Conn), closed: make(chan struct{})}
	h.sniffs.byHost = map[string]int{}
	if !s.addListener(h) {
		return h
	}
	go s.splitLoop(h)
	return h
}

// maxSniffing bounds the connections whose first byte is awaited at
// once, so that a flood of silent connections cannot pile up goroutines:
// at the bound, the connection awaited longest is closed to make room
// (a flood from many addresses then churns its own connections, while a
// client that sends its first byte at once always gets through).
// maxSniffingPerClient bounds one client address's share of them: past
// it, that client's new connections are closed unread, so that one
// client's silent connections cannot push everyone else's out (as the
// HTTP listener bounds a client's connections).
const (
	maxSniffing          = 1024
	maxSniffingPerClient = 64
)

// sniffTable holds the connections whose first byte is awaited, oldest
// first.
type sniffTable struct {
	mu     sync.Mutex     // protects the fields below and each sniffed's elem
	order  list.List      // *sniffed, in order of accept
	byHost map[string]int // client IP → connections in order
}

// sniffed is a connection whose first byte is awaited.
type sniffed struct {
	c        net.Conn
	host     string
	accepted time.Time
	elem     *list.Element // nil once released or evicted
}

// take adds c from host, false when host has its share already. At
// maxSniffing it evicts the oldest connection: the caller closes it.
func (t *sniffTable) take(c net.Conn, host string) (sn, evicted *sniffed, ok bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byHost[host] >= maxSniffingPerClient {
		return nil, nil, false
	}
	if t.order.Len() >= maxSniffing {
		evicted = t.order.Front().Value.(*sniffed)
		t.removeLocked(evicted)
	}
	sn = &sniffed{c: c, host: host, accepted: time.Now()}
	sn.elem = t.order.PushBack(sn)
	t.byHost[host]++
	return sn, evicted, true
}

// release removes sn, unless it was evicted already.
func (t *sniffTable) release(sn *sniffed) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.removeLocked(sn)
}

func (t *sniffTable) removeLocked(sn *sniffed) {
	if sn.elem == nil {
		return
	}
	t.order.Remove(sn.elem)
	sn.elem = nil
	if t.byHost[sn.host]--; t.byHost[sn.host] <= 0 {
		delete(t.byHost, sn.host)
	}
}

// clientHost is the IP address of a peer (TCP or QUIC's UDP).
func clientHost(a net.Addr) string {
	switch a := a.(type) {
	case *net.TCPAddr:
		return a.IP.String()
	case *net.UDPAddr:
		return a.IP.String()
	}
	return a.String()
}

func (s *Server) splitLoop(h *httpListener) {
	defer s.removeListener(h)
	for {
		c, err := h.Listener.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			h.fail(err)
			return
		}
		sn, evicted, ok := h.sniffs.take(c, clientHost(c.RemoteAddr()))
		if !ok {
			c.Close()
			continue
		}
		if evicted != nil {
			evicted.c.Close() // its sniff goroutine ends on the error
			h.ceilingReached()
		}
		go s.sniff(sn, h)
	}
}

// sniff reads the first byte of sn's connection and hands it on.
func (s *Server) sniff(sn *sniffed, h *httpListener) {
	c := sn.c
	var first [1]byte
	_ = c.SetReadDeadline(sn.accepted.Add(s.cfg.SniffTimeout))
	n, err := c.Read(first[:])
	release := func() { h.sniffs.release(sn) }
	if err != nil || n == 0 {
		release()
		c.Close()
		return
	}
	if s.cfg.TLS != nil {
		s.sniffTLS(sn, first[0], h, release) // tlssplit.go
		return
	}
	release()
	_ = c.SetReadDeadline(time.Time{})
	s.dispatch(c, &peekedConn{Conn: c, first: first[0], accepted: sn.accepted}, first[0] == '{', h)
}

// dispatch hands a sniffed connection on: pc (c, its first byte read
// back) to a wire session when wire is set, otherwise to the HTTP
// listener h.
func (s *Server) dispatch(c, pc net.Conn, wire bool, h *httpListener) {
	if wire {
		s.goServe(func() { s.serveTCPConn(pc) }, func() { c.Close() })
		return
	}
	select {
	case h.conns <- pc:
	case <-h.closed:
		c.Close()
	}
}

// httpListener is the listener Split returns: the connections that do
// not speak the wire protocol.
type httpListener struct {
	net.Listener
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
	sniffs sniffTable
	// onCeiling, when set, is called each time maxSniffing is reached.
	onCeiling atomic.Pointer[func()]
	mu        struct {
		sync.Mutex       // protects err
		err        error // why the accept loop ended
	}
}

// OnCeiling makes f be called each time a connection had to be evicted
// because maxSniffing connections were awaiting their first byte: the
// HTTP server reports it as its connections' saturation.
func (h *httpListener) OnCeiling(f func()) { h.onCeiling.Store(&f) }

func (h *httpListener) ceilingReached() {
	if f := h.onCeiling.Load(); f != nil {
		(*f)()
	}
}

func (h *httpListener) Accept() (net.Conn, error) {
	select {
	case c := <-h.conns:
		return c, nil
	case <-h.closed:
		h.mu.Lock()
		defer h.mu.Unlock()
		if h.mu.err != nil {
			return nil, h.mu.err
		}
		return nil, net.ErrClosed
	}
}

// fail ends Accept with the accept loop's error.
func (h *httpListener) fail(err error) {
	h.mu.Lock()
	h.mu.err = err
	h.mu.Unlock()
	h.Close()
}

func (h *httpListener) Close() error {
	var err error
	h.once.Do(func() {
		close(h.closed)
		err = h.Listener.Close()
	})
	return err
}

// peekedConn is a connection whose first byte was read already: its
// first Read returns it. It passes the socket through (syscall.Conn) for
// the HTTP server's client-gone polling, and tells when it was accepted.
type peekedConn struct {
	net.Conn
	first    byte
	used     bool
	accepted time.Time
}

// AcceptedAt is when the connection was accepted, before its sniffing.
func (c *peekedConn) AcceptedAt() time.Time { return c.accepted }

func (c *peekedConn) Read(p []byte) (int, error) {
	if !c.used && len(p) > 0 {
		c.used = true
		p[0] = c.first
		return 1, nil
	}
	return c.Conn.Read(p)
}

// SyscallConn exposes the socket of a TCP connection.
func (c *peekedConn) SyscallConn() (syscall.RawConn, error) {
	conn := c.Conn
	for range 4 { // a TLS connection over a peeked one, at most
		if sc, ok := conn.(syscall.Conn); ok {
			return sc.SyscallConn()
		}
		nc, ok := conn.(interface{ NetConn() net.Conn })
		if !ok {
			break
		}
		conn = nc.NetConn()
	}
	return nil, errors.New("wire: the connection has no socket")
}

// CloseWrite half-closes a TCP connection.
func (c *peekedConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return c.Conn.Close()
}
