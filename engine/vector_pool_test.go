package engine_test

import (
	"context"
	"testing"

	"github.com/quiverdb/quiver/vector"
)

// A statement's batches come from its vector pool, which takes them back
// poisoned (in test binaries) when the statement ends: a reader that kept
// a batch past the last Next would read the poison values, so every suite
// that encodes results (HTTP, wire, the TCK) checks that none does.
func TestBatchReadAfterTheStatementEndsIsPoisoned(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	if _, err := db.Query(ctx, "UNWIND range(1, 3) AS i CREATE (:P {i: i})", nil); err != nil {
		t.Fatal(err)
	}
	res, err := db.Query(ctx, "MATCH (p:P) RETURN p", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := res.Next()
	if err != nil || b == nil {
		t.Fatalf("first batch: %v, %v", b, err)
	}
	col := b.Cols[0]
	if col.Type != vector.Node || col.IDs[b.Row(0)] == vector.PoisonID {
		t.Fatalf("the live batch holds %v %d, want a node id", col.Type, col.IDs[b.Row(0)])
	}
	for b != nil && err == nil {
		b, err = res.Next()
	}
	if err != nil {
		t.Fatal(err)
	}
	if got := col.IDs[0]; got != vector.PoisonID {
		t.Fatalf("after the statement ended its batch still holds %d; the pool did not take it back", got)
	}
}
