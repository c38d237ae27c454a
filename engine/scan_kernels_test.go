package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/plan"
)

// TestScanKernelsAfterCompaction compares the range filters over column
// views (rules range-filter and label-cover) with the general path on a
// graph whose adjacency is a compacted base, where a relationship filter
// reads the slot-ordered view (storage RelSlotView) in both directions,
// then after writes that leave some neighbour lists in the overlay
// (deleted and created relationships, properties set to other types and
// to wider values), and after compacting again. Each query runs three
// times, so the views are built during the first run and read whole by
// the later ones.
func TestScanKernelsAfterCompaction(t *testing.T) {
	fast := openTestDBWith(t, engine.Options{Parallelism: 1})
	slow, err := engine.Open(t.TempDir(), engine.Options{Parallelism: 1,
		DisabledRules: []string{plan.RuleRangeFilter, plan.RuleLabelCover}})
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	dbs := []*engine.DB{fast, slow}
	exec := func(q string) {
		t.Helper()
		for _, db := range dbs {
			mustQuery(t, db, q, nil)
		}
	}
	queries := []string{
		"MATCH (a:P)-[k:R]->(b:P) WHERE k.since > 20 AND b.age < 25 RETURN a.id % 7 AS g, count(*) AS c",
		"MATCH (a:P)<-[k:R]-(b) WHERE k.since <= 3 RETURN a.id AS a, b.id AS b, k.since AS s",
		"MATCH (a:P)-[k:R]-(b:P) WHERE k.since = 17 AND a.age >= 40 RETURN a.id AS a, b.id AS b",
		"MATCH (a:P)-[k:R]->(b) WHERE b.age > 70 AND k.since < 10 AND a.age < 30 RETURN count(*) AS c",
		"MATCH (b:P) WHERE b.age < 12 WITH b MATCH (a)-[k:R]->(b) WHERE k.since >= 25 RETURN a.id AS a, b.id AS b",
		"MATCH (p:P) WHERE p.age > 41 RETURN count(*) AS c",
		"MATCH (p) WHERE p.age >= 10 AND p.age <= 12 RETURN p.id AS id",
	}
	compare := func(stage string) {
		t.Helper()
		for _, q := range queries {
			var want []string
			for run := 0; run < 3; run++ {
				got := mustQuery(t, fast, q, nil)
				slices.Sort(got)
				if run == 0 {
					want = mustQuery(t, slow, q, nil)
					slices.Sort(want)
					if len(want) == 0 {
						t.Fatalf("%s: %s: no rows to compare", stage, q)
					}
				}
				if gs, ws := scanned(t, fast, q), scanned(t, slow, q); gs != ws {
					t.Fatalf("%s run %d: %s: %d rows scanned, general path %d", stage, run, q, gs, ws)
				}
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("%s run %d: %s\nrange filters: %d rows %v\ngeneral:       %d rows %v",
						stage, run, q, len(got), head(got), len(want), head(want))
				}
			}
		}
	}
	exec("CREATE INDEX FOR (p:P) ON (p.id)")
	exec("UNWIND range(0, 3999) AS i CREATE (:P {id: i, age: (i * 37) % 83})")
	exec("UNWIND range(0, 99) AS i CREATE (:Q {id: 10000 + i, age: i})")
	for j := 1; j <= 3; j++ {
		exec(fmt.Sprintf("MATCH (a:P) MATCH (b:P {id: (a.id * 7 + %d) %% 4000}) CREATE (a)-[:R {since: (a.id * %d + %d) %% 30}]->(b)", j*13, j+6, j))
	}
	exec("MATCH (a:P {id: 5}), (q:Q) CREATE (a)-[:R {since: 25}]->(q)")
	for _, db := range dbs {
		db.Compact()
	}
	compare("compacted")

	// Writes: overlay lists (deleted and new relationships), a property
	// of another type, a wider value, a removed one.
	exec("MATCH (a:P)-[k:R]->() WHERE a.id % 50 = 0 DELETE k")
	exec("MATCH (a:P), (b:P {id: 1}) WHERE a.id % 45 = 1 CREATE (a)-[:R {since: 29}]->(b)")
	exec("MATCH ()-[k:R]->(b:P {id: 2}) SET k.since = 100000")
	exec("MATCH (p:P {id: 3}) SET p.age = 5000000000")
	exec("MATCH (p:P {id: 4}) REMOVE p.age")
	compare("after writes")
	exec("MATCH ()-[k:R]->(b:P {id: 6}) SET k.since = 'x'")
	exec("MATCH (p:P {id: 7}) SET p.age = 'y'")
	compare("mixed types")
	for _, db := range dbs {
		db.Compact()
	}
	compare("compacted again")
}

// scanned runs q and returns the rows it scanned, which must not depend
// on the path a filter took.
func scanned(t *testing.T, db *engine.DB, q string) int64 {
	t.Helper()
	res, err := db.Query(context.Background(), q, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := drain(res); err != nil {
		t.Fatal(err)
	}
	return res.Summary().RowsScanned
}
