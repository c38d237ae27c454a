package http

import (
	"fmt"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// "graph" in a query, batch or begin body chooses the graph; status
// ?graph=name answers that graph's counts; an unknown graph is a 42S02
// error.
func TestGraphField(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	base := startServer(t, Config{}, db)
	post := func(path, body string) (int, map[string]any) {
		status, out, _ := call(t, "POST", base+path, body)
		return status, out
	}
	if st, out := post("/api/v1/query", `{"query":"CREATE GRAPH sales"}`); st != 200 {
		t.Fatalf("create: %d %v", st, out)
	}
	if st, out := post("/api/v1/query", `{"query":"CREATE (:S), (:S)","graph":"sales"}`); st != 200 {
		t.Fatalf("write: %d %v", st, out)
	}
	if st, out := post("/api/v1/batch", `{"queries":[{"query":"CREATE (:S)"}],"transaction":true,"graph":"sales"}`); st != 200 {
		t.Fatalf("batch: %d %v", st, out)
	}
	st, out := post("/api/v1/transaction/begin", `{"graph":"sales"}`)
	id, _ := out["transaction_id"].(string)
	if st != 200 || id == "" {
		t.Fatalf("begin: %d %v", st, out)
	}
	post("/api/v1/transaction/"+id+"/query", `{"query":"CREATE (:S)"}`)
	if st, out := post("/api/v1/transaction/"+id+"/commit", ``); st != 200 {
		t.Fatalf("commit: %d %v", st, out)
	}
	_, out = post("/api/v1/query", `{"query":"MATCH (n) RETURN count(n) AS c","graph":"sales"}`)
	if got := fmt.Sprint(out["data"]); got != "[map[c:4]]" {
		t.Fatalf("sales holds %s, want 4 nodes", got)
	}
	_, out = post("/api/v1/query", `{"query":"MATCH (n) RETURN count(n) AS c"}`)
	if got := fmt.Sprint(out["data"]); got != "[map[c:0]]" {
		t.Fatalf("the default graph holds %s, want none", got)
	}
	st, out = post("/api/v1/query", `{"query":"RETURN 1","graph":"nope"}`)
	if e, _ := out["error"].(map[string]any); st == 200 || e["code"] != "42S02" {
		t.Fatalf("unknown graph: %d %v", st, out)
	}
	if st, out := post("/api/v1/query", `{"query":"RETURN 1","graph":7}`); st != 400 {
		t.Fatalf("graph not a string: %d %v", st, out)
	}
	for graph, want := range map[string]string{"": "0", "sales": "4", "default": "0"} {
		_, out, _ = call(t, "GET", base+"/api/v1/status?graph="+graph, "")
		stats, _ := out["statistics"].(map[string]any)
		if got := fmt.Sprint(stats["total_nodes"]); got != want {
			t.Fatalf("status of graph %q: %s nodes, want %s", graph, got, want)
		}
	}
	if st, out, _ := call(t, "GET", base+"/api/v1/status?graph=nope", ""); st != 400 || fmt.Sprint(out["error"].(map[string]any)["code"]) != "42S02" {
		t.Fatalf("status of an unknown graph: %d %v", st, out)
	}
}
