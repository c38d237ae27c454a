package wire

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/quic-go/quic-go"
)

// QUIC application error codes the server closes connections with.
const (
	quicNoError       quic.ApplicationErrorCode = 0
	quicRefused       quic.ApplicationErrorCode = 1 // over MaxConnections
	quicIdle          quic.ApplicationErrorCode = 2 // no session for the idle timeout
	quicEvicted       quic.ApplicationErrorCode = 3 // no HELLO yet, at the ceiling: a newcomer took its slot
	quicStreamDropped quic.StreamErrorCode      = 0
)

// ServeQUIC serves the wire protocol over QUIC on pc (a UDP socket;
// --listen's port number) until Shutdown, which makes it return nil once
// the connections ended, closing pc.
// Every bidirectional stream a client opens is a session of its own, at
// most MaxStreamsPerConn at once per connection. tlsConf needs a
// certificate (TLSConfig makes one from LoadOrCreateCertificate's); the
// server sets TLS 1.3 and the ALPN "quiver/1".
func (s *Server) ServeQUIC(pc net.PacketConn, tlsConf *tls.Config) error {
	tlsConf = tlsConf.Clone()
	tlsConf.MinVersion = tls.VersionTLS13
	tlsConf.NextProtos = []string{ALPN}
	tr := &quic.Transport{Conn: pc}
	ln, err := tr.Listen(tlsConf, &quic.Config{
		HandshakeIdleTimeout:  s.cfg.HelloTimeout,
		MaxIdleTimeout:        s.cfg.IdleTimeout,
		MaxIncomingStreams:    int64(s.cfg.MaxStreamsPerConn),
		MaxIncomingUniStreams: -1,
	})
	if err != nil {
		return fmt.Errorf("cannot listen for QUIC: %w", err)
	}
	if len(tlsConf.Certificates) > 0 {
		s.log.Info("listening (QUIC)", "addr", pc.LocalAddr().String(), "alpn", ALPN, "fingerprint", Fingerprint(tlsConf.Certificates[0]))
	}
	if !s.addListener(ln) {
		tr.Close()
		return nil
	}
	defer s.removeListener(ln)
	for {
		conn, err := ln.Accept(context.Background())
		if err != nil {
			if s.isClosed() {
				// Connections end gracefully first: closing the
				// transport would cut them without a word.
				<-s.drained
				tr.Close()
				pc.Close()
				return nil
			}
			tr.Close()
			return fmt.Errorf("cannot accept a QUIC connection: %w", err)
		}
		s.goServe(func() { s.serveQUICConn(conn) }, func() { conn.CloseWithError(quicNoError, errShutdown.Message) })
	}
}

// serveQUICConn accepts the streams of one connection. A connection with
// no open session for HelloTimeout (at first) or IdleTimeout (later) is
// closed, keep-alives or not. The connection holds one slot under the
// ceiling (ceiling.go): until one of its sessions completed HELLO, it is
// waited on from its accept, and at a ceiling a newcomer may take its
// slot (while none of its streams' HELLO is being answered).
func (s *Server) serveQUICConn(conn *quic.Conn) {
	sl := s.ceiling.admit(clientHost(conn.RemoteAddr()), 0, func() {
		conn.CloseWithError(quicEvicted, "the server is at its limit of wire connections and this connection had not completed a HELLO: it was closed to make room")
	})
	if sl == nil {
		conn.CloseWithError(quicRefused, s.ceilingError().message)
		return
	}
	defer sl.release()
	var sessions sync.WaitGroup
	var active struct {
		sync.Mutex
		n int
	}
	ctx, cancel := context.WithCancel(conn.Context())
	defer cancel()
	go func() {
		select {
		case <-s.quit:
			cancel()
		case <-ctx.Done():
		}
	}()
	wait := s.cfg.HelloTimeout
	for {
		actx, stop := context.WithTimeout(ctx, wait)
		st, err := conn.AcceptStream(actx)
		stop()
		if err != nil {
			active.Lock()
			idle := active.n == 0
			active.Unlock()
			if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil && !idle {
				continue
			}
			break
		}
		wait = s.cfg.IdleTimeout
		active.Lock()
		active.n++
		active.Unlock()
		sessions.Add(1)
		sl.begin() // its HELLO is awaited: the connection is not waited on
		go func() {
			defer sessions.Done()
			s.serveSession(streamTransport(st, conn.RemoteAddr()), sl)
			active.Lock()
			active.n--
			active.Unlock()
		}()
	}
	sessions.Wait()
	if s.isClosed() {
		conn.CloseWithError(quicNoError, errShutdown.Message)
	} else {
		conn.CloseWithError(quicIdle, "no open session")
	}
}

// streamTransport is a QUIC stream as a session's stream.
func streamTransport(st *quic.Stream, remote net.Addr) transport {
	return transport{r: st, w: st, setWriteDeadline: st.SetWriteDeadline, setReadDeadline: st.SetReadDeadline, remote: remote,
		hangUp: func(d time.Duration) {
			_ = st.Close() // the send direction only
			_ = st.SetReadDeadline(time.Now().Add(d))
		},
		close: func() {
			st.CancelRead(quicStreamDropped)
			_ = st.Close()
		}}
}

// TLSConfig is the server's TLS configuration for QUIC with cert.
func TLSConfig(cert tls.Certificate) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS13, NextProtos: []string{ALPN}}
}
