package client_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/client"
)

func httpCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// asError asserts err is a *client.Error with this status and code.
func asError(t *testing.T, what string, err error, status int, code string) *client.Error {
	t.Helper()
	var e *client.Error
	if !errors.As(err, &e) || e.Status != status || e.Code != code || e.Message == "" {
		t.Fatalf("%s: %v (%#v), want HTTP %d with code %s", what, err, e, status, code)
	}
	return e
}

// One server for the tests that share it: a fresh data directory each.
func TestHTTPClient(t *testing.T) {
	c := client.NewHTTP(testServer(t, 0) + "/")
	t.Run("query", func(t *testing.T) { testHTTPQuery(t, c) })
	t.Run("errors", func(t *testing.T) { testHTTPErrors(t, c) })
	t.Run("explain and profile", func(t *testing.T) { testHTTPExplainProfile(t, c) })
	t.Run("transactions", func(t *testing.T) { testHTTPTransactions(t, c) })
	t.Run("batch", func(t *testing.T) { testHTTPBatch(t, c) })
	t.Run("health and status", func(t *testing.T) { testHTTPHealthStatus(t, c) })
}

func testHTTPQuery(t *testing.T, c *client.HTTPClient) {
	ctx := httpCtx(t)
	res, err := c.Query(ctx, "CREATE (:Person {name: $n, age: $a, score: $s})", map[string]any{"n": "Ada", "a": 36, "s": 2.0})
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Metadata; !m.Write || m.NodesCreated != 1 || m.PropertiesSet != 3 || len(res.Columns) != 0 || len(res.Rows) != 0 {
		t.Fatalf("create: %+v", res)
	}
	res, err = c.Query(ctx, "MATCH (p:Person) RETURN p.name AS name, p.age AS age, p.score AS score, [1, 2.5, 'x'] AS l, {k: [true, null]} AS m, p", nil)
	if err != nil {
		t.Fatal(err)
	}
	wantCols := []client.Column{{Name: "name", Type: "STRING"}, {Name: "age", Type: "INTEGER"}, {Name: "score", Type: "FLOAT"}}
	if !reflect.DeepEqual(res.Columns[:3], wantCols) || len(res.Columns) != 6 || len(res.Rows) != 1 {
		t.Fatalf("columns %+v, rows %v", res.Columns, res.Rows)
	}
	row := res.Rows[0]
	if row[0] != "Ada" || row[1] != int64(36) || row[2] != float64(2) ||
		!reflect.DeepEqual(row[3], []any{int64(1), 2.5, "x"}) || !reflect.DeepEqual(row[4], map[string]any{"k": []any{true, nil}}) {
		t.Errorf("row %#v", row)
	}
	node, ok := row[5].(map[string]any)
	if !ok || !reflect.DeepEqual(node["labels"], []any{"Person"}) || node["properties"].(map[string]any)["age"] != int64(36) {
		t.Errorf("node %#v", row[5])
	}
	if m := res.Map(0); m["name"] != "Ada" || m["age"] != int64(36) {
		t.Errorf("Map: %v", m)
	}
	if md := res.Metadata; md.Write || md.RowsReturned != 1 || md.RowsScanned < 1 {
		t.Errorf("read metadata %+v", md)
	}
	// A result large enough to stream arrives whole.
	res, err = c.Query(ctx, "UNWIND range(1, 50000) AS i RETURN i", nil)
	if err != nil || len(res.Rows) != 50000 || res.Rows[49999][0] != int64(50000) {
		t.Fatalf("streamed: %v, %d rows", err, len(res.Rows))
	}
}

func testHTTPErrors(t *testing.T, c *client.HTTPClient) {
	ctx := httpCtx(t)
	_, err := c.Query(ctx, "MATCH (n)\nRETRUN n", nil)
	e := asError(t, "syntax error", err, 400, "42000")
	if e.Category != "SYNTAX_ERROR" || e.Line != 2 || e.Column != 1 || !strings.Contains(e.Error(), "line 2, column 1") {
		t.Errorf("syntax error: %#v", e)
	}
	// A failure after the first rows were sent: a 200 whose body ends
	// with the error.
	_, err = c.Query(ctx, "UNWIND range(1, 60000) AS i RETURN i, 10 / (59990 - i) AS d", nil)
	asError(t, "error while streaming", err, 200, "22012")
	// The context's deadline is the query's timeout: the server's answer
	// says it timed out.
	short, cancel := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel()
	_, err = c.Query(short, "UNWIND range(1, 100000000) AS i WITH i WHERE i < 0 RETURN count(*)", nil)
	asError(t, "timeout", err, 408, "40003")
	// An unreachable server is not an *Error.
	_, err = client.NewHTTP("http://127.0.0.1:1").Query(ctx, "RETURN 1", nil)
	var ce *client.Error
	if err == nil || errors.As(err, &ce) {
		t.Errorf("unreachable server: %v", err)
	}
	// A bounded answer.
	_, err = client.NewHTTP(c.BaseURL(), client.WithMaxResponseBytes(1000)).Query(ctx, "UNWIND range(1, 1000) AS i RETURN i", nil)
	if err == nil || !strings.Contains(err.Error(), "exceeds 1000 bytes") {
		t.Errorf("bounded answer: %v", err)
	}
}

func testHTTPExplainProfile(t *testing.T, c *client.HTTPClient) {
	ctx := httpCtx(t)
	plan, err := c.Explain(ctx, "MATCH (p:Person) WHERE p.age > $a RETURN p.name", map[string]any{"a": 1})
	if err != nil {
		t.Fatal(err)
	}
	if plan.Root == nil || plan.Root.Operator == "" || len(plan.Root.Columns) != 1 || plan.EstimatedRows <= 0 {
		t.Fatalf("plan %+v", plan)
	}
	res, err := c.Profile(ctx, "MATCH (p:Person) RETURN p.name AS n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 1 || res.Profile == nil || len(res.Profile.Operators) == 0 || res.Profile.Operators[0].Name == "" {
		t.Fatalf("profile %+v %+v", res, res.Profile)
	}
}

func testHTTPTransactions(t *testing.T, c *client.HTTPClient) {
	ctx := httpCtx(t)
	tx, err := c.Begin(ctx, "SERIALIZABLE", time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	if tx.ID == "" || tx.Isolation != "SERIALIZABLE" || time.Until(tx.ExpiresAt) < 50*time.Second {
		t.Fatalf("begin: %+v", tx)
	}
	for _, q := range []string{"CREATE (:Tx {n: 1})", "SAVEPOINT s1", "CREATE (:Tx {n: 2})"} {
		if _, err := tx.Query(ctx, q, nil); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.RollbackTo(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if err := tx.Commit(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := c.Query(ctx, "MATCH (t:Tx) RETURN collect(t.n) AS ns", nil)
	if err != nil || !reflect.DeepEqual(res.Rows, [][]any{{[]any{int64(1)}}}) {
		t.Fatalf("after commit: %v %v", err, res)
	}
	_, err = tx.Query(ctx, "RETURN 1", nil)
	asError(t, "statement after commit", err, 404, "02000")
	tx2, err := c.Begin(ctx, "", 0)
	if err != nil || tx2.Isolation != "READ_COMMITTED" {
		t.Fatalf("default begin: %v %+v", err, tx2)
	}
	if _, err := tx2.Query(ctx, "CREATE (:Tx {n: 3})", nil); err != nil {
		t.Fatal(err)
	}
	if err := tx2.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if res, _ := c.Query(ctx, "MATCH (t:Tx) RETURN count(*) AS c", nil); res.Rows[0][0] != int64(1) {
		t.Errorf("rolled back write is visible: %v", res.Rows)
	}
	_, err = c.Begin(ctx, "CHAOS", 0)
	asError(t, "unknown isolation level", err, 400, "22023")
}

func testHTTPBatch(t *testing.T, c *client.HTTPClient) {
	ctx := httpCtx(t)
	br, err := c.Batch(ctx, []client.Statement{
		{Query: "CREATE (:B {i: $i})", Parameters: map[string]any{"i": 1}},
		{Query: "MATCH (b:B) RETURN b.i AS i"},
	}, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(br.Results) != 2 || br.Results[0].Result.Metadata.NodesCreated != 1 || br.Results[1].Index != 1 ||
		!reflect.DeepEqual(br.Results[1].Result.Rows, [][]any{{int64(1)}}) || br.TotalTimeMS <= 0 {
		t.Fatalf("transactional batch: %+v", br)
	}
	_, err = c.Batch(ctx, []client.Statement{{Query: "CREATE (:B {i: 2})"}, {Query: "RETURN 1/0"}}, true)
	e := asError(t, "failed transactional batch", err, 400, "22012")
	if !strings.Contains(e.Message, "statement 1") {
		t.Errorf("message %q", e.Message)
	}
	br, err = c.Batch(ctx, []client.Statement{{Query: "CREATE (:B {i: 3})"}, {Query: "RETURN 1/0"}, {Query: "EXPLAIN MATCH (b:B) RETURN b"}, {Query: "MATCH (b:B) RETURN count(*) AS c"}}, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(br.Results) != 4 || br.Results[0].Result == nil || br.Results[1].Err == nil || br.Results[1].Err.Code != "22012" ||
		br.Results[2].Plan == nil || br.Results[2].Plan.Root == nil || br.Results[3].Result.Rows[0][0] != int64(2) {
		t.Fatalf("auto-commit batch: %+v", br.Results)
	}
}

func testHTTPHealthStatus(t *testing.T, c *client.HTTPClient) {
	ctx := httpCtx(t)
	h, err := c.Health(ctx)
	if err != nil || h.Status != "healthy" || h.Version == "" || h.Checks["database"] != "ok" {
		t.Fatalf("health: %v %+v", err, h)
	}
	s, err := c.Status(ctx)
	if err != nil || s.Version != h.Version || s.Role != "primary" || s.Statistics.TotalNodes < 1 {
		t.Fatalf("status: %v %+v", err, s)
	}
}

// Answers that a real server gives only under conditions a test cannot
// cheaply make (a rate limit hit, a proxy's page) decode as documented,
// and options and parameters reach the request as they should.
func TestHTTPClientAnswers(t *testing.T) {
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		body, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/api/v1/query/explain":
			w.Header().Set("Retry-After", "1200")
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(429)
			fmt.Fprint(w, `{"error":{"code":"RATE_LIMIT_EXCEEDED","message":"rate limit exceeded: at most 1000 requests per hour","retry_after":1200}}`)
		case "/api/v1/query/profile":
			w.WriteHeader(502)
			fmt.Fprint(w, "<html>Bad Gateway</html>")
		default: // echo the request body as the one value
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"schema":{"fields":[{"name":"body","type":"STRING"}]},"data":[{"body":%q}],"metadata":{"rows_returned":1}}`, body)
		}
	}))
	defer srv.Close()
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	ctx := client.ContextWithTraceparent(context.Background(), tp)
	c := client.NewHTTP(srv.URL, client.WithHeader("X-API-Key", "k1"), client.WithHTTPClient(srv.Client()))
	_, err := c.Explain(ctx, "RETURN 1", nil)
	e := asError(t, "429", err, 429, "RATE_LIMIT_EXCEEDED")
	if e.RetryAfter != 1200 || e.Category != "" {
		t.Errorf("429: %#v", e)
	}
	if got.Get("X-API-Key") != "k1" || got.Get("traceparent") != tp || got.Get("Content-Type") != "application/json" {
		t.Errorf("request headers %v", got)
	}
	_, err = c.Profile(ctx, "RETURN 1", nil)
	e = asError(t, "proxy page", err, 502, "")
	if !strings.Contains(e.Message, "Bad Gateway") {
		t.Errorf("proxy page: %q", e.Message)
	}
	// Whole floats go as floats (2.0, not 2), integers as integers.
	res, err := c.Query(context.Background(), "RETURN $f", map[string]any{"f": 2.0, "g": []any{float32(1), 1.5, 3}, "h": map[string]any{"x": 1e21}})
	if err != nil {
		t.Fatal(err)
	}
	body := res.Rows[0][0].(string)
	for _, want := range []string{`"f":2.0`, `"g":[1.0,1.5,3]`, `"h":{"x":1e+21}`} {
		if !strings.Contains(body, want) {
			t.Errorf("request body %s lacks %s", body, want)
		}
	}
	if got.Get("traceparent") != "" {
		t.Errorf("a context without a traceparent sent %q", got.Get("traceparent"))
	}
}

// answerTransport answers every request with one status and body.
type answerTransport struct {
	status int
	body   string
}

func (a answerTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: a.status, Status: http.StatusText(a.status), Header: http.Header{},
		Body: io.NopCloser(strings.NewReader(a.body))}, nil
}

// FuzzHTTPAnswer: no answer makes the client panic; a decoded result's
// rows always have one value per column.
func FuzzHTTPAnswer(f *testing.F) {
	f.Add(200, `{"schema":{"fields":[{"name":"x","type":"INTEGER"}]},"data":[{"x":1}],"metadata":{"rows_returned":1}}`)
	f.Add(200, `{"results":[{"index":0,"status":"error","error":{"code":"22012","message":"m"}},{"index":1,"explain":{"plan":{"operator":"P"}}}],"total_time_ms":1}`)
	f.Add(429, `{"error":{"code":"RATE_LIMIT_EXCEEDED","message":"m","retry_after":3600}}`)
	f.Add(400, `{"error":{"code":"42000","details":{"position":{"line":1,"column":2}}}}`)
	f.Add(200, `{"schema":{"fields":[]},"data":[1]}`)
	f.Fuzz(func(t *testing.T, status int, body string) {
		if status < 100 || status > 599 {
			return
		}
		c := client.NewHTTP("http://fuzz.invalid", client.WithHTTPClient(&http.Client{Transport: answerTransport{status, body}}))
		ctx := context.Background()
		if res, err := c.Query(ctx, "RETURN 1", nil); err == nil {
			for _, row := range res.Rows {
				if len(row) != len(res.Columns) {
					t.Fatalf("row %v for columns %v", row, res.Columns)
				}
			}
		}
		_, _ = c.Explain(ctx, "RETURN 1", nil)
		_, _ = c.Batch(ctx, []client.Statement{{Query: "RETURN 1"}}, false)
		_, _ = c.Begin(ctx, "", 0)
		_, _ = c.Status(ctx)
	})
}
