package wire

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

func openDB(t testing.TB) *engine.DB {
	t.Helper()
	db, err := engine.Open(t.TempDir(), engine.Options{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// startTCP serves db's wire protocol on a loopback port; it returns the
// server and its address.
func startTCP(t *testing.T, cfg Config, db *engine.DB) (*Server, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Logger == nil {
		cfg.Logger = quietLogger()
	}
	cfg.Version = "test-version"
	srv := New(cfg, db)
	done := make(chan error, 1)
	go func() { done <- srv.ServeTCP(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return srv, ln.Addr().String()
}

// countingConn counts the bytes read from it.
type countingConn struct {
	net.Conn
	read atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}

// tconn is a raw protocol client for tests.
type tconn struct {
	t    testing.TB
	c    io.ReadWriteCloser
	r    *bufio.Reader
	lens []int // the lengths of the lines read
}

func dialRaw(t testing.TB, addr string) *tconn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	_ = c.SetDeadline(time.Now().Add(60 * time.Second))
	return &tconn{t: t, c: c, r: bufio.NewReaderSize(c, 1<<20)}
}

// dial connects and says HELLO.
func dial(t testing.TB, addr string) *tconn {
	t.Helper()
	c := dialRaw(t, addr)
	c.hello()
	return c
}

func (c *tconn) hello() map[string]any {
	c.t.Helper()
	c.send(`{"type":"HELLO","version":"1.0","client":"test"}`)
	m := c.expect("WELCOME")
	return m
}

func (c *tconn) send(lines ...string) {
	c.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(c.c, l+"\n"); err != nil {
			c.t.Fatalf("send %.80s: %v", l, err)
		}
	}
}

// sendMsg sends v as JSON.
func (c *tconn) sendMsg(v map[string]any) {
	c.t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		c.t.Fatal(err)
	}
	c.send(string(b))
}

// recv reads one message; nil at EOF.
func (c *tconn) recv() map[string]any {
	c.t.Helper()
	line, err := c.r.ReadBytes('\n')
	if err != nil {
		if len(line) == 0 && (err == io.EOF || strings.Contains(err.Error(), "reset")) {
			return nil
		}
		c.t.Fatalf("read: %v (%q)", err, line)
	}
	c.lens = append(c.lens, len(line))
	dec := json.NewDecoder(strings.NewReader(string(line)))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		c.t.Fatalf("the server sent a line that is not a JSON object: %v: %q", err, line)
	}
	return m
}

// expect reads one message of the given type.
func (c *tconn) expect(typ string) map[string]any {
	c.t.Helper()
	m := c.recv()
	if m == nil {
		c.t.Fatalf("connection closed, want %s", typ)
	}
	if m["type"] != typ {
		c.t.Fatalf("got %v, want %s", m, typ)
	}
	return m
}

// expectError reads an ERROR with the given code.
func (c *tconn) expectError(code string) map[string]any {
	c.t.Helper()
	m := c.expect("ERROR")
	if m["code"] != code {
		c.t.Fatalf("ERROR code %v (%v), want %s", m["code"], m["message"], code)
	}
	return m
}

// expectClosed reads until EOF, failing on any message.
func (c *tconn) expectClosed() {
	c.t.Helper()
	if m := c.recv(); m != nil {
		c.t.Fatalf("got %v, want the connection closed", m)
	}
}

// result is one query's answer.
type result struct {
	fields   []any
	rows     []map[string]any
	summary  map[string]any
	success  map[string]any
	err      map[string]any
	explain  map[string]any
	profile  map[string]any
	paused   bool // the last BINDINGS had has_more
	messages int
}

// run sends RUN_GQL and reads its answer up to SUCCESS, ERROR or a pause.
func (c *tconn) run(query string, extra map[string]any) *result {
	c.t.Helper()
	m := map[string]any{"type": "RUN_GQL", "query": query, "params": map[string]any{}}
	for k, v := range extra {
		m[k] = v
	}
	c.sendMsg(m)
	return c.readResult()
}

// readResult reads messages until SUCCESS, ERROR or has_more.
func (c *tconn) readResult() *result {
	c.t.Helper()
	r := &result{}
	for {
		m := c.recv()
		if m == nil {
			c.t.Fatal("connection closed in the middle of a result")
		}
		r.messages++
		switch m["type"] {
		case "SCHEMA":
			r.fields = m["fields"].([]any)
		case "BINDINGS":
			for _, row := range m["data"].([]any) {
				r.rows = append(r.rows, row.(map[string]any))
			}
			if m["has_more"] == true {
				r.paused = true
				return r
			}
		case "EXPLAIN":
			r.explain = m
		case "PROFILE":
			r.profile = m
		case "SUCCESS":
			r.success = m
			r.summary, _ = m["summary"].(map[string]any)
			return r
		case "ERROR":
			r.err = m
			return r
		default:
			c.t.Fatalf("unexpected message in a result: %v", m)
		}
	}
}

// ok runs a query that must succeed whole.
func (c *tconn) ok(query string) *result {
	c.t.Helper()
	r := c.run(query, map[string]any{"options": map[string]any{}})
	if r.err != nil || r.paused {
		c.t.Fatalf("%s: %v (paused %v)", query, r.err, r.paused)
	}
	return r
}

func num(t testing.TB, v any) int64 {
	t.Helper()
	n, ok := v.(json.Number)
	if !ok {
		t.Fatalf("%v (%T) is not a number", v, v)
	}
	i, err := n.Int64()
	if err != nil {
		t.Fatalf("%v is not an integer", v)
	}
	return i
}

// countingWriter counts the bytes the server writes, before it writes
// them.
type countingWriter struct {
	net.Conn
	written atomic.Int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	c.written.Add(int64(len(p)))
	return c.Conn.Write(p)
}

// CloseWrite passes the half-close through.
func (c *countingWriter) CloseWrite() error { return c.Conn.(*net.TCPConn).CloseWrite() }

func newReader(c net.Conn) *bufio.Reader {
	cc := &countingConn{Conn: c}
	return bufio.NewReaderSize(cc, 4096)
}

// readBytes is how many bytes the client has consumed: read from the
// socket minus what its reader still buffers.
func readBytes(c *tconn) int64 {
	var n int64
	for _, l := range c.lens {
		n += int64(l)
	}
	return n
}
