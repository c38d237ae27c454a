package netfault

import (
	"errors"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// dialTimeout bounds a dial to the target, which is on loopback: a target
// that does not answer within it is as good as down.
const dialTimeout = 10 * time.Second

// conn is one proxied connection: the dialer's side and, once dialed
// through, the target's.
type conn struct {
	client net.Conn
	mu     struct {
		sync.Mutex // guards server
		server     net.Conn
	}
	dead chan struct{} // closed by reset
	once sync.Once
}

// reset closes both sides with RST (SO_LINGER 0), so that each peer sees
// its connection fail rather than end.
func (c *conn) reset() {
	c.once.Do(func() {
		close(c.dead)
		abort(c.client)
		c.mu.Lock()
		if c.mu.server != nil {
			abort(c.mu.server)
		}
		c.mu.Unlock()
	})
}

// setServer records the target's side; false when c was reset meanwhile
// (the caller then closes it).
func (c *conn) setServer(s net.Conn) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case <-c.dead:
		return false
	default:
	}
	c.mu.server = s
	return true
}

func abort(nc net.Conn) {
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = nc.Close()
}

// serve waits until the link passes traffic, dials the target and pumps
// both ways until both sides have ended.
func (l *Link) serve(c *conn) {
	defer l.wg.Done()
	defer func() {
		c.reset()
		l.mu.Lock()
		delete(l.mu.conns, c)
		l.mu.Unlock()
		l.stat.open.Add(-1)
	}()
	target, ok := l.waitFlow(c)
	if !ok {
		return
	}
	s, err := net.DialTimeout("tcp", target, dialTimeout)
	if err != nil {
		l.stat.dialFailed.Add(1)
		return
	}
	if !c.setServer(s) {
		abort(s)
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { l.pump(c, c.client, s, &l.stat.up) })
	wg.Go(func() { l.pump(c, s, c.client, &l.stat.down) })
	wg.Wait()
}

// pump copies src to dst, each chunk through the link's gate: a chunk
// read while the link is cut is held until Heal, and dropped with the
// connection by a drop. Reading stops while a chunk is held, so the
// sender's kernel buffers fill and its writes block, as across a real
// partition. A clean end of src half-closes dst; any other end resets c.
func (l *Link) pump(c *conn, src, dst net.Conn, forwarded *atomic.Int64) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			l.stat.held.Add(int64(n))
			_, ok := l.waitFlow(c)
			if !ok {
				l.stat.held.Add(-int64(n))
				return
			}
			// Counted before the write, so that a peer that has the bytes
			// never sees a count without them.
			forwarded.Add(int64(n))
			l.stat.held.Add(-int64(n))
			if _, werr := dst.Write(buf[:n]); werr != nil {
				c.reset()
				return
			}
		}
		if err != nil {
			if tc, ok := dst.(*net.TCPConn); ok && errors.Is(err, io.EOF) {
				_ = tc.CloseWrite()
				return
			}
			c.reset()
			return
		}
	}
}
