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

// reject answers a connection over the ceiling, off the accept loop, all
// within a second. It reads the request head first: a client that sees an
// answer before it sent its request takes it for garbage. Closing a socket
// with unread data in it resets the connection, and the client may then
// lose the answer; so the server half-closes after writing and discards
// what the client still sends until it closes.
func reject(c net.Conn) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	r := bufio.NewReaderSize(io.LimitReader(c, 64<<10), 4096)
	for {
		line, err := r.ReadSlice('\n')
		if err != nil && err != bufio.ErrBufferFull {
			return
		}
		if len(bytes.TrimSpace(line)) == 0 {
			break // the blank line ending the head
		}
	}
	head := "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
		strconv.Itoa(len(rejectBody)) + "\r\n\r\n"
	if _, err := c.Write(append([]byte(head), rejectBody...)); err != nil {
		return
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(c, 1<<20))
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
