package wire

import (
	"context"
	"log/slog"
	"sync"
	"testing"
	"time"
)

// records is a slog handler that keeps every record's message and
// attributes.
type records struct {
	mu    sync.Mutex
	lines []map[string]string
}

func (r *records) Enabled(context.Context, slog.Level) bool { return true }
func (r *records) WithGroup(string) slog.Handler            { return r }
func (r *records) WithAttrs([]slog.Attr) slog.Handler       { return r }
func (r *records) Handle(_ context.Context, rec slog.Record) error {
	line := map[string]string{"msg": rec.Message, "level": rec.Level.String()}
	rec.Attrs(func(a slog.Attr) bool { line[a.Key] = a.Value.String(); return true })
	r.mu.Lock()
	r.lines = append(r.lines, line)
	r.mu.Unlock()
	return nil
}

// find returns the lines with this message.
func (r *records) find(msg string) []map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []map[string]string
	for _, l := range r.lines {
		if l["msg"] == msg {
			out = append(out, l)
		}
	}
	return out
}

// Each RUN_GQL is logged at debug level as the HTTP API logs a query
// (frontend/http, query.go): message "query", duration, outcome and code,
// here with the session's id. The line is written before the answer is
// sent, so it is there once the client has read it.
func TestQueryLogLines(t *testing.T) {
	rec := &records{}
	_, addr := startTCP(t, Config{Logger: slog.New(rec), Window: 10}, openDB(t))
	c := dialRaw(t, addr)
	sid := c.hello()["session_id"].(string)
	c.ok("RETURN 1 AS x")
	if r := c.run("RETURN 1/0 AS x", nil); r.err == nil {
		t.Fatal("RETURN 1/0 succeeded")
	}
	c.send(`{"type":"BEGIN"}`)
	c.expect("SUCCESS")
	c.ok("CREATE (:L)")
	c.send(`{"type":"COMMIT"}`)
	c.expect("SUCCESS")
	// A result that waits for PULL is logged when it ends (here by
	// DISCARD), and a statement that never ran is not a query.
	if r := c.run("UNWIND range(1, 100) AS i RETURN i", nil); !r.paused {
		t.Fatal("the result did not wait for PULL")
	}
	c.send(`{"type":"DISCARD"}`)
	c.expect("SUCCESS")
	c.send(`{"type":"RUN_GQL","query":"RETURN 1","transaction_id":"nope"}`)
	c.expectError("02000")
	lines := rec.find("query")
	want := []struct{ outcome, code string }{{"ok", ""}, {"error", "22012"}, {"ok", ""}, {"ok", ""}}
	if len(lines) != len(want) {
		t.Fatalf("query lines: %v", lines)
	}
	for i, l := range lines {
		if l["level"] != "DEBUG" || l["outcome"] != want[i].outcome || l["code"] != want[i].code || l["session_id"] != sid || l["duration"] == "" {
			t.Errorf("line %d: %v, want outcome %s code %q", i, l, want[i].outcome, want[i].code)
		}
	}
	// A client that leaves while its query runs: client_gone.
	c2 := dial(t, addr)
	c2.send(`{"type":"RUN_GQL","query":"UNWIND range(1, 4000000000) AS i WITH i WHERE i < 0 RETURN count(*) AS n"}`)
	c2.c.Close()
	deadline := time.Now().Add(20 * time.Second)
	for len(rec.find("query")) == len(want) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond) // the session ends on its own goroutine
	}
	lines = rec.find("query")
	if len(lines) != len(want)+1 || lines[len(want)]["outcome"] != "client_gone" {
		t.Errorf("the left client's line: %v", lines[len(want):])
	}
}
