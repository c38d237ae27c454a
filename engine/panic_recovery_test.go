package engine_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/vector"
)

// A statement that panics answers an internal error (40000), and leaves
// nothing behind that later statements trip over: no writer's lock, no
// memory counted against the server's budget, no half-applied write or
// schema change, no transaction left open. The panics come from a
// procedure registered by the test and from the engine's test hooks.
func TestPanicLeavesNothingBehind(t *testing.T) {
	in := t.TempDir()
	writeFiles(t, in, map[string]string{"copied.csv": "id,name\n1,a\n2,b\n"})
	db := openTestDBWith(t, engine.Options{MaxMemory: 1 << 30, ImportDir: in})
	err := db.RegisterProcedure(engine.ProcedureSignature{Name: "test.boom",
		Inputs:  []engine.ProcedureField{{Name: "x", Type: "INTEGER"}},
		Outputs: []engine.ProcedureField{{Name: "y", Type: "INTEGER"}}},
		func(_ context.Context, args []vector.Value) ([][]vector.Value, error) {
			if x, _ := args[0].(int64); x >= 3000 {
				panic(fmt.Sprintf("test.boom(%d)", x))
			}
			return [][]vector.Value{{args[0]}}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	wantInternal := func(what string, err error) {
		t.Helper()
		if codeOf(err) != "40000" {
			t.Fatalf("%s: got %v, want 40000", what, err)
		}
	}
	// run runs q to its end and returns its error.
	run := func(q string) error {
		res, err := db.Query(ctx, q, nil)
		if err != nil {
			return err
		}
		_, err = drain(res)
		return err
	}
	// later checks that the database still serves: a write (within a
	// deadline, in case a lock was left held) and a read.
	later := func(after string) {
		t.Helper()
		done := make(chan error, 1)
		go func() { done <- run("CREATE (:Later)") }()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("a write after %s: %v", after, err)
			}
		case <-time.After(30 * time.Second):
			t.Fatalf("a write after %s still waits after 30 s: the writer's lock was left held", after)
		}
		if used, n := engine.MemoryInUse(db); used != 0 || n != 0 {
			t.Fatalf("after %s, %d statements still hold %d bytes of the server's budget", after, n, used)
		}
		if err := db.Check(); err != nil {
			t.Fatalf("after %s: %v", after, err)
		}
	}

	// A panic while the first batch is computed (in the aggregation,
	// after collect() charged the budget), while rows stream, and in a
	// write that holds the writer's lock.
	for _, q := range []string{
		"UNWIND range(1, 20000) AS x WITH collect(toString(x)) AS l, max(x) AS m CALL test.boom(m) YIELD y RETURN y, size(l)",
		"UNWIND range(1, 5000) AS x CALL test.boom(x) YIELD y RETURN y",
		"UNWIND range(1, 5000) AS x CREATE (:Half {x: x}) WITH x CALL test.boom(x) YIELD y RETURN count(y)",
	} {
		wantInternal(q, run(q))
		later(q)
	}
	if rows := mustQuery(t, db, "MATCH (n:Half) RETURN count(*)", nil); fmt.Sprint(rows) != "[0]" {
		t.Fatalf("the panicked write left %v nodes, want none", rows)
	}

	// A schema statement and a COPY that panic after their change,
	// before their commit.
	engine.SetOwnCommitHook(func() { panic("own commit hook") })
	wantInternal("CREATE INDEX", run("CREATE INDEX FOR (n:Later) ON (n.x)"))
	wantInternal("COPY", run("COPY Copied FROM 'copied.csv'"))
	engine.SetOwnCommitHook(nil)
	later("a panicked CREATE INDEX and COPY")
	if rows := mustQuery(t, db, "SHOW INDEXES", nil); len(rows) != 0 {
		t.Fatalf("the panicked CREATE INDEX left %v", rows)
	}
	if rows := mustQuery(t, db, "MATCH (n:Copied) RETURN count(*)", nil); fmt.Sprint(rows) != "[0]" {
		t.Fatalf("the panicked COPY left %v nodes, want none", rows)
	}
	mustQuery(t, db, "CREATE INDEX FOR (n:Later) ON (n.x)", nil)
	mustQuery(t, db, "COPY Copied FROM 'copied.csv'", nil)

	// In an explicit transaction: a statement that panics fails the
	// transaction; a commit that panics ends it, rolled back.
	tx, err := db.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Query(ctx, "CREATE (:InTx)", nil); err != nil {
		t.Fatal(err)
	}
	_, err = tx.Query(ctx, "UNWIND range(2999, 3001) AS x CALL test.boom(x) YIELD y RETURN y", nil)
	wantInternal("a statement in a transaction", err)
	if _, err := tx.Commit(); codeOf(err) != "40000" {
		t.Fatalf("commit of a failed transaction: got %v, want 40000", err)
	}
	tx, err = db.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Query(ctx, "CREATE (:InTx)", nil); err != nil {
		t.Fatal(err)
	}
	engine.SetCommitHook(func() { panic("commit hook") })
	_, err = tx.Commit()
	engine.SetCommitHook(nil)
	wantInternal("a commit", err)
	if n := db.OpenTransactions(); n != 0 {
		t.Fatalf("%d transactions still open after a commit that panicked", n)
	}
	later("a panicked commit")
	if rows := mustQuery(t, db, "MATCH (n:InTx) RETURN count(*)", nil); fmt.Sprint(rows) != "[0]" {
		t.Fatalf("the transactions that failed left %v nodes, want none", rows)
	}
}
