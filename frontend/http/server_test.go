package http

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	nethttp "net/http"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// startServer serves db on a free loopback port and returns its base URL.
func startServer(t *testing.T, cfg Config, db Engine) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	cfg.Version = "test"
	srv := New(cfg, db)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	})
	return "http://" + ln.Addr().String()
}

func openDB(t *testing.T, opts engine.Options) *engine.DB {
	t.Helper()
	db, err := engine.Open(t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// call sends a request and decodes the JSON answer.
func call(t *testing.T, method, url, body string) (int, map[string]any, nethttp.Header) {
	t.Helper()
	req, err := nethttp.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := nethttp.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("%s %s: answer is not a JSON object: %v: %s", method, url, err, raw)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("%s %s: Content-Type %q", method, url, ct)
	}
	return resp.StatusCode, out, resp.Header
}

func jsonString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func TestQueryEndpoint(t *testing.T) {
	base := startServer(t, Config{}, openDB(t, engine.Options{}))
	status, out, _ := call(t, "POST", base+"/api/v1/query",
		`{"query":"CREATE (a:Person {name:$n, age:41})-[:KNOWS {since:2015}]->(b:Person {name:\"Bo\", age:29})","parameters":{"n":"Al"}}`)
	if status != 200 {
		t.Fatalf("create: %d %v", status, out)
	}
	meta := out["metadata"].(map[string]any)
	if jsonString(meta["rows_affected"]) != "3" || jsonString(meta["rows_returned"]) != "0" {
		t.Errorf("create metadata = %v", meta)
	}
	if got := jsonString(out["schema"]); got != `{"fields":[]}` {
		t.Errorf("create schema = %s", got)
	}
	status, out, _ = call(t, "POST", base+"/api/v1/query",
		`{"query":"MATCH (a:Person)-[k:KNOWS]->(b) WHERE a.age > 30 RETURN a.name AS who, b.name, k.since, count(*) AS c"}`)
	if status != 200 {
		t.Fatalf("match: %d %v", status, out)
	}
	if got := jsonString(out["schema"]); got != `{"fields":[{"name":"who","type":"STRING"},{"name":"b.name","type":"STRING"},{"name":"k.since","type":"INTEGER"},{"name":"c","type":"INTEGER"}]}` {
		t.Errorf("schema = %s", got)
	}
	if got := jsonString(out["data"]); got != `[{"b.name":"Bo","c":1,"k.since":2015,"who":"Al"}]` {
		t.Errorf("data = %s", got)
	}
	meta = out["metadata"].(map[string]any)
	if jsonString(meta["rows_returned"]) != "1" || meta["execution_time_ms"] == nil || meta["rows_scanned"] == nil {
		t.Errorf("metadata = %v", meta)
	}
	if _, ok := meta["rows_affected"]; ok {
		t.Errorf("a read reports rows_affected: %v", meta)
	}
	// Entities come back whole.
	_, out, _ = call(t, "POST", base+"/api/v1/query", `{"query":"MATCH (a {name: 'Al'})-[k]->(b) RETURN a, k"}`)
	row := out["data"].([]any)[0].(map[string]any)
	if got := jsonString(row["a"]); got != `{"id":0,"labels":["Person"],"properties":{"age":41,"name":"Al"}}` {
		t.Errorf("node = %s", got)
	}
	if got := jsonString(row["k"]); got != `{"end":1,"id":0,"properties":{"since":2015},"start":0,"type":"KNOWS"}` {
		t.Errorf("relationship = %s", got)
	}
}

func TestExperimentalQueryAndHealth(t *testing.T) {
	base := startServer(t, Config{}, openDB(t, engine.Options{}))
	status, out, _ := call(t, "POST", base+"/query", `{"query":"RETURN $x + 1 AS y, 2.0 AS f","params":{"x":41}}`)
	if status != 200 {
		t.Fatalf("%d %v", status, out)
	}
	if got := jsonString(out["schema"]); got != `[{"name":"y","type":"INTEGER"},{"name":"f","type":"FLOAT"}]` {
		t.Errorf("schema = %s", got)
	}
	if got := jsonString(out["data"]); got != `[{"f":2.0,"y":42}]` {
		t.Errorf("data = %s", got)
	}
	sum := out["summary"].(map[string]any)
	if jsonString(sum["rows"]) != "1" || sum["time_ms"] == nil {
		t.Errorf("summary = %v", sum)
	}
	status, out, _ = call(t, "GET", base+"/api/v1/health", "")
	if status != 200 || out["status"] != "healthy" || out["version"] != "test" || out["uptime_seconds"] == nil {
		t.Fatalf("health: %d %v", status, out)
	}
	checks := out["checks"].(map[string]any)
	if checks["database"] != "ok" || checks["storage"] != "ok" || checks["replication"] == nil {
		t.Errorf("checks = %v", checks)
	}
}

func TestRequestErrors(t *testing.T) {
	base := startServer(t, Config{MaxBodyBytes: 1024}, openDB(t, engine.Options{}))
	cases := []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"malformed JSON", "POST", "/api/v1/query", `{"query":`, 400, "22000"},
		{"not an object", "POST", "/api/v1/query", `["RETURN 1"]`, 400, "22000"},
		{"empty body", "POST", "/api/v1/query", ``, 400, "22000"},
		{"missing query", "POST", "/api/v1/query", `{"parameters":{}}`, 400, "22000"},
		{"query not a string", "POST", "/api/v1/query", `{"query":1}`, 400, "22000"},
		{"empty query", "POST", "/api/v1/query", `{"query":""}`, 400, "22000"},
		{"parameters not an object", "POST", "/api/v1/query", `{"query":"RETURN 1","parameters":[1]}`, 400, "22000"},
		{"bad timeout", "POST", "/api/v1/query", `{"query":"RETURN 1","timeout":-5}`, 400, "22000"},
		{"trailing data", "POST", "/api/v1/query", `{"query":"RETURN 1"} {}`, 400, "22000"},
		{"explain flag not a boolean", "POST", "/api/v1/query", `{"query":"RETURN 1","explain":"yes"}`, 400, "22000"},
		{"explain syntax error", "POST", "/api/v1/query/explain", `{"query":"RETRUN 1"}`, 400, "42000"},
		{"profile of a failing query", "POST", "/api/v1/query/profile", `{"query":"RETURN 1/0"}`, 400, "22012"},
		{"explain of a session statement", "POST", "/api/v1/query", `{"query":"SHOW ALL","explain":true}`, 400, "42000"},
		{"data error", "POST", "/api/v1/query", `{"query":"RETURN 1/0"}`, 400, "22012"},
		{"unknown procedure", "POST", "/api/v1/query", `{"query":"CALL db.nothing()"}`, 400, "42S02"},
		{"unknown path", "GET", "/api/v2/query", ``, 404, "02000"},
		{"wrong method", "GET", "/api/v1/query", ``, 405, "22000"},
		{"oversized body", "POST", "/api/v1/query", `{"query":"RETURN '` + strings.Repeat("x", 2000) + `'"}`, 413, "22000"},
		{"experimental missing query", "POST", "/query", `{"params":{}}`, 400, "22000"},
	}
	for _, c := range cases {
		status, out, hdr := call(t, c.method, base+c.path, c.body)
		e, ok := out["error"].(map[string]any)
		if status != c.status || !ok || e["code"] != c.code || e["category"] == nil || e["message"] == "" {
			t.Errorf("%s: %d %v, want %d with code %s", c.name, status, out, c.status, c.code)
		}
		if c.status == 405 && hdr.Get("Allow") != "POST, OPTIONS" {
			t.Errorf("%s: Allow = %q", c.name, hdr.Get("Allow"))
		}
	}
	// The server still answers after all that.
	if status, _, _ := call(t, "GET", base+"/api/v1/health", ""); status != 200 {
		t.Fatalf("health after errors: %d", status)
	}
}

func TestSyntaxErrorPosition(t *testing.T) {
	base := startServer(t, Config{}, openDB(t, engine.Options{}))
	status, out, _ := call(t, "POST", base+"/api/v1/query", `{"query":"MATCH (n)\nRETRUN n"}`)
	e := out["error"].(map[string]any)
	if status != 400 || e["code"] != "42000" || e["category"] != "SYNTAX_ERROR" {
		t.Fatalf("%d %v", status, out)
	}
	d := e["details"].(map[string]any)
	if got := jsonString(d["position"]); got != `{"column":1,"line":2}` {
		t.Errorf("position = %s", got)
	}
	if d["suggestion"] != "RETURN" || d["query"] != "MATCH (n)\nRETRUN n" {
		t.Errorf("details = %v", d)
	}
}

func TestQueryTimeout(t *testing.T) {
	db := openDB(t, engine.Options{})
	base := startServer(t, Config{}, db)
	nodes := strings.TrimSuffix(strings.Repeat("(:N),", 200), ",")
	if status, out, _ := call(t, "POST", base+"/api/v1/query", `{"query":"CREATE `+nodes+`"}`); status != 200 {
		t.Fatalf("%d %v", status, out)
	}
	status, out, _ := call(t, "POST", base+"/api/v1/query", `{"query":"MATCH (a), (b), (c), (d) RETURN count(*)","timeout":50}`)
	e, _ := out["error"].(map[string]any)
	if status != 408 || e["code"] != "40003" || e["category"] != "TIMEOUT" {
		t.Fatalf("%d %v, want 408/40003", status, out)
	}
}

// panicky is an engine whose queries panic.
type panicky struct{}

func (panicky) Run(context.Context, engine.Mode, string, engine.Params) (*engine.Result, error) {
	panic("boom")
}
func (panicky) Counts() engine.Counts { return engine.Counts{} }

func (panicky) GraphCounts(context.Context, string) (engine.Counts, error) {
	return engine.Counts{}, nil
}
func (panicky) BeginTransaction(engine.TransactionOptions) (*engine.Transaction, error) {
	panic("boom")
}
func (panicky) TransactionOf(string, string) (*engine.Transaction, error) { panic("boom") }

func TestPanicBecomes500(t *testing.T) {
	base := startServer(t, Config{}, panicky{})
	status, out, _ := call(t, "POST", base+"/api/v1/query", `{"query":"RETURN 1"}`)
	e, _ := out["error"].(map[string]any)
	if status != 500 || e["code"] != "40000" {
		t.Fatalf("%d %v", status, out)
	}
	if status, _, _ := call(t, "GET", base+"/api/v1/health", ""); status != 200 {
		t.Fatalf("server down after a panic: %d", status)
	}
}

// TestShutdownBeforeServe: a Shutdown that comes before Serve reached
// fasthttp (a signal right at start) still makes Serve return, rather
// than leaving it accepting forever.
func TestShutdownBeforeServe(t *testing.T) {
	db := openDB(t, engine.Options{})
	for _, order := range []string{"shutdown first", "serve first"} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := New(Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}, db)
		done := make(chan error, 1)
		if order == "serve first" {
			go func() { done <- srv.Serve(ln) }()
		}
		if err := srv.Shutdown(context.Background()); err != nil {
			t.Fatalf("%s: shutdown: %v", order, err)
		}
		if order == "shutdown first" {
			go func() { done <- srv.Serve(ln) }()
		}
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("%s: serve: %v", order, err)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Serve did not return after Shutdown", order)
		}
	}
}
