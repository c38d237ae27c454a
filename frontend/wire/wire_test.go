package wire

import (
	"regexp"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

func TestHelloWelcome(t *testing.T) {
	_, addr := startTCP(t, Config{}, openDB(t))
	c := dialRaw(t, addr)
	w := c.hello()
	if w["version"] != "1.0" || w["server"] != "test-version" {
		t.Errorf("WELCOME %v", w)
	}
	if !regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`).MatchString(w["session_id"].(string)) {
		t.Errorf("session_id %v is not a UUID", w["session_id"])
	}
	caps := w["capabilities"].(map[string]any)
	if num(t, caps["max_query_size"]) != 1048576 {
		t.Errorf("max_query_size %v", caps["max_query_size"])
	}
	levels := caps["supported_isolation_levels"].([]any)
	if len(levels) != 3 || levels[0] != "READ_COMMITTED" || levels[2] != "SERIALIZABLE" {
		t.Errorf("isolation levels %v", levels)
	}
	if w2 := dialRaw(t, addr).hello(); w2["session_id"] == w["session_id"] {
		t.Errorf("two sessions share the id %v", w["session_id"])
	}
	c.send(`{"type":"PING"}`)
	if m := c.expect("SUCCESS"); len(m) != 1 {
		t.Errorf("PING answered %v", m)
	}
}

func TestRunReadsAndWrites(t *testing.T) {
	_, addr := startTCP(t, Config{}, openDB(t))
	c := dial(t, addr)
	r := c.ok(`CREATE (:P {name: 'a', n: 1}), (:P {name: 'b', n: 9007199254740993})`)
	if num(t, r.summary["nodes_created"]) != 2 || num(t, r.summary["properties_set"]) != 4 || num(t, r.summary["rows"]) != 0 {
		t.Errorf("write summary %v", r.summary)
	}
	if _, ok := r.summary["time_ms"]; !ok {
		t.Errorf("summary has no time_ms: %v", r.summary)
	}
	r = c.run(`MATCH (p:P) WHERE p.n >= $min RETURN p.name AS name, p.n AS n, p ORDER BY n`,
		map[string]any{"params": map[string]any{"min": 1}})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if len(r.fields) != 3 || r.fields[0].(map[string]any)["name"] != "name" || r.fields[1].(map[string]any)["type"] != "INTEGER" {
		t.Errorf("SCHEMA fields %v", r.fields)
	}
	if len(r.rows) != 2 || r.rows[0]["name"] != "a" || r.rows[1]["n"].(interface{ String() string }).String() != "9007199254740993" {
		t.Errorf("rows %v", r.rows)
	}
	node := r.rows[0]["p"].(map[string]any)
	if node["labels"].([]any)[0] != "P" || node["properties"].(map[string]any)["name"] != "a" {
		t.Errorf("node %v", node)
	}
	if num(t, r.summary["rows"]) != 2 {
		t.Errorf("summary %v", r.summary)
	}
	if _, ok := r.summary["nodes_created"]; ok {
		t.Errorf("a read reports write counts: %v", r.summary)
	}
	r = c.run(`MATCH (p:P) RETURN count(p) AS c`, map[string]any{"options": map[string]any{"include_stats": true}})
	for _, k := range []string{"nodes_scanned", "index_hits", "memory_peak_bytes"} {
		if _, ok := r.summary[k]; !ok {
			t.Errorf("include_stats: summary has no %s: %v", k, r.summary)
		}
	}
	// An engine error keeps its code and position.
	r = c.run("MATCH (n)\nRETURN m", nil)
	if r.err == nil || r.err["code"] != engine.CodeSyntax {
		t.Fatalf("got %v, want a 42000 ERROR", r.err)
	}
	pos, ok := r.err["position"].(map[string]any)
	if !ok || num(t, pos["line"]) != 2 {
		t.Errorf("ERROR position %v", r.err)
	}
	if r.fields != nil {
		t.Error("a failed query sent SCHEMA")
	}
	c.ok(`RETURN 1 AS one`) // the session goes on
}

func TestExplainAndProfile(t *testing.T) {
	_, addr := startTCP(t, Config{}, openDB(t))
	c := dial(t, addr)
	c.ok(`CREATE (:P {n: 1}), (:P {n: 2})`)
	r := c.ok(`EXPLAIN MATCH (p:P) RETURN p.n`)
	if r.explain == nil || r.fields != nil || len(r.rows) != 0 {
		t.Fatalf("EXPLAIN answered %+v", r)
	}
	plan, ok := r.explain["plan"].(map[string]any)
	if !ok || plan["operator"] == nil || r.explain["estimated_rows"] == nil {
		t.Errorf("EXPLAIN %v", r.explain)
	}
	r = c.ok(`PROFILE MATCH (p:P) RETURN p.n AS n`)
	if r.profile == nil || len(r.rows) != 2 {
		t.Fatalf("PROFILE answered %+v", r)
	}
	ops, ok := r.profile["operators"].([]any)
	if !ok || len(ops) == 0 || r.profile["total_time_ms"] == nil {
		t.Errorf("PROFILE %v", r.profile)
	}
}

// SET lasts for the session, and only within the operator's limit.
func TestSessionSettings(t *testing.T) {
	db, err := engine.Open(t.TempDir(), engine.Options{QueryTimeout: 60_000_000_000})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, addr := startTCP(t, Config{}, db)
	a, b := dial(t, addr), dial(t, addr)
	a.ok(`SET query_timeout = 5000`)
	if r := a.ok(`SHOW query_timeout`); !strings.Contains(r.rows[0]["value"].(string), "5000") {
		t.Errorf("session a: %v", r.rows)
	}
	if r := b.ok(`SHOW query_timeout`); strings.Contains(r.rows[0]["value"].(string), "5000") {
		t.Errorf("session b sees a's SET: %v", r.rows)
	}
	if r := a.run(`SET query_timeout = 0`, nil); r.err == nil || r.err["code"] != engine.CodePermission {
		t.Errorf("raising the limit: %v", r.err)
	}
}
