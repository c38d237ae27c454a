package engine_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/errs"
)

func hasCode(err error, code string) bool {
	e, ok := errs.As(err)
	return ok && e.Code == code
}

func begin(t *testing.T, db *engine.DB, level engine.IsolationLevel) *engine.Transaction {
	t.Helper()
	tx, err := db.BeginTransaction(engine.TransactionOptions{Isolation: level})
	if err != nil {
		t.Fatal(err)
	}
	return tx
}

func one(t *testing.T, q querier, text string) string {
	t.Helper()
	return strings.Join(mustQuery(t, q, text, nil), ",")
}

// A transaction's writes are its own until it commits, then everyone's;
// a rolled-back transaction leaves nothing.
func TestTransactionCommitAndRollback(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx := begin(t, db, engine.ReadCommitted)
	mustQuery(t, tx, "CREATE (:T {v: 1})", nil)
	mustQuery(t, tx, "MATCH (t:T) SET t.v = t.v + 1", nil)
	if got := one(t, tx, "MATCH (t:T) RETURN t.v"); got != "2" {
		t.Fatalf("inside: %s", got)
	}
	if got := one(t, db, "MATCH (t:T) RETURN count(*)"); got != "0" {
		t.Fatalf("outside before commit: %s", got)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := one(t, db, "MATCH (t:T) RETURN t.v"); got != "2" {
		t.Fatalf("after commit: %s", got)
	}
	if _, err := tx.Query(t.Context(), "RETURN 1", nil); !hasCode(err, errs.CodeNotFound) || !strings.Contains(err.Error(), "committed") {
		t.Fatalf("query after commit: %v", err)
	}
	if _, err := db.Transaction(tx.ID()); !hasCode(err, errs.CodeNotFound) {
		t.Fatalf("lookup after commit: %v", err)
	}

	tx = begin(t, db, engine.RepeatableRead)
	mustQuery(t, tx, "CREATE (:T {v: 10}), (:U)", nil)
	mustQuery(t, tx, "CREATE INDEX t_v FOR (t:T) ON (t.v)", nil)
	if _, err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if got := one(t, db, "MATCH (n) RETURN count(*)"); got != "1" {
		t.Fatalf("after rollback: %s nodes", got)
	}
	if got := one(t, db, "SHOW INDEXES"); got != "" {
		t.Fatalf("index survived a rollback: %s", got)
	}
	if _, err := db.Transaction("nope"); !hasCode(err, errs.CodeNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
}

// Savepoints: ROLLBACK TO keeps the writes before the savepoint, RELEASE
// forgets it, and an unknown name is an error that fails the transaction
// as any failed statement does.
func TestTransactionSavepoints(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx := begin(t, db, engine.ReadCommitted)
	mustQuery(t, tx, "CREATE (:S {i: 1})", nil)
	mustQuery(t, tx, "SAVEPOINT a", nil)
	mustQuery(t, tx, "CREATE (:S {i: 2})", nil)
	mustQuery(t, tx, "SAVEPOINT b", nil)
	mustQuery(t, tx, "MATCH (s:S) SET s.i = s.i * 10", nil)
	if err := tx.RollbackTo("b"); err != nil {
		t.Fatal(err)
	}
	if got := one(t, tx, "MATCH (s:S) RETURN s.i ORDER BY s.i"); got != "1,2" {
		t.Fatalf("after ROLLBACK TO b: %s", got)
	}
	mustQuery(t, tx, "ROLLBACK TO SAVEPOINT a", nil)
	if got := one(t, tx, "MATCH (s:S) RETURN s.i ORDER BY s.i"); got != "1" {
		t.Fatalf("after ROLLBACK TO a: %s", got)
	}
	mustQuery(t, tx, "RELEASE SAVEPOINT a", nil)
	if err := tx.RollbackTo("a"); !hasCode(err, errs.CodeNoObject) {
		t.Fatalf("rollback to a released savepoint: %v", err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := one(t, db, "MATCH (s:S) RETURN s.i"); got != "1" {
		t.Fatalf("committed: %s", got)
	}
	if _, err := db.Query(t.Context(), "SAVEPOINT x", nil); !hasCode(err, errs.CodeTransaction) {
		t.Fatalf("SAVEPOINT outside a transaction: %v", err)
	}
}

// A failed statement fails the transaction (PostgreSQL's behaviour):
// later statements are refused, ROLLBACK TO SAVEPOINT makes it usable
// again, and COMMIT of a failed transaction rolls it back.
func TestTransactionFailedState(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustQuery(t, db, "CREATE CONSTRAINT u ON (n:F) ASSERT n.k IS UNIQUE", nil)
	tx := begin(t, db, engine.ReadCommitted)
	mustQuery(t, tx, "CREATE (:F {k: 1})", nil)
	mustQuery(t, tx, "SAVEPOINT ok", nil)
	if _, err := tx.Query(t.Context(), "RETURN 1/0", nil); err == nil {
		t.Fatal("division by zero succeeded")
	}
	if _, err := tx.Query(t.Context(), "RETURN 1", nil); !hasCode(err, errs.CodeTransaction) || !strings.Contains(err.Error(), "aborted") {
		t.Fatalf("statement after a failure: %v", err)
	}
	mustQuery(t, tx, "ROLLBACK TO SAVEPOINT ok", nil)
	mustQuery(t, tx, "CREATE (:F {k: 2})", nil)
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got := one(t, db, "MATCH (f:F) RETURN f.k ORDER BY f.k"); got != "1,2" {
		t.Fatalf("committed after recovery: %s", got)
	}

	tx = begin(t, db, engine.ReadCommitted)
	mustQuery(t, tx, "CREATE (:F {k: 3})", nil)
	if _, err := tx.Query(t.Context(), "CREATE (:F {k: 1})", nil); err == nil {
		t.Logf("the duplicate is caught at commit")
	}
	if _, err := tx.Commit(); err == nil {
		t.Fatal("a transaction violating a UNIQUE constraint committed")
	}
	if got := one(t, db, "MATCH (f:F) RETURN count(*)"); got != "2" {
		t.Fatalf("after a failed commit: %s nodes", got)
	}
}

// First committer wins: two transactions changing the same property, the
// second to commit gets 40001 and changes nothing; READ_COMMITTED sees
// commits at its next statement, REPEATABLE_READ never.
func TestTransactionConflictsAndLevels(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustQuery(t, db, "CREATE (:A {id: 1, v: 0}), (:A {id: 2, v: 0})", nil)
	t1, t2 := begin(t, db, engine.RepeatableRead), begin(t, db, engine.RepeatableRead)
	mustQuery(t, t1, "MATCH (a:A {id: 1}) SET a.v = 1", nil)
	mustQuery(t, t2, "MATCH (a:A {id: 1}) SET a.v = 2", nil)
	if _, err := t1.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := t2.Commit(); !hasCode(err, errs.CodeSerialization) {
		t.Fatalf("second committer: %v", err)
	}
	if got := one(t, db, "MATCH (a:A {id: 1}) RETURN a.v"); got != "1" {
		t.Fatalf("after the conflict: %s", got)
	}

	rc, rr := begin(t, db, engine.ReadCommitted), begin(t, db, engine.RepeatableRead)
	if one(t, rc, "MATCH (a:A {id: 2}) RETURN a.v") != "0" || one(t, rr, "MATCH (a:A {id: 2}) RETURN a.v") != "0" {
		t.Fatal("initial reads")
	}
	mustQuery(t, db, "MATCH (a:A {id: 2}) SET a.v = 5", nil)
	if got := one(t, rc, "MATCH (a:A {id: 2}) RETURN a.v"); got != "5" {
		t.Fatalf("READ_COMMITTED after another commit: %s", got)
	}
	if got := one(t, rr, "MATCH (a:A {id: 2}) RETURN a.v"); got != "0" {
		t.Fatalf("REPEATABLE_READ after another commit: %s", got)
	}
	rc.Rollback()
	rr.Rollback()
}

// Expiry rolls an open transaction back; limits bound open transactions
// per client; begin validates its options.
func TestTransactionExpiryAndLimits(t *testing.T) {
	db, err := engine.Open("", engine.Options{MaxTransactionsPerClient: 2, MaxTransactions: 3})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.BeginTransaction(engine.TransactionOptions{Timeout: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	mustQuery(t, tx, "CREATE (:E)", nil)
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, err := db.Transaction(tx.ID())
		if err != nil {
			if !strings.Contains(err.Error(), "expired") {
				t.Fatalf("after expiry: %v", err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the transaction never expired")
		}
		time.Sleep(time.Millisecond) // polling for the timer, not ordering
	}
	if _, err := tx.Commit(); !hasCode(err, errs.CodeNotFound) {
		t.Fatalf("commit after expiry: %v", err)
	}
	if got := one(t, db, "MATCH (e:E) RETURN count(*)"); got != "0" {
		t.Fatalf("an expired transaction's writes: %s", got)
	}

	a1, _ := db.BeginTransaction(engine.TransactionOptions{Client: "a"})
	a2, _ := db.BeginTransaction(engine.TransactionOptions{Client: "a"})
	if _, err := db.BeginTransaction(engine.TransactionOptions{Client: "a"}); !hasCode(err, errs.CodeTooMany) {
		t.Fatalf("third for one client: %v", err)
	}
	b1, err := db.BeginTransaction(engine.TransactionOptions{Client: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.BeginTransaction(engine.TransactionOptions{Client: "c"}); !hasCode(err, errs.CodeTooMany) {
		t.Fatalf("past the server limit: %v", err)
	}
	for _, x := range []*engine.Transaction{a1, a2, b1} {
		x.Rollback()
	}
	if db.OpenTransactions() != 0 {
		t.Fatalf("%d open after rolling back all", db.OpenTransactions())
	}
	if _, err := db.BeginTransaction(engine.TransactionOptions{Timeout: 2 * time.Hour}); !hasCode(err, errs.CodeInvalidParam) {
		t.Fatalf("a two-hour timeout: %v", err)
	}
	if _, err := engine.ParseIsolationLevel("dirty"); !hasCode(err, errs.CodeInvalidParam) {
		t.Fatalf("bad level: %v", err)
	}
}

// A statement that arrives while the expiry is rolling the transaction
// back is told it expired (02000), not that another statement is running
// (a poll raced the timer this way in CI).
func TestTransactionStatementDuringExpiry(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	err = engine.ExpireWhileHeld(tx, func() error {
		_, err := tx.Query(context.Background(), "RETURN 1", nil)
		return err
	})
	if !hasCode(err, errs.CodeNotFound) || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("a statement during the expiry: %v", err)
	}
	if _, err := db.Transaction(tx.ID()); err == nil || !strings.Contains(err.Error(), "expired") {
		t.Fatalf("after the expiry: %v", err)
	}
}

// A committed transaction is durable like an auto-commit statement.
func TestTransactionDurable(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	tx := begin(t, db, engine.Serializable)
	mustQuery(t, tx, "CREATE (:D {i: 1})", nil)
	mustQuery(t, tx, "CREATE INDEX d_i FOR (d:D) ON (d.i)", nil)
	mustQuery(t, tx, "CREATE (:D {i: 2})", nil)
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	open := begin(t, db, engine.ReadCommitted)
	mustQuery(t, open, "CREATE (:D {i: 3})", nil) // never committed
	engine.Abandon(db)
	db, err = engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := one(t, db, "MATCH (d:D) WHERE d.i > 0 RETURN d.i ORDER BY d.i"); got != "1,2" {
		t.Fatalf("after a crash: %s", got)
	}
	if got := one(t, db, "SHOW INDEXES"); !strings.Contains(got, "d_i") {
		t.Fatalf("index after a crash: %s", got)
	}
}

// rows_affected counts an update of an entity an earlier statement of the
// same transaction created as an update.
func TestTransactionCountsUpdatesOfEarlierCreates(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx := begin(t, db, engine.ReadCommitted)
	mustQuery(t, tx, "CREATE (:C {i: 1}), (:C {i: 2})", nil)
	r, err := tx.Query(t.Context(), "MATCH (c:C) SET c.j = c.i", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drain(r); err != nil {
		t.Fatal(err)
	}
	if s := r.Summary(); s.RowsAffected != 2 || s.WriteCounts.PropertiesSet != 2 {
		t.Fatalf("rows affected %d, properties set %d; want 2 and 2", s.RowsAffected, s.WriteCounts.PropertiesSet)
	}
	tx.Rollback()
}

// TestTransactionOf: an owner finds its own transaction and learns how it
// ended; another owner gets the answer of an id that never existed, for
// an open transaction and for an ended one.
func TestTransactionOf(t *testing.T) {
	db, err := engine.Open("", engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.BeginTransaction(engine.TransactionOptions{Owner: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	id := tx.ID()
	unknown := func(err error) bool {
		e, ok := engine.AsError(err)
		return ok && e.Code == engine.CodeNotFound && strings.HasSuffix(e.Message, "no such transaction (it never existed, or ended long ago)")
	}
	if got, err := db.TransactionOf(id, "ann"); err != nil || got != tx {
		t.Fatalf("the owner's open transaction: %v %v", got, err)
	}
	if _, err := db.TransactionOf(id, "bob"); !unknown(err) {
		t.Errorf("another owner's open transaction: %v", err)
	}
	if _, err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.TransactionOf(id, "ann"); err == nil || !strings.Contains(err.Error(), "it was committed") {
		t.Errorf("the owner's ended transaction: %v", err)
	}
	if _, err := db.TransactionOf(id, "bob"); !unknown(err) {
		t.Errorf("another owner's ended transaction: %v", err)
	}
}
