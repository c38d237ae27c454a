package engine_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// vectorColumnQueries read a column of embeddings through every path:
// values, elements, a similarity over all rows, exact search and the
// HNSW index.
var vectorColumnQueries = []string{
	"MATCH (d:Doc) WHERE d.i IN [0, 1, 2047, 2048, 2500, 4095, 4096, 4999] RETURN d.i, d.embedding ORDER BY d.i",
	"MATCH (d:Doc) RETURN count(d.embedding), sum(d.embedding[0]), sum(d.embedding[1]), min(d.embedding[2])",
	// max and a count: a parallel sum of FLOATs may round otherwise.
	"MATCH (d:Doc) WITH vector.similarity.euclidean(d.embedding, [10.0, 5.0, -1.5]) AS s RETURN max(s), count(CASE WHEN s > 0.001 THEN 1 END)",
	"CALL quiver.vector.search('Doc.embedding', [100.0, 50.0, -1.5], 3) YIELD node, score RETURN node.i ORDER BY node.i",
	"CALL db.awaitIndex('doc_vec')",
	"CALL quiver.vector.search('doc_vec', [100.0, 50.0, -1.5], 3, {ef: 64}) YIELD node RETURN node.i ORDER BY node.i",
}

func vectorColumnState(t *testing.T, db *engine.DB) []string {
	t.Helper()
	var out []string
	for _, q := range vectorColumnQueries {
		out = append(out, q+" → "+one(t, db, q))
	}
	return out
}

// TestVectorColumnsDurable: 5,000 embeddings (groups stored flat, one
// group kept generic by a list of INTEGERs) read the same through every
// path after a checkpoint and reopen (VECTORS chunks in the base), after
// updates of sealed groups, and after a crash replaying those updates
// onto that base; the answers are checked against what the data says.
func TestVectorColumnsDurable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustQuery(t, db, "UNWIND range(0, 4999) AS i CREATE (:Doc {i: i, embedding: CASE i WHEN 2500 THEN [1, 2, 3] ELSE [toFloat(i), toFloat(i) / 2.0, -1.5] END})", nil)
	mustQuery(t, db, "CREATE VECTOR INDEX doc_vec FOR (d:Doc) ON (d.embedding) OPTIONS {dimensions: 3, similarity: 'euclidean'}", nil)
	want := vectorColumnState(t, db)
	// What the data says, worked out here: Σi over i ≠ 2500 is
	// 12497500 − 2500, plus 1 for node 2500's [1, 2, 3]; the second
	// elements sum to half of it, plus 2.
	for q, w := range map[int]string{
		0: "0 | [0.0, 0.0, -1.5],1 | [1.0, 0.5, -1.5],2047 | [2047.0, 1023.5, -1.5],2048 | [2048.0, 1024.0, -1.5],2500 | [1, 2, 3],4095 | [4095.0, 2047.5, -1.5],4096 | [4096.0, 2048.0, -1.5],4999 | [4999.0, 2499.5, -1.5]",
		1: "5000 | 1.2495001e+07 | 6.247502e+06 | -1.5",
		// Node 10 is the query; d² = 1.25·(i − 10)² < 999 for i ≤ 38,
		// and node 2500's [1, 2, 3] is at d² = 110.25.
		2: "1.0 | 40",
		3: "99,100,101",
		5: "99,100,101",
	} {
		if got := want[q][len(vectorColumnQueries[q])+len(" → "):]; got != w {
			t.Fatalf("%s\n got %s\nwant %s", vectorColumnQueries[q], got, w)
		}
	}
	if err := db.Close(); err != nil { // a checkpoint: the base holds the column
		t.Fatal(err)
	}

	db, err = engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sameState(t, "after a checkpoint and reopen", vectorColumnState(t, db), want)
	// Updates in sealed groups: a new vector, one that turns its group
	// generic, one removed; then a crash, replaying them onto the base.
	mustQuery(t, db, "MATCH (d:Doc {i: 1}) SET d.embedding = [-1.0, -2.0, -3.0]", nil)
	mustQuery(t, db, "MATCH (d:Doc {i: 2047}) SET d.embedding = [7, 7.5, 8]", nil)
	mustQuery(t, db, "MATCH (d:Doc {i: 4095}) REMOVE d.embedding", nil)
	updated := vectorColumnState(t, db)
	if got := updated[0][len(vectorColumnQueries[0])+len(" → "):]; got != "0 | [0.0, 0.0, -1.5],1 | [-1.0, -2.0, -3.0],2047 | [7, 7.5, 8],2048 | [2048.0, 1024.0, -1.5],2500 | [1, 2, 3],4095 | null,4096 | [4096.0, 2048.0, -1.5],4999 | [4999.0, 2499.5, -1.5]" {
		t.Fatalf("after the updates: %s", got)
	}
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
	engine.Abandon(db)

	db, err = engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	sameState(t, "after a crash", vectorColumnState(t, db), updated)
	if err := db.Check(); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(updated, want) {
		t.Fatal("the updates changed nothing")
	}
}
