package http

import (
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// limitListener enforces the connection ceiling (max_connections) at
// accept time, reading the ceiling on every accept so that a SET takes
// effect for the next connection. A connection over the ceiling gets a
// 503 with the spec's error body (08006: clients retry with backoff) and
// is closed; connections already open are never cut.
type limitListener struct {
	net.Listener
	limit  func() int
	active atomic.Int64
}

// rejectBody is the answer to a connection over the ceiling.
var rejectBody = []byte(`{"error":{"code":"08006","category":"CONNECTION_FAILURE","message":"the server is at its connection limit (max_connections); retry later"}}`)

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if n := l.active.Add(1); n > int64(l.limit()) {
			l.active.Add(-1)
			go reject(c)
			continue
		}
		return &countedConn{Conn: c, l: l}, nil
	}
}

// reject answers and closes a connection over the ceiling without
// reading its request, off the accept loop.
func reject(c net.Conn) {
	defer c.Close()
	_ = c.SetWriteDeadline(time.Now().Add(time.Second))
	head := "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
		strconv.Itoa(len(rejectBody)) + "\r\n\r\n"
	_, _ = c.Write(append([]byte(head), rejectBody...))
}

// countedConn gives its slot back when closed (once).
type countedConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.active.Add(-1) })
	return c.Conn.Close()
}
