package engine_test

import (
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// The field-level encryption model test: over the metamorphic random
// graph with A.x (deterministic, indexed) and B.name (randomized)
// encrypted, a principal holding both keys reads what an unencrypted
// copy answers, and a principal holding neither reads what the copy
// answers once those values are removed (null: the default policy).

func TestFieldEncryptionModelRandomGraph(t *testing.T) {
	t.Parallel() // beside the other model tests (metamorphic_test.go)
	rng := metaRand(t, 11)
	nodes, rels := metaGraph(rng)
	queries := metaQueries(rng)
	queries = append(queries,
		"MATCH (n:A) WHERE n.x = 42 RETURN n.uid ORDER BY n.uid",
		"MATCH (n:A {x: 7}) RETURN count(*)",
		"MATCH (n:A:B) WHERE n.x = 3 AND n.name = 'ann' RETURN n.uid ORDER BY n.uid",
		"MATCH (n) WHERE n.x IN [1, 2, 3] RETURN count(*)",
		"MATCH (n:B) RETURN n.name, count(*) ORDER BY n.name",
		"MATCH (n:A) RETURN min(n.x), max(n.x), sum(n.x), count(n.x), count(DISTINCT n.x)",
		"MATCH (n:A) RETURN n.uid, n.x ORDER BY n.x DESC, n.uid LIMIT 15",
		"MATCH (n:B) WHERE n.name STARTS WITH 'b' RETURN count(*)",
		"MATCH (n:A) RETURN n.uid, properties(n) ORDER BY n.uid LIMIT 20",
		"MATCH (n:B) RETURN n.uid, n{.*} ORDER BY n.uid LIMIT 20",
		"MATCH (n:A)-[r]->(m:B) RETURN n.x, m.name, count(*) ORDER BY n.x, m.name",
		"MATCH (n) RETURN n.uid, n ORDER BY n.uid LIMIT 30",
	)
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{Encryption: tdeKey(9)})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := engine.LoadForTest(db, nodes, rels); err != nil {
		t.Fatal(err)
	}
	admin := adminOf(db)
	for _, q := range []string{
		"CREATE INDEX a_x FOR (n:A) ON (n.x)",
		"CALL quiver.fle.createKey('kx', {deterministic: true})",
		"CALL quiver.fle.createKey('kn')",
		"CALL quiver.fle.grantKey('kx', 'hr')",
		"CALL quiver.fle.grantKey('kn', 'hr')",
		"CALL quiver.fle.encryptProperty('A', 'x', 'kx')",
		"CALL quiver.fle.encryptProperty('B', 'name', 'kn')",
	} {
		mustQuery(t, admin, q, nil)
	}
	plain := openLoaded(t, nodes, rels)
	hidden := openLoaded(t, nodes, rels)
	mustQuery(t, hidden, "MATCH (n:A) REMOVE n.x", nil)
	mustQuery(t, hidden, "MATCH (n:B) REMOVE n.name", nil)
	for _, c := range []struct {
		who   as
		model *engine.DB
	}{{readerOf(db, nil, "hr"), plain}, {readerOf(db, nil, "reader"), hidden}} {
		t.Run(c.who.p.Roles[0], func(t *testing.T) {
			for _, q := range queries {
				got, want := rlsRun(c.who, q, nil), rlsRun(c.model, q, nil)
				// An encrypted property's column is typed when the query
				// runs, not from statistics: compared by name.
				got[0], want[0] = untyped(got[0]), untyped(want[0])
				if !equalMeta(got, want, strings.Contains(q, "ORDER BY")) {
					t.Errorf("%s\nencrypted %d rows:\n%s\nmodel %d rows:\n%s", q, len(got)-1, head(got), len(want)-1, head(want))
				}
			}
		})
	}
	if used, text := indexesUsed(t, readerOf(db, nil, "hr"), "MATCH (n:A) WHERE n.x = 42 RETURN n.uid", nil); len(used) != 1 {
		t.Errorf("the deterministic field's equality does not seek a_x: %v\n%s", used, text)
	}
}
