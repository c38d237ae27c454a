//go:build !batch2

package wire

// This file and ceiling_test.go test connection handling only, which
// the batch size does not touch: make test-batch2 leaves them out.

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/frontend/serving"
	"github.com/quiverdb/quiver/internal/floodtest"
)

// The slow-HELLO flood of a wire client's issue: connections from many
// addresses that send `{` (so the port's sniffing hands them to the wire
// protocol) and then a HELLO a byte at a time that never ends, and
// reconnect when closed. At a small ceiling they hold every slot a
// connection without a WELCOME may take; a normal client that connects,
// says HELLO and runs a few statements, again and again, still gets at
// least 95% of its sessions through at p99 under a second, because each
// of its connections takes the slot of the one waiting longest for its
// HELLO. The ceiling being reached marks the Saturation health reads, and
// the mark fades once the flood ends.
func TestSlowHelloFloodFromManyAddresses(t *testing.T) {
	const ceiling, slow = 40, 200
	floodtest.NeedFiles(t, 3*slow)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns floodtest.Gauge
	sat := &serving.Saturation{Window: 500 * time.Millisecond}
	srv := New(Config{Logger: quietLogger(), Version: "v", MaxConnections: ceiling, HelloTimeout: time.Second,
		Conns: &conns, Saturation: sat}, openDB(t))
	httpLn := srv.Split(ln) // the port as --listen serves it; no HTTP client here
	t.Cleanup(func() {
		httpLn.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = srv.Shutdown(ctx)
	})
	addr := ln.Addr().String()
	flood := startHelloFlood(t, addr, slow, 100*time.Millisecond)
	// The flood holds the slots it may: every one, or all but the
	// reserve (a tenth).
	floodtest.WaitFor(t, 20*time.Second, "the flood to reach the ceiling", func() bool { return conns.N() >= ceiling*9/10 })
	// Sessions one after the other, each on a new connection.
	load := floodtest.RunClient(2*time.Second, 20, func() error { return wireSession(addr) })
	saturated := sat.Saturated()
	flood.Stop()
	maxP99 := time.Second
	if raceEnabled { // the race detector slows server and flood ten times on two cores
		maxP99 = 3 * time.Second
	}
	load.Check(t, fmt.Sprintf("wire client's sessions beside %d slow-HELLO connections (%d made) at a ceiling of %d", slow, flood.Connects(), ceiling), 20, 95, maxP99)
	if !saturated {
		t.Error("the Saturation was not marked while the flood held the wire ceiling: health would say healthy")
	}
	floodtest.WaitFor(t, 10*time.Second, "the Saturation to fade after the flood", func() bool { return !sat.Saturated() })
}

// slowHello is what a flood connection sends after its `{`, a byte at a
// time; then spaces, never the line's end.
const slowHello = `"type":"HELLO","version":"1.0","client":"slow"`

// startHelloFlood starts a slow-HELLO attack from many loopback source
// addresses (127.6.x.y, one per connection): each connection sends `{`
// (so the port's sniffing hands it to the wire protocol), then a HELLO a
// byte per interval that never ends its line, and reconnects when the
// server closes it.
func startHelloFlood(t testing.TB, addr string, n int, interval time.Duration) *floodtest.Flood {
	t.Helper()
	return floodtest.Start(t, floodtest.Config{Addr: addr, Conns: n, Source: floodtest.Loopback(6),
		Payload: "{" + slowHello, Filler: ' ', Interval: interval})
}

// wireSession is one session of a normal client: it connects, says
// HELLO, runs three statements and checks their answers.
func wireSession(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(c)
	next := func() (map[string]any, error) {
		line, err := r.ReadBytes('\n')
		if err != nil {
			if errors.Is(err, io.EOF) || strings.Contains(err.Error(), "reset") {
				return nil, errors.New("closed by the server")
			}
			return nil, err
		}
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, err
		}
		if m["type"] == "ERROR" {
			return nil, fmt.Errorf("ERROR %v", m["code"])
		}
		return m, nil
	}
	if _, err := io.WriteString(c, `{"type":"HELLO","version":"1.0","client":"normal"}`+"\n"); err != nil {
		return err
	}
	if m, err := next(); err != nil || m["type"] != "WELCOME" {
		return fmt.Errorf("HELLO: %v %v", m, err)
	}
	for i := range 3 {
		if _, err := fmt.Fprintf(c, `{"type":"RUN_GQL","query":"RETURN %d + 1 AS x"}`+"\n", i); err != nil {
			return err
		}
		var got any
		for {
			m, err := next()
			if err != nil {
				return err
			}
			if m["type"] == "BINDINGS" {
				if rows, _ := m["data"].([]any); len(rows) == 1 {
					got = rows[0].(map[string]any)["x"]
				}
			}
			if m["type"] == "SUCCESS" {
				break
			}
		}
		if got != float64(i+1) {
			return fmt.Errorf("RETURN %d + 1: %v", i, got)
		}
	}
	return nil
}
