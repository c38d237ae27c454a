package engine_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// The LabelSets operator yields a row per label set while the sets are
// few, and a row per node once splitting by label no longer pays (more
// than 4096 sets): PROFILE shows which, and the counts agree both ways.
func TestLabelSetsRows(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	// 2 x 2^bits nodes, node i carrying label Lb when bit b of i % 2^bits
	// is set: 2^bits label sets of two nodes each.
	labelRows := func(bits int) (int64, []string) {
		t.Helper()
		mustQuery(t, db, "MATCH (n) DELETE n", nil)
		mustQuery(t, db, "UNWIND range(0, $n - 1) AS i CREATE (:N {i: i % ($n / 2)})", engine.Params{"n": int64(2) << bits})
		for b := range bits {
			mustQuery(t, db, fmt.Sprintf("MATCH (n:N) WHERE (n.i / %d) %% 2 = 1 SET n:L%d", 1<<b, b), nil)
		}
		res, err := db.Query(ctx, "PROFILE MATCH (n) RETURN size(labels(n)) AS k, count(*) AS c", nil)
		if err != nil {
			t.Fatal(err)
		}
		rows, err := drain(res)
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(rows)
		for _, op := range res.Profile().Operators {
			if op.Name == "LabelSets" {
				return op.Rows, rows
			}
		}
		t.Fatalf("no LabelSets in %+v", res.Profile().Operators)
		return 0, nil
	}
	// Four labels: 16 sets of 2 nodes; sizes 1..5 (N and k of L0..L3)
	// hold 2·C(4, k) nodes.
	n, rows := labelRows(4)
	if want := []string{"1 | 2", "2 | 8", "3 | 12", "4 | 8", "5 | 2"}; n != 16 || !slices.Equal(rows, want) {
		t.Errorf("4 labels: LabelSets yielded %d rows (want 16, one per set), result %q, want %q", n, rows, want)
	}
	// Thirteen labels: 8192 sets, so the 16384 nodes come one by one.
	if n, _ := labelRows(13); n != 16384 {
		t.Errorf("13 labels: LabelSets yielded %d rows, want 16384 (one per node)", n)
	}
}

// In a transaction, LabelSets splits the transaction's own version: its
// uncommitted label changes count, and no one else sees them.
func TestLabelSetsInTransaction(t *testing.T) {
	db := openTestDB(t)
	ctx := context.Background()
	mustQuery(t, db, "CREATE (:A), (:A), (:A:B), (:B)", nil)
	const q = "MATCH (n) RETURN labels(n) AS l, count(*) AS c ORDER BY c, l"
	before := []string{"['A', 'B'] | 1", "['B'] | 1", "['A'] | 2"}
	tx, err := db.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	for _, w := range []string{"MATCH (n:B) WHERE NOT n:A SET n:C", "CREATE (:C), (:A:C)", "MATCH (n:A:B) REMOVE n:B"} {
		res, err := tx.Query(ctx, w, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := drain(res); err != nil {
			t.Fatal(err)
		}
	}
	res, err := tx.Query(ctx, q, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := drain(res)
	if err != nil {
		t.Fatal(err)
	}
	// A: the two, and the former A:B; B:C: the former B; C and A:C new.
	if want := []string{"['A', 'C'] | 1", "['B', 'C'] | 1", "['C'] | 1", "['A'] | 3"}; !slices.Equal(got, want) {
		t.Errorf("in the transaction: %q, want %q", got, want)
	}
	if got := mustQuery(t, db, q, nil); !slices.Equal(got, before) {
		t.Errorf("outside the transaction: %q, want %q", got, before)
	}
}
