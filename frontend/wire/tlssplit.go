package wire

import (
	"crypto/tls"
	"io"
	"net"
	"time"
)

// With Config.TLS set, the shared port speaks TLS only
// (docs/wire-protocol.md, Transports): Split reads a connection's first
// byte, which must open a TLS handshake record; the handshake and the
// first decrypted byte then decide as on a plain port ('{' → the wire
// protocol, anything else → HTTPS and WSS), unless ALPN has decided
// already (http/1.1 → HTTP, quiver/1 → the wire protocol). The
// handshake runs inside the sniffing budget: it has SniffTimeout, and
// counts against maxSniffing and maxSniffingPerClient until the
// connection is handed on, so a client that stalls its handshake holds
// no more than a silent one. A plaintext client is told the port speaks
// TLS (an HTTP 400, or a wire ERROR) and closed.

// tlsRecordHandshake is the first byte of a TLS ClientHello record.
const tlsRecordHandshake = 0x16

// ALPNHTTP is the application protocol HTTPS clients negotiate on the
// main port; wire clients may negotiate ALPN (quiver/1) instead.
const ALPNHTTP = "http/1.1"

// MainTLSConfig is the main port's TLS configuration: TLS 1.2 or later,
// ALPN http/1.1 (HTTP and WSS) or quiver/1 (the wire protocol), the
// certificate from getCert (which may change between handshakes: a
// reload).
func MainTLSConfig(getCert func(*tls.ClientHelloInfo) (*tls.Certificate, error)) *tls.Config {
	return &tls.Config{GetCertificate: getCert, MinVersion: tls.VersionTLS12, NextProtos: []string{ALPNHTTP, ALPN}}
}

// sniffTLS is sniff on a TLS port: the first byte of sn's connection was
// read (first) and sn is still in the sniffing table; release takes it
// out.
func (s *Server) sniffTLS(sn *sniffed, first byte, h *httpListener, release func()) {
	c := sn.c
	deadline := sn.accepted.Add(s.cfg.SniffTimeout)
	_ = c.SetDeadline(deadline)
	if first != tlsRecordHandshake {
		refusePlaintext(c, first)
		release()
		return
	}
	tc := tls.Server(&peekedConn{Conn: c, first: first, accepted: sn.accepted}, s.cfg.TLS)
	if err := tc.Handshake(); err != nil {
		release()
		s.log.Debug("TLS handshake failed", "client", c.RemoteAddr().String(), "error", err)
		c.Close()
		return
	}
	pc := &tlsPeekedConn{peekedConn: peekedConn{Conn: tc, used: true, accepted: sn.accepted}, tc: tc}
	wire := false
	switch tc.ConnectionState().NegotiatedProtocol {
	case ALPN:
		wire = true
	case ALPNHTTP:
	default:
		var b [1]byte
		if n, err := tc.Read(b[:]); err != nil || n == 0 {
			release()
			c.Close()
			return
		}
		pc.first, pc.used, wire = b[0], false, b[0] == '{'
	}
	release()
	_ = c.SetDeadline(time.Time{})
	s.dispatch(c, pc, wire, h)
}

// plaintextRefusal answers an HTTP request on a TLS port.
const plaintextRefusal = "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\nContent-Length: 54\r\n\r\nthis port speaks TLS: connect with https:// or wss://\n"

// maxPlaintextDrain bounds what a refused plaintext client's request is
// read of before the close, so that the close does not reset the
// connection before the client has read the answer.
const maxPlaintextDrain = 16 << 10

// refusePlaintext tells a client that did not start a TLS handshake that
// the port speaks TLS, when it looks like HTTP or the wire protocol, and
// closes it. c's deadline bounds it.
func refusePlaintext(c net.Conn, first byte) {
	var msg []byte
	switch {
	case first == '{':
		msg = appendError(nil, protocolError(true, "this port speaks TLS: connect with TLS (ALPN quiver/1 or none) and send HELLO inside it"))
	case first >= 'A' && first <= 'Z':
		msg = []byte(plaintextRefusal)
	}
	if msg != nil {
		_, _ = c.Write(msg)
		if cw, ok := c.(interface{ CloseWrite() error }); ok {
			_ = cw.CloseWrite()
		}
		_, _ = io.CopyN(io.Discard, c, maxPlaintextDrain)
	}
	c.Close()
}

// tlsPeekedConn is a TLS connection handed on with its first decrypted
// byte (when one was read): the HTTP server sees its TLS state (a
// request's IsTLS), the wire session its half-close.
type tlsPeekedConn struct {
	peekedConn
	tc *tls.Conn
}

// Handshake is done already; it is there for the HTTP server's TLS test.
func (c *tlsPeekedConn) Handshake() error { return c.tc.Handshake() }

// ConnectionState is the TLS connection's state.
func (c *tlsPeekedConn) ConnectionState() tls.ConnectionState { return c.tc.ConnectionState() }
