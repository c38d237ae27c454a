package wire

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// Server serves the wire protocol's sessions over TCP (ServeTCP, Split)
// and QUIC (ServeQUIC) for one database.
type Server struct {
	cfg Config
	db  *engine.DB
	log *slog.Logger
	// ceiling holds the open wire connections' slots against
	// MaxConnections and MaxConnectionsPerClient (ceiling.go).
	ceiling *ceiling
	// refusing counts the connections over the ceiling being answered.
	refusing atomic.Int64
	// quit is closed by Shutdown: idle sessions end, accept loops stop.
	quit chan struct{}
	// drained is closed once Shutdown saw the connections end.
	drained chan struct{}
	// wg counts the goroutines serving connections and streams.
	wg sync.WaitGroup
	mu struct {
		sync.Mutex // protects the fields below
		closed     bool
		sessions   map[*session]struct{}
		listeners  map[io.Closer]struct{}
	}
}

// New returns a server for db.
func New(cfg Config, db *engine.DB) *Server {
	cfg = cfg.withDefaults()
	s := &Server{cfg: cfg, db: db, log: cfg.Logger, quit: make(chan struct{}), drained: make(chan struct{})}
	s.ceiling = newCeiling(cfg, s.quit)
	s.mu.sessions = map[*session]struct{}{}
	s.mu.listeners = map[io.Closer]struct{}{}
	return s
}

// Sessions is the number of open sessions.
func (s *Server) Sessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.mu.sessions)
}

// ServeTCP serves the wire protocol on every connection of ln (a
// listener of the protocol alone; Split shares one with HTTP) until
// Shutdown, which makes it return nil.
func (s *Server) ServeTCP(ln net.Listener) error {
	if !s.addListener(ln) {
		return nil
	}
	defer s.removeListener(ln)
	for {
		c, err := ln.Accept()
		if err != nil {
			if s.isClosed() {
				return nil
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("cannot accept a wire connection: %w", err)
		}
		s.goServe(func() { s.serveTCPConn(c) }, func() { c.Close() })
	}
}

// goServe runs f on a goroutine of its own that Shutdown waits for; when
// the server is shut down already, it runs refuse instead.
func (s *Server) goServe(f, refuse func()) {
	s.mu.Lock()
	if s.mu.closed {
		s.mu.Unlock()
		refuse()
		return
	}
	s.wg.Add(1)
	s.mu.Unlock()
	go func() {
		defer s.wg.Done()
		f()
	}()
}

// serveTCPConn serves one TCP connection's session. At a ceiling the
// connection takes the slot of one the server has been waiting on
// longest for its HELLO, which is closed unanswered (ceiling.go); when
// none can go, it is refused.
func (s *Server) serveTCPConn(c net.Conn) {
	sock := socketOf(c)
	sl := s.ceiling.admit(clientHost(c.RemoteAddr()), 1, func() { sock.Close() })
	if sl == nil {
		if s.refusing.Add(1) > maxRefusing {
			c.Close() // a flood: no answer, no goroutine kept
		} else {
			s.refuseTCP(c)
		}
		s.refusing.Add(-1)
		return
	}
	defer sl.release()
	s.serveSession(tcpTransport(c), sl)
}

// socketOf is the socket under c (a sniffed connection, a TLS one over
// it). An evicted connection's socket is closed at once: TLS's own Close
// would first send its close_notify, which a client that does not read
// could hold up.
func socketOf(c net.Conn) net.Conn {
	for range 4 {
		switch x := c.(type) {
		case *peekedConn:
			c = x.Conn
		case *tlsPeekedConn:
			c = x.Conn
		case interface{ NetConn() net.Conn }:
			c = x.NetConn()
		default:
			return c
		}
	}
	return c
}

// maxRefusing bounds the connections over the ceiling answered at once;
// past it they are closed unanswered.
const maxRefusing = 256

// ceilingError answers a connection over MaxConnections.
func (s *Server) ceilingError() *wireError {
	return protocolError(true, "the server is at its limit of %d wire connections, or this client address at its limit of %d; retry later",
		s.cfg.MaxConnections, s.cfg.MaxConnectionsPerClient)
}

// refuseTCP answers a connection over the ceiling with an ERROR and
// closes it, within a second.
func (s *Server) refuseTCP(c net.Conn) {
	t := tcpTransport(c)
	_ = c.SetWriteDeadline(time.Now().Add(lingerTime))
	_, _ = c.Write(appendError(nil, s.ceilingError()))
	t.hangUp(lingerTime)
	_, _ = io.Copy(io.Discard, c)
	t.close()
}

// tcpTransport is a TCP connection as a session's stream.
func tcpTransport(c net.Conn) transport {
	return transport{r: c, w: c, setWriteDeadline: c.SetWriteDeadline, setReadDeadline: c.SetReadDeadline, remote: c.RemoteAddr(),
		hangUp: func(d time.Duration) {
			if cw, ok := c.(interface{ CloseWrite() error }); ok {
				_ = cw.CloseWrite()
			}
			_ = c.SetReadDeadline(time.Now().Add(d))
		},
		close: func() { c.Close() }}
}

// serveSession runs one session on t, whose connection holds sl (nil:
// no ceiling).
func (s *Server) serveSession(t transport, sl *slot) {
	ss := newSession(s, t, sl)
	if !s.addSession(ss) {
		ss.greet.leave()
		ss.out = appendError(ss.out, &wireError{code: errShutdown.Code, category: errShutdown.Category, message: errShutdown.Message})
		ss.flush()
		t.hangUp(0)
		t.close()
		return
	}
	defer s.removeSession(ss)
	ss.serve()
}

func (s *Server) addSession(ss *session) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.closed {
		return false
	}
	s.mu.sessions[ss] = struct{}{}
	return true
}

func (s *Server) removeSession(ss *session) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.mu.sessions, ss)
}

func (s *Server) addListener(ln io.Closer) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.closed {
		ln.Close()
		return false
	}
	s.mu.listeners[ln] = struct{}{}
	return true
}

func (s *Server) removeListener(ln io.Closer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.mu.listeners, ln)
}

func (s *Server) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mu.closed
}

// Shutdown stops accepting connections and ends the sessions: an idle
// one at once (with an ERROR 08006 saying why), one answering a message
// when the answer is written. Sessions still busy when ctx ends are
// cancelled (their queries stop, their transactions roll back) and their
// connections closed; Shutdown then returns ctx's error.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	if s.mu.closed {
		s.mu.Unlock()
		return nil
	}
	s.mu.closed = true
	lns := make([]io.Closer, 0, len(s.mu.listeners))
	for ln := range s.mu.listeners {
		lns = append(lns, ln)
	}
	s.mu.Unlock()
	close(s.quit)
	for _, ln := range lns {
		ln.Close()
	}
	done := make(chan struct{})
	go func() {
		s.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		close(s.drained)
		return nil
	case <-ctx.Done():
	}
	defer close(s.drained)
	s.mu.Lock()
	for ss := range s.mu.sessions {
		ss.cancel(errShutdown)
		ss.t.hangUp(0)
		ss.t.close()
	}
	s.mu.Unlock()
	<-done
	return ctx.Err()
}
