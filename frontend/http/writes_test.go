package http

import (
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// TestWriteCounters: the metadata of SET, REMOVE, DELETE and MERGE
// statements reports their side-effect counters and rows_affected.
func TestWriteCounters(t *testing.T) {
	base := startServer(t, Config{}, openDB(t, engine.Options{}))
	run := func(q string) map[string]any {
		t.Helper()
		status, out, _ := call(t, "POST", base+"/api/v1/query", `{"query":"`+q+`"}`)
		if status != 200 {
			t.Fatalf("%s: %d %v", q, status, out)
		}
		return out["metadata"].(map[string]any)
	}
	want := func(q string, meta map[string]any, kv map[string]string) {
		t.Helper()
		for k, v := range kv {
			if got := jsonString(meta[k]); got != v {
				t.Errorf("%s: %s = %s, want %s (%v)", q, k, got, v, meta)
			}
		}
	}
	q := "CREATE (:A {x: 1})-[:R]->(:B), (:C)"
	want(q, run(q), map[string]string{"nodes_created": "3", "relationships_created": "1", "rows_affected": "4"})
	q = "MATCH (n:A) SET n.y = 2, n.x = null, n:Z"
	want(q, run(q), map[string]string{"properties_set": "1", "properties_removed": "1", "labels_added": "1", "rows_affected": "1"})
	q = "MATCH (n:Z) REMOVE n:Z"
	want(q, run(q), map[string]string{"labels_removed": "1", "rows_affected": "1"})
	q = "MATCH (n:A) DETACH DELETE n"
	want(q, run(q), map[string]string{"nodes_deleted": "1", "relationships_deleted": "1", "rows_affected": "2"})
	q = "MERGE (n:C) ON MATCH SET n.seen = true"
	want(q, run(q), map[string]string{"nodes_created": "0", "properties_set": "1", "rows_affected": "1"})

	// Deleting a node that still has relationships: 409 with 23000.
	run("CREATE (:D)-[:R]->(:E)")
	status, out, _ := call(t, "POST", base+"/api/v1/query", `{"query":"MATCH (n:D) DELETE n"}`)
	if status != 409 || !strings.Contains(jsonString(out), "23000") {
		t.Errorf("DELETE of a connected node: %d %v, want 409", status, out)
	}
}
