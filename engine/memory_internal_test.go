package engine

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine/errs"
	"github.com/quiverdb/quiver/vector"
)

// The heap watchdog (Options.WatchHeap) fails the statement holding the
// most when the process's live heap passes its share of the budget, even
// though the statement's own charges are well within it.
func TestHeapWatchdogFailsTheLargest(t *testing.T) {
	// Ballast: live heap well past 90% of the budget, whatever else the
	// test binary holds.
	ballast := make([]byte, 16<<20)
	defer runtime.KeepAlive(ballast)
	db, err := Open("", Options{MaxMemory: 8 << 20, WatchHeap: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// The procedure holds the statement open until the watchdog fails it
	// (the watchdog may as well fail it earlier, while collect runs: the
	// ballast is live from the start).
	err = db.RegisterProcedure(ProcedureSignature{Name: "test.hold", Outputs: []ProcedureField{{Name: "done", Type: "BOOLEAN"}}},
		func(ctx context.Context, _ []vector.Value) ([][]vector.Value, error) {
			select {
			case <-ctx.Done():
			case <-time.After(10 * time.Second): // the watchdog never came
			}
			return nil, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	// The query holds a few hundred kilobytes, far from the budget.
	start := time.Now()
	res, err := db.Query(context.Background(), "UNWIND range(1, 10000) AS x WITH collect(x) AS c CALL test.hold() YIELD done RETURN size(c)", nil)
	if err == nil {
		for err == nil {
			var b *vector.Batch
			if b, err = res.Next(); b == nil && err == nil {
				break
			}
		}
		res.Close()
	}
	e, ok := errs.As(err)
	if !ok || e.Code != errs.CodeOutOfMemory || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v, want 53200 from the watchdog", err, time.Since(start))
	}
}

// Past its threshold the heap watchdog empties the algorithm projection
// cache before it fails a statement, then waits for the next collection.
func TestHeapWatchdogDropsTheAlgoCacheFirst(t *testing.T) {
	db, err := Open("", Options{MaxMemory: 1 << 40})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	drain := func(q string) {
		res, err := db.Query(context.Background(), q, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Close()
		for {
			b, err := res.Next()
			if err != nil {
				t.Fatal(err)
			}
			if b == nil {
				return
			}
		}
	}
	drain("UNWIND range(1, 100) AS i CREATE (:N)-[:R]->(:N)")
	drain("CALL algo.wcc.stream({}) YIELD componentId RETURN count(*)")
	g := db.mem
	if db.algoCache.Stats().Bytes == 0 {
		t.Fatal("the call left nothing in the cache")
	}
	if g.Judge(g.Threshold()-1, 1) || db.algoCache.Stats().Bytes == 0 {
		t.Fatal("the watchdog acted under its threshold")
	}
	if !g.Judge(g.Threshold(), 1) || db.algoCache.Stats().Bytes != 0 {
		t.Fatalf("past the threshold: cache %d bytes; want it emptied in cycle 1", db.algoCache.Stats().Bytes)
	}
	drain("CALL algo.wcc.stream({}) YIELD componentId RETURN count(*)")
	if g.Judge(g.Threshold(), 1) || db.algoCache.Stats().Bytes == 0 {
		t.Fatal("the watchdog acted twice in one collection cycle")
	}
}
