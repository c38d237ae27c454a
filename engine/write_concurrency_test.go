package engine_test

import (
	"context"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// TestConcurrentMerge: write statements from many goroutines are atomic:
// concurrent MERGEs of one pattern create it once, and read-modify-write
// SETs lose no update.
func TestConcurrentMerge(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	const workers, each = 6, 15
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				res, err := db.Query(context.Background(),
					"MERGE (n:U {k: 1}) ON CREATE SET n.c = 1 ON MATCH SET n.c = n.c + 1", nil)
				if err != nil {
					t.Error(err)
					return
				}
				res.Close()
				res, err = db.Query(context.Background(), "MATCH (n:U) SET n.d = coalesce(n.d, 0) + 1", nil)
				if err != nil {
					t.Error(err)
					return
				}
				res.Close()
			}
		}()
	}
	wg.Wait()
	res, err := db.Query(context.Background(), "MATCH (n:U) RETURN count(n), sum(n.c), sum(n.d)", nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	b, err := res.Next()
	if err != nil || b == nil {
		t.Fatal(err)
	}
	cnt, c, d := b.Cols[0].Get(0), b.Cols[1].Get(0), b.Cols[2].Get(0)
	if cnt != int64(1) || c != int64(workers*each) || d != int64(workers*each) {
		t.Fatalf("count %v, c %v, d %v; want 1, %d, %d", cnt, c, d, workers*each, workers*each)
	}
}
