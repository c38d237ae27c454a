package engine_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/quiverdb/quiver/engine"
	"github.com/quiverdb/quiver/engine/errs"
)

// A quantified group's WHERE is tested on each iteration as the search
// expands: a root with ten T children, each with ten, w = 0..9 on each
// level's relationships. Of the 110 paths of one or two iterations,
// 2 + 2 × 2 have every w < 2. The group's test makes the search keep
// only those six and read w of the 10 + 2 × 10 relationships of the
// lists it loads (the root's and the two passing children's); the same
// condition written as all() in the MATCH's WHERE, outside the group,
// lets all 110 paths be built and read w along each, 10 + 100 × 2.
func TestQuantifiedWherePrunes(t *testing.T) {
	ctx := context.Background()
	db, err := engine.Open(t.TempDir(), engine.Options{Parallelism: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	mustQuery(t, db, "CREATE (:R {id: 0})", nil)
	mustQuery(t, db, "MATCH (r:R) UNWIND range(0, 9) AS i CREATE (r)-[:T {w: i}]->(:C {i: i})", nil)
	mustQuery(t, db, "MATCH (c:C) UNWIND range(0, 9) AS i CREATE (c)-[:T {w: i}]->(:G)", nil)

	profile := func(q string) (rows, hits int64) {
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
			t.Fatalf("%s: count = %v, want [6]", q, got)
		}
		rows = -1
		for _, op := range res.Profile().Operators {
			hits += op.DBHits
			if op.Name == "QuantifiedExpand" {
				rows = op.Rows
			}
		}
		if rows < 0 {
			t.Fatalf("no QuantifiedExpand in %+v", res.Profile().Operators)
		}
		return rows, hits
	}
	const inner = "MATCH (a:R)((x)-[r:T]->(y) WHERE r.w < 2){1,2}(c) RETURN count(*) AS n"
	const outer = "MATCH (a:R)((x)-[r:T]->(y)){1,2}(c) WHERE all(e IN r WHERE e.w < 2) RETURN count(*) AS n"
	inRows, inHits := profile(inner)
	outRows, outHits := profile(outer)
	if inRows != 6 || outRows != 110 {
		t.Errorf("QuantifiedExpand emitted %d rows with the group's WHERE, %d with the MATCH's; want 6 and 110", inRows, outRows)
	}
	// The scan reads one node.
	if inHits != 1+30 || outHits != 1+210 {
		t.Errorf("the plan read %d properties with the group's WHERE, %d with the MATCH's; want 31 and 211", inHits, outHits)
	}
	ex := explain(t, db, "EXPLAIN "+inner)
	if text := planText(ex.Root); !strings.Contains(text, "QuantifiedExpand") || !strings.Contains(text, "pruned: iterations") {
		t.Errorf("EXPLAIN does not show the test of each iteration:\n%s", text)
	}
}

// An unbounded search is bounded by the statement's memory: the trails
// of a complete graph of eight nodes number in the billions, and the
// search's entries are charged until the limit stops it with 53200.
func TestQuantifiedSearchIsCharged(t *testing.T) {
	db, err := engine.Open(t.TempDir(), engine.Options{Parallelism: 1, MaxMemoryPerQuery: 8 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	mustQuery(t, db, "UNWIND range(0, 7) AS i CREATE (:K {i: i})", nil)
	mustQuery(t, db, "MATCH (a:K), (b:K) WHERE a <> b CREATE (a)-[:T]->(b)", nil)
	res, err := db.Query(context.Background(), "MATCH (a:K {i: 0})((x)-[:T]->(y))+(b) RETURN count(*) AS n", nil)
	if err == nil {
		_, err = drain(res)
	}
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeOutOfMemory {
		t.Fatalf("got %v, want a 53200 error", err)
	}
}

// A selector that takes one path (or the shortest group) of a directed
// group searches breadth first, extending only the first paths to reach
// each node, under every mode: between the ends of 30 layers of two
// nodes, each joined to both of the next layer's, there are 2^28
// shortest paths of 29 relationships, which enumerating every trail could
// never hold in 4 MiB. SHORTEST 1 finds one; ANY and SHORTEST 1 to any
// far end find one path to each of the 58 nodes of layers 1 to 29 (and
// the start itself with *).
func TestQuantifiedSelectorSearchesBreadthFirst(t *testing.T) {
	db, err := engine.Open(t.TempDir(), engine.Options{Parallelism: 1, MaxMemoryPerQuery: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	mustQuery(t, db, "UNWIND range(0, 29) AS l UNWIND range(0, 1) AS i CREATE (:L {l: l, i: i})", nil)
	mustQuery(t, db, "MATCH (a:L), (b:L) WHERE b.l = a.l + 1 CREATE (a)-[:T]->(b)", nil)
	for q, want := range map[string]string{
		"MATCH p = SHORTEST 1 (a:L {l: 0, i: 0})((x)-[:T]->(y))+(b:L {l: 29, i: 1}) RETURN length(p)": "29",
		"MATCH p = ANY ACYCLIC (a:L {l: 0, i: 0})-[:T]->+(b:L) RETURN count(*)":                       "58",
		"MATCH p = SHORTEST 1 TRAIL (a:L {l: 0, i: 0})-[:T]->*(b:L) RETURN count(*)":                  "59",
	} {
		if got := mustQuery(t, db, q, nil); !slices.Equal(got, []string{want}) {
			t.Errorf("%s: %v, want [%s]", q, got, want)
		}
	}
	// Undirected, every trail is enumerated: the memory limit stops it.
	res, err := db.Query(context.Background(), "MATCH p = SHORTEST 1 (a:L {l: 0, i: 0})-[:T]-+(b:L {l: 29, i: 1}) RETURN length(p)", nil)
	if err == nil {
		_, err = drain(res)
	}
	if e, ok := errs.As(err); !ok || e.Code != errs.CodeOutOfMemory {
		t.Fatalf("undirected: got %v, want a 53200 error", err)
	}
}
