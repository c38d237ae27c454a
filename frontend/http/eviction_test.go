//go:build !batch2

package http

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	nethttp "net/http"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/internal/floodtest"
)

// dialSlow opens a connection that sends the start of a request head and
// nothing more, and waits until the server counted it and is reading its
// head (heads of them in all).
func dialSlow(t *testing.T, h *hostile, conns *floodtest.Gauge, want int64, heads int) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", h.addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, "GET /api/v1/health HTTP/1.1\r\nHost: x"); err != nil {
		t.Fatal(err)
	}
	floodtest.WaitFor(t, 10*time.Second, fmt.Sprintf("%d connections counted, %d heads read", want, heads), func() bool {
		l := h.srv.listening.Load()
		l.mu.Lock()
		defer l.mu.Unlock()
		return conns.N() == want && l.mu.heads.Len() == heads && l.mu.fresh == 0
	})
	return c
}

// closedByServer reports whether the server closed c (within d), rather
// than leaving it waiting.
func closedByServer(c net.Conn, d time.Duration) bool {
	_ = c.SetReadDeadline(time.Now().Add(d))
	_, err := c.Read(make([]byte, 1))
	var ne net.Error
	return err != nil && !(errors.As(err, &ne) && ne.Timeout())
}

// At the ceiling, a newcomer takes the slot of the connection that has
// been sending its head longest, never a busy one's; and heads cannot
// take the reserve: with the head slots full, a new head evicts the
// oldest even while a reserved slot is free.
func TestEvictionOrderAndReserve(t *testing.T) {
	conns := &floodtest.Gauge{}
	// Long head deadlines: only eviction closes the slow connections here.
	h := startHostile(t, Config{MaxConnections: 4, ReservedConnections: 1, MaxConnectionsPerClient: 100,
		HeaderTimeout: time.Minute, Conns: conns, WriteTimeout: time.Minute}, engine.Options{MaxMemory: -1})

	// A busy connection: a large streamed result its client does not
	// read, so the server is writing it.
	busy, err := net.Dial("tcp", h.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	body := `{"query":"UNWIND range(1, 3000000) AS x RETURN x"}`
	fmt.Fprintf(busy, "POST /api/v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	floodtest.WaitFor(t, 10*time.Second, "the busy query to run", func() bool { return h.srv.Running() == 1 })

	// Three heads fill the head slots (4 - 1 reserved); one slot is free.
	s1 := dialSlow(t, h, conns, 2, 1)
	s2 := dialSlow(t, h, conns, 3, 2)
	s3 := dialSlow(t, h, conns, 4, 3)
	if closedByServer(s1, 50*time.Millisecond) {
		t.Fatal("a head was closed before any ceiling was reached")
	}
	// A fourth head evicts the oldest one although the reserved slot is
	// free: the count stays at 4 (busy and three heads).
	s4 := dialSlow(t, h, conns, 4, 3)
	if !closedByServer(s1, 5*time.Second) {
		t.Error("the oldest head kept its slot when a new head came at the head limit")
	}
	for i, c := range []net.Conn{s2, s3, s4} {
		if closedByServer(c, 20*time.Millisecond) {
			t.Errorf("head %d was closed, not the oldest", i+2)
		}
	}
	// A normal request at the ceiling gets in, in the place of the
	// oldest head (s2); the busy connection keeps its query.
	for i := range 3 {
		if status := statusOnce(t, h.addr, fmt.Sprintf("POST /api/v1/query HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 20\r\nConnection: close\r\n\r\n{\"query\":\"RETURN 1\"}", h.addr)); status != 200 {
			t.Fatalf("request %d at the ceiling: %d", i, status)
		}
	}
	if !closedByServer(s2, 5*time.Second) {
		t.Error("the oldest head kept its slot when a request came at the ceiling")
	}
	if h.srv.Running() != 1 {
		t.Error("the busy query stopped: its connection was cut")
	}
	// The busy answer is whole.
	_ = busy.SetReadDeadline(time.Now().Add(time.Minute))
	resp, err := nethttp.ReadResponse(bufio.NewReader(busy), nil)
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, resp.Body)
	if resp.StatusCode != 200 || err != nil || n < 3000000 {
		t.Errorf("the busy answer: %d, %d bytes, %v", resp.StatusCode, n, err)
	}
}

// A body must keep the minimum rate once its grace has passed: one
// trickled far below it is cut off with 408 long before the body
// timeout, while one sent at twice the rate is served.
func TestSlowBodyIsCutOff(t *testing.T) {
	h := startHostile(t, Config{MinBodyRate: 2000, BodyGrace: 300 * time.Millisecond, BodyTimeout: time.Minute}, engine.Options{MaxMemory: -1})
	send := func(body string, chunk int, every time.Duration) (int, time.Duration) {
		c, err := net.Dial("tcp", h.addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		start := time.Now()
		fmt.Fprintf(c, "POST /api/v1/query HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(body))
		answered := make(chan int, 1)
		go func() {
			_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
			resp, err := nethttp.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				answered <- 0
				return
			}
			resp.Body.Close()
			answered <- resp.StatusCode
		}()
		tick := time.NewTicker(every)
		defer tick.Stop()
		for i := 0; i < len(body); i += chunk {
			if _, err := io.WriteString(c, body[i:min(i+chunk, len(body))]); err != nil {
				break
			}
			select {
			case status := <-answered:
				return status, time.Since(start)
			case <-tick.C:
			}
		}
		return <-answered, time.Since(start)
	}
	pad := strings.Repeat("a", 4000)
	body := `{"query":"RETURN size($p) AS n","parameters":{"p":"` + pad + `"}}`
	if status, took := send(body, 10, 50*time.Millisecond); status != 408 || took > 5*time.Second {
		t.Errorf("a body at 200 bytes/s: %d after %v, want 408 soon after the grace", status, took)
	}
	// 4,000 bytes/s: 200 bytes every 50 ms, about a second in all.
	if status, took := send(body, 200, 50*time.Millisecond); status != 200 {
		t.Errorf("a body at 4,000 bytes/s: %d after %v, want 200", status, took)
	}
}
