package engine_test

import (
	"context"
	"testing"

	"github.com/quiverdb/quiver/engine"
)

// socialGraph has 4 nodes (3 Person, 1 City) and 3 relationships
// (2 KNOWS, 1 LIVES_IN): a-KNOWS->b-KNOWS->c, a-LIVES_IN->x.
func socialGraph(t *testing.T) *engine.DB {
	t.Helper()
	db, err := engine.Open(t.TempDir(), engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	mustQuery(t, db, `CREATE (a:Person {name: 'a'}), (b:Person {name: 'b'}), (c:Person {name: 'c'}),
		(x:City {name: 'x'}), (a)-[:KNOWS]->(b), (b)-[:KNOWS]->(c), (a)-[:LIVES_IN]->(x)`, nil)
	return db
}

func explain(t *testing.T, db *engine.DB, q string) *engine.Explanation {
	t.Helper()
	res, err := db.Query(context.Background(), q, nil)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer res.Close()
	if len(res.Columns()) != 0 {
		t.Errorf("%s: EXPLAIN has columns %v", q, res.Columns())
	}
	if b, err := res.Next(); b != nil || err != nil {
		t.Errorf("%s: EXPLAIN returned rows or an error: %v", q, err)
	}
	if res.Plan() == nil {
		t.Fatalf("%s: no plan", q)
	}
	return res.Plan()
}

// The cost model over known counts: 4 nodes, 3 of them Person, 2 KNOWS
// relationships. A Person scan reads 3 nodes; the average KNOWS
// out-degree is 2/4 = 0.5, so the expansion yields 3 × 0.5 = 1.5 rows and
// costs one per list read plus one per entry (3 + 1.5); the projection
// touches each of its 1.5 rows.
func TestExplainShapeAndEstimates(t *testing.T) {
	db := socialGraph(t)
	ex := explain(t, db, "EXPLAIN MATCH (p:Person)-[:KNOWS]->(q) RETURN q.name")
	proj := ex.Root
	if proj.Operator != "Project" || len(proj.Children) != 1 || len(proj.Columns) != 1 || proj.Columns[0] != "q.name" {
		t.Fatalf("root = %+v", proj)
	}
	exp := proj.Children[0]
	if exp.Operator != "Expand" || exp.Pattern != "(p)-[:KNOWS]->(q)" || len(exp.Children) != 1 {
		t.Fatalf("expand = %+v", exp)
	}
	scan := exp.Children[0]
	if scan.Operator != "NodeScan" || scan.Label != "Person" || scan.IndexUsed != "" || len(scan.Children) != 0 {
		t.Fatalf("scan = %+v", scan)
	}
	checks := []struct {
		name       string
		rows, cost float64
	}{
		{"NodeScan", scan.EstimatedRows, 3}, {"NodeScan cost", scan.EstimatedCost, 3},
		{"Expand", exp.EstimatedRows, 1.5}, {"Expand cost", exp.EstimatedCost, 4.5},
		{"Project", proj.EstimatedRows, 1.5}, {"Project cost", proj.EstimatedCost, 1.5},
		{"total cost", ex.TotalCost, 9}, {"plan rows", ex.Rows, 1.5},
	}
	for _, c := range checks {
		if c.rows != c.cost {
			t.Errorf("%s = %v, want %v", c.name, c.rows, c.cost)
		}
	}

	// An equality keeps a tenth of its input: 1.5 × 0.1; a global count
	// has one row (of distinct nodes: count(*) would count the filtered
	// chain from degrees, rule count-filter).
	ex = explain(t, db, "EXPLAIN MATCH (p:Person)-[:KNOWS]->(q) WHERE q.name = 'b' RETURN count(DISTINCT q) AS n")
	agg := ex.Root.Children[0]
	filter := agg.Children[0]
	if agg.Operator != "Aggregate" || filter.Operator != "Filter" || filter.Filter == "" {
		t.Fatalf("plan = %+v / %+v", agg, filter)
	}
	if filter.EstimatedRows != 0.15 || agg.EstimatedRows != 1 || ex.Rows != 1 {
		t.Errorf("filter rows %v, aggregate rows %v, plan rows %v; want 0.15, 1, 1", filter.EstimatedRows, agg.EstimatedRows, ex.Rows)
	}

	// LIMIT caps the estimate; an UNWIND of a constant range has its
	// exact length; a label nobody carries has no rows.
	if ex := explain(t, db, "EXPLAIN MATCH (n) RETURN n LIMIT 2"); ex.Rows != 2 {
		t.Errorf("MATCH (n) LIMIT 2: rows %v, want 2", ex.Rows)
	}
	if ex := explain(t, db, "EXPLAIN UNWIND range(1, 10) AS x RETURN x"); ex.Rows != 10 {
		t.Errorf("UNWIND range(1, 10): rows %v, want 10", ex.Rows)
	}
	if ex := explain(t, db, "EXPLAIN MATCH (n:Nobody) RETURN n"); ex.Rows != 0 {
		t.Errorf("unknown label: rows %v, want 0", ex.Rows)
	}
	// The incoming direction and the relationship variable show in the
	// pattern.
	ex = explain(t, db, "EXPLAIN MATCH (c:City)<-[r:LIVES_IN]-(p) RETURN p")
	if got := ex.Root.Children[0].Pattern; got != "(c)<-[r:LIVES_IN]-(p)" {
		t.Errorf("pattern = %q", got)
	}
}

// EXPLAIN of a write changes nothing, and EXPLAIN of a query that would
// fail at run time describes it without failing: nothing executes.
func TestExplainNeverExecutes(t *testing.T) {
	db := socialGraph(t)
	ex := explain(t, db, "EXPLAIN CREATE (:Ghost {name: 'g'})-[:HAUNTS]->(:Ghost)")
	if ex.Root.Operator != "Create" {
		t.Errorf("root = %s, want Create", ex.Root.Operator)
	}
	res, err := db.Explain(context.Background(), "UNWIND [1, 2] AS i CREATE (:Ghost {i: i})", nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	explain(t, db, "EXPLAIN RETURN 1/0")
	if got := mustQuery(t, db, "MATCH (n) RETURN count(*)", nil); got[0] != "4" {
		t.Errorf("nodes after EXPLAIN CREATE = %v, want 4", got)
	}
	if got := mustQuery(t, db, "MATCH (n:Ghost) RETURN count(*)", nil); got[0] != "0" {
		t.Errorf("Ghost nodes = %v, want 0", got)
	}
	if st := db.Counts(); st.Relationships != 3 {
		t.Errorf("relationships = %d, want 3", st.Relationships)
	}
}

// PROFILE counts each operator's rows: 3 Person nodes, 2 KNOWS edges
// from them (a->b, b->c), 1 with q.name = 'b', one count row. DB hits:
// the scan reads 3 ids; the expansion reads 3 adjacency lists and 2
// entries; the filter gathers the name of 2 nodes.
func TestProfileCountsRows(t *testing.T) {
	db := socialGraph(t)
	res, err := db.Query(context.Background(),
		"PROFILE MATCH (p:Person)-[:KNOWS]->(q) WHERE q.name = 'b' RETURN count(DISTINCT q) AS n", nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := drain(res)
	if err != nil || len(rows) != 1 || rows[0] != "1" {
		t.Fatalf("rows = %v, %v; want [1]", rows, err)
	}
	p := res.Profile()
	if p == nil || p.TotalTime <= 0 {
		t.Fatalf("profile = %+v", p)
	}
	want := []struct {
		name         string
		rows, dbHits int64
	}{{"Project", 1, 0}, {"Aggregate", 1, 0}, {"Filter", 1, 2}, {"Expand", 2, 5}, {"NodeScan", 3, 3}}
	if len(p.Operators) != len(want) {
		t.Fatalf("operators = %+v", p.Operators)
	}
	for i, w := range want {
		op := p.Operators[i]
		if op.Name != w.name || op.Rows != w.rows || op.DBHits != w.dbHits || op.Time < 0 {
			t.Errorf("operator %d = %+v, want %s with %d rows and %d db hits", i, op, w.name, w.rows, w.dbHits)
		}
	}

	// A query without PROFILE has no profile.
	res, err = db.Query(context.Background(), "MATCH (n) RETURN n", nil)
	if err != nil {
		t.Fatal(err)
	}
	drain(res)
	if res.Profile() != nil {
		t.Error("profile without PROFILE")
	}
}

// PROFILE runs writes for real, and OPTIONAL MATCH, whose inner operators
// are rebuilt per input batch, reports one entry per operator whatever
// the batch size.
func TestProfileWritesAndOptional(t *testing.T) {
	db := socialGraph(t)
	res, err := db.Profile(context.Background(), "UNWIND [1, 2, 3] AS i CREATE (:Made {i: i})", nil)
	if err != nil {
		t.Fatal(err)
	}
	drain(res)
	ops := res.Profile().Operators
	// The Eager barrier completes the rows an updating clause receives
	// before it writes (docs/query-language.md, Writes).
	if len(ops) != 4 || ops[0].Name != "Create" || ops[0].Rows != 3 || ops[1].Name != "Eager" || ops[1].Rows != 3 ||
		ops[2].Name != "Unwind" || ops[2].Rows != 3 || ops[3].Name != "Unit" || ops[3].Rows != 1 {
		t.Errorf("operators = %+v", ops)
	}
	if got := mustQuery(t, db, "MATCH (n:Made) RETURN count(*)", nil); got[0] != "3" {
		t.Errorf("Made nodes = %v, want 3", got)
	}

	// Five rows of x, each matched with the one City.
	res, err = db.Query(context.Background(), "PROFILE UNWIND [1, 2, 3, 4, 5] AS x OPTIONAL MATCH (c:City) RETURN x, c.name", nil)
	if err != nil {
		t.Fatal(err)
	}
	rows, _ := drain(res)
	if len(rows) != 5 {
		t.Fatalf("rows = %v", rows)
	}
	byName := map[string]int64{}
	for _, op := range res.Profile().Operators {
		if _, dup := byName[op.Name]; dup {
			t.Errorf("operator %s reported twice", op.Name)
		}
		byName[op.Name] = op.Rows
	}
	if byName["Unwind"] != 5 || byName["Optional"] != 5 || byName["CrossProduct"] != 5 || byName["Project"] != 5 {
		t.Errorf("rows per operator = %v", byName)
	}
}
