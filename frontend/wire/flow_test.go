package wire

import (
	"context"
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

func TestPullWindowsAndDiscard(t *testing.T) {
	_, addr := startTCP(t, Config{Window: 100}, openDB(t))
	c := dial(t, addr)
	r := c.run(`UNWIND range(1, 1000) AS i RETURN i`, nil)
	if !r.paused || len(r.rows) != 100 || num(t, r.rows[99]["i"]) != 100 {
		t.Fatalf("first window: paused %v, %d rows", r.paused, len(r.rows))
	}
	c.send(`{"type":"PULL","n":250}`)
	r2 := c.readResult()
	if !r2.paused || len(r2.rows) != 250 || num(t, r2.rows[0]["i"]) != 101 {
		t.Fatalf("PULL 250: paused %v, %d rows", r2.paused, len(r2.rows))
	}
	c.send(`{"type":"PULL","n":-1}`)
	r3 := c.readResult()
	if r3.paused || len(r3.rows) != 650 || num(t, r3.summary["rows"]) != 1000 {
		t.Fatalf("PULL -1: paused %v, %d rows, summary %v", r3.paused, len(r3.rows), r3.summary)
	}

	// DISCARD ends a paused result with SUCCESS.
	r = c.run(`UNWIND range(1, 1000) AS i RETURN i`, nil)
	if !r.paused {
		t.Fatal("not paused")
	}
	c.send(`{"type":"DISCARD"}`)
	m := c.expect("SUCCESS")
	sum := m["summary"].(map[string]any)
	if sum["discarded"] != true || num(t, sum["rows"]) != 100 {
		t.Errorf("DISCARD answered %v", m)
	}

	// A result that fits the window exactly does not pause: has_more
	// promises a row.
	r = c.run(`UNWIND range(1, 100) AS i RETURN i`, nil)
	if r.paused || len(r.rows) != 100 || r.success == nil {
		t.Errorf("exact window: paused %v, %d rows", r.paused, len(r.rows))
	}

	// Another message while paused ends the result, then is answered.
	r = c.run(`UNWIND range(1, 1000) AS i RETURN i`, nil)
	if !r.paused {
		t.Fatal("not paused")
	}
	c.send(`{"type":"PING"}`)
	c.expectError(engine.CodeConnection)
	c.expect("SUCCESS")
	c.ok(`RETURN 1 AS x`)
}

// A result larger than any buffer streams in bounded memory: the server
// writes the window and stops until the client pulls, and the whole
// result arrives pull by pull.
func TestLargeResultIsFlowControlled(t *testing.T) {
	total := 2_000_000
	if raceEnabled || testing.Short() {
		total = 200_000
	}
	db := openDB(t)
	srv := New(Config{Logger: quietLogger(), Version: "v"}, db)
	server, client := tcpPair(t)
	counted := &countingWriter{Conn: server}
	go srv.serveSession(tcpTransport(counted), nil)
	c := &tconn{t: t, c: client, r: newReader(client)}
	c.hello()
	c.sendMsg(map[string]any{"type": "RUN_GQL", "query": fmt.Sprintf("UNWIND range(1, %d) AS i RETURN i", total)})
	c.expect("SCHEMA")
	rows, pulls := 0, 0
	readBefore := int64(0)
	for {
		m := c.recv()
		if m == nil {
			t.Fatal("connection closed")
		}
		if m["type"] == "SUCCESS" {
			if n := num(t, m["summary"].(map[string]any)["rows"]); n != int64(total) {
				t.Fatalf("summary rows %d, want %d", n, total)
			}
			break
		}
		if m["type"] != "BINDINGS" {
			t.Fatalf("got %v", m)
		}
		data := m["data"].([]any)
		if got := num(t, data[0].(map[string]any)["i"]); got != int64(rows+1) {
			t.Fatalf("row %d is %d", rows+1, got)
		}
		rows += len(data)
		if m["has_more"] == true {
			// The server waits: it wrote nothing past this message, and
			// no more than a window since the last PULL.
			read := readBytes(c)
			if w := counted.written.Load(); w != read {
				t.Fatalf("paused with %d bytes written and %d read", w, read)
			}
			// {"i":1999999} is 13 bytes and a comma; a BINDINGS
			// message has 50 bytes of its own every 32 KiB.
			if read-readBefore > 5000*14+4096 {
				t.Fatalf("a window of %d bytes", read-readBefore)
			}
			readBefore = read
			pulls++
			c.send(`{"type":"PULL","n":5000}`)
		}
	}
	if rows != total || pulls < total/5000 {
		t.Fatalf("%d rows in %d pulls", rows, pulls)
	}
	c.ok(`RETURN 1 AS x`)
}

// A result waiting for PULL still ends at the query's deadline.
func TestPausedResultTimesOut(t *testing.T) {
	_, addr := startTCP(t, Config{Window: 10}, openDB(t))
	c := dial(t, addr)
	start := time.Now()
	r := c.run(`UNWIND range(1, 1000) AS i RETURN i`, map[string]any{"options": map[string]any{"timeout_ms": 300}})
	if !r.paused {
		t.Fatal("not paused")
	}
	m := c.expectError(engine.CodeTimeout)
	if time.Since(start) > 5*time.Second {
		t.Errorf("the timeout took %s", time.Since(start))
	}
	t.Log(m["message"])
	c.ok(`RETURN 1 AS x`)
}

// A paused result of a session that goes idle ends with the session.
func TestPausedResultIdleTimeout(t *testing.T) {
	_, addr := startTCP(t, Config{Window: 10, IdleTimeout: 300 * time.Millisecond}, openDB(t))
	c := dial(t, addr)
	if r := c.run(`UNWIND range(1, 1000) AS i RETURN i`, nil); !r.paused {
		t.Fatal("not paused")
	}
	c.expectError(engine.CodeConnection)
	c.expectClosed()
}

// tcpPair is a connected pair of loopback TCP connections.
func tcpPair(t *testing.T) (server, client net.Conn) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	client, err = (&net.Dialer{}).DialContext(ctx, "tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	server = <-accepted
	if server == nil {
		t.Fatal("accept failed")
	}
	t.Cleanup(func() { client.Close(); server.Close() })
	return server, client
}
