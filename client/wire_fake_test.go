package client

import (
	"bufio"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net"
	"regexp"
	"strconv"
	"sync"
	"testing"
)

// fakeWireServer speaks enough of the wire protocol to exercise the
// client: the layers keep the client's tests from starting Quiver's own
// server (frontend/wire tests the server side with real queries).
//
//	UNWIND range(1, N) AS i RETURN i   rows 1..N in windows of window
//	FAIL                               ERROR 42000 at line 1, column 1
//	EXPLAIN …                          EXPLAIN, SUCCESS
//	BEGIN / COMMIT / ROLLBACK          transaction "tx-1"; COMMIT of a
//	                                   transaction that ran CONFLICT: 40001
type fakeWireServer struct {
	ln     net.Listener
	window int
	mu     sync.Mutex
	pulls  []int64 // the n of every PULL
	log    []string
	// auths are the HELLOs' auth objects (nil for a HELLO without). A
	// password "wrong" is refused with 08001, "limited" with
	// RATE_LIMIT_EXCEEDED, as the real server's failures.
	auths []map[string]any
}

var rangeQuery = regexp.MustCompile(`^UNWIND range\(1, (\d+)\) AS i RETURN i$`)

func startFakeWireServer(tb testing.TB, window int) *fakeWireServer {
	f, err := listenFakeWireServer(window)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.ln.Close() })
	return f
}

// startFakeTLSWireServer is startFakeWireServer speaking TLS with tc,
// as a server with --tls-cert does.
func startFakeTLSWireServer(tb testing.TB, window int, tc *tls.Config) *fakeWireServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	f := serveFakeWireServer(tls.NewListener(ln, tc), window)
	tb.Cleanup(func() { f.ln.Close() })
	return f
}

// listenFakeWireServer serves on a loopback port until f.ln is closed.
func listenFakeWireServer(window int) (*fakeWireServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	return serveFakeWireServer(ln, window), nil
}

func serveFakeWireServer(ln net.Listener, window int) *fakeWireServer {
	f := &fakeWireServer{ln: ln, window: window}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go f.serve(c)
		}
	}()
	return f
}

func (f *fakeWireServer) addr() string { return f.ln.Addr().String() }

func (f *fakeWireServer) serve(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	w := bufio.NewWriter(c)
	send := func(m map[string]any) {
		b, _ := json.Marshal(m)
		w.Write(append(b, '\n'))
	}
	recv := func() map[string]any {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return nil
		}
		var m map[string]any
		if json.Unmarshal(line, &m) != nil {
			return map[string]any{"type": "?"}
		}
		f.mu.Lock()
		f.log = append(f.log, m["type"].(string))
		f.mu.Unlock()
		return m
	}
	conflict := false
	for {
		w.Flush()
		m := recv()
		if m == nil {
			return
		}
		switch m["type"] {
		case "HELLO":
			a, _ := m["auth"].(map[string]any)
			f.mu.Lock()
			f.auths = append(f.auths, a)
			f.mu.Unlock()
			switch a["password"] {
			case "wrong":
				send(map[string]any{"type": "ERROR", "code": "08001", "category": "AUTH_FAILED", "message": "invalid user name or password"})
				w.Flush()
				return
			case "limited":
				send(map[string]any{"type": "ERROR", "code": "RATE_LIMIT_EXCEEDED", "category": "RESOURCE_EXHAUSTED", "message": "too many failed attempts", "retry_after": 60})
				w.Flush()
				return
			}
			send(map[string]any{"type": "WELCOME", "version": "1.0", "server": "fake-1", "session_id": "00000000-0000-4000-8000-000000000001",
				"capabilities": map[string]any{"max_query_size": 1048576, "supported_isolation_levels": []string{"READ_COMMITTED", "REPEATABLE_READ", "SERIALIZABLE"}}})
		case "PING", "ROLLBACK":
			send(map[string]any{"type": "SUCCESS"})
		case "BEGIN":
			send(map[string]any{"type": "SUCCESS", "transaction_id": "tx-1"})
		case "COMMIT":
			if conflict {
				send(map[string]any{"type": "ERROR", "code": "40001", "category": "TRANSACTION_ERROR", "message": "a concurrent transaction wrote the same node"})
			} else {
				send(map[string]any{"type": "SUCCESS", "transaction_id": "tx-1", "summary": map[string]any{"committed": true}})
			}
			conflict = false
		case "RUN_GQL":
			q, _ := m["query"].(string)
			switch {
			case q == "CONFLICT":
				conflict = true
				send(map[string]any{"type": "SCHEMA", "fields": []any{}})
				send(map[string]any{"type": "SUCCESS", "summary": map[string]any{"rows": 0, "time_ms": 0.1}, "transaction_id": m["transaction_id"]})
			case q == "FAIL":
				send(map[string]any{"type": "ERROR", "code": "42000", "category": "SYNTAX_ERROR", "message": "no such query", "position": map[string]any{"line": 1, "column": 1}})
			case len(q) > 8 && q[:8] == "EXPLAIN ":
				send(map[string]any{"type": "EXPLAIN", "plan": map[string]any{"operator": "Produce"}, "estimated_rows": 1.0})
				send(map[string]any{"type": "SUCCESS", "summary": map[string]any{"rows": 0, "time_ms": 0.1}})
			case rangeQuery.MatchString(q):
				n, _ := strconv.Atoi(rangeQuery.FindStringSubmatch(q)[1])
				if !f.stream(n, send, recv, w) {
					return
				}
			default:
				send(map[string]any{"type": "ERROR", "code": "42000", "category": "SYNTAX_ERROR", "message": fmt.Sprintf("the fake server does not know %q", q)})
			}
		default:
			send(map[string]any{"type": "ERROR", "code": "22000", "category": "DATA_EXCEPTION", "message": "unknown message"})
		}
	}
}

// stream sends rows 1..n under flow control.
func (f *fakeWireServer) stream(n int, send func(map[string]any), recv func() map[string]any, w *bufio.Writer) bool {
	send(map[string]any{"type": "SCHEMA", "fields": []any{map[string]any{"name": "i", "type": "INTEGER"}}})
	credit := int64(f.window)
	next := 1
	for next <= n {
		var rows []any
		for next <= n && credit != 0 {
			rows = append(rows, map[string]any{"i": next})
			next++
			credit--
		}
		msg := map[string]any{"type": "BINDINGS", "data": rows}
		if next <= n {
			msg["has_more"] = true
		}
		send(msg)
		if next > n {
			break
		}
		w.Flush()
		m := recv()
		if m == nil {
			return false
		}
		switch m["type"] {
		case "PULL":
			credit = int64(m["n"].(float64))
			f.mu.Lock()
			f.pulls = append(f.pulls, credit)
			f.mu.Unlock()
		case "DISCARD":
			send(map[string]any{"type": "SUCCESS", "summary": map[string]any{"rows": next - 1, "discarded": true}})
			return true
		default:
			send(map[string]any{"type": "ERROR", "code": "08000", "category": "CONNECTION_EXCEPTION", "message": "out of order"})
			return true
		}
	}
	send(map[string]any{"type": "SUCCESS", "summary": map[string]any{"rows": n, "time_ms": 0.5}})
	return true
}
