package main

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/quiverdb/quiver/internal/serverproc"
)

// TestCDCCrash: with change capture on, concurrent writers, SIGKILL at a
// random moment and restart, a few times over (with checkpoints during
// the run): afterwards cdc.changes, paged from the first position to the
// end, lists every node the database holds created exactly once, every
// acknowledged write among them, nothing else, in rising positions, and
// cdc.earliest() never moved (no change was lost).
func TestCDCCrash(t *testing.T) {
	seed := crashEnvInt(t, "QUIVER_CRASH_SEED", time.Now().UnixNano())
	t.Logf("seed %d", seed)
	dir := t.TempDir()
	bin := serverproc.Build(t)
	data := filepath.Join(dir, "data")
	flags := []string{"--cdc-retention", "1h", "--checkpoint-wal-size", "64KB"}
	var acked sync.Map // key -> true: acknowledged creations
	first := ""
	for cycle := range 3 {
		srv := startCrashServer(t, bin, data, dir, fmt.Sprintf("cdc-%d", cycle), flags)
		c := newCrashClient(srv.addr, 8)
		if e := c.rows(t, "CALL cdc.earliest()", nil)[0]["position"].(string); first == "" {
			first = e
		} else if e != first {
			t.Fatalf("cycle %d: cdc.earliest() moved from %s to %s: changes were lost\n%s", cycle, first, e, srv.logTail(20))
		}
		ctx, cancel := context.WithCancel(context.Background())
		var n atomic.Int64
		var wg sync.WaitGroup
		for w := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; ctx.Err() == nil; i++ {
					k := int64(cycle*1_000_000 + w*100_000 + i)
					r := c.post(ctx, crashStmt{"CREATE (:W {k: $k})", map[string]any{"k": k}})
					if r.acked() {
						acked.Store(k, true)
						n.Add(1)
					}
				}
			}()
		}
		target := int64(100 + (seed+int64(cycle)*7919)%300)
		for deadline := time.Now().Add(time.Minute); n.Load() < target; {
			if time.Now().After(deadline) {
				t.Fatalf("cycle %d: %d writes acknowledged in a minute", cycle, n.Load())
			}
			time.Sleep(2 * time.Millisecond) // polling the writers' progress
		}
		srv.kill()
		cancel()
		wg.Wait()
		c.close()
	}
	srv := startCrashServer(t, bin, data, dir, "cdc-final", flags)
	c := newCrashClient(srv.addr, 1)
	defer c.close()
	if e := c.rows(t, "CALL cdc.earliest()", nil)[0]["position"].(string); e != first {
		t.Fatalf("cdc.earliest() moved from %s to %s: changes were lost", first, e)
	}
	inLog := map[int64]bool{}
	from, last := first, ""
	for {
		rows := c.rows(t, "CALL cdc.changes($from, {limit: 1000}) YIELD position, operation, after RETURN position, operation, after", map[string]any{"from": from})
		for _, r := range rows {
			pos := r["position"].(string)
			if pos <= last {
				t.Fatalf("position %s after %s", pos, last)
			}
			last, from = pos, pos
			if r["operation"] != "created" {
				t.Fatalf("%s: %v", pos, r)
			}
			k, ok := crashInt(r["after"].(map[string]any)["k"])
			if !ok || inLog[k] {
				t.Fatalf("%s: node k=%v created twice or without k", pos, r["after"])
			}
			inLog[k] = true
		}
		if len(rows) < 1000 {
			break
		}
	}
	inDB := map[int64]bool{}
	for _, r := range c.rows(t, "MATCH (n:W) RETURN n.k AS k", nil) {
		k, _ := crashInt(r["k"])
		inDB[k] = true
		if !inLog[k] {
			t.Fatalf("node k=%d is in the database but not in the change log", k)
		}
	}
	if len(inDB) != len(inLog) {
		t.Fatalf("the change log created %d nodes, the database holds %d", len(inLog), len(inDB))
	}
	missing := 0
	acked.Range(func(k, _ any) bool {
		if !inDB[k.(int64)] {
			missing++
		}
		return true
	})
	if missing > 0 {
		t.Fatalf("%d acknowledged writes are missing", missing)
	}
	t.Logf("%d nodes created over 3 kills, all in the change log once", len(inDB))
}
