package engine_test

import (
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// The projection cache (docs/algorithms.md, "Projection cache").

// cacheStats is algo.cache.stats() as entries, bytes, hits, misses.
func cacheStats(t *testing.T, db *engine.DB) (entries, bytes, hits, misses int64) {
	t.Helper()
	row := mustQuery(t, db, "CALL algo.cache.stats() YIELD entries, bytes, hits, misses RETURN entries, bytes, hits, misses", nil)
	if len(row) != 1 {
		t.Fatalf("algo.cache.stats: %v", row)
	}
	if _, err := fmt.Sscanf(row[0], "%d | %d | %d | %d", &entries, &bytes, &hits, &misses); err != nil {
		t.Fatalf("algo.cache.stats row %q: %v", row[0], err)
	}
	return
}

// cacheGraph makes 60 nodes in six weighted chains of ten (six WCC
// components) and returns a query per algorithm.
func cacheGraph(t *testing.T, db *engine.DB) []string {
	mustQuery(t, db, "UNWIND range(0, 59) AS i CREATE (:N {i: i})", nil)
	mustQuery(t, db, `MATCH (a:N), (b:N) WHERE b.i = a.i + 1 AND a.i % 10 <> 9
		CREATE (a)-[:R {w: toFloat(a.i % 7) + 0.5}]->(b)`, nil)
	mustQuery(t, db, `MATCH (a:N), (b:N) WHERE b.i = a.i + 2 AND a.i % 10 < 8 AND a.i % 3 = 0
		CREATE (a)-[:R {w: 1.0}]->(b)`, nil)
	src := "MATCH (s:N {i: 0}) "
	return []string{
		src + "CALL algo.bfs.stream({sourceNode: s}) YIELD nodeId, depth RETURN nodeId.i, depth ORDER BY nodeId.i",
		src + "CALL algo.bfs.stream({sourceNode: s, direction: 'UNDIRECTED'}) YIELD nodeId, depth RETURN nodeId.i, depth ORDER BY nodeId.i",
		src + "CALL algo.sssp.stream({sourceNode: s, relationshipWeightProperty: 'w'}) YIELD nodeId, distance RETURN nodeId.i, distance ORDER BY nodeId.i",
		src + "CALL algo.dijkstra.stream({sourceNode: s, relationshipWeightProperty: 'w'}) YIELD targetNode, cost RETURN targetNode.i, cost ORDER BY targetNode.i",
		"CALL algo.wcc.stream({}) YIELD nodeId, componentId RETURN nodeId.i, componentId ORDER BY nodeId.i",
		"CALL algo.pagerank.stream({}) YIELD nodeId, score RETURN nodeId.i, score ORDER BY nodeId.i",
		"CALL algo.cdlp.stream({direction: 'UNDIRECTED'}) YIELD nodeId, communityId RETURN nodeId.i, communityId ORDER BY nodeId.i",
		"CALL algo.lcc.stream({}) YIELD nodeId, coefficient RETURN nodeId.i, coefficient ORDER BY nodeId.i",
	}
}

// A hit gives what a fresh projection gives: every algorithm's rows with
// the cache equal those without it, and the second round of calls hits.
func TestAlgoCacheHitIdentical(t *testing.T) {
	cached, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer cached.Close()
	plain, err := engine.Open("", engine.Options{AlgoCacheBytes: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	qs := cacheGraph(t, cached)
	cacheGraph(t, plain)
	for _, q := range qs {
		want := mustQuery(t, plain, q, nil)
		for range 2 {
			if got := mustQuery(t, cached, q, nil); !slices.Equal(got, want) {
				t.Fatalf("%s:\ncached %v\nwant   %v", q, got, want)
			}
		}
	}
	entries, bytes, hits, misses := cacheStats(t, cached)
	if entries == 0 || bytes <= 0 || hits < int64(len(qs)) || misses == 0 {
		t.Fatalf("stats: %d entries, %d bytes, %d hits, %d misses", entries, bytes, hits, misses)
	}
	if e, b, h, m := cacheStats(t, plain); e != 0 || b != 0 || h != 0 || m != 0 {
		t.Fatalf("disabled cache: %d entries, %d bytes, %d hits, %d misses", e, b, h, m)
	}
}

// A commit makes a new version: the next call sees the new graph.
func TestAlgoCacheCommitInvalidates(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cacheGraph(t, db)
	comps := "CALL algo.wcc.stream({}) YIELD componentId RETURN count(DISTINCT componentId)"
	if got := mustQuery(t, db, comps, nil); got[0] != "6" {
		t.Fatalf("components %v", got)
	}
	mustQuery(t, db, comps, nil) // cached now
	mustQuery(t, db, "MATCH (a:N {i: 9}), (b:N {i: 10}) CREATE (a)-[:R {w: 1.0}]->(b)", nil)
	if got := mustQuery(t, db, comps, nil); got[0] != "5" {
		t.Fatalf("after the commit: components %v, want 5", got)
	}
	mustQuery(t, db, "MATCH (n:N {i: 59}) DETACH DELETE n", nil)
	if got := mustQuery(t, db, "CALL algo.wcc.stream({}) YIELD nodeId RETURN count(*)", nil); got[0] != "59" {
		t.Fatalf("after a delete: %v vertices, want 59", got)
	}
}

// A transaction's own writes are seen by its calls and never reach the
// shared cache; the transaction's reads before it writes may use it.
func TestAlgoCacheTransactionBypass(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cacheGraph(t, db)
	comps := "CALL algo.wcc.stream({}) YIELD componentId RETURN count(DISTINCT componentId)"
	mustQuery(t, db, comps, nil)
	for _, level := range []engine.IsolationLevel{engine.ReadCommitted, engine.Serializable} {
		tx := begin(t, db, level)
		if got := one(t, tx, comps); got != "6" {
			t.Fatalf("in the transaction before writing: %s", got)
		}
		entries, _, _, _ := cacheStats(t, db)
		mustQuery(t, tx, "MATCH (a:N {i: 9}), (b:N {i: 10}) CREATE (a)-[:R {w: 1.0}]->(b)", nil)
		if got := one(t, tx, comps); got != "5" {
			t.Fatalf("in the transaction after writing: %s, want 5", got)
		}
		if e, _, _, _ := cacheStats(t, db); e != entries {
			t.Fatalf("the transaction's projection entered the cache: %d entries, was %d", e, entries)
		}
		if got := one(t, db, comps); got != "6" {
			t.Fatalf("outside the transaction: %s, want 6", got)
		}
		tx.Rollback()
	}
	if got := one(t, db, comps); got != "6" {
		t.Fatalf("after the rollback: %s, want 6", got)
	}
}

// algo.cache.clear() empties the cache and yields what it dropped; the
// next call builds its projection again (a miss) and answers the same.
func TestAlgoCacheClear(t *testing.T) {
	db := openTestDB(t)
	qs := cacheGraph(t, db)
	want := mustQuery(t, db, qs[0], nil)
	entries, bytes, _, misses := cacheStats(t, db)
	if entries != 1 || bytes <= 0 {
		t.Fatalf("after one call: %d entries, %d bytes", entries, bytes)
	}
	if got := mustQuery(t, db, "CALL algo.cache.clear() YIELD entries, bytes RETURN entries, bytes", nil); !slices.Equal(got, []string{fmt.Sprintf("1 | %d", bytes)}) {
		t.Fatalf("clear yielded %v, want 1 | %d", got, bytes)
	}
	if e, b, _, _ := cacheStats(t, db); e != 0 || b != 0 {
		t.Fatalf("after clear: %d entries, %d bytes", e, b)
	}
	if got := mustQuery(t, db, qs[0], nil); !slices.Equal(got, want) {
		t.Fatalf("after clear: %v, want %v", got, want)
	}
	if e, _, _, m := cacheStats(t, db); e != 1 || m != misses+1 {
		t.Fatalf("the call after clear: %d entries, %d misses (was %d): it did not build again", e, m, misses)
	}
	if got := mustQuery(t, db, "CALL algo.cache.clear() YIELD entries RETURN entries", nil); !slices.Equal(got, []string{"1"}) {
		t.Fatalf("second clear yielded %v", got)
	}
	off := openTestDBWith(t, engine.Options{AlgoCacheBytes: -1})
	if got := mustQuery(t, off, "CALL algo.cache.clear()", nil); !slices.Equal(got, []string{"0 | 0"}) {
		t.Fatalf("clear without a cache yielded %v", got)
	}
}

// The cache stays within its bound: with room for about one projection,
// alternating shapes evict each other and the bytes never pass it.
func TestAlgoCacheBound(t *testing.T) {
	probe, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	qs := cacheGraph(t, probe)
	mustQuery(t, probe, qs[0], nil)
	_, one, _, _ := cacheStats(t, probe)
	probe.Close()
	limit := one + one/2
	db, err := engine.Open("", engine.Options{AlgoCacheBytes: limit})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cacheGraph(t, db)
	held := false
	for range 3 {
		for _, q := range qs {
			mustQuery(t, db, q, nil)
			e, b, _, _ := cacheStats(t, db)
			if b > limit {
				t.Fatalf("after %s: %d entries, %d bytes over the bound %d", q, e, b, limit)
			}
			held = held || e > 0
		}
	}
	if !held {
		t.Fatal("the cache never held an entry")
	}
	row := mustQuery(t, db, "CALL algo.cache.stats() YIELD evictions, maxBytes RETURN evictions > 0, maxBytes", nil)
	if want := fmt.Sprintf("true | %d", limit); len(row) != 1 || row[0] != want {
		t.Fatalf("stats %v, want %s", row, want)
	}
}

// Concurrent calls and commits (run with -race): every call's rows are
// those of some committed version.
func TestAlgoCacheConcurrent(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	cacheGraph(t, db)
	count := "CALL algo.wcc.stream({}) YIELD componentId RETURN count(DISTINCT componentId)"
	var wg sync.WaitGroup
	errc := make(chan error, 8)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 20 {
				res, err := db.Query(t.Context(), count, nil)
				if err == nil {
					var rows []string
					rows, err = drain(res)
					if err == nil && (len(rows) != 1 || rows[0] < "1" || rows[0] > "6") {
						err = fmt.Errorf("worker %d: components %v", w, rows)
					}
				}
				if err != nil {
					errc <- err
					return
				}
			}
		}()
	}
	for i := range 5 {
		mustQuery(t, db, fmt.Sprintf("MATCH (a:N {i: %d}), (b:N {i: %d}) CREATE (a)-[:R {w: 1.0}]->(b)", 10*i+9, 10*i+10), nil)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	if got := mustQuery(t, db, count, nil); got[0] != "1" {
		t.Fatalf("after the commits: %v components, want 1", got)
	}
}
