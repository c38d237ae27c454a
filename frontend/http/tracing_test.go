package http

import (
	"context"
	"io"
	"log/slog"
	nethttp "net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

func TestParseTraceparent(t *testing.T) {
	const id = "4bf92f3577b34da6a3ce929d0e0e4736"
	valid := map[string]trace{
		"00-" + id + "-00f067aa0ba902b7-01":          {traceID: id, sampled: true},
		"00-" + id + "-00f067aa0ba902b7-00":          {traceID: id},
		" 00-" + id + "-00f067aa0ba902b7-01\t":       {traceID: id, sampled: true},
		"01-" + id + "-00f067aa0ba902b7-03-whatever": {traceID: id, sampled: true},
		"cc-" + id + "-00f067aa0ba902b7-02":          {traceID: id},
	}
	for in, want := range valid {
		if got, ok := parseTraceparent([]byte(in)); !ok || got != want {
			t.Errorf("%q: %+v %v, want %+v", in, got, ok, want)
		}
	}
	for _, in := range []string{
		"",
		"00",
		"00-" + id + "-00f067aa0ba902b7-1", // short flags
		"00-" + id + "-00f067aa0ba902b7-01-extra",                // version 00 has no more fields
		"ff-" + id + "-00f067aa0ba902b7-01",                      // version ff is invalid
		"0g-" + id + "-00f067aa0ba902b7-01",                      // not hex
		"00-" + strings.ToUpper(id) + "-00f067aa0ba902b7-01",     // uppercase
		"00-" + strings.Repeat("0", 32) + "-00f067aa0ba902b7-01", // zero trace id
		"00-" + id + "-0000000000000000-01",                      // zero parent id
		"00_" + id + "-00f067aa0ba902b7-01",                      // separator
		"01-" + id + "-00f067aa0ba902b7-01x",                     // a later version's extra field needs '-'
		"00-" + id[:31] + "-00f067aa0ba902b7-01",                 // short trace id
	} {
		if got, ok := parseTraceparent([]byte(in)); ok {
			t.Errorf("%q accepted: %+v", in, got)
		}
	}
}

func FuzzParseTraceparent(f *testing.F) {
	f.Add("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	f.Add("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x")
	f.Add("")
	f.Fuzz(func(t *testing.T, in string) {
		tr, ok := parseTraceparent([]byte(in))
		if !ok {
			return
		}
		if len(tr.traceID) != 32 || !isLowerHex([]byte(tr.traceID)) || allZero([]byte(tr.traceID)) || !strings.Contains(in, tr.traceID) {
			t.Fatalf("%q gave trace id %q", in, tr.traceID)
		}
	})
}

// records is a slog handler that keeps every record's message and
// attributes, those added by With included.
type records struct {
	mu    *sync.Mutex
	lines *[]map[string]string
	attrs []slog.Attr
}

func newRecords() records { return records{mu: &sync.Mutex{}, lines: &[]map[string]string{}} }

func (r records) Enabled(context.Context, slog.Level) bool { return true }
func (r records) WithGroup(string) slog.Handler            { return r }
func (r records) WithAttrs(as []slog.Attr) slog.Handler {
	r.attrs = append(append([]slog.Attr(nil), r.attrs...), as...)
	return r
}
func (r records) Handle(_ context.Context, rec slog.Record) error {
	line := map[string]string{"msg": rec.Message, "level": rec.Level.String()}
	for _, a := range r.attrs {
		line[a.Key] = a.Value.String()
	}
	rec.Attrs(func(a slog.Attr) bool { line[a.Key] = a.Value.String(); return true })
	r.mu.Lock()
	*r.lines = append(*r.lines, line)
	r.mu.Unlock()
	return nil
}

// find returns the lines with this message.
func (r records) find(msg string) []map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []map[string]string
	for _, l := range *r.lines {
		if l["msg"] == msg {
			out = append(out, l)
		}
	}
	return out
}

// A valid traceparent puts its trace id on the query's log lines and
// comes back with the server's span; an invalid one is ignored.
func TestTraceparent(t *testing.T) {
	rec := newRecords()
	base := startServer(t, Config{Logger: slog.New(rec)}, openDB(t, engine.Options{}))
	const id = "4bf92f3577b34da6a3ce929d0e0e4736"
	send := func(body, traceparent string) nethttp.Header {
		req, _ := nethttp.NewRequest("POST", base+"/api/v1/query", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if traceparent != "" {
			req.Header.Set("traceparent", traceparent)
		}
		resp, err := nethttp.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header
	}
	hdr := send(`{"query":"RETURN 1 AS x"}`, "00-"+id+"-00f067aa0ba902b7-01")
	echo := hdr.Get("traceparent")
	parts := strings.Split(echo, "-")
	if len(parts) != 4 || parts[0] != "00" || parts[1] != id || len(parts[2]) != 16 || parts[2] == "00f067aa0ba902b7" || parts[3] != "01" {
		t.Fatalf("response traceparent %q", echo)
	}
	lines := rec.find("query")
	if len(lines) != 1 || lines[0]["trace_id"] != id || lines[0]["span_id"] != parts[2] || lines[0]["outcome"] != "ok" ||
		lines[0]["duration"] == "" || lines[0]["level"] != "DEBUG" {
		t.Fatalf("query lines: %v", lines)
	}
	// A failing query: its line says so, with the trace.
	send(`{"query":"RETURN 1/0"}`, "00-"+id+"-00f067aa0ba902b7-00")
	lines = rec.find("query")
	if len(lines) != 2 || lines[1]["trace_id"] != id || lines[1]["outcome"] != "error" || lines[1]["code"] != "22012" {
		t.Fatalf("failed query lines: %v", lines)
	}
	// Invalid or absent: no header back, no trace on the line.
	for _, tp := range []string{"", "00-" + strings.ToUpper(id) + "-00f067aa0ba902b7-01", "garbage"} {
		if hdr := send(`{"query":"RETURN 2 AS x"}`, tp); hdr.Get("traceparent") != "" {
			t.Errorf("traceparent %q answered %q", tp, hdr.Get("traceparent"))
		}
	}
	lines = rec.find("query")
	if len(lines) != 5 {
		t.Fatalf("%d query lines, want 5", len(lines))
	}
	for _, l := range lines[2:] {
		if _, ok := l["trace_id"]; ok || l["outcome"] != "ok" {
			t.Errorf("untraced query line: %v", l)
		}
	}
}

// The lines of a batch's statements and of a streamed query's failure
// carry the trace too.
func TestTraceparentBatchAndStream(t *testing.T) {
	rec := newRecords()
	base := startServer(t, Config{Logger: slog.New(rec)}, openDB(t, engine.Options{}))
	const id = "0af7651916cd43dd8448eb211c80319c"
	do := func(path, body string) {
		req, _ := nethttp.NewRequest("POST", base+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("traceparent", "00-"+id+"-b7ad6b7169203331-01")
		resp, err := nethttp.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if got := resp.Header.Get("traceparent"); !strings.Contains(got, id) {
			t.Errorf("%s: traceparent %q", path, got)
		}
	}
	do("/api/v1/batch", `{"queries":[{"query":"RETURN 1 AS x"},{"query":"RETURN 1/0 AS y"}]}`)
	// Rows past the first chunk, then a division by zero: the failure
	// comes while the rows stream.
	do("/api/v1/query", `{"query":"UNWIND range(1, 60000) AS i RETURN 'row ' + toString(i) AS s, 100 / (59990 - i) AS d"}`)
	// The streamed query reports once its last bytes are sent: the
	// client may have them a moment before.
	lines := rec.find("query")
	for deadline := time.Now().Add(5 * time.Second); len(lines) < 3 && time.Now().Before(deadline); lines = rec.find("query") {
		time.Sleep(time.Millisecond)
	}
	if len(lines) != 3 {
		t.Fatalf("query lines: %v", lines)
	}
	for _, l := range lines {
		if l["trace_id"] != id {
			t.Errorf("line without the trace: %v", l)
		}
	}
	if lines[0]["outcome"] != "ok" || lines[1]["outcome"] != "error" || lines[2]["outcome"] != "error" {
		t.Errorf("outcomes: %v", lines)
	}
	streamed := rec.find("query failed while its rows were streamed")
	if len(streamed) != 1 || streamed[0]["trace_id"] != id {
		t.Errorf("streaming failure lines: %v", streamed)
	}
}
