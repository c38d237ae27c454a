package cluster

import (
	"bytes"
	"io"
	"net"
	"testing"
)

// countingConn counts the bytes read from a connection.
type countingConn struct {
	net.Conn
	n int
}

func (c *countingConn) Read(b []byte) (int, error) {
	n, err := c.Conn.Read(b)
	c.n += n
	return n, err
}

// The most a member reads of a peer that fails its handshake: the secret
// handshake's fixed frames (magic and nonce, then the proof); for TLS,
// what crypto/tls reads of a handshake, whose messages it bounds (64 KiB
// each), with room for its records' framing.
const (
	maxSecretHandshakeRead = 8 + nonceLen + 32
	maxTLSHandshakeRead    = 1 << 18
)

// FuzzMemberHandshake: a peer that sends anything at all (garbage, a
// replayed handshake, megabytes) to a member authenticating a connection,
// as the accepting or the dialling end, with a secret or TLS, is refused
// without a panic, and the member reads no more than the handshake's
// bound of it.
func FuzzMemberHandshake(f *testing.F) {
	secret := MemberAuth{Secret: []byte("a cluster secret of some length")}
	ca := newTestCA(f, "cluster")
	withTLS := tlsAuth(f, ca.member(f, "n1"), ca.pool)
	hello := append(append([]byte(nil), handshakeMagic...), bytes.Repeat([]byte{7}, nonceLen)...)
	for mode := range uint8(4) {
		f.Add([]byte{}, mode)
		f.Add(hello, mode)
		f.Add(append(hello, bytes.Repeat([]byte{1}, 32)...), mode)
		f.Add([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"), mode)
		// A TLS record header announcing a large handshake message.
		f.Add(append([]byte{0x16, 0x03, 0x01, 0x40, 0x00, 0x01, 0xff, 0xff, 0xff}, bytes.Repeat([]byte{0}, 1<<20)...), mode)
	}
	f.Fuzz(func(t *testing.T, b []byte, mode uint8) {
		auth, server, limit := secret, mode&1 == 0, maxSecretHandshakeRead
		if mode&2 != 0 {
			auth, limit = withTLS, maxTLSHandshakeRead
		}
		ours, peer := net.Pipe()
		done := make(chan struct{})
		go func() { // the peer: reads whatever it is sent, says b, hangs up
			defer close(done)
			go io.Copy(io.Discard, peer)
			_, _ = peer.Write(b)
			_ = peer.Close()
		}()
		counted := &countingConn{Conn: ours}
		c, err := auth.authenticate(counted, server)
		_ = ours.Close()
		<-done
		if err == nil {
			c.Close()
			t.Fatalf("a peer sending %d bytes authenticated", len(b))
		}
		if counted.n > limit {
			t.Fatalf("the member read %d bytes of a failed handshake, more than %d", counted.n, limit)
		}
	})
}
