package engine_test

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// vectorGraph is 40 Doc nodes with 3-dimensional embeddings at angles
// i·9° in the x-y plane (doc 0 at (1, 0, 0)), each citing the next, and
// a Topic node every doc of even id links to.
func vectorGraph(t *testing.T) *engine.DB {
	t.Helper()
	db := openTestDB(t)
	var b strings.Builder
	b.WriteString("UNWIND range(0, 39) AS i CREATE (:Doc {id: i, lang: CASE WHEN i % 2 = 0 THEN 'en' ELSE 'fr' END, ")
	b.WriteString("embedding: [cos(radians(i * 9)), sin(radians(i * 9)), 0.0]})")
	mustQuery(t, db, b.String(), nil)
	mustQuery(t, db, "MATCH (a:Doc), (b:Doc) WHERE b.id = a.id + 1 CREATE (a)-[:CITES]->(b)", nil)
	mustQuery(t, db, "CREATE (:Topic {name: 'even'})", nil)
	mustQuery(t, db, "MATCH (d:Doc), (t:Topic) WHERE d.id % 2 = 0 CREATE (d)-[:ABOUT]->(t)", nil)
	return db
}

func TestVectorSimilarityFunctions(t *testing.T) {
	db := openTestDB(t)
	got := mustQuery(t, db, "RETURN vector.similarity.cosine([1, 0], [0, 1]) AS c, vector.similarity.euclidean([0.0, 0.0], [3, 4]) AS e, vector.similarity.cosine(null, [1]) AS n", nil)
	if want := fmt.Sprintf("0.5 | %v | null", 1.0/26); len(got) != 1 || got[0] != want {
		t.Fatalf("got %v, want %s", got, want)
	}
	for _, q := range []string{
		"RETURN vector.similarity.cosine([1, 2], [1, 2, 3])",
		"RETURN vector.similarity.euclidean([1, 'a'], [1, 2])",
	} {
		_, err := queryAll(db, q, nil)
		if e, ok := engine.AsError(err); !ok || e.Code != "22000" {
			t.Fatalf("%s: %v, want 22000", q, err)
		}
	}
}

func TestVectorSearchExact(t *testing.T) {
	db := vectorGraph(t)
	// The query at 45° is nearest to doc 5, then 4 and 6 (tied: 9° each).
	q := engine.Params{"q": []any{math.Cos(math.Pi / 4), math.Sin(math.Pi / 4), 0.0}}
	got := mustQuery(t, db, "CALL quiver.vector.search('Doc.embedding', $q, 3) YIELD node, score RETURN node.id AS id", q)
	if !slices.Equal(got, []string{"5", "4", "6"}) {
		t.Fatalf("top 3: %v", got)
	}
	// The Neo4j alias, its argument order, and the euclidean option.
	got = mustQuery(t, db, "CALL db.index.vector.queryNodes('Doc.embedding', 1, $q) YIELD node RETURN node.id", q)
	if !slices.Equal(got, []string{"5"}) {
		t.Fatalf("queryNodes: %v", got)
	}
	got = mustQuery(t, db, "CALL quiver.vector.search('Doc.embedding', $q, 2, {similarity: 'euclidean', filter: {lang: 'en'}}) YIELD node RETURN node.id", q)
	if !slices.Equal(got, []string{"4", "6"}) {
		t.Fatalf("filtered euclidean: %v", got)
	}
	// Scores equal the function's, bit for bit, for every node.
	got = mustQuery(t, db, `CALL quiver.vector.search('Doc.embedding', $q, 100) YIELD node, score
		RETURN count(*) AS n, sum(CASE WHEN score = vector.similarity.cosine(node.embedding, $q) THEN 1 ELSE 0 END) AS same`, q)
	if !slices.Equal(got, []string{"40 | 40"}) {
		t.Fatalf("score against the function: %v", got)
	}
	// Composes with MATCH: top 4 by vector, one hop out, aggregated.
	got = mustQuery(t, db, `CALL quiver.vector.search('Doc.embedding', $q, 4) YIELD node, score
		MATCH (node)-[:ABOUT]->(t:Topic) RETURN t.name AS topic, count(*) AS n`, q)
	if !slices.Equal(got, []string{"'even' | 2"}) { // 4 and 6 of 5, 4, 6, 3
		t.Fatalf("search then MATCH: %v", got)
	}
	got = mustQuery(t, db, `CALL quiver.vector.search('Doc.embedding', $q, 2) YIELD node
		MATCH (node)-[:CITES*1..2]->(m:Doc) RETURN count(DISTINCT m) AS reached`, q)
	if !slices.Equal(got, []string{"3"}) { // 5 → 6, 7; 4 → 5, 6
		t.Fatalf("search then 2 hops: %v", got)
	}
	// A write is seen by the next search (the cached vectors of the
	// property are those of the version read), and a transaction sees
	// its own write; a rolled-back write is never seen.
	mustQuery(t, db, "MATCH (d:Doc {id: 30}) SET d.embedding = [0.7, 0.7, 0.0]", nil)
	got = mustQuery(t, db, "CALL quiver.vector.search('Doc.embedding', $q, 2) YIELD node RETURN node.id", q)
	if !slices.Equal(got, []string{"5", "30"}) { // both score 1: ties by id
		t.Fatalf("after an update: %v", got)
	}
	tx, err := db.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mustQuery(t, tx, "MATCH (d:Doc {id: 30}) REMOVE d.embedding", nil)
	if got := mustQuery(t, tx, "CALL quiver.vector.search('Doc.embedding', $q, 2) YIELD node RETURN node.id", q); !slices.Equal(got, []string{"5", "4"}) {
		t.Fatalf("inside the transaction that removed 30's vector: %v", got)
	}
	if _, err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := mustQuery(t, db, "CALL quiver.vector.search('Doc.embedding', $q, 2) YIELD node RETURN node.id", q); !slices.Equal(got, []string{"5", "30"}) {
		t.Fatalf("after the rollback: %v", got)
	}
	// A k beyond the candidates returns them all; a huge one is refused.
	if got := mustQuery(t, db, "CALL quiver.vector.search('Doc.embedding', $q, 100000) YIELD node RETURN count(*)", q); !slices.Equal(got, []string{"40"}) {
		t.Fatalf("a large k: %v", got)
	}
	if _, err := queryAll(db, "CALL quiver.vector.search('Doc.embedding', [1, 0, 0], 1099511627776) YIELD node RETURN count(*)", nil); err == nil {
		t.Fatalf("a huge k answered")
	}
	// A label or property nothing carries answers no rows.
	if got := mustQuery(t, db, "CALL quiver.vector.search('Nope.embedding', $q, 3) YIELD node RETURN node", q); len(got) != 0 {
		t.Fatalf("unknown label: %v", got)
	}
}

// A search holds its vectors and workers' buffers against the
// statement's memory limit.
func TestVectorSearchMemory(t *testing.T) {
	db := openTestDBWith(t, engine.Options{MaxMemoryPerQuery: 128 << 10})
	for range 3 {
		mustQuery(t, db, "UNWIND range(1, 100) AS i CREATE (:V {e: [i, 1.0, 2.0, 3.0]})", nil)
	}
	_, err := queryAll(db, "CALL quiver.vector.search('V.e', [1, 1, 1, 1], 5) YIELD node RETURN node", nil)
	if e, ok := engine.AsError(err); !ok || e.Code != "53200" {
		t.Fatalf("search over the limit: %v, want 53200", err)
	}
}

func TestVectorSearchErrors(t *testing.T) {
	db := vectorGraph(t)
	mustQuery(t, db, "CREATE (:Doc {id: 99, embedding: 'not a vector'})", nil)
	for _, c := range []struct{ q, code string }{
		{"CALL quiver.vector.search('Doc.embedding', [1.0, 0.0], 3) YIELD node RETURN node", "22000"},      // dimension mismatch
		{"CALL quiver.vector.search('Doc.embedding', [1.0, 'x', 0.0], 3) YIELD node RETURN node", "22000"}, // non-numeric element
		{"CALL quiver.vector.search('nosuchindex', [1.0, 0.0, 0.0], 3) YIELD node RETURN node", "42S02"},   // missing index
		{"CALL quiver.vector.search('Doc.embedding', [1.0, 0.0, 0.0], 3, {bogus: 1}) YIELD node RETURN node", "22023"},
		{"CALL quiver.vector.search('Doc.embedding', [1.0, 0.0, 0.0], 3, {similarity: 'manhattan'}) YIELD node RETURN node", "22023"},
		{"CALL quiver.vector.search('Doc.embedding', [1.0, 0.0, 0.0], 50) YIELD node RETURN node", "22000"}, // node 99 holds a STRING
	} {
		_, err := queryAll(db, c.q, nil)
		if e, ok := engine.AsError(err); !ok || e.Code != c.code {
			t.Errorf("%s: %v, want %s", c.q, err, c.code)
		}
	}
}
