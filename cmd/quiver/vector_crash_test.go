package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/internal/serverproc"
)

// crashVec is a random 8-dimensional vector with 3-decimal elements.
func crashVec(rng *rand.Rand) []any {
	v := make([]any, 8)
	for i := range v {
		v[i] = float64(rng.IntN(2001)-1000) / 1000
	}
	return v
}

// TestVectorCrashRecovery: writers create, update and remove embeddings
// while a VECTOR index exists, the server is SIGKILLed mid-write, and
// after the restart the rebuilt index answers as the exact search over
// the recovered data does (ids and scores), and finds every acknowledged
// vector.
func TestVectorCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a server")
	}
	dir := t.TempDir()
	bin := serverproc.Build(t)
	data := filepath.Join(dir, "data")
	srv := startCrashServer(t, bin, data, dir, "vec-1", nil)
	c := newCrashClient(srv.addr, 4)
	c.rows(t, "CREATE VECTOR INDEX items FOR (n:Item) ON (n.v) OPTIONS {dimensions: 8, similarity: 'euclidean'}", nil)
	c.rows(t, "UNWIND range(1, 200) AS i CREATE (:Item {k: i, v: [x IN range(1, 8) | toFloat((i * x * 7919) % 1009) / 1009.0]})", nil)

	var mu sync.Mutex
	acked := map[int64][]any{} // k → the vector last acknowledged for it (nil: removed)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 11))
			for i := 0; ctx.Err() == nil; i++ {
				k := int64(1 + rng.IntN(300))
				v := crashVec(rng)
				q := "MERGE (n:Item {k: $k}) SET n.v = $v"
				if rng.IntN(6) == 0 {
					v, q = nil, "MATCH (n:Item {k: $k}) REMOVE n.v"
				}
				rctx, rcancel := context.WithTimeout(ctx, crashRequestTimeout)
				r := c.post(rctx, crashStmt{q, map[string]any{"k": k, "v": v}})
				rcancel()
				if r.acked() && k%4 == int64(w) { // only a k one writer owns is checked
					mu.Lock()
					acked[k] = v
					mu.Unlock()
				}
			}
		}()
	}
	deadline := time.Now().Add(crashStartTimeout)
	for {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 50 || time.Now().After(deadline) {
			break
		}
		time.Sleep(5 * time.Millisecond) // polling a real condition with a deadline
	}
	srv.kill()
	cancel()
	wg.Wait()
	c.close()

	srv = startCrashServer(t, bin, data, dir, "vec-2", nil)
	c = newCrashClient(srv.addr, 2)
	defer c.close()
	c.rows(t, "CALL db.awaitIndexes(120)", nil)
	search := func(target string, q []any) string {
		rows := c.rows(t, "CALL quiver.vector.search($t, $q, 10, {similarity: 'euclidean', ef: 400}) YIELD node, score RETURN node.k AS k, score",
			map[string]any{"t": target, "q": q})
		return fmt.Sprint(rows)
	}
	rng := rand.New(rand.NewPCG(99, 1))
	for range 20 {
		q := crashVec(rng)
		if got, want := search("items", q), search("Item.v", q); got != want {
			t.Errorf("after kill -9, query %v:\nindex %s\nexact %s", q, got, want)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	t.Logf("%d acknowledged vectors checked after the kill", len(acked))
	for k, v := range acked {
		rows := c.rows(t, "MATCH (n:Item {k: $k}) RETURN n.v = $v AS same, n.v IS NULL AS gone", map[string]any{"k": k, "v": v})
		if len(rows) != 1 {
			continue // removed before it was ever created
		}
		if v == nil || rows[0]["same"] != true {
			continue // removed, or a later write to k was durable but not acknowledged
		}
		hits := c.rows(t, "CALL quiver.vector.search('items', $v, 5, {ef: 400}) YIELD node, score WHERE node.k = $k RETURN score",
			map[string]any{"v": v, "k": k})
		if len(hits) != 1 || fmt.Sprint(hits[0]["score"]) != "1.0" { // the JSON number as sent
			t.Errorf("acknowledged vector of item %d not found after the restart: %v", k, hits)
		}
	}
}
