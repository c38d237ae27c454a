package wire

import (
	"io"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// Every malformed or misplaced message gets an ERROR with its code; the
// connection then goes on or is closed, as docs/wire-protocol.md's table
// says.
func TestBadMessages(t *testing.T) {
	_, addr := startTCP(t, Config{MaxQuerySize: 1000}, openDB(t))
	deep := strings.Repeat("[", 1100) + strings.Repeat("]", 1100)
	cases := []struct {
		name   string
		hello  bool // say HELLO first
		line   string
		code   string
		closed bool
	}{
		{"garbage first", false, `not json`, engine.CodeData, true},
		{"RUN_GQL before HELLO", false, `{"type":"RUN_GQL","query":"RETURN 1"}`, engine.CodeConnection, true},
		{"PING before HELLO", false, `{"type":"PING"}`, engine.CodeConnection, true},
		{"HELLO without version", false, `{"type":"HELLO"}`, engine.CodeData, true},
		{"HELLO version not a string", false, `{"type":"HELLO","version":1}`, engine.CodeData, true},
		{"HELLO version 2", false, `{"type":"HELLO","version":"2.0"}`, engine.CodeConnection, true},
		{"HELLO auth not an object", false, `{"type":"HELLO","version":"1.0","auth":"x"}`, engine.CodeData, true},
		{"HELLO auth username not a string", false, `{"type":"HELLO","version":"1.0","auth":{"username":7,"password":"p"}}`, engine.CodeData, true},
		{"HELLO auth password not a string", false, `{"type":"HELLO","version":"1.0","auth":{"username":"u","password":null,"method":[]}}`, engine.CodeData, true},
		{"malformed JSON", true, `{"type":"PING"`, engine.CodeData, false},
		{"not an object", true, `[1,2]`, engine.CodeData, false},
		{"two objects on a line", true, `{"type":"PING"} {"type":"PING"}`, engine.CodeData, false},
		{"no type", true, `{"kind":"PING"}`, engine.CodeData, false},
		{"type not a string", true, `{"type":7}`, engine.CodeData, false},
		{"unknown type", true, `{"type":"SELECT"}`, engine.CodeData, false},
		{"invalid UTF-8 type", true, "{\"type\":\"\xff\"}", "22021", false},
		{"invalid UTF-8 before HELLO", false, "{\"type\":\"HELLO\",\"version\":\"1.0\",\"client\":\"\xc3\"}", "22021", true},
		{"type twice", true, `{"type":"PING","type":"RUN_GQL","query":"RETURN 1"}`, engine.CodeData, false},
		{"second HELLO", true, `{"type":"HELLO","version":"1.0"}`, engine.CodeConnection, false},
		{"RUN_GQL without query", true, `{"type":"RUN_GQL"}`, engine.CodeData, false},
		{"query not a string", true, `{"type":"RUN_GQL","query":42}`, engine.CodeData, false},
		{"params not an object", true, `{"type":"RUN_GQL","query":"RETURN 1","params":[1]}`, engine.CodeData, false},
		{"params too deep", true, `{"type":"RUN_GQL","query":"RETURN $p","params":{"p":` + deep + `}}`, engine.CodeData, false},
		{"options not an object", true, `{"type":"RUN_GQL","query":"RETURN 1","options":1}`, engine.CodeData, false},
		{"timeout_ms a string", true, `{"type":"RUN_GQL","query":"RETURN 1","options":{"timeout_ms":"9"}}`, engine.CodeData, false},
		{"timeout_ms negative", true, `{"type":"RUN_GQL","query":"RETURN 1","options":{"timeout_ms":-1}}`, engine.CodeData, false},
		{"timeout_ms fractional", true, `{"type":"RUN_GQL","query":"RETURN 1","options":{"timeout_ms":1.5}}`, engine.CodeData, false},
		{"include_stats not a boolean", true, `{"type":"RUN_GQL","query":"RETURN 1","options":{"include_stats":1}}`, engine.CodeData, false},
		{"transaction_id not a string", true, `{"type":"RUN_GQL","query":"RETURN 1","transaction_id":1}`, engine.CodeData, false},
		{"unknown transaction", true, `{"type":"RUN_GQL","query":"RETURN 1","transaction_id":"nope"}`, engine.CodeNotFound, false},
		{"query over max_query_size", true, `{"type":"RUN_GQL","query":"RETURN '` + strings.Repeat("x", 1000) + `'"}`, engine.CodeData, false},
		{"GQL syntax error", true, `{"type":"RUN_GQL","query":"RETURN RETURN"}`, engine.CodeSyntax, false},
		{"PULL with no result", true, `{"type":"PULL","n":10}`, engine.CodeConnection, false},
		{"PULL without n", true, `{"type":"PULL"}`, engine.CodeData, false},
		{"PULL n 0", true, `{"type":"PULL","n":0}`, engine.CodeData, false},
		{"PULL n -2", true, `{"type":"PULL","n":-2}`, engine.CodeData, false},
		{"PULL n huge", true, `{"type":"PULL","n":1e30}`, engine.CodeData, false},
		{"DISCARD with no result", true, `{"type":"DISCARD"}`, engine.CodeConnection, false},
		{"COMMIT with no transaction", true, `{"type":"COMMIT"}`, engine.CodeTransaction, false},
		{"ROLLBACK with no transaction", true, `{"type":"ROLLBACK"}`, engine.CodeTransaction, false},
		{"COMMIT transaction_id not a string", true, `{"type":"COMMIT","transaction_id":[]}`, engine.CodeData, false},
		{"BEGIN unknown level", true, `{"type":"BEGIN","isolation_level":"DIRTY"}`, "22023", false},
		{"BEGIN timeout not an integer", true, `{"type":"BEGIN","timeout_ms":"1"}`, engine.CodeData, false},
		{"BEGIN timeout too long", true, `{"type":"BEGIN","timeout_ms":999999999999}`, "22023", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := dialRaw(t, addr)
			if tc.hello {
				c.hello()
			}
			c.send(tc.line)
			m := c.expectError(tc.code)
			if m["message"] == "" || m["category"] == "" {
				t.Errorf("ERROR without message or category: %v", m)
			}
			if tc.closed {
				c.expectClosed()
				return
			}
			c.send(`{"type":"PING"}`)
			c.expect("SUCCESS")
		})
	}
}

// RUN_GQL lines that are not I-JSON are refused, 22021 for text that is
// not Unicode and 22000 naming a key given twice, and nothing of them
// runs: no U+FFFD stored in place of the client's bytes, no last-wins.
func TestRunRefusesNonIJSON(t *testing.T) {
	_, addr := startTCP(t, Config{}, openDB(t))
	c := dial(t, addr)
	for _, tc := range []struct {
		name, line, code, names string
	}{
		{"invalid UTF-8 in the query", "{\"type\":\"RUN_GQL\",\"query\":\"CREATE (:T {s: '\xff'})\"}", "22021", "UTF-8"},
		{"invalid UTF-8 in a parameter", "{\"type\":\"RUN_GQL\",\"query\":\"CREATE (:T {s: $s})\",\"params\":{\"s\":\"a\xc3(\"}}", "22021", "UTF-8"},
		{"invalid UTF-8 in a map key", "{\"type\":\"RUN_GQL\",\"query\":\"CREATE (:T {s: $m})\",\"params\":{\"m\":{\"\xe2\x82\":1}}}", "22021", "UTF-8"},
		{"invalid UTF-8 nested", "{\"type\":\"RUN_GQL\",\"query\":\"CREATE (:T {s: $l})\",\"params\":{\"l\":[[\"\xed\xa0\x80\"]]}}", "22021", "UTF-8"},
		{"a lone surrogate escape", `{"type":"RUN_GQL","query":"CREATE (:T {s: '\ud800'})"}`, "22021", `\ud800`},
		{"a lone surrogate in a parameter", `{"type":"RUN_GQL","query":"CREATE (:T {s: $s})","params":{"s":"x\udc00"}}`, "22021", `\udc00`},
		{"the query twice", `{"type":"RUN_GQL","query":"CREATE (:T {s: 1})","query":"CREATE (:T {s: 2})"}`, engine.CodeData, `"query" twice`},
		{"a parameter twice", `{"type":"RUN_GQL","query":"CREATE (:T {s: $s})","params":{"s":1,"s":2}}`, engine.CodeData, `"s" twice in one object (at params)`},
		{"a nested key twice", `{"type":"RUN_GQL","query":"CREATE (:T {s: $m.k})","params":{"m":{"k":1,"\u006b":2}}}`, engine.CodeData, `"k" twice in one object (at params.m)`},
	} {
		c.send(tc.line)
		m := c.expectError(tc.code)
		if msg, _ := m["message"].(string); !strings.Contains(msg, tc.names) || m["category"] != engine.CatData {
			t.Errorf("%s: ERROR %v, want it to name %s", tc.name, m, tc.names)
		}
	}
	if r := c.ok("MATCH (n:T) RETURN count(n) AS c"); num(t, r.rows[0]["c"]) != 0 {
		t.Errorf("refused messages wrote %v nodes", r.rows[0]["c"])
	}
}

// A line past the limit is refused after the limit's bytes, never
// buffered whole, and closes the connection.
func TestOversizedLine(t *testing.T) {
	_, addr := startTCP(t, Config{MaxQuerySize: 1000}, openDB(t))
	for _, hello := range []bool{false, true} {
		c := dialRaw(t, addr)
		if hello {
			c.hello()
		}
		go func() {
			// 10 MiB with no newline: the server stops reading long before.
			chunk := strings.Repeat("a", 64<<10)
			for i := 0; i < 160; i++ {
				if _, err := io.WriteString(c.c, chunk); err != nil {
					return
				}
			}
		}()
		m := c.expectError(engine.CodeData)
		if !strings.Contains(m["message"].(string), "longer than the limit") {
			t.Errorf("ERROR %v", m)
		}
		c.expectClosed()
	}
}

// A client that trickles its HELLO is cut off at the HELLO timeout,
// whatever it sends meanwhile.
func TestSlowHello(t *testing.T) {
	_, addr := startTCP(t, Config{HelloTimeout: 300 * time.Millisecond}, openDB(t))
	c := dialRaw(t, addr)
	start := time.Now()
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		msg := `{"type":"HELLO","version":"1.0","client":"` + strings.Repeat("z", 1000)
		for i := 0; i < len(msg); i++ {
			select {
			case <-stop:
				return
			case <-time.After(20 * time.Millisecond): // the trickle under test
			}
			if _, err := io.WriteString(c.c, msg[i:i+1]); err != nil {
				return
			}
		}
	}()
	m := c.expectError(engine.CodeConnection)
	if !strings.Contains(m["message"].(string), "no HELLO") {
		t.Errorf("ERROR %v", m)
	}
	c.expectClosed()
	if el := time.Since(start); el > 3*time.Second {
		t.Errorf("cut off after %s", el)
	}
	// A silent client too.
	c2 := dialRaw(t, addr)
	c2.expectError(engine.CodeConnection)
	c2.expectClosed()
}

func TestIdleTimeout(t *testing.T) {
	_, addr := startTCP(t, Config{IdleTimeout: 300 * time.Millisecond}, openDB(t))
	c := dial(t, addr)
	c.send(`{"type":"PING"}`)
	c.expect("SUCCESS")
	m := c.expectError(engine.CodeConnection)
	if !strings.Contains(m["message"].(string), "idle") {
		t.Errorf("ERROR %v", m)
	}
	c.expectClosed()
}

type connCounter struct{ opened, closed atomic.Int64 }

func (c *connCounter) Opened() { c.opened.Add(1) }
func (c *connCounter) Closed() { c.closed.Add(1) }

func TestConnectionCeilingAndCounting(t *testing.T) {
	var counts connCounter
	srv, addr := startTCP(t, Config{MaxConnections: 1, Conns: &counts}, openDB(t))
	a := dial(t, addr)
	b := dialRaw(t, addr)
	m := b.expectError(engine.CodeConnection)
	if !strings.Contains(m["message"].(string), "limit") {
		t.Errorf("ERROR %v", m)
	}
	b.expectClosed()
	a.c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for srv.ceiling.open() != 0 || srv.Sessions() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the closed connection's slot was not freed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	dial(t, addr) // the slot is free again
	if o, c := counts.opened.Load(), counts.closed.Load(); o != 2 || c != 1 {
		t.Errorf("Conns: %d opened, %d closed; want 2 and 1", o, c)
	}
}

// A client that goes away stops its running query.
func TestCloseCancelsQuery(t *testing.T) {
	srv, addr := startTCP(t, Config{}, openDB(t))
	c := dial(t, addr)
	c.send(`{"type":"RUN_GQL","query":"UNWIND range(1, 200000) AS a UNWIND range(1, 200000) AS b RETURN count(*) AS n"}`)
	deadline := time.Now().Add(10 * time.Second)
	for srv.Sessions() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("no session")
		}
		time.Sleep(5 * time.Millisecond)
	}
	c.c.Close()
	for srv.Sessions() != 0 {
		if time.Now().After(deadline) {
			t.Fatal("the query of a closed connection is still running")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// One client address holds at most MaxConnectionsPerClient wire
// connections, below the server's ceiling; its slot frees when one
// closes.
func TestConnectionCeilingPerClient(t *testing.T) {
	srv, addr := startTCP(t, Config{MaxConnections: 10, MaxConnectionsPerClient: 2}, openDB(t))
	a := dial(t, addr)
	dial(t, addr)
	c := dialRaw(t, addr)
	m := c.expectError(engine.CodeConnection)
	if !strings.Contains(m["message"].(string), "client address at its limit of 2") {
		t.Errorf("ERROR %v", m)
	}
	c.expectClosed()
	if n := srv.ceiling.open(); n != 2 {
		t.Errorf("%d connections counted, want the 2 admitted", n)
	}
	a.c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for srv.ceiling.open() != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the closed connection's slot was not freed")
		}
		time.Sleep(5 * time.Millisecond)
	}
	dial(t, addr) // its slot is free again
}
