package engine_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/errs"
)

// recorder is an Observer that counts what it is told.
type recorder struct {
	mu       sync.Mutex // protects the counts
	ok, fail int
	tx       map[engine.TransactionOutcome]int
}

func (r *recorder) StatementEnded(d time.Duration, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if d < 0 {
		panic("negative duration")
	}
	if err != nil {
		r.fail++
	} else {
		r.ok++
	}
}

func (r *recorder) TransactionEnded(o engine.TransactionOutcome) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.tx[o]++
}

type observed struct{ ok, fail, committed, rolledBack, failed int }

func (r *recorder) take() observed {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := observed{r.ok, r.fail, r.tx[engine.TxCommitted], r.tx[engine.TxRolledBack], r.tx[engine.TxFailed]}
	r.ok, r.fail, r.tx = 0, 0, map[engine.TransactionOutcome]int{}
	return o
}

// Every statement and transaction ends exactly once, with the outcome
// docs/operations.md defines, whatever way it ends.
func TestObserverCountsEveryEnd(t *testing.T) {
	rec := &recorder{tx: map[engine.TransactionOutcome]int{}}
	db := openTestDBWith(t, engine.Options{Observer: rec})
	ctx := context.Background()
	expect := func(what string, want observed) {
		t.Helper()
		if got := rec.take(); got != want {
			t.Fatalf("%s: observed %+v, want %+v", what, got, want)
		}
	}

	mustQuery(t, db, "CREATE (:N {v: 1})", nil)
	mustQuery(t, db, "MATCH (n:N) RETURN n.v", nil)
	mustQuery(t, db, "EXPLAIN MATCH (n:N) RETURN n", nil)
	mustQuery(t, db, "SHOW query_timeout", nil)
	expect("auto-commit statements", observed{ok: 4, committed: 4})

	if _, err := db.Query(ctx, "MATCH (n RETURN n", nil); err == nil {
		t.Fatal("a syntax error ran")
	}
	if _, err := db.Query(ctx, "RETURN 1/0", nil); err == nil {
		t.Fatal("1/0 ran")
	}
	expect("failed auto-commit statements", observed{fail: 2, failed: 2})

	// Rows that fail in a later batch: the statement fails as it streams.
	res, err := db.Query(ctx, "UNWIND range(1, 5000) AS x RETURN 10 / (x - 3000)", nil)
	if err != nil {
		t.Fatal(err)
	}
	expect("a streaming statement before its end", observed{})
	if _, err := drain(res); err == nil {
		t.Fatal("division by zero streamed")
	}
	res.Close()
	expect("failed while streaming", observed{fail: 1, failed: 1})

	// Closed early: it ends once, successfully.
	res, err = db.Query(ctx, "UNWIND range(1, 5000) AS x RETURN x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if b, err := res.Next(); err != nil || b == nil {
		t.Fatalf("first batch: %v", err)
	}
	res.Close()
	res.Close()
	expect("closed early", observed{ok: 1, committed: 1})

	// Explicit transactions: committed, rolled back, failed commit.
	tx := begin(t, db, engine.ReadCommitted)
	mustQuery(t, tx, "CREATE (:T)", nil)
	mustQuery(t, tx, "MATCH (n) RETURN count(*)", nil)
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	expect("a committed transaction", observed{ok: 2, committed: 1})

	tx = begin(t, db, engine.ReadCommitted)
	mustQuery(t, tx, "CREATE (:T)", nil)
	if _, err := tx.Query(ctx, "RETURN 1/0", nil); err == nil {
		t.Fatal("1/0 ran")
	}
	if _, err := tx.Query(ctx, "RETURN 1", nil); err == nil {
		t.Fatal("an aborted transaction ran a statement")
	}
	if _, err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	expect("a client's rollback of an aborted transaction", observed{ok: 1, fail: 2, rolledBack: 1})

	tx = begin(t, db, engine.ReadCommitted)
	if _, err := tx.Query(ctx, "RETURN 1/0", nil); err == nil {
		t.Fatal("1/0 ran")
	}
	if _, err := tx.Commit(); !hasCode(err, errs.CodeTransaction) {
		t.Fatalf("commit of a failed transaction: %v", err)
	}
	if _, err := tx.Commit(); !hasCode(err, errs.CodeNotFound) {
		t.Fatalf("second commit: %v", err)
	}
	expect("COMMIT of a failed transaction", observed{fail: 1, failed: 1})

	t1, t2 := begin(t, db, engine.RepeatableRead), begin(t, db, engine.RepeatableRead)
	mustQuery(t, t1, "MATCH (n:N) SET n.v = 2", nil)
	mustQuery(t, t2, "MATCH (n:N) SET n.v = 3", nil)
	if _, err := t1.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := t2.Commit(); !hasCode(err, errs.CodeSerialization) {
		t.Fatalf("conflicting commit: %v", err)
	}
	expect("a 40001 conflict", observed{ok: 2, committed: 1, failed: 1})

	// A statement of a transaction streams: it ends when its rows do.
	tx = begin(t, db, engine.ReadCommitted)
	res, err = tx.Query(ctx, "UNWIND range(1, 5000) AS x RETURN x", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Query(ctx, "RETURN 1", nil); err == nil {
		t.Fatal("a busy transaction ran a second statement")
	}
	expect("refused while busy", observed{fail: 1})
	if _, err := drain(res); err != nil {
		t.Fatal(err)
	}
	expect("a transaction's streamed statement", observed{ok: 1})

	// Expiry fails a transaction.
	exp, err := db.BeginTransaction(engine.TransactionOptions{Timeout: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := db.Transaction(exp.ID()); err != nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the transaction never expired")
		}
		time.Sleep(time.Millisecond) // polling for the timer, not ordering
	}
	expect("expiry", observed{failed: 1})

	// Still open at Close: counted as expired, once.
	if _, err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	rec.take()
	begin(t, db, engine.ReadCommitted)
	db.Close()
	expect("open at close", observed{failed: 1})
	if _, err := db.Query(ctx, "RETURN 1", nil); err == nil {
		t.Fatal("a closed database ran a statement")
	}
	expect("after close", observed{fail: 1, failed: 1})
}

// Without an Observer nothing is reported and nothing breaks.
func TestObserverOptional(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustQuery(t, db, "RETURN 1", nil)
	tx := begin(t, db, engine.ReadCommitted)
	mustQuery(t, tx, "RETURN 1", nil)
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
}
