package engine_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// codeDistinctQueries are DISTINCT and count(DISTINCT) over node
// properties: STRING and INTEGER columns, a key nobody has, a wide
// INTEGER (no 4-byte view), mixed types, nulls, over a filter and an
// expansion, and one ordered by its keys (ties broken by the rows).
var codeDistinctQueries = []string{
	"MATCH (p:P) WITH DISTINCT p.city AS c, p.age AS a RETURN count(*) AS n",
	"MATCH (p:P) RETURN DISTINCT p.city AS c, p.age AS a",
	"MATCH (p:P) RETURN count(DISTINCT p.name) AS n",
	"MATCH (p:P) RETURN count(DISTINCT p.age) AS n",
	"MATCH (p:P) RETURN count(DISTINCT p.city) AS n",
	"MATCH (p) RETURN DISTINCT p.city AS c",
	"MATCH (p:P) WHERE p.age < 30 RETURN DISTINCT p.name AS n, p.city AS c",
	"MATCH (p:P) RETURN DISTINCT p.nokey AS k, p.city AS c",
	"MATCH (p:P) RETURN count(DISTINCT p.nokey) AS n",
	"MATCH (p:P) RETURN count(DISTINCT p.big) AS n",
	"MATCH (p:P) RETURN DISTINCT p.big AS b, p.age AS a",
	"MATCH (p:P) RETURN DISTINCT p.mixed AS m",
	"MATCH (p:P) RETURN DISTINCT p.age AS a, p.name AS n, p.city AS c, p.mixed AS m",
	"MATCH (p:P)-[:R]->(q) RETURN DISTINCT q.city AS c, p.age AS a",
	"MATCH (p:P) RETURN DISTINCT p.city AS c, p.age AS a ORDER BY c, a LIMIT 30",
	"MATCH (p:P) WITH DISTINCT p.name AS n RETURN n ORDER BY n",
}

// codeDistinctScript makes 6,000 :P nodes (three groups of ids, so that
// a saved base codes its strings in one dictionary) and relationships.
var codeDistinctScript = []string{
	"UNWIND range(0, 5999) AS i CREATE (:P {id: i, " +
		"city: CASE WHEN i % 17 = 0 THEN null ELSE 'City' + toString(i % 31) END, " +
		"age: CASE WHEN i % 13 = 0 THEN null ELSE 18 + i % 63 END, " +
		"name: 'N' + toString((i * 7) % 50), big: (i % 5) * 10000000000, " +
		"mixed: CASE i % 3 WHEN 0 THEN 'x' + toString(i % 4) WHEN 1 THEN i % 4 ELSE null END})",
	"UNWIND range(0, 99) AS i CREATE (:Q {city: 'City' + toString(i % 40)})",
	// Linear, not a 6,000 × 6,000 join: the race detector's build runs
	// this test too.
	"MATCH (p:P) WITH p ORDER BY p.id WITH collect(p) AS ps UNWIND range(0, 5999) AS i " +
		"WITH ps[i] AS a, ps[(i * 7 + 1) % 6000] AS b1, ps[(i * 11 + 3) % 6000] AS b2, ps[(i * 13 + 5) % 6000] AS b3 " +
		"CREATE (a)-[:R]->(b1), (a)-[:R]->(b2), (a)-[:R]->(b3)",
}

// codeDistinctWrites change the data after the base was saved: strings
// outside the dictionary, strings of it, an INTEGER in the STRING
// column's place on other nodes, new nodes, removed values.
var codeDistinctWrites = []string{
	"MATCH (p:P) WHERE p.id % 101 = 0 SET p.city = 'Atlantis' + toString(p.id % 3)",
	"MATCH (p:P) WHERE p.id % 103 = 0 SET p.city = 'City5', p.age = 99",
	"MATCH (p:P) WHERE p.id % 211 = 0 REMOVE p.name, p.age",
	"UNWIND range(0, 20) AS i CREATE (:P {id: 7000 + i, city: 'City' + toString(i), age: 20 + i, name: 'New' + toString(i % 3)})",
}

// TestCodeDistinctDifferential compares code-distinct (on two workers)
// with the general path (the rule off, one worker) on the same data: as
// written (open chunks, no codes), compacted (a dictionary per chunk),
// saved and reopened (one dictionary per column), inside a transaction
// that wrote (an overlay), and after writes committed over the base.
func TestCodeDistinctDifferential(t *testing.T) {
	dirOn, dirOff := t.TempDir(), t.TempDir()
	optsOn := engine.Options{Parallelism: 2}
	optsOff := engine.Options{Parallelism: 1, DisabledRules: []string{"code-distinct"}}
	on, off := openAt(t, dirOn, optsOn), openAt(t, dirOff, optsOff)
	for _, db := range []*engine.DB{on, off} {
		for _, s := range codeDistinctScript {
			mustQuery(t, db, s, nil)
		}
	}
	compare := func(phase string, qon, qoff querier) {
		t.Helper()
		for _, q := range codeDistinctQueries {
			want := distinctRows(t, qoff, q)
			got := distinctRows(t, qon, q)
			if !slices.Equal(got, want) {
				t.Errorf("%s: %s\ngot  %q\nwant %q", phase, q, got, want)
			}
		}
	}
	compare("written", on, off)
	on.Compact()
	off.Compact()
	compare("compacted", on, off)
	for _, db := range []*engine.DB{on, off} {
		if _, err := db.SaveBase(); err != nil {
			t.Fatal(err)
		}
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
	on, off = openAt(t, dirOn, optsOn), openAt(t, dirOff, optsOff)
	compare("reopened", on, off)
	checkCoded(t, on)

	// Inside a transaction that wrote: its overlay holds values outside
	// the dictionary; both transactions roll back.
	txOn, err := on.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	txOff, err := off.BeginTransaction(engine.TransactionOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tx := range []*engine.Transaction{txOn, txOff} {
		for _, s := range codeDistinctWrites {
			mustQuery(t, tx, s, nil)
		}
	}
	compare("in a transaction", txOn, txOff)
	for _, tx := range []*engine.Transaction{txOn, txOff} {
		if _, err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
	}
	compare("rolled back", on, off)
	for _, db := range []*engine.DB{on, off} {
		for _, s := range codeDistinctWrites {
			mustQuery(t, db, s, nil)
		}
		mustQuery(t, db, "MATCH (p:P) WHERE p.id % 307 = 0 SET p.age = 'old'", nil)
	}
	compare("committed", on, off)
	// A statement that writes before it reads runs on one worker over
	// its own writes.
	for _, q := range []string{
		"MATCH (p:P) WHERE p.id % 401 = 0 SET p.city = 'Lemuria' WITH count(*) AS w MATCH (p:P) RETURN count(DISTINCT p.city) AS n",
		"MATCH (p:P) WHERE p.id % 409 = 0 SET p.city = null WITH count(*) AS w MATCH (p:P) RETURN DISTINCT p.city AS c",
	} {
		want := distinctRows(t, off, q)
		if got := distinctRows(t, on, q); !slices.Equal(got, want) {
			t.Errorf("writing: %s\ngot  %q\nwant %q", q, got, want)
		}
	}
}

// checkCoded checks that, on a reopened base, EXPLAIN names
// code-distinct and PROFILE shows it read the bulk-loaded rows without
// falling back to the general path's values for a whole batch, on
// workers over the expansion.
func checkCoded(t *testing.T, db *engine.DB) {
	t.Helper()
	// The expansion's rows are worth two workers' morsels.
	for _, q := range []string{codeDistinctQueries[0], codeDistinctQueries[2], codeDistinctQueries[13]} {
		_, rules := strategiesOf(t, db, q, nil)
		if !slices.Contains(rules, "code-distinct") || !slices.Contains(rules, "parallel") {
			t.Errorf("%s: rules %v without code-distinct and parallel", q, rules)
		}
		res, err := db.Profile(context.Background(), q, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := drain(res); err != nil {
			t.Fatal(err)
		}
		for _, op := range res.Profile().Operators {
			for _, f := range op.Fallbacks {
				if strings.HasPrefix(f, "code-distinct") || strings.HasPrefix(f, "parallel") && strings.Contains(q, "-[") {
					t.Errorf("%s: fell back: %s", q, f)
				}
			}
		}
	}
}

func openAt(t *testing.T, dir string, o engine.Options) *engine.DB {
	t.Helper()
	db, err := engine.Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// distinctRows is q's header and rows, sorted unless q orders them.
func distinctRows(t *testing.T, db querier, q string) []string {
	t.Helper()
	res, err := db.Query(context.Background(), q, nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	rows, err := drain(res)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	if !strings.Contains(q, "ORDER BY") {
		slices.Sort(rows)
	}
	header := make([]string, len(res.Columns()))
	for i, c := range res.Columns() {
		header[i] = fmt.Sprintf("%s:%s", c.Name, c.Type)
	}
	return append([]string{strings.Join(header, " | ")}, rows...)
}
