package engine_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// contentHash is quiver.storage.contentHash()'s row: hash, id_hash and
// the counts.
func contentHash(t *testing.T, db querier) (hash, idHash, counts string) {
	t.Helper()
	row := strings.Split(one(t, db, "CALL quiver.storage.contentHash() YIELD hash, id_hash, node_count, edge_count"), " | ")
	if len(row) != 4 {
		t.Fatalf("contentHash row %q", row)
	}
	row[0], row[1] = strings.Trim(row[0], "'"), strings.Trim(row[1], "'")
	if len(row[0]) != 64 || len(row[1]) != 64 {
		t.Fatalf("contentHash row %q", row)
	}
	return row[0], row[1], row[2] + "/" + row[3]
}

// hashCreates is importPersons and importKnows written as CREATE
// statements, with the types the import infers.
const hashCreates = `CREATE (a:Person {id: 1, name: 'Ann', age: 30, score: 1.5, active: true, born: date('1990-01-02')}),
	(b:Person {id: 2, name: 'Bob', score: 2.0, active: false}),
	(c:Person {id: 3, name: 'Cy, Jr', age: 50, score: 3.25, active: true, born: date('1970-12-31')}),
	(d:Person {id: 4, name: 'Dee', age: 41}),
	(a)-[:KNOWS {since: 2001}]->(b), (b)-[:KNOWS {since: 2010}]->(c), (c)-[:KNOWS {since: 2020}]->(a),
	(a)-[:KNOWS {since: 2002}]->(c), (a)-[:KNOWS {since: 2005}]->(a)`

// The same graph hashes alike however it was built and laid out: bulk
// imported or created, before and after a checkpoint, deleted and
// created again (then only the id-free hash).
func TestContentHashIgnoresLayout(t *testing.T) {
	in := t.TempDir()
	writeFiles(t, in, map[string]string{"persons.csv": importPersons, "knows.csv": importKnows})
	dirA := filepath.Join(t.TempDir(), "a")
	if _, err := engine.Import(engine.ImportOptions{Dir: dirA,
		Nodes: []engine.ImportInput{{Name: "Person", Path: filepath.Join(in, "persons.csv")}},
		Rels:  []engine.ImportInput{{Name: "KNOWS", Path: filepath.Join(in, "knows.csv")}}}); err != nil {
		t.Fatal(err)
	}
	imported, err := engine.Open(dirA, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer imported.Close()
	created, err := engine.Open(filepath.Join(t.TempDir(), "b"), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer created.Close()
	mustQuery(t, created, hashCreates, nil)

	hA, idA, nA := contentHash(t, imported)
	hB, idB, nB := contentHash(t, created)
	if nA != "4/5" || nB != "4/5" {
		t.Fatalf("counts %s and %s, want 4/5", nA, nB)
	}
	if hA != hB {
		t.Fatalf("imported %s and created %s differ", hA, hB)
	}

	// A checkpoint moves the overlay into a base: nothing changes, ids
	// included.
	mustQuery(t, created, "CHECKPOINT", nil)
	if h, id, _ := contentHash(t, created); h != hB || id != idB {
		t.Fatalf("after a checkpoint: %s %s, want %s %s", h, id, hB, idB)
	}
	// Writes on the imported base, undone, leave it as it was.
	mustQuery(t, imported, "MATCH (p:Person {id: 4}) SET p.tmp = 1, p:Temp", nil)
	mustQuery(t, imported, "MATCH (p:Person {id: 4}) REMOVE p.tmp, p:Temp", nil)
	if h, id, _ := contentHash(t, imported); h != hA || id != idA {
		t.Fatalf("after a change undone: %s %s, want %s %s", h, id, hA, idA)
	}
	// Deleted and created again: new ids, the same content.
	mustQuery(t, created, "MATCH (n) DETACH DELETE n", nil)
	if _, _, n := contentHash(t, created); n != "0/0" {
		t.Fatalf("after delete: %s", n)
	}
	mustQuery(t, created, hashCreates, nil)
	h, id, _ := contentHash(t, created)
	if h != hB {
		t.Fatalf("after delete and create: %s, want %s", h, hB)
	}
	if id == idB {
		t.Fatal("the id hash did not see the new ids")
	}
}

// Any single change of content changes the hash; so does a value's type.
func TestContentHashSeesEveryChange(t *testing.T) {
	db := openTestDB(t)
	mustQuery(t, db, hashCreates, nil)
	base, baseID, _ := contentHash(t, db)
	changes := []struct{ do, undo string }{
		{"MATCH (p:Person {id: 2}) SET p.name = 'Bobby'", "MATCH (p:Person {id: 2}) SET p.name = 'Bob'"},
		{"MATCH (p:Person {id: 2}) SET p.extra = 1", "MATCH (p:Person {id: 2}) REMOVE p.extra"},
		{"MATCH (p:Person {id: 2}) SET p:Admin", "MATCH (p:Person {id: 2}) REMOVE p:Admin"},
		{"MATCH (:Person {id: 1})-[r:KNOWS {since: 2001}]->() SET r.since = 2000", "MATCH (:Person {id: 1})-[r:KNOWS {since: 2000}]->() SET r.since = 2001"},
		{"MATCH (a:Person {id: 1})-[r:KNOWS {since: 2001}]->(b) DELETE r CREATE (a)-[:LIKES {since: 2001}]->(b)",
			"MATCH (a:Person {id: 1})-[r:LIKES]->(b) DELETE r CREATE (a)-[:KNOWS {since: 2001}]->(b)"},
		// The same relationship from another start.
		{"MATCH (a:Person {id: 1})-[r:KNOWS {since: 2001}]->(b) DELETE r WITH b MATCH (d:Person {id: 4}) CREATE (d)-[:KNOWS {since: 2001}]->(b)",
			"MATCH (d:Person {id: 4})-[r:KNOWS]->(b) DELETE r WITH b MATCH (a:Person {id: 1}) CREATE (a)-[:KNOWS {since: 2001}]->(b)"},
		// Reversed.
		{"MATCH (a:Person {id: 1})-[r:KNOWS {since: 2001}]->(b) DELETE r CREATE (b)-[:KNOWS {since: 2001}]->(a)",
			"MATCH (b:Person {id: 2})-[r:KNOWS {since: 2001}]->(a) DELETE r CREATE (a)-[:KNOWS {since: 2001}]->(b)"},
		{"CREATE (:Person)", "MATCH (p:Person) WHERE p.id IS NULL DELETE p"},
	}
	for _, c := range changes {
		mustQuery(t, db, c.do, nil)
		h, _, _ := contentHash(t, db)
		if h == base {
			t.Errorf("%s: the hash did not change", c.do)
		}
		mustQuery(t, db, c.undo, nil)
		if h, _, _ := contentHash(t, db); h != base {
			t.Errorf("%s, undone: %s, want %s", c.do, h, base)
		}
	}
	if _, id, _ := contentHash(t, db); id == baseID {
		t.Error("the id hash did not see relationships created again")
	}

	// 1, 1.0, '1', true and [1] are different values.
	seen := map[string]string{}
	for _, v := range []string{"1", "1.0", "'1'", "true", "[1]", "[1.0]", "date('2001-01-01')", "duration('P1D')", "-0.0", "0.0"} {
		typed := openTestDB(t)
		mustQuery(t, typed, "CREATE ({v: "+v+"})", nil)
		h, _, _ := contentHash(t, typed)
		if other, ok := seen[h]; ok {
			t.Errorf("%s and %s hash alike", v, other)
		}
		seen[h] = v
	}
}

// The hash stops with the query's context.
func TestContentHashStops(t *testing.T) {
	db := openTestDB(t)
	mustQuery(t, db, "UNWIND range(1, 5000) AS i CREATE (:N {i: i})", nil)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := db.Query(ctx, "CALL quiver.storage.contentHash()", nil)
	if err == nil {
		_, err = drain(res)
	}
	if err == nil {
		t.Fatal("a cancelled hash answered")
	}
}
