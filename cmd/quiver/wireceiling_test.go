package main

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/auth"
	"github.com/quiverdb/quiver/frontend/metrics"
	"github.com/quiverdb/quiver/internal/floodtest"
)

// The wire protocol gets serve's --reserved-connections, and shares the
// HTTP server's record of ceilings reached: with --max-connections 3 and
// a reserve of 2, one wire connection stalled on its HELLO holds the
// only slot without a HELLO, so a newcomer takes it although a slot is
// free; and GET /api/v1/health then says the connections are degraded.
func TestWireCeilingWiring(t *testing.T) {
	dir := t.TempDir()
	o, err := parseServe([]string{"--listen", "127.0.0.1:0", "--data-dir", dir, "--rate-limit", "0",
		"--max-connections", "3", "--reserved-connections", "2"})
	if err != nil {
		t.Fatal(err)
	}
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	db, err := engine.Open(dir, engine.Options{Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	reg := metrics.NewRegistry()
	defer reg.Close()
	authSvc, err := auth.Open(auth.Config{DB: db, Logger: quiet})
	if err != nil {
		t.Fatal(err)
	}
	defer authSvc.Close()
	fe, err := startFrontends(o, db, nil, reg, nil, authSvc, quiet)
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, c := range conns { // a session lingers for its client's close
			c.Close()
		}
		if err := fe.shutdown(ctx); err != nil {
			t.Error(err)
		}
	}()
	health := func() string {
		t.Helper()
		_, h := getStatus(t, "http://"+fe.addr+"/api/v1/health")
		checks, _ := h["checks"].(map[string]any)
		return h["status"].(string) + " " + checks["connections"].(string)
	}
	if h := health(); h != "healthy ok" {
		t.Fatalf("health before: %s", h)
	}
	dial := func() net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", fe.addr)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		_ = c.SetDeadline(time.Now().Add(30 * time.Second))
		return c
	}
	hello := func(c net.Conn) string {
		t.Helper()
		if _, err := io.WriteString(c, `{"type":"HELLO","version":"1.0"}`+"\n"); err != nil {
			t.Fatal(err)
		}
		line, _ := bufio.NewReader(c).ReadString('\n')
		return line
	}
	if w := hello(dial()); !strings.Contains(w, `"WELCOME"`) {
		t.Fatalf("first session: %q", w)
	}
	// The newcomer must come after the server admitted the slow one: a
	// slow connection admitted later would find the newcomer's slot
	// already a session, and wait its HELLO timeout. The health probe's
	// connection is closed by now, leaving the session alone counted.
	floodtest.WaitFor(t, 10*time.Second, "the health probe's connection to close", func() bool { return reg.ActiveConnections() == 1 })
	slow := dial()
	if _, err := io.WriteString(slow, `{"type":"HEL`); err != nil {
		t.Fatal(err)
	}
	floodtest.WaitFor(t, 10*time.Second, "the slow connection to be admitted", func() bool { return reg.ActiveConnections() == 2 })
	if w := hello(dial()); !strings.Contains(w, `"WELCOME"`) {
		t.Fatalf("newcomer: %q", w)
	}
	if _, err := slow.Read(make([]byte, 1)); err == nil || isTimeoutErr(err) {
		t.Fatalf("the connection stalled on its HELLO: %v, want it closed", err)
	}
	if h := health(); h != "degraded degraded" {
		t.Errorf("health after an eviction at the wire ceiling: %s", h)
	}
}

func isTimeoutErr(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}
