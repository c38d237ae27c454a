package engine_test

import (
	"context"
	"slices"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// A filter on the far node of a long expansion turns into a set of the
// passing nodes: PROFILE shows the expansion emitting only the rows that
// pass once the set is made, with the rule on; every row with it off, or
// in a transaction that wrote (the set is never made there). The counts
// agree every way.
func TestFarSetRows(t *testing.T) {
	ctx := context.Background()
	setup := func(db *engine.DB) {
		// 4 hubs x 1000 Q nodes, a quarter of them in city 'c1': 4000
		// rows, 1000 passing.
		mustQuery(t, db, "UNWIND range(1, 4) AS h CREATE (:H {id: h})", nil)
		mustQuery(t, db, "UNWIND range(0, 999) AS i CREATE (:Q {i: i, city: 'c' + toString(i % 4)})", nil)
		mustQuery(t, db, "MATCH (h:H), (q:Q) CREATE (h)-[:T]->(q)", nil)
	}
	// count(DISTINCT …): count(*) would count from the sets of count-filter.
	const q = "PROFILE MATCH (h:H)-[:T]->(q:Q) WHERE h.id >= 1 AND q.city = 'c1' RETURN count(DISTINCT [h, q]) AS n"
	expandRows := func(run func() (*engine.Result, error)) int64 {
		t.Helper()
		res, err := run()
		if err != nil {
			t.Fatal(err)
		}
		rows, err := drain(res)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(rows, []string{"1000"}) {
			t.Fatalf("count = %v, want [1000]", rows)
		}
		for _, op := range res.Profile().Operators {
			if op.Name == "Expand" {
				return op.Rows
			}
		}
		t.Fatalf("no Expand in %+v", res.Profile().Operators)
		return 0
	}

	open := func(opts engine.Options) *engine.DB {
		db, err := engine.Open(t.TempDir(), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		setup(db)
		return db
	}
	// One worker: each worker makes its own set.
	on := open(engine.Options{Parallelism: 1})
	// The first batch goes through the filter (1024 rows, of 1000 Q
	// nodes: more than an eighth); the 2976 rows after it are emitted
	// only when they pass, 2976 / 4.
	if n := expandRows(func() (*engine.Result, error) { return on.Query(ctx, q, nil) }); n != 1024+2976/4 {
		t.Errorf("rule on: Expand emitted %d rows, want %d", n, 1024+2976/4)
	}

	off := open(engine.Options{Parallelism: 1, DisabledRules: []string{"far-set"}})
	if n := expandRows(func() (*engine.Result, error) { return off.Query(ctx, q, nil) }); n != 4000 {
		t.Errorf("rule off: Expand emitted %d rows, want 4000", n)
	}

	tx, err := on.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	res, err := tx.Query(ctx, "CREATE (:Other)", nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drain(res); err != nil {
		t.Fatal(err)
	}
	if n := expandRows(func() (*engine.Result, error) { return tx.Query(ctx, q, nil) }); n != 4000 {
		t.Errorf("after a write: Expand emitted %d rows, want 4000", n)
	}
}
