package http

import (
	"fmt"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// batchBody builds a batch request of the statements given.
func batchBody(transaction bool, queries ...string) string {
	list := make([]map[string]any, len(queries))
	for i, q := range queries {
		list[i] = map[string]any{"query": q}
	}
	return jsonString(map[string]any{"queries": list, "transaction": transaction})
}

// entries returns a batch answer's results, checking that each has its
// position as index.
func entries(t *testing.T, out map[string]any) []map[string]any {
	t.Helper()
	list, ok := out["results"].([]any)
	if !ok {
		t.Fatalf("no results: %v", out)
	}
	if out["total_time_ms"] == nil {
		t.Errorf("no total_time_ms: %v", out)
	}
	res := make([]map[string]any, len(list))
	for i, e := range list {
		res[i] = e.(map[string]any)
		if jsonString(res[i]["index"]) != fmt.Sprint(i) {
			t.Errorf("entry %d has index %v", i, res[i]["index"])
		}
	}
	return res
}

// A transactional batch applies all its statements or none: the first
// failure rolls it back and is the answer, naming the statement.
func TestBatchTransaction(t *testing.T) {
	a := newTxAPI(t, Config{}, engine.Options{})
	a.auto("CREATE (:B {i: 1}), (:B {i: 2})")
	status, out := a.post("/api/v1/batch", batchBody(true,
		"CREATE (:B {i: 3})", "MATCH (b:B) WHERE b.i < 3 SET b.big = true",
		"MATCH (b:B) RETURN b.i AS i, b.big AS big ORDER BY i"))
	if status != 200 {
		t.Fatalf("batch: %d %v", status, out)
	}
	res := entries(t, out)
	if len(res) != 3 {
		t.Fatalf("%d results", len(res))
	}
	for i, want := range []string{"1", "2"} {
		meta := res[i]["metadata"].(map[string]any)
		if res[i]["status"] != "success" || jsonString(meta["rows_affected"]) != want {
			t.Errorf("entry %d: %v", i, res[i])
		}
	}
	if got := jsonString(res[2]["data"]); got != `[{"big":true,"i":1},{"big":true,"i":2},{"big":null,"i":3}]` {
		t.Errorf("the read sees the batch's writes: %s", got)
	}
	if got := jsonString(res[2]["schema"]); !strings.Contains(got, `"name":"i"`) {
		t.Errorf("schema of the read: %s", got)
	}
	if got := a.auto("MATCH (b:B) RETURN count(*) AS n"); got != `[{"n":3}]` {
		t.Errorf("after the batch: %s", got)
	}

	// A statement failing at run time: 400 / 22012 naming index 1.
	status, out = a.post("/api/v1/batch", batchBody(true,
		"CREATE (:B {i: 4})", "MATCH (b:B) RETURN b.i / 0", "CREATE (:B {i: 5})"))
	wantError(t, "a failing statement", status, out, 400, "22012", "statement 1", "nothing was applied")
	if d, _ := out["error"].(map[string]any)["details"].(map[string]any); jsonString(d["index"]) != "1" || d["query"] != "MATCH (b:B) RETURN b.i / 0" {
		t.Errorf("details: %v", d)
	}
	// A syntax error in the last statement, with its position.
	status, out = a.post("/api/v1/batch", batchBody(true, "CREATE (:B {i: 6})", "MATCH (b:B)\nRETRUN b"))
	wantError(t, "a syntax error", status, out, 400, "42000")
	if d, _ := out["error"].(map[string]any)["details"].(map[string]any); jsonString(d["index"]) != "1" || jsonString(d["position"]) != `{"column":1,"line":2}` {
		t.Errorf("details: %v", d)
	}
	// A UNIQUE constraint is checked at commit: 409 / 23000, without an
	// index.
	a.auto("CREATE CONSTRAINT b_i ON (b:B) ASSERT b.i IS UNIQUE")
	status, out = a.post("/api/v1/batch", batchBody(true, "CREATE (:B {i: 7})", "CREATE (:B {i: 1})"))
	wantError(t, "a constraint violation", status, out, 409, "23000", "did not commit", "nothing was applied")
	if d, ok := out["error"].(map[string]any)["details"]; ok {
		t.Errorf("a failed commit names a statement: %v", d)
	}
	if got := a.auto("MATCH (b:B) RETURN b.i AS i ORDER BY i"); got != `[{"i":1},{"i":2},{"i":3}]` {
		t.Errorf("failed batches applied something: %s", got)
	}

	// The isolation level may be named; SERIALIZABLE batches commit like
	// any other when nothing conflicts.
	body := `{"transaction":true,"isolation_level":"SERIALIZABLE","queries":[{"query":"MATCH (b:B {i: $i}) SET b.s = $s","parameters":{"i":1,"s":"x"}}]}`
	if status, out := a.post("/api/v1/batch", body); status != 200 || entries(t, out)[0]["status"] != "success" {
		t.Errorf("a SERIALIZABLE batch: %d %v", status, out)
	}
	if got := a.auto("MATCH (b:B {i: 1}) RETURN b.s AS s"); got != `[{"s":"x"}]` {
		t.Errorf("the parameters of a batch statement: %s", got)
	}
	// A transactional batch is one session: a SET lasts for the
	// statements after it. Without a transaction each statement is a
	// session of its own.
	for _, c := range []struct {
		transaction bool
		want        string
	}{{true, `[{"name":"query_timeout","value":"1234"}]`}, {false, `[{"name":"query_timeout","value":"0"}]`}} {
		status, out := a.post("/api/v1/batch", batchBody(c.transaction, "SET query_timeout = 1234", "SHOW query_timeout"))
		if got := jsonString(entries(t, out)[1]["data"]); status != 200 || got != c.want {
			t.Errorf("SET then SHOW, transaction %v: %d %s, want %s", c.transaction, status, got, c.want)
		}
	}
}

// Without a transaction, each statement commits on its own: a failure is
// its entry's error and the others still run; the answer is 200.
func TestBatchAutoCommit(t *testing.T) {
	a := newTxAPI(t, Config{}, engine.Options{})
	status, out := a.post("/api/v1/batch", batchBody(false,
		"CREATE (:A {i: 1})", "RETURN 1/0", "CREATE (:A {i: 2})", "RETRUN 1",
		"MATCH (a:A) RETURN count(*) AS n", "EXPLAIN MATCH (a:A) RETURN a"))
	if status != 200 {
		t.Fatalf("batch: %d %v", status, out)
	}
	res := entries(t, out)
	if len(res) != 6 {
		t.Fatalf("%d results", len(res))
	}
	for _, i := range []int{0, 2} {
		if res[i]["status"] != "success" || jsonString(res[i]["metadata"].(map[string]any)["rows_affected"]) != "1" {
			t.Errorf("entry %d: %v", i, res[i])
		}
	}
	for i, code := range map[int]string{1: "22012", 3: "42000"} {
		e, _ := res[i]["error"].(map[string]any)
		if res[i]["status"] != "error" || e["code"] != code || e["category"] == nil || e["message"] == "" {
			t.Errorf("entry %d: %v, want an error %s", i, res[i], code)
		}
		if _, ok := res[i]["data"]; ok {
			t.Errorf("entry %d: a failed statement has data: %v", i, res[i])
		}
	}
	if d := res[3]["error"].(map[string]any)["details"].(map[string]any); jsonString(d["position"]) != `{"column":1,"line":1}` {
		t.Errorf("the syntax error's details: %v", d)
	}
	if res[4]["status"] != "success" || jsonString(res[4]["data"]) != `[{"n":2}]` {
		t.Errorf("a read after the failures: %v", res[4])
	}
	if plan, _ := res[5]["explain"].(map[string]any); res[5]["status"] != "success" || plan["plan"] == nil {
		t.Errorf("an EXPLAIN in a batch: %v", res[5])
	}
	if got := a.auto("MATCH (a:A) RETURN count(*) AS n"); got != `[{"n":2}]` {
		t.Errorf("after the batch: %s", got)
	}
}

// Results larger than a chunk stream entry by entry; a statement that
// fails after some of its rows were sent ends its entry with the error.
// A transactional batch's results are bounded.
func TestBatchLargeResults(t *testing.T) {
	a := newTxAPI(t, Config{MaxBatchResultBytes: 1 << 20}, engine.Options{})
	// About 1.3 MB, then a failure after 500 KB of rows, then a write.
	status, out := a.post("/api/v1/batch", batchBody(false,
		"UNWIND range(1, 100000) AS i RETURN i, 'pad' AS p",
		"UNWIND range(1, 100000) AS i RETURN 10 / (50000 - i) AS x",
		"CREATE (:L)", "MATCH (l:L) RETURN count(*) AS n"))
	if status != 200 {
		t.Fatalf("batch: %d %v", status, out)
	}
	res := entries(t, out)
	if len(res) != 4 || res[0]["status"] != "success" || len(res[0]["data"].([]any)) != 100000 {
		t.Fatalf("the large entry: %d results, %v", len(res), res[0]["status"])
	}
	e, _ := res[1]["error"].(map[string]any)
	if res[1]["status"] != "error" || e["code"] != "22012" || len(res[1]["data"].([]any)) == 0 {
		t.Errorf("the entry failing mid-stream: status %v, error %v, %d rows", res[1]["status"], e, len(res[1]["data"].([]any)))
	}
	if res[2]["status"] != "success" || jsonString(res[3]["data"]) != `[{"n":1}]` {
		t.Errorf("the statements after: %v %v", res[2], res[3])
	}

	// In a transaction: past MaxBatchResultBytes the batch is refused
	// and rolled back.
	status, out = a.post("/api/v1/batch", batchBody(true,
		"CREATE (:L)", "UNWIND range(1, 100000) AS i RETURN i, 'pad' AS p"))
	wantError(t, "too large a transactional batch", status, out, 507, "53200", "nothing was applied")
	if d := out["error"].(map[string]any)["details"].(map[string]any); jsonString(d["index"]) != "1" {
		t.Errorf("details: %v", d)
	}
	status, out = a.post("/api/v1/batch", batchBody(true,
		"CREATE (:L)", "UNWIND range(1, 10000) AS i RETURN i, 'pad' AS p"))
	if status != 200 || len(entries(t, out)[1]["data"].([]any)) != 10000 {
		t.Errorf("a transactional batch within the bound: %d", status)
	}
	if got := a.auto("MATCH (l:L) RETURN count(*) AS n"); got != `[{"n":2}]` {
		t.Errorf("after the batches: %s", got)
	}
}

func TestBatchRequestErrors(t *testing.T) {
	a := newTxAPI(t, Config{MaxBodyBytes: 64 << 10}, engine.Options{})
	many := make([]string, MaxBatchQueries+1)
	for i := range many {
		many[i] = "RETURN 1"
	}
	cases := []struct {
		name, body string
		status     int
		code       string
		index      string
	}{
		{"empty body", ``, 400, "22000", ""},
		{"not an object", `[]`, 400, "22000", ""},
		{"no queries", `{"transaction":true}`, 400, "22000", ""},
		{"queries not an array", `{"queries":"RETURN 1"}`, 400, "22000", ""},
		{"empty queries", `{"queries":[]}`, 400, "22000", ""},
		{"statement not an object", `{"queries":[{"query":"RETURN 1"},"RETURN 2"]}`, 400, "22000", "1"},
		{"statement without query", `{"queries":[{"query":"RETURN 1"},{"query":"RETURN 2"},{"parameters":{}}]}`, 400, "22000", "2"},
		{"empty query", `{"queries":[{"query":""}]}`, 400, "22000", "0"},
		{"parameters not an object", `{"queries":[{"query":"RETURN 1","parameters":1}]}`, 400, "22000", "0"},
		{"transaction not a boolean", `{"queries":[{"query":"RETURN 1"}],"transaction":"yes"}`, 400, "22000", ""},
		{"unknown level", `{"queries":[{"query":"RETURN 1"}],"transaction":true,"isolation_level":"CHAOS"}`, 400, "22023", ""},
		{"level without a transaction", `{"queries":[{"query":"RETURN 1"}],"isolation_level":"SERIALIZABLE"}`, 400, "22000", ""},
		{"too many statements", batchBody(false, many...), 400, "22000", ""},
	}
	for _, c := range cases {
		status, out := a.post("/api/v1/batch", c.body)
		wantError(t, c.name, status, out, c.status, c.code)
		d, _ := out["error"].(map[string]any)["details"].(map[string]any)
		if got := jsonString(d["index"]); c.index != "" && got != c.index || c.index == "" && d["index"] != nil {
			t.Errorf("%s: details.index %s, want %q", c.name, got, c.index)
		}
	}
	if status, out := a.post("/api/v1/batch", batchBody(false, many[:MaxBatchQueries]...)); status != 200 || len(entries(t, out)) != MaxBatchQueries {
		t.Errorf("a batch at the limit: %d", status)
	}
	// A body over the limit is 413. The server answers from the header and
	// closes without reading the body, so the body is kept small enough
	// for the client to finish writing it into the socket first.
	small := newTxAPI(t, Config{MaxBodyBytes: 1 << 10}, engine.Options{})
	status, out := small.post("/api/v1/batch", batchBody(true, "RETURN '"+strings.Repeat("x", 2<<10)+"'"))
	wantError(t, "body too large", status, out, 413, "22000")
}
