package wire

import "testing"

// A session's USE holds for its later statements; "graph" in RUN_GQL and
// BEGIN chooses one for that message; a transaction stays on its graph.
func TestGraphs(t *testing.T) {
	db := openDB(t)
	_, addr := startTCP(t, Config{}, db)
	a, b := dial(t, addr), dial(t, addr)
	count := func(c *tconn, extra map[string]any) int64 {
		t.Helper()
		r := c.run(`MATCH (n) RETURN count(n) AS c`, extra)
		if r.err != nil {
			t.Fatalf("count: %v", r.err)
		}
		return num(t, r.rows[0]["c"])
	}
	a.ok(`CREATE GRAPH g`)
	a.ok(`USE g`)
	a.ok(`CREATE (:X), (:X)`)
	if n := count(a, nil); n != 2 {
		t.Fatalf("after USE g the session counts %d nodes, want 2", n)
	}
	if n := count(b, nil); n != 0 {
		t.Fatalf("another session, on the default graph, counts %d", n)
	}
	if n := count(b, map[string]any{"graph": "g"}); n != 2 {
		t.Fatalf("RUN_GQL graph g counts %d", n)
	}
	if n := count(a, map[string]any{"graph": "default"}); n != 0 {
		t.Fatalf("RUN_GQL graph default over the session's USE counts %d", n)
	}

	// BEGIN without graph takes the session's; with one, that graph.
	a.send(`{"type":"BEGIN"}`)
	a.expect("SUCCESS")
	a.ok(`CREATE (:X)`)
	if r := a.run(`USE default RETURN 1`, nil); r.err == nil || r.err["code"] != "40000" {
		t.Fatalf("a statement naming another graph in the transaction: %v", r.err)
	}
	a.send(`{"type":"ROLLBACK"}`)
	a.expect("SUCCESS")
	b.send(`{"type":"BEGIN","graph":"g"}`)
	b.expect("SUCCESS")
	b.ok(`CREATE (:X)`)
	b.send(`{"type":"COMMIT"}`)
	b.expect("SUCCESS")
	if n := count(a, nil); n != 3 {
		t.Fatalf("after b's commit on g: %d nodes", n)
	}
	b.send(`{"type":"BEGIN","graph":"nope"}`)
	b.expectError("42S02")
	if r := a.run(`RETURN 1`, map[string]any{"graph": 3}); r.err == nil || r.err["code"] != "22000" {
		t.Fatalf("graph not a string: %v", r.err)
	}
}
