package main

import (
	"bufio"
	"encoding/json"
	"net"
	"testing"
	"time"
)

// rawWire is a wire protocol connection sending and reading lines as
// they are, for what the Go client does not show.
type rawWire struct {
	t *testing.T
	c net.Conn
	r *bufio.Reader
}

func dialRaw(t *testing.T, addr string) *rawWire {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	must(t, err, "dialing %s", addr)
	t.Cleanup(func() { c.Close() })
	return &rawWire{t: t, c: c, r: bufio.NewReader(c)}
}

func (w *rawWire) send(line string) {
	w.t.Helper()
	_ = w.c.SetDeadline(time.Now().Add(clusterDeadline))
	_, err := w.c.Write([]byte(line + "\n"))
	must(w.t, err, "sending %s", line)
}

// expect reads messages up to one of type typ (skipping SCHEMA and
// BINDINGS of a result) and returns it.
func (w *rawWire) expect(typ string) map[string]any {
	w.t.Helper()
	for {
		line, err := w.r.ReadBytes('\n')
		must(w.t, err, "reading a %s", typ)
		var m map[string]any
		must(w.t, json.Unmarshal(line, &m), "decoding %s", line)
		if m["type"] == typ {
			return m
		}
		if m["type"] == "ERROR" || m["type"] == "SUCCESS" || m["type"] == "WELCOME" {
			w.t.Fatalf("got %s, want %s", line, typ)
		}
	}
}
