package engine_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// vectorIndexGraph is vectorGraph (40 Docs at angles i·9°) with a
// VECTOR index on :Doc(embedding), ONLINE.
func vectorIndexGraph(t *testing.T) *engine.DB {
	t.Helper()
	db := vectorGraph(t)
	mustQuery(t, db, "CREATE VECTOR INDEX docs FOR (d:Doc) ON (d.embedding) OPTIONS {dimensions: 3, similarity: 'cosine'}", nil)
	awaitOnline(t, db, "docs")
	return db
}

func at45() engine.Params {
	return engine.Params{"q": []any{math.Cos(math.Pi / 4), math.Sin(math.Pi / 4), 0.0}}
}

func TestVectorIndexSearch(t *testing.T) {
	db := vectorIndexGraph(t)
	q := at45()
	got := mustQuery(t, db, "SHOW INDEXES", nil)
	if len(got) != 1 || !strings.Contains(got[0], "'VECTOR'") || !strings.Contains(got[0], "'ONLINE'") || !strings.Contains(got[0], "'embedding'") {
		t.Fatalf("SHOW INDEXES = %v", got)
	}
	got = mustQuery(t, db, "CALL quiver.vector.search('docs', $q, 3) YIELD node, score RETURN node.id AS id", q)
	if !slices.Equal(got, []string{"5", "4", "6"}) {
		t.Fatalf("top 3: %v", got)
	}
	got = mustQuery(t, db, "CALL db.index.vector.queryNodes('docs', 1, $q) YIELD node RETURN node.id", q)
	if !slices.Equal(got, []string{"5"}) {
		t.Fatalf("queryNodes: %v", got)
	}
	// The filter: over-fetch and re-check inside the graph search.
	got = mustQuery(t, db, "CALL quiver.vector.search('docs', $q, 3, {filter: {lang: 'en'}, ef: 100}) YIELD node RETURN node.id", q)
	if !slices.Equal(got, []string{"4", "6", "2"}) {
		t.Fatalf("filtered: %v", got)
	}
	// Scores are the function's on the stored vector, bit for bit, and
	// the index answers as the exact search does (40 vectors: the graph
	// search is exhaustive).
	got = mustQuery(t, db, `CALL quiver.vector.search('docs', $q, 40) YIELD node, score
		RETURN count(*) AS n, sum(CASE WHEN score = vector.similarity.cosine(node.embedding, $q) THEN 1 ELSE 0 END) AS same`, q)
	if !slices.Equal(got, []string{"40 | 40"}) {
		t.Fatalf("scores: %v", got)
	}
	idx := mustQuery(t, db, "CALL quiver.vector.search('docs', $q, 40) YIELD node, score RETURN node.id, score", q)
	ex := mustQuery(t, db, "CALL quiver.vector.search('Doc.embedding', $q, 40) YIELD node, score RETURN node.id, score", q)
	if !slices.Equal(idx, ex) {
		t.Fatalf("index %v\nexact %v", idx, ex)
	}
	// A value that is not a vector of the index's dimension is not
	// indexed, and the write is not refused.
	mustQuery(t, db, "CREATE (:Doc {id: 98, embedding: 'text'}), (:Doc {id: 99, embedding: [1.0, 1.0]})", nil)
	got = mustQuery(t, db, "CALL quiver.vector.search('docs', $q, 100) YIELD node RETURN count(*)", q)
	if !slices.Equal(got, []string{"40"}) {
		t.Fatalf("odd values: %v", got)
	}
}

// The retrieval query: top k by vector, one hop out, aggregated, in one
// statement (the expected rows are worked out in testdata/vector_index.test).
func TestVectorIndexComposes(t *testing.T) {
	db := vectorIndexGraph(t)
	got := mustQuery(t, db, `CALL quiver.vector.search('docs', $q, 4) YIELD node, score
		MATCH (node)-[:ABOUT]->(t:Topic) RETURN t.name AS topic, count(*) AS n, max(score) AS best`, at45())
	best := mustQuery(t, db, "MATCH (d:Doc {id: 4}) RETURN vector.similarity.cosine(d.embedding, $q)", at45())
	want := "'even' | 2 | " + best[0] // 4 and 6 of 5, 4, 6, 3; 4 and 6 tie
	if !slices.Equal(got, []string{want}) {
		t.Fatalf("search then MATCH: %v, want %s", got, want)
	}
}

// A search sees its transaction's snapshot: its own writes, not others'
// uncommitted ones, not rolled-back ones, and an older snapshot neither
// newer vectors nor misses the older ones.
func TestVectorIndexVisibility(t *testing.T) {
	db := vectorIndexGraph(t)
	q := at45()
	search := func(r querier, k int) []string {
		t.Helper()
		return mustQuery(t, r, "CALL quiver.vector.search('docs', $q, $k) YIELD node RETURN node.id", engine.Params{"q": q["q"], "k": int64(k)})
	}
	tx, err := db.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	mustQuery(t, tx, "CREATE (:Doc {id: 100, embedding: [1.0, 1.0, 0.0]})", nil)
	mustQuery(t, tx, "MATCH (d:Doc {id: 5}) SET d.embedding = [0.0, 0.0, 1.0]", nil)
	if got := search(tx, 2); !slices.Equal(got, []string{"100", "4"}) {
		t.Fatalf("own writes: %v", got)
	}
	if got := search(db, 1); !slices.Equal(got, []string{"5"}) {
		t.Fatalf("others see uncommitted writes: %v", got)
	}
	if _, err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := search(db, 1); !slices.Equal(got, []string{"5"}) {
		t.Fatalf("after rollback: %v", got)
	}

	old, err := db.BeginTransaction(engine.TransactionOptions{Isolation: engine.RepeatableRead})
	if err != nil {
		t.Fatal(err)
	}
	defer old.Rollback()
	if got := search(old, 3); !slices.Equal(got, []string{"5", "4", "6"}) {
		t.Fatalf("old before: %v", got)
	}
	// Later commits: an update moving 5 away, a new nearer vector, a
	// label removal, a property removal and a delete.
	mustQuery(t, db, "MATCH (d:Doc {id: 5}) SET d.embedding = [0.0, 0.0, 1.0]", nil)
	mustQuery(t, db, "CREATE (:Doc {id: 101, embedding: [1.0, 1.0, 0.0]})", nil)
	mustQuery(t, db, "MATCH (d:Doc {id: 4}) REMOVE d:Doc", nil)
	mustQuery(t, db, "MATCH (d:Doc {id: 6}) REMOVE d.embedding", nil)
	mustQuery(t, db, "MATCH (d:Doc {id: 3}) DETACH DELETE d", nil)
	if got := search(db, 3); !slices.Equal(got, []string{"101", "7", "2"}) {
		t.Fatalf("now: %v", got)
	}
	if got := search(old, 3); !slices.Equal(got, []string{"5", "4", "6"}) {
		t.Fatalf("the older snapshot: %v", got)
	}
	// Put back: the graph follows.
	mustQuery(t, db, "MATCH (d {id: 4}) SET d:Doc", nil)
	if got := search(db, 2); !slices.Equal(got, []string{"101", "4"}) {
		t.Fatalf("label back: %v", got)
	}
}

func TestVectorIndexErrors(t *testing.T) {
	db := vectorIndexGraph(t)
	mustQuery(t, db, "CREATE FULLTEXT INDEX texts FOR (d:Doc) ON EACH [d.lang]", nil)
	for _, c := range []struct{ q, code, msg string }{
		{"CREATE VECTOR INDEX v FOR (d:Doc) ON (d.embedding) OPTIONS {similarity: 'cosine'}", "22023", "dimensions"},
		{"CREATE VECTOR INDEX v FOR (d:Doc) ON (d.embedding) OPTIONS {dimensions: 0}", "22023", "dimensions"},
		{"CREATE VECTOR INDEX v FOR (d:Doc) ON (d.embedding) OPTIONS {dimensions: 100000}", "22023", "dimensions must be from 1 to 4096"},
		{"CREATE VECTOR INDEX v FOR (d:Doc) ON (d.embedding) OPTIONS {dimensions: 3, similarity: 'manhattan'}", "22023", "unknown similarity"},
		{"CREATE VECTOR INDEX v FOR (d:Doc) ON (d.embedding) OPTIONS {dimensions: 3, m: 1}", "22023", "m must be"},
		{"CREATE VECTOR INDEX v FOR (d:Doc) ON (d.embedding) OPTIONS {dimensions: 3, ef_construction: 99999}", "22023", "ef_construction"},
		{"CREATE VECTOR INDEX v FOR (d:Doc) ON (d.embedding) OPTIONS {dimensions: '3'}", "42000", "integer"},
		{"CREATE VECTOR INDEX v FOR (d:Doc) ON (d.embedding) OPTIONS {size: 3}", "42000", "unknown option size"},
		{"CREATE VECTOR INDEX v FOR (d:Doc) ON (d.embedding, d.id) OPTIONS {dimensions: 3}", "42000", "one property"},
		{"CREATE VECTOR INDEX v FOR (d:Doc) ON (d.embedding)", "42000", "OPTIONS"},
		{"CREATE VECTOR INDEX v FOR (d:Doc) ON (d.embedding) OPTIONS {dimensions: 3}", "42S01", "already indexes"},
		{"CALL quiver.vector.search('docs', [1.0, 0.0], 3) YIELD node RETURN node", "22000", "dimension"},
		{"CALL quiver.vector.search('docs', [1.0, 'x', 0.0], 3) YIELD node RETURN node", "22000", "not a number"},
		{"CALL quiver.vector.search('docs', [0.0, 0.0, 0.0], 3) YIELD node RETURN node", "22000", "length zero"},
		{"CALL quiver.vector.search('docs', [1.0, 0.0, 0.0], 0) YIELD node RETURN node", "22023", "k must be"},
		{"CALL quiver.vector.search('docs', [1.0, 0.0, 0.0], 1099511627776) YIELD node RETURN node", "22023", "k must be"},
		{"CALL quiver.vector.search('docs', [1.0, 0.0, 0.0], 3, {ef: 0}) YIELD node RETURN node", "22023", "ef"},
		{"CALL quiver.vector.search('docs', [1.0, 0.0, 0.0], 3, {similarity: 'dot'}) YIELD node RETURN node", "22023", "scores by cosine"},
		{"CALL quiver.vector.search('texts', [1.0, 0.0, 0.0], 3) YIELD node RETURN node", "42S02", "not a VECTOR index"},
		{"CALL quiver.vector.search('missing', [1.0, 0.0, 0.0], 3) YIELD node RETURN node", "42S02", "missing"},
	} {
		_, err := queryAll(db, c.q, nil)
		e, ok := engine.AsError(err)
		if !ok || e.Code != c.code || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: %v, want %s mentioning %q", c.q, err, c.code, c.msg)
		}
	}
	mustQuery(t, db, "CREATE VECTOR INDEX docs IF NOT EXISTS FOR (d:Doc) ON (d.embedding) OPTIONS {dimensions: 3}", nil)
	// Without a name: vector_<label>_<property>.
	mustQuery(t, db, "CREATE VECTOR INDEX FOR (d:Doc) ON (d.other) OPTIONS {dimensions: 2}", nil)
	if got := mustQuery(t, db, "CALL db.indexes() YIELD name, type WHERE type = 'VECTOR' RETURN name ORDER BY name", nil); !slices.Equal(got, []string{"'docs'", "'vector_doc_other'"}) {
		t.Errorf("names: %v", got)
	}
	mustQuery(t, db, "DROP INDEX docs", nil)
	if _, err := queryAll(db, "CALL quiver.vector.search('docs', [1.0, 0.0, 0.0], 3) YIELD node RETURN node", nil); err == nil {
		t.Errorf("a dropped index answered")
	}
}

// After a restart the index is rebuilt from the recovered data and
// answers as a fresh build does; the export's schema script recreates it.
func TestVectorIndexReopen(t *testing.T) {
	dir := t.TempDir()
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustQuery(t, db, "CREATE VECTOR INDEX pts FOR (p:P) ON (p.v) OPTIONS {dimensions: 2, similarity: 'euclidean', m: 8, ef_construction: 64}", nil)
	mustQuery(t, db, "UNWIND range(1, 200) AS i CREATE (:P {i: i, v: [toFloat(i % 20), toFloat(i / 20)]})", nil)
	mustQuery(t, db, "MATCH (p:P) WHERE p.i % 7 = 0 SET p.v = [100.0, 100.0]", nil)
	mustQuery(t, db, "MATCH (p:P) WHERE p.i % 11 = 0 DELETE p", nil)
	q := "CALL quiver.vector.search('pts', [99.0, 99.0], 30) YIELD node, score RETURN node.i, score"
	awaitOnline(t, db, "pts")
	before := mustQuery(t, db, q, nil)
	if len(before) != 30 {
		t.Fatalf("before: %v", before)
	}
	db.Close()
	db, err = engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	awaitOnline(t, db, "pts")
	if after := mustQuery(t, db, q, nil); !slices.Equal(after, before) {
		t.Errorf("after reopen %v, before %v", after, before)
	}
	got := mustQuery(t, db, "CALL db.indexes() YIELD name, type, properties RETURN name, type, properties", nil)
	if !slices.Equal(got, []string{"'pts' | 'VECTOR' | 'v'"}) {
		t.Errorf("db.indexes() = %v", got)
	}
	fresh := openTestDB(t)
	script := "CREATE VECTOR INDEX `pts` FOR (n:`P`) ON (n.`v`) OPTIONS {dimensions: 2, similarity: 'euclidean', m: 8, ef_construction: 64};\n"
	if n, err := fresh.ApplySchemaScript(context.Background(), script); err != nil || n != 1 {
		t.Fatalf("applied %d: %v", n, err)
	}
	if got := mustQuery(t, fresh, "SHOW INDEXES", nil); len(got) != 1 || !strings.Contains(got[0], "'pts' | 'VECTOR' | 'P' | 'v'") {
		t.Errorf("SHOW INDEXES = %v", got)
	}
}

// Right after CREATE, while the index may still be populating, a search
// answers exactly (docs/search.md): the same rows as the exact search.
func TestVectorIndexWhilePopulating(t *testing.T) {
	db := openTestDB(t)
	mustQuery(t, db, "UNWIND range(1, 3000) AS i CREATE (:P {i: i, v: [toFloat(i % 97), toFloat(i % 89), toFloat(i % 83)]})", nil)
	mustQuery(t, db, "CREATE VECTOR INDEX pv FOR (p:P) ON (p.v) OPTIONS {dimensions: 3, similarity: 'euclidean'}", nil)
	q := engine.Params{"q": []any{10.0, 20.0, 30.0}}
	got := mustQuery(t, db, "CALL quiver.vector.search('pv', $q, 10) YIELD node, score RETURN node.i, score", q)
	want := mustQuery(t, db, "CALL quiver.vector.search('P.v', $q, 10, {similarity: 'euclidean'}) YIELD node, score RETURN node.i, score", q)
	if !slices.Equal(got, want) {
		t.Errorf("while populating: %v, want %v", got, want)
	}
	awaitOnline(t, db, "pv")
}

// An index's graph counts against the server's memory budget: a build
// the budget cannot hold fails the index (FAILED, 53200), not the
// server, and searches on it answer exactly.
func TestVectorIndexBudget(t *testing.T) {
	db := openTestDBWith(t, engine.Options{MaxMemory: 4 << 20})
	mustQuery(t, db, "UNWIND range(1, 3000) AS i CREATE (:P {i: i, v: [toFloat(i), 1.0, 2.0, 3.0]})", nil)
	mustQuery(t, db, "CREATE VECTOR INDEX pv FOR (p:P) ON (p.v) OPTIONS {dimensions: 4, m: 512}", nil) // about 4 KB a vector: 12 MB
	_, err := queryAll(db, "CALL db.awaitIndex('pv', 60)", nil)
	if e, ok := engine.AsError(err); !ok || e.Code != "53200" {
		t.Fatalf("await a build over the budget: %v, want 53200", err)
	}
	if got := mustQuery(t, db, "CALL db.indexes() YIELD name, state RETURN state", nil); !slices.Equal(got, []string{"'FAILED'"}) {
		t.Errorf("state %v", got)
	}
	got := mustQuery(t, db, "CALL quiver.vector.search('pv', [3000.0, 1.0, 2.0, 3.0], 1) YIELD node RETURN node.i", nil)
	if !slices.Equal(got, []string{"3000"}) {
		t.Errorf("search on the failed index: %v", got)
	}
	mustQuery(t, db, "DROP INDEX pv", nil)
	mustQuery(t, db, "CREATE VECTOR INDEX pv FOR (p:P) ON (p.v) OPTIONS {dimensions: 4, m: 2}", nil)
	awaitOnline(t, db, "pv")
}
