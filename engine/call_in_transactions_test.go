package engine_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/quiverdb/quiver/engine"
)

// CALL { … } IN TRANSACTIONS OF 2 ROWS over 5 rows commits three times,
// 2, 2 and 1 nodes, each a commit of its own in the change feed; the
// statement after it is the next commit (the last batch left no empty
// one behind).
func TestCallInTransactionsCommitsPerBatch(t *testing.T) {
	db := openTestDB(t)
	feed, err := db.SubscribeChanges(engine.SubscribeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close()
	ctx := context.Background()
	for _, q := range []string{
		"UNWIND range(1, 5) AS i CALL (i) { CREATE (:B {i: i}) } IN TRANSACTIONS OF 2 ROWS",
		"CREATE (:After)",
	} {
		res, err := db.Query(ctx, q, nil)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		if _, err := drain(res); err != nil {
			t.Fatal(err)
		}
	}
	var sizes []int
	var last uint64
	for range 4 {
		nctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		b, err := feed.Next(nctx)
		cancel()
		if err != nil {
			t.Fatalf("after commits of %v: %v", sizes, err)
		}
		if b.TS <= last {
			t.Fatalf("commit timestamps not increasing: %d after %d", b.TS, last)
		}
		last = b.TS
		sizes = append(sizes, len(b.Changes))
	}
	if want := []int{2, 2, 1, 1}; !slices.Equal(sizes, want) {
		t.Fatalf("commits created %v nodes, want %v (three batches, then the next statement)", sizes, want)
	}
}

// In an explicit transaction CALL { … } IN TRANSACTIONS is refused with
// 25000 (invalid transaction state), before anything runs.
func TestCallInTransactionsRefusedInExplicitTransaction(t *testing.T) {
	db := openTestDB(t)
	tx, err := db.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = tx.Query(context.Background(), "UNWIND range(1, 3) AS i CALL (i) { CREATE (:B {i: i}) } IN TRANSACTIONS OF 2 ROWS", nil)
	e, ok := engine.AsError(err)
	if !ok || e.Code != "25000" {
		t.Fatalf("got %v, want a 25000 error", err)
	}
	if _, err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	res, err := db.Query(context.Background(), "MATCH (b:B) RETURN count(b) AS n", nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := drain(res)
	if err != nil || len(rows) != 1 || rows[0] != "0" {
		t.Fatalf("rows %v, %v: want no B", rows, err)
	}
}
