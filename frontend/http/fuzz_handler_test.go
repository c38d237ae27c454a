package http

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/valyala/fasthttp"

	"github.com/quiverdb/quiver/engine"
)

// fuzzServer is one server for every input of FuzzHandler: a small graph
// and tight limits, so no input can make an iteration slow.
var fuzzServer = sync.OnceValue(func() *Server {
	db, err := engine.Open("", engine.Options{QueryTimeout: 50 * time.Millisecond, MaxMemoryPerQuery: 16 << 20, MaxMemory: 256 << 20})
	if err != nil {
		panic(err)
	}
	for _, q := range []string{
		"UNWIND range(0, 9) AS i CREATE (:P {i: i, s: toString(i)})",
		"MATCH (a:P), (b:P) WHERE a.i < b.i CREATE (a)-[:R {w: a.i}]->(b)",
	} {
		res, err := db.Query(context.Background(), q, nil)
		if err != nil {
			panic(err)
		}
		res.Close()
	}
	return New(Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Version: "fuzz"}, db)
})

var fuzzRoutes = []string{"/api/v1/query", "/query", "/api/v1/query/explain", "/api/v1/query/profile", "/api/v1/health", "/nowhere",
	"/api/v1/batch", "/api/v1/transaction/begin", "/api/v1/transaction/nope/rollback"}

// FuzzHandler drives the whole request handler with generated bodies,
// content types and paths, deep and long constructs among the seeds. No
// input may panic, and every answer is a response whose body is JSON: a
// result, a plan, health, or the spec's error shape with a code.
func FuzzHandler(f *testing.F) {
	seeds := []string{
		`{"query":"RETURN 1"}`,
		`{"query":"MATCH (a:P)-[r:R]->(b) RETURN a, r, b LIMIT 3"}`,
		`{"query":"MATCH p = (a)-[*]->(b) RETURN p","timeout":50}`,
		`{"query":"RETURN reduce(s = 'x', x IN range(1, 40) | s + s)"}`,
		`{"query":"UNWIND range(1, 100000) AS x RETURN x"}`,
		`{"query":"RETURN $p","parameters":{"p":` + strings.Repeat("[", 2000) + strings.Repeat("]", 2000) + `}}`,
		`{"query":"RETURN 1` + strings.Repeat("+1", 3000) + `"}`,
		`{"query":"RETURN ` + strings.Repeat("(", 3000) + `1` + strings.Repeat(")", 3000) + `"}`,
		`{"query":"WITH 1 AS x ` + strings.Repeat("WITH x ", 1200) + `RETURN x"}`,
		`{"query":"SET query_timeout = 0"}`,
		`{"query":"EXPLAIN MATCH (a)-->(b) RETURN b"}`,
		`{"query":"RETURN 1/0"}`,
		`{"query":"` + strings.Repeat("x", 5000) + `"}`,
		`not json`, ``, `{}`, `[1]`, `{"query":"RETURN 1","timeout":-1}`,
		`{"queries":[{"query":"RETURN 1"},{"query":"RETURN 1/0"},{"query":"MATCH (p:P) RETURN p"}]}`,
		`{"queries":[{"query":"CREATE (:Q)"},{"query":"UNWIND range(1, 5000) AS x RETURN x"}],"transaction":true,"isolation_level":"SERIALIZABLE"}`,
		`{"isolation_level":"REPEATABLE_READ","timeout":1000}`, `{"to_savepoint":"a"}`,
	}
	for i, s := range seeds {
		f.Add([]byte(s), uint8(i), "application/json")
	}
	f.Add([]byte(`{"query":"RETURN 1"}`), uint8(0), "text/plain")
	f.Fuzz(func(t *testing.T, body []byte, route uint8, contentType string) {
		s := fuzzServer()
		var ctx fasthttp.RequestCtx
		var req fasthttp.Request
		req.Header.SetMethod(fasthttp.MethodPost)
		path := fuzzRoutes[int(route)%len(fuzzRoutes)]
		if path == "/api/v1/health" {
			req.Header.SetMethod(fasthttp.MethodGet)
		}
		req.SetRequestURI(path)
		req.Header.SetHost("localhost")
		req.Header.SetContentType(contentType)
		req.SetBody(body)
		ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}, nil)
		s.loopback.Store(true)
		s.handle(&ctx)
		out := ctx.Response.Body() // reads a streamed body to its end
		status := ctx.Response.StatusCode()
		if !json.Valid(out) {
			t.Fatalf("%s %q: status %d, body is not JSON: %.300q", path, body, status, out)
		}
		var shape struct {
			Error *struct{ Code, Category, Message string } `json:"error"`
		}
		_ = json.Unmarshal(out, &shape)
		if status >= 400 && (shape.Error == nil || shape.Error.Code == "" || shape.Error.Message == "") {
			t.Fatalf("%s: status %d without the error shape: %.300s", path, status, out)
		}
		// A transactional batch can meet a statement its transaction
		// refuses (CHECKPOINT, say): 40000, which the contract maps to 500.
		txRefusal := path == "/api/v1/batch" && status == 500 && shape.Error != nil && shape.Error.Code == "40000"
		if status >= 500 && status != 503 && status != 507 && !txRefusal {
			t.Fatalf("%s %q: status %d: %.300s", path, body, status, out)
		}
	})
}
