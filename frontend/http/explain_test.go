package http

import (
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// graphServer serves a database holding 3 Person nodes and 2 KNOWS
// relationships (a->b, b->c).
func graphServer(t *testing.T) (string, *engine.DB) {
	t.Helper()
	db := openDB(t, engine.Options{})
	base := startServer(t, Config{}, db)
	q := `{"query":"CREATE (a:Person {name: 'a'}), (b:Person {name: 'b'}), (c:Person {name: 'c'}), (a)-[:KNOWS]->(b), (b)-[:KNOWS]->(c)"}`
	if status, out, _ := call(t, "POST", base+"/api/v1/query", q); status != 200 {
		t.Fatalf("%d %v", status, out)
	}
	return base, db
}

// The plan shape is the same from the endpoint, the flag and the prefix.
func TestExplainEndpointFlagAndPrefix(t *testing.T) {
	base, _ := graphServer(t)
	query := "MATCH (p:Person)-[:KNOWS]->(q) RETURN q.name AS name"
	for _, req := range []struct{ path, body string }{
		{"/api/v1/query/explain", `{"query":"` + query + `","parameters":{}}`},
		{"/api/v1/query", `{"query":"` + query + `","explain":true}`},
		{"/api/v1/query", `{"query":"EXPLAIN ` + query + `"}`},
		// explain wins over profile: it promises not to run.
		{"/api/v1/query", `{"query":"` + query + `","explain":true,"profile":true}`},
	} {
		status, out, _ := call(t, "POST", base+req.path, req.body)
		if status != 200 {
			t.Fatalf("%s %s: %d %v", req.path, req.body, status, out)
		}
		if out["data"] != nil {
			t.Errorf("%s: EXPLAIN returned data: %v", req.body, out["data"])
		}
		// 3 Person of 3 nodes; 2 KNOWS over 3 nodes: 3 × 2/3 = 2 rows.
		// Costs: scan 3, expand 3 + 2, project 2.
		if jsonString(out["estimated_rows"]) != "2.0" || jsonString(out["estimated_total_cost"]) != "10.0" {
			t.Errorf("%s: estimates %v %v", req.body, out["estimated_rows"], out["estimated_total_cost"])
		}
		plan := out["plan"].(map[string]any)
		if plan["operator"] != "Project" || jsonString(plan["columns"]) != `["name"]` {
			t.Errorf("root = %v", plan)
		}
		expand := plan["children"].([]any)[0].(map[string]any)
		if expand["operator"] != "Expand" || expand["pattern"] != "(p)-[:KNOWS]->(q)" {
			t.Errorf("expand = %v", expand)
		}
		scan := expand["children"].([]any)[0].(map[string]any)
		if scan["operator"] != "NodeScan" || scan["label"] != "Person" || jsonString(scan["estimated_rows"]) != "3.0" ||
			jsonString(scan["estimated_cost"]) != "3.0" || jsonString(scan["children"]) != "[]" {
			t.Errorf("scan = %v", scan)
		}
		if _, ok := scan["index_used"]; ok {
			t.Errorf("scan reports an index: %v", scan)
		}
	}
	// The rules that changed the plan: constant folding here, none above
	// but the physical strategy of running the pipeline on workers.
	if status, out, _ := call(t, "POST", base+"/api/v1/query/explain", `{"query":"RETURN [1, 2] AS l"}`); status != 200 || jsonString(out["rules"]) != `["constant-fold"]` {
		t.Errorf("rules: %d %v", status, out["rules"])
	}
	if _, out, _ := call(t, "POST", base+"/api/v1/query/explain", `{"query":"`+query+`"}`); jsonString(out["rules"]) != `["parallel"]` {
		t.Errorf("rules of a plan no rule changed: %v", out["rules"])
	}
	// EXPLAIN of a write over HTTP changes nothing.
	if status, out, _ := call(t, "POST", base+"/api/v1/query/explain", `{"query":"CREATE (:Ghost)"}`); status != 200 || out["plan"] == nil {
		t.Fatalf("%d %v", status, out)
	}
	_, out, _ := call(t, "POST", base+"/api/v1/query", `{"query":"MATCH (n:Ghost) RETURN count(*) AS c"}`)
	if jsonString(out["data"]) != `[{"c":0}]` {
		t.Errorf("after EXPLAIN CREATE: %v", out["data"])
	}
}

func TestProfileEndpointFlagAndPrefix(t *testing.T) {
	base, _ := graphServer(t)
	query := "MATCH (p:Person)-[:KNOWS]->(q) WHERE q.name = 'b' RETURN count(DISTINCT q) AS n"
	for _, req := range []struct{ path, body string }{
		{"/api/v1/query/profile", `{"query":"` + query + `"}`},
		{"/api/v1/query", `{"query":"` + query + `","profile":true}`},
		{"/api/v1/query", `{"query":"PROFILE ` + query + `"}`},
	} {
		status, out, _ := call(t, "POST", base+req.path, req.body)
		if status != 200 {
			t.Fatalf("%s %s: %d %v", req.path, req.body, status, out)
		}
		if jsonString(out["data"]) != `[{"n":1}]` || out["schema"] == nil || out["metadata"] == nil {
			t.Errorf("%s: %v", req.body, out)
		}
		prof := out["profile"].(map[string]any)
		if _, ok := prof["total_time_ms"]; !ok {
			t.Errorf("no total_time_ms: %v", prof)
		}
		var got []string
		for _, o := range prof["operators"].([]any) {
			op := o.(map[string]any)
			if _, ok := op["time_ms"]; !ok {
				t.Errorf("no time_ms: %v", op)
			}
			got = append(got, op["name"].(string)+":"+jsonString(op["rows_processed"])+":"+jsonString(op["db_hits"]))
		}
		// count(DISTINCT q): a plain count(*) of this shape is answered by
		// one CountExpand (rule count-filter), with no operator a row each.
		// Rows: 3 Person, 2 KNOWS edges, 1 named b, 1 count row.
		// Hits: 3 ids; 3 lists + 2 entries; 2 names read.
		if want := "Project:1:0 Aggregate:1:0 Filter:1:2 Expand:2:5 NodeScan:3:3"; strings.Join(got, " ") != want {
			t.Errorf("%s: operators %v, want %s", req.body, got, want)
		}
	}
	// A plain query has no profile.
	_, out, _ := call(t, "POST", base+"/api/v1/query", `{"query":"RETURN 1 AS x"}`)
	if _, ok := out["profile"]; ok {
		t.Errorf("profile without asking: %v", out)
	}
}

// SET over HTTP lasts for its request: a request is its own session, and
// it can neither loosen the operator's limits nor change them for other
// clients. The operator's limits hold: a query past max_memory_per_query
// answers 507/53200, past query_timeout 408/40003, and the server stays
// healthy.
func TestSessionStatementsOverHTTP(t *testing.T) {
	base, db := graphServer(t)
	status, out, _ := call(t, "POST", base+"/api/v1/query", `{"query":"SET max_memory_per_query = '1MB'"}`)
	if status != 200 || jsonString(out["data"]) != `[{"name":"max_memory_per_query","value":"1MB"}]` {
		t.Fatalf("SET: %d %v", status, out)
	}
	status, out, _ = call(t, "POST", base+"/api/v1/query", `{"query":"SHOW max_memory_per_query"}`)
	if status != 200 || jsonString(out["data"]) != `[{"name":"max_memory_per_query","value":"1GB"}]` {
		t.Fatalf("a request's SET outlived it: %d %v", status, out)
	}
	status, out, _ = call(t, "POST", base+"/api/v1/query", `{"query":"SET max_connections = 1"}`)
	if e, _ := out["error"].(map[string]any); status != 403 || e["code"] != "42501" {
		t.Fatalf("SET max_connections: %d %v", status, out)
	}
	if err := db.Settings().Set("max_memory_per_query", int64(1<<20)); err != nil {
		t.Fatal(err)
	}
	list := "[" + strings.TrimSuffix(strings.Repeat("1,", 200000), ",") + "]"
	status, out, _ = call(t, "POST", base+"/api/v1/query", `{"query":"UNWIND $l AS x RETURN collect(x) AS c","parameters":{"l":`+list+`}}`)
	e, _ := out["error"].(map[string]any)
	if status != 507 || e["code"] != "53200" || e["category"] != "RESOURCE_EXHAUSTED" {
		t.Fatalf("over the memory limit: %d %v", status, out)
	}
	status, out, _ = call(t, "POST", base+"/api/v1/query", `{"query":"SET max_memory_per_query = '2MB'"}`)
	if e, _ := out["error"].(map[string]any); status != 403 || e["code"] != "42501" {
		t.Fatalf("raising the operator's limit: %d %v", status, out)
	}
	if err := db.Settings().Set("query_timeout", int64(50)); err != nil {
		t.Fatal(err)
	}
	small := "[" + strings.TrimSuffix(strings.Repeat("1,", 1000), ",") + "]"
	status, out, _ = call(t, "POST", base+"/api/v1/query", `{"query":"UNWIND $l AS a UNWIND $l AS b UNWIND $l AS c RETURN count(*) AS n","parameters":{"l":`+small+`}}`)
	e, _ = out["error"].(map[string]any)
	if status != 408 || e["code"] != "40003" {
		t.Fatalf("over the time limit: %d %v", status, out)
	}
	status, out, _ = call(t, "POST", base+"/api/v1/query", `{"query":"SHOW query_timout"}`)
	e, _ = out["error"].(map[string]any)
	if status != 400 || e["code"] != "42000" || jsonString(e["details"].(map[string]any)["suggestion"]) != `"query_timeout"` {
		t.Errorf("unknown parameter: %d %v", status, out)
	}
	if status, _, _ := call(t, "GET", base+"/api/v1/health", ""); status != 200 {
		t.Fatalf("health: %d", status)
	}
	status, out, _ = call(t, "POST", base+"/api/v1/query", `{"query":"SHOW FUNCTIONS"}`)
	fields := jsonString(out["schema"].(map[string]any)["fields"])
	if status != 200 || fields != `[{"name":"name","type":"STRING"},{"name":"signature","type":"STRING"},{"name":"description","type":"STRING"}]` {
		t.Errorf("SHOW FUNCTIONS: %d %s", status, fields)
	}
}
