package http

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	nethttp "net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/frontend/jsonio"
)

// The hostile-input suite of the hardening issue: the real server,
// in-process, against every kind of request that took it down or wedged
// it before. Each case asserts the answer (status and code), that the
// server is healthy afterwards, and, where memory was the weapon, that
// the heap stayed bounded.

// hostile is a running server with the hooks the suite reads.
type hostile struct {
	base  string
	addr  string
	srv   *Server
	db    *engine.DB
	ended chan QueryEnd
}

// startHostile serves a database opened with opts under cfg (on
// 127.0.0.1:0), reporting each query's end on ended.
func startHostile(t *testing.T, cfg Config, opts engine.Options) *hostile {
	t.Helper()
	db := openDB(t, opts)
	h := &hostile{db: db, ended: make(chan QueryEnd, 64)}
	cfg.QueryEnded = func(q QueryEnd) {
		select {
		case h.ended <- q:
		default:
		}
	}
	cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg.Version = "test"
	h.srv = New(cfg, db)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- h.srv.Serve(ln) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := h.srv.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
		<-done
	})
	h.addr = ln.Addr().String()
	h.base = "http://" + h.addr
	return h
}

// post sends a JSON query body and returns the status and raw answer.
func (h *hostile) post(t *testing.T, body string) (int, []byte) {
	t.Helper()
	status, raw, err := h.tryPost(body)
	if err != nil {
		t.Fatal(err)
	}
	return status, raw
}

// tryPost is post for a goroutine other than the test's, which may not
// end the test: a failed request is returned.
func (h *hostile) tryPost(body string) (int, []byte, error) {
	resp, err := nethttp.Post(h.base+"/api/v1/query", "application/json", strings.NewReader(body))
	if err != nil {
		return 0, nil, fmt.Errorf("request: %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, nil, fmt.Errorf("reading the answer: %w", err)
	}
	return resp.StatusCode, raw, nil
}

// errorCode is the error code of an answer ("" when it has none).
func errorCode(raw []byte) string {
	var out struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal(raw, &out)
	return out.Error.Code
}

// healthy asserts that the server answers its health endpoint.
func (h *hostile) healthy(t *testing.T, after string) {
	t.Helper()
	resp, err := nethttp.Get(h.base + "/api/v1/health")
	if err != nil {
		t.Fatalf("health after %s: %v", after, err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("health after %s: %d", after, resp.StatusCode)
	}
}

// heapGrowth samples the live heap (as the collector last measured it)
// until stop, returning the most it grew past the start.
func heapGrowth() (stop func() int64) {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	read := func() int64 { metrics.Read(s); return int64(s[0].Value.Uint64()) }
	base, peak := read(), int64(0)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(2 * time.Millisecond)
		defer t.Stop()
		for {
			peak = max(peak, read()-base)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() int64 { close(done); wg.Wait(); return peak }
}

func rep(s string, n int) string { return strings.Repeat(s, n) }

// queryBody is a request body for text, with an optional timeout (ms).
func queryBody(text string, timeoutMS int) string {
	b, _ := json.Marshal(map[string]any{"query": text})
	if timeoutMS > 0 {
		return fmt.Sprintf(`{"query":%s,"timeout":%d}`, b[len(`{"query":`):len(b)-1], timeoutMS)
	}
	return string(b)
}

// Statements that crashed, exhausted or wedged the server: each gets its
// code, promptly, with the heap bounded, and the server stays healthy.
func TestHostileRequests(t *testing.T) {
	const perQuery = 64 << 20
	h := startHostile(t, Config{}, engine.Options{MaxMemoryPerQuery: perQuery, QueryTimeout: 30 * time.Second, MaxMemory: -1})
	h.post(t, queryBody("UNWIND range(0, 11) AS i CREATE (:K {i: i})", 0))
	h.post(t, queryBody("MATCH (a:K), (b:K) WHERE a <> b CREATE (a)-[:E]->(b)", 0))
	hops := "MATCH (a0)"
	for i := 1; i <= 10000; i++ {
		hops += fmt.Sprintf("-->(a%d)", i)
	}
	cases := []struct {
		name   string
		body   string
		status int
		code   string
		within time.Duration
	}{
		{"520 000-term sum", queryBody("RETURN 1"+rep("+1", 520000), 0), 400, "42000", 2 * time.Second},
		{"AND chain", queryBody("RETURN true"+rep(" AND true", 100000), 0), 400, "42000", 2 * time.Second},
		{"string + chain", queryBody("RETURN 'a'"+rep("+'a'", 200000), 0), 400, "42000", 2 * time.Second},
		{"property chain", queryBody("WITH {a: 1} AS m RETURN m"+rep(".a", 300000), 0), 400, "42000", 2 * time.Second},
		{"WITH chain", queryBody("WITH 1 AS x "+rep("WITH x ", 140000)+"RETURN x", 0), 400, "42000", 2 * time.Second},
		{"60 000-term expression, 1 s timeout", queryBody("RETURN 1"+rep("+1", 60000), 1000), 400, "42000", 2 * time.Second},
		{"10 000-hop pattern", queryBody(hops+" RETURN count(*)", 0), 400, "42000", 2 * time.Second},
		{"query over 1 MiB", queryBody(rep(" ", engine.MaxQueryBytes)+"RETURN 1", 0), 400, "22000", 2 * time.Second},
		{"doubling string", queryBody(`RETURN size(reduce(s = "x", x IN range(1, 40) | s + s))`, 0), 507, "53200", 2 * time.Second},
		{"UNWIND product", queryBody("UNWIND range(1, 60000000) AS x UNWIND range(1, 60000000) AS y RETURN count(*)", 1000), 408, "40003", 3 * time.Second},
		{"collected paths", queryBody("MATCH p = (a)-[*1..6]->(b) RETURN size(collect(p))", 0), 507, "53200", 5 * time.Second},
		{"reduce over 60 000 items, 1 s timeout", queryBody(`RETURN size(reduce(s = "", x IN range(1, 60000) | s + toString(x) + s))`, 1000), 0, "", 3 * time.Second},
		{"SET max_connections", queryBody("SET max_connections = 1", 0), 403, "42501", time.Second},
		{"SET query_timeout = 0", queryBody("SET query_timeout = 0", 0), 403, "42501", time.Second},
		{"SET max_memory_per_query = 0", queryBody("SET max_memory_per_query = 0", 0), 403, "42501", time.Second},
		{"parameters nested 5000 deep", `{"query":"RETURN $p","parameters":{"p":` + rep("[", 5000) + rep("]", 5000) + `}}`, 400, "22000", time.Second},
	}
	for _, c := range cases {
		stop := heapGrowth()
		start := time.Now()
		status, raw := h.post(t, c.body)
		took := time.Since(start)
		grew := stop()
		code := errorCode(raw)
		if raceBuild {
			c.within *= 5 // the race detector slows everything down
		}
		switch {
		case c.status == 0: // memory or time, whichever ends it first
			if (status != 507 || code != "53200") && (status != 408 || code != "40003") {
				t.Errorf("%s: %d %s, want 507/53200 or 408/40003", c.name, status, code)
			}
		case status != c.status || code != c.code:
			t.Errorf("%s: %d %s (%.200s), want %d/%s", c.name, status, code, raw, c.status, c.code)
		}
		if took > c.within {
			t.Errorf("%s: answered after %v, want within %v", c.name, took, c.within)
		}
		if bound := int64(4 * perQuery); grew > bound && !(raceBuild && grew < 4*bound) {
			t.Errorf("%s: the heap grew by %d MB", c.name, grew>>20)
		}
		if len(raw) > 4096 {
			t.Errorf("%s: an error answer of %d bytes (the query must not be echoed whole)", c.name, len(raw))
		}
		h.healthy(t, c.name)
	}
}

// A large result streams: the heap does not grow with it, and it arrives
// whole and valid. A query that fails after its rows began streaming ends
// the body with the error object in place of the metadata.
func TestStreamedResults(t *testing.T) {
	h := startHostile(t, Config{}, engine.Options{MaxMemory: -1})
	// About 120 MB of JSON: 600 000 rows of 200 characters. Under the
	// race detector, which inflates the heap (the bound below cannot
	// hold) and makes the encoding ten times slower, a sixth of it: the
	// same streaming code runs.
	rows := 600000
	if raceBuild {
		rows = 100000
	}
	q := queryBody(fmt.Sprintf(`UNWIND range(1, %d) AS x RETURN x, "`+rep("y", 180)+`" AS s`, rows), 0)
	stop := heapGrowth()
	resp, err := nethttp.Post(h.base+"/api/v1/query", "application/json", strings.NewReader(q))
	if err != nil {
		t.Fatal(err)
	}
	counted := &countingReader{r: resp.Body}
	// Decoding into a value would keep the rows: count them as they pass.
	n, err := countRows(counted)
	resp.Body.Close()
	grew := stop()
	if err != nil || n != rows {
		t.Fatalf("streamed rows: %d, %v", n, err)
	}
	if counted.n < int64(rows)*190 {
		t.Fatalf("the response was only %d bytes", counted.n)
	}
	if bound := int64(64 << 20); grew > bound && !raceBuild {
		t.Errorf("a %d MB response grew the heap by %d MB", counted.n>>20, grew>>20)
	}

	// A division by zero on the last row: the rows before it were sent.
	failAt := rows / 2
	status, raw := h.post(t, queryBody(fmt.Sprintf(`UNWIND range(1, %d) AS x RETURN 1 / (x - %[1]d) AS y`, failAt), 0))
	var failed struct {
		Data     []map[string]any `json:"data"`
		Metadata any              `json:"metadata"`
		Error    struct {
			Code, Category, Message string
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &failed); err != nil {
		t.Fatalf("the failed stream is not valid JSON: %v", err)
	}
	if status != 200 || failed.Error.Code != "22012" || failed.Metadata != nil || len(failed.Data) == 0 || len(failed.Data) >= failAt {
		t.Errorf("failed stream: %d, error %+v, %d rows, metadata %v", status, failed.Error, len(failed.Data), failed.Metadata)
	}
	// An early failure still gets its status.
	if status, raw := h.post(t, queryBody(`UNWIND range(1, 10) AS x RETURN 1 / (x - 10) AS y`, 0)); status != 400 || errorCode(raw) != "22012" {
		t.Errorf("early failure: %d %s", status, raw)
	}
	h.healthy(t, "streaming")
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// countRows reads a result body token by token and counts the objects
// of its "data" array.
func countRows(r io.Reader) (int, error) {
	dec := json.NewDecoder(r)
	depth, n, inData := 0, 0, false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{', '[':
				depth++
				if inData && depth == 3 && v == '{' {
					n++
				}
			case '}', ']':
				depth--
				if inData && depth == 1 {
					inData = false
				}
			}
		case string:
			if depth == 1 && v == "data" {
				inData = true
			}
		}
	}
}

// An error echoes a window of the query around its position, not the
// query: a megabyte of text must not come back in every error.
func TestErrorDetailsAreCut(t *testing.T) {
	h := startHostile(t, Config{}, engine.Options{MaxMemory: -1})
	status, raw := h.post(t, queryBody("RETURN ["+rep("1, ", 300000)+"1] RETRUN", 0))
	var out struct {
		Error struct {
			Code    string
			Details struct {
				Query    string
				Position struct{ Line, Column int }
			}
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	q := out.Error.Details.Query
	if status != 400 || out.Error.Code != "42000" || !strings.HasPrefix(q, "…") || !strings.Contains(q, "RETRUN") ||
		len([]rune(q)) > 2*queryWindowChars+2 {
		t.Errorf("%d %s, details.query %q (%d characters)", status, out.Error.Code, q, len([]rune(q)))
	}
	if len(raw) > 2048 || !bytes.Contains(raw, []byte(`"position"`)) {
		t.Errorf("error body of %d bytes: %.300s", len(raw), raw)
	}
}

// An error quoting a huge value is cut, not echoed whole.
func TestErrorMessagesAreCut(t *testing.T) {
	h := startHostile(t, Config{}, engine.Options{MaxMemory: -1})
	// The value's text comes back in the message: "… is not a size".
	status, raw := h.post(t, queryBody("SET max_memory_per_query = '"+rep("9", 100000)+" parsecs'", 0))
	if status != 400 || errorCode(raw) != "22023" || len(raw) > 2*jsonio.MaxMessageBytes+4*queryWindowChars+512 {
		t.Errorf("%d %s, %d bytes", status, errorCode(raw), len(raw))
	}
	if !json.Valid(raw) {
		t.Errorf("not JSON: %.200s", raw)
	}
}
