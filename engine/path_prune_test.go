package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// all() over a variable-length chain's relationships is tested as the
// chain grows (rule path-prune): a root with ten T children, each with
// ten, w = 0..9 on each level's relationships. Of the 110 chains of one
// or two relationships, 2 + 2 × 2 have every w < 2. With the rule on,
// the expansion emits only those six and reads only the lists of the
// root and the two children it goes on from; with it off it emits all
// 110 and reads every child's list, and the Filter above drops 104.
func TestPathPruneRows(t *testing.T) {
	ctx := context.Background()
	open := func(opts engine.Options) *engine.DB {
		db, err := engine.Open(t.TempDir(), opts)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		mustQuery(t, db, "CREATE (:R {id: 0})", nil)
		mustQuery(t, db, "MATCH (r:R) UNWIND range(0, 9) AS i CREATE (r)-[:T {w: i}]->(:C {i: i})", nil)
		mustQuery(t, db, "MATCH (c:C) UNWIND range(0, 9) AS i CREATE (c)-[:T {w: i}]->(:G)", nil)
		return db
	}
	const q = "MATCH (a:R)-[rs:T*1..2]->(c) WHERE all(r IN rs WHERE r.w < 2) RETURN count(*) AS n"
	profile := func(db *engine.DB) (rows, hits int64) {
		t.Helper()
		res, err := db.Query(ctx, "PROFILE "+q, nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := drain(res)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got, []string{"6"}) {
			t.Fatalf("count = %v, want [6]", got)
		}
		rows = -1
		for _, op := range res.Profile().Operators {
			hits += op.DBHits
			if op.Name == "VariableLengthExpand" {
				rows = op.Rows
			}
		}
		if rows < 0 {
			t.Fatalf("no VariableLengthExpand in %+v", res.Profile().Operators)
		}
		return rows, hits
	}
	on := open(engine.Options{Parallelism: 1})
	off := open(engine.Options{Parallelism: 1, DisabledRules: []string{"path-prune"}})
	onRows, onHits := profile(on)
	offRows, offHits := profile(off)
	if onRows != 6 || offRows != 110 {
		t.Errorf("VariableLengthExpand emitted %d rows with the rule, %d without; want 6 and 110", onRows, offRows)
	}
	// The scan reads one node. The test reads w of the 10 + 2 × 10
	// relationships of the lists loaded; the Filter read it along all
	// 110 chains, 10 + 100 × 2.
	if onHits != 1+30 || offHits != 1+210 {
		t.Errorf("the plan read %d properties with the rule, %d without; want 31 and 211", onHits, offHits)
	}

	// An inline property map was tested on each relationship as the
	// chain grows before this rule, and still is, rule or not: w = 1 at
	// both levels is one chain of each length.
	for _, db := range []*engine.DB{on, off} {
		res, err := db.Query(ctx, "PROFILE MATCH (a:R)-[:T*1..2 {w: 1}]->(c) RETURN count(*) AS n", nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := drain(res); err != nil || !slices.Equal(got, []string{"2"}) {
			t.Fatalf("inline map: %v, %v; want [2]", got, err)
		}
		for _, op := range res.Profile().Operators {
			if op.Name == "VariableLengthExpand" && op.Rows != 2 {
				t.Errorf("inline map: VariableLengthExpand emitted %d rows, want 2", op.Rows)
			}
		}
	}

	ex := explain(t, on, "EXPLAIN "+q)
	if !slices.Contains(ex.Rules, "path-prune") || !strings.Contains(planText(ex.Root), "pruned: relationships") {
		t.Errorf("rule on: rules %v, plan %s", ex.Rules, planText(ex.Root))
	}
	ex = explain(t, off, "EXPLAIN "+q)
	if slices.Contains(ex.Rules, "path-prune") || strings.Contains(planText(ex.Root), "pruned") {
		t.Errorf("rule off: rules %v, plan %s", ex.Rules, planText(ex.Root))
	}
}

// planText is every operator's name and details, one a line.
func planText(d *engine.PlanNode) string {
	s := d.Operator + " " + d.Details + "\n"
	for _, c := range d.Children {
		s += planText(c)
	}
	return s
}

// Once all() over a named relationship list moved into the expansion,
// nothing reads the list: with only distinct far ends wanted, the
// reachability search runs with the test, and without it the chains are
// enumerated and filtered. Both find the same far ends (the four children
// with w < 4 and their 16 such children).
func TestPathPruneEndpoints(t *testing.T) {
	ctx := context.Background()
	const q = "MATCH (a:R)-[rs:T*1..2]->(c) WHERE all(r IN rs WHERE r.w < 4) RETURN count(DISTINCT c) AS n"
	for _, tc := range []struct {
		disabled  []string
		endpoints bool
	}{{nil, true}, {[]string{"path-prune"}, false}, {[]string{"endpoints-bfs"}, true}} {
		db, err := engine.Open(t.TempDir(), engine.Options{DisabledRules: tc.disabled})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		mustQuery(t, db, "CREATE (:R {id: 0})", nil)
		mustQuery(t, db, "MATCH (r:R) UNWIND range(0, 9) AS i CREATE (r)-[:T {w: i}]->(:C {i: i})", nil)
		mustQuery(t, db, "MATCH (c:C) UNWIND range(0, 9) AS i CREATE (c)-[:T {w: i}]->(:G)", nil)
		res, err := db.Query(ctx, q, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := drain(res); err != nil || !slices.Equal(got, []string{"20"}) {
			t.Errorf("rules off %v: %v, %v; want [20]", tc.disabled, got, err)
		}
		text := planText(explain(t, db, "EXPLAIN "+q).Root)
		if strings.Contains(text, "endpoints only") != tc.endpoints {
			t.Errorf("rules off %v: endpoints only = %v, want %v in\n%s", tc.disabled, !tc.endpoints, tc.endpoints, text)
		}
	}
}

// ALL SHORTEST with all() over the path's relationships: of the ten
// shortest paths from s to t (through ten middle nodes, w = 0..9 on both
// hops), two have every w < 2. With the rule on, the search emits only
// those two; with it off it emits all ten and the Filter drops eight.
// allShortestPaths searches among the passing paths whatever the rules:
// two either way.
func TestPathPruneAllShortest(t *testing.T) {
	ctx := context.Background()
	const gql = "MATCH (s:S), (t:T) MATCH p = ALL SHORTEST (s)-[:E]->+(t) WHERE all(r IN relationships(p) WHERE r.w < 2) RETURN count(*) AS n"
	const legacy = "MATCH (s:S), (t:T) MATCH p = allShortestPaths((s)-[:E*]->(t)) WHERE all(r IN relationships(p) WHERE r.w < 2) RETURN count(*) AS n"
	for _, tc := range []struct {
		q        string
		disabled []string
		emitted  int64
	}{{gql, nil, 2}, {gql, []string{"path-prune"}, 10}, {legacy, nil, 2}, {legacy, []string{"path-prune"}, 2}} {
		q := tc.q
		db, err := engine.Open(t.TempDir(), engine.Options{Parallelism: 1, DisabledRules: tc.disabled})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		mustQuery(t, db, "CREATE (:S), (:T)", nil)
		mustQuery(t, db, "MATCH (s:S), (t:T) UNWIND range(0, 9) AS i CREATE (s)-[:E {w: i}]->(:M)-[:E {w: i}]->(t)", nil)
		res, err := db.Query(ctx, "PROFILE "+q, nil)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := drain(res); err != nil || !slices.Equal(got, []string{"2"}) {
			t.Fatalf("rules off %v: %v, %v; want [2]", tc.disabled, got, err)
		}
		var emitted int64 = -1
		for _, op := range res.Profile().Operators {
			if op.Name == "ShortestPath" || op.Name == "AllShortestPaths" {
				emitted = op.Rows
			}
		}
		if emitted != tc.emitted {
			t.Errorf("rules off %v: the search emitted %d paths, want %d (%+v)", tc.disabled, emitted, tc.emitted, res.Profile().Operators)
		}
	}
}
