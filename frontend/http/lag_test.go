package http

import (
	"io"
	"net"
	"testing"
	"time"
)

// lateConn is a connection its listener accepted long before the server
// began to read it (a server lagging under load).
type lateConn struct {
	net.Conn
	at time.Time
}

func (c lateConn) AcceptedAt() time.Time { return c.at }

type oneConnListener struct {
	net.Listener
	c net.Conn
}

func (l *oneConnListener) Accept() (net.Conn, error) { return l.c, nil }

// A request sent whole at connect is read though the server began to
// read it after the head's deadline (counted from the accept) had
// passed: the server's lag must not pass for the client's slowness. The
// head keeps at least the eviction grace from the server's first read
// (a head that never comes is cut off as before: headDeadlineFromAccept).
// Before, the first read failed at once with a timeout: 408 to a normal
// client of a server lagging a second under a flood.
func TestHeadDeadlineLeavesGraceAfterServerLag(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer client.Close()
	server, err := ln.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer server.Close()
	const req = "GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n"
	if _, err := io.WriteString(client, req); err != nil {
		t.Fatal(err)
	}
	ll := newLimitListener(&oneConnListener{Listener: ln, c: lateConn{Conn: server, at: time.Now().Add(-10 * time.Second)}},
		limits{limit: 10, perClient: 10, evictGrace: 250 * time.Millisecond, timing: connTiming{header: time.Second}})
	c, err := ll.Accept()
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, len(req))
	if _, err := io.ReadFull(c, buf); err != nil || string(buf) != req {
		t.Fatalf("reading a request that had arrived: %q, %v", buf, err)
	}
}
