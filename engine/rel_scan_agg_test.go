package engine_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// TestRelScanAggDifferential compares grouping by a relationship
// property computed as a scan of the property's views (rel-scan-agg)
// with the general path (the rule off) over random graphs: two types,
// parallel relationships and self-loops, null keys
// in a narrow or a wide range, start-node keys (INTEGER and STRING),
// deleted relationships and nodes, directed
// and undirected patterns, before and after compaction.
func TestRelScanAggDifferential(t *testing.T) {
	ctx := context.Background()
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 30))
		on, err := engine.Open(t.TempDir(), engine.Options{Parallelism: 2})
		if err != nil {
			t.Fatal(err)
		}
		defer on.Close()
		off, err := engine.Open(t.TempDir(), engine.Options{Parallelism: 1, DisabledRules: []string{"rel-scan-agg"}})
		if err != nil {
			t.Fatal(err)
		}
		defer off.Close()
		wide := seed%2 == 1
		script := relScanScript(rng, wide)
		for _, db := range []*engine.DB{on, off} {
			for _, s := range script {
				res, err := db.Query(ctx, s, nil)
				if err == nil {
					_, err = drain(res)
				}
				if err != nil {
					t.Fatalf("seed %d: %s: %v", seed, s, err)
				}
			}
		}
		queries := []string{
			"MATCH (a:P)-[k:T]->(b:P) RETURN k.w AS w, count(*) AS c",
			"MATCH (a)-[k:T]->(b) RETURN k.w AS w, count(*) AS c, count(b) AS cb",
			"MATCH (a:P)<-[k:T|U]-(b) RETURN k.w AS w, count(k) AS c",
			"MATCH (a:P)-[k:T]-(b:P) RETURN k.w AS w, count(*) AS c",
			"MATCH (a)-[k]-(b) RETURN k.w AS w, count(*) AS c",
			"MATCH (a)-[k:U]->(b) RETURN k.w AS w, count(*) AS c",
			"MATCH (a:Q)-[k:T]->(b) RETURN k.w AS w, count(*) AS c",
			"MATCH (a)-[k:NONE]->(b) RETURN k.w AS w, count(*) AS c",
			"MATCH (a:P)-[k:T]->(b:P) RETURN a.g AS g, k.w AS w, count(*) AS c",
			"MATCH (a)<-[k:T|U]-(b) RETURN k.w AS w, a.g AS g, count(b) AS c",
			"MATCH (a)-[k:T]-(b) RETURN a.g AS g, k.w AS w, count(*) AS c",
			"MATCH (a)-[k]-(b) RETURN a.name AS name, k.w AS w, count(*) AS c",
			"MATCH (a)-[k:U]->(b) RETURN a.name AS name, k.w AS w, count(*) AS c",
			"MATCH (a)-[k:T]->(b) RETURN a.big AS big, k.w AS w, count(*) AS c",
		}
		for phase := range 2 {
			for _, q := range queries {
				want := relScanRows(t, off, q, false)
				// A start-node key takes the strategy over 16-bit values.
				chosen := phase == 1 && !strings.Contains(q, ":Q") && !strings.Contains(q, "NONE") &&
					!(wide && strings.Contains(q, "a."))
				got := relScanRows(t, on, q, chosen)
				if !slices.Equal(got, want) {
					t.Errorf("seed %d phase %d: %s\ngot  %q\nwant %q", seed, phase, q, got, want)
				}
			}
			on.Compact()
			off.Compact()
		}
	}
}

// relScanScript creates a random graph, then deletes some of it.
func relScanScript(rng *rand.Rand, wide bool) []string {
	const nodes = 300
	var b strings.Builder
	b.WriteString("UNWIND range(0, 299) AS i CREATE (n:P {uid: i, g: CASE WHEN i % 11 = 0 THEN null ELSE i % 5 END, " +
		"name: ['ann', 'bob', null, 'eve'][i % 4], big: (i % 13) * 100000000000}) WITH n, i WHERE i % 7 = 0 SET n:Q")
	script := []string{b.String()}
	val := func() string {
		if rng.IntN(6) == 0 {
			return "null"
		}
		if wide {
			return fmt.Sprint(rng.Int64N(1<<40) - 1<<39)
		}
		return fmt.Sprint(1990 + rng.IntN(30))
	}
	for range 6 {
		var rels []string
		for range 100 {
			src, dst := rng.IntN(nodes), rng.IntN(nodes)
			if rng.IntN(20) == 0 {
				dst = src
			}
			typ := []string{"T", "T", "U"}[rng.IntN(3)]
			rels = append(rels, fmt.Sprintf("[%d, %d, '%s', %s]", src, dst, typ, val()))
		}
		for _, typ := range []string{"T", "U"} {
			script = append(script, "UNWIND ["+strings.Join(rels, ", ")+"] AS r WITH r WHERE r[2] = '"+typ+"' "+
				"MATCH (a {uid: r[0]}), (b {uid: r[1]}) CREATE (a)-[:"+typ+" {w: r[3]}]->(b)")
		}
	}
	return append(script,
		fmt.Sprintf("MATCH ()-[k]->() WHERE id(k) %% %d = 0 DELETE k", 5+rng.IntN(5)),
		fmt.Sprintf("MATCH (n) WHERE n.uid %% %d = 1 DETACH DELETE n", 20+rng.IntN(10)))
}

// relScanRows runs q and returns its rows sorted; chosen requires that
// PROFILE shows rel-scan-agg ran (no fallback).
func relScanRows(t *testing.T, db *engine.DB, q string, chosen bool) []string {
	t.Helper()
	res, err := db.Profile(context.Background(), q, nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	rows, err := drain(res)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	slices.Sort(rows)
	var falls []string
	for _, op := range res.Profile().Operators {
		falls = append(falls, op.Fallbacks...)
		if chosen && strings.HasPrefix(op.Name, "Expand") && op.Rows > 0 {
			t.Errorf("%s: the expansion made %d rows", q, op.Rows)
		}
	}
	for _, f := range falls {
		if chosen && strings.HasPrefix(f, "rel-scan-agg") {
			t.Errorf("%s: fell back: %s", q, f)
		}
	}
	return rows
}
