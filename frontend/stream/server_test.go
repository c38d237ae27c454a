package stream

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/fasthttp/websocket"
	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
)

// testStream serves a stream for a fresh database on 127.0.0.1:0.
type testStream struct {
	t   *testing.T
	db  *engine.DB
	srv *Server
	url string
}

func newTestStream(t *testing.T, cfg Config) *testStream {
	t.Helper()
	return newTestStreamWith(t, cfg, engine.Options{})
}

// newTestStreamWith is newTestStream on a database opened with opts.
func newTestStreamWith(t *testing.T, cfg Config, opts engine.Options) *testStream {
	t.Helper()
	opts.Logger = slog.New(slog.DiscardHandler)
	db, err := engine.Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	ts := &testStream{t: t, db: db}
	ts.serve(cfg)
	t.Cleanup(func() { db.Close() })
	return ts
}

// serve starts another stream server on ts.db; the last one is ts.srv.
func (ts *testStream) serve(cfg Config) *Server {
	t := ts.t
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := New(cfg, ts.db)
	hs := &fasthttp.Server{Handler: func(ctx *fasthttp.RequestCtx) {
		if string(ctx.Path()) == "/api/v1/stream" {
			s.Handler(ctx)
			return
		}
		ctx.SetStatusCode(404)
	}}
	go hs.Serve(ln) //nolint:errcheck // ends with the listener
	t.Cleanup(func() {
		s.Close()
		hs.Shutdown()
	})
	ts.srv, ts.url = s, "ws://"+ln.Addr().String()+"/api/v1/stream"
	return s
}

func (ts *testStream) query(q string) {
	ts.t.Helper()
	res, err := ts.db.Query(context.Background(), q, nil)
	if err != nil {
		ts.t.Fatalf("%s: %v", q, err)
	}
	res.Close()
}

// waitFor polls cond (a state no event signals) for up to 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// client is a test WebSocket client.
type client struct {
	t  *testing.T
	ws *websocket.Conn
}

func (ts *testStream) dial() *client {
	ts.t.Helper()
	ws, _, err := websocket.DefaultDialer.Dial(ts.url, nil)
	if err != nil {
		ts.t.Fatal(err)
	}
	ts.t.Cleanup(func() { ws.Close() })
	return &client{t: ts.t, ws: ws}
}

// authed dials and authenticates.
func (ts *testStream) authed() *client {
	c := ts.dial()
	c.send(`{"type":"AUTH","token":"Bearer x"}`)
	c.expect("AUTH_OK")
	return c
}

func (c *client) send(msg string) {
	c.t.Helper()
	if err := c.ws.WriteMessage(websocket.TextMessage, []byte(msg)); err != nil {
		c.t.Fatal(err)
	}
}

// next reads one message (within 10 s) as a JSON object.
func (c *client) next() map[string]any {
	c.t.Helper()
	_ = c.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	_, data, err := c.ws.ReadMessage()
	if err != nil {
		c.t.Fatalf("reading: %v", err)
	}
	var m map[string]any
	d := json.NewDecoder(strings.NewReader(string(data)))
	d.UseNumber()
	if err := d.Decode(&m); err != nil {
		c.t.Fatalf("server sent invalid JSON %q: %v", data, err)
	}
	return m
}

// expect reads the next message and checks its type (and, for ERROR,
// its code when given).
func (c *client) expect(typ string, code ...string) map[string]any {
	c.t.Helper()
	m := c.next()
	if m["type"] != typ || (len(code) > 0 && m["code"] != code[0]) {
		c.t.Fatalf("got %v, want %s %v", m, typ, code)
	}
	return m
}

// expectClose reads until the server closes, and returns the close code.
func (c *client) expectClose() int {
	c.t.Helper()
	_ = c.ws.SetReadDeadline(time.Now().Add(10 * time.Second))
	for {
		_, data, err := c.ws.ReadMessage()
		if err != nil {
			var ce *websocket.CloseError
			if errors.As(err, &ce) {
				return ce.Code
			}
			c.t.Fatalf("connection ended without a close frame: %v", err)
		}
		if strings.Contains(string(data), `"CHANGE"`) {
			continue
		}
		c.t.Fatalf("message %s before the close", data)
	}
}

// AUTH, SUBSCRIBE (with and without an id), PING, CHANGE for nodes and
// relationships with their full data, UNSUBSCRIBE.
func TestStreamRoundTrip(t *testing.T) {
	ts := newTestStream(t, Config{})
	c := ts.authed()
	c.send(`{"type":"SUBSCRIBE","id":"people","patterns":["(:Person)"]}`)
	if m := c.expect("SUBSCRIBED"); m["subscription_id"] != "people" || m["patterns"].([]any)[0] != "(:Person)" {
		t.Fatalf("SUBSCRIBED: %v", m)
	}
	c.send(`{"type":"PING"}`)
	c.expect("PONG")

	ts.query("CREATE (:City {name: 'Oslo'})") // selected by nothing
	ts.query("CREATE (:Person {name: 'Ann', age: 30, tags: ['a'], born: date('1990-01-02')})")
	ch := c.expect("CHANGE")["data"].(map[string]any)
	if ch["subscription_id"] != "people" || ch["operation"] != "created" || ch["entity"] != "node" ||
		ch["before"] != nil || ch["index"] != json.Number("0") || ch["count"] != json.Number("1") {
		t.Fatalf("CHANGE: %v", ch)
	}
	if l := ch["labels"].([]any); len(l) != 1 || l[0] != "Person" {
		t.Fatalf("labels %v", ch["labels"])
	}
	after := ch["after"].(map[string]any)
	if after["name"] != "Ann" || after["age"] != json.Number("30") || after["born"] != "1990-01-02" || len(after["tags"].([]any)) != 1 {
		t.Fatalf("after %v", after)
	}
	if _, err := time.Parse(time.RFC3339Nano, ch["committed_at"].(string)); err != nil {
		t.Fatal(err)
	}
	lsn, _ := ch["lsn"].(json.Number).Int64()
	if lsn <= 0 {
		t.Fatalf("lsn %v", ch["lsn"])
	}

	ts.query("MATCH (p:Person) SET p.age = 31, p:Admin")
	ch = c.expect("CHANGE")["data"].(map[string]any)
	if ch["operation"] != "updated" || ch["before"].(map[string]any)["age"] != json.Number("30") ||
		ch["after"].(map[string]any)["age"] != json.Number("31") || ch["labels_added"].([]any)[0] != "Admin" || len(ch["labels_removed"].([]any)) != 0 {
		t.Fatalf("update: %v", ch)
	}
	lsn2, _ := ch["lsn"].(json.Number).Int64()
	if lsn2 <= lsn {
		t.Fatalf("lsn %d after %d", lsn2, lsn)
	}

	c.send(`{"type":"SUBSCRIBE","patterns":["()-[:KNOWS]->()"]}`)
	if m := c.expect("SUBSCRIBED"); m["subscription_id"] != "s1" {
		t.Fatalf("SUBSCRIBED: %v", m)
	}
	c.send(`{"type":"UNSUBSCRIBE","subscription_id":"people"}`)
	if m := c.expect("UNSUBSCRIBED"); m["subscription_id"] != "people" {
		t.Fatalf("UNSUBSCRIBED: %v", m)
	}
	ts.query("MATCH (p:Person) CREATE (p)-[:KNOWS {since: 2020}]->(:Person {name: 'Bob'})")
	ch = c.expect("CHANGE")["data"].(map[string]any)
	if ch["subscription_id"] != "s1" || ch["entity"] != "relationship" || ch["type"] != "KNOWS" ||
		ch["start"] == nil || ch["end"] == nil || ch["after"].(map[string]any)["since"] != json.Number("2020") {
		t.Fatalf("relationship CHANGE: %v", ch)
	}
	c.send(`{"type":"UNSUBSCRIBE","id":"s1"}`)
	c.expect("UNSUBSCRIBED")
	if d := ts.srv.Stats().Delivered; d != 3 {
		t.Fatalf("server delivered %d changes, the client read 3", d)
	}
	ts.query("CREATE (:Person)")
	c.send(`{"type":"PING"}`)
	c.expect("PONG")
}

// Malformed messages after AUTH get an ERROR with the spec's code and
// the connection goes on; an oversized one closes it.
func TestStreamMalformedMessages(t *testing.T) {
	ts := newTestStream(t, Config{MaxPatterns: 2, MaxSubscriptions: 2, MaxMessageBytes: 1024})
	c := ts.authed()
	for _, tc := range []struct{ msg, code, contains string }{
		{`not json`, "22000", "not valid JSON"},
		{`[1,2]`, "22000", "JSON object"},
		{`{"type":"HELLO"}`, "22000", "unknown message type"},
		{`{"type":42}`, "22000", `"type" must be a string`},
		{`{"patterns":["(n)"]}`, "22000", `no "type"`},
		{`{"type":"AUTH"}`, "22000", "already authenticated"},
		{`{"type":"SUBSCRIBE"}`, "22000", `needs "patterns"`},
		{`{"type":"SUBSCRIBE","patterns":"(n)"}`, "22000", "array"},
		{`{"type":"SUBSCRIBE","patterns":[]}`, "22000", "empty"},
		{`{"type":"SUBSCRIBE","patterns":["(a)","(b)","(c)"]}`, "22000", "at most 2 patterns"},
		{`{"type":"SUBSCRIBE","patterns":[7]}`, "22000", "not a string"},
		{`{"type":"SUBSCRIBE","patterns":["(n)","(:Person"]}`, "42000", "pattern 2"},
		{`{"type":"SUBSCRIBE","patterns":["(n)"],"from_lsn":-1}`, "22000", "from_lsn"},
		{`{"type":"SUBSCRIBE","patterns":["(n)"],"from_lsn":12}`, "0A000", "not supported"},
		{`{"type":"SUBSCRIBE","patterns":["(n)"],"id":7}`, "22000", `"id" must be a string`},
		{`{"type":"UNSUBSCRIBE"}`, "22000", "subscription_id"},
		{`{"type":"UNSUBSCRIBE","subscription_id":"nope"}`, "02000", "no subscription"},
		// Not I-JSON: text that is not Unicode, a key given twice.
		{"{\"type\":\"PING\",\"x\":\"\xff\"}", "22021", "UTF-8"},
		{"{\"type\":\"SUBSCRIBE\",\"patterns\":[\"(:P {n: '\xc3')\"]}", "22021", "UTF-8"},
		{`{"type":"SUBSCRIBE","patterns":["(:P {n: '\udc00'})"]}`, "22021", `\udc00`},
		{`{"type":"SUBSCRIBE","id":"x","id":"y","patterns":["(n)"]}`, "22000", `"id" twice`},
		{`{"type":"UNSUBSCRIBE","type":"PING"}`, "22000", `"type" twice`},
	} {
		c.send(tc.msg)
		m := c.expect("ERROR", tc.code)
		if !strings.Contains(m["message"].(string), tc.contains) {
			t.Errorf("%s: message %q, want it to say %q", tc.msg, m["message"], tc.contains)
		}
		if tc.code == "42000" {
			pos, _ := m["position"].(map[string]any)
			if pos["line"] != json.Number("1") || pos["column"] != json.Number("9") {
				t.Errorf("%s: position %v, want line 1 column 9", tc.msg, m["position"])
			}
		}
	}
	if err := c.ws.WriteMessage(websocket.BinaryMessage, []byte(`{"type":"PING"}`)); err != nil {
		t.Fatal(err)
	}
	c.expect("ERROR", "22000")
	c.send(`{"type":"SUBSCRIBE","id":"a","patterns":["(n)"]}`)
	c.expect("SUBSCRIBED")
	c.send(`{"type":"SUBSCRIBE","id":"a","patterns":["(n)"]}`)
	c.expect("ERROR", "42S01")
	c.send(`{"type":"SUBSCRIBE","id":"b","patterns":["(n)"]}`)
	c.expect("SUBSCRIBED")
	c.send(`{"type":"SUBSCRIBE","id":"c","patterns":["(n)"]}`)
	c.expect("ERROR", "53300")
	c.send(`{"type":"PING"}`)
	c.expect("PONG")
	c.send(`{"type":"PING","pad":"` + strings.Repeat("x", 1024) + `"}`)
	c.expect("ERROR", "22000")
	if code := c.expectClose(); code != websocket.CloseMessageTooBig {
		t.Fatalf("close code %d, want %d", code, websocket.CloseMessageTooBig)
	}
}

// Before AUTH, anything else is an ERROR and closes the connection; so
// does silence past AuthTimeout and, with authentication on, a bad token.
func TestStreamAuth(t *testing.T) {
	ts := newTestStream(t, Config{AuthTimeout: 200 * time.Millisecond,
		Authenticate: func(authorization, addr string) (*engine.Principal, error) {
			if authorization != "Bearer good" || addr == "" {
				return nil, errors.New("unknown token")
			}
			return &engine.Principal{Name: "u", Privileges: engine.PrivAll}, nil
		}})
	for _, tc := range []struct{ first, code string }{
		{`{"type":"SUBSCRIBE","patterns":["(n)"]}`, "08001"},
		{`{"type":"PING"}`, "08001"},
		{`hello`, "22000"},
		{`{"type":"AUTH","token":"Bearer bad"}`, "08001"},
		{`{"type":"AUTH","token":"good"}`, "08001"},
		{`{"type":"AUTH"}`, "08001"},
		{``, "08001"}, // silence
	} {
		c := ts.dial()
		if tc.first != "" {
			c.send(tc.first)
		}
		m := c.expect("ERROR", tc.code)
		if tc.first == "" && !strings.Contains(m["message"].(string), "no AUTH message within") {
			t.Errorf("timeout: %v", m)
		}
		if code := c.expectClose(); code != websocket.ClosePolicyViolation {
			t.Errorf("%s: close code %d", tc.first, code)
		}
	}
	c := ts.dial()
	c.send(`{"type":"AUTH","token":"bearer  good "}`)
	c.expect("AUTH_OK")
	// The AUTH deadline no longer applies: the connection lives past it.
	for start := time.Now(); time.Since(start) < 3*ts.srv.cfg.AuthTimeout; {
		c.send(`{"type":"PING"}`)
		c.expect("PONG")
	}
}

// The HTTP side: a plain GET is told to upgrade; past MaxConnections a
// client gets 503; Close disconnects clients with 1001; a closed
// database ends subscriptions with an ERROR.
func TestStreamLimitsAndShutdown(t *testing.T) {
	ts := newTestStream(t, Config{MaxConnections: 1})
	st, body, err := fasthttp.Get(nil, strings.Replace(ts.url, "ws://", "http://", 1))
	if err != nil || st != fasthttp.StatusUpgradeRequired || !strings.Contains(string(body), `"code":"08000"`) {
		t.Fatalf("plain GET: %d %s %v", st, body, err)
	}
	c := ts.authed()
	_, hr, err := websocket.DefaultDialer.Dial(ts.url, nil)
	if err == nil || hr == nil || hr.StatusCode != 503 {
		t.Fatalf("second connection: %v %v", hr, err)
	}
	c.send(`{"type":"SUBSCRIBE","patterns":["(n)"]}`)
	c.expect("SUBSCRIBED")
	ts.srv.Close()
	if code := c.expectClose(); code != websocket.CloseGoingAway {
		t.Fatalf("close code %d after Server.Close", code)
	}

	s2 := ts.serve(Config{})
	c = ts.authed()
	c.send(`{"type":"SUBSCRIBE","id":"x","patterns":["(n)"]}`)
	c.expect("SUBSCRIBED")
	ts.db.Close()
	m := c.expect("ERROR", "08006")
	if m["subscription_id"] != "x" {
		t.Fatalf("ERROR %v", m)
	}
	if code := c.expectClose(); code != websocket.CloseGoingAway {
		t.Fatalf("close code %d after the database closed", code)
	}
	waitFor(t, "the connection to end", func() bool { return s2.Stats().Connections == 0 })
}

// newBenchStream is newTestStream for a benchmark: an in-memory
// database, the default limits.
func newBenchStream(b *testing.B) *testStream {
	db, err := engine.Open("", engine.Options{Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	s := New(Config{}, db)
	hs := &fasthttp.Server{Handler: s.Handler}
	go hs.Serve(ln) //nolint:errcheck // ends with the listener
	b.Cleanup(func() {
		s.Close()
		hs.Shutdown()
		db.Close()
	})
	return &testStream{db: db, srv: s, url: "ws://" + ln.Addr().String() + "/api/v1/stream"}
}

// Watch (the benchmark's client) subscribes, counts changes, reports a
// refused subscription, and closes cleanly.
func TestWatch(t *testing.T) {
	ts := newTestStream(t, Config{})
	if _, err := Watch(t.Context(), ts.url, "", []string{"(:E"}); err == nil || !strings.Contains(err.Error(), "42000") {
		t.Fatalf("bad pattern: %v", err)
	}
	w, err := Watch(t.Context(), ts.url, "", []string{"(:E)"})
	if err != nil {
		t.Fatal(err)
	}
	ts.query("UNWIND range(1, 3) AS i CREATE (:E {i: i}), (:F)")
	waitFor(t, "3 changes", func() bool { return w.Changes() == 3 })
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if w.Changes() != 3 {
		t.Fatalf("%d changes", w.Changes())
	}
}
