package engine_test

import (
	"fmt"
	"math/rand"
	"path/filepath"
	"sync"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/errs"
)

// Concurrent transfers between accounts: explicit transactions at every
// level (retried on 40001) and auto-commit statements, with checkpoints
// running meanwhile. The total never changes — in every transaction's
// reads, after all of it, and after a crash and recovery.
func TestConcurrentTransfersKeepTheTotal(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	const accounts, total = 8, 800
	mustQuery(t, db, "UNWIND range(0, 7) AS i CREATE (:Acct {id: i, bal: 100})", nil)
	levels := []engine.IsolationLevel{engine.ReadCommitted, engine.RepeatableRead, engine.Serializable}
	var wg sync.WaitGroup
	var mu sync.Mutex
	committed, conflicts := 0, 0
	errc := make(chan error, 16)
	for w := 0; w < 6; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			rnd := rand.New(rand.NewSource(int64(w)))
			for i := 0; i < 40; i++ {
				a, b := rnd.Intn(accounts), rnd.Intn(accounts)
				x := int64(rnd.Intn(10))
				p := engine.Params{"a": int64(a), "b": int64(b), "x": x}
				if w == 0 {
					if _, err := db.Query(t.Context(), "CHECKPOINT", nil); err != nil {
						errc <- err
						return
					}
				}
				if w%3 == 1 { // auto-commit: one statement, never a conflict
					r, err := db.Query(t.Context(), "MATCH (a:Acct {id: $a}), (b:Acct {id: $b}) SET a.bal = a.bal - $x, b.bal = b.bal + $x", p)
					if err == nil {
						_, err = drain(r)
					}
					if err != nil {
						errc <- err
						return
					}
					continue
				}
				tx, err := db.BeginTransaction(engine.TransactionOptions{Isolation: levels[rnd.Intn(3)]})
				if err != nil {
					errc <- err
					return
				}
				var sum string
				steps := []string{
					"MATCH (a:Acct) RETURN sum(a.bal)",
					"MATCH (a:Acct {id: $a}) SET a.bal = a.bal - $x",
					"MATCH (b:Acct {id: $b}) SET b.bal = b.bal + $x",
				}
				failed := false
				for k, q := range steps {
					r, err := tx.Query(t.Context(), q, p)
					var rows []string
					if err == nil {
						rows, err = drain(r)
					}
					if err != nil {
						if hasCode(err, errs.CodeSerialization) {
							failed = true
							break
						}
						errc <- fmt.Errorf("%s: %w", q, err)
						return
					}
					if k == 0 {
						sum = rows[0]
					}
				}
				if !failed && sum != fmt.Sprint(total) { // every committed version holds the total
					errc <- fmt.Errorf("a %s transaction read a total of %s", tx.Isolation(), sum)
					return
				}
				if failed {
					tx.Rollback()
				} else if _, err := tx.Commit(); err != nil && !hasCode(err, errs.CodeSerialization) {
					errc <- err
					return
				} else if err != nil {
					failed = true
				}
				mu.Lock()
				if failed {
					conflicts++
				} else {
					committed++
				}
				mu.Unlock()
			}
		}(w)
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Fatal(err)
	}
	t.Logf("%d transactions committed, %d failed with 40001", committed, conflicts)
	want := fmt.Sprint(total)
	if got := one(t, db, "MATCH (a:Acct) RETURN sum(a.bal)"); got != want {
		t.Fatalf("total %s, want %s", got, want)
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
	if got := one(t, db, "MATCH (a:Acct) RETURN sum(a.bal)"); got != want {
		t.Fatalf("total after recovery %s, want %s", got, want)
	}
}
